"""Draw a layout at true scale: the board image, and its tiling over printable pages (PDF) or one PNG.

The board is drawn at ``px_per_mm`` with its markers (each with a white quiet zone of one code cell), regions
filled by kind, labels, river borders and flags. For a PDF the board is cut into pages (A4 or Letter) with
10 mm overlap; every page has its row/column, alignment marks and a 100 mm scale bar to check the printer
kept 100% scale.
"""

from __future__ import annotations

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


def _text(canvas, text: str, x_mm: float, y_mm: float, height_mm: float, px_per_mm: float, colour=(0, 0, 0), centre: bool = True) -> None:
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
                _text(canvas, text, cx, min(ys) + 45, 4, px_per_mm, colour=(40, 40, 180) if a["flag"] == "english" else (160, 80, 20))
        else:
            _text(canvas, r.get("label", r["id"]), cx, cy, min(4.0, size / 5), px_per_mm)
    for m in layout["markers"]:
        draw_marker(canvas, m, px_per_mm)
        _text(canvas, f"{m['id']}", m["centre"][0], m["centre"][1] + m["size"] / 2 + 5.5, 3, px_per_mm)
    _text(canvas, layout["title"], 55, 4, 4, px_per_mm, centre=False)  # top margin, right of the corner marker
    return canvas


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
                _text(page, f"Overlap {OVERLAP_MM:.0f} mm: trim the right and bottom margins, lay the next page's picture over this one's last {OVERLAP_MM:.0f} mm, tape.", PAGE_MARGIN_MM, 10, 2.2, px_per_mm, centre=False)
            # 100 mm scale bar in the bottom margin
            y = ph - PAGE_MARGIN_MM / 2
            xa, xb = PAGE_MARGIN_MM, PAGE_MARGIN_MM + 100
            cv2.rectangle(page, (int(xa * px_per_mm), int((y - 1) * px_per_mm)), (int(xb * px_per_mm) - 1, int((y + 1) * px_per_mm)), (0, 0, 0), -1)
            for t in range(0, 101, 10):
                cv2.line(page, (int((xa + t) * px_per_mm), int((y - 2.5) * px_per_mm)), (int((xa + t) * px_per_mm), int((y - 1) * px_per_mm)), (0, 0, 0), 1)
            _text(page, "100 mm: measure this bar. If it is not 100 mm, print again at 100% / actual size (no fit to page).", xb + 3, y + 1, 2.4, px_per_mm, centre=False)
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
