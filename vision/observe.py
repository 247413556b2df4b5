"""From one camera frame to an Observation: locate boards -> settle -> rectify -> detect -> assign to regions.

Owns ``Observer`` (per-frame work with per-board caches and the stage timings), ``RegionReader`` (the region
assignment of ``vision.assign`` generalised to every region kind of every board, without changing it) and the
rule for when an Observation is emitted.

Per frame:
1. **locate**: markers once for the frame (remembered from the last full search while the picture around every
   marker is unchanged: ``vision.markers.MarkerMemory``), each board fitted (``vision.locate``), smoothed and
   move-flagged by ``vision.pose.BoardPoseFilter``. A board not found is read with its last pose only while its
   markers are covered and its view has not changed (``vision.settle``).
2. **settle**: each board's low-res rectified view goes through ``vision.settle.Settler``; a board with a hand,
   a foreign object or motion over it is not read (its reason lands in ``boards_unread``).
3. **rectify + detect**: a settled board whose view changed since its last read is rectified at a whole multiple
   of the detector's scale (the detector then shrinks it with INTER_AREA, as in training) and run through the
   detector (``vision.detect.Detector``); unchanged boards reuse their last readings.
4. **assign**: one reading per region (``"<board>/<region>"``): productive areas -> their occupant (one piece);
   every other region -> the pieces standing in it (a stack shows as one piece, hidden disks are not counted).
   Regions partly outside the picture, or on the black border that lens correction leaves inside it, are not read
   at all (an absent key is "not read", never "empty"); so are regions under another board lying on this one
   (``vision.overlap``: which board is on top comes from the markers each hides). Tile
   slots and progress spaces (``vision.tiles.TILE_KINDS``) also get ``"#tile"`` readings from ``vision.tiles.read_tiles``
   when that module is installed (a progress space: the bought tile face up, its level's back, or None): the slots
   are rectified again at the tile gallery's scale (``TILE_VIEW_PX_PER_MM``), whatever scale the detector reads the
   board at, as long as the camera itself resolves a tile's name (``TILE_MIN_CAMERA_PX_PER_MM``). Resource
   spaces take their count from the resource counter (``vision.counts``, the board rectified at
   ``COUNT_PX_PER_MM``): a pile of small pieces is counted where the detector finds only some of them. A
   top-of-stack region (a totem circle) also gets a ``"#changed"`` reading (``vision.stacks``): whether the stack
   looks different since the board's last emitted observation, as a piece put on its own colour's top shows.

Four corrections between the detector and the regions (``read_board``): a piece whose class cannot lie in its
region takes the likeliest class that can (``vision.assign.fit_classes``: a standing warrior on a tile slot is an
action marker); a standing warrior found twice (its base and, off-centre, its head a few mm away) is one piece
(``merge_tall_duplicates``); a piece lying grey side up shows no colour, so on a board whose coloured pieces are
all one player's (a village board) it takes that colour (``colour_grey_pieces``), with its region's confidence
capped at ``OWNER_CONFIDENCE``; and a woman or hunter lying grey side up (``READ_SIDES``) is read again from its
printed face (``vision.tokens.reread_tokens``, rectified at the token gallery's scale when the camera gives at
least ``TOKEN_MIN_CAMERA_PX_PER_MM``): on that side they differ only by a few mm of ink.

Confidence per reading: the lowest detector score among the region's pieces, lowered by near-miss detections
(score between ``low_threshold`` and the card's threshold) in the region and by pieces lying on the region's
border, and capped by the board's image quality (resolution, focus).

A table profile (``assistant.table.profile.TableProfile``) whose ``adapted/`` folder holds a card (``tablewatch
adapt``, docs/adapt.md) changes four readers for that table: the detector's outputs go through the profile's
table head, the resource counter's probabilities through its recalibration, and the tile and token galleries
gain the owner's own crops (``load_adaptation``). No profile, or a profile never adapted, reads as without one.
``Observer.read_view`` reads a stored rectified view (a harvested look) with the same code as a camera frame.

An Observation is emitted when a board was read with readings that differ from those last emitted and no board
is under a hand or in motion (so one physical move arrives as one observation), or when such a change has waited
``hold_s`` seconds. The first one (the set-up look, or a new game's first look) does not wait for a board held
back by something lying still on it (a skin-coloured print at its edge, a hand resting there: `hand` or
`foreign object` with a view unchanged for ``still_s``): play may begin before that board is read, and it is read
in a later look.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np

from assistant.errors import UserError
from assistant.table.observation import Observation, Reading, piece_key, pieces, reading_key
from calibration.layout import polygon_area
from calibration.render import render_board
from vision import quality as Q
from vision import settle as S
from vision.assign import RegionIndex, fit_classes, region_pieces
from vision.counts import COUNT_PX_PER_MM, Counter, CountHead, count_regions, counted_kinds, counted_reading, read_counts
from vision.detect import Detections, Detector, TableHead
from vision.locate import MIN_MARKERS_TRACKED, apply_h, locate_board, rectify, view_matrix
from vision.markers import DETECT_LONG_SIDE, MarkerMemory
from vision.overlap import covering, visible_mask
from vision.pose import BoardPoseFilter
from vision.stacks import StackWatch
from vision.tiles import DEFAULT_GALLERY as DEFAULT_TILE_GALLERY
from vision.tiles import TILE_KINDS, TileGallery, read_tiles
from vision.tokens import READ_SIDES, TOKEN_MIN_CAMERA_PX_PER_MM, reread_tokens
from vision.tokens import load_default as load_token_gallery

OCCUPIED_KINDS = ("productive_area",)
SKIP_KINDS = ("colour_spot",)  # calibration spots are not game regions
MARKER_FULL_RES = 2400  # frames up to this long side are searched for markers at full resolution (small markers)
BORDER_MM = 2.5  # a piece this close to a region border makes both readings less sure


class RegionReader:
    """Point -> region over all of a layout's regions, and readings from detected pieces.

    Productive areas keep ``vision.assign``'s rule (occupant = a piece within ``occupant_mm`` of the area's
    centre); every other kind of region counts the pieces inside it, the smallest region holding the point
    winning (a village slot inside nothing, a score space, a territory around its productive areas)."""

    def __init__(self, layout: dict, occupant_mm: float = 8.0):
        self.layout = layout
        self.board = layout["name"]
        self.index = RegionIndex(layout, occupant_mm)
        regs = [r for r in layout["regions"] if r.get("kind") not in SKIP_KINDS]

        counted = [(r["id"], np.asarray(r["polygon"], np.float32)) for r in regs if r.get("kind") not in OCCUPIED_KINDS]
        counted.sort(key=lambda it: polygon_area(it[1].tolist()))
        self.index.counted = counted  # all non-occupied kinds, smallest first
        self.occupied = set(self.index.occupied_ids)
        self.region_ids = [r["id"] for r in regs]
        self.polygons = {r["id"]: np.asarray(r["polygon"], np.float64) for r in regs}
        self.tile_slots = [r["id"] for r in regs if r.get("kind") in TILE_KINDS]
        self.allowed = region_pieces(layout.get("game"))  # region kind -> the piece classes it can hold

    def region_of(self, x: float, y: float) -> str | None:
        return self.index.region_of(x, y)

    def border_distance(self, rid: str, x: float, y: float) -> float:
        import cv2

        poly = self.polygons[rid].astype(np.float32).reshape(-1, 1, 2)
        return abs(float(cv2.pointPolygonTest(poly, (float(x), float(y)), True)))

    def readings(self, detections, threshold: float, visible: set[str] | None = None, quality: float = 1.0,
                 real_share=None) -> dict[str, Reading]:
        """{reading key: Reading} for every (visible) region from ``vision.detect.Detections``. Detections
        below ``threshold`` are near misses: not counted, but they lower the confidence of their region to the
        margin of the count without them over the count with them, 1 - 2p, where p is the share of detections of
        that score that are real pieces (``real_share(score)``: the detector card's measured calibration, see
        ``tablewatch eval scores``); without a calibration p is taken as the score. A near miss of 0.27 is a real
        piece 28 % of the time: the region reads 0.44 sure, not 0.73 (an action marker on a dark tile, a canoe
        beside two others, a disk at the edge of a stack, each missed look after look). That margin multiplies the
        region's confidence from the view's ``quality`` and its counted pieces, so that it still ranks the regions
        of a board whose quality caps them all."""
        counts: dict[str, dict[str, int]] = {rid: {} for rid in self.region_ids}
        conf: dict[str, float] = {rid: quality for rid in self.region_ids}
        missed: dict[str, float] = {}  # region -> the margin its surest near miss leaves
        best: dict[str, float] = {}
        for p in detections:
            rid = self.region_of(p.x_mm, p.y_mm)
            if rid is None or rid not in counts:
                continue
            if p.score < threshold:
                real = real_share(p.score) if real_share is not None else None
                missed[rid] = min(missed.get(rid, 1.0), max(0.0, 1.0 - 2.0 * (p.score if real is None else real)))
                continue
            key = piece_key(p.cls, p.colour, p.side)
            if rid in self.occupied:
                if p.score > best.get(rid, -1.0):
                    best[rid] = p.score
                    counts[rid] = {key: 1}
                continue
            counts[rid][key] = counts[rid].get(key, 0) + 1
            c = min(1.0, p.score)
            if p.side == GREY_SIDE:  # its colour is not seen, only inferred (colour_grey_pieces)
                c = min(c, OWNER_CONFIDENCE)
            if rid not in self.occupied and self.border_distance(rid, p.x_mm, p.y_mm) < BORDER_MM:
                c *= 0.6
            conf[rid] = min(conf[rid], c)
        for rid, s in best.items():
            conf[rid] = min(conf[rid], s)
        for rid, m in missed.items():  # a doubt of its own beside the view's quality: both apply (a far camera caps
            conf[rid] *= m             # every region of a board at its quality, and a faint marker on one slot must
                                       # still leave that slot the least sure: e2e 3p s17)
        out = {}
        for rid in self.region_ids:
            if visible is not None and rid not in visible:
                continue
            out[reading_key(self.board, rid)] = Reading(pieces(counts[rid]), round(float(conf[rid]), 4))
        return out

    def visible_regions(self, H, frame_wh, valid=None) -> set[str]:
        """Regions whose whole polygon projects inside the frame (board mm -> px with H): its corners and the
        middles of its sides, and, with ``valid`` (uint8 mask of the frame's pixels the camera saw: an undistorted
        frame has black borders where no lens pixel maps), on seen pixels."""
        w, h = frame_wh
        out = set()
        for rid, poly in self.polygons.items():
            p = np.asarray(poly, float)
            q = apply_h(H, np.concatenate([p, (p + np.roll(p, -1, axis=0)) / 2]))
            if not ((q[:, 0] >= 0).all() and (q[:, 1] >= 0).all() and (q[:, 0] <= w - 1).all() and (q[:, 1] <= h - 1).all()):
                continue
            if valid is not None and not valid[np.round(q[:, 1]).astype(int), np.round(q[:, 0]).astype(int)].all():
                continue
            out.add(rid)
        return out


@dataclass
class FrameResult:
    """What one frame gave: an observation to feed (or None), every board's state, timings, messages."""

    index: int
    t: float
    observation: Observation | None
    boards: dict[str, str]  # board -> "read", "cached" or the reason it was not read
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    unknown_markers: list[int] = field(default_factory=list)  # marker ids in the frame that no layout uses
    markers_seen: dict[str, tuple[int, int]] = field(default_factory=dict)  # board not located -> (its markers seen, its markers)


