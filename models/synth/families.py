"""Families: the named ways a real table differs from the classic scene, axis by axis, and the familiar / foreign
pools they are drawn from (issue 34 §1).

A **table look** (``Look``) is one family per axis plus that family's concrete parameters, drawn from one
generator: the board art, the piece geometry, the materials, the light, the camera and the table top. A
training scene draws its families from the **familiar** pool. The **foreign** pool holds families that are
never drawn in familiar mode (``HELD_OUT``: an art style with its palette, a piece-shape family with its
edition's colours, a lighting family); the foreign-table set (docs/foreign-set.md) is rendered from it, so it
measures a table the base model has never seen. Axes without a held-out family draw from the same pool in
both modes. The **randomised** mode is for training only: the familiar pool on every axis but those of
``RANDOMISED`` (board art: a random palette printing, ``art.random_style``; pieces: random sizes and colours,
``pieces.piece_style("random")``), which no table of either pool draws.

``draw_look(rng, mode)`` is the only entry point; the drawing itself lives where it always did: board art in
``art.py``, piece shapes and materials in ``pieces.py``, light, camera and table top in ``effects.py``.
Game-neutral.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from models.synth.art import RANDOM_PRINTINGS
from models.synth.pieces import Light, PieceStyle, piece_style

MODES = ("familiar", "foreign", "randomised")

# axis -> {mode: families}. A family in both pools is shared; a family only under "foreign" is held out.
FAMILIES: dict[str, dict[str, tuple[str, ...]]] = {
    "art": {"familiar": ("schematic", "parchment", "painted", "pastel"), "foreign": ("lacquer",)},
    "pieces": {"familiar": ("classic", "chunky", "slim"), "foreign": ("pawn",)},
    "material": {"familiar": ("wood", "paint", "gloss"), "foreign": ("wood", "paint", "gloss")},
    "light": {"familiar": ("studio", "lamp", "window", "dim"), "foreign": ("mixed",)},
    "camera": {"familiar": ("good", "phone", "pi", "webcam"), "foreign": ("good", "phone", "pi", "webcam")},
    "table": {"familiar": ("wood", "felt", "skin", "pattern", "dark"), "foreign": ("wood", "felt", "skin", "pattern", "dark")},
}
AXES = tuple(FAMILIES)
HELD_OUT = {axis: tuple(f for f in pools["foreign"] if f not in pools["familiar"]) for axis, pools in FAMILIES.items()}
# axis -> the training-only families the randomised mode draws there instead
RANDOMISED = {"art": ("random",), "pieces": ("random",)}


def pool(axis: str, mode: str) -> tuple[str, ...]:
    """The families of ``axis`` a scene in ``mode`` draws from."""
    if mode not in MODES:
        raise ValueError(f"family mode must be one of {MODES}, not {mode!r}")
    if mode == "randomised":
        return RANDOMISED.get(axis, FAMILIES[axis]["familiar"])
    return FAMILIES[axis][mode]


@dataclass
class Look:
    """One table's look: a family per axis and its parameters (docs/synth.md, "Families")."""

    mode: str
    families: dict[str, str]
    art_variant: int
    pieces: PieceStyle
    material: dict
    lights: list[Light]
    light: dict  # kelvin, wb_kelvin, exposure, field spec, mixed: second kelvin and its side
    camera: dict
    table: dict
    seed: int = 0  # for what must stay the same in every frame of a table (its clutter)
    colours: dict = field(default_factory=dict)  # player colour name -> BGR of this edition (before the scene's jitter)

    def to_json(self) -> dict:
        return {"mode": self.mode, "families": dict(self.families), "art_variant": self.art_variant, "seed": self.seed,
                "material": self.material, "light": self.light, "camera": self.camera, "table": self.table,
                "lights": [{"azimuth_deg": round(li.azimuth_deg, 2), "elevation_deg": round(li.elevation_deg, 2),
                            "strength": round(li.strength, 3), "softness_mm": li.softness_mm} for li in self.lights]}


def draw_families(rng: np.random.Generator, mode: str) -> dict[str, str]:
    """One family per axis from ``mode``'s pool."""
    return {axis: str(rng.choice(pool(axis, mode))) for axis in AXES}


def draw_look(rng: np.random.Generator, mode: str, families: dict[str, str] | None = None) -> Look:
    """A table look in ``mode`` (``families`` pins some axes; the rest are drawn)."""
    fam = draw_families(rng, mode)
    fam.update(families or {})
    style = piece_style(fam["pieces"], rng)
    lights, light = _light(fam["light"], rng)
    printings = RANDOM_PRINTINGS if fam["art"] == "random" else ART_VARIANTS
    return Look(mode, fam, int(rng.integers(0, printings)), style, _material(fam["material"], rng), lights, light,
                _camera(fam["camera"], rng), _table(fam["table"], rng), int(rng.integers(0, 2**31)), dict(style.colours))


