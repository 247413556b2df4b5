"""The printable sticker sheet: every board's markers at true size (Wendake's, Iwari's, the colour card's), with
the board, the marker's id and where to stick it; ``sticker_pages(game=...)`` prints one game's boards alone.

Owners of the retail boards print this, cut the markers out (keeping the white border) and stick them on their
boards, each with its outer white edge touching the named board corner or edge. ``retail_layout`` then turns
a board's measured width and height into a layout with those marker positions, ready for tracing regions.
"""

from __future__ import annotations

from assistant.errors import UserError
from calibration import builtin
from calibration.layout import FORMAT, load_builtin
from calibration.markers import cells
from calibration.render import PAGE_MARGIN_MM, PAPER_MM, _text, draw_marker

STICK_INSET_MM = 0.0  # the marker's white border touches the board edge
ANY_GAME = "any"  # the ``game`` of a board every table uses (the colour card)
BOARDS = [
    "wendake-map-2p", "wendake-map-3p", "wendake-map-4p", "wendake-mask", "wendake-village-1", "wendake-village-2",
    "wendake-village-3", "wendake-village-4", "wendake-scores-a", "wendake-scores-b", "colour-card",
]  # fmt: skip
# Iwari's boards print DICT_4X4_250 codes; they join BOARDS once tests/test_markers.py reads that dictionary too
IWARI_BOARDS = ["iwari-standard", "iwari-floating-lands", "iwari-glacial-mass", "iwari-long-road", "iwari-display"]
EVERY_BOARD = BOARDS + IWARI_BOARDS


def boards_of(game: str | None = None) -> list[str]:
    """The boards the sheet prints: every one (``EVERY_BOARD``), or those of ``game`` (its layouts' ``game``) and those
    of ``ANY_GAME`` (the colour card, which every table uses). ``UserError`` for a game no board belongs to."""
    if game is None:
        return list(EVERY_BOARD)
    of = {b: builtin.read(b).get("game", ANY_GAME) for b in EVERY_BOARD}
    if game not in of.values() or game == ANY_GAME:
        games = sorted(set(of.values()) - {ANY_GAME})
        raise UserError(f"no built-in board belongs to the game {game!r}; use one of {', '.join(games)}.")
    return [b for b in EVERY_BOARD if of[b] == game] + [b for b in EVERY_BOARD if of[b] == ANY_GAME]


def place_name(marker: dict, size_mm) -> tuple[str, str]:
    """('left'|'middle'|'right', 'top'|'middle'|'bottom') of a marker on its board."""
    w, h = size_mm
    x, y = marker["centre"]
    hx = "left" if x < w / 3 else "right" if x > 2 * w / 3 else "middle"
    vy = "top" if y < h / 3 else "bottom" if y > 2 * h / 3 else "middle"
    return hx, vy


def where_text(marker: dict, size_mm) -> str:
    hx, vy = place_name(marker, size_mm)
    if hx != "middle" and vy != "middle":
        return f"{vy}-{hx} corner"
    w, h = size_mm
    if hx == "middle":
        return f"{vy} edge, {100 * marker['centre'][0] / w:.0f}% of the width from the left"
    return f"{hx} edge, {100 * marker['centre'][1] / h:.0f}% of the height from the top"


