"""Builds the tile galleries of the schematic edition from our own print art, drawn the way the scene generator
draws tiles (``models.synth.scene.draw_tiles``) at a few scales, turns and blurs, with the glyph references of every
label printed at the sharpnesses the scene generator draws boards at (1 to 4 px/mm: a name printed at 1 px/mm has
bolder strokes, seen at 2): ``calibration/tiles/wendake-schematic.npz`` for the village grid's tile slots (every
tile of the edition on both sides, plus the bare slot) and ``wendake-schematic-progress.npz`` for the progress
spaces (every progress tile face up, each level's back, and the bare space); and Iwari's card faces,
``iwari-cards.npz``, for the display slots (``iwari_card_samples``). Build-time only; the runtime reads the
committed ``.npz`` files through ``vision.tiles``.

    python -m models.tiles_gallery            # rewrites every gallery in calibration/tiles/
    python -m models.tiles_gallery DIR        # writes them into DIR instead
"""

from __future__ import annotations

import sys

import numpy as np

from assistant.wendake.edition import load_edition
from calibration.iwari_layouts import card_display_views, display_layout
from calibration.layout import load_builtin
from models.synth.art import draw_art
from models.synth.families import ART_VARIANTS, FAMILIES
from models.synth.scene import PAD_MM, board_art, draw_tiles
from vision.tiles import EMPTY, GALLERY_DIR, TILE_KINDS, build_gallery, slot_crop

GLYPH_PRINT_PX_PER_MM = (1.0, 1.5, 2.0, 3.0, 4.0)


def labels_of_edition(kind: str = "tile_slot") -> list[tuple[str, str]]:
    """(tile, side) of every label a region of ``kind`` can show: the grid tiles on both sides, or the progress
    tiles face up and each level's back (a progress tile used this year, W-PRG-3)."""
    ed = load_edition()
    if kind == "progress_space":
        return [(t, "front") for t in sorted(ed.progress)] + [(level, "back") for level in sorted({t[:2] for t in ed.progress})]
    ids = list(ed.basic_tiles) + [t for level in sorted(ed.advanced) for t in ed.advanced[level]]
    return [(t, side) for t in ids for side in ("action", "ritual")]


def render_samples(
    px_per_mm: float, rotation_deg: float, blur: float, rng, kind: str = "tile_slot"
) -> list[tuple[str, np.ndarray]]:
    import cv2

    layout = load_builtin("wendake-village-1")
    slots = [r for r in layout["regions"] if r["kind"] == kind]
    pad = int(round(PAD_MM * px_per_mm))
    out = []

    def crops(canvas, names):
        img = canvas[pad : canvas.shape[0] - pad, pad : canvas.shape[1] - pad]
        if blur > 0:
            img = cv2.GaussianBlur(img, (0, 0), blur)
        for slot, name in zip(slots, names):
            out.append((name, slot_crop(img, px_per_mm, slot["polygon"])))

    bare = board_art(layout, px_per_mm).copy()
    crops(bare, [EMPTY] * len(slots))
    labels = labels_of_edition(kind)
    for k in range(0, len(labels), len(slots)):
        chunk = labels[k : k + len(slots)]
        canvas = board_art(layout, px_per_mm).copy()
        tiles = [{"slot": s["id"], "tile": t, "side": side, "rotation_deg": rotation_deg} for s, (t, side) in zip(slots, chunk)]
        draw_tiles(canvas, layout, tiles, px_per_mm, rng)
        crops(canvas, [f"{t}:{side}" for t, side in chunk])
    return out


