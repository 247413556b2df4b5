"""Iwari seen through the camera side: the observer's display slots are printed card faces read by the tile reader
against the ``iwari-cards`` gallery, and what the tile reader reads is what the observer expects."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.iwari import observer
from assistant.iwari.setup import new_game
from assistant.table.game import REGION_KINDS
from calibration import iwari_layouts as I
from calibration import layout as L
from calibration import render
from models import tiles_gallery
from models.synth.art import draw_art
from models.synth.families import ART_VARIANTS
from vision.assign import region_pieces
from vision.observe import Observer
from vision.tiles import GALLERY_DIR, TILE_KINDS, build_gallery, read_tiles


def test_display_slots_are_card_faces():
    state = new_game(["Ann", "Bo", "Cy"], seed=3)
    readings = observer.expected_readings(state)
    for slot, colour in enumerate(state.display, 1):
        key = observer.slot_key(slot)
        assert key == f"iwari-display/slot.{slot}#tile" and readings[key] == colour
        assert observer.region_kind(key) == "tile-face"
    kinds = {observer.region_kind(k) for k in readings}
    assert kinds <= set(REGION_KINDS) and {"tile-face", "top-of-stack", "count"} <= kinds


def test_a_card_face_read_maps_to_the_card_key():
    key = observer.slot_key(2)
    assert observer.shown_card({key: "forest"}, 2) == (("card:forest", 1),)
    assert observer.shown_card({key: None}, 2) == ()  # read empty
    assert observer.shown_card({}, 2) is None  # not read
    # the perfect camera shows each slot's card
    state = new_game(["Ann", "Bo"], seed=1)
    readings = observer.expected_readings(state)
    for slot in range(1, len(state.display) + 1):
        assert observer.shown_card(readings, slot) == observer.card(state.display[slot - 1])


# ---- the tile reader reads the card display ------------------------------------------------------------------------
def _display_with(cards, k: float, rotation_deg: float = 2.0, offset_mm=(1.0, -1.0)):
    """The iwari-display board rendered at ``k`` px/mm with ``cards`` (slot order, None: no card) face up, askew."""
    lay = L.load_builtin("iwari-display")
    img = render.render_board(lay, k)
    slots = {r["id"]: r for r in lay["regions"] if r["kind"] == "display_slot"}
    for n, colour in enumerate(cards, 1):
        if colour is not None:
            render.draw_card(img, slots[f"slot.{n}"]["polygon"], colour, k, I.CARD_MM, rotation_deg, offset_mm)
    return lay, img


def test_the_tile_reader_reads_display_slots_against_the_card_gallery():
    assert TILE_KINDS["display_slot"] == "iwari-cards"
    lay, img = _display_with(["desert", None, "glaciers", "tundra"], 2.0)
    reads = read_tiles(img, 2.0, lay)
    assert {rid: r.value for rid, r in reads.items()} == {
        "slot.1": "desert",
        "slot.2": None,
        "slot.3": "glaciers",
        "slot.4": "tundra",
        **{f"played.{i}": None for i in range(1, I.PLAY_SPACES + 1)},  # the bare play spaces
    }


@pytest.mark.parametrize("art", tiles_gallery.GALLERY_ARTS)
def test_a_display_printed_in_another_art_reads_its_bare_spaces_empty(art):
    """The display board printed in an art family of the training pool, at each printing the scene generator draws
    (``draw_art`` variants 0 to ``ART_VARIANTS`` - 1; the gallery holds none of them): its bare play spaces and
    slots read empty, and cards laid on it read as their colour (issue 34: a painted display read 4 cards where 2
    lay)."""
    assert not set(range(ART_VARIANTS)) & set(tiles_gallery.GALLERY_ART_VARIANTS)
    lay = L.load_builtin("iwari-display")
    spaces = {r["id"]: r for r in lay["regions"]}
    cards = {"slot.1": "glaciers", "slot.3": "coast", "played.1": "tundra", "played.2": "desert", "played.4": "forest"}
    for variant in range(ART_VARIANTS):
        for k in (2.0, 3.0):
            img = draw_art(lay, k, art, variant)
            bare = read_tiles(img, k, lay)
            assert {rid: r.value for rid, r in bare.items() if r.value is not None} == {}, (variant, k)
            for rid, colour in cards.items():
                render.draw_card(img, spaces[rid]["polygon"], colour, k, I.CARD_MM, -1.0, (1.0, 1.0))
            reads = read_tiles(img, k, lay)
            assert {rid: r.value for rid, r in reads.items() if r.value is not None} == cards, (variant, k)


@pytest.mark.parametrize("seed", [3, 8])
def test_the_camera_reads_the_display_as_the_observer_expects(seed):
    """A game's display rendered and read by the camera side (``vision.observe.Observer.read_view``, the detector
    included): each slot's ``#tile`` reading is the observer's expected card colour, and a card is no piece (a
    detection on a display slot is dropped: calibration/pieces/iwari.json)."""
    state = new_game(["Ann", "Bo", "Cy"], seed=seed)
    lay, img = _display_with(state.display, 2.0)
    readings = Observer([lay]).read_view("iwari-display", img, 2.0)
    expected = observer.expected_readings(state)
    for slot in range(1, len(state.display) + 1):
        key = observer.slot_key(slot)
        assert readings[key].value == expected[key], key
        assert readings[f"iwari-display/slot.{slot}"].value == ()


def test_every_iwari_region_kind_says_which_pieces_lie_there():
    """calibration/pieces/iwari.json covers every region kind of the Iwari boards, and vision finds it through the
    layouts' ``game`` alone."""
    allowed = region_pieces("iwari")
    for name in ("iwari-standard", "iwari-floating-lands", "iwari-glacial-mass", "iwari-long-road", "iwari-display"):
        lay = L.load_builtin(name)
        assert lay["game"] == "iwari"
        for r in lay["regions"]:
            assert r["kind"] in allowed, f"{name}/{r['id']}: kind {r['kind']} not in calibration/pieces/iwari.json"
            assert set(r.get("attributes", {}).get("pieces", [])) <= allowed[r["kind"]] | {"card"}, r["id"]
    assert allowed["tent_space"] == {"tent"} and allowed["totem_circle"] == {"totem"} and allowed["display_slot"] == frozenset()


