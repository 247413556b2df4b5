"""Iwari's boards as layouts: the schematic maps agree with the map data, the card display, printing with markers,
marker codes unique across every built-in board, the tracer's round trip, and the card faces' tile gallery."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest
from conftest_vision import homography_looking_at

from assistant.apps.cli import main
from assistant.iwari import observer
from assistant.iwari.edition import load_edition
from assistant.iwari.maps import builtin_map, load_map_file, map_from_json, map_names
from assistant.iwari.setup import new_game
from assistant.table.observation import split_reading_key
from calibration import builtin, render, sheet, trace
from calibration import iwari_layouts as I
from calibration import layout as L
from calibration.layout import centroid
from calibration.markers import cells, marker_image
from vision.markers import find_markers
from vision.tiles import TileGallery, features, slot_crop

MAPS = ["standard", "floating-lands", "glacial-mass", "long-road"]


def _of_kind(lay: dict, kind: str) -> dict[str, dict]:
    return {r["id"]: r for r in lay["regions"] if r["kind"] == kind}


def test_every_builtin_map_has_its_layout():
    assert sorted(map_names()) == sorted(MAPS)
    for name in MAPS:
        assert builtin.read(f"iwari-{name}")["game"] == "iwari"


@pytest.mark.parametrize("name", MAPS)
def test_map_layout_agrees_with_the_map(name):
    m = builtin_map(name)
    lay = L.load_builtin(f"iwari-{name}")  # load validates: schema, ids, parents, overlaps
    assert lay["schematic"] is True and "SCHEMATIC" in lay["title"] and "I-NIT-6" in lay["notes"]
    territories = _of_kind(lay, "territory")
    assert {t: r["attributes"]["colour"] for t, r in territories.items()} == m.territories
    tents = _of_kind(lay, "tent_space")
    assert set(tents) == set(m.tent_spaces)
    assert {s: r["parent"] for s, r in tents.items()} == m.tent_spaces
    assert all(r["attributes"]["capacity"] == 1 and r["attributes"]["pieces"] == ["tent"] for r in tents.values())
    totems = _of_kind(lay, "totem_circle")
    assert set(totems) == {f"totem.{t}" for t in m.territories}
    assert all(r["parent"] == r["id"].partition(".")[2] and r["attributes"]["reading"] == "top-of-stack" for r in totems.values())
    assert set(_of_kind(lay, "feat_space")) == {f"feat.{t}" for t in m.territories}
    # paths: each tent space lists its neighbours over paths, both ways, exactly the map's
    listed = {frozenset((s, t)) for s, r in tents.items() for t in r["attributes"]["paths"]}
    assert listed == {frozenset(p) for p in m.paths}
    # connections: number, territories, land or water, mountains, Floating Lands' ends
    conns = {r["attributes"]["connection"]: r for r in _of_kind(lay, "connection").values()}
    assert set(conns) == {c.id for c in m.connections}
    for c in m.connections:
        a = conns[c.id]["attributes"]
        assert (tuple(a["between"]), a["by"], a["mountain"]) == (c.between, c.by, c.mountain)
        assert tuple(a.get("ends", ())) == (c.ends or ())
        assert conns[c.id]["id"] == f"connection.{c.id}"
    # the road, in order (I-MAP-3)
    road = sorted((r for r in tents.values() if "road" in r["attributes"]), key=lambda r: r["attributes"]["road"])
    assert tuple(r["id"] for r in road) == m.road


def test_no_printed_line_crosses_a_space_or_a_totem():
    """A path is drawn as a straight line from centre to centre: it must leave every other tent space alone, and
    every totem circle (a Floating Lands line between a connection's ends may pass under one, nothing else)."""
    for name in MAPS:
        lay = builtin.read(f"iwari-{name}")
        tents = {s: (centroid(r["polygon"]), r) for s, r in _of_kind(lay, "tent_space").items()}
        totems = [centroid(r["polygon"]) for r in _of_kind(lay, "totem_circle").values()]
        lines = {tuple(sorted((s, t))) for s, (_, r) in tents.items() for t in r["attributes"]["paths"]}
        for a, b in lines:
            pa, pb = tents[a][0], tents[b][0]
            for s, (p, _) in tents.items():
                if s not in (a, b):
                    assert I._seg_point_dist(p, pa, pb) > I.TENT_MM / 2, f"{name}: path {a}-{b} crosses {s}"
            for p in totems:
                assert I._seg_point_dist(p, pa, pb) > I.TOTEM_MM / 2, f"{name}: path {a}-{b} crosses a totem circle"


def test_shipped_files_are_what_the_generator_writes():
    for name, data in I.all_layouts().items():
        shipped = json.loads((L.LAYOUTS_DIR / f"{name}.json").read_text())
        assert shipped == json.loads(L.dumps(data)), f"run python -m calibration.iwari_layouts ({name} is stale)"


def test_the_display_board_has_the_editions_display():
    lay = L.load_builtin("iwari-display")
    n = load_edition().display_size
    slots = _of_kind(lay, "display_slot")
    assert set(slots) == {f"slot.{i}" for i in range(1, n + 1)}
    assert all(r["attributes"]["reading"] == "tile-face" for r in slots.values())
    assert {r["id"] for r in lay["regions"] if r["kind"] == "card_space"} == {"deck", "discard"}
    spaces = _of_kind(lay, "play_space")
    assert set(spaces) == {f"played.{i}" for i in range(1, I.PLAY_SPACES + 1)}
    assert all(r["attributes"]["reading"] == "tile-face" and r["attributes"]["capacity"] == 1 for r in spaces.values())
    # each slot and each play space holds a whole card
    for r in [*slots.values(), *spaces.values()]:
        (x0, y0), (x1, y1) = r["polygon"][0], r["polygon"][2]
        assert x1 - x0 > I.CARD_MM[0] and y1 - y0 > I.CARD_MM[1]
    assert "slot.7" in _of_kind(I.display_layout(size=7), "display_slot")


@pytest.mark.parametrize("feats", [False, True], ids=["base", "feats"])
@pytest.mark.parametrize("name", MAPS)
def test_every_region_the_game_reads_is_on_a_board(name, feats):
    state = new_game(["Ann", "Bo", "Cy"], seed=3, map=name, feats=feats)
    boards = {b: L.region_by_id(L.load_builtin(b)) for b in (f"iwari-{name}", "iwari-display")}
    keys = list(observer.expected_readings(state))
    for key in keys:
        board, region, _ = split_reading_key(key)
        if key in (observer.PLAYED, observer.PLAY_AREA):  # the play spaces' reads together (observer.played_readings)
            assert {r for r, reg in boards[board].items() if reg["kind"] == "play_space"} == set(observer.play_spaces())
            continue
        assert region in boards[board], f"{key} has no region on {board}"
    # with feats on, every feat space and every connection band is read
    read = {split_reading_key(k)[1] for k in keys}
    feat_regions = {r for r, reg in boards[f"iwari-{name}"].items() if reg["kind"] in ("feat_space", "connection")}
    assert (feat_regions <= read) == feats and (feat_regions & read == set()) != feats


def test_marker_codes_are_unique_across_every_builtin_board():
    """A table may hold both games' boxes: no two markers of the built-in boards may print the same code, in any
    turn. DICT_4X4_250 begins with DICT_4X4_100's codes, so markers are compared as printed, not as (dictionary, id)."""
    owner: dict[bytes, str] = {}
    for name in sorted(p.stem for p in L.LAYOUTS_DIR.glob("*.json")):
        for m in builtin.read(name)["markers"]:  # tests/test_layout.py validates every built-in layout
            me = f"{name} id {m['id']}"
            code = marker_image(m["dictionary"], m["id"], cells(m["dictionary"]))  # one pixel a code cell
            for turn in range(4):
                key = np.rot90(code, turn).tobytes()
                assert owner.setdefault(key, me) == me, f"{me} prints the code of {owner[key]}"


def test_render_and_print_an_iwari_map(tmp_path, capsys):
    png = tmp_path / "board.png"
    assert main(["layout", "render", "iwari-standard", "--out", str(png), "--dpi", "51"]) == 0
    img = cv2.imread(str(png))
    k = 51 / 25.4
    lay = L.load_builtin("iwari-standard")
    found = find_markers(img, {I.DICTIONARY})
    assert {i for _, i in found} == {m["id"] for m in lay["markers"]}
    for m in lay["markers"]:  # each marker printed where the layout says
        want = np.array(L.marker_corners_mm(m)) * k - 0.5
        assert np.abs(found[(I.DICTIONARY, m["id"])] - want).max() < 1.5
    pdf = tmp_path / "board.pdf"
    capsys.readouterr()
    assert main(["layout", "render", "iwari-standard", "--out", str(pdf), "--dpi", "60"]) == 0
    pages = render.page_grid(tuple(lay["size_mm"]), "a4")[1] * render.page_grid(tuple(lay["size_mm"]), "a4")[2]
    assert f"on {pages} A4 page(s)" in capsys.readouterr().out
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.read_bytes().count(b"/Type /Page ") == pages


def test_the_sticker_sheet_prints_every_iwari_marker(tmp_path, capsys):
    """``tablewatch markers sheet`` prints the Iwari boards' stickers, readable; ``--game iwari`` prints them alone,
    with the colour card."""
    iwari = sorted(I.all_layouts())
    every = sheet.boards_of()
    assert set(iwari) <= set(every) and sheet.boards_of("iwari") == [*sorted(iwari, key=every.index), "colour-card"]
    pages, _ = sheet.sticker_pages("a4", dpi=150, game="iwari")
    found = set()
    for page in pages:
        found |= set(find_markers(page, {I.DICTIONARY}))
    want = {(m["dictionary"], m["id"]) for b in iwari for m in builtin.read(b)["markers"]}
    assert {k for k in found if k[1] >= 100} == want  # below 100: the colour card's DICT_4X4_100 codes, read as 4X4_250
    out = tmp_path / "stickers.pdf"
    assert main(["markers", "sheet", "--out", str(out), "--game", "iwari"]) == 0
    assert f"{len(pages)} A4 page(s)" in capsys.readouterr().out
    assert main(["markers", "sheet", "--out", str(out), "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "iwari, wendake" in err


def _match(original: dict, traced: dict) -> dict[str, str]:
    """Original region id -> traced region id, by kind and nearest centre."""
    out = {}
    for r in original["regions"]:
        c = centroid(r["polygon"])
        same = [t for t in traced["regions"] if t["kind"] == r["kind"]]
        out[r["id"]] = min(same, key=lambda t: math.dist(c, centroid(t["polygon"])))["id"]
    return out


def _assert_same_map(lay: dict, result: trace.IwariTrace, numbers_read: bool = True) -> None:
    got = result.layout
    assert sorted(r["kind"] for r in got["regions"]) == sorted(r["kind"] for r in lay["regions"])
    match = _match(lay, got)
    assert len(set(match.values())) == len(match)
    orig, new = L.region_by_id(lay), L.region_by_id(got)
    for rid, tid in match.items():
        a, b = orig[rid], new[tid]
        assert math.dist(centroid(a["polygon"]), centroid(b["polygon"])) < 2.0, f"{rid} traced {tid} too far"
        xa = [p[0] for p in a["polygon"]]
        xb = [p[0] for p in b["polygon"]]
        assert abs((max(xa) - min(xa)) - (max(xb) - min(xb))) < 3.0, f"{rid} traced {tid} at another size"
        if a["kind"] == "territory":
            assert b["attributes"]["colour"] == a["attributes"]["colour"]
        if a["kind"] == "tent_space":
            assert b["parent"] == match[a["parent"]]
            assert sorted(b["attributes"]["paths"]) == sorted(match[s] for s in a["attributes"]["paths"])
            assert ("road" in b["attributes"]) == ("road" in a["attributes"])
        if a["kind"] == "connection":
            x, y = a["attributes"], b["attributes"]
            assert (y["by"], y["mountain"]) == (x["by"], x["mountain"])
            assert sorted(y["between"]) == sorted(match[t] for t in x["between"])
            assert y.get("ends", []) == [match[s] for s in x.get("ends", [])]
            if numbers_read:
                assert y["connection"] == x["connection"]
            else:  # a number may go unread (and then it says so), never misread
                assert y["connection"] == x["connection"] or any(y["connection"] in p for p in result.problems)
    road = [
        match[r["id"]]
        for r in sorted((r for r in lay["regions"] if "road" in r.get("attributes", {})), key=lambda r: r["attributes"]["road"])
    ]
    assert result.map.get("road", []) in (road, road[::-1])


@pytest.mark.parametrize("name", MAPS)
def test_trace_reads_back_the_schematic_art(name):
    lay = L.load_builtin(f"iwari-{name}")
    result = trace.trace_iwari(render.render_board(lay, 2.0), 2.0, lay)
    assert result.problems == []
    _assert_same_map(lay, result)
    # the traced map is a map the game takes, the same as the built-in one up to names
    m = map_from_json(result.map)
    want = builtin_map(name)
    assert sorted(m.territories.values()) == sorted(want.territories.values())
    assert len(m.tent_spaces) == len(want.tent_spaces) and len(m.paths) == len(want.paths)
    assert sorted(c.id for c in m.connections) == sorted(c.id for c in want.connections)
    assert m.special == want.special


def test_trace_survives_a_warm_light_a_soft_focus_and_noise():
    lay = L.load_builtin("iwari-long-road")
    img = render.render_board(lay, 2.5).astype(np.float32) * np.array([0.80, 0.86, 0.93])
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    img = np.clip(img + np.random.default_rng(0).normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    result = trace.trace_iwari(img, 2.5, lay)
    _assert_same_map(lay, result, numbers_read=False)
    assert all("not read" in p for p in result.problems)


def test_trace_a_photo_through_rectify(tmp_path):
    """The owner's way: a tilted photo of the printed map, rectified by its markers, then traced."""
    lay = L.load_builtin("iwari-floating-lands")
    k = 3.0
    board = render.render_board(lay, k)
    H = homography_looking_at(lay, frame_size=(2400, 2400), fill=0.8, tilt=0.15, angle_deg=3)
    S = np.diag([k, k, 1.0])
    S[0, 2] = S[1, 2] = -0.5
    photo = cv2.warpPerspective(board, H @ np.linalg.inv(S), (2400, 2400), borderValue=(60, 80, 100))
    cv2.imwrite(str(tmp_path / "photo.png"), photo)
    top = tmp_path / "top.png"
    assert (
        main(
            [
                "layout",
                "rectify",
                str(tmp_path / "photo.png"),
                "--layout",
                "iwari-floating-lands",
                "--out",
                str(top),
                "--px-per-mm",
                "3",
            ]
        )
        == 0
    )
    result = trace.trace_iwari(cv2.imread(str(top)), 3.0, lay)
    _assert_same_map(lay, result, numbers_read=False)


def _trace_cli(tmp_path, image, k: float, name: str, *extra) -> int:
    cv2.imwrite(str(tmp_path / "top.png"), image)
    argv = ["layout", "trace-iwari", str(tmp_path / "top.png"), "--px-per-mm", str(k), "--layout", name]
    return main([*argv, "--out", str(tmp_path / "map-layout.json"), "--map-out", str(tmp_path / "map.json"), *extra])


def test_trace_iwari_command_writes_the_layout_and_the_map(tmp_path, capsys):
    lay = L.load_builtin("iwari-glacial-mass")
    assert _trace_cli(tmp_path, render.render_board(lay, 2.0), 2.0, "iwari-glacial-mass") == 0
    out = capsys.readouterr().out
    assert "12 territories" in out and "map special: glacial-mass" in out and "nothing else to check by hand" in out
    traced = L.load(tmp_path / "map-layout.json")  # load validates it
    _assert_same_map(lay, trace.IwariTrace(traced, json.loads((tmp_path / "map.json").read_text()), []))
    m, want = load_map_file(tmp_path / "map.json"), builtin_map("glacial-mass")  # the game takes the map
    assert sorted(c.id for c in m.connections) == sorted(c.id for c in want.connections) and m.special == want.special


def test_trace_iwari_command_lists_what_to_check_by_hand(tmp_path, capsys):
    """Under a warm light, a soft focus and noise at 2 px/mm some connection numbers go unread: both files are
    written, and each unread number is a line to check by hand."""
    lay = L.load_builtin("iwari-glacial-mass")
    img = render.render_board(lay, 2.0).astype(np.float32) * np.array([0.80, 0.86, 0.93])
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    img = np.clip(img + np.random.default_rng(0).normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    assert _trace_cli(tmp_path, img, 2.0, "iwari-glacial-mass") == 0
    out = capsys.readouterr().out
    unread = [line for line in out.splitlines() if line.startswith("  - ")]
    assert unread and all("was not read" in line for line in unread) and f"check by hand ({len(unread)})" in out
    assert (tmp_path / "map-layout.json").is_file() and (tmp_path / "map.json").is_file()


@pytest.mark.parametrize(
    "what, argv_change, message",
    [
        ("another scale", {"k": 3.0}, "give the --px-per-mm"),
        ("too coarse a scale", {"k": 1.0}, "not a scale a map is traced at"),
        ("another board", {"name": "iwari-display"}, "give the --px-per-mm and --layout"),
        ("no such layout", {"name": "iwari-nowhere"}, "no built-in layout"),
        ("no map in it", {"blank": True}, "no territory"),
        ("no image", {"missing": True}, "no image"),
    ],
)
def test_trace_iwari_command_refuses_bad_input_in_one_line(tmp_path, capsys, what, argv_change, message):
    k, name = argv_change.get("k", 2.0), argv_change.get("name", "iwari-standard")
    if argv_change.get("missing"):
        argv = ["layout", "trace-iwari", str(tmp_path / "nothing.png"), "--px-per-mm", "2", "--layout", name]
        rc = main([*argv, "--out", str(tmp_path / "map-layout.json"), "--map-out", str(tmp_path / "b.json")])
    else:
        image = np.full((1040, 1340, 3), 255, np.uint8)  # iwari-standard at 2 px/mm
        if not argv_change.get("blank"):
            image = render.render_board(L.load_builtin("iwari-standard"), 2.0)
        rc = _trace_cli(tmp_path, image, k, name)
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "map-layout.json").exists()


def test_trace_refuses_an_image_without_a_map():
    with pytest.raises(trace.UserError, match="no territory"):
        trace.trace_iwari(np.full((200, 300, 3), 255, np.uint8), 2.0, L.load_builtin("iwari-standard"))


def test_card_gallery_reads_each_card_colour():
    gallery = TileGallery.load("iwari-cards")
    assert sorted(set(gallery.labels)) == sorted([*I.COLOURS, "empty"])
    lay = L.load_builtin("iwari-display")
    slots = list(_of_kind(lay, "display_slot").values())
    k = 2.5  # a scale the gallery was not built at, a card put down askew and off centre, a dimmer light
    for first in range(len(I.COLOURS)):
        img = render.render_board(lay, k)
        want = {}
        for n, r in enumerate(slots):
            colour = I.COLOURS[(first + n) % len(I.COLOURS)]
            render.draw_card(img, r["polygon"], colour, k, I.CARD_MM, rotation_deg=3.0, offset_mm=(1.5, -1.0))
            want[r["id"]] = colour
        img = (img * 0.85).astype(np.uint8)
        reads = gallery.classify_many(np.stack([features(slot_crop(img, k, r["polygon"])) for r in slots]))
        assert {r["id"]: label for r, (label, _, _) in zip(slots, reads)} == want
    bare = render.render_board(lay, k)
    reads = gallery.classify_many(np.stack([features(slot_crop(bare, k, r["polygon"])) for r in slots]))
    assert [label for label, _, _ in reads] == ["empty"] * len(slots)
