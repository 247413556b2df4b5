"""Measured reliability (``vision.reliability``): the fit per region kind and raw confidence bin, its use on an
Observation, a table profile's own counts over the base ones, its JSON file, and the counting over a rendered game's
saved looks (``tablewatch reliability``)."""

from __future__ import annotations

import json

import pytest

from assistant.apps.reliability_cli import measure
from assistant.errors import UserError
from assistant.table.observation import COUNT_BOUND_CONFIDENCE, Observation, Reading
from assistant.table.profile import TableProfile
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.generate import play_random_game
from assistant.wendake.observer import expected_readings
from calibration import layout as lay
from vision.pipeline import Pipeline
from vision.reliability import (
    BIN_PRIOR,
    EDGES,
    FILE_NAME,
    TILE_KIND,
    Reliability,
    bin_of,
    for_profile,
    kind_of,
    region_kinds,
)


def _rel(kind: str, per_bin: dict[float, tuple[int, int]]) -> Reliability:
    """Counts: {a confidence in the bin: (checked, correct)}."""
    rel = Reliability()
    for conf, (n, ok) in per_bin.items():
        rel.add(kind, conf, True, ok)
        rel.add(kind, conf, False, n - ok)
    return rel


def test_the_fit_follows_the_counts_and_shrinks_few_counts_toward_the_kind():
    rel = _rel("resource_space", {0.82: (2000, 1600), 0.62: (10, 0), 0.92: (5000, 4990)})
    p = rel.fitted()["resource_space"]
    assert p[bin_of(0.82)] == pytest.approx(0.8, abs=0.02)
    assert p[bin_of(0.92)] == pytest.approx(0.998, abs=0.002)
    # 10 wrong readings do not make a bin of a kind that reads right 94 % of the time a sure miss
    assert 0.5 < p[bin_of(0.62)] < 0.8
    assert rel.confidence("resource_space", 0.83) == pytest.approx(0.8, abs=0.02)


def test_the_fit_never_falls_as_the_raw_confidence_rises():
    rel = _rel("territory", {0.25: (500, 490), 0.45: (500, 300), 0.65: (500, 480), 0.85: (500, 350), 0.97: (500, 499)})
    p = rel.fitted()["territory"]
    assert all(a <= b + 1e-12 for a, b in zip(p, p[1:]))
    assert p[bin_of(0.25)] < 490 / 500  # pooled with the worse bin above it


def test_a_confidence_is_never_raised_and_unknown_kinds_and_count_bounds_keep_theirs():
    rel = _rel("lake", {0.3: (1000, 1000), 0.9: (1000, 500)})
    assert rel.confidence("lake", 0.3) == 0.3
    assert rel.confidence("lake", 0.9) == pytest.approx(0.75, abs=0.03)  # pooled with the bin below
    assert rel.confidence("long_house", 0.9) == 0.9
    assert rel.confidence(None, 0.9) == 0.9
    assert rel.confidence("lake", COUNT_BOUND_CONFIDENCE) == COUNT_BOUND_CONFIDENCE
    rel.add("lake", COUNT_BOUND_CONFIDENCE, False, 100)  # a count at the bound is not counted either
    assert rel.checked("lake") == 2000