# the other art families of the training pool (models.synth.families; the held-out ones never) the display board is
# also drawn in, at these printings (``models.synth.art.draw_art`` variants): none the scene generator draws
# (0 to ART_VARIANTS - 1), so every rendered game measures a printing the gallery has not seen
GALLERY_ARTS = tuple(f for f in FAMILIES["art"]["familiar"] if f != "schematic")
GALLERY_ART_VARIANTS = tuple(range(ART_VARIANTS, ART_VARIANTS + 16))
IWARI_CARDS_SOURCE = (
    "schematic Iwari card faces (calibration.render.card_face) on the iwari-display slots and play spaces at 2 and "
    "3 px/mm, turned -2/0/2 degrees, and 3 mm off the middle each way, blur 0/1.2 px "
    "(calibration.iwari_layouts.card_display_views), on the schematic print; the bare spaces of the "
    f"{'/'.join(GALLERY_ARTS)} art printings {GALLERY_ART_VARIANTS[0]}-{GALLERY_ART_VARIANTS[-1]} (models.synth.art: "
    "none the scene generator draws); not the retail cards"
)
CARD_KINDS = ("display_slot", "play_space")  # the card-sized spaces of the display board, read against one gallery
CARD_OFFSETS_MM = ((-3.0, 0.0), (3.0, 0.0), (0.0, -3.0), (0.0, 3.0))  # a card laid off its space's middle


def iwari_card_samples() -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]]:
    """(samples, glyph samples) of Iwari's display slots and play spaces: each card colour face up and the bare
    space, drawn by ``calibration.iwari_layouts.card_display_views`` at 2 and 3 px/mm, turned -2/0/2 degrees or
    moved ``CARD_OFFSETS_MM``, blurred 0/1.2 px, on the schematic print; and the bare spaces of the board printed in
    each of ``GALLERY_ARTS`` at ``GALLERY_ART_VARIANTS`` (a bare play space printed in another art is no card:
    issue 34's painted display read 4 cards where 2 lay). The glyph references are the schematic's sharp, straight 3 px/mm
    crops."""
    import cv2

    lay = display_layout()
    spaces = {r["id"]: r for r in lay["regions"] if r["kind"] in CARD_KINDS}
    poses = [(rot, (0.0, 0.0)) for rot in (-2.0, 0.0, 2.0)] + [(0.0, off) for off in CARD_OFFSETS_MM]
    samples, glyphs = [], []
    for k in (2.0, 3.0):
        for rot, off in poses:
            for blur in (0.0, 1.2):
                for img, labels in card_display_views(k, rot, blur, lay, off, CARD_KINDS):
                    for sid, label in labels.items():
                        samples.append((label, slot_crop(img, k, spaces[sid]["polygon"])))
                        if (k, rot, off, blur) == (3.0, 0.0, (0.0, 0.0), 0.0):
                            glyphs.append(samples[-1])
    for art in GALLERY_ARTS:
        for variant in GALLERY_ART_VARIANTS:
            for k in (2.0, 3.0):
                bare = draw_art(lay, k, art, variant)
                for blur in (0.0, 1.2):
                    img = cv2.GaussianBlur(bare, (0, 0), blur) if blur else bare
                    samples += [(EMPTY, slot_crop(img, k, r["polygon"])) for r in spaces.values()]
    return samples, glyphs


def build(out_dir=None) -> str:
    """Writes one gallery per region kind read as tiles (``vision.tiles.TILE_KINDS``) into ``out_dir``."""
    from pathlib import Path

    lines = []
    for kind, name in TILE_KINDS.items():
        if kind == "play_space":
            continue  # read against the display slots' gallery (CARD_KINDS), written with it
        if kind == "display_slot":
            samples, glyphs = iwari_card_samples()
            gallery = build_gallery(samples, name, IWARI_CARDS_SOURCE, glyphs)
            path = Path(out_dir or GALLERY_DIR) / f"{name}.npz"
            gallery.save(path)
            lines.append(f"{path}: {len(samples)} samples, {len(set(gallery.labels))} labels")
            continue
        rng = np.random.default_rng(0)
        samples = []
        for px_per_mm in (2.0, 3.0):
            for rot in (-2.0, 0.0, 2.0):
                for blur in (0.0, 1.2):
                    samples += render_samples(px_per_mm, rot, blur, rng, kind)
        glyphs = [sample for px_per_mm in GLYPH_PRINT_PX_PER_MM for sample in render_samples(px_per_mm, 0.0, 0.0, rng, kind)]
        gallery = build_gallery(samples, name, "schematic print art (models/tiles_gallery.py), not the retail tiles", glyphs)
        path = Path(out_dir or GALLERY_DIR) / f"{name}.npz"
        gallery.save(path)
        lines.append(f"{path}: {len(samples)} samples, {len(set(gallery.labels))} labels")
    return "\n".join(lines)


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else None))