ART_VARIANTS = 3  # printings per art family (palette jitter, decorations); few, so that board art caches well


def _u(rng, lo, hi) -> float:
    return round(float(rng.uniform(lo, hi)), 4)


def _material(name: str, rng) -> dict:
    if name == "wood":  # bare or stained wood: visible grain, duller colour, more piece-to-piece variation
        return {"family": name, "grain": _u(rng, 0.08, 0.2), "gloss": 0.0, "sat": _u(rng, 0.75, 0.95), "val": _u(rng, 0.85, 1.0), "var": _u(rng, 0.04, 0.08)}
    if name == "paint":  # painted wood: flat, saturated, even
        return {"family": name, "grain": 0.0, "gloss": _u(rng, 0.0, 0.15), "sat": _u(rng, 1.0, 1.15), "val": _u(rng, 0.95, 1.08), "var": _u(rng, 0.01, 0.03)}
    return {"family": name, "grain": 0.0, "gloss": _u(rng, 0.3, 0.6), "sat": _u(rng, 0.95, 1.1), "val": _u(rng, 0.95, 1.05), "var": _u(rng, 0.01, 0.03)}


def _lamp(rng, elevation=(50, 80), strength=(0.4, 0.6), softness=(1.0, 3.0)) -> Light:
    return Light(_u(rng, 0, 360), _u(rng, *elevation), _u(rng, *strength), float(rng.choice(softness)))


def _light(name: str, rng) -> tuple[list[Light], dict]:
    """(lights, spec) of a lighting family. ``field``: "spots" (n lamp spots + vignetting, the classic field),
    "lamp" (one strong spot, dark beyond), "window" (a gradient from one side), "mixed" (a gradient whose colour
    goes from one colour temperature to another)."""
    if name == "studio":  # the classic scene: 1-3 lights of any colour temperature, white balance near daylight
        n = int(rng.choice([1, 1, 2, 3]))
        lights = [Light(_u(rng, 0, 360), _u(rng, 35, 80), round(float(rng.uniform(0.25, 0.6)) / math.sqrt(i + 1), 4),
                        float(rng.choice([0.3, 1.0, 3.0, 8.0]))) for i in range(n)]
        return lights, {"family": name, "kelvin": _u(rng, 2700, 6500), "wb_kelvin": _u(rng, 4000, 6000), "exposure": _u(rng, 0.8, 1.25),
                        "field": {"kind": "spots", "n": n}, "noise_gain": 1.0}
    if name == "lamp":  # one warm lamp over the table: a hot spot, hard shadows, a white balance that does not fully correct it
        return [_lamp(rng)], {"family": name, "kelvin": _u(rng, 2700, 3900), "wb_kelvin": _u(rng, 3800, 5500), "exposure": _u(rng, 0.85, 1.2),
                              "field": {"kind": "lamp", "x": _u(rng, 0.2, 0.8), "y": _u(rng, 0.2, 0.8), "sigma": _u(rng, 0.35, 0.7),
                                        "floor": _u(rng, 0.3, 0.55)}, "noise_gain": 1.3}
    if name == "window":  # daylight from one side: low, soft, a strong gradient across the table
        az = _u(rng, 0, 360)
        return [Light(az, _u(rng, 20, 45), _u(rng, 0.3, 0.5), 8.0)], {
            "family": name, "kelvin": _u(rng, 5500, 7500), "wb_kelvin": _u(rng, 4500, 6000), "exposure": _u(rng, 0.9, 1.2),
            "field": {"kind": "window", "angle_deg": az, "low": _u(rng, 0.45, 0.7), "high": _u(rng, 1.1, 1.35)}, "noise_gain": 1.0}
    if name == "dim":  # a dim room: the camera's gain turned up (dark, noisy), warm-ish light
        n = int(rng.choice([1, 2]))
        return [_lamp(rng, strength=(0.2, 0.4), softness=(3.0, 8.0)) for _ in range(n)], {
            "family": name, "kelvin": _u(rng, 2700, 4500), "wb_kelvin": _u(rng, 4000, 5500), "exposure": _u(rng, 0.45, 0.7),
            "field": {"kind": "spots", "n": n}, "noise_gain": _u(rng, 2.0, 3.0)}
    if name == "mixed":  # held out: a warm lamp on one side, cool daylight on the other, the colour changing across the table
        az = _u(rng, 0, 360)
        return [_lamp(rng, strength=(0.35, 0.55)), Light((az + 180) % 360, _u(rng, 20, 45), _u(rng, 0.2, 0.35), 8.0)], {
            "family": name, "kelvin": _u(rng, 2600, 3300), "kelvin2": _u(rng, 6000, 8000), "wb_kelvin": _u(rng, 4200, 5200),
            "exposure": _u(rng, 0.85, 1.15), "field": {"kind": "mixed", "angle_deg": az, "low": _u(rng, 0.6, 0.8), "high": _u(rng, 1.05, 1.25)},
            "noise_gain": 1.4}
    raise ValueError(f"no light family {name!r}")