def test_applied_to_an_observation_by_the_kinds_of_the_layouts():
    layouts = [lay.resolve("wendake-village-1"), lay.resolve("wendake-map-2p")]
    kinds = region_kinds(layouts)
    assert kind_of(kinds, "wendake-village-1/slot.4#tile") == TILE_KIND
    assert kind_of(kinds, "wendake-village-1/long_house") == "long_house"
    assert kind_of(kinds, "wendake-map-2p/L1") == "lake"
    assert kind_of(kinds, "another-board/X") is None
    rel = _rel("long_house", {0.85: (1000, 600)})
    rel.add(TILE_KIND, 0.85, True, 400)
    rel.add(TILE_KIND, 0.85, False, 600)
    obs = Observation(3, 1.5, {
        "wendake-village-1/long_house": Reading((("woman:red:colour", 1),), 0.85),
        "wendake-village-1/slot.4#tile": Reading("B-HUNT:a", 0.85, (("B-FISH:a", 0.85),)),
        "wendake-map-2p/L1": Reading((), 0.85),
        "wendake-village-1/corn": Reading((("corn:none", 7),), COUNT_BOUND_CONFIDENCE),
    }, boards_read=("wendake-village-1", "wendake-map-2p"))
    out = rel.apply(obs, kinds)
    lh, tile = out.readings["wendake-village-1/long_house"], out.readings["wendake-village-1/slot.4#tile"]
    assert lh.confidence == pytest.approx(0.6, abs=0.02) and lh.value == obs.readings["wendake-village-1/long_house"].value
    assert tile.confidence == pytest.approx(0.4, abs=0.03)
    assert tile.others[0][0] == "B-FISH:a" and tile.others[0][1] == pytest.approx(tile.confidence, abs=1e-3)
    assert out.readings["wendake-map-2p/L1"] == obs.readings["wendake-map-2p/L1"]
    assert out.readings["wendake-village-1/corn"] == obs.readings["wendake-village-1/corn"]
    assert (out.frame, out.boards_read) == (obs.frame, obs.boards_read)
    assert obs.readings["wendake-village-1/long_house"].confidence == 0.85  # the observation itself is left as read


def test_a_table_profile_overrides_the_base_for_the_kinds_it_has_counted_enough(tmp_path):
    base_path = tmp_path / "base.json"
    _rel("lake", {0.85: (5000, 5000)}).overridden_by(_rel("territory", {0.85: (5000, 5000)})).save(base_path)
    profile = TableProfile(tmp_path / "tables" / "t")
    assert for_profile(profile, base_path).confidence("lake", 0.85) == 0.85  # no adaptation yet: the base
    own = _rel("lake", {0.85: (400, 200)})
    own.add("territory", 0.85, False, 50)  # too few of its own for the territories: the base stays
    own.save(profile.adapted_dir / FILE_NAME)
    rel = for_profile(profile, base_path)
    assert rel.confidence("lake", 0.85) == pytest.approx(0.5, abs=0.05)
    assert rel.confidence("territory", 0.85) == 0.85
    assert "lake" in rel.source


def test_the_file_round_trips_and_a_bad_one_is_one_line(tmp_path):
    rel = _rel("score_space", {0.58: (300, 290), 0.97: (1000, 1000)})
    path = tmp_path / "r.json"
    rel.save(path)
    back = Reliability.load(path)
    assert back.counts == rel.counts and back.fitted() == rel.fitted()
    assert json.loads(path.read_text())["by_kind"]["score_space"]["checked"] == 1300
    bad = {
        "broken.json": "{not json",
        "format.json": json.dumps({"format": "something-else", "by_kind": {}}),
        "kinds.json": json.dumps({"format": "tablewatch.reliability/1", "by_kind": []}),
        "bins.json": json.dumps({"format": "tablewatch.reliability/1", "by_kind": {"lake": {"bins": [[0.5, 0.4, 3, 1]]}}}),
        "counts.json": json.dumps({"format": "tablewatch.reliability/1", "by_kind": {"lake": {"bins": [[0.4, 0.5, 3, 9]]}}}),
    }
    for name, text in bad.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(UserError) as err:
            Reliability.load(tmp_path / name)
        assert "\n" not in str(err.value) and name in str(err.value)
    with pytest.raises(UserError):
        Reliability.load(tmp_path / "missing.json")
    assert EDGES[0] == 0.0 and EDGES[-1] == 1.0 and BIN_PRIOR > 0


