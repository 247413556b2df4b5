"""Board layouts as data: load, save and check one board's geometry in millimetres.

A layout (format ``tablewatch-layout/1``, schema in ``layout.schema.json``, docs in docs/layouts.md) holds a
board's ArUco markers, its named regions (kind + polygon + game attributes) and the adjacency graph between
territories and lakes. This module owns reading and writing those files, the marker-corner geometry every
other module uses, and ``validate``, which lists every problem in words a user can act on.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json

FORMAT = "tablewatch-layout/1"
SCHEMA_PATH = Path(__file__).with_name("layout.schema.json")
LAYOUTS_DIR = Path(__file__).with_name("layouts")

# The region kinds every layout may use; a layout adds its own with "extra_kinds".
KINDS = {
    # map
    "territory": "a map territory (a Home is a territory with attributes.home = true)",
    "productive_area": "a productive area inside a territory (attributes.pa = harvest|hunt, crop for harvest)",
    "lake": "a lake on the map (impassable)",
    # mask board
    "ceremony_space": "a mask-ceremony space on the mask board",
    "restore_area": "the restore area of the mask board",
    "turn_order_space": "a space of the turn-order track (attributes.index)",
    "year_space": "a space of the year track (attributes.index)",
    "turtle_stack": "the space of one turtle-tile stack",
    "card_space": "a card pile (deck or discard)",
    # village board
    "tile_slot": "one of the 3x3 action-tile slots (attributes.index 0..8, row by row)",
    "long_house": "the Long House area",
    "sage_space": "one of the sage spaces (attributes.index)",
    "resource_space": "a place for one kind of resource (attributes.name)",
    "progress_space": "a place for a progress tile (attributes.index)",
    # score tracks
    "score_space": "a space on a score track (attributes.track, attributes.value)",
    # anything
    "colour_spot": "a spot where one piece of a player colour stands during colour calibration",
    "area": "a plain named area (for sheets and test boards)",
}

# Region kinds that form the map graph: two of them that share a border must have an adjacency entry.
GRAPH_KINDS = {"territory", "lake"}
BORDER_MIN_MM = 5.0  # shared border shorter than this counts as touching at a corner, not adjacent
MAX_BOARD_MM = 1500.0  # the largest board side; the overlap checks raster a board at RASTER_PX_PER_MM
NEAR_BOARD_MM = 100.0  # how far outside the board a marker or region point may lie before the geometry checks
OVERLAP_MAX_MM2 = 1.0  # overlap area tolerated between sibling regions (drawing slack)


def load(path: str | Path) -> dict:
    """Read and check a layout file; raise UserError listing every problem."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"layout file {path} not found. Give the path of a layout JSON file (see docs/layouts.md).")
    data = read_json(path)
    problems = validate(data)
    if problems:
        more = f" ({len(problems) - 1} more problem(s); list them all with: tablewatch layout validate {path})" if len(problems) > 1 else ""
        raise UserError(f"{path} is not a valid layout: {problems[0]}{more}")
    return data


def load_builtin(name: str) -> dict:
    """One of the layouts shipped in calibration/layouts/, by board name (e.g. 'wendake-map-2p')."""
    path = LAYOUTS_DIR / f"{name}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in LAYOUTS_DIR.glob("*.json")))
        raise UserError(f"no built-in layout called {name!r}. Known: {known}.")
    return load(path)


def resolve(name_or_path: str) -> dict:
    """A layout from a file path, or a built-in layout by name."""
    if Path(name_or_path).suffix == ".json" or Path(name_or_path).exists():
        return load(name_or_path)
    return load_builtin(name_or_path)


def save(data: dict, path: str | Path) -> None:
    """Write a layout after checking it; raise UserError instead of writing a bad file."""
    problems = validate(data)
    if problems:
        raise UserError("the layout was not saved because it is not valid:\n  - " + "\n  - ".join(problems))
    Path(path).write_text(dumps(data), encoding="utf-8")


def dumps(data: dict) -> str:
    """Compact but diff-friendly JSON: one region, marker or border per line."""
    lines = ["{"]
    keys = list(data)
    for n, key in enumerate(keys):
        value = data[key]
        comma = "," if n < len(keys) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], (dict, list)):
            items = [json.dumps(v, ensure_ascii=False) for v in value]
            lines.append(f'  {json.dumps(key)}: [')
            lines += [f"    {item}{',' if i < len(items) - 1 else ''}" for i, item in enumerate(items)]
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def marker_corners_mm(marker: dict) -> list[tuple[float, float]]:
    """The marker's 4 corners in board mm, in ArUco order: top-left, top-right, bottom-right, bottom-left.

    'rotation' turns the marker counter-clockwise as seen from above the board (the board's y axis points down).
    """
    cx, cy = marker["centre"]
    h = marker["size"] / 2.0
    a = math.radians(marker.get("rotation", 0.0))
    c, s = math.cos(a), math.sin(a)
    corners = []
    for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h)):
        # a counter-clockwise turn on screen (y down) is x' = x cos + y sin, y' = -x sin + y cos
        corners.append((cx + dx * c + dy * s, cy - dx * s + dy * c))
    return corners


