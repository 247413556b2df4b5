"""Stack changes: whether a stack looks different since the last observation that read its board.

A camera above sees a stack's top only, yet a piece put on a stack whose top keeps its colour still changes how the
stack looks: the new piece stands at its own angle, and away from the camera's axis a taller stack leans further
out in the board's top-down view. ``StackWatch`` compares, for every region a layout marks ``"reading":
"top-of-stack"``, the frame around the region (rectified at ``PX_PER_MM``, ``MARGIN_MM`` beyond the region) with the
same place at the board's last emitted observation, after the best shift of up to ``SHIFT_MM`` (a board pose off by
a fraction of a mm, a stack nudged whole) and with each patch's median colour taken out (the room's light
drifting). Only the pixels within ``STACK_MM`` of the stack count (where a piece was detected in the region, then
or now; the region's centre when none was): a tent put down beside the circle is no change of the stack. More than
``CHANGED_MM2`` of them differing by ``LEVEL`` grey levels or more in some colour channel is a change. The reading
``"<board>/<region>#changed"`` (``assistant.table.observation.CHANGED``) is True or False, as sure as the changed
area is far from ``CHANGED_MM2`` (up to ``SURE``, capped by the board's image quality). Measured on the rendered
Iwari games: docs/pipeline.md, "Stack changes".

The watch keeps two sets of patches per board: those of its last read (``read``) and those of its last emitted
observation (``emitted``), which the next read is compared with.
"""

from __future__ import annotations

import cv2
import numpy as np

from assistant.table.observation import CHANGED, Reading
from vision.locate import view_matrix

PX_PER_MM = 2.0  # the patches' scale
MARGIN_MM = 12.0  # around the region: a stack at its circle's edge, leaning out of it
STACK_MM = 18.0  # the pixels that count: this close to the stack (a 14 mm block's corner, a tall stack's lean)
SHIFT_MM = 1.5  # the largest shift tried between the two patches
LEVEL = 40  # a pixel whose colour moved this many grey levels (in one channel) changed
CHANGED_MM2 = 40.0  # more changed area than this is a change (measured: docs/pipeline.md, "Stack changes")
SURE = 0.9  # the confidence of a reading far from CHANGED_MM2 (``confidence``)


def stack_regions(layout: dict) -> dict[str, tuple[float, float, float]]:
    """{region id: (centre x, centre y, radius) in board mm} of the layout's top-of-stack regions."""
    out = {}
    for r in layout["regions"]:
        if (r.get("attributes") or {}).get("reading") == "top-of-stack":
            pts = np.asarray(r["polygon"], np.float64)
            c = pts.mean(axis=0)
            out[r["id"]] = (float(c[0]), float(c[1]), float(np.max(np.hypot(*(pts - c).T))))
    return out


def patch(image, H, centre: tuple[float, float, float]) -> np.ndarray:
    """The undistorted frame around one region, seen from above at ``PX_PER_MM`` (float32 BGR, median removed)."""
    x, y, radius = centre
    half = radius + MARGIN_MM
    n = int(round(2 * half * PX_PER_MM))
    M = view_matrix(PX_PER_MM, (x - half, y - half)) @ np.linalg.inv(np.asarray(H, np.float64))
    p = cv2.warpPerspective(image, M, (n, n), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    p = cv2.GaussianBlur(p, (3, 3), 0).astype(np.float32)
    return p - np.median(p[::3, ::3].reshape(-1, p.shape[-1]), axis=0)  # the median of every third pixel: as good


def changed_mm2(before: np.ndarray, after: np.ndarray, near: np.ndarray | None = None) -> float:
    """The area (mm²) of the inner part of ``after`` that differs from ``before`` by ``LEVEL`` or more, ``before``
    shifted by up to ``SHIFT_MM`` to fit it best; only where ``near`` (a mask of that inner part) is set."""
    s = int(round(SHIFT_MM * PX_PER_MM))
    inner = np.ascontiguousarray(after[s:-s, s:-s])
    grey = cv2.COLOR_BGR2GRAY
    fit = cv2.matchTemplate(cv2.cvtColor(before, grey), cv2.cvtColor(inner, grey), cv2.TM_SQDIFF)  # fitted in grey
    dy, dx = np.unravel_index(int(np.argmin(fit)), fit.shape)
    h, w = inner.shape[:2]
    d = cv2.absdiff(np.ascontiguousarray(before[dy : dy + h, dx : dx + w]), inner)
    off = np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2]) >= LEVEL
    return float((off & near).sum() if near is not None else off.sum()) / PX_PER_MM**2


