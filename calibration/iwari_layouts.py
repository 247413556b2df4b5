"""The Iwari board layouts, generated as data: one schematic map board per built-in map, and the card display.

A map board comes from the map's topology in ``assistant/iwari/data/maps/<map>.json``, read as plain JSON (this
module imports no game package). Each territory fills a ``TERRITORY_MM`` square of its grid ``cell``, with
``GAP_MM`` of sea between cells; its totem circle sits in the middle, its tent spaces on a ring around it, and its
feat space in a corner. Connections are bands across the gap between their two territories. Region ids are the
map's: tent space ``S01``, totem circle ``totem.T01``, feat space ``feat.T01``, connection ``connection.7``
(``docs/layouts.md``). Paths are kept on each tent space (``attributes.paths``), the road's order on its spaces
(``attributes.road``), a connection's facts on its region. Where on the ring each tent space goes is chosen so
that paths are short and cross no other space.

The real maps' geometry is not in the text (I-NIT-6): these boards are SCHEMATIC stand-ins, said in every file.
The files in ``calibration/layouts/`` are written by ``python -m calibration.iwari_layouts``; a test checks that
they equal what this module generates.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

from calibration.layout import FORMAT, LAYOUTS_DIR, write_layouts
from calibration.render import draw_card, render_board

IWARI_DATA = Path(__file__).resolve().parents[1] / "assistant" / "iwari" / "data"
MAPS_DIR = IWARI_DATA / "maps"
EDITION_JSON = IWARI_DATA / "edition.json"
MAP_NAMES = ("standard", "floating-lands", "glacial-mass", "long-road")
COLOURS = ("tundra", "forest", "glaciers", "coast", "desert")  # I-COMP-1: the card colours are the terrains

# DICT_4X4_250's first 100 codes are DICT_4X4_100's (Wendake's boards use ids 0-83 of them), so ids from 100 up
# are codes no Wendake board prints, at the same 6 mm cells and the same least distance between codes (3 bits).
DICTIONARY = "DICT_4X4_250"
MARKER_IDS = {
    "iwari-standard": 100,
    "iwari-floating-lands": 110,
    "iwari-glacial-mass": 120,
    "iwari-long-road": 130,
    "iwari-display": 140,
}

TERRITORY_MM = 120.0
GAP_MM = 30.0
PITCH_MM = TERRITORY_MM + GAP_MM
MARGIN_MM = 50.0
MAP_MARKER_MM = 36.0
SMALL_MARKER_MM = 30.0
TENT_MM = 22.0  # tent space diameter
TOTEM_MM = 36.0  # totem circle diameter (the "large totem circle", I-COMP-4)
RING_MM = 38.0  # tent spaces' centres from the territory's centre
FEAT_MM = 16.0  # feat space side, in the territory's bottom-right corner
FEAT_INSET_MM = 6.0
BAND_MM = 24.0  # a connection band's width along the gap
BAND_CLEAR_MM = 10.0  # room kept between a band and a path or another band (where the gap allows)
CIRCLE_POINTS = 32

CARD_MM = (63.0, 88.0)  # card size: not in the text (I-NIT-4 says nothing of it either); a common card size
SLOT_MM = (69.0, 94.0)
DEFAULT_DISPLAY_SIZE = 5  # used only when the edition file gives none

PIECE_CLASSES = {"tent_space": ["tent"], "totem_circle": ["totem"], "feat_space": ["feat"], "connection": ["feat"]}
MAP_KINDS = ["tent_space", "totem_circle", "feat_space", "connection"]
DISPLAY_KINDS = ["display_slot", "play_space"]
# A turn's cards lie face up each on a play space of its own, printed like a display slot and read the same way
# (tile-face). A regular move plays up to 3 cards (I-TURN-1, MAX_CARDS in assistant/iwari/board.py); one space more
# lets a fourth card, paid beyond the three (an illegal move the tracker must see), lie on a space of its own too.
PLAY_SPACES = 4

SCHEMATIC_NOTE = (
    "SCHEMATIC: Tablewatch's own stand-in for the Iwari {what}. The real map's territories, tent spaces, paths, totem "
    "circles and connections are not in the text (I-NIT-6): this board keeps every structural rule of map "
    "{map!r} ({source}) and nothing of the retail art. Print it at 100% scale to play on it with real pieces; owners "
    "of the retail map can trace their own (docs/layouts.md). Piece classes: 'tent' on a tent space (one at most), "
    "'totem' on a totem circle (a stack, its top read), 'feat' on a feat space or a connection, each in a tribe "
    "colour ({tribes}: edition tribe_colours, I-TERM-1)."
)
DISPLAY_NOTE = (
    "SCHEMATIC: Tablewatch's card display for Iwari. {n} face-up display slots (display size: {size_source}), the "
    "deck, the discard pile, and the play area: {k} play spaces where a turn's cards lie face up, one card on each, "
    "on any spaces in any order, until the turn ends (edition 'discard', I-NIT-7; a regular move plays up to 3 "
    "cards, I-TURN-1). The card size ({cw:g} x {ch:g} mm) is not in the text: a common card size. Each display "
    "slot and play space is read as a printed face (tile-face) for the five card colours: {colours}."
)


def rect(x: float, y: float, w: float, h: float) -> list[list[float]]:
    return [
        [round(x, 2), round(y, 2)],
        [round(x + w, 2), round(y, 2)],
        [round(x + w, 2), round(y + h, 2)],
        [round(x, 2), round(y + h, 2)],
    ]


def circle(cx: float, cy: float, d: float, n: int = CIRCLE_POINTS) -> list[list[float]]:
    r = d / 2
    return [
        [round(cx + r * math.cos(2 * math.pi * k / n), 2), round(cy + r * math.sin(2 * math.pi * k / n), 2)] for k in range(n)
    ]


def marker(board: str, n: int, x: float, y: float, size: float) -> dict:
    return {"dictionary": DICTIONARY, "id": MARKER_IDS[board] + n, "centre": [x, y], "size": size, "rotation": 0}


def edge_markers(board: str, w: float, h: float, size: float, inset: float, mids: bool) -> list[dict]:
    """Markers at the 4 corners, and with ``mids`` at the middle of each edge too (ids counted from the top-left,
    clockwise), so the board stays found when hands cover a corner."""
    out = [
        marker(board, 0, inset, inset, size),
        marker(board, 1, w - inset, inset, size),
        marker(board, 2, w - inset, h - inset, size),
        marker(board, 3, inset, h - inset, size),
    ]
    if mids:
        out += [
            marker(board, 4, w / 2, inset, size),
            marker(board, 5, w - inset, h / 2, size),
            marker(board, 6, w / 2, h - inset, size),
            marker(board, 7, inset, h / 2, size),
        ]
    return out


def read_map(name: str) -> dict:
    """The built-in map ``name``'s JSON (topology, cells, provenance)."""
    return json.loads((MAPS_DIR / f"{name}.json").read_text(encoding="utf-8"))


