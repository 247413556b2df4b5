"""The Iwari part of a recorded game (``models.synth.recording``): the seeded game on a map, its table (the map
board and the card display, ``models.synth.iwari``), its signature, its injected illegal changes and its
session.json.

The game: ``assistant.iwari.setup.new_game`` on the map named by the options (None: one of the built-in maps drawn
from the seed, ``map_for``), played to its end by ``assistant.iwari.generate.random_move`` seeded with the game's
seed, every move checked by ``rules.apply``.

Injected illegal changes (``INJECT_KINDS``), each made by the player whose turn it is, for their own tribe, on the
table as it stands before the move (the put-back table): ``two_territories`` (a piece in a second territory in one
turn, I-TURN-1), ``unexplored_two`` (a second tent in the territory the turn's first tent explored, I-TURN-2),
``totem_majority`` (a totem that makes a stack higher than the tent majority there, I-TURN-5), ``occupied`` (a tent
put on a tent space that holds another tribe's tent, which it replaces on the table, I-TURN-4), ``too_many`` (a
piece of a kind the tribe has none left of, I-COMP-3; only once a supply is out, which random games seldom reach).
Each is paid with cards from the player's hand (the cards show in the play area); of the candidates the one
``rules.check`` rejects with the fewest broken rules is taken, and every rule it breaks is recorded. A totem put on
a stack its own tribe already tops is injected too: its top keeps the colour, but the stack changes
(``vision.stacks``; docs/synth.md).
"""

from __future__ import annotations

import random

import numpy as np

from assistant.errors import UserError
from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.board import MAX_CARDS, payment_table
from assistant.iwari.edition import load_edition
from assistant.iwari.generate import random_move
from assistant.iwari.maps import map_names
from assistant.iwari.setup import new_game
from models.synth import iwari as IW
from models.synth.placing import table_signature

INJECT_KINDS = ("two_territories", "unexplored_two", "totem_majority", "occupied", "too_many")
KIND_RULES = {
    "two_territories": "I-TURN-1",
    "unexplored_two": "I-TURN-2",
    "totem_majority": "I-TURN-5",
    "occupied": "I-TURN-4",
    "too_many": "I-COMP-3",
}
NAMES = list(IW.NAMES)
MAX_MOVES = 5000  # a random game ends long before (about 200 moves); past this the random player is broken


def map_for(players: int, seed: int, name: str | None = None) -> str:
    """The game's map: ``name``, or one of the built-in maps drawn from the seed and the player count."""
    if name is not None:
        return name
    names = sorted(map_names())
    return names[int(np.random.default_rng([seed, players, 0x1A4]).integers(0, len(names)))]


def play_game(players: int, seed: int, map_name: str | None = None):
    """(initial state, moves) of a seeded random game played to its end, every move checked by the rules."""
    initial = new_game(NAMES[:players], seed=seed, map=map_for(players, seed, map_name))
    state = initial.copy()
    rng = random.Random(seed)
    moves = []
    while state.phase != "over":
        if len(moves) >= MAX_MOVES:
            raise RuntimeError(f"the random Iwari game (seed {seed}) did not end in {MAX_MOVES} moves")
        move = random_move(state, rng)
        rules.apply(state, move)
        moves.append(move)
    return initial, moves


def table_signature_state(state) -> tuple:
    """``placing.table_signature`` of an Iwari state's table."""
    _, boards = IW.table_for(state, np.random.default_rng(0), extras=False, played_in_order=True)
    return table_signature(boards)


# ---------------------------------------------------------------------------------------------- illegal changes


def _where(before) -> list[str] | None:
    """The territories the turn's next own piece may go to as far as I-TURN-1..3 go (None: no piece may come now)."""
    t = before.turn
    if before.phase != "play" or before.pending or t.stage not in ("start", "place"):
        return None
    if t.stage == "start":
        return list(before.map.territories)
    if t.pieces != 1 or t.opened:
        return None
    return [t.territory]


def _pay(before, territory: str, rng) -> tuple[str, ...] | None:
    """Cards of the current player's hand paying for a piece in ``territory``: a legal payment within the turn's 3
    cards when there is one, else any one card in hand (the payment breaks a rule too), None with an empty hand."""
    p = before.current
    pays = payment_table(before, p, MAX_CARDS - before.turn.cards).get(before.map.territories[territory], [])
    if pays:
        return pays[int(rng.integers(0, len(pays)))]
    hand = [c for c in before.hands[p] if c is not None]
    return (hand[0],) if hand else None