def test_counted_over_a_rendered_games_saved_looks(tmp_path):
    """A game folder as ``tablewatch e2e`` leaves it (session.json, truth.json, looks.jsonl), its looks made from
    the truth with one region read wrong: each look counts against the step whose frames hold it, an injected
    step's looks are left out."""
    names = ["Ann", "Bob"]
    states, moves = [], []
    play_random_game(names, seed=5, on_move=lambda s, m: (states.append(s.copy()), moves.append(m)))
    state, initial = states[0].copy(), states[0].copy()
    layouts = ["wendake-map-2p", "wendake-mask", "wendake-scores-a", "wendake-village-1", "wendake-village-2"]
    (tmp_path / "session.json").write_text(json.dumps({"format": "tablewatch.replay-session/1", "game": "wendake",
                                                       "players": names, "seed": 5, "initial": initial.to_json(),
                                                       "layouts": layouts, "camera": None}))
    steps, looks = [{"frame": 1, "moves": [], "injected": None}], []
    looks.append(Observation(1, 0.4, {k: Reading(v, 0.8) for k, v in expected_readings(state).items()}).to_json())
    rules.apply(state, moves[0])
    steps.append({"frame": 5, "moves": [0], "injected": None})
    readings = {k: Reading(v, 0.8) for k, v in expected_readings(state).items()}
    readings["wendake-map-2p/L1"] = Reading((("canoe:red", 5),), 0.8)
    looks.append(Observation(4, 1.6, readings).to_json())  # a hand frame's look: the step's new position
    steps.append({"frame": 9, "moves": [], "injected": {"kind": "line"}})
    looks.append(Observation(9, 3.6, {"wendake-map-2p/L1": Reading((("canoe:red", 5),), 0.8)}).to_json())
    (tmp_path / "truth.json").write_text(json.dumps({"moves": [M.move_to_json(m) for m in moves[:1]], "steps": steps}))
    (tmp_path / "looks.jsonl").write_text("".join(json.dumps(o) + "\n" for o in looks))
    rel = measure([tmp_path])
    kinds = region_kinds([lay.resolve(n) for n in layouts])
    per_look = len([k for k in expected_readings(state) if kind_of(kinds, k)])
    assert rel.checked() >= 2 * per_look - 40
    assert rel.checked() - rel.correct() == 1
    assert rel.checked("lake") - rel.correct("lake") == 1


def test_a_kind_refined_by_what_it_read_weighs_once_it_has_enough_readings():
    """Beaver piles counted badly on a table whose other piles read well: a reading that says beavers is weighed
    by the beaver piles' counts, once there are enough of them; an empty pile by the kind's."""
    kinds = region_kinds([lay.resolve("wendake-village-1")])
    beaver, corn = "wendake-village-1/resource.beavers", "wendake-village-1/resource.corn"
    rel = Reliability()
    for _ in range(900):
        rel.add_reading(kinds, corn, (("corn:none", 3),), 0.8, True)
    for i in range(60):
        rel.add_reading(kinds, beaver, (("beaver:none", 4),), 0.8, i % 2 == 0)
    assert rel.kind_for(kinds, beaver, (("beaver:none", 4),)) == "resource_space"  # 60 beaver readings: too few
    for i in range(60):
        rel.add_reading(kinds, beaver, (("beaver:none", 4),), 0.8, i % 2 == 0)
    assert rel.kind_for(kinds, beaver, (("beaver:none", 4),)) == "resource_space:beaver"
    assert rel.kind_for(kinds, beaver, ()) == "resource_space"
    obs = Observation(1, 0.5, {beaver: Reading((("beaver:none", 4),), 0.8), corn: Reading((("corn:none", 3),), 0.8)})
    out = rel.apply(obs, kinds)
    assert out.readings[beaver].confidence < 0.6 and out.readings[corn].confidence == 0.8
    assert rel.checked() == 1020  # a refinement counts its readings again, not in the total
    # a table's own counts for the kind replace the base's refinements of it that the table does not give
    own = Reliability()
    for _ in range(300):
        own.add("resource_space", 0.8, True)
    assert "resource_space:beaver" not in rel.overridden_by(own).counts


def test_the_pipeline_says_a_broken_table_file_and_reads_on_with_the_base(tmp_path):
    profile = TableProfile(tmp_path / "t")
    profile.adapted_dir.mkdir(parents=True)
    (profile.adapted_dir / FILE_NAME).write_text("{bad")
    said = []
    pipe = Pipeline(None, [lay.resolve("wendake-village-1")], None, profile=profile, on_message=lambda lv, t: said.append((lv, t)))
    assert [lv for lv, _ in said] == ["warning"] and FILE_NAME in said[0][1] and "\n" not in said[0][1]
    assert pipe.reliability.counts == for_profile(None).counts