def tribe_colours() -> list[str]:
    return list(json.loads(EDITION_JSON.read_text(encoding="utf-8"))["tribe_colours"]["value"])


def display_size() -> tuple[int, str]:
    """(the edition's display size, where it comes from) (I-NIT-4); ``DEFAULT_DISPLAY_SIZE`` without one."""
    try:
        display = json.loads(EDITION_JSON.read_text(encoding="utf-8"))["display"]
        return int(
            display["size"]
        ), f"{display['size']}, edition data 'display', source {display.get('source', 'unknown')} (I-NIT-4)"
    except (OSError, KeyError, TypeError, ValueError):
        return DEFAULT_DISPLAY_SIZE, f"{DEFAULT_DISPLAY_SIZE}, a stand-in: the edition data gives none (I-NIT-4)"


# ---------------------------------------------------------------------------------------------------- map


def _territory_box(cell) -> tuple[float, float]:
    """Top-left corner (mm) of the territory in grid cell [row, column]."""
    r, c = cell
    return MARGIN_MM + c * PITCH_MM, MARGIN_MM + r * PITCH_MM


def _centre(cell) -> tuple[float, float]:
    x, y = _territory_box(cell)
    return x + TERRITORY_MM / 2, y + TERRITORY_MM / 2


def _ring_order(spaces: list[str], inner: list[tuple[str, str]]) -> tuple[list[str], bool]:
    """The territory's spaces in ring order and whether the inner paths close a cycle: a chain is walked from its
    first end, a cycle from its first space; any other inner graph keeps the ids' order."""
    nbrs: dict[str, list[str]] = {s: [] for s in spaces}
    for a, b in inner:
        nbrs[a].append(b)
        nbrs[b].append(a)
    degrees = [len(v) for v in nbrs.values()]
    if len(spaces) < 2 or max(degrees) > 2:
        return sorted(spaces), False
    ends = sorted(s for s in spaces if len(nbrs[s]) == 1)
    cycle = not ends and len(inner) == len(spaces)
    if not cycle and (len(ends) != 2 or len(inner) != len(spaces) - 1):
        return sorted(spaces), False
    order = [ends[0] if ends else sorted(spaces)[0]]
    while len(order) < len(spaces):
        nxt = sorted(n for n in nbrs[order[-1]] if n not in order)
        if not nxt:
            return sorted(spaces), False
        order.append(nxt[0])
    return order, cycle


