"""Boards over time: smooth each board's homography across frames and say when a board has moved.

The tracker keeps, per board, the image positions of the board's 4 outer corners. A new measurement within
``move_mm`` of the kept one is blended in (exponential smoothing, weight ``alpha``); a bigger change means the
board moved: the new position replaces the old one at once and ``moved`` is set, with ``settled_frames`` counting
the frames since. The last homography also lets a board be found with only 2 markers (see vision.locate).
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.locate import apply_h, locate


@dataclass
class _Track:
    corners_px: object  # 4x2 image positions of the board's outer corners
    settled_frames: int = 0


class BoardPoseFilter:
    def __init__(self, layouts: list[dict], alpha: float = 0.3, move_mm: float = 3.0, camera=None):
        self.layouts = layouts
        self.alpha = alpha
        self.move_mm = move_mm
        self.camera = camera
        self.tracks: dict[str, _Track] = {}

    def _outline(self, name: str):
        import numpy as np

        lay = next(lay for lay in self.layouts if lay["name"] == name)
        w, h = lay["size_mm"]
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)

    def last_homographies(self) -> dict:
        import cv2
        import numpy as np

        out = {}
        for name, tr in self.tracks.items():
            out[name] = cv2.getPerspectiveTransform(self._outline(name).astype(np.float32), tr.corners_px.astype(np.float32))
        return out

    def update(self, frame) -> list:
        """Locate every board in the frame, smooth, and flag moves. Returns the BoardLocations."""
        locations = locate(frame, self.layouts, camera=self.camera, last=self.last_homographies())
        for loc in locations:
            self.observe(loc)
        return locations

    def observe(self, loc) -> None:
        """Fold one measurement into the board's track; rewrites loc.homography to the smoothed one."""
        import cv2
        import numpy as np

        if not loc.found:
            return
        outline = self._outline(loc.board)
        new_px = apply_h(loc.homography, outline)
        track = self.tracks.get(loc.board)
        if track is None:
            self.tracks[loc.board] = _Track(new_px)
            return
        # how far the kept corners are from the new ones, in board mm
        moved = np.linalg.norm(apply_h(np.linalg.inv(np.asarray(loc.homography)), track.corners_px) - outline, axis=1).max()
        loc.moved_mm = float(moved)
        if moved > self.move_mm:
            loc.moved = True
            track.corners_px = new_px
            track.settled_frames = 0
        else:
            track.corners_px = (1 - self.alpha) * track.corners_px + self.alpha * new_px
            track.settled_frames += 1
        H = cv2.getPerspectiveTransform(outline.astype(np.float32), track.corners_px.astype(np.float32))
        loc.homography = (H / H[2, 2]).tolist()

    def settled(self, name: str, frames: int = 5) -> bool:
        """True once the board has stayed put for ``frames`` frames."""
        track = self.tracks.get(name)
        return bool(track and track.settled_frames >= frames)