def apply_h(H, pts):
    """Points (N, 2) mapped through the 3x3 homography ``H`` (board mm to frame pixels, or back): an (N, 2) array."""
    import numpy as np

    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[pts, np.ones(len(pts))] @ np.asarray(H, np.float64).T
    return q[:, :2] / q[:, 2:3]


def region_by_id(data: dict) -> dict[str, dict]:
    return {r["id"]: r for r in data["regions"]}


def polygon_area(points) -> float:
    """Shoelace area (absolute) of a polygon given as [[x, y], ...]."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(points, list(points[1:]) + [points[0]]):
        total += x0 * y1 - x1 * y0
    return abs(total) / 2.0


def centroid(points) -> tuple[float, float]:
    """Area centroid of a simple polygon (falls back to the vertex mean for degenerate ones)."""
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(points, list(points[1:]) + [points[0]]):
        cross = x0 * y1 - x1 * y0
        a += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(a) < 1e-9:
        return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
    return (cx / (3 * a), cy / (3 * a))


# ----------------------------------------------------------------------------------------------- validation


def validate(data) -> list[str]:
    """Every problem with a layout, each as one sentence saying what is wrong and how to fix it."""
    problems = _schema_problems(data)
    if problems:
        return problems  # geometry checks need a well-formed file
    problems = _extent_problems(data)
    if problems:
        return problems  # rastering a board of 1e15 mm would need more memory than any machine has
    problems += _marker_problems(data)
    problems += _region_problems(data)
    if not problems:
        problems += _geometry_problems(data)
    return problems


def _schema_problems(data) -> list[str]:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "top level"
        problems.append(f"at {where}: {err.message} (see docs/layouts.md for the format)")
    return problems


def _extent_problems(data: dict) -> list[str]:
    """Sizes and points no board has: a side over ``MAX_BOARD_MM``, or a marker or polygon point more than
    ``NEAR_BOARD_MM`` outside the board."""
    w, h = data["size_mm"]
    if not (0 < w <= MAX_BOARD_MM and 0 < h <= MAX_BOARD_MM):
        return [f"size_mm is {w:g} x {h:g} mm; a board's sides must be over 0 and at most {MAX_BOARD_MM:g} mm. Measure the board again."]
    lo_x, lo_y, hi_x, hi_y = -NEAR_BOARD_MM, -NEAR_BOARD_MM, w + NEAR_BOARD_MM, h + NEAR_BOARD_MM
    problems = []
    for m in data["markers"]:
        (x, y), size = m["centre"], m["size"]
        if not (lo_x <= x <= hi_x and lo_y <= y <= hi_y) or size > min(w, h):
            problems.append(f"marker id {m['id']} (centre {x:g}, {y:g} mm, size {size:g} mm) does not fit on the {w:g}x{h:g} mm board. "
                            "Check its centre and size.")
    for r in data["regions"]:
        if any(not (lo_x <= x <= hi_x and lo_y <= y <= hi_y) for x, y in r["polygon"]):
            problems.append(f"region {r['id']!r} has a point far outside the {w:g}x{h:g} mm board. Check its polygon.")
    return problems


def _marker_problems(data: dict) -> list[str]:
    problems = []
    w, h = data["size_mm"]
    seen: dict[tuple[str, int], int] = {}
    for n, m in enumerate(data["markers"]):
        key = (m["dictionary"], m["id"])
        if key in seen:
            problems.append(
                f"markers {seen[key]} and {n} both use {m['dictionary']} id {m['id']}: every marker on a board "
                "needs its own id. Change one of them."
            )
        seen[key] = n
        for x, y in marker_corners_mm(m):
            if not (-1e-6 <= x <= w + 1e-6 and -1e-6 <= y <= h + 1e-6):
                problems.append(
                    f"marker id {m['id']} sticks out of the {w}x{h} mm board (corner at {x:.1f}, {y:.1f} mm). "
                    "Move its centre inwards or make it smaller."
                )
                break
    problems += _marker_overlaps(data["markers"])
    if len(data["markers"]) < 2:
        problems.append("the board has fewer than 2 markers; it cannot be located. Add markers near its corners.")
    return problems


def _marker_overlaps(markers: list[dict]) -> list[str]:
    problems = []
    for i in range(len(markers)):
        for j in range(i + 1, len(markers)):
            a, b = markers[i], markers[j]
            reach = (a["size"] + b["size"]) / 2 * math.sqrt(2)
            if math.dist(a["centre"], b["centre"]) >= reach:
                continue
            if _overlap_area(marker_corners_mm(a), marker_corners_mm(b)) > OVERLAP_MAX_MM2:
                problems.append(f"markers id {a['id']} and id {b['id']} overlap. Move them apart.")
    return problems


def _region_problems(data: dict) -> list[str]:
    problems = []
    kinds = set(KINDS) | set(data.get("extra_kinds", []))
    ids: set[str] = set()
    w, h = data["size_mm"]
    for r in data["regions"]:
        if r["id"] in ids:
            problems.append(f"region id {r['id']!r} is used twice. Region ids must be unique.")
        ids.add(r["id"])
        if r["kind"] not in kinds:
            problems.append(
                f"region {r['id']!r} has unknown kind {r['kind']!r}. Known kinds: {', '.join(sorted(kinds))}; "
                "a layout for another game can declare its own in \"extra_kinds\"."
            )
        outside = [p for p in r["polygon"] if not (-1e-6 <= p[0] <= w + 1e-6 and -1e-6 <= p[1] <= h + 1e-6)]
        if outside:
            x, y = outside[0]
            problems.append(
                f"region {r['id']!r} is out of bounds: point ({x}, {y}) mm is outside the {w}x{h} mm board. "
                "Fix the polygon or the board size."
            )
        if polygon_area(r["polygon"]) < 1.0:
            problems.append(f"region {r['id']!r} has no area (its points are in a line). Trace it again.")
        attrs = r.get("attributes", {})
        if r["kind"] == "productive_area" and "pa" not in attrs:
            problems.append(f"productive area {r['id']!r} needs attributes.pa = \"harvest\" or \"hunt\".")
        if attrs.get("pa") == "harvest" and "crop" not in attrs:
            problems.append(f"harvest area {r['id']!r} needs attributes.crop (corn, beans or pumpkins).")
        if ("flag" in attrs) != ("flag_distance" in attrs):
            problems.append(f"region {r['id']!r}: give both attributes.flag and attributes.flag_distance, or neither.")
    for r in data["regions"]:
        if "parent" in r and r["parent"] not in ids:
            problems.append(f"region {r['id']!r} names parent {r['parent']!r}, which is not a region of this layout.")
    kinds_by_id = {r["id"]: r["kind"] for r in data["regions"]}
    seen_pairs: set[frozenset] = set()
    for a, b, how in data.get("adjacency", []):
        for x in (a, b):
            if x not in kinds_by_id:
                problems.append(f"adjacency [{a}, {b}, {how}] names {x!r}, which is not a region of this layout.")
        if a == b:
            problems.append(f"adjacency [{a}, {b}, {how}] joins a region to itself. Remove it.")
        pair = frozenset((a, b))
        if pair in seen_pairs:
            problems.append(f"adjacency between {a} and {b} is listed twice. Keep one entry.")
        seen_pairs.add(pair)
    return problems


def _geometry_problems(data: dict) -> list[str]:
    """Overlaps between sibling regions, children outside their parent, and borders missing from the graph."""
    problems = []
    regions = data["regions"]
    by_id = region_by_id(data)
    # children must lie inside their parent
    for r in regions:
        if "parent" in r:
            parent = by_id[r["parent"]]
            outside = _outside_area(r["polygon"], parent["polygon"])
            if outside > OVERLAP_MAX_MM2:
                problems.append(
                    f"region {r['id']!r} reaches {outside:.0f} mm² outside its parent {r['parent']!r}. "
                    "Draw it inside its parent."
                )
    # siblings (same parent, or both top-level) must not overlap
    groups: dict[str | None, list[dict]] = {}
    for r in regions:
        groups.setdefault(r.get("parent"), []).append(r)
    for group in groups.values():
        boxes = [_bbox(r["polygon"]) for r in group]
        for i in range(len(group)):
            for j in range(i + 1, len(group)):
                if not _boxes_meet(boxes[i], boxes[j]):
                    continue
                area = _overlap_area(group[i]["polygon"], group[j]["polygon"])
                if area > OVERLAP_MAX_MM2:
                    problems.append(
                        f"regions {group[i]['id']!r} and {group[j]['id']!r} overlap by {area:.0f} mm². "
                        "Regions at the same level must not overlap; fix one polygon."
                    )
    # the map graph: regions that share a border need an adjacency entry, and entries need a shared border
    listed = {frozenset((a, b)) for a, b, _ in data.get("adjacency", [])}
    graph = [r for r in regions if r["kind"] in GRAPH_KINDS]
    boxes = [_bbox(r["polygon"]) for r in graph]
    touching = set()
    for i in range(len(graph)):
        for j in range(i + 1, len(graph)):
            if _boxes_meet(boxes[i], boxes[j], grow=1.0) and _shared_border_mm(graph[i]["polygon"], graph[j]["polygon"]) >= BORDER_MIN_MM:
                touching.add(frozenset((graph[i]["id"], graph[j]["id"])))
    for pair in sorted(touching - listed, key=sorted):
        a, b = sorted(pair)
        problems.append(
            f"missing adjacency: {a} and {b} share a border but \"adjacency\" has no entry for them. "
            f"Add [\"{a}\", \"{b}\", \"land\"] (or \"river\"/\"lake\")."
        )
    for pair in sorted(listed - touching, key=sorted):
        a, b = sorted(pair)
        if a in by_id and b in by_id and by_id[a]["kind"] in GRAPH_KINDS and by_id[b]["kind"] in GRAPH_KINDS:
            problems.append(
                f"adjacency between {a} and {b} is listed but their polygons do not share a border of at least "
                f"{BORDER_MIN_MM:.0f} mm. Fix the polygons or remove the entry."
            )
    return problems


# Geometry by rasterisation at RASTER_PX_PER_MM: simple, and right for concave traced polygons too.
RASTER_PX_PER_MM = 4


def _bbox(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _boxes_meet(a, b, grow: float = 0.0) -> bool:
    return a[0] <= b[2] + grow and b[0] <= a[2] + grow and a[1] <= b[3] + grow and b[1] <= a[3] + grow


def _masks(p, q, pad_mm: float = 2.0):
    import cv2
    import numpy as np

    x0, y0, x1, y1 = _bbox(list(p) + list(q))
    x0, y0 = x0 - pad_mm, y0 - pad_mm
    k = RASTER_PX_PER_MM
    shape = (int(math.ceil((y1 - y0 + 2 * pad_mm) * k)) + 1, int(math.ceil((x1 - x0 + 2 * pad_mm) * k)) + 1)
    masks = []
    for poly in (p, q):
        m = np.zeros(shape, np.uint8)
        pts = np.round((np.asarray(poly, np.float64) - (x0, y0)) * k * 16).astype(np.int32)
        cv2.fillPoly(m, [pts], 1, lineType=cv2.LINE_8, shift=4)
        masks.append(m)
    return masks


def _overlap_area(p, q) -> float:
    """Area in mm² covered by both polygons (polygons that only share an edge give 0)."""
    import cv2
    import numpy as np

    a, b = _masks(p, q)
    inner_a = cv2.erode(a, np.ones((3, 3), np.uint8))  # drop the boundary pixels both fills include
    return float((inner_a & b).sum()) / RASTER_PX_PER_MM**2


def _outside_area(p, q) -> float:
    """Area in mm² of polygon p that lies outside polygon q."""
    import cv2
    import numpy as np

    a, b = _masks(p, q)
    grown_b = cv2.dilate(b, np.ones((3, 3), np.uint8))
    return float((a & (1 - grown_b)).sum()) / RASTER_PX_PER_MM**2


def _shared_border_mm(p, q) -> float:
    """Approximate length in mm of the border two touching polygons share."""
    import cv2
    import numpy as np

    a, b = _masks(p, q)
    kernel = np.ones((3, 3), np.uint8)
    grown_a = cv2.dilate(a, kernel)
    grown_b = cv2.dilate(b, kernel)
    band = (grown_a & grown_b).sum()  # about 2-3 px wide along the shared border
    return float(band) / RASTER_PX_PER_MM / 3.0


def write_layouts(layouts: dict[str, dict], folder: Path = LAYOUTS_DIR) -> list[Path]:
    """Write each ``name -> layout`` as ``folder/<name>.json`` (the built-in layouts' generators); an invalid one
    stops the run naming its problems, before it is written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in layouts.items():
        problems = validate(data)
        if problems:
            raise SystemExit(f"{name} is not valid:\n  " + "\n  ".join(problems))
        path = folder / f"{name}.json"
        path.write_text(dumps(data), encoding="utf-8")
        paths.append(path)
    return paths
