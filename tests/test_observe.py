"""Observation from frames: region readings for every region kind, hidden regions left out, and the map read off a
rendered recording equals what a perfect camera reads (the detector covers the map today)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.observation import Reading
from calibration import camera as cam
from calibration import layout as lay
from vision.detect import Piece
from vision.observe import Observer, RegionReader


def test_region_reader_counts_every_kind_and_keeps_occupants_single():
    v = lay.load_builtin("wendake-village-1")
    r = RegionReader(v)
    dets = [Piece("action_marker", "red", None, 84, 74, 15, 15, 0.9),  # slot.0
            Piece("fire_token", "none", None, 80, 70, 10, 10, 0.8),
            Piece("woman", "red", "grey", 300, 80, 15, 15, 0.95), Piece("woman", "red", "grey", 330, 90, 15, 15, 0.7),
            Piece("hunter", "red", "grey", 360, 100, 15, 15, 0.2),  # near miss: not counted, lowers confidence
            Piece("beaver", "none", None, 500, 500, 10, 10, 0.9)]  # off the board: ignored
    out = r.readings(dets, threshold=0.3)
    assert out["wendake-village-1/slot.0"].value == (("action_marker:red", 1), ("fire_token:none", 1))
    assert out["wendake-village-1/long_house"].value == (("woman:red:grey", 2),)
    assert out["wendake-village-1/long_house"].confidence <= 0.8
    assert out["wendake-village-1/slot.4"] == Reading((), 1.0)
    assert len(out) == len(v["regions"])

    m = lay.load_builtin("wendake-map-2p")
    mr = RegionReader(m)
    pa = next(x for x in m["regions"] if x["kind"] == "productive_area")
    cx, cy = np.asarray(pa["polygon"], float).mean(0)
    out = mr.readings([Piece("woman", "blue", "colour", cx, cy, 15, 15, 0.9), Piece("hunter", "blue", "colour", cx + 1, cy, 15, 15, 0.6)], 0.3)
    assert out[f"wendake-map-2p/{pa['id']}"].value == (("woman:blue:colour", 1),)  # one occupant, the best one


def test_regions_outside_the_picture_are_not_read():
    m = lay.load_builtin("wendake-map-2p")
    r = RegionReader(m)
    H = np.array([[2.0, 0, -300], [0, 2.0, 10], [0, 0, 1]])  # left part of the board off the frame
    vis = r.visible_regions(H, (1400, 1100))
    assert vis and len(vis) < len(r.region_ids)
    out = r.readings([], 0.3, visible=vis)
    assert set(out) == {f"wendake-map-2p/{rid}" for rid in vis}


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    from models.synth.recording import RecordingOptions, render_game

    out = tmp_path_factory.mktemp("rec")
    truth = render_game(out, RecordingOptions(players=2, seed=3, max_states=2, hand_rate=1.0))
    return out, truth


def test_map_readings_match_a_perfect_camera(recording):
    view = pytest.importorskip("assistant.wendake.view")
    from assistant.wendake import rules
    from models.synth.recording import play_game
    from vision.sources import FolderSource

    folder, truth = recording
    meta = json.loads((folder / "session.json").read_text())
    ob = Observer([lay.resolve(n) for n in meta["layouts"]], camera=cam.load(folder / "camera.json"))
    observations = []
    for f in FolderSource(folder):
        res = ob.process(f.index, f.t, f.image)
        if res.observation is not None:
            observations.append(res.observation)
    assert len(observations) >= 2
    initial, moves = play_game(2, 3)
    state = initial.copy()
    for st in truth["steps"]:
        for i in st["moves"]:
            rules.apply(state, moves[i])
    exp = view.expected_readings(state)
    last = observations[-1]
    assert not last.boards_unread
    map_keys = [k for k in exp if k.startswith("wendake-map-2p/") and k in last.readings]
    assert len(map_keys) >= 40  # every region of the 2-player map
    wrong = [(k, exp[k], last.readings[k].value) for k in map_keys if exp[k] != last.readings[k].value]
    assert not wrong
    assert all(0 <= r.confidence <= 1 for r in last.readings.values())
    # a frame with a hand never produced a reading of the board under it
    for o in observations:
        assert set(o.boards_read).isdisjoint(b for b, why in o.boards_unread.items())


def test_reading_report_scores_the_camera_side_alone(recording):
    from vision.replay import reading_report

    folder, truth = recording
    rep = reading_report(folder)
    assert rep["steps_checked"] == len(truth["steps"])
    m = rep["per_kind"]["map"]
    assert m["total"] >= 40 * len(truth["steps"]) and m["wrong"] == 0 and m["missing"] == 0
    assert set(rep["per_kind"]) >= {"map", "village", "scores", "mask"}
    assert 0 <= rep["correct_share"] <= 1


def _piece(cls, colour, side=None, x=0.0, y=0.0, score=0.8):
    from vision.detect import Piece

    return Piece(cls, colour, side, x, y, 10.0, 10.0, score)


def test_grey_pieces_take_the_colour_of_a_one_colour_board_only():
    from vision.observe import colour_grey_pieces

    village = [_piece("action_marker", "red"), _piece("action_marker", "red"), _piece("warrior_standing", "red"),
               _piece("woman", "blue", "grey"), _piece("hunter", "red", "grey"), _piece("corn", "none")]
    out, changed = colour_grey_pieces(village, 0.3)
    assert changed and [p.colour for p in out] == ["red", "red", "red", "red", "red", "none"]
    mixed = [_piece("action_marker", "red"), _piece("action_marker", "blue"), _piece("woman", "green", "grey")]
    out, changed = colour_grey_pieces(mixed, 0.3)
    assert not changed and out[2].colour == "green"  # no owner: left as detected
    lone = [_piece("action_marker", "red"), _piece("woman", "blue", "grey")]
    assert not colour_grey_pieces(lone, 0.3)[1]  # one coloured piece is not enough to name an owner
    weak = [_piece("action_marker", "red", score=0.2), _piece("action_marker", "red", score=0.2), _piece("woman", "blue", "grey")]
    assert not colour_grey_pieces(weak, 0.3)[1]  # near misses do not count


def test_a_tall_piece_found_twice_is_one_piece():
    from vision.observe import merge_tall_duplicates

    dets = [_piece("warrior_standing", "red", x=100, y=82, score=0.46), _piece("warrior_standing", "red", x=101, y=90, score=0.41),
            _piece("warrior_standing", "red", x=100, y=110, score=0.7), _piece("woman", "red", "colour", x=100, y=86)]
    out = merge_tall_duplicates(dets)
    assert sorted((p.cls, p.y_mm) for p in out) == [("warrior_standing", 82), ("warrior_standing", 110), ("woman", 86)]


def test_tile_slots_are_read_again_only_when_their_picture_changes():
    from calibration.render import render_board

    lay_v = lay.load_builtin("wendake-village-1")
    ob = Observer([lay_v])
    asked = []

    def fake_read_tiles(view, r, layout):
        asked.append(sorted(reg["id"] for reg in layout["regions"]))
        return {reg["id"]: (f"T-{reg['id']}:action", 0.9) for reg in layout["regions"]}

    ob.read_tiles = fake_read_tiles
    view = render_board(lay_v, 1.0)
    slots = sorted(r["id"] for r in lay_v["regions"] if r.get("kind") == "tile_slot")
    first = ob._read_tiles("wendake-village-1", view, 1.0)
    assert asked == [slots] and set(first) == set(slots)
    assert ob._read_tiles("wendake-village-1", view.copy(), 1.0) == first and asked[-1] == slots  # nothing new asked
    assert len(asked) == 1
    changed = view.copy()
    reg = next(r for r in lay_v["regions"] if r["id"] == slots[0])
    (x0, y0), (x1, y1) = np.min(reg["polygon"], 0).astype(int), np.max(reg["polygon"], 0).astype(int)
    changed[y0:y1, x0:x1] = 255 - changed[y0:y1, x0:x1]  # another tile there
    again = ob._read_tiles("wendake-village-1", changed, 1.0)
    assert asked[-1] == [slots[0]] and again == first