def _seg_point_dist(p, a, b) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def _clashes(
    segments, pos: dict[str, tuple[float, float]], near: list[str], obstacles: list[tuple[tuple[float, float], float]]
) -> int:
    """How many (segment, circle) pairs meet: a path crossing a tent space it does not end at (among ``near``), or
    one of the ``obstacles`` ((centre, reach): the totem circles and feat spaces)."""
    n = 0
    reach_t = TENT_MM / 2 + 1.5
    for a, b in segments:
        pa, pb = pos[a], pos[b]
        lo_x, hi_x = min(pa[0], pb[0]), max(pa[0], pb[0])
        lo_y, hi_y = min(pa[1], pb[1]), max(pa[1], pb[1])
        for s in near:
            p = pos[s]
            if s in (a, b) or p[0] < lo_x - reach_t or p[0] > hi_x + reach_t or p[1] < lo_y - reach_t or p[1] > hi_y + reach_t:
                continue
            if _seg_point_dist(p, pa, pb) < reach_t:
                n += 1
        for p, reach in obstacles:
            if p[0] < lo_x - reach or p[0] > hi_x + reach or p[1] < lo_y - reach or p[1] > hi_y + reach:
                continue
            if _seg_point_dist(p, pa, pb) < reach:
                n += 1
    return n


def _close_pairs(pos: dict[str, tuple[float, float]], segments, spaces) -> int:
    """How many pairs of lines leave one tent space less than 25 degrees apart (they would print as one)."""
    at: dict[str, list[float]] = {}
    for a, b in segments:
        for u, v in ((a, b), (b, a)):
            if u in spaces:
                at.setdefault(u, []).append(math.atan2(pos[v][1] - pos[u][1], pos[v][0] - pos[u][0]))
    n = 0
    for angles in at.values():
        for x, y in itertools.combinations(angles, 2):
            d = abs(x - y) % (2 * math.pi)
            if min(d, 2 * math.pi - d) < math.radians(25):
                n += 1
    return n


def _crossings(pos: dict[str, tuple[float, float]], segments) -> int:
    """How many pairs of lines cross (lines that share an end do not count)."""

    def side(p, q, r) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    n = 0
    for (a, b), (c, d) in itertools.combinations(segments, 2):
        if {a, b} & {c, d}:
            continue
        pa, pb, pc, pd = pos[a], pos[b], pos[c], pos[d]
        if side(pa, pb, pc) * side(pa, pb, pd) < 0 and side(pc, pd, pa) * side(pc, pd, pb) < 0:
            n += 1
    return n


