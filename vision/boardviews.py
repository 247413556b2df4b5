"""The boards of one look as its readers saw them, and reading such views again.

The observer reads a board at several scales: the detector at its view scale (``BoardView.px_per_mm``, 1 px/mm for
a camera at about 1 px/mm), the tile reader at ``TILE_VIEW_PX_PER_MM`` and the resource counter at
``COUNT_PX_PER_MM`` (2 px/mm), each rectified from the frame. ``reader_views`` gives each board of a look once, at
the finest scale a reader of that board reads it at (``reader_scale``), rectified from the frame with the board's
pose: a village board at 2 px/mm holds the tile reader's and the counter's pixels exactly, and the detector's
view is that view shrunk by 2 (``vision.locate.rectify`` of a 2 px/mm view at 1 px/mm is its 2×2 box mean, as the
detector's own INTER_AREA shrinking). ``read_views`` reads such views through an observer as it reads a frame
(``Observer.read_board``), at the detector's scale of the look, so that a look read again is read as it was live.
Harvested looks (``vision.harvest``) store these views; the adaptation guard (``vision.pipeline.Pipeline.read_base``)
reads them with the base models.

A view here is ``(image BGR, its px/mm, the detector's px/mm)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from assistant.errors import UserError
from assistant.table.observation import Reading
from vision.counts import COUNT_PX_PER_MM, count_regions
from vision.locate import rectify, view_matrix
from vision.observe import TILE_VIEW_PX_PER_MM, Observer


class ViewScale(NamedTuple):
    """What ``Observer.read_board`` asks of a board's location for a stored view: the scale the camera gave, no
    sharpness."""

    px_per_mm: float
    sharpness: float | None = None


def reader_scale(observer: Observer, board: str, px_per_mm: float) -> float:
    """The finest scale ``observer``'s readers read ``board`` at when its detector reads it at ``px_per_mm``: the
    tile reader's on a board with tile slots, the counter's on a board with resource spaces, else the detector's."""
    scale = float(px_per_mm)
    if observer.readers[board].tile_slots and observer.read_tiles is not None:
        scale = max(scale, TILE_VIEW_PX_PER_MM)
    if observer.counter is not None and count_regions(observer.layouts[board]):
        scale = max(scale, COUNT_PX_PER_MM)
    return scale


def reader_views(observer: Observer, image, boards=None) -> dict[str, tuple[np.ndarray, float, float]]:
    """{board: (view, its px/mm, the detector's px/mm)} for ``boards`` (default: every board with a last read,
    ``Observer.views``): rectified from ``image`` (the last frame, BGR, as the camera gave it: undistorted here as
    the observer does) with the board's last pose at ``reader_scale``; the detector's last view itself where that
    is the finest scale, or where there is no frame or pose."""
    have = observer.views
    boards = sorted(have) if boards is None else [b for b in boards if b in have]
    poses = observer.tracker.last_homographies() if image is not None else {}
    frame = None
    out = {}
    for b in boards:
        v = have[b]
        scale = reader_scale(observer, b, v.px_per_mm)
        if scale <= v.px_per_mm or b not in poses:
            out[b] = (v.image, float(v.px_per_mm), float(v.px_per_mm))
            continue
        if frame is None:
            frame = observer.undistort(image)
        out[b] = (rectify(frame, poses[b], observer.layouts[b], scale), scale, float(v.px_per_mm))
    return out


def read_views(observer: Observer, views: dict) -> dict[str, Reading]:
    """The readings of ``views`` ({board: (view, its px/mm, the detector's px/mm)}, as ``reader_views`` gives them
    and harvested looks store them) through ``observer``: each view stands for the frame (board mm -> view pixels
    for its pose) and the camera's scale is the detector's, so the detector reads at the look's scale and every
    other reader at its own, from the view's pixels. UserError for a board the observer does not read."""
    out: dict[str, Reading] = {}
    for board, (view, px_per_mm, read_px_per_mm) in sorted(views.items()):
        if board not in observer.layouts:
            raise UserError(f"board {board} is not one of this observer's layouts ({', '.join(sorted(observer.layouts))}).")
        out.update(observer.read_board(board, view, view_matrix(px_per_mm), ViewScale(float(read_px_per_mm)), {}))
    return out
