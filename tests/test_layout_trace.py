"""Mapping a retail board: layout from the sticker plan, rectify a photo, save traced polygons, validate."""

from __future__ import annotations

import json

import cv2
import numpy as np
from conftest_vision import homography_looking_at

from assistant.apps.cli import main
from calibration import layout as L
from calibration.render import draw_marker

ART = {"ceremony.a": (60, 60, 100, 80), "ceremony.b": (180, 60, 90, 80)}  # x, y, w, h in mm: the "retail artwork"


def _retail_photo(lay):
    k = 3.0
    w, h = lay["size_mm"]
    board = np.full((int(h * k), int(w * k), 3), (200, 220, 230), np.uint8)
    for x, y, bw, bh in ART.values():
        cv2.rectangle(board, (int(x * k), int(y * k)), (int((x + bw) * k) - 1, int((y + bh) * k) - 1), (40, 40, 160), -1)
    for m in lay["markers"]:
        draw_marker(board, m, k)
    H = homography_looking_at(lay, frame_size=(1600, 1200), fill=0.85, tilt=0.2, angle_deg=4)
    S = np.diag([k, k, 1.0])
    S[0, 2] = S[1, 2] = -0.5
    return cv2.warpPerspective(board, H @ np.linalg.inv(S), (1600, 1200), borderValue=(60, 80, 100))


def test_new_rectify_trace_round_trip(tmp_path, capsys):
    skeleton = tmp_path / "mine.json"
    assert main(["layout", "new", "--plan", "wendake-mask", "--size", "480x290", "--name", "my-mask", "--out", str(skeleton)]) == 0
    lay = L.load(skeleton)
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), _retail_photo(lay))
    top = tmp_path / "top.png"
    assert main(["layout", "rectify", str(photo), "--layout", str(skeleton), "--out", str(top), "--px-per-mm", "2"]) == 0
    img = cv2.imread(str(top))
    assert img.shape[:2] == (580, 960)
    # "trace" the red areas on the rectified photo, as the tablet editor would
    red = ((img[:, :, 2] > 120) & (img[:, :, 0] < 90)).astype(np.uint8)
    contours, _ = cv2.findContours(red, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    polys = sorted((cv2.approxPolyDP(c, 2, True).reshape(-1, 2).tolist() for c in contours if cv2.contourArea(c) > 500), key=lambda p: min(x for x, _ in p))
    assert len(polys) == 2
    traced = {"px_per_mm": 2, "regions": [{"id": rid, "kind": "ceremony_space", "polygon_px": p} for rid, p in zip(ART, polys)]}
    tfile = tmp_path / "traced.json"
    tfile.write_text(json.dumps(traced))
    out = tmp_path / "mapped.json"
    assert main(["layout", "trace", str(skeleton), "--traced", str(tfile), "--out", str(out)]) == 0
    mapped = L.load(out)
    for rid, (x, y, w, h) in ART.items():
        poly = np.array(L.region_by_id(mapped)[rid]["polygon"])
        assert abs(poly[:, 0].min() - x) < 1.0 and abs(poly[:, 0].max() - (x + w)) < 1.5
        assert abs(poly[:, 1].min() - y) < 1.0 and abs(poly[:, 1].max() - (y + h)) < 1.5
    # an overlapping trace is refused with the reason
    traced["regions"].append({"id": "oops", "kind": "ceremony_space", "polygon_px": [[p[0] + 10, p[1]] for p in polys[0]]})
    tfile.write_text(json.dumps(traced))
    capsys.readouterr()
    assert main(["layout", "trace", str(skeleton), "--traced", str(tfile), "--out", str(tmp_path / "bad.json")]) == 2
    assert "overlap" in capsys.readouterr().err
    assert not (tmp_path / "bad.json").exists()
