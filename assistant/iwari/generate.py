"""Iwari's legal moves (``legal_moves``, lazy) and a seeded random player (``random_move``).

The random player plays like a careless human: mostly regular moves, a second piece and the third tribe's move
(2 players) more often than not, now and then a card swap, and the refill from the deck or the display at random.
It knows the box (a simulated deck): the card turned up into the display is named, a card drawn from the deck is
not (nobody sees it).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.board import can_draw, place_options, unseen
from assistant.iwari.maps import COLOURS
from assistant.iwari.state import State

SWAP_CHANCE = 0.05  # a regular move is possible, the player swaps a card anyway
SECOND_PIECE = 0.75  # a second piece is possible, the player places it
THIRD_MOVE = 0.8  # the third tribe may move (2 players), the active player moves it
FROM_DECK = 0.5  # a draw comes from the deck rather than the display


def _candidates(state: State) -> Iterator:
    """The moves worth checking from ``state``: every move of the right family for the stage of the turn."""
    if state.phase == "over":
        return
    if state.pending:
        due = state.pending[0]
        yield from (M.PlaceFeat(due["feat"], at) for at in due["options"])
        return
    stage = state.turn.stage
    if stage in ("start", "place"):
        for terr, piece, space, pay in place_options(state):
            yield M.Place(piece, terr, pay, space)
    if state.third is not None and stage in ("place", "third"):
        for terr, piece, space, pay in place_options(state, third=True):
            yield M.Place(piece, terr, pay, space, third=True)
    if stage == "start":
        hand = state.hands[state.current]
        known = sorted({c for c in hand if c is not None})
        if None in hand:
            pool = unseen(state)
            known = sorted(set(known) | {c for c in COLOURS if pool[c] > 0})
        yield from (M.Swap(c) for c in known)
    if stage in ("place", "third", "swap", "refill"):
        yield from _draws(state)
    yield M.EndTurn()


def _draws(state: State) -> Iterator:
    top = state.deck[-1] if state.deck else None
    if state.deck:
        yield M.Draw()
    refills = [top] if top is not None or not state.deck else [c for c in COLOURS if unseen(state)[c] > 0]
    for slot, card in enumerate(state.display, 1):
        if card is not None:
            yield from (M.Draw(slot, refill=r) for r in refills)


def legal_moves(state: State) -> Iterator:
    """Every legal move from ``state``, lazily, each checked by ``rules.check``."""
    for move in _candidates(state):
        if not rules.check(state, move):
            yield move


def random_move(state: State, rng: random.Random):
    """One legal move chosen at random (module docstring); None when the game is over."""
    if state.phase == "over":
        return None
    if state.pending:
        due = state.pending[0]
        return M.PlaceFeat(due["feat"], rng.choice(due["options"]))
    t = state.turn
    stage = t.stage
    hand = state.hands[state.current]
    if stage == "start":
        options = place_options(state)
        if hand and can_draw(state) and (not options or rng.random() < SWAP_CHANCE):
            return M.Swap(rng.choice([c for c in hand if c is not None] or [_any_card(state, rng)]))
        if options:
            return _place(rng.choice(options))
        return M.EndTurn()
    if stage == "place":
        if rng.random() < SECOND_PIECE:
            options = place_options(state)
            if options:
                return _place(rng.choice(options))
    if state.third is not None and stage in ("place", "third") and t.cards < 3 and rng.random() < THIRD_MOVE:
        options = place_options(state, third=True)
        if options:
            return _place(rng.choice(options), third=True)
    if stage != "done" and len(hand) < state.hand_size and can_draw(state):
        return _draw(state, rng)
    return M.EndTurn()


def _place(option, third: bool = False) -> M.Place:
    terr, piece, space, pay = option
    return M.Place(piece, terr, pay, space, third)


def _draw(state: State, rng: random.Random) -> M.Draw:
    slots = [i for i, c in enumerate(state.display, 1) if c is not None]
    if state.deck and (not slots or rng.random() < FROM_DECK):
        return M.Draw()
    slot = rng.choice(slots)
    refill = None
    if state.deck:
        refill = state.deck[-1] if state.deck[-1] is not None else _any_card(state, rng)
    return M.Draw(slot, refill=refill)


def _any_card(state: State, rng: random.Random) -> str:
    """A colour an unseen card may have (a concealed state's random player)."""
    pool = unseen(state)
    return rng.choice([c for c in COLOURS if pool[c] > 0] or list(COLOURS))
