"""The cards of a turn: the refill (``Draw``, I-TURN-7), the card swap (``Swap`` then one ``Draw``, I-TURN-8) and
the turn's end (``EndTurn``: the play area to the discard pile, the next player, the end of the journey after the
round is finished, I-END-2). A draw that takes the deck's last card exhausts it (I-HALF-1, I-END-1).
"""

from __future__ import annotations

from assistant.iwari import journey
from assistant.iwari import moves as M
from assistant.iwari.board import Violation, can_draw, hand_problem, place_options, unseen
from assistant.iwari.state import State, Turn


def check_draw(state: State, move: M.Draw, v: list[Violation]) -> None:
    stage = state.turn.stage
    hand = state.hands[state.current]
    if stage == "start":
        v.append(
            Violation(
                "I-TURN-7",
                "cards are drawn at the end of a regular move, or for a card swap (I-TURN-8).",
                "Place your pieces (or discard a card to swap) first.",
            )
        )
        return
    if stage == "done":
        v.append(Violation("I-TURN-8", "a card swap draws one new card only.", "Put the second card back and end the turn."))
        return
    if len(hand) >= state.hand_size:
        v.append(
            Violation(
                "I-TURN-7",
                f"the hand holds {state.hand_size} cards already: the refill is over.",
                "Put the card back and end the turn.",
            )
        )
        return
    top = state.deck[-1] if state.deck else None
    if move.slot is None:
        if not state.deck:
            v.append(Violation("I-END-2", "the deck is gone: draw from the display.", None))
            return
        if move.refill is not None:
            v.append(Violation("I-TURN-7", "a card drawn from the deck turns up no display card.", "Leave the refill out."))
        _deck_card(state, top, move.card, "the card drawn", v)
        return
    if move.slot > len(state.display) or state.display[move.slot - 1] is None:
        v.append(Violation("I-TURN-7", f"display slot {move.slot} holds no card.", _slots_fix(state)))
        return
    if move.card is not None and move.card != state.display[move.slot - 1]:
        v.append(
            Violation("I-TURN-7", f"display slot {move.slot} holds a {state.display[move.slot - 1]} card, not {move.card}.", None)
        )
    if not state.deck:
        if move.refill is not None:
            v.append(Violation("I-END-2", f"the deck is gone: slot {move.slot} stays empty.", "Leave the refill out."))
        return
    if top is None and move.refill is None:
        v.append(Violation("I-TURN-7", f"name the card turned up into display slot {move.slot} from the deck.", None))
        return
    _deck_card(state, top, move.refill, f"the card turned up into slot {move.slot}", v)


def _deck_card(state: State, top, card, what: str, v: list[Violation]) -> None:
    if card is None:
        return
    if top is not None and top != card:
        v.append(Violation("I-TURN-7", f"{what} is the deck's top card, a {top} card, not {card}.", None))
    elif top is None and unseen(state)[card] <= 0:
        v.append(Violation("I-TURN-7", f"{what} cannot be {card}: every {card} card is in sight (I-COMP-1).", None))


def _slots_fix(state: State) -> str:
    full = [str(i) for i, c in enumerate(state.display, 1) if c is not None]
    return f"Draw from the deck or from slot {', '.join(full)}." if full else "Draw from the deck."


def apply_draw(state: State, move: M.Draw) -> None:
    hand = state.hands[state.current]
    had = len(state.deck)
    if move.slot is None:
        card = state.deck.pop()
        hand.append(move.card if card is None else card)
    else:
        hand.append(state.display[move.slot - 1] if state.hands_seen else None)
        refill = None
        if state.deck:
            refill = state.deck.pop()
            if refill is None:
                refill = move.refill
        state.display[move.slot - 1] = refill
    state.turn.stage = "done" if state.turn.stage == "swap" else "refill"
    if had and not state.deck:
        journey.exhausted(state)


def check_swap(state: State, move: M.Swap, v: list[Violation]) -> None:
    if state.turn.stage != "start":
        v.append(
            Violation("I-TURN-8", "a card swap is instead of a regular move, at the start of a turn.", "Take the card back.")
        )
        return
    problem = hand_problem(state, state.current, (move.card,))
    if problem is not None:
        v.append(Violation("I-TURN-8", f"the card discarded is {move.card}, but {problem}.", "Discard a card of your hand."))
    if not can_draw(state):
        v.append(Violation("I-TURN-8", "there is no card to draw: the deck and the display are empty.", "End the turn instead."))


def apply_swap(state: State, move: M.Swap) -> None:
    hand = state.hands[state.current]
    hand.remove(move.card if move.card in hand else None)
    state.played.append(move.card)
    state.turn.stage = "swap"


def can_act(state: State) -> bool:
    """Whether the current player can make a regular move or a card swap (a turn is passed only when neither)."""
    if state.hands[state.current] and can_draw(state):
        return True
    return bool(place_options(state))


def check_end_turn(state: State, move: M.EndTurn, v: list[Violation]) -> None:
    stage = state.turn.stage
    if stage == "start":
        if can_act(state):
            v.append(
                Violation(
                    "I-TURN-1",
                    "a turn is a regular move or a card swap (I-TURN-8); it is passed only when neither can be made.",
                    "Place pieces, or discard a card and draw one.",
                )
            )
    elif stage == "swap":
        if can_draw(state):
            v.append(Violation("I-TURN-8", "the card swap draws a new card.", "Draw one card from the deck or the display."))
    elif stage != "done" and len(state.hands[state.current]) < state.hand_size and can_draw(state):
        v.append(
            Violation(
                "I-TURN-7",
                f"refill the hand back up to {state.hand_size} cards first ({len(state.hands[state.current])} now).",
                "Draw from the deck or the display.",
            )
        )


def apply_end_turn(state: State, move: M.EndTurn) -> None:
    p = state.current
    state.discard.extend(state.played)
    state.played = []
    state.turns_taken[p] += 1
    if state.end is not None and p == state.last:  # I-END-2: the round is finished
        journey.final_scoring(state)
        return
    state.current = (p + 1) % state.n
    state.turn = Turn(state.current)
