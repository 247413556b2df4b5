"""Token reader (vision/tokens.py): the committed schematic gallery tells women from hunters, grey side and colour
side, on tokens drawn by the scene generator and seen by a camera at about 1 px/mm (where the detector mixes up the
grey ones), corrects a detector's wrong class, leaves other pieces alone, and reports a missing gallery clearly."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import UserError
from vision import tokens as T
from vision.detect import Detections
from vision.detect import Piece as Detection

CAMERA_PX_PER_MM = 1.1  # the e2e games' camera gives 0.85-1.2 px/mm on a village board


@pytest.fixture(scope="module")
def table():
    """Eight tokens, turned every which way, drawn with light and shadows at 4 px/mm, then seen the way a camera
    at 1.1 px/mm sees them (shrunk, noisy, JPEG). Returns the image, board mm -> image, and the truth."""
    import cv2

    from models.synth.pieces import BoardPainter, Light, Piece

    rng = np.random.default_rng(5)
    s, w, h = 4.0, 130, 70
    canvas = np.full((int(h * s), int(w * s), 3), (200, 222, 232), np.uint8)
    alpha = np.zeros(canvas.shape[:2], np.uint8)
    lights = [Light(35.0, 50.0, 0.5, 3.0), Light(200.0, 70.0, 0.2, 8.0)]
    truth = []
    for k, (cls, side) in enumerate([("woman", "grey"), ("hunter", "grey"), ("hunter", "grey"), ("woman", "grey"),
                                     ("woman", "colour"), ("hunter", "colour"), ("hunter", "grey"), ("woman", "grey")]):
        x, y = 16 + 32 * (k % 4) + rng.uniform(-2, 2), 18 + 34 * (k // 4) + rng.uniform(-2, 2)
        truth.append((cls, side, x, y, float(rng.uniform(0, 360))))
    painter = BoardPainter(canvas, alpha, s, 0.0, (w / 2, h / 2, 900.0), lights, [li.vector(0.0) for li in lights],
                           {"blue": (185, 95, 30)}, rng)
    painter.draw([Piece(c, "blue", "test", x, y, rot, side=side) for c, side, x, y, rot in truth])
    img = cv2.resize(canvas, None, fx=CAMERA_PX_PER_MM / s, fy=CAMERA_PX_PER_MM / s, interpolation=cv2.INTER_AREA)
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)
    H = np.array([[CAMERA_PX_PER_MM, 0, -0.5], [0, CAMERA_PX_PER_MM, -0.5], [0, 0, 1.0]])
    return img, H, truth


def test_women_and_hunters_are_told_apart_on_both_sides(table):
    img, H, truth = table
    gallery = T.load_default()
    for cls, side, x, y, _ in truth:
        # the detector's position may be a couple of millimetres off
        read = gallery.read(T.token_patch(img, H, x + 1.5, y - 1.0, gallery.px_per_mm), side)
        assert read is not None and read.value == cls, (cls, side, read)
        assert read.confidence >= T.MIN_CONFIDENCE
        assert [c for c, _ in read.others] == [c for c in gallery.classes if c != cls]


def test_a_wrong_class_from_the_detector_is_read_again_and_other_pieces_are_left_alone(table):
    img, H, truth = table
    swapped = {"woman": "hunter", "hunter": "woman"}
    dets = [Detection(swapped[cls], "blue", side, x, y, 22.0, 22.0, 0.5) for cls, side, x, y, _ in truth]
    dets.append(Detection("warrior_standing", "blue", None, 60.0, 35.0, 13.0, 8.0, 0.9))  # not a token class
    fixed, changed = T.reread_tokens(T.load_default(), img, H, dets)
    assert changed == len(truth)
    assert [d.cls for d in fixed[:-1]] == [cls for cls, *_ in truth]
    assert [(d.colour, d.side, d.score) for d in fixed[:-1]] == [(d.colour, d.side, d.score) for d in dets[:-1]]
    assert fixed[-1] == dets[-1]


def test_a_blank_patch_is_no_confident_read_and_keeps_the_detectors_class(table):
    img, H, _ = table
    gallery = T.load_default()
    read = gallery.read(T.token_patch(img, H, 64.0, 2.0 + T.FACE_MM + T.SEARCH_MM, gallery.px_per_mm), "grey")
    assert read is None or read.confidence < T.MIN_CONFIDENCE
    det = Detection("hunter", "blue", "grey", 64.0, 2.0 + T.FACE_MM + T.SEARCH_MM, 22.0, 22.0, 0.4)
    assert T.reread_tokens(gallery, img, H, [det]) == (Detections([det]), 0)


def test_gallery_round_trip_and_missing_gallery(tmp_path):
    g = T.load_default()
    g.save(tmp_path / "mine.npz")
    back = T.TokenGallery.load(tmp_path / "mine.npz")
    assert back.labels == g.labels and back.classes == ["hunter", "woman"]
    assert np.allclose(back.templates, g.templates, atol=0.1)
    with pytest.raises(UserError, match="models.tokens_gallery"):
        T.TokenGallery.load(tmp_path / "nothing.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a gallery")
    with pytest.raises(UserError, match="cannot be read"):
        T.TokenGallery.load(tmp_path / "bad.npz")


def test_an_observer_without_a_token_gallery_says_so_and_goes_on(monkeypatch):
    from calibration import layout as lay
    from vision import observe as O

    def missing():
        raise UserError("no token gallery at /nowhere.npz: build it with 'python -m models.tokens_gallery'")

    monkeypatch.setattr(O, "load_token_gallery", missing)
    ob = O.Observer([lay.resolve("wendake-village-1")])
    assert ob.tokens is None
    assert any("token faces are not read again" in n and "models.tokens_gallery" in n for n in ob.notes)


def test_the_committed_gallery_is_what_the_builder_draws(tmp_path):
    from models.tokens_gallery import build

    build(tmp_path / "again.npz")
    again, committed = T.TokenGallery.load(tmp_path / "again.npz"), T.load_default()
    assert again.labels == committed.labels and again.px_per_mm == committed.px_per_mm
    assert np.abs(again.templates - committed.templates).max() < 0.5
