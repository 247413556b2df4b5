"""What Iwari's rules share: the violation type, the illegal-move error, the rule constants, and the questions the
checks, the random player and the explainer all ask of a state (the totem cap, the payments a hand can make, the
cards whose place is unknown, whether a draw is possible).

Hidden cards: a card the tracker has not seen is ``None`` (``assistant.iwari.state``). It may stand for any colour
of which some card is unseen: the cards in play (``State.cards``) less every card seen where it lies (display,
hands, play area, discard pile, deck). A payment or a draw that needs a colour none of whose cards can be unseen
is one the visible table contradicts.
"""

from __future__ import annotations

from collections import Counter

from assistant.iwari import moves as M
from assistant.iwari.maps import COLOURS
from assistant.iwari.state import State
from assistant.table.moveerrors import IllegalMoveError as IllegalMoveError
from assistant.table.moveerrors import Violation as Violation

MAX_CARDS = 3  # I-TURN-1: up to 3 cards a regular move
MAX_PIECES = 2  # I-TURN-3: up to 2 pieces in an explored territory


def mover(state: State, move) -> int:
    """The tribe a move is made for: the current player's, or the third tribe's (I-2P-2)."""
    return state.third if isinstance(move, M.Place) and move.third and state.third is not None else state.current


def totem_cap(state: State, territory: str, tribe: int) -> int:
    """The highest the territory's totem stack may grow when ``tribe`` places a totem (I-TURN-5): the tent count
    of the tribe leading in tents there (reading A), or the placer's own tent count (reading B)."""
    counts = state.tent_counts(territory)
    if state.options.totem_cap == "B":
        return counts.get(tribe, 0)
    return max(counts.values(), default=0)


def unseen(state: State) -> Counter:
    """Colour -> how many of its cards may be where a card is unknown (``None``): the cards in play less those seen."""
    left = Counter(state.cards)
    for pile in (state.deck, state.display, state.played, state.discard, *state.hands):
        for c in pile:
            if c is not None:
                left[c] -= 1
    return left


def hand_problem(state: State, p: int, cards) -> str | None:
    """Why player ``p``'s hand cannot give ``cards`` (colours), or None when it can: its known cards first, then
    unknown cards standing for colours some card of which is unseen."""
    hand = state.hands[p]
    if None not in hand:  # the quick test: every card known
        rest = list(hand)
        try:
            for c in cards:
                rest.remove(c)
            return None
        except ValueError:
            return f"the hand holds {', '.join(sorted(hand)) or 'no card'}, not {_cards(cards)}"
    short = Counter(cards)
    short.subtract(c for c in hand if c is not None)
    short = +short
    if not short:
        return None
    unknown = hand.count(None)
    if sum(short.values()) > unknown:
        held = ", ".join(sorted(c for c in hand if c is not None)) or "no card"
        return f"the hand holds {held}{f' and {unknown} unseen' if unknown else ''}, not {_cards(cards)}"
    pool = unseen(state)
    for c, k in sorted(short.items()):
        if pool[c] < k:
            return f"every {c} card is in sight (display, play area or discard pile): no unseen card of the hand can be {c}"
    return None


def take_cards(state: State, p: int, cards) -> None:
    """Move ``cards`` from ``p``'s hand to the play area: a known card of the colour first, else an unseen one."""
    hand = state.hands[p]
    for c in cards:
        hand.remove(c if c in hand else None)
        state.played.append(c)