def _load_tiles_reader():
    try:
        pass
    except ModuleNotFoundError as exc:
        if exc.name in ("vision.tiles",):
            return None
        raise
    return read_tiles


GREY_SIDE = "grey"  # a piece lying with its colour side down shows no colour
OWNER_MIN_PIECES = 2  # coloured pieces needed on a board before its grey pieces take their colour
OWNER_MIN_SHARE = 0.75  # ... and the share of them that must be of one colour
OWNER_CONFIDENCE = 0.9  # cap on the confidence of a region holding a grey piece coloured this way


def board_owner_colour(detections, threshold: float) -> str | None:
    """The colour of a board's owner when its visible, coloured pieces (of ``detections``, scoring ``threshold`` or
    more) are (almost) all one colour, else None."""
    counts: dict[str, int] = {}
    for p in Detections(detections).above(threshold):
        if p.side != GREY_SIDE and p.colour not in ("none", None):
            counts[p.colour] = counts.get(p.colour, 0) + 1
    if not counts:
        return None
    colour, n = max(counts.items(), key=lambda kv: kv[1])
    return colour if n >= OWNER_MIN_PIECES and n >= OWNER_MIN_SHARE * sum(counts.values()) else None


def colour_grey_pieces(detections, threshold: float) -> tuple[Detections, bool]:
    """Grey-side pieces show no colour, so the detector's colour for them is a guess. On a board whose coloured
    pieces are all one player's (a village board: its action markers and Long House warriors), a grey piece is
    that player's: it takes the board's owner colour. Elsewhere its colour is left as detected. Takes
    ``Detections`` (or any iterable of ``Piece``); returns a new Detections, in order, and whether any piece was
    recoloured."""
    owner = board_owner_colour(detections, threshold)
    if owner is None:
        return Detections(detections), False
    out, changed = [], False
    for p in detections:
        if p.side == GREY_SIDE and p.colour != owner:
            p = replace(p, colour=owner)
            changed = True
        out.append(p)
    return Detections(out), changed


