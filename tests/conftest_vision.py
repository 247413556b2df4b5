"""Helpers shared by the vision and calibration tests: the real-photo folder and synthetic camera frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
REAL = SHARED / "data" / "real"


def real(*parts: str) -> Path:
    """A path under shared/data/real, skipping the test when the shared folder is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"the real photos are not here: {SHARED} is missing (CI checks out shared/ beside the repo)")
    return REAL.joinpath(*parts)


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
