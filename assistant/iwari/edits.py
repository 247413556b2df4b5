"""Iwari's hidden information at a real table: ``conceal`` (what a tracker knows of a state: no card in a hand or
in the deck) and ``apply_edit`` (name hidden cards, an edit stored with the moves it explains). Pure Python."""

from __future__ import annotations

from collections import Counter

from assistant.iwari.state import State


def conceal(state: State) -> State:
    """A copy of ``state`` as a real table's tracker knows it: every hand and the deck are unseen cards (None), the
    half journey's shuffle is unknown (``seed`` None), and a card taken from the display into a hand is not followed
    there (``hands_seen`` False: it becomes one more unseen card, for a look may merge two players' draws). The
    display, the play area and the discard pile were seen face up. A move names an unseen card when it needs it (a
    payment, a card turned up into the display); the unseen cards stand for every card not in sight."""
    st = state.copy()
    st.deck = [None] * len(st.deck)
    st.hands = [[None] * len(h) for h in st.hands]
    st.seed = None
    st.hands_seen = False
    return st


def apply_edit(state: State, edit: dict) -> None:
    """Make one hidden-information edit in place (``ValueError`` when it does not fit the state):

    * ``{"op": "hands", "hands": [[card or None, ...] per player]}``: every hand relabelled, sizes kept;
    * ``{"op": "deck", "deck": [card or None, ...]}``: the deck relabelled (top last), its size kept.

    The cards named, with those seen elsewhere, stay within the game's cards (``State.cards``)."""
    op = edit.get("op") if isinstance(edit, dict) else None
    if op == "hands":
        hands = edit.get("hands")
        if (
            not isinstance(hands, list)
            or len(hands) != state.n
            or any(not isinstance(h, list) or len(h) != len(old) for h, old in zip(hands, state.hands))
        ):
            raise ValueError("a hands edit names every player's hand, each of its size")
        before, state.hands = state.hands, [list(h) for h in hands]
        _or_undo(state, lambda: setattr(state, "hands", before))
    elif op == "deck":
        deck = edit.get("deck")
        if not isinstance(deck, list) or len(deck) != len(state.deck):
            raise ValueError("a deck edit names every card of the deck, top last")
        before, state.deck = state.deck, list(deck)
        _or_undo(state, lambda: setattr(state, "deck", before))
    else:
        raise ValueError(f"unknown edit {op!r}: the edits are 'hands' and 'deck'")


def _or_undo(state: State, undo) -> None:
    piles = [state.deck, state.display, state.played, state.discard, *state.hands]
    seen = Counter(c for pile in piles for c in pile if c is not None)
    bad = [c for c in seen if seen[c] > state.cards.get(c, 0)]
    if bad:
        undo()
        raise ValueError(f"the edit names more {', '.join(sorted(bad))} cards than the game holds (I-COMP-1)")