def _camera(name: str, rng) -> dict:
    """Sensor and processing of a camera family: noise (luma sigma range), chroma noise share and its blotch size,
    white-balance error (BGR gains), sharpening, denoise smear, down-sampling, lens shading, JPEG quality range,
    motion blur chance and rolling-shutter skew."""
    wb = lambda k: [round(float(v), 4) for v in 1 + rng.uniform(-k, k, 3)]
    if name == "good":
        return {"family": name, "noise": [1.0, 7.0], "chroma": 0.5, "blotch": 2, "wb": [1.0, 1.0, 1.0], "sharpen": 0.0, "smear": 0.0,
                "down": 1.0, "shading": 0.0, "jpeg": [60, 96], "motion_p": 0.3, "defocus_p": 0.35, "rolling": 0.0}
    if name == "phone":  # small sensor, heavy processing: denoise smear, sharpening halos, blotchy chroma noise
        return {"family": name, "noise": [3.0, 8.0], "chroma": 0.8, "blotch": 4, "wb": wb(0.08), "sharpen": _u(rng, 0.4, 1.0),
                "smear": _u(rng, 0.3, 0.8), "down": 1.0, "shading": _u(rng, 0.05, 0.2), "jpeg": [70, 93], "motion_p": 0.2,
                "defocus_p": 0.2, "rolling": _u(rng, 0.0, 0.02)}
    if name == "pi":  # a Raspberry Pi camera: noisy, lens shading, a green or magenta cast, rolling shutter
        return {"family": name, "noise": [3.0, 9.0], "chroma": 0.6, "blotch": 2, "wb": wb(0.1), "sharpen": _u(rng, 0.0, 0.4),
                "smear": 0.0, "down": 1.0, "shading": _u(rng, 0.15, 0.35), "jpeg": [75, 96], "motion_p": 0.3, "defocus_p": 0.3,
                "rolling": _u(rng, 0.01, 0.04)}
    if name == "webcam":  # a cheap webcam: soft (fewer real pixels), strong JPEG, a white-balance error
        return {"family": name, "noise": [2.0, 6.0], "chroma": 0.5, "blotch": 3, "wb": wb(0.12), "sharpen": _u(rng, 0.0, 0.6),
                "smear": 0.0, "down": _u(rng, 0.55, 0.8), "shading": _u(rng, 0.05, 0.25), "jpeg": [45, 80], "motion_p": 0.35,
                "defocus_p": 0.3, "rolling": _u(rng, 0.0, 0.03)}
    raise ValueError(f"no camera family {name!r}")


SKIN_CLOTHS = [(170, 200, 240), (140, 175, 225), (110, 150, 205), (80, 120, 175), (120, 130, 215), (110, 100, 200), (150, 150, 235)]


def _table(name: str, rng) -> dict:
    """A table top family: wood, felt (any colour), skin (skin-toned or pink-red cloth or wood), pattern
    (gingham or stripes), dark; ``clutter``: how many sleeved cards, card fans, sheets, cups and phones lie around."""
    clutter = int(rng.integers(1, 6))
    if name == "wood":
        return {"family": name, "kind": "wood", "base": [_u(rng, 40, 110), _u(rng, 80, 150), _u(rng, 120, 200)], "clutter": clutter}
    if name == "felt":
        return {"family": name, "kind": "cloth", "base": [_u(rng, 30, 200) for _ in range(3)], "clutter": clutter}
    if name == "skin":
        base = np.array(SKIN_CLOTHS[int(rng.integers(0, len(SKIN_CLOTHS)))], float) * rng.uniform(0.85, 1.1)
        return {"family": name, "kind": str(rng.choice(["cloth", "wood"])), "base": [round(float(v), 2) for v in np.clip(base, 0, 255)], "clutter": clutter}
    if name == "pattern":
        return {"family": name, "kind": str(rng.choice(["gingham", "stripes"])), "base": [_u(rng, 150, 240) for _ in range(3)],
                "second": [_u(rng, 20, 200) for _ in range(3)], "period_mm": _u(rng, 15, 45), "clutter": clutter}
    if name == "dark":
        return {"family": name, "kind": str(rng.choice(["cloth", "wood"])), "base": [_u(rng, 15, 45) for _ in range(3)], "clutter": clutter}
    raise ValueError(f"no table family {name!r}")