def retail_layout(plan_name: str, width_mm: float, height_mm: float, name: str) -> dict:
    """A layout skeleton for a retail board of the given size, markers placed as the sticker sheet says."""
    plan = load_builtin(plan_name)
    markers = []
    for m in plan["markers"]:
        hx, vy = place_name(m, plan["size_mm"])
        quiet = m["size"] / cells(m["dictionary"])
        r = m["size"] / 2 + quiet + STICK_INSET_MM
        pw, ph = plan["size_mm"]
        x = {"left": r, "middle": width_mm * m["centre"][0] / pw, "right": width_mm - r}[hx]
        y = {"top": r, "middle": height_mm * m["centre"][1] / ph, "bottom": height_mm - r}[vy]
        markers.append(
            {"dictionary": m["dictionary"], "id": m["id"], "centre": [round(x, 2), round(y, 2)], "size": m["size"], "rotation": 0}
        )
    if width_mm < 4 * markers[0]["size"] or height_mm < 2 * markers[0]["size"]:
        raise UserError(
            f"a {width_mm}x{height_mm} mm board is too small for {plan_name}'s markers. Check the measurements (millimetres)."
        )
    return {
        "format": FORMAT,
        "name": name,
        "title": f"{name} (retail board traced by its owner, markers as {plan_name})",
        "game": plan.get("game", "wendake"),
        "schematic": False,
        "size_mm": [width_mm, height_mm],
        "markers": markers,
        "regions": [
            {
                "id": "board",
                "kind": "area",
                "label": "whole board",
                "polygon": [[0, 0], [width_mm, 0], [width_mm, height_mm], [0, height_mm]],
            }
        ],
    }


def sticker_pages(paper: str = "a4", dpi: int = 300, game: str | None = None):
    """Page images of the boards' markers (``boards_of(game)``), each with its board, id and place. Returns (pages,
    page size mm)."""
    import cv2
    import numpy as np

    if paper not in PAPER_MM:
        raise UserError(f"unknown paper {paper!r}; use a4 or letter.")
    pw, ph = PAPER_MM[paper]
    k = dpi / 25.4
    cell_w, cell_h = 62.0, 66.0
    cols = int((pw - 2 * PAGE_MARGIN_MM) // cell_w)
    rows = int((ph - 2 * PAGE_MARGIN_MM - 14) // cell_h)
    items = []
    for board in boards_of(game):
        lay = builtin.read(board)  # the built-in boards are checked by tests/test_layout.py: only their markers count here
        for m in lay["markers"]:
            items.append((board, m, where_text(m, lay["size_mm"])))
    pages = []
    per_page = cols * rows
    for p in range(0, len(items), per_page):
        page = np.full((int(round(ph * k)), int(round(pw * k)), 3), 255, np.uint8)
        _text(
            page,
            "Tablewatch marker stickers - print at 100% (actual size). Cut along the grey line, keep the white border.",
            PAGE_MARGIN_MM,
            PAGE_MARGIN_MM,
            3,
            k,
            centre=False,
        )
        _text(
            page,
            "Stick each marker flat, its white border touching the named corner or edge of its board.",
            PAGE_MARGIN_MM,
            PAGE_MARGIN_MM + 5,
            3,
            k,
            centre=False,
        )
        for n, (board, m, where) in enumerate(items[p : p + per_page]):
            r, c = divmod(n, cols)
            x0 = PAGE_MARGIN_MM + c * cell_w
            y0 = PAGE_MARGIN_MM + 12 + r * cell_h
            quiet = m["size"] / cells(m["dictionary"])
            cx, cy = x0 + cell_w / 2, y0 + quiet + m["size"] / 2 + 1
            draw_marker(page, dict(m, centre=[cx, cy], rotation=0), k)
            half = m["size"] / 2 + quiet
            cv2.rectangle(
                page,
                (int((cx - half) * k), int((cy - half) * k)),
                (int((cx + half) * k), int((cy + half) * k)),
                (170, 170, 170),
                1,
            )
            _text(page, f"{board}  id {m['id']}  {m['size']:.0f} mm", cx, cy + half + 4, 2.3, k)
            _text(page, where, cx, cy + half + 8, 2.3, k)
        y = ph - PAGE_MARGIN_MM / 2
        cv2.rectangle(
            page, (int(PAGE_MARGIN_MM * k), int((y - 1) * k)), (int((PAGE_MARGIN_MM + 100) * k), int((y + 1) * k)), (0, 0, 0), -1
        )
        _text(page, "100 mm", PAGE_MARGIN_MM + 103, y + 1, 2.5, k, centre=False)
        pages.append(page)
    return pages, (pw, ph)