def near_mask(region: tuple[float, float, float], spots) -> np.ndarray:
    """The inner part of a region's patch (``changed_mm2``) within ``STACK_MM`` of any of ``spots`` (board mm)."""
    x, y, radius = region
    half = radius + MARGIN_MM
    n = int(round(2 * half * PX_PER_MM))
    s = int(round(SHIFT_MM * PX_PER_MM))
    c = (np.arange(s, n - s) + 0.5) / PX_PER_MM  # board mm of the inner pixels' centres, from the patch's corner
    out = np.zeros((len(c), len(c)), bool)
    for sx, sy in spots:
        out |= (c[:, None] + y - half - sy) ** 2 + (c[None, :] + x - half - sx) ** 2 <= STACK_MM**2
    return out


def confidence(area_mm2: float, quality: float = 1.0) -> float:
    """How sure a change reading is: 0 at ``CHANGED_MM2``, ``SURE`` from its own size away, capped by ``quality``."""
    return round(min(SURE, quality, abs(area_mm2 - CHANGED_MM2) / CHANGED_MM2), 4)


class StackWatch:
    """Per board, the patches of its top-of-stack regions at its last read and at its last emitted observation."""

    def __init__(self, layouts: list[dict]):
        self.regions = {lay["name"]: stack_regions(lay) for lay in layouts}
        # board -> region id -> (patch, where a piece was detected in the region or None)
        self.read_patches: dict[str, dict[str, tuple]] = {}
        self.emitted_patches: dict[str, dict[str, tuple]] = {}
        self.quality: dict[str, float] = {}  # board -> its image quality at its last read

    def read(self, board: str, image, H, visible: set[str], quality: float = 1.0, spots: dict | None = None) -> dict[str, Reading]:
        """The ``#changed`` readings of one read of ``board`` (the frame undistorted, ``H`` board mm -> its pixels):
        one per visible top-of-stack region that the last emitted observation read too. ``spots``: {region id:
        (x, y) board mm where a piece was detected in it}."""
        regions = self.regions.get(board) or {}
        spots = spots or {}
        now = {rid: (patch(image, H, c), spots.get(rid)) for rid, c in regions.items() if rid in visible}
        self.read_patches[board] = now
        self.quality[board] = quality
        before = self.emitted_patches.get(board, {})
        out = {}
        for rid, (p, spot) in now.items():
            if rid not in before or before[rid][0].shape != p.shape:
                continue
            where = [xy for xy in (spot, before[rid][1]) if xy is not None] or [regions[rid][:2]]
            area = changed_mm2(before[rid][0], p, near_mask(regions[rid], where))
            out[f"{board}/{rid}{CHANGED}"] = Reading(area > CHANGED_MM2, confidence(area, quality))
        return out

    def emitted(self, board: str, readings: dict[str, Reading]) -> dict[str, Reading]:
        """The board's last read went out in an observation: later reads compare with it. Returns its readings as a
        later observation repeats them while the board is not read again: every stack unchanged since."""
        if not self.regions.get(board):
            return readings
        if board in self.read_patches:
            self.emitted_patches[board] = {**self.emitted_patches.get(board, {}), **self.read_patches[board]}
        same = confidence(0.0, self.quality.get(board, 1.0))
        return {k: Reading(False, same) if k.endswith(CHANGED) else r for k, r in readings.items()}