TILE_VIEW_PX_PER_MM = 2.0  # tile slots are rectified at the gallery's scale, whatever scale the detector reads the board at
TILE_MIN_CAMERA_PX_PER_MM = 0.8  # below this the camera itself does not resolve a tile's name: tiles then come from the game's history
# Every read goes out with its runner-ups (``Reading.others``), weak ones too: on the six e2e games (camera at
# 0.85-1.2 px/mm, every 2nd settled frame) reads with a margin of 0.1 or more were 100 % right (3932 of 3932), weaker
# ones 69 % (366 of 532), but the true tile was never more than 0.27 behind them, which the tracker weighs
# (``assistant.wendake.evidence.TILE_EVIDENCE_CAP``); a weak read still says which tiles the slot does not hold.
TALL_MERGE_MM = {"warrior_standing": 9.0}  # same-class detections closer than this are one tall piece


def merge_tall_duplicates(detections) -> Detections:
    """A tall piece (a standing warrior, 19 mm high) seen off-centre shows its base and its head a few mm apart,
    and the detector may find both. Two detections of such a class closer than ``TALL_MERGE_MM`` (less than two
    bases side by side: pieces on the table stand at least a base apart) are one piece: the stronger is kept.
    Returns a new Detections, strongest first (a stable sort: equal scores keep their order)."""
    out: list = []
    for p in sorted(detections, key=lambda q: -q.score):
        r = TALL_MERGE_MM.get(p.cls)
        if r is not None and any(q.cls == p.cls and (q.x_mm - p.x_mm) ** 2 + (q.y_mm - p.y_mm) ** 2 < r * r for q in out):
            continue
        out.append(p)
    return Detections(out)


