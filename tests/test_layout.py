"""Layouts: the format's checks, the shipped Wendake boards, and their agreement with the engine's map.json."""

from __future__ import annotations

import copy
import json

import pytest

from assistant.apps.cli import main
from calibration import layout as L
from calibration import wendake_layouts as W

BUILTIN = sorted(p.stem for p in L.LAYOUTS_DIR.glob("*.json"))


@pytest.mark.parametrize("name", BUILTIN)
def test_builtin_layouts_are_valid(name):
    assert L.validate(json.loads((L.LAYOUTS_DIR / f"{name}.json").read_text())) == []


def test_shipped_files_are_what_the_generator_writes():
    for name, data in W.all_layouts().items():
        assert json.loads((L.LAYOUTS_DIR / f"{name}.json").read_text()) == json.loads(L.dumps(data)), f"run python -m calibration.wendake_layouts ({name} is stale)"


def test_every_board_has_its_own_marker_ids():
    owner = {}
    for name in BUILTIN:
        for m in L.load_builtin(name)["markers"]:
            key = (m["dictionary"], m["id"])
            assert key not in owner, f"{name} and {owner.get(key)} share marker {key}"
            owner[key] = name


@pytest.mark.parametrize("players", [2, 3, 4])
def test_map_layout_agrees_with_map_json(players):
    topo = json.loads(W.MAP_JSON.read_text())["maps"][str(players)]
    lay = L.load_builtin(f"wendake-map-{players}p")
    regions = L.region_by_id(lay)
    assert lay["schematic"] is True and "SCHEMATIC" in lay["title"]
    # territories, their attributes and their productive areas
    for tid, t in topo["territories"].items():
        r = regions[tid]
        assert r["kind"] == "territory"
        assert r["attributes"]["home"] == t["home"]
        assert r["attributes"].get("flag") == t.get("flag")
        assert r["attributes"].get("flag_distance") == t.get("flag_distance")
        pas = sorted((x for x in lay["regions"] if x.get("parent") == tid), key=lambda x: x["attributes"]["index"])
        assert [p["id"] for p in pas] == [f"{tid}.pa{i}" for i in range(len(t["pas"]))]
        for p, want in zip(pas, t["pas"]):
            assert p["kind"] == "productive_area"
            assert p["attributes"]["pa"] == want["kind"]
            assert p["attributes"].get("crop") == want.get("crop")
        if t["home"]:  # W-SET-8: one harvest and one hunt PA
            assert sorted(p["attributes"]["pa"] for p in pas) == ["harvest", "hunt"]
    lakes = {r["id"] for r in lay["regions"] if r["kind"] == "lake"}
    assert lakes == set(topo["lakes"])
    # nothing else on the map
    assert {r["id"] for r in lay["regions"] if r["kind"] == "territory"} == set(topo["territories"])
    # the graph: same borders, same kinds
    assert {frozenset(b[:2]): b[2] for b in lay["adjacency"]} == {frozenset(b[:2]): b[2] for b in topo["borders"]}
    # flags: near and far territories carry their flag; English far has 2 hunt PAs, near has 1 (W-SOLO-10)
    for flag, where in topo["flags"].items():
        for distance, tid in where.items():
            assert regions[tid]["attributes"]["flag"] == flag
            assert regions[tid]["attributes"]["flag_distance"] == distance
    hunts = lambda tid: sum(1 for r in lay["regions"] if r.get("parent") == tid and r["attributes"]["pa"] == "hunt")  # noqa: E731
    assert hunts(topo["flags"]["english"]["far"]) == 2
    assert hunts(topo["flags"]["english"]["near"]) == 1


