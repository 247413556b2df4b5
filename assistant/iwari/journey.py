"""The journey's two scorings and its end: the half journey on the deck's first exhaustion (I-HALF), the end
triggered by the second exhaustion or a tribe out of tents (I-END-1), the final scoring after the round is finished
(I-END-2, I-END-3) and the winner (I-END-4). The points themselves are ``assistant.iwari.scoring``'s.
"""

from __future__ import annotations

import random

from assistant.iwari.scoring import score, winner
from assistant.iwari.state import State


def exhausted(state: State) -> None:
    """The deck's last card was just drawn (I-HALF-1: the moment it counts as exhausted). The first time: the
    discard pile is shuffled into a new deck, the display unchanged, and tents are scored (I-HALF-2); a new deck
    that is empty at once runs out again. The second time: the end of the journey is triggered (I-END-1)."""
    state.exhaustions += 1
    if state.exhaustions == 1:
        if state.seed is None:  # the new deck's order is unknown, as at a table: its cards are unseen
            state.deck = [None] * len(state.discard)
        else:
            deck = list(state.discard)
            random.Random(f"{state.seed}/half-journey").shuffle(deck)
            state.deck = deck
        state.discard = []
        half_journey(state)
        if not state.deck:
            exhausted(state)
    elif state.end is None:
        state.end = "deck"


def half_journey(state: State) -> None:
    """Score tents only, feat factors applied (I-HALF-2, I-HALF-3, I-FEAT-6); the tally is kept on the state."""
    tally = score(state.map, state.tribes, state.tents_by_colour(), state.totem_counts(), state.feats, final=False)
    for i, colour in enumerate(state.tribes):
        state.scores[i] += tally.totals[colour]
    state.half = tally.to_json()


def tents_out(state: State, tribe: int) -> None:
    """``tribe`` placed its last tent: the end of the journey is triggered when it is a player's tribe (I-END-1;
    the third tribe's only where the options say so, I-2P-4)."""
    if state.tents_left[tribe] == 0 and state.end is None and (tribe < state.n or state.options.third_tents_out_ends):
        state.end = "tents"


def final_scoring(state: State) -> None:
    """Tents, totems, settlements and the road, feat factors applied (I-END-3); then the winner: the most points,
    tied the most unused pieces, still tied a shared win (I-END-4, I-NIT-12). The third tribe wins nothing unless
    the options say so (I-2P-4)."""
    tally = score(state.map, state.tribes, state.tents_by_colour(), state.totem_counts(), state.feats, final=True)
    for i, colour in enumerate(state.tribes):
        state.scores[i] += tally.totals[colour]
    state.final = tally.to_json()
    totals = dict(zip(state.tribes, state.scores))
    unused = {c: state.tents_left[i] + state.totems_left[i] for i, c in enumerate(state.tribes)}
    eligible = state.tribes if state.options.third_can_win else state.tribes[: state.n]
    winners, why = winner(totals, unused, eligible)
    state.winners = [state.tribes.index(c) for c in winners]
    state.tie_break = why
    state.phase = "over"
