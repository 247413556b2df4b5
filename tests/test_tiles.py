"""Tile reader (vision/tiles.py): the committed schematic gallery reads rendered tiles and bare slots, survives a
warmer light, and reports a stale or missing gallery clearly."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import UserError
from calibration.layout import load_builtin
from vision import tiles as T


@pytest.fixture(scope="module")
def village():
    """A village board at 2 px/mm with six known tiles drawn by the scene generator; three slots left bare."""
    from models.synth.scene import PAD_MM, board_art, draw_tiles

    layout = load_builtin("wendake-village-1")
    r = 2.0
    canvas = board_art(layout, r).copy()
    placed = {"slot.0": ("B-FISH", "action"), "slot.1": ("B-FIRE", "ritual"), "slot.3": ("A1-07", "action"),
              "slot.4": ("A2-11", "ritual"), "slot.6": ("B-MOVE", "action"), "slot.8": ("B-TAN", "ritual")}
    draw_tiles(canvas, layout, [{"slot": s, "tile": t, "side": side, "rotation_deg": 1.0} for s, (t, side) in placed.items()],
               r, np.random.default_rng(3))
    pad = int(round(PAD_MM * r))
    return layout, canvas[pad:-pad, pad:-pad].copy(), r, {s: f"{t}:{side}" for s, (t, side) in placed.items()}


def test_reads_every_tile_and_empty_slot(village):
    layout, view, r, truth = village
    got = T.read_tiles(view, r, layout)
    assert set(got) == {f"slot.{k}" for k in range(9)}
    for slot, (value, conf, others) in got.items():
        assert value == truth.get(slot), slot
        assert 0.0 <= conf <= 1.0
        assert all(conf - 1e-3 <= m < T.OTHERS_WITHIN and v != value for v, m in others)


def test_warmer_darker_light_keeps_the_labels(village):
    layout, view, r, truth = village
    warm = np.clip(view.astype(np.float32) * np.array([0.7, 0.85, 1.05]) * 0.8, 0, 255).astype(np.uint8)
    got = T.read_tiles(warm, r, layout)
    assert {s: read.value for s, read in got.items()} == {f"slot.{k}": truth.get(f"slot.{k}") for k in range(9)}


def test_gallery_round_trip_and_stale_gallery(tmp_path, village):
    layout, view, r, truth = village
    slot = next(x for x in layout["regions"] if x["id"] == "slot.0")
    crop = T.slot_crop(view, r, slot["polygon"])
    g = T.build_gallery([("B-FISH:action", crop), (T.EMPTY, np.full_like(crop, 200))], "mine", "my box")
    g.save(tmp_path / "mine.npz")
    back = T.TileGallery.load(tmp_path / "mine.npz")
    assert back.classify(T.features(crop))[0] == "B-FISH:action"
    stale = tmp_path / "stale.npz"
    np.savez(stale, labels=np.array(["a:action", "b:action"]), vectors=np.ones((2, 10), np.float32))
    with pytest.raises(UserError, match="rebuild"):
        T.TileGallery.load(stale)
    with pytest.raises(UserError, match="not found"):
        T.TileGallery.load(tmp_path / "nothing.npz")
