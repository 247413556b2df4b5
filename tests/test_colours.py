"""Colour profiles: white balance from the markers' white borders, learning and classifying player colours."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from conftest_vision import homography_looking_at, real

from assistant.apps.cli import main
from calibration import colours as C
from calibration import layout as L
from vision.locate import locate

PIECES = {"red": (40, 40, 200), "blue": (190, 90, 30), "yellow": (40, 210, 230), "green": (60, 160, 50)}


def test_markers_white_borders_make_the_real_paper_neutral():
    lay = L.load_builtin("aruco-sheet")
    frame = cv2.imread(str(real("aruco-sheet", "aruco.jpg")))
    loc = locate(frame, [lay])[0]
    gains, level = C.white_gains(frame, loc.homography, lay)
    xs, ys = np.meshgrid(np.arange(155, 195, 1.0), np.arange(150, 200, 1.0))  # blank paper between markers
    paper = C._sample_board(frame, loc.homography, np.c_[xs.ravel(), ys.ravel()])
    before = C._lab(paper).mean(0)
    after = C._lab(paper * gains).mean(0)
    assert np.hypot(before[1], before[2]) > 3  # the photo has a colour cast
    assert np.hypot(after[1], after[2]) < 1.5


def _card_photo(cast_bgr, names=PIECES):
    """A frame of the colour card with a piece of each colour on its spot, under a coloured light."""
    lay = L.load_builtin("colour-card")
    k = 4.0
    from calibration.render import render_board

    board = render_board(lay, k)
    spots = sorted((r for r in lay["regions"] if r["kind"] == "colour_spot"), key=lambda r: r["attributes"]["index"])
    for spot, bgr in zip(spots, names.values()):
        x0, y0 = spot["polygon"][0]
        cv2.circle(board, (int((x0 + 15) * k), int((y0 + 15) * k)), int(12 * k), bgr, -1)
    H = homography_looking_at(lay, frame_size=(1280, 960), fill=0.85, tilt=0.1, angle_deg=-3)
    S = np.diag([k, k, 1.0])
    frame = cv2.warpPerspective(board, H @ np.linalg.inv(S), (1280, 960), borderValue=(70, 90, 110))
    lit = np.clip(frame.astype(np.float32) * np.array(cast_bgr, np.float32), 0, 255).astype(np.uint8)
    return lay, lit, H


def test_learn_and_classify_under_different_lights(tmp_path, capsys):
    lay, warm, _ = _card_photo((0.68, 0.83, 0.9))
    photo = tmp_path / "card.png"
    cv2.imwrite(str(photo), warm)
    out = tmp_path / "colours.json"
    assert main(["calibrate", "colours", str(photo), "--colours", ",".join(PIECES), "--out", str(out)]) == 0
    assert "Run this again whenever the light" in capsys.readouterr().out
    profile = C.load(out)
    assert list(profile["colours"]) == list(PIECES)
    # a later frame under a cold light: rebalance with that frame's own white borders, then classify
    _, cold, H = _card_photo((0.9, 0.85, 0.7))
    loc = locate(cold, [lay])[0]
    gains, _ = C.white_gains(cold, loc.homography, lay)
    spots = sorted((r for r in lay["regions"] if r["kind"] == "colour_spot"), key=lambda r: r["attributes"]["index"])
    for spot, name in zip(spots, PIECES):
        pix = C._sample_board(cold, loc.homography, C.spot_points_mm(spot))
        names, _ = C.classify(profile, pix, gains)
        assert max(set(names), key=names.count) == name
        assert names.count(name) > 0.95 * len(names)


def test_the_card_holds_every_iwari_tribe_colour(tmp_path, capsys):
    """Iwari has five tribe colours (purple the fifth): the card's fifth spot, in its middle, learns it, the colours
    named by ``--game iwari``; each spot's piece classifies as its own colour."""
    order = ["red", "blue", "green", "yellow"]  # the game's order, spot by spot
    five = {**{c: PIECES[c] for c in order}, "purple": (140, 40, 120)}
    lay, warm, _ = _card_photo((0.68, 0.83, 0.9), five)
    photo = tmp_path / "card.png"
    cv2.imwrite(str(photo), warm)
    out = tmp_path / "colours.json"
    assert main(["calibrate", "colours", str(photo), "--game", "iwari", "--out", str(out)]) == 0
    profile = C.load(out)
    assert list(profile["colours"]) == ["red", "blue", "green", "yellow", "purple"]
    assert profile["colours"]["purple"]["spot"] == "spot.5"
    loc = locate(warm, [lay])[0]
    spots = sorted((r for r in lay["regions"] if r["kind"] == "colour_spot"), key=lambda r: r["attributes"]["index"])
    for spot, name in zip(spots, five):
        names, _ = C.classify(profile, C._sample_board(warm, loc.homography, C.spot_points_mm(spot)))
        assert max(set(names), key=names.count) == name


def test_colours_errors(tmp_path):
    lay, warm, _ = _card_photo((0.68, 0.83, 0.9))
    grey = cv2.cvtColor(warm, cv2.COLOR_BGR2GRAY)
    loc = locate(grey, [lay])[0]
    with pytest.raises(Exception, match="needs a colour photo"):
        C.white_gains(grey, loc.homography, lay)
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"format": "other"}))
    with pytest.raises(Exception, match="not a colour profile"):
        C.load(bad)