def test_other_wendake_boards_have_their_spaces():
    mask = L.load_builtin("wendake-mask")
    kinds = [r["kind"] for r in mask["regions"]]
    assert kinds.count("ceremony_space") == 9 and kinds.count("turtle_stack") == 9
    assert kinds.count("turn_order_space") == 4 and kinds.count("year_space") == 7 and kinds.count("restore_area") == 1
    village = L.load_builtin("wendake-village-1")
    kinds = [r["kind"] for r in village["regions"]]
    assert kinds.count("tile_slot") == 9 and kinds.count("sage_space") == 4 and kinds.count("long_house") == 1
    assert kinds.count("resource_space") >= 5 and kinds.count("progress_space") >= 1
    for pair in ("a", "b"):
        scores = L.load_builtin(f"wendake-scores-{pair}")
        for track in ("upper", "lower"):
            values = sorted(r["attributes"]["value"] for r in scores["regions"] if r["attributes"]["track"] == track)
            assert values == list(range(26))


def _map():
    return copy.deepcopy(L.load_builtin("wendake-map-2p"))


def test_validate_finds_overlapping_polygons():
    lay = _map()
    r = L.region_by_id(lay)["T05"]
    r["polygon"] = [[x - 20, y] for x, y in r["polygon"]]
    problems = "\n".join(L.validate(lay))
    assert "'T04' and 'T05' overlap" in problems or "'T05' and 'T04' overlap" in problems


def test_validate_finds_out_of_bounds_polygons():
    lay = _map()
    L.region_by_id(lay)["H1"]["polygon"][0] = [-5.0, 50.0]
    assert any("'H1' is out of bounds" in p for p in L.validate(lay))


def test_validate_finds_missing_adjacency():
    lay = _map()
    lay["adjacency"] = [b for b in lay["adjacency"] if set(b[:2]) != {"T05", "T06"}]
    problems = L.validate(lay)
    assert any("missing adjacency: T05 and T06" in p for p in problems)


def test_validate_finds_adjacency_without_a_border():
    lay = _map()
    lay["adjacency"].append(["H1", "H2", "land"])
    assert any("H1 and H2 is listed but their polygons do not share a border" in p for p in L.validate(lay))


def test_validate_finds_duplicate_marker_ids():
    lay = _map()
    lay["markers"][1]["id"] = lay["markers"][0]["id"]
    assert any("both use DICT_4X4_100 id 0" in p for p in L.validate(lay))


def test_validate_finds_unknown_kinds_and_accepts_declared_ones():
    lay = _map()
    L.region_by_id(lay)["L1"]["kind"] = "swamp"
    assert any("unknown kind 'swamp'" in p for p in L.validate(lay))
    lay["extra_kinds"] = ["swamp"]
    assert not any("unknown kind" in p for p in L.validate(lay))


def test_validate_finds_child_outside_parent_and_schema_errors():
    lay = _map()
    L.region_by_id(lay)["T05.pa0"]["parent"] = "T01"
    assert any("'T05.pa0' reaches" in p and "outside its parent 'T01'" in p for p in L.validate(lay))
    lay = _map()
    del lay["markers"][0]["size"]
    assert any("'size' is a required property" in p for p in L.validate(lay))


def test_cli_validate_reports_problems_and_exit_codes(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(L.dumps(_map()))
    assert main(["layout", "validate", str(good)]) == 0
    lay = _map()
    lay["markers"][1]["id"] = 0
    L.region_by_id(lay)["T05"]["kind"] = "forest"
    bad = tmp_path / "bad.json"
    bad.write_text(L.dumps(lay))
    assert main(["layout", "validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "both use DICT_4X4_100 id 0" in out and "unknown kind 'forest'" in out
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["layout", "validate", str(broken)]) == 1
    assert "not valid JSON" in capsys.readouterr().out


def test_load_gives_user_errors_not_tracebacks(tmp_path, capsys):
    assert main(["locate", "x.jpg", "--layout", str(tmp_path / "missing.json")]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["locate", "x.jpg", "--layout", "no-such-board"]) == 2
    assert "no built-in layout called 'no-such-board'" in capsys.readouterr().err


def test_marker_rotation_turns_counter_clockwise_on_the_board():
    # rotation 90: the marker's top edge (corner 0 -> 1) points up the board (towards -y)
    c = L.marker_corners_mm({"dictionary": "DICT_4X4_50", "id": 0, "centre": [50, 50], "size": 10, "rotation": 90})
    assert c[1][1] < c[0][1] and abs(c[1][0] - c[0][0]) < 1e-9
