"""Per-board settle detection: may this board be read now?

A board is read only when no hand or arm is over it and it has been still for ``still_s`` (300 ms by default,
as e-boards do). Everything works on the board's rectified low-resolution view (``px_per_mm``, 0.5 by default:
a 700 x 500 mm map is 350 x 250 pixels), so a board that slides on the table does not look like motion.

Tests, in order, each giving the reason a board is left unread:
- ``out of view``: the board was not located and no earlier pose puts it in the picture;
- ``markers covered``: the board was not located but its last pose is known; it is read with that pose only
  while its view still matches the last settled view (nothing moved), else it waits;
- ``hand``: a large skin-coloured blob reaching in across the board's border (arms come from outside the board),
  or a very large one anywhere; skin test in YCrCb, counting only pixels that changed since the last settled view
  and are not skin-coloured in the printed art, so orange fields, red pieces or cream tiles do not trigger it.
  Static skin-coloured background is never a hand (``Settler._skin_hands``; docs/pipeline.md, "What counts as a
  hand"): a skin-coloured table showing along a side where the pose is a little off, a wooden piece near the edge
  that does not cross it, a skin-toned print around the board's spaces; a larger skin-coloured area lying exactly still
  for ``skin_accept_s`` (20 s) is read (with a warning), and pixels that read skin in most frames over that long
  (``skin_static_share``) are print or table even while hands come and go over the rest of the board, so nothing
  skin-coloured hides a board for a whole game.
  A small blob (fingers' size) that stays exactly the same for ``hand_accept_s`` (10 s; ``piece_accept_s``, 3 s,
  when it is no bigger than a game piece) is a piece lying across the edge, not a hand: the board is read (with a
  warning); without this a board never read before (no settled view to compare with) would wait for ever behind a
  wooden token at its corner, and a skin-coloured token put down at the edge would hold every later move back;
  An arm whose colour the skin test cannot tell from the board (a skin-toned board, a sleeve the colour of the
  print) is caught by its size instead: pixels changed since the last settled view (by more than a pixel's shift:
  ``_moved``), closed over
  ``arm_close_mm``, making one area of ``arm_mm2`` or more that reaches in from the edge (on the e2e games arms
  held still over a skin-toned village board made 5,000-16,600 mm²; piece moves at most 2,900 mm² there, on the
  mask board's turn-order track; an end of turn clearing every action marker changes more, but away from the edge),
  or a smaller solid one (``reach_in_mm2``, after ``solid_mm`` is eroded from it) that crosses the border itself
  and reaches ``hand_reach_mm`` in: fingers come from outside the board, pieces lie inside it. One
  lying still for ``foreign_accept_s`` is read (with a warning), so a large change at the edge cannot hold the
  board back for ever;
- ``foreign object``: a large non-skin blob that differs from the last settled view (a sleeve, a cup). One that
  stays still for ``foreign_accept_s`` is accepted as part of the table (with a warning);
- ``motion``: the view changed since the previous frame, or it has not been still for ``still_s`` yet.

Owns: ``SettleConfig``, ``BoardSettle`` (the verdict for one board and frame) and ``Settler`` (per-board state).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from calibration.layout import marker_corners_mm

SETTLED = "settled"
OUT_OF_VIEW = "out of view"
MARKERS_COVERED = "markers covered"
HAND = "hand"
FOREIGN = "foreign object"
MOTION = "motion"
REASONS = (OUT_OF_VIEW, MARKERS_COVERED, HAND, FOREIGN, MOTION)


@dataclass
class SettleConfig:
    still_s: float = 0.3  # the board must be unchanged for this long before it is read
    px_per_mm: float = 0.5  # scale of the low-res view the tests run on
    motion_level: int = 22  # grey-level difference (after a small blur) that counts as a changed pixel
    motion_mm2: float = 40.0  # changed area that counts as motion (a piece top is about 150 mm2)
    skin_change_level: int = 30  # a skin pixel must differ this much from the last settled view to be new
    hand_mm2: float = 400.0  # a new skin blob this big reaching in from the board's edge is a hand or fingers
    hand_inside_mm2: float = 9000.0  # a new skin blob this big is a hand even away from the edge (a tile is 3400)
    edge_mm: float = 6.0  # band along the board's edge left out of the hand test (table visible there)
    hand_reach_mm: float = 20.0  # a skin blob from the edge must reach this far in from the border to be a hand
    # (a cloth or wooden table showing along a side where the pose is a little off does not)
    print_holes: int = 4  # a skin blob enclosing this many spaces (each >= hand_mm2) is the board's print, not an arm
    arm_mm2: float = 4000.0  # a changed area this big reaching in from the edge is an arm, whatever its colour
    arm_close_mm: float = 14.0  # changed pixels this close together make one area (an arm's patchy difference)
    reach_in_mm2: float = 300.0  # a solid change this big crossing the border and reaching ``hand_reach_mm`` in
    # is a hand, whatever its colour (pieces lie inside the border; docs/pipeline.md, "A hand crossing the border")
    solid_mm: float = 4.0  # what is eroded from a change before it counts as solid (a view a few pixels off is not)
    foreign_level: int = 45  # difference from the last settled view that counts as foreign
    foreign_mm2: float = 7000.0  # a changed blob this big is not a piece move (a village tile is 3400 mm2)
    foreign_accept_s: float = 5.0  # a still foreign object is accepted after this long
    hand_accept_s: float = 10.0  # a small skin-coloured blob at the edge, unchanged this long, is a piece, not a hand
    hand_accept_mm2: float = 3000.0  # ... when it is at most this big (fingers; an arm reaching in is larger)
    piece_accept_s: float = 3.0  # ... and after this long when it is no bigger than a game piece (``piece_mm2``)
    piece_mm2: float = 800.0  # a swap or beaver token with its shadow and blur (552 mm2 in the e2e game 3p s1002)
    skin_accept_s: float = 20.0  # a larger skin-coloured area lying exactly still this long is the table or the board
    skin_static_share: float = 0.8  # pixels that read skin this often over ``skin_accept_s`` are the print or the table
    covered_match: float = 0.9  # view-to-last-settled correlation needed to read a board whose markers are covered


@dataclass
class BoardSettle:
    board: str
    settled: bool
    reason: str | None  # None when settled, else one of REASONS
    still_s: float = 0.0  # how long the view has been unchanged
    changed: bool = True  # differs from the view at the last read (a new reading is needed)
    warnings: list[str] = field(default_factory=list)
    blob_mm2: float = 0.0  # size of the blob behind "hand" / "foreign object"


def skin_mask(view_bgr: np.ndarray) -> np.ndarray:
    """uint8 mask of skin-coloured pixels (YCrCb box that holds light to dark skin under warm and cool light)."""
    import cv2

    ycc = cv2.cvtColor(view_bgr, cv2.COLOR_BGR2YCrCb)
    y, cr, cb = ycc[..., 0], ycc[..., 1], ycc[..., 2]
    m = (y > 35) & (cr >= 136) & (cr <= 180) & (cb >= 77) & (cb <= 132)
    return m.astype(np.uint8) * 255


def blobs(mask: np.ndarray, open_px: int = 1, margin: int = 0) -> list[tuple[int, bool]]:
    """(pixel area, touches the view's edge) of each connected blob of a mask, after an opening that removes specks.
    ``margin`` pixels along the edge are ignored (the table shows there when the pose is a little off); a blob
    reaching that band counts as touching the edge."""
    import cv2

    if margin > 0:
        mask = mask.copy()
        mask[:margin] = 0
        mask[-margin:] = 0
        mask[:, :margin] = 0
        mask[:, -margin:] = 0
    if open_px > 0:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * open_px + 1, 2 * open_px + 1))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape[:2]
    out = []
    for x, y, bw, bh, area in stats[1:]:
        m = margin + 1
        out.append((int(area), bool(x <= m or y <= m or x + bw >= w - m or y + bh >= h - m)))
    return out


def largest_blob(mask: np.ndarray, open_px: int = 1) -> int:
    """Pixel area of the largest connected blob of a mask, after an opening that removes specks."""
    return max((a for a, _ in blobs(mask, open_px)), default=0)


def _blur(view: np.ndarray) -> np.ndarray:
    """The small blur every comparison of views is made after (grey or colour)."""
    import cv2

    return cv2.GaussianBlur(view, (3, 3), 0)


def _grey(view: np.ndarray) -> np.ndarray:
    import cv2

    return _blur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view)


def _colour_changed(view_bgr: np.ndarray, read_colour: np.ndarray | None, level: int) -> int:
    """Pixels whose colour differs from the view at the last read by more than ``level`` in some channel: a blue
    piece put on a purple one changes no grey level (docs/pipeline.md, "What counts as a change")."""
    import cv2

    if read_colour is None or view_bgr.ndim != 3 or read_colour.shape != view_bgr.shape:
        return 0
    return int((cv2.absdiff(_blur(view_bgr), read_colour).max(axis=2) > level).sum())


def _moved(grey: np.ndarray, ref: np.ndarray, level: int) -> np.ndarray:
    """uint8 mask of the pixels that differ by more than ``level`` from every pixel of ``ref`` within one pixel
    (above its 3x3 maximum or below its 3x3 minimum): a view rectified with a pose a pixel off its reference's
    (a soft camera's marker corners; 2 mm at the settle scale) does not count as changed along every edge."""
    import cv2

    k = np.ones((3, 3), np.uint8)
    g = grey.astype(np.int16)
    up = g - cv2.dilate(ref, k).astype(np.int16)
    down = cv2.erode(ref, k).astype(np.int16) - g
    return ((up > level) | (down > level)).astype(np.uint8) * 255


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two grey images of the same size (1 = identical up to brightness)."""
    a = a.astype(np.float32).ravel()
    b = b.astype(np.float32).ravel()
    a -= a.mean()
    b -= b.mean()
    d = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / d) if d > 0 else 0.0


@lru_cache(maxsize=32)
def _border_distance(h: int, w: int) -> np.ndarray:
    """Each pixel's distance (pixels) to the nearest side of an h x w view."""
    yy = np.minimum(np.arange(h), np.arange(h)[::-1])[:, None]
    xx = np.minimum(np.arange(w), np.arange(w)[::-1])[None, :]
    return np.minimum(yy, xx)


def _holes(mask: np.ndarray, min_px: float) -> int:
    """How many holes of at least ``min_px`` pixels a blob (bool mask) encloses."""
    import cv2

    contours, hierarchy = cv2.findContours(mask.astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return 0
    return sum(1 for cnt, hier in zip(contours, hierarchy[0]) if hier[3] >= 0 and cv2.contourArea(cnt) >= min_px)


def marker_boxes(layout: dict, px_per_mm: float, pad_mm: float = 3.0) -> list[tuple[int, int, int, int]]:
    """View-pixel boxes (x0, y0, x1, y1) of a layout's markers with ``pad_mm`` of their white margin."""
    out = []
    for m in layout.get("markers", []):
        xs, ys = zip(*marker_corners_mm(m))
        box = (min(xs) - pad_mm, min(ys) - pad_mm, max(xs) + pad_mm, max(ys) + pad_mm)
        out.append(tuple(max(0, int(round(v * px_per_mm))) for v in box))
    return out


def marker_white(view_bgr: np.ndarray, boxes: list) -> np.ndarray | None:
    """The white of the markers' paper as this view shows it (BGR float): in each marker box the median colour of
    its brightest 30 % (the white cells and margin), then the median over the markers, so that a hand over one
    marker or glare on another does not move it. None without two markers in the view."""
    whites = []
    h, w = view_bgr.shape[:2]
    for x0, y0, x1, y1 in boxes:
        px = view_bgr[min(y0, h):min(y1, h), min(x0, w):min(x1, w)].reshape(-1, 3).astype(np.float32)
        if len(px) < 16:
            continue
        lum = px.sum(axis=1)
        whites.append(np.median(px[lum >= np.percentile(lum, 70)], axis=0))
    return np.median(np.array(whites), axis=0) if len(whites) >= 2 else None


@dataclass
class _State:
    prev: np.ndarray | None = None  # grey view of the previous frame
    still_since: float | None = None
    reference: np.ndarray | None = None  # BGR view at the last read (the last settled view)
    ref_grey: np.ndarray | None = None
    ref_skin: np.ndarray | None = None
    foreign_since: float | None = None
    hand_since: float | None = None  # since when the same hand-like blob has lain still
    hand_mm2: float | None = None  # its size
    arm_since: float | None = None  # since when an arm-sized change at the edge has lain still
    read_view: np.ndarray | None = None  # grey view when the board was last read
    read_colour: np.ndarray | None = None  # the same in colour (blurred BGR): a piece of another colour, same grey
    skin_avg: np.ndarray | None = None  # how often each pixel read skin lately (exponential average, 0..1)
    skin_since: float | None = None  # since when ``skin_avg`` has been kept
    skin_t: float | None = None  # its last update


class Settler:
    """Settle state of every board; ``update`` once per frame and board, ``mark_read`` after reading it."""

    def __init__(self, config: SettleConfig | None = None, art: dict | None = None, markers: dict | None = None):
        """``art``: {board: the board's printed art at ``px_per_mm``}; its skin-coloured parts (orange fields,
        wooden tones) never count as a hand, even before the first read. ``markers``: {board: the view boxes of its
        markers (``marker_boxes``)}: their white paper is the light's white reference (``balanced``)."""
        import cv2

        self.config = config or SettleConfig()
        self.boards: dict[str, _State] = {}
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        self.art_skin = {b: cv2.dilate(skin_mask(a), k) for b, a in (art or {}).items()}
        self.art_median = {b: np.median(a.reshape(-1, 3), axis=0).astype(np.float32) for b, a in (art or {}).items()}
        self.marker_boxes = {b: boxes for b, boxes in (markers or {}).items() if boxes}
        self.art_white = {b: w for b, a in (art or {}).items()
                          if (w := marker_white(a, self.marker_boxes.get(b, []))) is not None}

    def balanced(self, board: str, view_bgr: np.ndarray) -> np.ndarray:
        """The view with its colour cast removed: per-channel gains that bring the white of its markers' paper to
        the white they are printed with, so that a dark board art is not brightened into skin tones and a hand
        under a warm lamp is still a hand; where no marker white can be measured, gains that bring the view's
        median to the printed art's median."""
        ref, seen = self.art_white.get(board), marker_white(view_bgr, self.marker_boxes.get(board, []))
        if ref is None or seen is None:
            ref = self.art_median.get(board)
            if ref is None:
                return view_bgr
            seen = np.median(view_bgr.reshape(-1, 3), axis=0).astype(np.float32)
        gains = ref / np.maximum(seen, 8.0)
        return np.clip(view_bgr.astype(np.float32) * gains, 0, 255).astype(np.uint8)

    def reset(self, board: str | None = None) -> None:
        if board is None:
            self.boards.clear()
        else:
            self.boards.pop(board, None)

    def unseen(self, board: str, t: float, covered: bool) -> BoardSettle:
        """The board was not located in this frame (``covered``: its last pose is in the picture)."""
        st = self.boards.setdefault(board, _State())
        st.prev = None
        st.still_since = None
        return BoardSettle(board, False, MARKERS_COVERED if covered else OUT_OF_VIEW, changed=True)

    def update(self, board: str, view_bgr: np.ndarray, t: float, last_pose: bool = False) -> BoardSettle:
        """Verdict for one board from its low-res rectified view at time ``t`` (seconds).
        ``last_pose``: the view was warped with the last known pose because the markers are covered."""
        import cv2

        c = self.config
        mm2 = 1.0 / (c.px_per_mm * c.px_per_mm)  # board area of one view pixel
        st = self.boards.setdefault(board, _State())
        grey = _grey(view_bgr)
        if st.prev is None or st.prev.shape != grey.shape:
            moving = True
        else:
            diff = cv2.absdiff(grey, st.prev)
            moving = int((diff > c.motion_level).sum()) * mm2 > c.motion_mm2
        st.prev = grey
        if moving or st.still_since is None:
            st.still_since = t
        still = t - st.still_since
        changed = st.read_view is None or st.read_view.shape != grey.shape or \
            int((cv2.absdiff(grey, st.read_view) > c.motion_level).sum()) * mm2 > c.motion_mm2 or \
            _colour_changed(view_bgr, st.read_colour, c.motion_level) * mm2 > c.motion_mm2

        hands = self._skin_hands(board, st, view_bgr, grey, t)
        warnings: list[str] = []
        if hands:
            # a small one that stays exactly as it is for ``hand_accept_s`` is a piece lying across the edge
            # (a beaver token at the corner before the board was ever read), not fingers: hands move
            big = max(hands)
            same = st.hand_mm2 is not None and abs(big - st.hand_mm2) <= 0.15 * st.hand_mm2
            large = big > c.hand_accept_mm2  # arm-sized: only a view lying exactly still for long is the table
            if not same or st.hand_since is None or (large and moving):  # pieces may move elsewhere meanwhile
                st.hand_since = t
            st.hand_mm2 = big
            wait = c.piece_accept_s if big <= c.piece_mm2 else c.skin_accept_s if large else c.hand_accept_s
            if t - st.hand_since < wait:
                st.foreign_since = None
                return BoardSettle(board, False, HAND, still, changed, blob_mm2=big)
            warnings.append(f"something skin-coloured ({big:.0f} mm²) has lain still at the edge of {board} for "
                            f"{t - st.hand_since:.0f} s; it is read as part of the table. If it is a hand, lift it.")
        else:
            st.hand_since = st.hand_mm2 = None
        if last_pose:
            if st.ref_grey is None or st.ref_grey.shape != grey.shape or correlation(grey, st.ref_grey) < c.covered_match:
                return BoardSettle(board, False, MARKERS_COVERED, still, changed)
            warnings.append(f"the markers of {board} are covered: it is read with its last known position. Uncover them.")
        arm = self._arm_mm2(board, st, grey)
        if arm:
            if moving or st.arm_since is None:
                st.arm_since = t
            if t - st.arm_since < c.foreign_accept_s:
                st.foreign_since = None
                return BoardSettle(board, False, HAND, still, changed, blob_mm2=arm)
            warnings.append(f"something reaching in across the edge of {board} ({arm:.0f} mm²) has lain still for "
                            f"{t - st.arm_since:.0f} s; it is read as part of the table. If it is a hand or an arm, lift it.")
        else:
            st.arm_since = None

        # foreign object: a big change against the last settled view
        if st.ref_grey is not None and st.ref_grey.shape == grey.shape:
            big = largest_blob(_moved(grey, st.ref_grey, c.foreign_level), open_px=2) * mm2
            if big >= c.foreign_mm2:
                if moving or st.foreign_since is None:
                    st.foreign_since = t if st.foreign_since is None or moving else st.foreign_since
                if t - st.foreign_since < c.foreign_accept_s:
                    return BoardSettle(board, False, FOREIGN, still, changed, blob_mm2=big)
                warnings.append(f"something big has lain on {board} for {t - st.foreign_since:.0f} s; it is read as it is. "
                                "Take objects that are not game pieces off the boards.")
            else:
                st.foreign_since = None
        if moving or still < c.still_s:
            return BoardSettle(board, False, MOTION, still, changed, warnings)
        return BoardSettle(board, True, None, still, changed, warnings)

    def _static_skin(self, st: _State, skin: np.ndarray, t: float) -> np.ndarray:
        """The pixels that read skin in at least ``skin_static_share`` of the time over the last ``skin_accept_s``
        or more (an exponential average with that time constant): the board's own print or the table under it,
        however often hands come and go over the rest of the board. Empty until the average has been kept that
        long. A hand that stays on the same pixels that long is read through, as ``skin_accept_s`` says."""
        c = self.config
        now = (skin > 0).astype(np.float32)
        if st.skin_avg is None or st.skin_avg.shape != now.shape or st.skin_t is None or t < st.skin_t:
            st.skin_avg, st.skin_since, st.skin_t = now, t, t
        else:
            a = 1.0 - float(np.exp(-(t - st.skin_t) / c.skin_accept_s))
            st.skin_avg += a * (now - st.skin_avg)
            st.skin_t = t
        if t - st.skin_since < c.skin_accept_s:
            return np.zeros_like(skin)
        return (st.skin_avg >= c.skin_static_share).astype(np.uint8) * 255

    def _skin_hands(self, board: str, st: _State, view_bgr: np.ndarray, grey: np.ndarray, t: float) -> list[float]:
        """Areas (mm²) of the skin-coloured blobs that are hands: new skin (colours first balanced by the
        markers' white, ``balanced``: warm light is not skin) that is not the art's own, reaching in across the board's border, or
        very large anywhere once the board has a settled view. Static skin-coloured background is left out: the
        art's skin-coloured parts; after a read, all that was there at the read; blobs that do not cross the border
        (a wooden piece near the edge) or stay within ``hand_reach_mm`` of it (a cloth or wooden table showing
        along a side where the pose is a little off); blobs enclosing ``print_holes`` spaces or more (a
        skin-toned print around the board's spaces)."""
        import cv2

        c = self.config
        mm2 = 1.0 / (c.px_per_mm * c.px_per_mm)
        skin = skin_mask(self.balanced(board, view_bgr))
        art = self.art_skin.get(board)
        if art is not None and art.shape == skin.shape:
            skin = skin & cv2.bitwise_not(art)
        skin = skin & cv2.bitwise_not(self._static_skin(st, skin, t))
        read = st.reference is not None and st.reference.shape == view_bgr.shape
        link = skin  # what links a blob to the border: skin now, new or not, and after a read anything changed
        if read:
            new = (cv2.absdiff(grey, st.ref_grey) > c.skin_change_level).astype(np.uint8) * 255
            link = skin | new  # (a sleeve, an arm over a skin-coloured table in the band)
            skin = skin & new & cv2.bitwise_not(st.ref_skin)
        h, w = skin.shape
        margin = max(1, int(round(c.edge_mm * c.px_per_mm)))
        if h <= 2 * margin + 2 or w <= 2 * margin + 2:
            return []
        if cv2.countNonZero(skin) * mm2 < c.hand_mm2:
            return []
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        core = cv2.morphologyEx(skin, cv2.MORPH_OPEN, k)
        core[:margin] = 0
        core[-margin:] = 0
        core[:, :margin] = 0
        core[:, -margin:] = 0
        n, lab, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
        depth = _border_distance(h, w)
        reach = c.hand_reach_mm * c.px_per_mm
        out, edge = [], []
        for i in range(1, n):
            area = float(stats[i, 4]) * mm2
            if area < c.hand_mm2:
                continue
            if read and area >= c.hand_inside_mm2:
                out.append(area)
                continue
            bx, by, bbw, bbh = stats[i, :4]
            sub = lab[by:by + bbh, bx:bx + bbw] == i
            if depth[by:by + bbh, bx:bx + bbw][sub].max() >= reach and \
                    _holes(sub, c.hand_mm2 / mm2) < c.print_holes:  # a lattice around spaces is the board's print
                edge.append((area, bx, by, sub))
        if edge:  # does it cross the border: linked to the outermost pixels?
            whole = cv2.morphologyEx(link, cv2.MORPH_OPEN, k)
            _, lab_whole, st_whole, _ = cv2.connectedComponentsWithStats(whole, connectivity=8)
            x, y, bw, bh = st_whole[:, 0], st_whole[:, 1], st_whole[:, 2], st_whole[:, 3]
            crossing = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
            for area, bx, by, sub in edge:
                if crossing[lab_whole[by:by + sub.shape[0], bx:bx + sub.shape[1]][sub]].any():
                    out.append(area)
        return out

    def _arm_mm2(self, board: str, st: _State, grey: np.ndarray) -> float:
        """Area (mm²) of the largest change since the last settled view that is an arm or a hand whatever its
        colour, 0 when there is none. The change is closed over ``arm_close_mm``; an area of ``arm_mm2`` or more
        reaching in from the edge is one; so is a solid one (what is left after ``solid_mm`` is eroded from it: the
        thin lines of a view a few pixels off its reference are not) of ``reach_in_mm2`` or more that crosses the
        border itself and reaches ``hand_reach_mm`` in, leaving out the markers (a pose a few pixels off the
        reference's changes them, and the table along a side, together): pieces lie inside the border, a hand
        comes from outside."""
        import cv2

        c = self.config
        if st.ref_grey is None or st.ref_grey.shape != grey.shape:
            return 0.0
        mm2 = 1.0 / (c.px_per_mm * c.px_per_mm)
        new = _moved(grey, st.ref_grey, c.skin_change_level)
        k = max(3, int(round(c.arm_close_mm * c.px_per_mm)) | 1)
        new = cv2.morphologyEx(new, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        if not cv2.countNonZero(new):  # a still board: nothing changed since its last read
            return 0.0
        margin = max(1, int(round(c.edge_mm * c.px_per_mm)))
        arm = max((a for a, edge in blobs(new, margin=margin) if edge), default=0) * mm2
        if arm >= c.arm_mm2:
            return arm
        e = max(1, int(round(c.solid_mm * c.px_per_mm)))
        if not (new[: e + 1].any() or new[-e - 1 :].any() or new[:, : e + 1].any() or new[:, -e - 1 :].any()):
            return 0.0  # no change near the border: nothing crosses it
        solid = cv2.erode(new, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * e + 1, 2 * e + 1)))
        for x0, y0, x1, y1 in self.marker_boxes.get(board, []):
            solid[max(0, y0 - e) : y1 + e, max(0, x0 - e) : x1 + e] = 0
        n, lab, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
        depth = _border_distance(*solid.shape)
        reach = c.hand_reach_mm * c.px_per_mm
        best = 0.0
        for i in 1 + np.flatnonzero(stats[1:, 4] * mm2 >= c.reach_in_mm2):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            if area * mm2 <= best:
                continue
            d = depth[y:y + bh, x:x + bw][lab[y:y + bh, x:x + bw] == i]
            if d.min() <= e and d.max() >= reach:  # crosses the border (the erosion took ``e`` pixels off it)
                best = area * mm2
        return best

    def mark_read(self, board: str, view_bgr: np.ndarray) -> None:
        """The board was read from this view: it becomes the reference for the hand and foreign tests."""
        st = self.boards.setdefault(board, _State())
        st.reference = view_bgr.copy()
        st.ref_grey = _grey(view_bgr)
        st.ref_skin = skin_mask(self.balanced(board, view_bgr))
        st.read_view = st.ref_grey
        st.read_colour = _blur(view_bgr)
        st.foreign_since = st.arm_since = None