def check_layouts(layouts: list[dict]) -> None:
    """UserError unless there is at least one layout and each board is given once."""
    if not layouts:
        raise UserError("no board layouts given: pass --layout for every board on the table (e.g. wendake-map-4p).")
    names = [lay["name"] for lay in layouts]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise UserError(f"layout {sorted(dup)[0]} is given twice; give each board once.")


# the files of an adaptation folder (``TableProfile.adapted_dir``) the observer loads; docs/adapt.md
ADAPTED_CARD = "card.json"
DETECTOR_HEAD = "detector_head.npz"
COUNTER_HEAD = "counter_head.npz"
TILE_ADDITIONS = "tiles.npz"  # labels, vectors: the owner's slot crops (``vision.tiles.features``)
TOKEN_ADDITIONS = "tokens.npz"  # labels, templates: the owner's token faces


class Adaptation(NamedTuple):
    """What a table profile's adaptation changes; None / empty where it changes nothing."""

    folder: Path
    head: TableHead | None
    count_head: CountHead | None
    tiles: tuple  # (labels, vectors)
    tokens: tuple  # (labels, templates)


def _additions(path: Path, what: str) -> tuple:
    if not path.is_file():
        return ([], None)
    try:
        with np.load(path, allow_pickle=False) as z:
            return ([str(x) for x in z["labels"]], np.asarray(z[what], np.float32))
    except (OSError, KeyError, ValueError) as exc:
        raise UserError(f"{path} cannot be read ({exc}): run `tablewatch adapt` again, or `tablewatch adapt --rollback`.") from None