def _candidates(kind: str, before, rng) -> list[M.Place]:
    t = before.turn
    p = before.current
    m = before.map
    out: list[tuple[str, str, str | None]] = []  # (piece, territory, space)
    empty = lambda terr: [s for s in m.spaces_of(terr) if s not in before.tents]  # noqa: E731
    where = _where(before)
    if kind == "two_territories" and t.stage == "place" and where is not None:
        for terr in m.territories:
            if terr != t.territory:
                out += [("tent", terr, s) for s in empty(terr)]
                if before.explored(terr):
                    out.append(("totem", terr, None))
    elif kind == "unexplored_two" and t.stage == "place" and t.opened and t.pieces == 1:
        out += [("tent", t.territory, s) for s in empty(t.territory)]
    elif kind == "totem_majority" and where is not None:
        out += [("totem", terr, None) for terr in where if before.explored(terr)]
    elif kind == "occupied" and where is not None:
        out += [("tent", terr, s) for terr in where for s in m.spaces_of(terr) if before.tents.get(s, p) != p]
    elif kind == "too_many" and where is not None:
        if before.tents_left[p] <= 0:
            out += [("tent", terr, s) for terr in where for s in empty(terr)]
        if before.totems_left[p] <= 0:
            out += [("totem", terr, None) for terr in where if before.explored(terr)]
    moves = []
    for piece, terr, space in out:
        pay = _pay(before, terr, rng)
        if pay is not None:
            moves.append(M.Place(piece, terr, pay, space))
    return moves


def illegal_variant(kind: str, before, move, after, rng):
    """(illegal table state, record) for an injected change of ``kind`` instead of ``move``, made from the table
    ``before`` it, or None when it does not fit there (module doc). ``move`` and ``after`` are not used: every
    Iwari kind replaces the move, the put-back table is ``before``."""
    cands = _candidates(kind, before, rng)
    order = rng.permutation(len(cands)) if cands else []
    best = None
    want = KIND_RULES[kind]
    shown = table_signature_state(before)
    for i in order:
        cand = cands[int(i)]
        rules_broken = sorted({v.rule for v in rules.check(before, cand)})
        if (
            want not in rules_broken
            or (best is not None and len(rules_broken) >= len(best[1]))
        ):
            continue
        bad = rules.apply(before.copy(), cand, validate=False)
        if table_signature_state(bad) != shown:
            best = (bad, rules_broken, cand)
            if len(rules_broken) == 1:
                break
    if best is None:
        return None
    bad, rules_broken, cand = best
    return bad, {"kind": kind, "rules": rules_broken, "move": M.move_to_json(cand)}


# ---------------------------------------------------------------------------------------------- the part


class IwariPart:
    """Iwari behind ``models.synth.recording``'s per-game part (see ``recording.GamePart``)."""

    name = "iwari"
    inject_kinds = INJECT_KINDS
    after_kinds: tuple[str, ...] = ()

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(load_edition().player_counts)

    def check_options(self, opts) -> None:
        """``UserError`` for a map that is not built in."""
        if opts.map is not None and opts.map not in map_names():
            raise UserError(f"unknown Iwari map {opts.map!r}; choose one of {', '.join(sorted(map_names()))} (or leave it out).")

    def names(self, players: int) -> list[str]:
        return NAMES[:players]

    def play(self, opts):
        return play_game(opts.players, opts.seed, opts.map)

    def apply(self, state, move) -> None:
        rules.apply(state, move)

    def table_for(self, state, rng, opts, setup: bool = False):
        return IW.table_for(state, rng, extras=False, played_in_order=True)

    def settle(self, boards) -> None:
        """Each totem stands on the one below it: a stack's totems take its bottom totem's spot (the ``Placer``
        keeps the bottom one where it was and gives a new top one a fresh spot)."""
        for b in boards:
            bottom = {}
            for p in b.pieces:
                if p.cls == "totem" and p.region is not None:
                    if p.region in bottom:
                        p.x, p.y = bottom[p.region].x, bottom[p.region].y
                    else:
                        bottom[p.region] = p

    def extra_colours(self) -> dict:
        return IW.extra_colours()

    def signature(self, state, opts) -> tuple:
        return table_signature_state(state)

    def illegal(self, kind: str, before, move, after, rng, opts):
        return illegal_variant(kind, before, move, after, rng)

    def move_to_json(self, move) -> dict:
        return M.move_to_json(move)

    def folder(self, opts) -> str:
        return f"iwari_{opts.map + '_' if opts.map else ''}{opts.players}p_s{opts.seed}"

    def session(self, initial, opts) -> dict:
        return {
            "format": "tablewatch.replay-session/1",
            "game": "iwari",
            "players": NAMES[: opts.players],
            "seed": opts.seed,
            "initial": initial.to_json(),
            "layouts": [f"iwari-{initial.map.name}", IW.DISPLAY],
            "camera": "camera.json",
            "options": {"map": initial.map.name},
        }


PART = IwariPart()
