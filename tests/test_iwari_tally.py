"""``tablewatch iwari tally``: the documented example against its schema and through the command, the text and JSON
outputs, and every bad table refused with exit code 2 and one line naming the field."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.apps.cli import main
from assistant.iwari.maps import MAPS_DIR, map_names

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "iwari-table.json"
SCHEMA = json.loads((ROOT / "docs" / "iwari-table.schema.json").read_text(encoding="utf-8"))

INLINE = {
    "territories": {"T1": {"colour": "tundra"}, "T2": {"colour": "coast"}},
    "tent_spaces": {"S1": "T1", "S2": "T1", "S3": "T2", "S4": "T2"},
    "paths": [["S1", "S2"], ["S2", "S3"], ["S3", "S4"]],
    "connections": [{"id": "1", "between": ["T1", "T2"], "by": "land", "mountain": False}],
}
TABLE = {
    "map": INLINE,
    "tribes": ["red", "blue"],
    "tents": {"S1": "red", "S2": "red", "S3": "blue"},
    "totems": {"T1": {"red": 1}, "T2": {"blue": 1}},
}


def run(capsys, tmp_path, doc, *flags, raw: str | None = None):
    """Run the command on ``doc`` (or the raw text); returns (exit code, stdout, stderr)."""
    path = tmp_path / "table.json"
    path.write_text(raw if raw is not None else json.dumps(doc), encoding="utf-8")
    code = main(["iwari", "tally", str(path), *flags])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, tmp_path, doc, field: str, raw: str | None = None) -> str:
    """The one-line message for a refused table; asserts exit 2 and that the line starts with the field."""
    code, out, err = run(capsys, tmp_path, doc, raw=raw)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"tablewatch: {field}"), err
    return err


def with_(**changes):
    doc = copy.deepcopy(TABLE)
    doc.update(changes)
    return doc


def with_map(**changes):
    m = copy.deepcopy(INLINE)
    m.update(changes)
    return with_(map=m)


# --- the documented example ------------------------------------------------------------------------------------


def test_example_matches_the_schema_and_builtin_maps_match_its_map_form():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert not list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(json.loads(EXAMPLE.read_text(encoding="utf-8"))))
    maps = jsonschema.Draft202012Validator(SCHEMA["$defs"]["map"])
    for name in map_names():
        assert not list(maps.iter_errors(json.loads((MAPS_DIR / f"{name}.json").read_text(encoding="utf-8")))), name
    bad = copy.deepcopy(TABLE)
    bad["tents"]["S1"] = 3
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(bad))  # the schema can fail


def test_example_through_the_command(capsys):
    """docs/iwari-tally.md's example: red and blue tie on 36, blue wins on unused pieces (I-END-4)."""
    assert main(["iwari", "tally", str(EXAMPLE)]) == 0
    text = capsys.readouterr().out
    assert "Winner: blue. red and blue tie on 36 points; blue has the most unused pieces" in text
    assert "Not scored, under mountains (I-TOT-1): connection 2, 10." in text
    assert main(["iwari", "tally", str(EXAMPLE), "--final", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    players = {p["tribe"]: p for p in out["players"]}
    assert {t: p["total"] for t, p in players.items()} == {"red": 36, "blue": 36, "yellow": 29}
    assert players["red"]["settlements"] == [4] and players["yellow"]["totems"] == {"9": 8}
    assert players["blue"]["tents"] == {"T01": 2, "T02": 8, "T06": 5}
    assert out["winners"] == ["blue"] and out["connections"]["2"]["mountain"]
    assert out["territories"]["T02"]["factor"] == 2


@pytest.mark.parametrize("doc", ["README.md", "docs/iwari-tally.md"])
def test_example_in_the_docs_is_the_command_output(capsys, doc):
    """The README's section and the worked example show the command's real output."""
    main(["iwari", "tally", str(EXAMPLE)])
    text = capsys.readouterr().out.strip()
    assert text in (ROOT / doc).read_text(encoding="utf-8")


def test_half_journey_scores_tents_only(capsys, tmp_path):
    code, out, _ = run(capsys, tmp_path, TABLE, "--half", "--json")
    res = json.loads(out)
    assert code == 0 and res["scoring"] == "half" and res["connections"] == {} and "leaders" in res
    assert {p["tribe"]: p["total"] for p in res["players"]} == {"red": 2, "blue": 1}
    code, out, _ = run(capsys, tmp_path, TABLE, "--json")
    assert {p["tribe"]: p["total"] for p in json.loads(out)["players"]} == {"red": 2, "blue": 1}  # holders differ: no totems


def test_standard_input(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(TABLE).encode())))
    assert main(["iwari", "tally", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winners"] == ["red"]


def test_own_map_file_relative_to_the_table(capsys, tmp_path):
    (tmp_path / "mine.json").write_text(json.dumps(INLINE), encoding="utf-8")
    code, out, _ = run(capsys, tmp_path, with_(map="mine.json"), "--json")
    assert code == 0 and json.loads(out)["map"]["name"] == "inline"


def test_own_map_file_with_an_id_given_twice(capsys, tmp_path):
    raw = json.dumps(INLINE).replace('"S4": "T2"', '"S4": "T2", "S4": "T1"')
    (tmp_path / "mine.json").write_text(raw, encoding="utf-8")
    refused(capsys, tmp_path, with_(map="mine.json"), f"map ({tmp_path / 'mine.json'}).tent_spaces.S4: given twice")


def test_totems_above_the_cap_are_a_warning_not_a_refusal(capsys, tmp_path):
    """I-TURN-5: a stack above the tent majority can be described; it is scored as given, with a warning."""
    code, out, _ = run(capsys, tmp_path, with_(totems={"T1": {"red": 2, "blue": 1}}))
    assert code == 0 and "WARNING totems.T1: a stack of 3 is above the tent majority there (2, I-TURN-5)" in out


def test_third_tribe_scores_but_never_wins(capsys, tmp_path):
    """I-2P-4: the third tribe takes part in majorities; the winner is one of the two players."""
    doc = with_(
        tribes=["red", "blue", "grey"],
        tents={"S1": "grey", "S2": "grey", "S3": "blue"},
        totems={},
        options={"third_tribe": "grey"},
    )
    code, out, _ = run(capsys, tmp_path, doc, "--json")
    res = json.loads(out)
    assert code == 0 and res["winners"] == ["blue"] and "I-2P-4" in res["tie_break"]
    assert {p["tribe"]: p["total"] for p in res["players"]}["grey"] == 2


def test_tie_without_unused_pieces_says_so(capsys, tmp_path):
    code, out, _ = run(capsys, tmp_path, with_(tents={"S1": "red", "S3": "blue"}, totems={}))
    assert code == 0 and "share the win (I-NIT-12)" in out and "no unused pieces given for red, blue" in out


def test_options_switch_a_special_on_an_inline_map(capsys, tmp_path):
    """I-MAP-1 by option: without the path S2-S3, the connection joins the two groups only on Floating Lands."""
    m = copy.deepcopy(INLINE)
    m["paths"] = [["S1", "S2"], ["S3", "S4"]]
    tents = {s: "red" for s in ("S1", "S2", "S3", "S4")}
    code, out, _ = run(capsys, tmp_path, with_(map=m, tents=tents, totems={}), "--json")
    assert json.loads(out)["settlements"] == {}
    code, out, _ = run(capsys, tmp_path, with_(map=m, tents=tents, totems={}, options={"floating-lands": True}), "--json")
    assert json.loads(out)["settlements"]["red"][0]["size"] == 4


def test_long_road_through_the_command(capsys, tmp_path):
    """I-MAP-3: road S1 S2 S3 holds red 2, blue 1: red 3, blue 2, beside the territories' own tent points."""
    m = dict(copy.deepcopy(INLINE), road=["S1", "S2", "S3"], special="long-road")
    code, out, _ = run(capsys, tmp_path, with_(map=m, totems={}), "--json")
    res = json.loads(out)
    assert code == 0 and res["road"]["points"] == {"red": 3, "blue": 2}
    assert {p["tribe"]: (p["road"], p["total"]) for p in res["players"]} == {"red": (3, 2 + 3), "blue": (2, 1 + 2)}


# --- bad input: exit 2, one line naming the field --------------------------------------------------------------


def test_missing_file_and_bad_json(capsys, tmp_path):
    assert main(["iwari", "tally", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert "nope.json: file not found" in err and len(err.strip().splitlines()) == 1
    refused(capsys, tmp_path, None, str(tmp_path / "table.json") + ": not valid JSON", raw='{"map": "standard",')
    refused(capsys, tmp_path, None, "the table must be a JSON object", raw="[1, 2]")


def test_two_tents_on_one_space(capsys, tmp_path):
    raw = json.dumps(TABLE).replace('"S1": "red"', '"S1": "red", "S1": "blue"')
    err = refused(capsys, tmp_path, None, "tents.S1: given twice", raw=raw)
    assert "I-TURN-4" in err


def test_tent_on_an_unknown_space_or_of_an_unknown_tribe(capsys, tmp_path):
    refused(capsys, tmp_path, with_(tents={"S99": "red"}), "tents.S99: tent space 'S99' is not on the map")
    refused(capsys, tmp_path, with_(tents={"S1": "pink"}), 'tents.S1: tribe "pink" is not in tribes')


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"tent_spaces": {"S1": "T1", "S2": None, "S3": "T2", "S4": "T2"}}, "map.tent_spaces.S2: a tent space in no territory"),
        (
            {"tent_spaces": {"S1": "T1", "S2": "T9", "S3": "T2", "S4": "T2"}},
            "map.tent_spaces.S2: territory 'T9' is not on the map",
        ),
        ({"paths": [["S1", "S2"], ["S2", "S99"]]}, "map.paths[1]: tent space 'S99' is not on the map"),
        ({"paths": [["S1", "S1"]]}, "map.paths[0]: a path joins two different tent spaces"),
        ({"paths": [["S1", "S2"], ["S2", "S1"]]}, "map.paths[1]: the path S2-S1 is given twice"),
        ({"connections": [{"id": "1", "between": ["T1", "T7"], "by": "land"}]}, "map.connections[0].between: territory 'T7'"),
        (
            {"connections": [{"id": "1", "between": ["T1", "T1"], "by": "land"}]},
            "map.connections[0].between: a connection joins two different",
        ),
        ({"connections": [{"id": "1", "between": ["T1", "T2"], "by": "air"}]}, "map.connections[0].by"),
        (
            {
                "connections": [
                    {"id": "1", "between": ["T1", "T2"], "by": "land"},
                    {"id": 1, "between": ["T1", "T2"], "by": "water"},
                ]
            },
            "map.connections[1].id: connection 1 is given twice",
        ),
        (
            {"territories": {"T1": {"colour": "tundra"}, "T2": {"colour": "purple"}}},
            "map.territories.T2.colour: 'purple' is not an Iwari colour",
        ),
        (
            {"territories": {"T1": {"colour": "tundra"}, "T2": {"colour": "coast"}, "T3": {"colour": "desert"}}},
            "map.tent_spaces: territory T3 has no tent space",
        ),
        ({"road": ["S1", "S42"]}, "map.road[1]: tent space 'S42'"),
        ({"special": "atlantis"}, "map.special"),
    ],
)
def test_impossible_inline_maps(capsys, tmp_path, change, field):
    refused(capsys, tmp_path, with_map(**change), field)