def load_adaptation(folder) -> Adaptation | None:
    """The adaptation in ``folder`` (a profile's ``adapted/``), or None when it holds no card. A file that cannot
    be read is a UserError."""
    folder = Path(folder)
    if not (folder / ADAPTED_CARD).is_file():
        return None
    head = TableHead.load(folder / DETECTOR_HEAD) if (folder / DETECTOR_HEAD).is_file() else None
    count_head = CountHead.load(folder / COUNTER_HEAD) if (folder / COUNTER_HEAD).is_file() else None
    return Adaptation(folder, head, count_head, _additions(folder / TILE_ADDITIONS, "vectors"),
                      _additions(folder / TOKEN_ADDITIONS, "templates"))


class _ViewLoc(NamedTuple):
    """What ``Observer.read_board`` asks of a board's location, for a stored view: its scale, no sharpness."""

    px_per_mm: float
    sharpness: float | None = None


@dataclass
class BoardView:
    """What the last read of one board saw: the rectified view, its scale and the detections (board mm)."""

    board: str
    image: np.ndarray  # BGR, rectified at ``px_per_mm``
    px_per_mm: float
    detections: Detections  # down to the low threshold
    t: float


class Observer:
    """Turns frames into Observations for a fixed set of board layouts. ``views`` keeps each board's last read
    (``BoardView``) for the tablet's board view; ``views_version`` counts reads."""

    def __init__(self, layouts: list[dict], detector=None, camera=None, settle: S.SettleConfig | None = None,
                 threads: int = 2, low_threshold: float = 0.15, hold_s: float = 2.0, max_view_scale: int = 2,
                 profile=None):
        check_layouts(layouts)
        self.layouts = {lay["name"]: lay for lay in layouts}
        self.camera = camera
        self.tracker = BoardPoseFilter(layouts, camera=None)  # frames are undistorted before locating
        self.marker_memory = MarkerMemory()
        self._board_missing = True
        ppm = (settle or S.SettleConfig()).px_per_mm
        self.settler = S.Settler(settle, art=self._art(layouts, ppm),
                                 markers={lay["name"]: S.marker_boxes(lay, ppm) for lay in layouts})
        self.readers = {n: RegionReader(lay) for n, lay in self.layouts.items()}
        self.stacks = StackWatch(layouts)
        self.detector = self._detector(detector, threads)
        self.threshold = float(self.detector.card.get("threshold", 0.3))
        self.low_threshold = min(low_threshold, self.threshold)
        self.hold_s = hold_s
        self.max_view_scale = max_view_scale
        self.read_tiles = _load_tiles_reader()
        self.cache: dict[str, dict[str, Reading]] = {}  # board -> readings at its last read
        self.emitted: dict[str, dict[str, Reading]] = {}  # board -> readings in the last emitted observation
        self.pending_since: float | None = None
        self.views: dict[str, BoardView] = {}
        self.views_version = 0
        self._t = 0.0
        self._maps = None
        self.notes: list[str] = []
        self.tokens = self._token_gallery()
        self.counter = self._counter(threads) if any(count_regions(lay) for lay in layouts) else None
        if self.read_tiles is None and any(r.tile_slots for r in self.readers.values()):
            self.notes.append("vision.tiles is not installed yet: village tile faces are not read (no '#tile' readings).")
        self.adaptation = self._adapt(profile) if profile is not None else None

    def _adapt(self, profile) -> Adaptation | None:
        """Load ``profile``'s adaptation (``load_adaptation``) into the readers; a broken one is left out with a
        note (the table is then read as without it)."""
        try:
            ad = load_adaptation(profile.adapted_dir)
            if ad is None:
                return None
            if ad.head is not None and hasattr(self.detector, "adapted"):
                self.detector = self.detector.adapted(ad.head)
            if ad.count_head is not None and self.counter is not None:
                self.counter = self.counter.adapted(ad.count_head)
            if ad.tokens[0] and self.tokens is not None:
                self.tokens = self.tokens.extended(*ad.tokens, source=f"{self.tokens.source} + {profile.name}")
            if ad.tiles[0] and self.read_tiles is not None:
                gallery = TileGallery.load(DEFAULT_TILE_GALLERY)
                self.read_tiles = partial(read_tiles, gallery=gallery.extended(*ad.tiles, source=f"{gallery.source} + {profile.name}"))
            return ad
        except UserError as exc:
            self.notes.append(f"the table profile {profile.name}'s adaptation is not used: {exc}")
            return None

    def _token_gallery(self):
        """The token gallery (``vision.tokens``), or None with a note when it cannot be loaded: the detector's
        woman / hunter classes then stand as detected."""
        try:
            return load_token_gallery()
        except UserError as exc:
            self.notes.append(f"token faces are not read again: {exc}")
            return None

    def _counter(self, threads: int):
        """The resource counter (``vision.counts``), or None with a note when it cannot be loaded: resource spaces
        then hold the detector's count."""
        try:
            return Counter.load(threads=threads)
        except UserError as exc:
            self.notes.append(f"resource spaces are counted by the piece detector alone: {exc}")
            return None

    @staticmethod
    def _art(layouts, px_per_mm: float) -> dict:
        return {lay["name"]: render_board(lay, px_per_mm) for lay in layouts}

    @staticmethod
    def _detector(detector, threads):
        if detector is None or isinstance(detector, str):
            return Detector(detector or "detector", threads=threads)
        return detector

    # ------------------------------------------------------------------------------------------ helpers

    def undistort(self, image):
        """The frame without lens distortion (maps computed once per frame size); as is without a camera."""
        import cv2

        if self.camera is None:
            return image
        h, w = image.shape[:2]
        if self._maps is None or self._maps[0] != (w, h):
            K, dist = self.camera
            m1, m2 = cv2.initUndistortRectifyMap(K, dist, None, K, (w, h), cv2.CV_16SC2)
            seen = cv2.remap(np.full((h, w), 255, np.uint8), m1, m2, cv2.INTER_NEAREST, borderValue=0)
            seen = cv2.erode(seen, np.ones((5, 5), np.uint8))  # the border's blend with black is not seen either
            self._maps = ((w, h), m1, m2, seen)
        return cv2.remap(image, self._maps[1], self._maps[2], cv2.INTER_LINEAR)

    def _seen_mask(self, image):
        """The pixels of an undistorted frame that the camera saw (None without lens correction)."""
        h, w = image.shape[:2]
        return self._maps[3] if self._maps is not None and self._maps[0] == (w, h) else None

    def _last_pose_in_view(self, name: str, H_last: dict, frame_wh) -> bool:
        H = H_last.get(name)
        if H is None:
            return False
        w, h = self.layouts[name]["size_mm"]
        c = apply_h(H, [[w / 2, h / 2]])[0]
        return 0 <= c[0] < frame_wh[0] and 0 <= c[1] < frame_wh[1]

    def _view_scale(self, name: str, loc_px_per_mm: float | None) -> float:
        """The scale a board is rectified at: a whole multiple of the detector's input scale for that board (up to
        ``max_view_scale``), so that the detector shrinks it with INTER_AREA, as in training."""
        r = self.detector.scale_for(*self.layouts[name]["size_mm"])
        k = 1 if not loc_px_per_mm else int(np.clip(np.ceil(loc_px_per_mm / r - 0.25), 1, self.max_view_scale))
        return r * k

    @staticmethod
    def _quality(loc) -> float:
        q = 1.0
        if loc is not None and loc.px_per_mm is not None and loc.px_per_mm < Q.MIN_PX_PER_MM:
            q = min(q, max(0.5, loc.px_per_mm / Q.MIN_PX_PER_MM))
        if loc is not None and loc.sharpness is not None and loc.sharpness < Q.MIN_SHARPNESS:
            q = min(q, 0.6)
        return q

    # ------------------------------------------------------------------------------------------ per frame

    def read_board(self, name: str, image, H, loc, timings: dict, covers=(), stacks: bool = True) -> dict[str, Reading]:
        """Rectify, detect and assign one board (image already undistorted); ``covers``: the frame polygons of
        boards lying on it (``vision.overlap``), whose regions are not read; ``stacks``: with the stacks' change
        readings (``vision.stacks``), a read of the live table."""
        lay = self.layouts[name]
        r = self._view_scale(name, loc.px_per_mm if loc is not None else None)
        t0 = time.perf_counter()
        view = rectify(image, H, lay, r)
        t1 = time.perf_counter()
        reader = self.readers[name]
        dets = self.detector.detect(view, r, threshold=self.low_threshold)
        dets = fit_classes(dets, reader.region_of, reader.index.kind, reader.allowed, self.detector.card["classes"])
        dets, _ = colour_grey_pieces(merge_tall_duplicates(dets), self.threshold)
        cam = loc.px_per_mm if loc is not None and loc.px_per_mm is not None else r
        if self.tokens is not None and cam >= TOKEN_MIN_CAMERA_PX_PER_MM:
            dets, _ = reread_tokens(self.tokens, image, H, dets, READ_SIDES)
        t2 = time.perf_counter()
        frame_wh = (image.shape[1], image.shape[0])
        seen = visible_mask(covers, frame_wh, self._seen_mask(image)) if len(covers) else self._seen_mask(image)
        visible = reader.visible_regions(H, frame_wh, seen)
        out = reader.readings(dets, self.threshold, visible, self._quality(loc), getattr(self.detector, "real_share", None))
        views = {r: view}  # the board rectified at each scale a reader wants, each made once

        def view_at(scale: float):
            if scale not in views:
                views[scale] = rectify(image, H, lay, scale)
            return views[scale]

        if self.read_tiles is not None and reader.tile_slots and cam >= TILE_MIN_CAMERA_PX_PER_MM:
            try:
                tr = max(r, TILE_VIEW_PX_PER_MM)
                pieces = [(d.x_mm, d.y_mm) for d in dets.above(self.threshold)]  # a marker hides part of a name
                tiles = self.read_tiles(view_at(tr), tr, lay, pieces=pieces)
            except UserError as exc:  # e.g. no tile gallery installed: go on without tile faces, say so once
                self.read_tiles = None
                self.notes.append(f"village tile faces are not read: {exc}")
                tiles = {}
            for slot, read in tiles.items():
                if slot in visible:
                    out[reading_key(name, slot, tile=True)] = Reading(read.value, round(float(read.confidence), 4), read.others)
        if self.counter is not None and count_regions(lay):
            q = self._quality(loc)
            kinds = counted_kinds(lay, self.counter)
            for rid, read in read_counts(view_at(COUNT_PX_PER_MM), COUNT_PX_PER_MM, lay, self.counter, visible).items():
                key = reading_key(name, rid)
                out[key] = counted_reading(out.get(key), read, self.counter.max_count, q, kinds,
                                           self.counter.trained_max.get(read.piece))
        if stacks and self.stacks.regions.get(name):  # a board with stacks to watch
            spots = {reader.region_of(d.x_mm, d.y_mm): (d.x_mm, d.y_mm) for d in sorted(dets.above(self.threshold), key=lambda d: d.score)}
            out.update(self.stacks.read(name, image, H, visible, self._quality(loc), spots))
        t3 = time.perf_counter()
        self.views[name] = BoardView(name, view, r, dets, self._t)
        self.views_version += 1
        timings["rectify"] = timings.get("rectify", 0.0) + (t1 - t0) * 1000
        timings["detect"] = timings.get("detect", 0.0) + (t2 - t1) * 1000
        timings["assign"] = timings.get("assign", 0.0) + (t3 - t2) * 1000
        return out

    def read_view(self, name: str, view, px_per_mm: float) -> dict[str, Reading]:
        """The readings of one board from a stored rectified view of it (BGR at ``px_per_mm``, as
        ``BoardView`` keeps it and a harvested look stores it), read as ``read_board`` reads a frame: the view
        stands for the frame, board mm -> view pixels for its pose."""
        if name not in self.layouts:
            raise UserError(f"board {name} is not one of this observer's layouts ({', '.join(sorted(self.layouts))}).")
        return self.read_board(name, view, view_matrix(px_per_mm), _ViewLoc(float(px_per_mm)), {}, stacks=False)

    def process(self, index: int, t: float, image) -> FrameResult:
        """One frame (BGR) -> FrameResult. Never raises for what the camera shows."""
        timings: dict[str, float] = {}
        warnings: list[str] = []
        self._t = t
        t0 = time.perf_counter()
        img = self.undistort(image)
        dicts = {m["dictionary"] for lay in self.layouts.values() for m in lay["markers"]}
        markers = self.marker_memory.find(img, dicts, max(DETECT_LONG_SIDE, min(max(img.shape[:2]), MARKER_FULL_RES)), t,
                                          self._board_missing)
        H_last = self.tracker.last_homographies()
        locs = {name: locate_board(lay, markers, img.shape, None, H_last.get(name), img) for name, lay in self.layouts.items()}
        fitted = [loc for loc in locs.values() if loc.method == "fit"]
        if fitted:  # a board never seen, with two markers in view: fitted on the table of the best-seen board
            plane = max(fitted, key=lambda loc: len(loc.markers_used)).homography
            for name, loc in locs.items():
                if not loc.found and H_last.get(name) is None and len(loc.markers_seen) >= MIN_MARKERS_TRACKED:
                    locs[name] = locate_board(self.layouts[name], markers, img.shape, None, None, img, plane_H=plane)
        for loc in locs.values():
            self.tracker.observe(loc)
        self._board_missing = not all(loc.found for loc in locs.values())
        known = {(m["dictionary"], m["id"]) for lay in self.layouts.values() for m in lay["markers"]}
        unknown = sorted(i for (d, i) in markers if (d, i) not in known)
        t1 = time.perf_counter()
        timings["locate"] = (t1 - t0) * 1000

        frame_wh = (img.shape[1], img.shape[0])
        states: dict[str, str] = {}
        verdicts: dict[str, tuple] = {}
        poses: dict[str, object] = {}
        resting: set[str] = set()  # held back by something lying still over it (waiting will not free it)
        cfg = self.settler.config
        for name, lay in self.layouts.items():
            loc = locs[name]
            if loc.found:
                H, last_pose = loc.homography, False
            elif self._last_pose_in_view(name, H_last, frame_wh):
                H, last_pose = H_last[name], True
            else:
                v = self.settler.unseen(name, t, covered=False)
                states[name] = v.reason
                continue
            poses[name] = H
            small = rectify(img, H, lay, cfg.px_per_mm)
            v = self.settler.update(name, small, t, last_pose=last_pose)
            warnings += v.warnings
            if not v.settled:
                states[name] = v.reason
                if v.reason in (S.HAND, S.FOREIGN) and v.still_s >= cfg.still_s:
                    resting.add(name)
                continue
            verdicts[name] = (H, loc if loc.found else None, small, v)
        timings["settle"] = (time.perf_counter() - t1) * 1000
        covers, overlaps = covering(self.layouts, poses, {n: set(loc.markers_seen) for n, loc in locs.items()}, frame_wh)
        warnings += overlaps

        for name, (H, loc, small, v) in verdicts.items():
            if v.changed or name not in self.cache:
                self.cache[name] = self.read_board(name, img, H, loc, timings, covers.get(name, ()))
                self.settler.mark_read(name, small)
                states[name] = "read"
            else:
                states[name] = "cached"
        obs = self._maybe_emit(index, t, states, warnings, resting)
        seen = {name: (len(loc.markers_seen), len(self.layouts[name]["markers"])) for name, loc in locs.items() if not loc.found}
        return FrameResult(index, t, obs, states, {k: round(v, 2) for k, v in timings.items()}, warnings, unknown, seen)

    def _maybe_emit(self, index: int, t: float, states: dict[str, str], warnings: list[str],
                    resting: set[str] = frozenset()) -> Observation | None:
        settled = [n for n, s in states.items() if s in ("read", "cached")]
        new = [n for n in settled if self.cache.get(n) != self.emitted.get(n)]
        if not new:
            self.pending_since = None
            return None
        busy = [n for n, s in states.items() if s in (S.HAND, S.MOTION, S.FOREIGN)]
        if not self.emitted:  # the first look does not wait for a board held back by something lying still on it
            busy = [n for n in busy if n not in resting]
        if busy:
            if self.pending_since is None:
                self.pending_since = t
            if t - self.pending_since < self.hold_s:
                return None
        self.pending_since = None
        readings: dict[str, Reading] = {}
        for n in settled:
            readings.update(self.cache[n])
            self.cache[n] = self.emitted[n] = self.stacks.emitted(n, self.cache[n])
        unread = {n: s for n, s in states.items() if s not in ("read", "cached")}
        return Observation(frame=index, t=t, readings=readings, boards_read=tuple(sorted(settled)), boards_unread=unread,
                           warnings=tuple(dict.fromkeys(warnings + self.notes)))
