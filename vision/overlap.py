"""Boards lying on one another: which board is on top where two overlap in the frame, and what of each is covered.

A board pushed half under another (the mask board over a score track, e2e 4p s1006 and s15) hides the spaces under
it: the detector finds nothing there, and a score disk it hides reads as "not where it should be". Pieces that cannot
be seen must not be read, so the regions under another board are left out of the readings like regions outside
the picture (``RegionReader.visible_regions``), and the players are told to move the boards apart.

Who is on top comes from the markers, which every board prints near its edges and middle: where board A's outline
covers one of board B's markers, that marker is found in the frame when B lies on top and missed when A does. A
marker of B found inside A's outline says B is on top; one missed there (while B was found by its other markers) says
A is. With no marker in the overlap, or markers that disagree (a hand, glare), neither board is read there.
"""

from __future__ import annotations

import numpy as np

from vision.locate import apply_h

GROW_MM = 3.0  # the top board's outline is grown by this much: its edge and shadow hide the lower board's space too
MIN_OVERLAP_PX2 = 25.0  # outlines touching over less than this many square pixels do not overlap


def outline_px(layout: dict, H, grow_mm: float = 0.0) -> np.ndarray:
    """A board's outline in the frame (4x2 float32), grown by ``grow_mm`` on every side (board mm -> px with H)."""
    w, h = layout["size_mm"]
    g = grow_mm
    return apply_h(H, [[-g, -g], [w + g, -g], [w + g, h + g], [-g, h + g]]).astype(np.float32)


def _marker_votes(layout: dict, H, seen: set, other: np.ndarray, frame_wh) -> tuple[int, int]:
    """(markers of this board inside ``other``'s outline that were found, those missed): votes for this board lying
    on top, and under. Missed markers count only when the board was found by others (a board read from its last
    pose, all markers missed, says nothing) and when they lie inside the frame."""
    import cv2

    found = missed = 0
    w, h = frame_wh
    for m in layout["markers"]:
        c = apply_h(H, [m["centre"]])[0]
        if cv2.pointPolygonTest(other.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) < 0:
            continue
        if m["id"] in seen:
            found += 1
        elif seen and 0 <= c[0] < w and 0 <= c[1] < h:
            missed += 1
    return found, missed


def covering(layouts: dict[str, dict], homographies: dict, seen: dict[str, set], frame_wh) -> tuple[dict[str, list], list[str]]:
    """({board: the frame polygons lying on it}, warnings) for the boards with a homography (board mm -> px).
    ``seen``: board -> the ids of its markers found in this frame."""
    import cv2

    names = sorted(n for n in homographies if homographies[n] is not None)
    plain = {n: outline_px(layouts[n], homographies[n]) for n in names}
    covers: dict[str, list] = {}
    warnings: list[str] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            area, _ = cv2.intersectConvexConvex(plain[a], plain[b])
            if area < MIN_OVERLAP_PX2:
                continue
            fa, ma = _marker_votes(layouts[a], homographies[a], seen.get(a, set()), plain[b], frame_wh)
            fb, mb = _marker_votes(layouts[b], homographies[b], seen.get(b, set()), plain[a], frame_wh)
            a_top, b_top = fa + mb, fb + ma
            if bool(a_top) != bool(b_top):
                top, under = (a, b) if a_top else (b, a)
                pairs = [(top, under)]
                warnings.append(f"{top} lies on {under}: the part of {under} under it is not read. "
                                "Move the boards apart.")
            else:
                pairs = [(a, b), (b, a)]
                warnings.append(f"{a} and {b} overlap: neither is read where they do. Move the boards apart.")
            for top, under in pairs:
                covers.setdefault(under, []).append(outline_px(layouts[top], homographies[top], GROW_MM))
    return covers, warnings


def visible_mask(covers: list, frame_wh, seen_mask=None):
    """The frame's pixels a board can be read on: those the camera saw (``seen_mask``, or all) less ``covers``."""
    import cv2

    w, h = frame_wh
    mask = seen_mask.copy() if seen_mask is not None else np.full((h, w), 255, np.uint8)
    cv2.fillPoly(mask, [np.round(c).astype(np.int32) for c in covers], 0)
    return mask
