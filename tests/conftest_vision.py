"""Helpers shared by the vision and calibration tests: the real-photo folder and synthetic camera frames.

The real photos live in a ``shared`` folder found relative to the repository, never by an absolute path:
``$TABLEWATCH_SHARED`` when set, else ``<repo>/shared``, else ``<repo>/../shared`` (where CI checks it out).
Without it a test that needs a photo is skipped with the reason (pytest's ``-rs``, in the default addopts,
prints it), except in CI (``CI`` set to anything but "" / "0" / "false"), where a missing folder fails the test:
CI must run them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared folder (see the module docstring); the first candidate that exists, else the last tried."""
    env = os.environ.get("TABLEWATCH_SHARED")
    if env:
        return Path(env).expanduser().resolve()
    candidates = [REPO / "shared", REPO.parent / "shared"]
    return next((c for c in candidates if c.is_dir()), candidates[-1])


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


SHARED = shared_dir()
REAL = SHARED / "data" / "real"


def real(*parts: str) -> Path:
    """A path under shared/data/real: skips the test (fails it in CI) when the shared folder is absent. A file
    missing from a shared folder that is there is the test's to fail on."""
    if REAL.is_dir():
        return REAL.joinpath(*parts)
    why = (f"the real photos are not here: {REAL} is missing (put the shared folder at {REPO.parent / 'shared'} "
           f"or {REPO / 'shared'}, or point TABLEWATCH_SHARED at it)")
    if in_ci():
        pytest.fail(f"{why}; CI must run the real-photo tests", pytrace=False)
    pytest.skip(why)


def board_view(layout: dict, H_board_to_frame, frame_size=(1600, 1200), px_per_mm: float = 3.0, background=(90, 110, 130)):
    """A synthetic camera frame: the rendered board warped into the frame by the homography (board mm -> px)."""
    import cv2

    from calibration.render import render_board

    board = render_board(layout, px_per_mm)
    S = np.diag([px_per_mm, px_per_mm, 1.0])
    S[0, 2] = S[1, 2] = -0.5
    M = np.asarray(H_board_to_frame, np.float64) @ np.linalg.inv(S)
    frame = np.empty((frame_size[1], frame_size[0], 3), np.uint8)
    frame[:] = background
    return cv2.warpPerspective(board, M, frame_size, dst=frame, borderMode=cv2.BORDER_TRANSPARENT, flags=cv2.INTER_AREA)


def homography_looking_at(layout: dict, frame_size=(1600, 1200), fill: float = 0.8, tilt: float = 0.0, angle_deg: float = 0.0, shift=(0.0, 0.0)):
    """A board mm -> px homography that centres the board in the frame, turned and with some perspective."""
    w, h = layout["size_mm"]
    fw, fh = frame_size
    s = fill * min(fw / w, fh / h)
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    T0 = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1.0]])
    P = np.array([[1, 0, 0], [0, 1, 0], [0, tilt / h, 1.0]])
    T1 = np.array([[s, 0, fw / 2 + shift[0]], [0, s, fh / 2 + shift[1]], [0, 0, 1.0]])
    return T1 @ P @ R @ T0


def cover_marker(frame, H, marker: dict, colour=(90, 110, 130)):
    """Paint over a marker (and its quiet zone) in a frame, as a hand or a piece would."""
    import cv2

    from calibration.layout import marker_corners_mm
    from vision.locate import apply_h

    c = np.array(marker_corners_mm(marker))
    centre = c.mean(0)
    px = apply_h(H, centre + (c - centre) * 1.5)
    cv2.fillConvexPoly(frame, np.round(px).astype(np.int32), colour)
    return frame
