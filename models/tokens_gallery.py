"""Builds the token gallery of the schematic edition (``calibration/tokens/wendake-schematic.npz``) from our own
piece art: the printed face of every round token class (women and hunters, colour side and grey side) drawn the
way the scene generator draws it (``models.synth.pieces.BoardPainter``), straight from above, turned every
``STEP_DEG`` degrees and blurred as a camera at about 1 px/mm blurs it. Build-time only; the runtime reads the
committed ``.npz`` through ``vision.tokens``.

    python -m models.tokens_gallery            # rewrites calibration/tokens/wendake-schematic.npz
"""

from __future__ import annotations

import sys

import numpy as np

from models.synth.pieces import BoardPainter, Light, Piece
from vision.tokens import DEFAULT_GALLERY, FACE_MM, GALLERY_DIR, TOKEN_VIEW_PX_PER_MM, TokenGallery

TOKEN_CLASSES = ("woman", "hunter")
SIDES = ("colour", "grey")
STEP_DEG = 15
DRAW_PX_PER_MM = 8.0  # drawn finer, then blurred and shrunk to the gallery's scale
BLUR_MM = 0.6  # what a camera resolving about 1 px/mm leaves of 1 mm ink lines (matched on the e2e games)


def draw_face(cls: str, side: str, rotation_deg: float, px_per_mm: float) -> np.ndarray:
    """The grey face template of one token: the inside of its printed circle, ``2 * FACE_MM`` mm a side."""
    import cv2

    s = DRAW_PX_PER_MM
    half = FACE_MM + 6.0
    n = int(round(2 * half * s))
    canvas = np.full((n, n, 3), 200, np.uint8)
    alpha = np.zeros((n, n), np.uint8)
    light = Light(0.0, 90.0, 0.0, 1.0)
    painter = BoardPainter(canvas, alpha, s, 0.0, (half, half, 1e6), [light], [light.vector(0.0)],
                           {"red": (128, 128, 128)}, np.random.default_rng(0))
    painter.draw([Piece(cls, "red", "token", half, half, rotation_deg, side=side)])
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey = cv2.GaussianBlur(grey, (0, 0), BLUR_MM * s)
    k = int(round(2 * FACE_MM * px_per_mm))
    c0 = int(round((half - FACE_MM) * s))
    face = grey[c0:c0 + int(round(2 * FACE_MM * s)), c0:c0 + int(round(2 * FACE_MM * s))]
    return cv2.resize(face, (k, k), interpolation=cv2.INTER_AREA)


def build(out_path=None) -> str:
    labels, templates = [], []
    for cls in TOKEN_CLASSES:
        for side in SIDES:
            for rot in range(0, 360, STEP_DEG):
                labels.append(f"{cls}:{side}")
                templates.append(draw_face(cls, side, float(rot), TOKEN_VIEW_PX_PER_MM))
    gallery = TokenGallery(labels, np.stack(templates), TOKEN_VIEW_PX_PER_MM,
                           "schematic piece art (models/tokens_gallery.py), not the retail tokens")
    path = out_path or GALLERY_DIR / f"{DEFAULT_GALLERY}.npz"
    gallery.save(path)
    return f"{path}: {len(labels)} faces of {len(set(labels))} labels"


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else None))