def _obstacles(cell) -> list[tuple[tuple[float, float], float]]:
    """What a path must go around in a territory: its totem circle, then its feat space."""
    x0, y0 = _territory_box(cell)
    feat = x0 + TERRITORY_MM - FEAT_INSET_MM - FEAT_MM / 2, y0 + TERRITORY_MM - FEAT_INSET_MM - FEAT_MM / 2
    return [(_centre(cell), TOTEM_MM / 2 + 1.5), (feat, FEAT_MM * 0.71 + 1.5)]


def place_spaces(topo: dict) -> dict[str, tuple[float, float]]:
    """Each tent space's centre (mm): on its territory's ring, in path order, turned so that paths to other
    territories (and Floating Lands' connection ends) are short and cross nothing."""
    terr = topo["territories"]
    spaces = topo["tent_spaces"]
    paths = [tuple(p) for p in topo["paths"]]
    links = [p for p in paths if spaces[p[0]] != spaces[p[1]]]
    end_lines = [tuple(c["ends"]) for c in topo["connections"] if c.get("ends")]  # Floating Lands: a line end to end
    links += end_lines
    totems = {t: _centre(v["cell"]) for t, v in terr.items()}
    pos = {s: totems[t] for s, t in spaces.items()}
    rings = {}
    for t in terr:
        own = [s for s in spaces if spaces[s] == t]
        inner = [p for p in paths if spaces[p[0]] == t and spaces[p[1]] == t]
        rings[t] = _ring_order(own, inner)
    for _ in range(4):
        for t in sorted(terr):
            order, cycle = rings[t]
            n = len(order)
            slots = n if cycle else max(4, n + 1)
            cx, cy = totems[t]
            mine = set(order)
            touching = [p for p in links if p[0] in mine or p[1] in mine]
            segs = [p for p in paths if p[0] in mine or p[1] in mine]
            close = [u for u in terr if math.dist(totems[u], (cx, cy)) < 1.6 * PITCH_MM]
            near = [s for s in spaces if spaces[s] in close]
            near_obstacles = [o for u in close for o in _obstacles(terr[u]["cell"])]
            near_feats = near_obstacles[1::2]
            near_totems = near_obstacles[0::2]
            best = None
            for k0, start, step in itertools.product(range(4), range(slots), (1, -1)):
                a0 = -math.pi / 2 + k0 * (2 * math.pi / slots) / 4
                trial = dict(pos)
                for i, s in enumerate(order):
                    a = a0 + ((start + step * i) % slots) * 2 * math.pi / slots
                    trial[s] = (cx + RING_MM * math.cos(a), cy + RING_MM * math.sin(a))
                lines = segs + [p for p in touching if p not in segs]
                solid = [p for p in lines if p not in end_lines]
                ends = [p for p in lines if p in end_lines]
                cost = sum(math.dist(trial[a], trial[b]) for a, b in touching)
                cost += 1000 * (_clashes(solid, trial, near, near_obstacles) + _clashes(ends, trial, near, near_feats))
                # an end line may pass under a totem circle where nothing else fits (it prints under it)
                cost += 50 * _clashes(ends, trial, [], near_totems)
                cost += 300 * _close_pairs(trial, lines, mine) + 300 * _crossings(trial, lines)
                if best is None or cost < best[0] - 1e-9:
                    best = (cost, trial)
            pos = best[1]
    return {s: (round(x, 2), round(y, 2)) for s, (x, y) in pos.items()}


def _gap(cell_a, cell_b) -> tuple[str, float, float, float]:
    """The sea between two neighbouring cells: (axis along which it is crossed, where it starts, where it ends,
    the middle of the shared side across that axis). Axis 'x' for cells side by side, 'y' for one above the other."""
    (ra, ca), (rb, cb) = cell_a, cell_b
    if abs(ra - rb) + abs(ca - cb) != 1:
        raise ValueError(f"cells {cell_a} and {cell_b} are not neighbours: a connection joins neighbouring cells")
    ax, ay = _territory_box(cell_a)
    bx, by = _territory_box(cell_b)
    if ra == rb:
        lo = min(ax, bx) + TERRITORY_MM
        return "x", lo, lo + GAP_MM, ay + TERRITORY_MM / 2
    lo = min(ay, by) + TERRITORY_MM
    return "y", lo, lo + GAP_MM, ax + TERRITORY_MM / 2