def test_duplicate_ids_in_an_inline_map(capsys, tmp_path):
    raw = json.dumps(TABLE).replace('"T1": {"colour": "tundra"}', '"T1": {"colour": "tundra"}, "T1": {"colour": "forest"}')
    refused(capsys, tmp_path, None, "map.territories.T1: given twice", raw=raw)
    raw = json.dumps(TABLE).replace('"S4": "T2"', '"S4": "T2", "S4": "T1"')
    refused(capsys, tmp_path, None, "map.tent_spaces.S4: given twice", raw=raw)


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"tribes": ["red", "blue"]}, "map: missing"),
        ({"map": "atlantis", "tribes": ["red", "blue"]}, "map: no built-in map called 'atlantis'"),
        ({"map": 7, "tribes": ["red", "blue"]}, "map: a built-in map's name"),
        ({"map": "missing.json", "tribes": ["red", "blue"]}, "map: map file"),
        ({"map": "standard"}, "tribes: missing"),
        ({"map": "standard", "tribes": ["red", "red"]}, "tribes: 'red' is listed twice"),
        ({"map": "standard", "tribes": ["red", ""]}, "tribes[1]"),
        ({"map": "standard", "tribes": ["red", "blue"], "colour": 1}, "colour: unknown key"),
        ({"map": "standard", "tribes": ["red", "blue"], "tents": []}, "tents: must be an object"),
    ],
)
def test_bad_top_level(capsys, tmp_path, doc, field):
    refused(capsys, tmp_path, doc, field)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"totems": {"T9": {"red": 1}}}, "totems.T9: no territory"),
        ({"totems": {"T1": {"red": -1}}}, "totems.T1.red: a count is a whole number"),
        ({"totems": {"T1": {"green": 1}}}, "totems.T1.green: tribe"),
        ({"totems": {"T1": 3}}, "totems.T1: must be an object"),
        ({"feats": {"T9": 1}}, "feats.T9: no territory"),
        ({"feats": {"connection:8": 1}}, "feats.connection:8: no connection '8'"),
        ({"feats": {"T1": 1.5}}, "feats.T1: a feat count"),
        ({"feats": {"connection:1": 2}}, "feats: 2 feats on connections by land; only the one Honour feat"),
        ({"feats": {"T1": 4, "T2": 3}}, "feats: 7 feats; the box has 6"),
        ({"unused": {"red": {"tents": 2, "hats": 1}}}, "unused.red: must be"),
        ({"unused": {"red": {"tents": "two"}}}, "unused.red.tents"),
        ({"unused": {"green": {"tents": 2}}}, "unused.green: tribe"),
        ({"score_track": {"red": -3}}, "score_track.red: points"),
        ({"options": {"snow": True}}, "options.snow: unknown option"),
        ({"options": {"long-road": True}}, "options.long-road: map 'inline' has no road"),
        ({"options": {"floating-lands": True, "glacial-mass": True}}, "options: floating-lands and glacial-mass are both on"),
        ({"options": {"floating-lands": "yes"}}, "options.floating-lands: must be true or false"),
        ({"options": {"third_tribe": "red"}}, "options.third_tribe: the shared third tribe is a 2-player rule"),
        ({"options": {"third_tribe": "grey"}}, 'options.third_tribe: tribe "grey" is not in tribes'),
    ],
)
def test_bad_fields(capsys, tmp_path, changes, field):
    refused(capsys, tmp_path, with_(**changes), field)


# --- fuzz: any mutation of a valid table is scored or refused in one line, never a bug --------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 8) | st.sampled_from(["S1", "T1", "red", "land", "", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["S1", "T1", "red", "id", "by"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


PLACES = [p for p in _paths(TABLE) if p]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(PLACES), value=_json)
def test_mutated_tables_are_scored_or_refused_in_one_line(capsys, tmp_path, place, value):
    doc = copy.deepcopy(TABLE)
    target = doc
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    code, out, err = run(capsys, tmp_path, doc, "--json")
    if code == 0:
        assert json.loads(out)["players"]
    else:
        assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("tablewatch: "), err
