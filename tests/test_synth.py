"""The synthetic scene generator (models/synth): determinism, ground truth against the engine state, geometry of
the labels (boxes, homographies, rectified view) and the ``tablewatch synth`` command."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from assistant.apps.cli import main
from models.synth import CLASSES, FORMAT
from models.synth.camera import distort_normalised
from models.synth.writer import make_scene

SIZE = (320, 240)


@pytest.fixture(scope="module")
def scenes():
    return [make_scene(11, i, players, SIZE) for i, players in enumerate((2, 3, 4, 4))]


def test_same_seed_same_scene():
    a = make_scene(5, 3, 3, SIZE)
    b = make_scene(5, 3, 3, SIZE)
    assert a["labels"] == b["labels"]
    assert np.array_equal(a["image"], b["image"])
    assert a["jpeg"] == b["jpeg"] and a["rect_jpeg"] == b["rect_jpeg"]
    c = make_scene(6, 3, 3, SIZE)
    assert c["labels"]["pieces"] != a["labels"]["pieces"]


def test_labels_use_the_documented_classes(scenes):
    for sc in scenes:
        lab = sc["labels"]
        assert lab["format"] == FORMAT
        for p in lab["pieces"]:
            assert p["class"] in CLASSES
            assert p["colour"] in ("red", "blue", "green", "yellow", "black", "none")
            if p["class"] in ("woman", "hunter"):
                assert p["side"] in ("colour", "grey")


def test_ground_truth_matches_the_engine_state(scenes):
    for sc in scenes:
        state, labels = sc["state"], [p for p in sc["labels"]["pieces"] if not p["extra"]]
        n = state.n
        mp = f"wendake-map-{n}p"
        on_map = [p for p in labels if p["board"] == mp]
        got = Counter((p["class"], p["colour"], p["region"]) for p in on_map)
        want = Counter()
        stacks = {}
        for tid, t in state.territories.items():
            for pl, g in enumerate(t.guards):
                if g:
                    want[("warrior_standing", state.players[pl].colour, tid)] += g
            for i, pa in enumerate(t.pas):
                if pa.count and pa.owner is not None:
                    cls = "warrior_lying" if pa.native == "warrior" else pa.native
                    want[(cls, state.players[pa.owner].colour, f"{tid}.pa{i}")] += 1
                    stacks[f"{tid}.pa{i}"] = pa.count
        for lid, canoes in state.lakes.items():
            for pl, c in enumerate(canoes):
                if c:
                    want[("canoe", state.players[pl].colour, lid)] += c
        assert got == want
        for p in on_map:  # Home stacks: one label per stack with its size
            if p["class"] in ("woman", "hunter"):
                assert p["count"] == stacks[p["region"]] and p["side"] == "colour"
        for pl, ps in enumerate(state.players):
            vb = [p for p in labels if p["board"] == f"wendake-village-{pl + 1}"]
            lh = [p for p in vb if p["region"] == "long_house"]
            assert sum(p["class"] == "woman" for p in lh) == ps.long_house["woman"]
            assert sum(p["class"] == "hunter" for p in lh) == ps.long_house["hunter"]
            assert sum(p["class"] == "warrior_standing" for p in lh) == ps.long_house["warrior"]
            assert all(p["side"] == "grey" for p in lh if p["class"] in ("woman", "hunter"))
            markers = Counter(p["region"] for p in vb if p["class"] == "action_marker")
            assert markers == Counter([f"slot.{k}" for k in ps.markers] + [f"sage.{k + 1}" for k in range(ps.sages)])
            for res, k in ps.resources.items():
                assert sum(p["class"] == res and p["region"] == f"resource.{res}" for p in vb) == k
            assert sum(p["class"] == "beaver" for p in vb) == ps.beavers
            assert sum(p["class"] == "swap_token" for p in vb) == ps.swap_tokens
            assert sum(p["class"] == "fire_token" for p in vb) == (ps.fire is not None)
            assert all(p["colour"] == ps.colour for p in vb if p["class"] in ("action_marker", "warrior_standing", "woman", "hunter"))
        tracks = {}
        for b in sc["labels"]["boards"]:
            if "tracks" in b:
                for row, track in b["tracks"].items():
                    tracks[(b["board"], row)] = track
        disks = [p for p in labels if p["class"] == "tribe_disk" and p["board"].startswith("wendake-scores")]
        assert len(disks) == 4 * n
        for p in disks:
            row, value = p["region"].split(".")
            owner = next(ps for ps in state.players if ps.colour == p["colour"])
            assert min(25, owner.tracks[tracks[(p["board"], row)]]) == int(value)


def test_boxes_and_projections_agree_with_the_camera(scenes):
    W, H = SIZE
    for sc in scenes:
        lab = sc["labels"]
        K = np.array(lab["camera"]["K"])
        dist = np.array(lab["camera"]["dist"])
        Hs = {b["board"]: np.array(b["H"]) for b in lab["boards"]}
        seen = 0
        for p in lab["pieces"]:
            if p["box"] is not None:
                x0, y0, x1, y1 = p["box"]
                assert 0 <= x0 <= x1 <= W and 0 <= y0 <= y1 <= H
                seen += 1
            if p["in_view"] and not p["truncated"]:
                assert p["box"] is not None
            if p["image_xy"] is not None and p["in_view"]:
                u = Hs[p["board"]] @ [*p["board_xy_mm"], 1.0]
                n = np.linalg.inv(K) @ (u / u[2])
                q = distort_normalised(n[None, :2], K, dist)[0]
                assert np.hypot(*(q - p["image_xy"])) < 1.0
        assert seen > 0


def test_rectified_labels_lie_in_their_regions(scenes):
    import cv2

    from calibration.layout import load_builtin

    for sc in scenes:
        rect = sc["labels"]["rectified"]
        r = rect["px_per_mm"]
        regions = {x["id"]: np.asarray(x["polygon"], np.float32) * r - 0.5 for x in load_builtin(rect["board"])["regions"]}
        assert sc["rectified"].shape[:2] == (rect["size"][1], rect["size"][0])
        assert len(rect["pieces"]) == sum(p["board"] == rect["board"] for p in sc["labels"]["pieces"])
        for p in rect["pieces"]:
            if p["region"] is None:
                continue
            assert cv2.pointPolygonTest(regions[p["region"]], tuple(map(float, p["xy"])), False) >= 0, p
            x0, y0, x1, y1 = p["box"]
            assert x0 <= p["xy"][0] + 1 and p["xy"][0] - 1 <= x1 and y0 <= p["xy"][1] + 1 and p["xy"][1] - 1 <= y1


def test_cli_writes_scenes_and_manifest(tmp_path):
    out = tmp_path / "set"
    assert main(["synth", "--n", "2", "--seed", "4", "--out", str(out), "--players", "2", "--size", "320x240"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["format"] == FORMAT and man["classes"] == list(CLASSES) and man["scenes"] == 2
    for i in range(2):
        lab = json.loads((out / f"scene_{i:06d}.json").read_text())
        assert (out / lab["image"]).stat().st_size > 0
        assert (out / lab["rectified"]["image"]).stat().st_size > 0
    assert len(list(out.glob("*.json"))) == 3


@pytest.mark.parametrize("args, words", [
    (["--n", "0"], "--n must be at least 1"),
    (["--n", "-3"], "--n must be at least 1"),
    (["--n", "1", "--players", "5"], "--players"),
    (["--n", "1", "--size", "big"], "WIDTHxHEIGHT"),
])
def test_cli_bad_arguments(tmp_path, capsys, args, words):
    assert main(["synth", "--out", str(tmp_path / "x"), *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_cli_unwritable_out(tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    assert main(["synth", "--n", "1", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert "cannot create the output folder" in err and "Traceback" not in err
    assert main(["synth", "--n", "1", "--out", str(blocker)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_bought_progress_tiles_are_drawn_only_when_asked():
    """``table_for(..., progress_tiles=True)`` lays each player's bought tiles on the village's progress spaces in
    the order bought, face down once used this year (W-PRG-3, the level printed on the back); everything else,
    pieces included, is drawn exactly as without them (the tiles take nothing from the scene's random stream)."""
    from assistant.wendake.generate import play_random_game
    from models.synth.wendake import table_for

    final, _ = play_random_game(["Ringo", "Paul", "John"], seed=1)
    final.players[0].progress_used = final.players[0].progress[:1]
    assert all(p.progress for p in final.players)
    _, off = table_for(final, np.random.default_rng(0), extras=False)
    _, on = table_for(final, np.random.default_rng(0), extras=False, progress_tiles=True)
    assert [b.pieces for b in off] == [b.pieces for b in on]
    for b_off, b_on in zip(off, on):
        extra = [t for t in b_on.tiles if t not in b_off.tiles]
        assert not any(t["slot"].startswith("progress.") for t in b_off.tiles)
        if not b_on.name.startswith("wendake-village-"):
            assert not extra
            continue
        pl = final.players[int(b_on.name.rsplit("-", 1)[1]) - 1]
        assert [(t["slot"], t["tile"], t["side"]) for t in extra] == [
            (f"progress.{i + 1}", t[:2] if t in pl.progress_used else t, "back" if t in pl.progress_used else "front")
            for i, t in enumerate(pl.progress[:6])]