def test_the_card_gallery_is_rebuilt_as_committed(tmp_path):
    """``python -m models.tiles_gallery`` writes calibration/tiles/iwari-cards.npz as committed (docs/layouts.md):
    its labels, source and glyphs byte for byte, and its float16 vectors to within float16 rounding, on a few
    values only. The rendering's last bit depends on the CPU's vector unit (an AMD EPYC without AVX-512: 443 of
    7.8 million values one float16 step off, at most 1.2e-4). The zip container around them is not compared: its
    headers depend on the Python that writes it (Debian's 3.11.2 writes no zip64 header where 3.11.7 does)."""
    samples, glyphs = tiles_gallery.iwari_card_samples()
    build_gallery(samples, "iwari-cards", tiles_gallery.IWARI_CARDS_SOURCE, glyphs).save(tmp_path / "iwari-cards.npz")
    built, kept = np.load(tmp_path / "iwari-cards.npz"), np.load(GALLERY_DIR / "iwari-cards.npz")
    assert sorted(built.files) == sorted(kept.files)
    for name in kept.files:
        a, b = built[name], kept[name]
        assert a.dtype == b.dtype and a.shape == b.shape, name
        if a.dtype.kind == "f":
            off = np.abs(a.astype(np.float32) - b.astype(np.float32))
            assert off.max() <= 1e-3 and (off > 0).mean() <= 1e-4, (name, float(off.max()), int((off > 0).sum()))
        else:
            assert np.array_equal(a, b), name