def payment_table(state: State, p: int, budget: int) -> dict[str, list[tuple[str, ...]]]:
    """Territory colour -> the payments (I-TURN-6) ``p``'s hand can make for one piece there with at most
    ``budget`` cards: one matching card, or a pair of another colour (one colour twice under reading A, any two
    under B). Unseen cards stand for any colour left unseen (``unseen``)."""
    hand = state.hands[p]
    budget = min(budget, len(hand))
    if budget <= 0:
        return {}
    if None in hand:
        have = Counter(c for c in hand if c is not None)
        unknown = hand.count(None)
        pool = unseen(state)

        def can(need) -> bool:
            short = +(Counter(need) - have)
            return sum(short.values()) <= unknown and all(pool[c] >= k for c, k in short.items())

        singles = [c for c in COLOURS if can((c,))]
        pairs = [] if budget < 2 else [x for x in _pairs(state.options.pair, COLOURS) if can(x)]
    else:
        singles = sorted(set(hand))
        if budget < 2:
            pairs = []
        elif state.options.pair == "B":
            pairs = sorted({tuple(sorted((a, b))) for i, a in enumerate(hand) for b in hand[i + 1 :]})
        else:
            pairs = [(c, c) for c in singles if hand.count(c) >= 2]
    return {colour: ([(colour,)] if colour in singles else []) + [x for x in pairs if colour not in x] for colour in COLOURS}


def _pairs(reading: str, colours) -> list[tuple[str, str]]:
    if reading == "B":
        return [(a, b) for i, a in enumerate(colours) for b in colours[i:]]
    return [(c, c) for c in colours]


def payments(state: State, p: int, colour: str, budget: int) -> list[tuple[str, ...]]:
    """The payments ``p``'s hand can make for one piece in a territory of ``colour`` (``payment_table``)."""
    return payment_table(state, p, budget).get(colour, [])


def can_draw(state: State) -> bool:
    """Whether a card can be drawn: the deck or a display slot holds one (I-TURN-7, I-END-2)."""
    return bool(state.deck) or any(c is not None for c in state.display)


def placements(state: State, tribe: int, territory: str, opened: bool, pieces: int) -> list[tuple[str, str | None]]:
    """(piece, space) that ``tribe`` may place next in ``territory`` when its move there has placed ``pieces``
    (``opened``: the first of them explored it), payment aside: I-TURN-2..5 and the supply (I-COMP-3)."""
    if pieces >= MAX_PIECES or (opened and pieces >= 1):
        return []
    out: list[tuple[str, str | None]] = []
    if state.tents_left[tribe] > 0:
        out += [("tent", s) for s in state.map.spaces_of(territory) if s not in state.tents]
    if state.totems_left[tribe] > 0 and state.explored(territory):
        if len(state.stacks.get(territory, ())) < totem_cap(state, territory, tribe):
            out.append(("totem", None))
    return out


def place_options(state: State, third: bool = False) -> list[tuple[str, str, str | None, tuple[str, ...]]]:
    """Every (territory, piece, space, cards) the current player may place next for their own tribe, or for the
    third tribe (``third``); the stage of the turn aside (``rules.check`` judges it)."""
    t = state.turn
    p = state.current
    tribe = state.third if third else p
    if third:
        territory, pieces, cards, opened = t.third_territory, t.third_pieces, t.third_cards, t.third_opened
    else:
        territory, pieces, cards, opened = t.territory, t.pieces, t.cards, t.opened
    table = payment_table(state, p, MAX_CARDS - cards)
    if not any(table.values()):
        return []
    out = []
    for terr in (territory,) if territory is not None else state.map.territories:
        pays = table[state.map.territories[terr]]
        if not pays:
            continue
        places = placements(state, tribe, terr, opened, pieces)
        for pay in pays:
            out += [(terr, piece, space, pay) for piece, space in places]
    return out


def settlement_of(state: State, tribe: int, space: str) -> list[str]:
    """The tent spaces of ``tribe``'s tents joined to ``space`` by paths (I-SETL-1; connections too on Floating
    Lands, I-MAP-1), ``space`` included when it holds one of them."""
    tents = state.tents
    if tents.get(space) != tribe:
        return []
    seen, stack = {space}, [space]
    while stack:
        s = stack.pop()
        for n in state.map.neighbours(s):
            if n not in seen and tents.get(n) == tribe:
                seen.add(n)
                stack.append(n)
    return sorted(seen)


def _cards(cards) -> str:
    return " + ".join(cards) if cards else "no card"


def cards_text(cards) -> str:
    """``("desert", "desert")`` -> "desert + desert"."""
    return _cards(cards)
