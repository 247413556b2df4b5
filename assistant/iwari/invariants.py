"""The invariants of an Iwari state (``invariant_errors``): what must hold in any position the rules can reach,
each broken one as a one-line text. Empty for a possible state."""

from __future__ import annotations

from collections import Counter

from assistant.iwari.maps import COLOURS
from assistant.iwari.state import PHASES, STAGES, State


def invariant_errors(state: State) -> list[str]:
    out: list[str] = []
    m = state.map
    k = len(state.tribes)
    if state.n < 2 or k != state.n + (state.n == 2):
        out.append(f"{state.n} players need {state.n + (state.n == 2)} tribes (I-2P-1), the state has {k}")
    # cards: every card of the game is in exactly one place (I-COMP-1, I-COMP-2)
    piles = [state.deck, state.display, state.played, state.discard, *state.hands]
    seen = Counter(c for pile in piles for c in pile if c is not None)
    bad = [c for c in seen if c not in COLOURS]
    if bad:
        out.append(f"cards of no Iwari colour: {bad}")
    over = [c for c in COLOURS if seen[c] > state.cards.get(c, 0)]
    if over:
        out.append(f"more {', '.join(over)} cards than the game holds (I-COMP-1)")
    total = sum(len(p) for p in piles) - state.display.count(None)
    if total != sum(state.cards.values()):
        out.append(f"{total} cards on the table and in hands, the game holds {sum(state.cards.values())}")
    if any(len(h) > state.hand_size for h in state.hands):
        out.append(f"a hand holds more than {state.hand_size} cards (I-TURN-7)")
    # pieces: on the map plus in supply is the tribe's set (I-NIT-2); tents on tent spaces, one each (I-TURN-4)
    for space, tribe in state.tents.items():
        if space not in m.tent_spaces or not 0 <= tribe < k:
            out.append(f"a tent of tribe {tribe} on {space}, no tent space of the map")
    for t, stack in state.stacks.items():
        if t not in m.territories:
            out.append(f"a totem stack in {t}, no territory of the map")
            continue
        if stack and len(stack) > max(state.tent_counts(t).values(), default=0):
            out.append(f"the totem stack in {t} is higher than the tent majority there (I-TURN-5)")
    placed_tents = Counter(state.tents.values())
    placed_totems = Counter(x for s in state.stacks.values() for x in s)
    for i in range(min(k, len(state.supply))):
        if placed_tents[i] + state.tents_left[i] != state.supply[i][0] or state.tents_left[i] < 0:
            out.append(
                f"tribe {state.tribes[i]}: {placed_tents[i]} tents placed and {state.tents_left[i]} left, of {state.supply[i][0]}"
            )
        if placed_totems[i] + state.totems_left[i] != state.supply[i][1] or state.totems_left[i] < 0:
            out.append(
                f"tribe {state.tribes[i]}: {placed_totems[i]} totems placed and {state.totems_left[i]} left, of {state.supply[i][1]}"
            )
    # the turn and the journey
    if state.phase not in PHASES or state.turn.stage not in STAGES:
        out.append(f"unknown phase {state.phase!r} or stage {state.turn.stage!r}")
    if not 0 <= state.current < state.n or state.turn.player != state.current:
        out.append("the turn is not the current player's")
    if state.exhaustions > 2 or (state.exhaustions == 2 and state.end is None):
        out.append("the deck ran out twice and the end of the journey is not triggered (I-END-1)")
    if (state.exhaustions >= 1) != (state.half is not None):
        out.append("the half journey is scored exactly when the deck first ran out (I-HALF-1)")
    spread = max(state.turns_taken) - min(state.turns_taken)
    if spread > 1:
        out.append(f"turns taken differ by {spread}: players take turns in a fixed cycle (I-TURN-9)")
    if state.phase == "over" and (spread or state.final is None or state.winners is None):
        out.append("the journey ended without every player having the same number of turns and a final scoring (I-END-2)")
    if any(s < 0 for s in state.scores):
        out.append("a negative score")
    if sum(state.feats.values()) != len(state.feat_log):
        out.append("the feats on the map do not match the feats placed")
    return out
