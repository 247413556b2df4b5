"""Boards lying on one another (``vision.overlap``): who is on top comes from the markers each hides, and the regions
under the top board are not read (e2e 4p s1006 and s15: the mask board over a score track hid the disks there, which
read as "not where they should be": false ScoreMismatch alerts)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import layout as lay
from vision.locate import apply_h
from vision.overlap import GROW_MM, covering, outline_px

SCORES, MASK = "wendake-scores-b", "wendake-mask"


def _layouts():
    return {n: lay.load_builtin(n) for n in (SCORES, MASK)}


def _H(x, y, s=1.0):
    return np.array([[s, 0, x], [0, s, y], [0, 0, 1.0]])


def _marker_ids_inside(layout, H, other):
    import cv2

    out = set()
    for m in layout["markers"]:
        c = apply_h(H, [m["centre"]])[0]
        if cv2.pointPolygonTest(other.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0:
            out.add(m["id"])
    return out


def test_the_board_whose_markers_show_in_the_overlap_lies_on_top():
    L = _layouts()
    H = {SCORES: _H(50, 400), MASK: _H(200, 450)}  # the mask's top-left quarter over the score board's middle
    ids = {n: {m["id"] for m in L[n]["markers"]} for n in L}
    under = _marker_ids_inside(L[SCORES], H[SCORES], outline_px(L[MASK], H[MASK]))
    assert under  # the score board's middle markers lie under the mask's outline
    seen = {SCORES: ids[SCORES] - under, MASK: ids[MASK]}  # hidden: missed; the mask's markers all found
    covers, warnings = covering(L, H, seen, (1200, 900))
    assert set(covers) == {SCORES} and len(covers[SCORES]) == 1
    assert np.allclose(covers[SCORES][0], outline_px(L[MASK], H[MASK], GROW_MM))
    assert warnings == [f"{MASK} lies on {SCORES}: the part of {SCORES} under it is not read. Move the boards apart."]

    # the other way round: the score board lies on the mask, whose markers under it are missed
    on_mask = _marker_ids_inside(L[MASK], H[MASK], outline_px(L[SCORES], H[SCORES]))
    covers, warnings = covering(L, H, {SCORES: ids[SCORES], MASK: ids[MASK] - on_mask}, (1200, 900))
    assert set(covers) == {MASK} and "wendake-scores-b lies on wendake-mask" in warnings[0]


def test_boards_that_overlap_without_evidence_are_read_on_neither_side_and_apart_on_both():
    L = _layouts()
    ids = {n: {m["id"] for m in L[n]["markers"]} for n in L}
    # a corner over a corner, no marker of either inside the other (nothing to tell which is on top)
    H = {SCORES: _H(50, 400), MASK: _H(50 + 558 - 10, 400 + 132 - 10)}
    covers, warnings = covering(L, H, ids, (1400, 1000))
    assert set(covers) == {SCORES, MASK}
    assert warnings == [f"{MASK} and {SCORES} overlap: neither is read where they do. Move the boards apart."]
    # and boards apart cover nothing
    covers, warnings = covering(L, {SCORES: _H(50, 400), MASK: _H(50, 600)}, ids, (1400, 1000))
    assert covers == {} and warnings == []
    # a board read from its last pose (no marker found) gives no evidence of lying under
    H = {SCORES: _H(50, 400), MASK: _H(200, 450)}
    covers, _ = covering(L, H, {SCORES: set(), MASK: set()}, (1200, 900))
    assert set(covers) == {SCORES, MASK}


@pytest.mark.parametrize("seed", [5])
def test_a_rendered_table_with_the_mask_board_on_a_score_track_reads_nothing_under_it(seed):
    """A rendered frame, the mask board lying across the middle and the lower row of a score track: the spaces
    under the mask are not read (absent keys), the rest of the track is, and the frame warns about the boards."""
    import json

    from assistant.wendake.setup import new_game
    from models.synth import recording as R
    from models.synth import scene as S
    from models.synth import wendake as WK
    from models.synth.camera import BoardPose
    from vision.observe import Observer

    state = new_game(["Ann", "Bob"], seed=seed)
    rng = np.random.default_rng(seed)
    main, boards = WK.table_for(state, rng, extras=False)
    keep = {b.name: b for b in boards}
    mw, mh = keep[main].layout["size_mm"]
    boards = [keep[main], keep[SCORES], keep[MASK]]  # drawn in this order: the mask last, on top
    keep[main].pose = BoardPose(0.0, 0.0, 0.0)
    keep[SCORES].pose = BoardPose(0.0, mh + 40, 0.0)
    keep[MASK].pose = BoardPose(180.0, mh + 40 + 50, 0.0)  # over the score board's middle and lower row
    camera = R.overhead_camera(boards, (1600, 1200), rng)
    out = S.render(boards, main, rng, (1600, 1200), 1.0, effects_on=False, fixed={"camera": camera, "poses": {b.name: b.pose for b in boards}})
    calib = R.camera_json(camera)
    K, dist = np.array(calib["camera_matrix"]), np.array(calib["distortion"])
    layouts = [b.layout for b in boards]
    ob = Observer(layouts, camera=(K, dist))
    obs = None
    for i, t in enumerate((0.0, 0.4, 0.8, 1.2)):
        res = ob.process(i, t, out["image"])
        obs = res.observation or obs
    assert obs is not None and SCORES in obs.boards_read and MASK in obs.boards_read
    assert f"{MASK} lies on {SCORES}: the part of {SCORES} under it is not read. Move the boards apart." in obs.warnings
    score_keys = [k for k in obs.readings if k.startswith(SCORES + "/")]
    regions = {r["id"]: r for r in keep[SCORES].layout["regions"]}
    assert 0 < len(score_keys) < len(regions)
    # what is left out lies (partly) under the mask: the mask's outline in the score board's mm
    M = np.linalg.inv(keep[SCORES].pose.matrix()) @ keep[MASK].pose.matrix()
    mx0, my0 = apply_h(M, [[0, 0]])[0]
    for rid, r in regions.items():
        p = np.asarray(r["polygon"], float)
        under = (p[:, 0].max() > mx0 - GROW_MM - 1) and (p[:, 1].max() > my0 - GROW_MM - 1)
        assert (f"{SCORES}/{rid}" in obs.readings) != under, rid
    assert all(k.startswith((main, MASK, SCORES)) for k in obs.readings)
    json.dumps(obs.warnings)
