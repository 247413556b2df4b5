"""Iwari behind the table core's ``Game`` interface (``assistant.table.game``): the class ``Iwari``.

Each member delegates to the Iwari module that owns it (rules, moves, set-up, the random player, the observer,
the explainer, the hidden-information edits, the tablet's part and its scoring, the move log as a camera sees it);
this module adds no rule of its own. ``assistant/iwari/game.py`` registers it.
"""

from __future__ import annotations

import random

from assistant.iwari import movelog as _movelog
from assistant.iwari import moves as M
from assistant.iwari import rules, scoreboard, tablet
from assistant.iwari.describe import describe
from assistant.iwari.edition import load_edition
from assistant.iwari.edits import apply_edit, conceal
from assistant.iwari.explain import IwariExplainer
from assistant.iwari.generate import legal_moves, random_move
from assistant.iwari.invariants import invariant_errors
from assistant.iwari.observer import expected_readings, region_kind
from assistant.iwari.setup import new_game
from assistant.iwari.state import State


class Iwari:
    """The Iwari game (I-..., ../shared/rules/iwari.md) for 2 to 5 players (edition data, I-NIT-1)."""

    name = "iwari"
    title = "Iwari"
    movelog = _movelog  # ``Game.movelog``: ``turns``, a log as a camera sees it

    @property
    def player_counts(self) -> tuple[int, ...]:
        return load_edition().player_counts

    def player_name(self, state: State, player: int) -> str:
        return state.players[player].name

    def year(self, state: State) -> int:
        return state.year

    def new_state(self, players, seed: int | None = None, **options) -> State:
        return new_game(players, seed=seed, **options)

    def state_to_json(self, state: State) -> dict:
        return state.to_json()

    def state_from_json(self, doc: dict) -> State:
        return State.from_json(doc)

    def copy(self, state: State) -> State:
        return state.copy()

    def is_over(self, state: State) -> bool:
        return state.phase == "over"

    def invariant_errors(self, state: State) -> list[str]:
        return invariant_errors(state)

    def move_to_json(self, move) -> dict:
        return M.move_to_json(move)

    def move_from_json(self, doc: dict):
        return M.move_from_json(doc)

    def check(self, state: State, move) -> list:
        return rules.check(state, move)

    def apply(self, state: State, move) -> State:
        return rules.apply(state, move)

    def legal_moves(self, state: State):
        return legal_moves(state)

    def random_move(self, state: State, rng: random.Random):
        return random_move(state, rng)

    def describe(self, before: State, move, after: State) -> str:
        return describe(before, move, after)

    def results(self, state: State) -> dict:
        return scoreboard.results(state)

    def conceal(self, state: State) -> State:
        return conceal(state)

    def apply_edit(self, state: State, edit: dict) -> None:
        apply_edit(state, edit)

    def expected_readings(self, state: State) -> dict:
        return expected_readings(state)

    def region_kind(self, key: str) -> str:
        return region_kind(key)

    def explainer(self, tracker, edition=None) -> IwariExplainer:
        return IwariExplainer(tracker, edition)

    def referee(self, state: State):
        return None

    def snapshot(self, initial: State, moves: list, edits: dict, state: State) -> dict:
        return tablet.snapshot(initial, moves, edits, state)

    def alert_words(self, state: State | None, alert: dict) -> dict:
        return tablet.alert_words(state, alert)

    def tablet_moves(self, state: State | None, action: str, payload: dict) -> list[dict]:
        return tablet.tablet_moves(state, action, payload)

    def setup_options(self) -> dict:
        return tablet.setup_options()

    def parse_setup(self, body: dict) -> dict:
        return tablet.parse_setup(body)

    def setup_record(self, state: State) -> dict:
        return tablet.setup_record(state)
