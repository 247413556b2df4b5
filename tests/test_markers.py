"""Printing: rendered boards, PDF pages at true scale, and the sticker sheet, all read back by the detector."""

from __future__ import annotations

import re

import numpy as np

from assistant.apps.cli import main
from calibration import layout as L
from calibration import render, sheet
from calibration.layout import marker_corners_mm
from vision.markers import find_markers


def test_rendered_markers_sit_at_their_layout_corners():
    lay = L.load_builtin("wendake-map-2p")
    k = 3.0
    img = render.render_board(lay, k)
    assert img.shape[:2] == (round(400 * k), round(600 * k))
    found = find_markers(img, {"DICT_4X4_100"})
    assert {i for _, i in found} == {m["id"] for m in lay["markers"]}
    for m in lay["markers"]:
        want = np.array(marker_corners_mm(m)) * k - 0.5
        assert np.abs(found[("DICT_4X4_100", m["id"])] - want).max() < 1.0


def test_rotated_marker_is_drawn_and_read_with_the_same_convention():
    lay = L.load_builtin("colour-card")
    lay["markers"][0]["rotation"] = 30.0
    k = 4.0
    found = find_markers(render.render_board(lay, k), {"DICT_4X4_100"})
    m = lay["markers"][0]
    assert np.abs(found[("DICT_4X4_100", m["id"])] - (np.array(marker_corners_mm(m)) * k - 0.5)).max() < 1.5


def _media_boxes(pdf: bytes):
    return [tuple(float(v) for v in b) for b in re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)]


def test_render_pdf_tiles_the_map_on_a4_pages_at_true_scale(tmp_path, capsys):
    out = tmp_path / "map.pdf"
    assert main(["layout", "render", "wendake-map-2p", "--out", str(out), "--dpi", "100"]) == 0
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    boxes = _media_boxes(pdf)
    (pw, ph), cols, rows = render.page_grid((600, 400), "a4")
    assert len(boxes) == cols * rows > 1
    for w, h in boxes:  # A4 in points, either way round
        assert sorted((round(w, 1), round(h, 1))) == [595.3, 841.9]
    assert "Print at 100%" in capsys.readouterr().out


def test_tiled_pages_cover_the_whole_board():
    lay = L.load_builtin("wendake-mask")
    k = 2.0
    board = render.render_board(lay, k)
    pages, (pw, ph) = render.tile_pages(board, lay["size_mm"], k, "a4", "t")
    _, cols, rows = render.page_grid(lay["size_mm"], "a4")
    step_x = pw - 2 * render.PAGE_MARGIN_MM - render.OVERLAP_MM
    step_y = ph - 2 * render.PAGE_MARGIN_MM - render.OVERLAP_MM
    assert (cols - 1) * step_x + pw - 2 * render.PAGE_MARGIN_MM >= lay["size_mm"][0]
    assert (rows - 1) * step_y + ph - 2 * render.PAGE_MARGIN_MM >= lay["size_mm"][1]
    # every marker is found whole on at least one page
    seen = set()
    for page in pages:
        seen |= {i for _, i in find_markers(page, {"DICT_4X4_100"})}
    assert seen == {m["id"] for m in lay["markers"]}


def test_render_png(tmp_path):
    import cv2

    out = tmp_path / "card.png"
    assert main(["layout", "render", "colour-card", "--out", str(out), "--dpi", "127"]) == 0
    img = cv2.imread(str(out))
    assert img.shape[:2] == (round(148 * 5), round(210 * 5))


def test_sticker_sheet_has_every_board_marker_readable(tmp_path):
    pages, size = sheet.sticker_pages("a4", dpi=150)
    found = set()
    for page in pages:
        found |= set(find_markers(page, {"DICT_4X4_100"}))
    want = {(m["dictionary"], m["id"]) for b in sheet.BOARDS for m in L.load_builtin(b)["markers"]}
    assert found == want
    out = tmp_path / "stickers.pdf"
    assert main(["markers", "sheet", "--out", str(out)]) == 0
    assert len(_media_boxes(out.read_bytes())) == len(pages)


def test_retail_layout_places_markers_as_the_sheet_says(tmp_path):
    lay = sheet.retail_layout("wendake-map-4p", 620.0, 410.0, "my-map")
    assert L.validate(lay) == []
    ids = {m["id"]: m for m in lay["markers"]}
    assert ids[20]["centre"] == [24.0, 24.0]  # top-left: 36 mm marker + 6 mm white border touching the corner
    assert ids[22]["centre"] == [596.0, 386.0]
    assert sheet.where_text(L.load_builtin("wendake-map-4p")["markers"][4], (700, 500)).startswith("top edge")