def _band_rect(axis: str, lo: float, hi: float, mid: float) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a band across the gap centred at ``mid`` along the shared side."""
    if axis == "x":
        return lo, mid - BAND_MM / 2, hi, mid + BAND_MM / 2
    return mid - BAND_MM / 2, lo, mid + BAND_MM / 2, hi


def _rect_seg_dist(box, a, b) -> float:
    """Least distance (mm) between an axis-aligned box and a segment (0 where they meet)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0  # Liang-Barsky: the part of the segment inside the box
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                t0, t1 = 1.0, 0.0
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    if t0 <= t1:
        return 0.0
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    edges = list(zip(corners, corners[1:] + corners[:1]))
    return min(min(_seg_point_dist(p, *e) for p in (a, b) for e in edges), min(_seg_point_dist(c, a, b) for c in corners))


def _rect_gap(p, q) -> float:
    dx = max(p[0] - q[2], q[0] - p[2], 0.0)
    dy = max(p[1] - q[3], q[1] - p[3], 0.0)
    return math.hypot(dx, dy)


def place_connections(topo: dict, pos: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float, float, float]]:
    """Each connection's band (x0, y0, x1, y1 mm): across the gap between its territories, as near the middle of
    their shared side as the paths crossing there and the other bands allow (Floating Lands: near its ends)."""
    terr = topo["territories"]
    spaces = topo["tent_spaces"]
    crossing = [(pos[a], pos[b]) for a, b in topo["paths"] if spaces[a] != spaces[b]]
    crossing += [(pos[c["ends"][0]], pos[c["ends"][1]]) for c in topo["connections"] if c.get("ends")]
    half = TERRITORY_MM / 2 - BAND_MM / 2 - 4.0
    bands: dict[str, tuple[float, float, float, float]] = {}
    for c in topo["connections"]:
        axis, lo, hi, mid = _gap(terr[c["between"][0]]["cell"], terr[c["between"][1]]["cell"])
        target = mid
        own_ends = None
        if c.get("ends"):  # the band sits where the line from end to end crosses the middle of the gap
            own_ends = (pos[c["ends"][0]], pos[c["ends"][1]])
            (ax_, ay_), (bx_, by_) = own_ends
            middle = (lo + hi) / 2
            if axis == "x":
                target = ay_ + (by_ - ay_) * (middle - ax_) / ((bx_ - ax_) or 1e-9)
            else:
                target = ax_ + (bx_ - ax_) * (middle - ay_) / ((by_ - ay_) or 1e-9)
            target = min(mid + half, max(mid - half, target))
        best = None
        for k in range(-int(half), int(half) + 1):
            box = _band_rect(axis, lo, hi, mid + k)
            clear = min([_rect_seg_dist(box, a, b) for a, b in crossing if (a, b) != own_ends] + [99.0])
            clear = min([clear] + [_rect_gap(box, other) for other in bands.values()])
            key = (clear < BAND_CLEAR_MM, -min(clear, BAND_CLEAR_MM), abs(mid + k - target), k)
            if best is None or key < best[0]:
                best = (key, box)
        bands[c["id"]] = tuple(round(v, 2) for v in best[1])
    return bands


