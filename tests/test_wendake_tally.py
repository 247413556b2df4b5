"""The stand-alone scoring calculator and the engine's command line."""

import json
import subprocess
import sys

import pytest

from assistant.apps.cli import main
from assistant.wendake.setup import new_game
from assistant.wendake.tally import tally

BASE = {"pairs": [["economic", "ritual"], ["mask", "military"]],
        "players": [{"name": "Paul", "turn_order": 1, "swap_tokens_unused": 1,
                     "tracks": {"economic": 19, "ritual": 20, "mask": 18, "military": 22},
                     "turtles": [{"level": 3, "track": "ritual"}, {"level": 5, "tracks": ["mask", "military"]}]}]}


def test_level5_turtle_goes_where_it_helps():
    """W-TUR-7: the L5 tile goes on mask (18 -> 20) rather than military (22, not counted)."""
    out = tally(BASE)["players"][0]
    assert out["turtle_choices"] == [{"level": 5, "tracks": ["mask", "military"], "chosen": "mask"}]
    assert out["tracks"]["ritual"]["final"] == 21 and out["total"] == 19 + 20 + 1


def test_turtles_before_the_cap():
    """W-SCR-5, W-TUR-7: turtle points go on before the 25 cap; L4 scores 2, L3 1."""
    doc = json.loads(json.dumps(BASE))
    doc["players"][0]["tracks"] = {"economic": 25, "ritual": 24, "mask": 25, "military": 25}
    doc["players"][0]["turtles"] = [{"level": 4, "track": "ritual"}, {"level": 3, "track": "economic"}]
    out = tally(doc)["players"][0]
    assert out["tracks"]["ritual"]["final"] == 25 and out["tracks"]["economic"]["final"] == 25
    assert out["total"] == 25 + 25 + 1


def test_several_level5_tiles_are_chosen_together():
    doc = {"pairs": [["economic", "ritual"], ["mask", "military"]], "players": [
        {"name": "A", "turn_order": 1, "tracks": {"economic": 10, "ritual": 10, "mask": 10, "military": 10},
         "turtles": [{"level": 5, "tracks": ["economic", "mask"]}, {"level": 5, "tracks": ["economic", "ritual"]},
                     {"level": 5, "tracks": ["mask", "military"]}]}]}
    out = tally(doc)["players"][0]
    # a pair rises only when both its tracks do: the best use lifts one pair (12) and leaves the other at 10
    assert out["total"] == 12 + 10
    chosen = [c["chosen"] for c in out["turtle_choices"]]
    assert {chosen[0], chosen[1]} == {"economic", "ritual"} or {chosen[0], chosen[2]} == {"mask", "military"}


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["players"][0]["tracks"].pop("mask"), "players[0].tracks"),
    (lambda d: d["players"][0].__setitem__("turn_order", 0), "players[0].turn_order"),
    (lambda d: d.__setitem__("pairs", [["economic", "ritual"], ["economic", "military"]]), "pairs"),
    (lambda d: d["players"][0]["turtles"].append({"level": 5, "track": "mask"}), "players[0].turtles[2]"),
    (lambda d: d["players"][0]["tracks"].__setitem__("ritual", 31), "players[0].tracks.ritual"),
])
def test_bad_input_names_the_field_and_exits_2(tmp_path, capsys, mutate, field):
    doc = json.loads(json.dumps(BASE))
    mutate(doc)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    assert main(["wendake", "tally", str(path)]) == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err


def test_tally_cli_prints_json(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(BASE))
    assert main(["wendake", "tally", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winner"] == "Paul" and out["players"][0]["total"] == 40


def test_tally_cli_not_json_and_missing_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    assert main(["wendake", "tally", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["wendake", "tally", str(tmp_path / "missing.json")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_console_script_help_lists_subcommands():
    out = subprocess.run([sys.executable, "-m", "assistant.apps.cli", "--help"], capture_output=True, text=True, check=True).stdout
    for cmd in ("demo", "wendake", "bench"):
        assert cmd in out


def test_demo_replays_a_recorded_game_through_the_pipeline(capsys):
    """The README's main command, short form: rendered camera frames -> pipeline -> tracker -> standings."""
    assert main(["demo", "--fast", "--no-serve"]) == 0
    out = capsys.readouterr().out
    assert "MoveRecognized" in out and "standings:" in out


def test_data_check_lists_non_rulebook_facts(capsys):
    assert main(["wendake", "data", "--check", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sources = {r["source"] for r in report}
    assert sources == {"unknown", "inferred"}
    rules = {r["rule"] for r in report}
    for nit in ("W-NIT-1", "W-NIT-2", "W-NIT-4", "W-NIT-5", "W-NIT-6", "W-NIT-7", "W-NIT-8", "W-NIT-9"):
        assert nit in rules


def test_validate_cli(tmp_path, capsys):
    good = tmp_path / "s.json"
    good.write_text(json.dumps(new_game(["A", "B"], seed=1).to_json()))
    assert main(["wendake", "validate", str(good)]) == 0
    doc = json.loads(good.read_text())
    doc["year"] = 0
    good.write_text(json.dumps(doc))
    assert main(["wendake", "validate", str(good)]) == 2
    assert "year:" in capsys.readouterr().err
