"""Draw a layout at true scale: the board image, and its tiling over printable pages (PDF) or one PNG.

The board is drawn at ``px_per_mm`` with its markers (each with a white quiet zone of one code cell), regions
filled by kind, labels, river borders and flags. For a PDF the board is cut into pages (A4 or Letter) with
10 mm overlap; every page has its row/column, alignment marks and a 100 mm scale bar to check the printer
kept 100% scale.
"""

from __future__ import annotations

import math
from pathlib import Path

from assistant.errors import UserError
from calibration.layout import centroid, marker_corners_mm, region_by_id
from calibration.markers import cells, marker_image
from calibration.pdf import write_pdf

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAGE_MARGIN_MM = 12.0  # home printers cannot print the outer 5 mm or so; keep the board inside
OVERLAP_MM = 10.0
DEFAULT_DPI = 200

# fill colours (BGR) by kind / attribute
COLOURS = {
    "territory": (200, 235, 205),
    "home": (170, 225, 250),
    "lake": (235, 200, 150),
    "corn": (90, 215, 250),
    "beans": (120, 160, 200),
    "pumpkins": (80, 160, 250),
    "hunt": (150, 170, 150),
    "default": (235, 235, 235),
}
RIVER = (200, 120, 30)

# Iwari's print art (BGR): the five terrains (the card colours, I-COMP-1), the sea between territories, the
# connection bands by land and by water, the mountains over a connection, paths, the purple road (I-MAP-3), and
# the pale fill of tent spaces, totem circles and feat spaces. calibration.trace reads a map back by these.
TERRAIN = {
    "tundra": (150, 135, 205),
    "forest": (70, 140, 55),
    "glaciers": (240, 220, 175),
    "coast": (120, 215, 235),
    "desert": (55, 135, 225),
}
SEA = (255, 255, 255)
WATER = (190, 115, 25)
LAND = (95, 150, 185)
MOUNTAIN = (140, 140, 140)
PEAKS = (60, 60, 60)
PATH = (30, 50, 95)
ROAD = (150, 35, 135)
PALE = (235, 245, 250)
BADGE = (255, 255, 255)
PATH_MM = 2.5
ROAD_MM = 5.0
ROAD_RING_MM = 3.0
BADGE_MM = 14.0
DIGITS_MM = 6.0
IWARI_MAP_KINDS = ("tent_space", "totem_circle", "feat_space", "connection")
IWARI_DISPLAY_KINDS = ("display_slot", "play_space")
CARD_SYMBOLS = ("tundra", "forest", "glaciers", "coast", "desert")


def _fill(region: dict):
    a = region.get("attributes", {})
    if region["kind"] == "territory":
        return COLOURS["home"] if a.get("home") else COLOURS["territory"]
    if region["kind"] == "productive_area":
        return COLOURS[a.get("crop", "hunt")] if a.get("pa") == "harvest" else COLOURS["hunt"]
    return COLOURS.get(region["kind"], COLOURS["default"])


