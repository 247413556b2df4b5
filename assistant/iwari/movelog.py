"""Comparing Iwari move logs as a camera sees them: the yardstick of ``tablewatch e2e --game iwari``.

Owns ``split_turns`` (a log cut into turns: a turn is one player's move, ending with its ``EndTurn``, I-TURN-9),
``TurnView`` (what a camera can tell of one turn) and ``turns`` (a log replayed into one ``TurnView`` per turn, the
``Game.movelog`` contract). A camera sees the table, never a hand: the pieces placed (each in its tribe's colour,
a tent on its space), the cards laid in the play area (the payments and the swapped card, I-NIT-7), the display
slots whose card changed, the feats placed (a totem put on a stack its tribe already tops too: its top keeps the
colour, but the stack changes, ``vision.stacks``). It never sees which card paid for which piece, the order of the
moves inside one turn, a card drawn from the deck, a display card taken and replaced by one of the same colour, nor
the hands; two logs that differ only there are the same game. Pure Python.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.board import mover
from assistant.iwari.edits import apply_edit
from assistant.iwari.state import State


@dataclass(frozen=True, slots=True)
class TurnView:
    """What a camera can tell of one turn; two turns are the same game as far as it can tell when their views are
    equal. ``pieces``: ((piece, territory, tent space or None, tribe colour), count), sorted; ``played``: (card
    colour, count) in the play area when the turn ends, sorted; ``swap``: the card swapped (I-TURN-8) or None;
    ``display``: (slot, card now or None) of each display slot whose card changed, sorted; ``feats``: ((feat, where),
    count), sorted."""

    pieces: tuple = ()
    played: tuple = ()
    swap: str | None = None
    display: tuple = ()
    feats: tuple = ()


def split_turns(moves) -> list[list]:
    """A move list cut into turns, each ending with an ``EndTurn`` (the last may be unfinished)."""
    turns, cur = [], []
    for m in moves:
        cur.append(m)
        if isinstance(m, M.EndTurn):
            turns.append(cur)
            cur = []
    return turns + ([cur] if cur else [])


class _Turn:
    """One turn's visible changes, gathered while its moves are replayed."""

    def __init__(self, state: State):
        self.display = list(state.display)
        self.pieces: Counter = Counter()
        self.feats: Counter = Counter()
        self.swap: str | None = None

    def see(self, state: State, move) -> None:
        """Note what ``move`` shows, before it is played on ``state``."""
        if isinstance(move, M.Place):
            self.pieces[(move.piece, move.territory, move.space, state.tribes[mover(state, move)])] += 1
        elif isinstance(move, M.Swap):
            self.swap = move.card
        elif isinstance(move, M.PlaceFeat):
            self.feats[(move.feat, move.at)] += 1

    def view(self, state: State, played: list) -> TurnView:
        """The turn's view: ``state`` the table as the turn leaves it, ``played`` its play area before the discard."""
        now = list(state.display)
        size = max(len(now), len(self.display))
        now += [None] * (size - len(now))
        was = self.display + [None] * (size - len(self.display))
        changed = tuple((slot, now[slot - 1]) for slot in range(1, size + 1) if now[slot - 1] != was[slot - 1])
        return TurnView(
            tuple(sorted(self.pieces.items(), key=repr)),
            tuple(sorted(Counter(played).items())),
            self.swap,
            changed,
            tuple(sorted(self.feats.items())),
        )


def turns(initial: State | None, moves, edits: dict | None = None) -> list[TurnView]:
    """The log ``moves`` replayed from ``initial`` with the hidden-information ``edits`` {move index: [edit, ...]}
    (as the tracker replays its line), one ``TurnView`` per turn of ``split_turns``. ``initial`` None: no state to
    replay from (a recording without its set-up); a ``ValueError`` then, for a view needs the table."""
    if initial is None:
        raise ValueError("an Iwari move log is compared on the table it leaves: give the initial state")
    state = initial.copy()
    out: list[TurnView] = []
    turn = _Turn(state)
    moves = list(moves)
    for i, move in enumerate(moves):
        for edit in (edits or {}).get(i, ()):
            apply_edit(state, edit)
        turn.see(state, move)
        played = list(state.played)  # the play area before an EndTurn discards it
        rules.apply(state, move, validate=False)
        if isinstance(move, M.EndTurn):
            out.append(turn.view(state, played))
            turn = _Turn(state)
    if moves and not isinstance(moves[-1], M.EndTurn):
        out.append(turn.view(state, list(state.played)))
    return out
