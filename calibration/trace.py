"""Backend for mapping a retail board: save the polygons traced on a rectified photo (``vision.locate.rectify_photo``).

The tablet app's editor shows the rectified photo (board seen from above at ``px_per_mm``), the owner traces
regions on it, and sends them back as pixel polygons. ``add_traced`` converts them to board millimetres,
merges them into the layout (a traced region replaces one with the same id), checks the result and saves it.

``trace_iwari`` reads an Iwari map by itself from such a top-down image (the map trace): territories and their
colours, tent spaces, totem circles, feat spaces, connection bands (number, land or water, mountains), paths,
Floating Lands' ends and the road, returned as a layout, a map in ``assistant.iwari.maps``' JSON form and the
problems left for the owner; made for Tablewatch's schematic art (docs/layouts.md).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import NamedTuple

from assistant.errors import UserError
from assistant.jsonfile import read_json
from calibration.iwari_layouts import MAP_KINDS, PIECE_CLASSES, circle, rect
from calibration.layout import FORMAT, centroid, validate
from calibration.render import LAND, MOUNTAIN, PALE, PATH, ROAD, SEA, TERRAIN, WATER


def px_to_mm(points, px_per_mm: float) -> list[list[float]]:
    """Rectified-image pixel coordinates to board mm (pixel i covers mm [i, i+1) / px_per_mm)."""
    return [[round((x + 0.5) / px_per_mm, 2), round((y + 0.5) / px_per_mm, 2)] for x, y in points]


def add_traced(layout: dict, traced: dict) -> dict:
    """A new layout with the traced regions (and adjacency, if given) merged in. ``traced`` is
    {"px_per_mm": k, "regions": [{"id", "kind", "polygon_px", "attributes"?, "parent"?, "label"?}], "adjacency"?}."""
    try:
        k = float(traced["px_per_mm"])
        new_regions = traced["regions"]
    except (KeyError, TypeError, ValueError):
        raise UserError('the traced file needs "px_per_mm" (the rectified image scale) and "regions" (a list).') from None
    out = json.loads(json.dumps(layout))
    by_id = {r["id"]: n for n, r in enumerate(out["regions"])}
    for t in new_regions:
        if "id" not in t or "kind" not in t or "polygon_px" not in t:
            raise UserError(f'each traced region needs "id", "kind" and "polygon_px"; got {sorted(t)}.')
        region = {"id": t["id"], "kind": t["kind"], "polygon": px_to_mm(t["polygon_px"], k)}
        for key in ("label", "parent", "attributes"):
            if key in t:
                region[key] = t[key]
        if region["id"] in by_id:
            out["regions"][by_id[region["id"]]] = region
        else:
            by_id[region["id"]] = len(out["regions"])
            out["regions"].append(region)
    # the placeholder "whole board" region goes once real regions exist
    if len(out["regions"]) > 1:
        out["regions"] = [r for r in out["regions"] if not (r["id"] == "board" and r["kind"] == "area")]
    if "adjacency" in traced:
        out["adjacency"] = traced["adjacency"]
    problems = validate(out)
    if problems:
        raise UserError("the traced regions do not make a valid layout:\n  - " + "\n  - ".join(problems))
    return out


def load_traced(path: str | Path) -> dict:
    path = Path(path)

    return read_json(path, missing=f"traced file {path} not found.")


# ----------------------------------------------------------------------------------- Iwari: trace a map


class IwariTrace(NamedTuple):
    """What ``trace_iwari`` read off a map image: the ``layout`` (regions in board mm, the skeleton's markers),
    the ``map`` (an Iwari map in ``assistant.iwari.maps``' JSON form, usable inline or as a map file), and
    ``problems``: one sentence per thing to check by hand (a connection number not read, a space in no
    territory...), empty when everything was read."""

    layout: dict
    map: dict
    problems: list[str]


# what each pixel may show on the schematic art, by its printed colour (calibration.render)
_IWARI_CLASSES = {
    **{f"terrain:{k}": v for k, v in TERRAIN.items()},
    "water": WATER,
    "land": LAND,
    "mountain": MOUNTAIN,
    "path": PATH,
    "road": ROAD,
    "light": PALE,
    "sea": SEA,
    "dark": (40, 40, 40),
}
TERRITORY_MIN_MM2 = 3600.0  # a territory is at least 60 x 60 mm
TENT_D_MM = (14.0, 29.0)  # a light disc this wide inside a territory is a tent space ...
TOTEM_D_MM = (29.0, 50.0)  # ... this wide, the totem circle
PATH_SHARE = 0.9  # the share of a line between two spaces that must be printed path for a path
ROAD_SHARE = 0.6  # ... of which this share purple for a stretch of the road
MOUNTAIN_SHARE = 0.2  # a band this much grey is covered by mountains
DIGIT_MIN_SCORE = 0.55  # the least agreement of a connection's number with its best template to count as read


def _classes(image):
    """(label image, class names, darkness 0..1): each pixel's nearest printed colour in Lab, after scaling the
    image so that its paper white is white (a warmer light or a grey scan reads the same)."""
    import cv2
    import numpy as np

    img = image.astype(np.float32)
    white = np.percentile(img.reshape(-1, 3), 99, axis=0)
    img = np.clip(img * (255.0 / np.maximum(white, 1.0)), 0, 255).astype(np.uint8)
    darkness = 1.0 - cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255.0
    names = list(_IWARI_CLASSES)
    q = (img >> 2).astype(np.int32)  # 64 levels a channel: the class of every such colour, looked up
    labels = _class_table(tuple(names))[(q[:, :, 0] << 12) | (q[:, :, 1] << 6) | q[:, :, 2]]
    sea = names.index("sea")
    labels[labels == sea] = names.index("light")  # the sea and the spaces' fill differ by a few Lab units only
    return labels, names, darkness


_TABLES: dict = {}


def _class_table(names: tuple[str, ...]):
    """For each colour quantised to 64 levels a channel (index b << 12 | g << 6 | r), its nearest class in Lab."""
    import cv2
    import numpy as np

    if names not in _TABLES:
        levels = np.arange(64, dtype=np.uint8) * 4 + 2
        b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
        cube = np.stack([b, g, r], -1).reshape(-1, 1, 3)
        lab = cv2.cvtColor(cube, cv2.COLOR_BGR2Lab).astype(np.float32).reshape(-1, 3)
        pal = cv2.cvtColor(np.array([[_IWARI_CLASSES[n] for n in names]], np.uint8), cv2.COLOR_BGR2Lab).astype(np.float32)[0]
        best = np.full(len(lab), np.inf, np.float32)
        table = np.zeros(len(lab), np.uint8)
        for i, p in enumerate(pal):
            d = ((lab - p) ** 2).sum(1)
            closer = d < best
            best[closer] = d[closer]
            table[closer] = i
        _TABLES[names] = table
    return _TABLES[names]


def _mm(points_px, k: float) -> list[list[float]]:
    return [[round((x + 0.5) / k, 2), round((y + 0.5) / k, 2)] for x, y in points_px]


def _disc(k: float, mm: float):
    """A disc ``mm`` across, as a structuring element at ``k`` px/mm."""
    import cv2

    n = max(3, int(round(mm * k)) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n, n))


def _territories(labels, names, k: float):
    """[(colour, filled mask, polygon mm)] of every territory: a large area of one terrain colour, without the thin
    fringes where other colours blur into the sea, the slits that lines and labels cut into it closed, and its
    holes (the spaces) filled."""
    import cv2
    import numpy as np

    out = []
    for i, name in enumerate(names):
        if not name.startswith("terrain:"):
            continue
        mask = cv2.morphologyEx((labels == i).astype(np.uint8), cv2.MORPH_OPEN, _disc(k, 1.5))  # blurred edges
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(k, 8.0))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disc(k, 2.0))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in contours:
            if cv2.contourArea(c) < TERRITORY_MIN_MM2 * k * k:
                continue
            filled = np.zeros_like(mask)
            cv2.drawContours(filled, [c], -1, 1, -1)
            poly = cv2.approxPolyDP(c, 1.5 * k, True).reshape(-1, 2)
            out.append((name.partition(":")[2], filled, _mm(poly, k)))
    return out


def _rows_then_columns(centres: list[tuple[float, float]], pitch: float) -> list[int]:
    """Indices of ``centres`` in reading order: rows (centres within ``pitch`` / 2 in y), left to right."""
    order = sorted(range(len(centres)), key=lambda i: centres[i][1])
    rows: list[list[int]] = []
    for i in order:
        if rows and abs(centres[i][1] - centres[rows[-1][0]][1]) < pitch / 2:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda j: centres[j][0])]


def _grid(values: list[float], pitch: float) -> list[int]:
    """The grid index (row or column) of each value: values within ``pitch`` / 2 of each other share one."""
    levels: list[float] = []
    for v in sorted(values):
        if not levels or v - levels[-1] > pitch / 2:
            levels.append(v)
    return [min(range(len(levels)), key=lambda i: abs(levels[i] - v)) for v in values]


def _blobs(labels, names, filled, k: float):
    """The light shapes inside one territory: [(kind, centre mm, size mm)], kind tent_space, totem_circle or
    feat_space, size the diameter (or the side of a feat space)."""
    import cv2
    import numpy as np

    light = ((labels == names.index("light")) & (filled > 0)).astype(np.uint8)
    light = cv2.morphologyEx(light, cv2.MORPH_OPEN, _disc(k, 1.5))
    contours, _ = cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for c in contours:
        area = cv2.contourArea(c) / (k * k)
        x, y, w, h = cv2.boundingRect(c)
        if area < 50.0 or w < 3 or h < 3:
            continue
        m = cv2.moments(c)
        centre = ((m["m10"] / m["m00"] + 0.5) / k, (m["m01"] / m["m00"] + 0.5) / k)
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        fill = area / max(1e-6, rw * rh / (k * k))  # a square fills its box (0.9 and more, blurred), a disc 0.79
        if fill > 0.88 and 0.8 < rw / max(rh, 1e-6) < 1.25:
            out.append(("feat_space", centre, math.sqrt(area) + 0.5))
            continue
        d = 2 * math.sqrt(area / math.pi) + 0.5  # the printed outline's inner half is not light
        if TENT_D_MM[0] <= d < TENT_D_MM[1]:
            out.append(("tent_space", centre, d))
        elif TOTEM_D_MM[0] <= d < TOTEM_D_MM[1]:
            out.append(("totem_circle", centre, d))
    return out


def _samples(labels, k: float, a, b, skip=()):
    """The classes along the segment a -> b (mm), every 0.5 mm, each the best of the line and 1 mm to either
    side (a path printed a little off its centre line still counts); points inside a ``skip`` box are left
    out. Returns an (n, 3) array of labels, or None for no points."""
    import numpy as np

    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    if length < 0.5:
        return None
    t = np.linspace(0.0, 1.0, int(length / 0.5) + 1)
    pts = a[None] + t[:, None] * (b - a)[None]
    for x0, y0, x1, y1 in skip:
        pts = pts[~((pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1))]
    if not len(pts):
        return None
    normal = np.array([-(b - a)[1], (b - a)[0]]) / length
    h, w = labels.shape
    out = []
    for off in (0.0, -1.0, 1.0):
        q = pts + off * normal
        u = np.clip((q[:, 0] * k - 0.5).round().astype(int), 0, w - 1)
        v = np.clip((q[:, 1] * k - 0.5).round().astype(int), 0, h - 1)
        out.append(labels[v, u])
    return np.stack(out, 1)


def _line_between(labels, names, k, a, ra, b, rb, skip=()):
    """(is a printed path, share of it purple) for the straight line between two spaces (centres a, b, radii
    ra, rb), from rim to rim."""
    import numpy as np

    d = np.asarray(b, float) - np.asarray(a, float)
    n = float(np.linalg.norm(d))
    if n <= ra + rb + 1.0:
        return False, 0.0
    u = d / n
    s = _samples(labels, k, np.asarray(a) + u * (ra + 1.0), np.asarray(b) - u * (rb + 1.0), skip)
    if s is None:
        return False, 0.0
    path, road = names.index("path"), names.index("road")
    on = ((s == path) | (s == road)).any(1)
    if on.mean() < PATH_SHARE:
        return False, 0.0
    purple = (s == road).any(1) & on
    return True, float(purple.sum()) / max(1, int(on.sum()))


def _number_image(text: str, scale: float):
    """Darkness (0..1) of ``text`` printed as calibration.render prints it at Hershey ``scale``, cropped to its ink;
    None when no pixel is inked (a scale too small to print it)."""
    import cv2
    import numpy as np

    thick = max(1, int(round(scale * 1.6)))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    img = np.zeros((th + base + 8, tw + 8), np.uint8)
    cv2.putText(img, text, (4, th + 4), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(img > 127)
    if not len(ys):
        return None
    return img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32) / 255.0


def read_number(ink, max_number: int = 99) -> tuple[str | None, float]:
    """(the number, its margin over the runner-up) printed in ``ink`` (darkness 0..1, cropped to the pixels over
    0.5), read against the numbers 1..``max_number`` printed the way the art prints them at the same height;
    (None, 0) when none fits well enough."""
    import cv2
    import numpy as np

    ink = np.asarray(ink, np.float32)
    h, w = ink.shape
    if h < 5 or w < 2:
        return None, 0.0
    scale = h / _number_image("8", 1.0).shape[0]
    scores = []
    for n in range(1, max_number + 1):
        t = _number_image(str(n), scale)
        if t is None:
            continue
        th, tw = t.shape
        aspect = abs(math.log((w / h) / (tw / th)))
        if aspect > 0.5:
            continue
        t = cv2.resize(t, (w, h), interpolation=cv2.INTER_AREA) - t.mean()
        a = ink - ink.mean()
        ncc = float((a * t).sum() / (np.linalg.norm(a) * np.linalg.norm(t) + 1e-6))
        scores.append((ncc - 0.3 * aspect, str(n)))
    if not scores:
        return None, 0.0
    scores.sort(reverse=True)
    best, text = scores[0]
    margin = best - (scores[1][0] if len(scores) > 1 else 0.0)
    return (text, margin) if best >= DIGIT_MIN_SCORE else (None, 0.0)


def _connections(labels, names, darkness, k: float, terr_index):
    """[(box mm, territory indices (i, j), by, mountain, number or None)] for every band across the sea that touches
    two territories."""
    import cv2
    import numpy as np

    sea_side = cv2.dilate((terr_index >= 0).astype(np.uint8), _disc(k, 5.0)) == 0
    kinds = [names.index(n) for n in ("water", "land", "mountain", "dark")]
    lines = np.isin(labels, [names.index("path"), names.index("road")]).astype(np.uint8)
    lines = cv2.morphologyEx(lines, cv2.MORPH_OPEN, _disc(k, 1.5))  # the paths, not the thin outlines that blur brown
    off_lines = cv2.dilate(lines, _disc(k, 5.0)) == 0  # a path's blurred edge can read as land or mountain
    mask = (np.isin(labels, kinds) & sea_side & off_lines).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(k, 8.0))  # a line across a band (Floating Lands) cuts 5 mm
    count, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        if area < 0.3 * BAND_AREA_MM2 * k * k:
            continue
        m = int(5 * k) + 1  # look around the band only: 4.5 mm and a pixel
        ys, xs = slice(max(0, y - m), y + h + m), slice(max(0, x - m), x + w + m)
        near = cv2.dilate((comp[ys, xs] == i).astype(np.uint8), _disc(k, 9.0)) > 0
        touched = sorted(set(np.unique(terr_index[ys, xs][near]).tolist()) - {-1})
        if len(touched) != 2:
            continue
        inside = labels[y : y + h, x : x + w][comp[y : y + h, x : x + w] == i]
        water = int((inside == names.index("water")).sum())
        land = int((inside == names.index("land")).sum())
        mountain = (inside == names.index("mountain")).mean() > MOUNTAIN_SHARE
        x0, y0, x1, y1 = _reach_territories(terr_index, touched, x, y, x + w, y + h)
        if x1 <= x0 or y1 <= y0:
            continue  # the two territories overlap across it: no band between them (a blur at a small scale)
        box = (x0 / k, y0 / k, x1 / k, y1 / k)
        out.append(
            (
                box,
                tuple(touched),
                "water" if water > land else "land",
                bool(mountain),
                _band_number(labels, names, darkness, k, box),
            )
        )
    return out


def _reach_territories(terr_index, pair, x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int]:
    """A band's pixel box (x0, y0, x1, y1, ends excluded) stretched across the sea to the two territories it joins:
    the band was found with a margin kept off the territories' edges."""
    import numpy as np

    a, b = pair
    cols = {t: np.nonzero((terr_index[y0:y1] == t).any(0))[0] for t in pair}
    rows = {t: np.nonzero((terr_index[:, x0:x1] == t).any(1))[0] for t in pair}
    if len(rows[a]) and len(rows[b]) and (rows[a].max() < y0 or rows[b].max() < y0 or rows[a].min() >= y1 or rows[b].min() >= y1):
        top, bottom = sorted(pair, key=lambda t: rows[t].mean())
        return x0, int(rows[top].max()) + 1, x1, int(rows[bottom].min())
    if len(cols[a]) and len(cols[b]):
        left, right = sorted(pair, key=lambda t: cols[t].mean())
        return int(cols[left].max()) + 1, y0, int(cols[right].min()), y1
    return x0, y0, x1, y1


BAND_AREA_MM2 = 30.0 * 24.0  # the schematic band (calibration.iwari_layouts: GAP_MM x BAND_MM)


def _band_number(labels, names, darkness, k: float, box) -> str | None:
    """The number on the white badge in the middle of a band, read against the art's digits."""
    import cv2
    import numpy as np

    x0, y0, x1, y1 = (max(0, int(round(v * k))) for v in box)
    crop = labels[y0:y1, x0:x1]
    if crop.size == 0:  # a band box with no pixel in it (a small scale): nothing to read, and OpenCV needs pixels
        return None
    light = (crop == names.index("light")).astype(np.uint8)
    count, comp, stats, _ = cv2.connectedComponentsWithStats(light, connectivity=8)
    if count < 2:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    bx, by, bw, bh, _ = stats[i]
    cx, cy, r = bx + bw / 2, by + bh / 2, min(bw, bh) / 2
    yy, xx = np.mgrid[0 : crop.shape[0], 0 : crop.shape[1]]
    inner = (xx - cx) ** 2 + (yy - cy) ** 2 < (0.8 * r) ** 2
    ink = np.where(inner, darkness[y0:y1, x0:x1], 0.0)
    ys, xs = np.nonzero(ink > max(0.2, 0.5 * float(ink.max())))  # a blurred stroke is lighter than printed black
    if len(xs) < 4:
        return None
    text, _ = read_number(ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] / max(0.2, float(ink.max())))
    return text


def trace_iwari(image, px_per_mm: float, skeleton: dict) -> IwariTrace:
    """Trace an Iwari map from a top-down image of the board (``layout rectify``'s output: 1 mm = ``px_per_mm``
    pixels from the board's top-left corner): territories with their colours, tent spaces, totem circles, feat
    spaces, numbered connections by land or water with their mountains, paths, and the road. ``skeleton`` gives
    the board's name, size and markers (``layout new --plan iwari-standard``). Ids follow reading order:
    territories ``T01``... row by row, tent spaces ``S01``... territory by territory, clockwise from the top of
    the totem circle; connections take their printed number. Made for Tablewatch's schematic art
    (``calibration.render``); a retail map's own colours need the owner's eye (``problems``)."""
    import numpy as np

    k = float(px_per_mm)
    labels, names, darkness = _classes(image)
    terrs = _territories(labels, names, k)
    problems: list[str] = []
    if not terrs:
        raise UserError(
            "no territory found in the image: give a top-down image of an Iwari map (tablewatch layout rectify) and its --px-per-mm."
        )
    centres = [centroid(p) for _, _, p in terrs]
    order = _rows_then_columns(centres, pitch=60.0)
    terrs = [terrs[i] for i in order]
    tids = [f"T{i + 1:02d}" for i in range(len(terrs))]
    terr_index = np.full(labels.shape, -1, np.int16)
    for i, (_, filled, _) in enumerate(terrs):
        terr_index[filled > 0] = i
    regions: list[dict] = []
    spaces: list[tuple[str, int, tuple[float, float], float]] = []  # id, territory index, centre, radius
    for i, (colour, filled, poly) in enumerate(terrs):
        tid = tids[i]
        regions.append({"id": tid, "kind": "territory", "label": colour, "polygon": poly, "attributes": {"colour": colour}})
        blobs = _blobs(labels, names, filled, k)
        totems = [b for b in blobs if b[0] == "totem_circle"]
        if len(totems) != 1:
            problems.append(
                f"territory {tid} ({colour}) shows {len(totems)} totem circles; I-COMP-4 gives each one. Check it by hand."
            )
        hub = totems[0][1] if totems else centroid(poly)
        for kind, centre, size in sorted(blobs, key=lambda b: b[0]):
            if kind == "totem_circle" and totems and centre == totems[0][1]:
                regions.append(
                    {
                        "id": f"totem.{tid}",
                        "kind": kind,
                        "label": "totem",
                        "parent": tid,
                        "polygon": circle(*centre, size),
                        "attributes": {"pieces": PIECE_CLASSES[kind], "reading": "top-of-stack"},
                    }
                )
            elif kind == "feat_space":
                x, y = centre[0] - size / 2, centre[1] - size / 2
                regions.append(
                    {
                        "id": f"feat.{tid}",
                        "kind": kind,
                        "label": "feat",
                        "parent": tid,
                        "polygon": rect(x, y, size, size),
                        "attributes": {"pieces": PIECE_CLASSES[kind], "reading": "count"},
                    }
                )
        tents = [b for b in blobs if b[0] == "tent_space"]
        tents.sort(key=lambda b: math.atan2(b[1][0] - hub[0], -(b[1][1] - hub[1])) % (2 * math.pi))  # clockwise from the top
        for _, centre, size in tents:
            spaces.append((f"S{len(spaces) + 1:02d}", i, centre, size / 2))
        if not tents:
            problems.append(f"territory {tid} ({colour}) shows no tent space. Check it by hand.")
    # connections, then paths (a line that crosses a band joins that connection's ends: Floating Lands, I-MAP-1)
    bands = _connections(labels, names, darkness, k, terr_index)
    boxes = [b[0] for b in bands]
    grow = 1.0
    grown = [(x0 - grow, y0 - grow, x1 + grow, y1 + grow) for x0, y0, x1, y1 in boxes]
    totem_boxes = [
        (
            min(p[0] for p in r["polygon"]),
            min(p[1] for p in r["polygon"]),
            max(p[0] for p in r["polygon"]),
            max(p[1] for p in r["polygon"]),
        )
        for r in regions
        if r["kind"] == "totem_circle"
    ]
    paths, road_edges = [], []
    ends: dict[int, list[tuple[str, str]]] = {}
    for (sa, ia, ca, ra), (sb, ib, cb, rb) in itertools.combinations(spaces, 2):
        if math.dist(ca, cb) > 260.0:
            continue
        crossed = [n for n, box in enumerate(grown) if _segment_meets_box(ca, cb, box)]
        if len(crossed) > 1 or (crossed and ia == ib):
            continue
        # a line across a band joins the connection's ends; it may pass under a totem circle (the art draws it so
        # where nothing else fits), and under the band's badge
        skip = [grown[crossed[0]], *totem_boxes] if crossed else []
        is_path, purple = _line_between(labels, names, k, ca, ra, cb, rb, skip)
        if not is_path:
            continue
        if crossed:
            ends.setdefault(crossed[0], []).append((sa, sb))
        else:
            paths.append([sa, sb])
            if purple >= ROAD_SHARE:
                road_edges.append((sa, sb))
    connections, used = [], set()
    for n, (box, (i, j), by, mountain, number) in enumerate(bands):
        cid = number
        if cid is None or cid in used:
            cid = f"x{n + 1}"
            problems.append(
                f"the number of the connection between {tids[i]} and {tids[j]} (band at {box[0]:.0f}, {box[1]:.0f} mm) was not read; it is called {cid!r} until you give it its printed number."
            )
        used.add(cid)
        attrs = {
            "connection": cid,
            "between": [tids[i], tids[j]],
            "by": by,
            "mountain": mountain,
            "pieces": PIECE_CLASSES["connection"],
            "reading": "count",
        }
        entry = {"id": cid, "between": [tids[i], tids[j]], "by": by, "mountain": mountain}
        pairs = ends.get(n, [])
        if len(pairs) == 1:
            a, b = pairs[0]
            by_space = {s: t for s, t, _, _ in spaces}
            a, b = (a, b) if tids[by_space[a]] == tids[i] else (b, a)
            attrs["ends"] = entry["ends"] = [a, b]
        elif len(pairs) > 1:
            problems.append(
                f"connection {cid} has {len(pairs)} lines across it; a connection joins two ends at most. Check it by hand."
            )
        x0, y0, x1, y1 = box
        regions.append(
            {
                "id": f"connection.{cid}",
                "kind": "connection",
                "label": cid,
                "polygon": rect(x0, y0, x1 - x0, y1 - y0),
                "attributes": attrs,
            }
        )
        connections.append(entry)
    road = _road_order(road_edges, {s: c for s, _, c, _ in spaces}) if road_edges else []
    nbrs: dict[str, list[str]] = {s: [] for s, _, _, _ in spaces}
    for a, b in paths:
        nbrs[a].append(b)
        nbrs[b].append(a)
    for s, i, centre, r in spaces:
        attrs = {"pieces": PIECE_CLASSES["tent_space"], "reading": "count", "capacity": 1, "paths": sorted(nbrs[s])}
        if s in road:
            attrs["road"] = road.index(s) + 1
        regions.append(
            {"id": s, "kind": "tent_space", "label": s, "parent": tids[i], "polygon": circle(*centre, 2 * r), "attributes": attrs}
        )
    rows = _grid([c[1] for c in (centres[i] for i in order)], 60.0)
    cols = _grid([c[0] for c in (centres[i] for i in order)], 60.0)
    name = skeleton.get("name", "traced")
    the_map = {
        "name": name,
        "title": f"Iwari map traced from {name}",
        "provenance": {
            "source": "inferred",
            "rule": "I-NIT-6",
            "note": "traced from a top-down image of the board by calibration.trace.trace_iwari; check it against the printed map.",
        },
        "territories": {t: {"colour": terrs[i][0], "cell": [rows[i], cols[i]]} for i, t in enumerate(tids)},
        "tent_spaces": {s: tids[i] for s, i, _, _ in spaces},
        "paths": sorted(paths),
        "connections": sorted(connections, key=lambda c: (len(c["id"]), c["id"])),
    }
    if any("ends" in c for c in connections):
        the_map["special"] = "floating-lands"
    pairs = [tuple(sorted(c["between"])) for c in connections]
    if len(set(pairs)) < len(pairs):  # two connections join one pair of territories: Glacial Mass (I-MAP-2)
        the_map["special"] = "glacial-mass"
    if road:
        the_map["road"] = road
        the_map["special"] = "long-road"
    out = {
        "format": FORMAT,
        "name": name,
        "title": skeleton.get("title", f"{name} (traced)"),
        "game": "iwari",
        "schematic": bool(skeleton.get("schematic", False)),
        "notes": "Traced by calibration.trace.trace_iwari from a top-down image; check every region against the printed map.",
        "size_mm": list(skeleton["size_mm"]),
        "extra_kinds": list(MAP_KINDS),
        "markers": [dict(m) for m in skeleton["markers"]],
        "regions": regions,
    }
    problems += validate(out)
    return IwariTrace(out, the_map, problems)


def _segment_meets_box(a, b, box) -> bool:
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return t0 <= t1


def _road_order(edges, centres: dict[str, tuple[float, float]]) -> list[str]:
    """The road's spaces in order along its purple stretches, from the end nearer the board's top-left corner."""
    nbrs: dict[str, list[str]] = {}
    for a, b in edges:
        nbrs.setdefault(a, []).append(b)
        nbrs.setdefault(b, []).append(a)
    ends = [s for s, n in nbrs.items() if len(n) == 1] or sorted(nbrs)
    start = min(ends, key=lambda s: centres[s][0] + centres[s][1])
    order = [start]
    while True:
        nxt = [n for n in nbrs[order[-1]] if n not in order]
        if not nxt:
            return order
        order.append(min(nxt))