def map_layout(name: str, topo: dict | None = None) -> dict:
    """The schematic board of built-in map ``name`` (or of ``topo``, a map JSON with cells)."""
    topo = read_map(name) if topo is None else topo
    board = f"iwari-{name}"
    terr = topo["territories"]
    rows = 1 + max(t["cell"][0] for t in terr.values())
    cols = 1 + max(t["cell"][1] for t in terr.values())
    w = cols * TERRITORY_MM + (cols - 1) * GAP_MM + 2 * MARGIN_MM
    h = rows * TERRITORY_MM + (rows - 1) * GAP_MM + 2 * MARGIN_MM
    prov = topo.get("provenance", {})
    source = f"source {prov.get('source', 'unknown')}, {prov.get('rule', 'I-NIT-6')}"
    out = {
        "format": FORMAT,
        "name": board,
        "title": f"{topo.get('title', 'Iwari map').replace(' (schematic)', '')} (SCHEMATIC)",
        "game": "iwari",
        "schematic": True,
        "notes": SCHEMATIC_NOTE.format(what="map", map=name, source=source, tribes=", ".join(tribe_colours())),
        "size_mm": [w, h],
        "extra_kinds": MAP_KINDS,
        "markers": edge_markers(board, w, h, MAP_MARKER_MM, MARGIN_MM / 2, mids=True),
        "regions": [],
    }
    pos = place_spaces(topo)
    bands = place_connections(topo, pos)
    spaces = topo["tent_spaces"]
    nbrs: dict[str, set[str]] = {s: set() for s in spaces}
    for a, b in topo["paths"]:
        nbrs[a].add(b)
        nbrs[b].add(a)
    road = {s: i + 1 for i, s in enumerate(topo.get("road", []))}
    regions = []
    for tid in sorted(terr):
        colour = terr[tid]["colour"]
        x0, y0 = _territory_box(terr[tid]["cell"])
        regions.append(
            {
                "id": tid,
                "kind": "territory",
                "label": colour,
                "polygon": rect(x0, y0, TERRITORY_MM, TERRITORY_MM),
                "attributes": {"colour": colour},
            }
        )
        cx, cy = _centre(terr[tid]["cell"])
        regions.append(
            {
                "id": f"totem.{tid}",
                "kind": "totem_circle",
                "label": "totem",
                "parent": tid,
                "polygon": circle(cx, cy, TOTEM_MM),
                "attributes": {"pieces": PIECE_CLASSES["totem_circle"], "reading": "top-of-stack"},
            }
        )
        for s in sorted(x for x in spaces if spaces[x] == tid):
            attrs = {"pieces": PIECE_CLASSES["tent_space"], "reading": "count", "capacity": 1, "paths": sorted(nbrs[s])}
            if s in road:
                attrs["road"] = road[s]
            regions.append(
                {
                    "id": s,
                    "kind": "tent_space",
                    "label": s,
                    "parent": tid,
                    "polygon": circle(*pos[s], TENT_MM),
                    "attributes": attrs,
                }
            )
        fx = x0 + TERRITORY_MM - FEAT_INSET_MM - FEAT_MM
        fy = y0 + TERRITORY_MM - FEAT_INSET_MM - FEAT_MM
        regions.append(
            {
                "id": f"feat.{tid}",
                "kind": "feat_space",
                "label": "feat",
                "parent": tid,
                "polygon": rect(fx, fy, FEAT_MM, FEAT_MM),
                "attributes": {"pieces": PIECE_CLASSES["feat_space"], "reading": "count"},
            }
        )
    for c in topo["connections"]:
        x0, y0, x1, y1 = bands[c["id"]]
        attrs = {
            "connection": c["id"],
            "between": list(c["between"]),
            "by": c["by"],
            "mountain": bool(c["mountain"]),
            "pieces": PIECE_CLASSES["connection"],
            "reading": "count",
        }
        if c.get("ends"):
            attrs["ends"] = list(c["ends"])
        regions.append(
            {
                "id": f"connection.{c['id']}",
                "kind": "connection",
                "label": c["id"],
                "polygon": rect(x0, y0, x1 - x0, y1 - y0),
                "attributes": attrs,
            }
        )
    out["regions"] = regions
    return out


# ------------------------------------------------------------------------------------------ card display


