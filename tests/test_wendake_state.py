"""The state's JSON form, its schema (docs/wendake-state.schema.json) and the validator's messages."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.wendake.generate import play_random_game
from assistant.wendake.moves import move_from_json, move_to_json
from assistant.wendake.schema import STATE_SCHEMA, validate_state
from assistant.wendake.setup import new_game
from assistant.wendake.state import State

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def midgame():
    """A 3-player game stopped in the middle of year 4, with pieces all over the map."""
    states = []

    def keep(state, move):
        if state.year == 4 and not states:
            states.append(state.copy())

    play_random_game(("A", "B", "C"), seed=21, on_move=keep)
    return states[0]


def test_round_trip_at_every_phase(midgame):
    """to_json / from_json are exact inverses, also mid-turn and during the restore."""
    seen_restore = []

    def check(state, move):
        doc = state.to_json()
        assert State.from_json(json.loads(json.dumps(doc))).to_json() == doc
        seen_restore.append(state.phase == "restore")

    play_random_game(("A", "B"), seed=3, on_move=check)
    assert any(seen_restore)
    assert State.from_json(midgame.to_json()).to_json() == midgame.to_json()


def test_states_validate_throughout_a_game():
    def check(state, move):
        assert validate_state(state.to_json()) == []

    final, _ = play_random_game(("A", "B", "C", "D"), seed=8, on_move=check)
    assert validate_state(final.to_json()) == []


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["players"][1]["tracks"].__setitem__("mask", 30), "players[1].tracks.mask"),
    (lambda d: d["players"][0]["resources"].pop("fish"), "players[0].resources"),
    (lambda d: d.__setitem__("year", 9), "year"),
    (lambda d: d["players"][2]["grid"][1][1].__setitem__("side", "sideways"), "players[2].grid[1][1].side"),
    (lambda d: d["players"][0].__setitem__("flag", "dutch"), "players[0].flag"),
    (lambda d: d["players"][0]["long_house"].__setitem__("warrior", 4), "players[0].long_house.warrior"),
    (lambda d: d["players"][1].__setitem__("canoe_reserve", 0), "players[1].canoe_reserve"),
    (lambda d: d["players"][0]["grid"][0][0].__setitem__("tile", "B-NOPE"), "players[0].grid[0][0].tile"),
    (lambda d: d["map"]["territories"].pop("T01"), "map.territories"),
    (lambda d: d.__setitem__("turn_order", [0, 0, 1]), "turn_order"),
])
def test_validator_names_the_field_at_fault(midgame, mutate, field):
    doc = copy.deepcopy(midgame.to_json())
    mutate(doc)
    errors = validate_state(doc)
    assert errors and any(e.startswith(field) for e in errors), errors


def test_docs_schema_is_current():
    """docs/wendake-state.schema.json is the schema the code uses (regenerate with `tablewatch wendake schema --out`)."""
    assert json.loads((DOCS / "wendake-state.schema.json").read_text()) == json.loads(json.dumps(STATE_SCHEMA))


def test_move_json_round_trip_and_errors():
    _, moves = play_random_game(("A", "B"), seed=4)
    for m in moves:
        assert move_from_json(json.loads(json.dumps(move_to_json(m)))) == m
    with pytest.raises(ValueError, match="unknown move type"):
        move_from_json({"type": "teleport"})
    with pytest.raises(ValueError, match="no field 'speed'"):
        move_from_json({"type": "canoe", "lake": "L1", "speed": 3})


def test_copy_is_independent(midgame):
    twin = midgame.copy()
    twin.players[0].tracks["mask"] += 1
    twin.territories["T01"].guards[0] += 1
    twin.players[0].grid[0].side = "ritual" if twin.players[0].grid[0].side == "action" else "action"
    assert twin.to_json() != midgame.to_json()
    assert midgame.copy().to_json() == midgame.to_json()


def test_setup_is_reproducible_and_complete():
    """W-SET: the same seed gives the same game; pieces start as W-SET-8 places them."""
    a, b = new_game(["A", "B", "C"], seed=5), new_game(["A", "B", "C"], seed=5)
    assert a.to_json() == b.to_json()
    assert new_game(["A", "B", "C"], seed=6).to_json() != a.to_json()
    for p, pl in enumerate(a.players):
        assert a.home_counts(p) == {"warrior": 5, "woman": 5, "hunter": 5}
        assert pl.long_house == {"warrior": 2, "woman": 2, "hunter": 2}
        assert a.canoes_in_play(p) == 1 and len(pl.hand) == 1 and pl.beavers == 2
        assert pl.grid[4].tile == "B-FIRE" and all(g.side == "action" for g in pl.grid)
    assert [len(a.progress_rows[k]) for k in (1, 2, 3)] == [6, 6, 6]
    assert all(len(stack) == 3 for stack in a.turtle_stacks.values())


def test_random_games_do_not_depend_on_the_hash_seed():
    """The same seed plays the same game in any Python process (no set iteration order leaks in)."""
    code = ("import json,hashlib;from assistant.wendake.generate import play_random_game;"
            "from assistant.wendake.moves import move_to_json;_,m=play_random_game(('A','B','C'),seed=9);"
            "print(hashlib.md5(json.dumps([move_to_json(x) for x in m]).encode()).hexdigest())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(h)}).stdout for h in (1, 2)}
    assert len(outs) == 1
