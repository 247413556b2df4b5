"""Wendake behind the table core's ``Game`` interface (``assistant.table.game``): ``GAME``, found by the registry.

Each member delegates to the Wendake module that owns it (rules, moves, set-up, the random player, the observer,
the hidden-information edits, the move log's comparison); this module adds no rule of its own.
"""

from __future__ import annotations

import random
from collections import Counter

from assistant.wendake import movelog as _movelog
from assistant.wendake import moves as M
from assistant.wendake import rules, setup_options, tablet
from assistant.wendake.describe import describe
from assistant.wendake.edition import load_edition
from assistant.wendake.edits import apply_edit, conceal
from assistant.wendake.explain import WendakeExplainer
from assistant.wendake.generate import legal_moves, random_move
from assistant.wendake.observer import expected_readings, region_kind
from assistant.wendake.referee import GhostReferee
from assistant.wendake.schema import validate_state
from assistant.wendake.scoring import results
from assistant.wendake.state import State


class WendakeMoveLog:
    """``Game.movelog``: Wendake's move log as a camera sees it (``assistant.wendake.movelog``)."""

    def turns(self, initial: State | None, moves: list, edits: dict | None = None) -> list[Counter]:
        """One ``Counter`` of ``movelog.observable`` moves per physical turn (``movelog.split_turns``), the moves
        that change nothing left out (``movelog.noop_moves``; none without ``initial``): turn by turn, ``==`` is
        ``movelog.turns_equal``'s comparison."""
        noops = _movelog.noop_moves(initial, moves, edits) if initial is not None else set()
        out, k = [], 0
        for turn in _movelog.split_turns(moves):
            seen = (_movelog.observable(m) for j, m in enumerate(turn, k) if j not in noops)
            out.append(Counter(o for o in seen if o is not None))
            k += len(turn)
        return out


class Wendake:
    """The Wendake game (W-…, ../shared/rules/wendake.md) for 2-4 players; the solo game is a mode of a state."""

    name = "wendake"
    title = "Wendake"
    player_counts = (1, 2, 3, 4)
    movelog = WendakeMoveLog()

    def player_name(self, state: State, player: int) -> str:
        return state.players[player].name

    def year(self, state: State) -> int:
        return state.year

    def new_state(self, players, seed: int | None = None, **options) -> State:
        return setup_options.new_state(players, seed=seed, **options)

    def state_to_json(self, state: State) -> dict:
        return state.to_json()

    def state_from_json(self, doc: dict) -> State:
        return State.from_json(doc)

    def copy(self, state: State) -> State:
        return state.copy()

    def is_over(self, state: State) -> bool:
        return state.phase == "over"

    def invariant_errors(self, state: State) -> list[str]:
        return validate_state(state.to_json())

    def move_to_json(self, move) -> dict:
        return M.move_to_json(move)

    def move_from_json(self, doc: dict):
        return M.move_from_json(doc)

    def check(self, state: State, move) -> list:
        return rules.check(state, move)

    def apply(self, state: State, move) -> State:
        return rules.apply(state, move)

    def legal_moves(self, state: State):
        return iter(legal_moves(state, random.Random(0)))

    def random_move(self, state: State, rng: random.Random):
        return random_move(state, rng, load_edition())

    def describe(self, before: State, move, after: State) -> str:
        return describe(before, move, after)

    def results(self, state: State) -> dict:
        """``scoring.results`` (W-SCR-4: one winner, so ``winners`` is ``[winner]``)."""
        r = results(state)
        return {**r, "winners": [r["winner"]]}

    def conceal(self, state: State) -> State:
        return conceal(state)

    def apply_edit(self, state: State, edit: dict) -> None:
        apply_edit(state, edit)

    def expected_readings(self, state: State) -> dict:
        return expected_readings(state)

    def region_kind(self, key: str) -> str:
        return region_kind(key)

    def explainer(self, tracker, edition=None) -> WendakeExplainer:
        return WendakeExplainer(tracker, edition)

    def referee(self, state: State) -> GhostReferee | None:
        return GhostReferee(load_edition()) if state.solo is not None else None

    def snapshot(self, initial: State, moves: list, edits: dict, state: State) -> dict:
        return tablet.snapshot(initial, moves, edits, state)

    def alert_words(self, state: State | None, alert: dict) -> dict:
        return tablet.alert_words(state, alert)

    def tablet_moves(self, state: State | None, action: str, payload: dict) -> list[dict]:
        return tablet.tablet_moves(state, action, payload)

    def setup_options(self) -> dict:
        return setup_options.setup_options()

    def parse_setup(self, body: dict) -> dict:
        return setup_options.parse_setup(body)

    def setup_record(self, state: State) -> dict:
        return setup_options.setup_record(state)


GAME = Wendake()