def display_layout(size: int | None = None) -> dict:
    """The card display board: ``size`` display slots (default: the edition's display size) after the deck, and
    below them the discard pile and the ``PLAY_SPACES`` play spaces, all at the slots' size and pitch."""
    board = "iwari-display"
    n, size_source = display_size()
    if size is not None:
        n, size_source = size, f"{size}, given to the generator"
    sw, sh = SLOT_MM
    gap = 8.0
    margin = 45.0
    cols = max(n, PLAY_SPACES) + 1  # the deck, then the slots; the discard pile, then the play spaces
    w = 2 * margin + cols * sw + (cols - 1) * gap
    h = 2 * margin + 2 * sh + gap
    out = {
        "format": FORMAT,
        "name": board,
        "title": "Iwari card display (SCHEMATIC)",
        "game": "iwari",
        "schematic": True,
        "notes": DISPLAY_NOTE.format(
            n=n, size_source=size_source, k=PLAY_SPACES, cw=CARD_MM[0], ch=CARD_MM[1], colours=", ".join(COLOURS)
        ),
        "size_mm": [w, h],
        "extra_kinds": DISPLAY_KINDS,
        "markers": edge_markers(board, w, h, SMALL_MARKER_MM, 22.0, mids=False),
        "regions": [],
    }
    y2 = margin + sh + gap

    def pile(name: str, y: float) -> dict:  # the deck or the discard pile, face down at the row's start
        return {"id": name, "kind": "card_space", "label": name, "polygon": rect(margin, y, sw, sh), "attributes": {"name": name}}

    def face(prefix: str, kind: str, label: str, i: int, y: float) -> dict:  # a card-sized space read as a printed face
        return {
            "id": f"{prefix}.{i + 1}",
            "kind": kind,
            "label": f"{label} {i + 1}",
            "polygon": rect(margin + (i + 1) * (sw + gap), y, sw, sh),
            "attributes": {"index": i + 1, "pieces": ["card"], "reading": "tile-face", "capacity": 1},
        }

    regions = [pile("deck", margin), *(face("slot", "display_slot", "display", i, margin) for i in range(n))]
    regions += [pile("discard", y2), *(face("played", "play_space", "played", i, y2) for i in range(PLAY_SPACES))]
    out["regions"] = regions
    return out


def card_display_views(
    px_per_mm: float,
    rotation_deg: float = 0.0,
    blur_px: float = 0.0,
    layout: dict | None = None,
    offset_mm: tuple[float, float] = (0.0, 0.0),
    kinds: tuple[str, ...] = ("display_slot",),
) -> list[tuple]:
    """The card display drawn with every card colour face up on its slots of ``kinds`` (each moved ``offset_mm``
    off the slot's middle), and once bare: [(BGR image, {slot id: card colour, or "empty"})], for a tile gallery of
    the five card faces (docs/layouts.md)."""
    import cv2

    layout = layout or display_layout()
    slots = [r for r in layout["regions"] if r["kind"] in kinds]
    bare = render_board(layout, px_per_mm)
    views = [(bare, {r["id"]: "empty" for r in slots})]
    for k in range(0, max(len(COLOURS), len(slots)), len(slots)):  # each colour on a slot at least once
        img = bare.copy()
        chosen = {}
        for i, r in enumerate(slots):
            if k + i >= len(COLOURS) and k:  # the last view: only the colours not drawn yet
                break
            colour = COLOURS[(k + i) % len(COLOURS)]
            draw_card(img, r["polygon"], colour, px_per_mm, CARD_MM, rotation_deg, offset_mm)
            chosen[r["id"]] = colour
        views.append((img, chosen))
    if blur_px > 0:
        views = [(cv2.GaussianBlur(img, (0, 0), blur_px), labels) for img, labels in views]
    return views


def all_layouts() -> dict[str, dict]:
    out = {f"iwari-{name}": map_layout(name) for name in MAP_NAMES}
    out["iwari-display"] = display_layout()
    return out


def write_all(folder: Path = LAYOUTS_DIR) -> list[Path]:
    return write_layouts(all_layouts(), folder)


if __name__ == "__main__":
    for p in write_all():
        print(p)