def draw_marker(canvas, marker: dict, px_per_mm: float) -> None:
    """Paint a marker (with its white quiet zone) into the canvas at its layout corners."""
    import cv2
    import numpy as np

    n = cells(marker["dictionary"])
    side_px = max(n * 8, int(round(marker["size"] * px_per_mm)))
    img = marker_image(marker["dictionary"], marker["id"], side_px)
    pad = side_px // n  # one code cell of white around the marker
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
    corners = np.array(marker_corners_mm(marker), np.float64)
    centre = corners.mean(0)
    grow = (side_px + 2 * pad) / side_px
    outer = (centre + (corners - centre) * grow) * px_per_mm - 0.5
    src = np.array([[0, 0], [img.shape[1], 0], [img.shape[1], img.shape[0]], [0, img.shape[0]]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(src, outer.astype(np.float32))
    h, w = canvas.shape[:2]
    warped = cv2.warpPerspective(img, M, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    mask = cv2.warpPerspective(np.full(img.shape, 255, np.uint8), M, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    canvas[mask > 0] = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)[mask > 0]


def _text(
    canvas, text: str, x_mm: float, y_mm: float, height_mm: float, px_per_mm: float, colour=(0, 0, 0), centre: bool = True
) -> None:
    import cv2

    scale = height_mm * px_per_mm / 22.0  # Hershey simplex is about 22 px tall at scale 1
    thick = max(1, int(round(scale * 1.6)))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x = int(x_mm * px_per_mm - (tw / 2 if centre else 0))
    y = int(y_mm * px_per_mm + (th / 2 if centre else 0))
    cv2.putText(canvas, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def render_board(layout: dict, px_per_mm: float):
    """The whole board as a BGR image, 1 mm = px_per_mm pixels."""
    import cv2
    import numpy as np

    w_mm, h_mm = layout["size_mm"]
    canvas = np.full((int(round(h_mm * px_per_mm)), int(round(w_mm * px_per_mm)), 3), 255, np.uint8)
    line = max(1, int(round(0.5 * px_per_mm)))

    def pts(poly):
        return np.round((np.asarray(poly, np.float64) * px_per_mm - 0.5) * 16).astype(np.int32)

    if any(r["kind"] in IWARI_MAP_KINDS + IWARI_DISPLAY_KINDS for r in layout["regions"]):
        _draw_iwari(canvas, layout, px_per_mm)
        _draw_markers_and_title(canvas, layout, px_per_mm)
        return canvas

    children = [r for r in layout["regions"] if "parent" in r]
    for r in [r for r in layout["regions"] if "parent" not in r] + children:
        cv2.fillPoly(canvas, [pts(r["polygon"])], _fill(r), cv2.LINE_AA, shift=4)
        cv2.polylines(canvas, [pts(r["polygon"])], True, (60, 60, 60), line, cv2.LINE_AA, shift=4)
    by_id = region_by_id(layout)
    for a, b, how in layout.get("adjacency", []):
        if how != "river":
            continue
        ma = np.zeros(canvas.shape[:2], np.uint8)
        mb = np.zeros(canvas.shape[:2], np.uint8)
        cv2.fillPoly(ma, [pts(by_id[a]["polygon"])], 1, shift=4)
        cv2.fillPoly(mb, [pts(by_id[b]["polygon"])], 1, shift=4)
        k = np.ones((int(3 * px_per_mm) | 1, int(3 * px_per_mm) | 1), np.uint8)
        canvas[(cv2.dilate(ma, k) & cv2.dilate(mb, k)) > 0] = RIVER
    for r in layout["regions"]:
        cx, cy = centroid(r["polygon"])
        xs = [p[0] for p in r["polygon"]]
        ys = [p[1] for p in r["polygon"]]
        size = min(max(xs) - min(xs), max(ys) - min(ys))
        a = r.get("attributes", {})
        if r["kind"] in ("territory", "lake"):
            _text(canvas, r["id"], min(xs) + 4, min(ys) + 10, 7, px_per_mm, centre=False)
            _text(canvas, r.get("label", ""), cx, min(ys) + 22, 4, px_per_mm)
            if a.get("home"):
                _text(canvas, "HOME", cx, min(ys) + 33, 5, px_per_mm)
            if "flag" in a:
                text = f"{a['flag'].upper()} flag ({a['flag_distance']})"
                _text(
                    canvas,
                    text,
                    cx,
                    min(ys) + 45,
                    4,
                    px_per_mm,
                    colour=(40, 40, 180) if a["flag"] == "english" else (160, 80, 20),
                )
        else:
            _text(canvas, r.get("label", r["id"]), cx, cy, min(4.0, size / 5), px_per_mm)
    _draw_markers_and_title(canvas, layout, px_per_mm)
    return canvas


def _draw_markers_and_title(canvas, layout: dict, px_per_mm: float) -> None:
    for m in layout["markers"]:
        draw_marker(canvas, m, px_per_mm)
        _text(canvas, f"{m['id']}", m["centre"][0], m["centre"][1] + m["size"] / 2 + 5.5, 3, px_per_mm)
    _text(canvas, layout["title"], 55, 4, 4, px_per_mm, centre=False)  # top margin, right of the corner marker


# ------------------------------------------------------------------------------------------ Iwari's art


def _px(p, px_per_mm: float) -> tuple[int, int]:
    """A board point (mm) as an OpenCV point with 4 bits of sub-pixel shift."""
    return (int(round((p[0] * px_per_mm - 0.5) * 16)), int(round((p[1] * px_per_mm - 0.5) * 16)))


def _poly_px(poly, px_per_mm: float):
    import numpy as np

    return np.round((np.asarray(poly, np.float64) * px_per_mm - 0.5) * 16).astype(np.int32)


def _band(canvas, region: dict, px_per_mm: float, by_id: dict) -> None:
    """A connection: a band across the sea in its way's colour, mountains over its middle when it is covered
    (never scored, I-TOT-1), and its number on a white badge."""
    import cv2

    a = region["attributes"]
    (x0, y0), (x1, y1) = region["polygon"][0], region["polygon"][2]
    cv2.fillPoly(canvas, [_poly_px(region["polygon"], px_per_mm)], WATER if a["by"] == "water" else LAND, cv2.LINE_AA, shift=4)
    (ux, uy), (vx, vy) = (centroid(by_id[t]["polygon"]) for t in a["between"])
    long_x = abs(ux - vx) >= abs(uy - vy)  # the band runs from one territory to the other along x
    if a.get("mountain"):
        strip = 4.0
        inner = (
            [[x0, y0 + strip], [x1, y0 + strip], [x1, y1 - strip], [x0, y1 - strip]]
            if long_x
            else [[x0 + strip, y0], [x1 - strip, y0], [x1 - strip, y1], [x0 + strip, y1]]
        )
        cv2.fillPoly(canvas, [_poly_px(inner, px_per_mm)], MOUNTAIN, cv2.LINE_AA, shift=4)
        # a zigzag of peaks along the band
        n = 6
        zig = []
        for k in range(n + 1):
            t = k / n
            hi = k % 2 == 0
            if long_x:
                zig.append([x0 + t * (x1 - x0), (y1 - strip - 1.5) if hi else (y0 + strip + 1.5)])
            else:
                zig.append([(x1 - strip - 1.5) if hi else (x0 + strip + 1.5), y0 + t * (y1 - y0)])
        cv2.polylines(canvas, [_poly_px(zig, px_per_mm)], False, PEAKS, max(1, int(round(0.8 * px_per_mm))), cv2.LINE_AA, shift=4)
    cv2.polylines(
        canvas,
        [_poly_px(region["polygon"], px_per_mm)],
        True,
        (60, 60, 60),
        max(1, int(round(0.3 * px_per_mm))),
        cv2.LINE_AA,
        shift=4,
    )


def _badge(canvas, region: dict, px_per_mm: float) -> None:
    """A connection's number on a white badge in the middle of its band."""
    import cv2

    (x0, y0), (x1, y1) = region["polygon"][0], region["polygon"][2]
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    cv2.circle(canvas, _px(centre, px_per_mm), int(round(BADGE_MM / 2 * px_per_mm * 16)), BADGE, -1, cv2.LINE_AA, shift=4)
    cv2.circle(
        canvas,
        _px(centre, px_per_mm),
        int(round(BADGE_MM / 2 * px_per_mm * 16)),
        (0, 0, 0),
        max(1, int(round(0.4 * px_per_mm))),
        cv2.LINE_AA,
        shift=4,
    )
    _text(canvas, region["attributes"]["connection"], centre[0], centre[1], DIGITS_MM, px_per_mm)


def _draw_iwari(canvas, layout: dict, px_per_mm: float) -> None:
    """Iwari's boards: territories in their terrain colours on a white sea, connection bands, paths and the road,
    then tent spaces, totem circles and feat spaces; or the card display's slots and piles."""
    import cv2

    regions = layout["regions"]
    by_id = region_by_id(layout)
    outline = max(1, int(round(0.5 * px_per_mm)))
    top = [r for r in regions if "parent" not in r]
    for r in top:
        if r["kind"] == "connection":
            continue
        colour = TERRAIN.get(r.get("attributes", {}).get("colour"), COLOURS["default"])
        cv2.fillPoly(canvas, [_poly_px(r["polygon"], px_per_mm)], colour, cv2.LINE_AA, shift=4)
        cv2.polylines(canvas, [_poly_px(r["polygon"], px_per_mm)], True, (60, 60, 60), outline, cv2.LINE_AA, shift=4)
    connections = [r for r in top if r["kind"] == "connection"]
    for r in connections:
        _band(canvas, r, px_per_mm, by_id)
    centres = {r["id"]: centroid(r["polygon"]) for r in regions if r["kind"] == "tent_space"}
    path_w = max(1, int(round(PATH_MM * px_per_mm)))
    road_w = max(1, int(round(ROAD_MM * px_per_mm)))
    for r in connections:  # Floating Lands: a connection also serves as a path (I-MAP-1): a line from end to end
        ends = r["attributes"].get("ends", [])
        if len(ends) == 2:
            cv2.line(
                canvas, _px(centres[ends[0]], px_per_mm), _px(centres[ends[1]], px_per_mm), PATH, path_w, cv2.LINE_AA, shift=4
            )
    for r in connections:
        _badge(canvas, r, px_per_mm)
    road = {r["id"]: r["attributes"]["road"] for r in regions if "road" in r.get("attributes", {})}
    for s, c in centres.items():
        for t in by_id[s]["attributes"].get("paths", []):
            if s < t and t in centres:
                on_road = s in road and t in road and abs(road[s] - road[t]) == 1
                cv2.line(
                    canvas,
                    _px(c, px_per_mm),
                    _px(centres[t], px_per_mm),
                    ROAD if on_road else PATH,
                    road_w if on_road else path_w,
                    cv2.LINE_AA,
                    shift=4,
                )
    for r in [r for r in regions if "parent" in r]:
        cv2.fillPoly(canvas, [_poly_px(r["polygon"], px_per_mm)], PALE, cv2.LINE_AA, shift=4)
        cv2.polylines(canvas, [_poly_px(r["polygon"], px_per_mm)], True, (60, 60, 60), outline, cv2.LINE_AA, shift=4)
        if r["id"] in road:  # a purple ring just outside the space: the road (I-MAP-3)
            ring = max(1, int(round(ROAD_RING_MM * px_per_mm)))
            cx, cy = centroid(r["polygon"])
            radius = max(math.dist((cx, cy), p) for p in r["polygon"])
            grow = (radius + 0.25 + ROAD_RING_MM / 2) / radius
            outer = [[cx + (x - cx) * grow, cy + (y - cy) * grow] for x, y in r["polygon"]]
            cv2.polylines(canvas, [_poly_px(outer, px_per_mm)], True, ROAD, ring, cv2.LINE_AA, shift=4)
    for r in regions:
        xs = [p[0] for p in r["polygon"]]
        ys = [p[1] for p in r["polygon"]]
        cx, cy = centroid(r["polygon"])
        if r["kind"] == "territory":
            _text(canvas, r["id"], min(xs) + 3, min(ys) + 8, 5, px_per_mm, centre=False)
            _text(canvas, r.get("label", ""), min(xs) + 3, min(ys) + 14, 3.5, px_per_mm, centre=False)
        elif r["kind"] == "tent_space":
            _text(canvas, r["id"], cx, cy, 3, px_per_mm)
        elif r["kind"] in ("totem_circle", "feat_space"):
            _text(canvas, r.get("label", ""), cx, cy, 3, px_per_mm)
        elif r["kind"] != "connection":
            size = min(max(xs) - min(xs), max(ys) - min(ys))
            _text(canvas, r.get("label", r["id"]), cx, cy, min(4.0, size / 5), px_per_mm)


def card_face(colour: str, px_per_mm: float, size_mm: tuple[float, float] = (63.0, 88.0)):
    """The schematic face of an Iwari card of ``colour`` (a terrain, I-COMP-1) as a BGR image: the terrain's
    colour, a symbol of its own and its name, so each colour prints (and reads back) differently."""
    import cv2
    import numpy as np

    w, h = size_mm
    img = np.full((int(round(h * px_per_mm)), int(round(w * px_per_mm)), 3), 250, np.uint8)
    fill = TERRAIN[colour]
    inset = 3.0
    cv2.rectangle(img, _px((inset, inset), px_per_mm), _px((w - inset, h - inset), px_per_mm), fill, -1, cv2.LINE_AA, shift=4)
    k = CARD_SYMBOLS.index(colour)
    ink = (40, 40, 40)
    thick = max(1, int(round(1.2 * px_per_mm)))
    cx, top = w / 2, 16.0
    if k == 0:  # tundra: three low hills
        for i in range(3):
            cv2.ellipse(
                img,
                _px((cx - 16 + 16 * i, top + 14), px_per_mm),
                (int(8 * px_per_mm * 16), int(6 * px_per_mm * 16)),
                0,
                180,
                360,
                ink,
                thick,
                cv2.LINE_AA,
                shift=4,
            )
    elif k == 1:  # forest: three trees
        for i in range(3):
            x = cx - 16 + 16 * i
            tri = [[x, top], [x - 7, top + 16], [x + 7, top + 16]]
            cv2.fillPoly(img, [_poly_px(tri, px_per_mm)], ink, cv2.LINE_AA, shift=4)
    elif k == 2:  # glaciers: a snowflake
        for i in range(3):
            a = np.pi * i / 3
            d = np.array([np.cos(a), np.sin(a)]) * 11
            cv2.line(
                img,
                _px((cx - d[0], top + 9 - d[1]), px_per_mm),
                _px((cx + d[0], top + 9 + d[1]), px_per_mm),
                ink,
                thick,
                cv2.LINE_AA,
                shift=4,
            )
    elif k == 3:  # coast: waves
        for j in range(2):
            wave = [[cx - 20 + t, top + 6 + 8 * j + 3 * np.sin(t / 4)] for t in np.linspace(0, 40, 21)]
            cv2.polylines(img, [_poly_px(wave, px_per_mm)], False, ink, thick, cv2.LINE_AA, shift=4)
    else:  # desert: a sun
        cv2.circle(img, _px((cx, top + 9), px_per_mm), int(6 * px_per_mm * 16), ink, -1, cv2.LINE_AA, shift=4)
        for i in range(8):
            a = np.pi * i / 4
            cv2.line(
                img,
                _px((cx + 8 * np.cos(a), top + 9 + 8 * np.sin(a)), px_per_mm),
                _px((cx + 12 * np.cos(a), top + 9 + 12 * np.sin(a)), px_per_mm),
                ink,
                thick,
                cv2.LINE_AA,
                shift=4,
            )
    cv2.rectangle(
        img,
        _px((inset + 3, h * 0.42), px_per_mm),
        _px((w - inset - 3, h * 0.58), px_per_mm),
        (250, 250, 250),
        -1,
        cv2.LINE_AA,
        shift=4,
    )
    _text(img, colour.upper(), w / 2, h / 2, 6.0, px_per_mm)
    for i in range(k + 1):  # pips: the colour's place in I-COMP-1, a second cue under poor light
        cv2.circle(
            img, _px((w / 2 - 6 * k / 2 + 6 * i, h - 14), px_per_mm), int(2 * px_per_mm * 16), ink, -1, cv2.LINE_AA, shift=4
        )
    cv2.rectangle(
        img,
        _px((0.5, 0.5), px_per_mm),
        _px((w - 0.5, h - 0.5), px_per_mm),
        (90, 90, 90),
        max(1, int(round(0.4 * px_per_mm))),
        cv2.LINE_AA,
        shift=4,
    )
    return img


def draw_card(
    canvas,
    polygon_mm,
    colour: str,
    px_per_mm: float,
    size_mm: tuple[float, float] = (63.0, 88.0),
    rotation_deg: float = 0.0,
    offset_mm: tuple[float, float] = (0.0, 0.0),
) -> None:
    """A card of ``colour`` face up on a display slot (``polygon_mm``, board mm) of the canvas: in its middle, moved
    by ``offset_mm`` and turned ``rotation_deg`` counter-clockwise as a hand leaves it."""
    import cv2
    import numpy as np

    face = card_face(colour, px_per_mm, size_mm)
    cx, cy = centroid(polygon_mm)
    centre = ((cx + offset_mm[0]) * px_per_mm - 0.5, (cy + offset_mm[1]) * px_per_mm - 0.5)
    h, w = face.shape[:2]
    M = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), rotation_deg, 1.0)
    M[:, 2] += np.array(centre) - np.array([(w - 1) / 2, (h - 1) / 2])
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpAffine(face, M, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), M, size, flags=cv2.INTER_LINEAR)
    alpha = (mask.astype(np.float32) / 255.0)[:, :, None]
    canvas[:] = (warped * alpha + canvas * (1.0 - alpha)).astype(np.uint8)


def page_grid(board_mm: tuple[float, float], paper: str) -> tuple[tuple[float, float], int, int]:
    """(page size mm in the best orientation, columns, rows) to tile the board."""
    import math

    pw, ph = PAPER_MM[paper]
    best = None
    for size in ((pw, ph), (ph, pw)):
        uw, uh = size[0] - 2 * PAGE_MARGIN_MM, size[1] - 2 * PAGE_MARGIN_MM
        cols = 1 if board_mm[0] <= uw else math.ceil((board_mm[0] - OVERLAP_MM) / (uw - OVERLAP_MM))
        rows = 1 if board_mm[1] <= uh else math.ceil((board_mm[1] - OVERLAP_MM) / (uh - OVERLAP_MM))
        if best is None or cols * rows < best[1] * best[2]:
            best = (size, cols, rows)
    return best


def tile_pages(board_img, board_mm: tuple[float, float], px_per_mm: float, paper: str, title: str):
    """Cut the board image into printable pages. Returns (page images, page size mm)."""
    import cv2
    import numpy as np

    (pw, ph), cols, rows = page_grid(board_mm, paper)
    uw, uh = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM
    step_x, step_y = uw - OVERLAP_MM, uh - OVERLAP_MM
    pages = []
    H, W = board_img.shape[:2]
    for r in range(rows):
        for c in range(cols):
            page = np.full((int(round(ph * px_per_mm)), int(round(pw * px_per_mm)), 3), 255, np.uint8)
            x0, y0 = c * step_x, r * step_y  # board mm at the page's printable top-left
            bx0, by0 = int(round(x0 * px_per_mm)), int(round(y0 * px_per_mm))
            bx1, by1 = min(W, bx0 + int(round(uw * px_per_mm))), min(H, by0 + int(round(uh * px_per_mm)))
            ox, oy = int(round(PAGE_MARGIN_MM * px_per_mm)), int(round(PAGE_MARGIN_MM * px_per_mm))
            page[oy : oy + by1 - by0, ox : ox + bx1 - bx0] = board_img[by0:by1, bx0:bx1]
            # outline of the board part and alignment crosses at its corners
            cv2.rectangle(page, (ox, oy), (ox + bx1 - bx0 - 1, oy + by1 - by0 - 1), (150, 150, 150), 1)
            arm = int(4 * px_per_mm)
            for x, y in ((ox, oy), (ox + bx1 - bx0, oy), (ox, oy + by1 - by0), (ox + bx1 - bx0, oy + by1 - by0)):
                cv2.line(page, (x - arm, y), (x + arm, y), (0, 0, 0), 1)
                cv2.line(page, (x, y - arm), (x, y + arm), (0, 0, 0), 1)
            info = f"{title} - page {r * cols + c + 1}/{rows * cols}: row {r + 1} col {c + 1}; board x {x0:.0f}-{x0 + (bx1 - bx0) / px_per_mm:.0f} mm, y {y0:.0f}-{y0 + (by1 - by0) / px_per_mm:.0f} mm"
            _text(page, info, PAGE_MARGIN_MM, 7, 2.6, px_per_mm, centre=False)
            if cols * rows > 1:
                _text(
                    page,
                    f"Overlap {OVERLAP_MM:.0f} mm: trim the right and bottom margins, lay the next page's picture over this one's last {OVERLAP_MM:.0f} mm, tape.",
                    PAGE_MARGIN_MM,
                    10,
                    2.2,
                    px_per_mm,
                    centre=False,
                )
            # 100 mm scale bar in the bottom margin
            y = ph - PAGE_MARGIN_MM / 2
            xa, xb = PAGE_MARGIN_MM, PAGE_MARGIN_MM + 100
            cv2.rectangle(
                page,
                (int(xa * px_per_mm), int((y - 1) * px_per_mm)),
                (int(xb * px_per_mm) - 1, int((y + 1) * px_per_mm)),
                (0, 0, 0),
                -1,
            )
            for t in range(0, 101, 10):
                cv2.line(
                    page,
                    (int((xa + t) * px_per_mm), int((y - 2.5) * px_per_mm)),
                    (int((xa + t) * px_per_mm), int((y - 1) * px_per_mm)),
                    (0, 0, 0),
                    1,
                )
            _text(
                page,
                "100 mm: measure this bar. If it is not 100 mm, print again at 100% / actual size (no fit to page).",
                xb + 3,
                y + 1,
                2.4,
                px_per_mm,
                centre=False,
            )
            pages.append(page)
    return pages, (pw, ph)


def write(layout: dict, out: str | Path, paper: str = "a4", dpi: int = DEFAULT_DPI) -> str:
    """Write the layout as PDF pages or one PNG (by the file's extension). Returns a summary line."""
    import cv2

    out = Path(out)
    px_per_mm = dpi / 25.4
    board = render_board(layout, px_per_mm)
    if out.suffix.lower() == ".pdf":
        if paper not in PAPER_MM:
            raise UserError(f"unknown paper {paper!r}; use a4 or letter.")
        pages, size = tile_pages(board, layout["size_mm"], px_per_mm, paper, layout["title"])
        write_pdf(out, pages, [size] * len(pages), layout["title"])
        w, h = layout["size_mm"]
        return f"wrote {out}: {layout['title']}, {w:.0f} x {h:.0f} mm on {len(pages)} {paper.upper()} page(s) at {dpi} dpi. Print at 100% (actual size) and check the 100 mm bar."
    if out.suffix.lower() == ".png":
        cv2.imwrite(str(out), board)
        return f"wrote {out}: {board.shape[1]}x{board.shape[0]} px at {dpi} dpi ({px_per_mm:.3f} px/mm). Print it at {dpi} dpi for true scale."
    raise UserError(f"{out} should end in .pdf or .png.")
