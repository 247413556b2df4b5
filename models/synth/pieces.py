"""Pieces: the game-neutral piece model, the shape library, and drawing pieces with volume, shading and shadows.

A ``Piece`` is one labelled object on a board (or a stack of identical tokens, ``count`` > 1). Its shape is a list
of extruded parts (a footprint polygon in mm around the piece's centre, from height z0 to z1 above the board).

Drawing is exact for a pinhole camera without ray tracing: a point (u, v) at height z, seen from the camera centre
(cu, cv) at height h, hits the board plane at c + (p - c) h / (h - z). Drawing every face of a piece at those
"parallax" positions on a top-down board canvas and then warping the canvas with the board's homography gives the
perspective image of the solid. Faces turned away from the camera are skipped, the rest are painted far to near.
Shadows are the same trick with a directional light instead of the camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Piece:
    cls: str  # one of models.synth.CLASSES (or a game's own class)
    colour: str  # red | blue | green | yellow | black | none
    board: str  # board name (layout name)
    x: float  # centre on the board, mm
    y: float
    rotation_deg: float = 0.0  # turn of the piece's footprint on the board
    region: str | None = None  # the layout region it belongs to
    side: str | None = None  # tokens: "colour" | "grey" (women, hunters)
    count: int = 1  # tokens in a stack
    z0: float = 0.0  # base height (a disk lying on another disk)
    extra: bool = False  # not part of the game state (e.g. an occasional black Mohawk warrior)

    @property
    def pose(self) -> str:
        if self.cls in ("warrior_standing", *STANDING_CLASSES):
            return "standing"
        if self.cls == "warrior_lying":
            return "lying"
        return "flat"


@dataclass
class Part:
    footprint: np.ndarray  # (N, 2) mm, counter-clockwise on screen or not (orientation is detected)
    z0: float
    z1: float
    material: str = "wood"  # wood | card
    colour: tuple | None = None  # BGR, None = the piece's colour
    top_colour: tuple | None = None
    decals: list = field(default_factory=list)  # ("circle", (x, y), r, bgr) | ("poly", [[x, y]...], bgr) | ("line", [[x, y]...], w, bgr)


# ---------------------------------------------------------------------------------------------- shapes

PLAYER_BGR = {
    "red": (40, 45, 200), "blue": (185, 95, 30), "green": (60, 150, 45), "yellow": (40, 205, 240),
    "black": (38, 36, 34), "none": (160, 170, 180),
}
NEUTRAL_BGR = {
    "leather": (60, 105, 160), "fish": (200, 160, 90), "corn": (50, 200, 245), "beans": (50, 45, 140),
    "pumpkins": (30, 120, 240), "beaver": (45, 80, 120), "fire_token": (30, 90, 225), "swap_token": (150, 200, 225),
    "grey": (150, 150, 145), "card_edge": (150, 170, 180), "card_face": (205, 225, 235),
}


def circle(r: float, n: int = 20, sx: float = 1.0, sy: float = 1.0) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([r * sx * np.cos(a), r * sy * np.sin(a)], 1)


def rect(w: float, h: float, r: float = 0.0) -> np.ndarray:
    if r <= 0:
        return np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    pts = []
    for cx, cy, a0 in ((w / 2 - r, -h / 2 + r, -90), (w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90), (-w / 2 + r, -h / 2 + r, 180)):
        for k in range(4):
            a = math.radians(a0 + k * 30)
            pts.append([cx + r * math.cos(a), cy + r * math.sin(a)])
    return np.array(pts)


MEEPLE = np.array([  # a warrior lying on its back, 16 x 20 mm, head toward -y
    [0, -10], [2.6, -9.2], [3.4, -7], [2.8, -5], [7.5, -4.2], [8, -1.5], [4.2, 0.2], [6.5, 9.5], [1.8, 10], [0, 5],
    [-1.8, 10], [-6.5, 9.5], [-4.2, 0.2], [-8, -1.5], [-7.5, -4.2], [-2.8, -5], [-3.4, -7], [-2.6, -9.2]], float)
CANOE = np.array([[-17, 0], [-13, -3.2], [-6, -4.6], [6, -4.6], [13, -3.2], [17, 0], [13, 3.2], [6, 4.6], [-6, 4.6], [-13, 3.2]], float)
FISH = np.array([[-10, 0], [-7, -3.5], [-1, -4.5], [5, -3], [7, -0.8], [10.5, -4], [10.5, 4], [7, 0.8], [5, 3], [-1, 4.5], [-7, 3.5]], float)
LEATHER = np.array([[-8, -6], [-3, -5], [0, -7.5], [3, -5], [8, -6], [7, -1], [8.5, 5], [3, 4.5], [0, 7], [-3, 4.5], [-8.5, 5], [-7, -1]], float)
BEAN = np.array([[-5.5, -1], [-4, -3.8], [0, -4.2], [4, -3.8], [5.5, -1], [4.5, 3], [1.5, 3.6], [0, 2.2], [-1.5, 3.6], [-4.5, 3]], float)
CORN = circle(1, 14, 9.0, 4.0)
# Iwari's pieces (models/synth/iwari.py), schematic stand-ins: the text gives no piece's size or shape (I-COMP-3). A
# tent is a tepee of four stepped octagonal tiers (16 mm across at the base, 15 mm tall, on a 22 mm tent space); a
# totem a carved block (14 x 14 mm, 9 mm) on a 10 mm neck, so that a stack shows one block per totem from the side
TENT_TIERS = ((8.0, 0.0, 4.0), (6.2, 4.0, 8.0), (4.3, 8.0, 12.0), (2.3, 12.0, 15.0))  # (radius, z0, z1) mm
TOTEM_BLOCK = (14.0, 9.0)  # side, height mm
TOTEM_NECK = (10.0, 1.5)
TOTEM_H_MM = TOTEM_BLOCK[1] + TOTEM_NECK[1]  # a totem's height: the next totem of a stack stands on it
STANDING_CLASSES = ("tent", "totem")  # Iwari's upright pieces: their label's pose is "standing"


def shape(piece: Piece, colour_bgr: dict[str, tuple], style: PieceStyle | None = None) -> list[Part]:
    """The parts of a piece; ``colour_bgr`` maps colour names to this scene's (jittered) BGR; ``style``: a piece
    family's geometry (``piece_style``; None: the classic pieces, exactly as before families existed)."""
    c = colour_bgr.get(piece.colour, PLAYER_BGR["none"])
    if style is not None:
        return _styled_shape(piece, c, style)
    cls = piece.cls
    if cls == "warrior_standing":
        return [Part(rect(13, 8, 1.5), 0, 13), Part(circle(3.6, 12), 13, 19)]
    if cls == "warrior_lying":
        return [Part(MEEPLE, 0, 8)]
    if cls == "canoe":
        return [Part(CANOE, 0, 6, decals=[("poly", (CANOE * [0.7, 0.55]).tolist(), _scale(c, 0.6))])]
    if cls == "tribe_disk":
        return [Part(circle(8, 22), 0, 5)]
    if cls == "action_marker":
        return [Part(circle(6, 16), 0, 10)]
    if cls in ("woman", "hunter"):
        h = 2.2 * max(1, piece.count)
        grey = piece.side == "grey"
        face = NEUTRAL_BGR["grey"] if grey else c
        decals = [("circle", (0, 0), 7.5, NEUTRAL_BGR["card_face"] if not grey else (120, 120, 118))]
        ink = (40, 40, 40)
        if cls == "woman":
            decals += [("circle", (0, -3.2), 2.0, ink), ("poly", [[-3.5, 5], [0, -1], [3.5, 5]], ink)]
        else:
            decals += [("line", [[-3, -5], [2.5, -2], [3.5, 0], [2.5, 2], [-3, 5]], 1.0, ink), ("line", [[-3, -5], [-3, 5]], 0.6, ink)]
        return [Part(circle(11, 24), 0, h, "card", NEUTRAL_BGR["card_edge"], face, decals)]
    if cls in ("leather", "fish", "corn", "beans", "pumpkins"):
        col = NEUTRAL_BGR[cls]
        if cls == "leather":
            return [Part(LEATHER, 0, 5, colour=col)]
        if cls == "fish":
            return [Part(FISH, 0, 6, colour=col, decals=[("circle", (-6, -1), 0.9, (30, 30, 30))])]
        if cls == "corn":
            return [Part(CORN, 0, 7, colour=col, decals=[("line", [[-6, 0], [6, 0]], 0.6, _scale(col, 0.75))])]
        if cls == "beans":
            return [Part(BEAN, 0, 5, colour=col)]
        return [Part(circle(6.5, 16), 0, 8, colour=col, decals=[("line", [[0, -6.5], [0, 6.5]], 0.6, _scale(col, 0.7)), ("circle", (0, 0), 1.3, (40, 90, 60))])]
    if cls == "beaver":
        return [Part(rect(20, 20, 3), 0, 2.2, "card", NEUTRAL_BGR["card_edge"], NEUTRAL_BGR["beaver"],
                     [("circle", (0, -1), 5, (70, 110, 150)), ("poly", [[-2.5, 3], [2.5, 3], [3, 8], [-3, 8]], (40, 60, 80))])]
    if cls == "fire_token":
        return [Part(circle(10, 20), 0, 2.2, "card", NEUTRAL_BGR["card_edge"], (40, 40, 60),
                     [("poly", [[0, -7], [4.5, 2], [2, 6], [-2, 6], [-4.5, 2]], NEUTRAL_BGR["fire_token"]), ("poly", [[0, -2], [2, 3], [0, 5], [-2, 3]], (80, 220, 250))])]
    if cls == "swap_token":
        return [Part(rect(18, 18, 2), 0, 2.2, "card", NEUTRAL_BGR["card_edge"], NEUTRAL_BGR["swap_token"],
                     [("line", [[-5, -3], [5, -3], [2.5, -5.5]], 1.0, (60, 60, 60)), ("line", [[5, 3], [-5, 3], [-2.5, 5.5]], 1.0, (60, 60, 60))])]
    if cls == "tent":
        parts = [Part(circle(r, 8), z0, z1) for r, z0, z1 in TENT_TIERS]
        parts[-1].decals = [("circle", (0, 0), 1.2, (50, 60, 70))]  # the poles' tips
        return parts
    if cls == "totem":
        side, h = TOTEM_BLOCK
        neck, nh = TOTEM_NECK
        ink = _scale(c, 0.45)
        face = [("circle", (-2.4, -2.0), 1.2, ink), ("circle", (2.4, -2.0), 1.2, ink), ("poly", [[-1.8, 0.8], [1.8, 0.8], [0, 4.0]], ink)]
        return [Part(rect(side, side, 1.5), 0, h), Part(rect(neck, neck, 1.0), h, h + nh, decals=face)]
    raise ValueError(f"no shape for class {cls!r}")


# ---------------------------------------------------------------------------------------------- piece families


@dataclass
class PieceStyle:
    """A piece family's geometry and print (``piece_style``): every size in mm. ``meeple``: standing warrior
    (body w, d, corner radius, body height, head radius, head top, head "round" | "ball" | "flat"); ``lying``
    (outline name, x scale, y scale, height); ``canoe`` (x scale, y scale, height, raised ends' height);
    ``disk`` (radius, height); ``marker`` ("cylinder" | "cube", radius or half side, height); ``res``: per
    resource and beaver (x scale, y scale, height); ``bevel``, ``wear``: 0-1 (a lit rim on top faces, chipped
    paint on edges); ``faces``: "classic" | "bold" (token print); ``colours``: this edition's player colours;
    ``neutral``: its resource and token colours."""

    name: str
    meeple: tuple = (13.0, 8.0, 1.5, 13.0, 3.6, 19.0, "round")
    lying: tuple = ("meeple", 1.0, 1.0, 8.0)
    canoe: tuple = (1.0, 1.0, 6.0, 0.0)
    disk: tuple = (8.0, 5.0)
    marker: tuple = ("cylinder", 6.0, 10.0)
    res: dict = field(default_factory=dict)
    bevel: float = 0.0
    wear: float = 0.0
    faces: str = "classic"
    colours: dict = field(default_factory=lambda: dict(PLAYER_BGR))
    neutral: dict = field(default_factory=lambda: dict(NEUTRAL_BGR))


STUBBY = np.array([  # held-out lying warrior: a big round head, short arms, wide legs (18 x 20 mm)
    [0, -10], [3.6, -9.4], [5, -7], [4.2, -4.6], [8.5, -3.2], [8.6, 0], [4.8, 0.8], [8.5, 9.6], [2.2, 10], [0, 6.2],
    [-2.2, 10], [-8.5, 9.6], [-4.8, 0.8], [-8.6, 0], [-8.5, -3.2], [-4.2, -4.6], [-5, -7], [-3.6, -9.4]], float)
DUGOUT = np.array([[-19, 0], [-14, -2.6], [-6, -4.2], [6, -4.2], [14, -2.6], [19, 0], [14, 2.6], [6, 4.2], [-6, 4.2], [-14, 2.6]], float)


def _hsv_shift(bgr, dh: float, ks: float, kv: float) -> tuple:
    import cv2

    hsv = cv2.cvtColor(np.uint8([[np.clip(bgr, 0, 255)]]), cv2.COLOR_BGR2HSV)[0, 0].astype(float)
    hsv = [(hsv[0] + dh) % 180, min(255.0, hsv[1] * ks), min(255.0, hsv[2] * kv)]
    return tuple(float(v) for v in cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0])


def _edition(rng, spread: float) -> dict:
    """Player colours of another edition: each hue, saturation and value moved by up to ``spread`` (0-1)."""
    out = {k: _hsv_shift(v, rng.uniform(-8, 8) * spread, 1 + rng.uniform(-0.25, 0.1) * spread, 1 + rng.uniform(-0.2, 0.15) * spread)
           for k, v in PLAYER_BGR.items() if k != "none"}
    out["none"] = PLAYER_BGR["none"]
    return out


def piece_style(name: str, rng) -> PieceStyle:
    """The geometry of a piece family, with a little of its own variation drawn from ``rng``."""
    j = lambda lo, hi: round(float(rng.uniform(lo, hi)), 3)
    if name == "classic":
        return PieceStyle(name, bevel=j(0, 0.2), wear=j(0, 0.2), colours=_edition(rng, 0.3))
    if name == "chunky":
        return PieceStyle(name, meeple=(15.0, 10.0, 2.5, 12.0, 4.2, 18.5, "round"), lying=("meeple", 1.1, 1.05, 10.0),
                          canoe=(1.05, 1.3, 7.0, 0.0), disk=(9.0, 6.0), marker=("cylinder", 6.5, 11.0),
                          res={"corn": (1.0, 1.2, 8.0), "beans": (1.15, 1.15, 6.0), "beaver": (1.1, 1.1, 2.5), "pumpkins": (1.08, 1.08, 9.0),
                               "leather": (1.1, 1.1, 6.0), "fish": (1.05, 1.1, 7.0)},
                          bevel=j(0.3, 0.8), wear=j(0, 0.4), colours=_edition(rng, 0.6))
    if name == "slim":
        return PieceStyle(name, meeple=(11.0, 7.0, 1.0, 15.0, 3.0, 21.0, "round"), lying=("meeple", 0.95, 0.95, 6.0),
                          canoe=(1.12, 0.78, 5.0, 0.0), disk=(7.5, 4.0), marker=("cylinder", 5.5, 12.0),
                          res={"corn": (1.05, 0.85, 6.0), "beans": (0.9, 0.9, 4.5), "beaver": (0.9, 0.9, 2.0), "pumpkins": (0.92, 0.92, 7.0),
                               "leather": (0.95, 0.95, 4.0), "fish": (1.1, 0.9, 5.0)},
                          bevel=j(0, 0.3), wear=j(0, 0.3), colours=_edition(rng, 0.6))
    if name == "pawn":  # held out: pawn warriors, stubby lying meeples, dug-out canoes, thick disks, cube markers, wooden beavers
        neutral = dict(NEUTRAL_BGR)
        neutral.update({"corn": (30, 185, 250), "beans": (45, 40, 120), "pumpkins": (20, 105, 225), "beaver": (40, 70, 110),
                        "leather": (70, 125, 175), "fish": (175, 150, 120)})
        return PieceStyle(name, meeple=(11.0, 11.0, 5.5, 14.0, 4.5, 22.0, "ball"), lying=("stubby", 1.0, 1.0, 9.0),
                          canoe=(1.0, 1.0, 6.5, 11.0), disk=(8.5, 7.0), marker=("cube", 5.5, 11.0),
                          res={"corn": (0.75, 1.5, 9.0), "beans": (1.2, 1.4, 5.0), "beaver": (0.9, 0.65, 7.0), "pumpkins": (1.1, 1.1, 9.0),
                               "leather": (1.0, 1.0, 5.0), "fish": (1.2, 0.9, 6.0)},
                          bevel=j(0.6, 1.0), wear=j(0.3, 0.8), faces="bold", colours=_edition(rng, 1.0), neutral=neutral)
    if name == "random":
        return _random_style(j, rng)
    raise ValueError(f"no piece family {name!r}")


RESOURCES = ("leather", "fish", "corn", "beans", "pumpkins", "beaver")


def _random_style(j, rng) -> PieceStyle:
    """The training-only ``"random"`` family (``families.RANDOMISED``): every size drawn across and a little beyond
    the familiar families', any edition's colours, resource colours moved in hue, saturation and value; never one of
    the held-out pawn's shapes (ball head, stubby lying warrior, raised canoe ends, 7 mm disks, cube markers, wooden
    beavers, bold token faces)."""
    w, body_h = j(10.0, 16.0), j(11.0, 16.0)
    neutral = dict(NEUTRAL_BGR)
    neutral.update({k: _hsv_shift(NEUTRAL_BGR[k], j(-10, 10), 1 + j(-0.3, 0.2), 1 + j(-0.25, 0.2)) for k in RESOURCES})
    res = {k: (j(0.85, 1.15), j(0.8, 1.3), j(5.0, 9.0)) for k in ("corn", "pumpkins")}
    res.update({k: (j(0.85, 1.2), j(0.85, 1.2), j(3.5, 7.0)) for k in ("beans", "leather", "fish")})
    res["beaver"] = (j(0.85, 1.15), j(0.85, 1.15), j(1.8, 3.0))
    return PieceStyle("random", meeple=(w, j(6.5, min(w, 11.0)), j(0.5, 3.0), body_h, j(2.8, 4.6), body_h + j(4.5, 7.5), "round"),
                      lying=("meeple", j(0.9, 1.15), j(0.9, 1.1), j(5.5, 10.5)), canoe=(j(0.95, 1.15), j(0.75, 1.35), j(4.5, 7.5), 0.0),
                      disk=(j(7.0, 9.5), j(3.5, 6.5)), marker=("cylinder", j(5.0, 7.0), j(9.0, 13.0)), res=res,
                      bevel=j(0.0, 0.9), wear=j(0.0, 0.7), colours=_edition(rng, 0.9), neutral=neutral)


def _styled_shape(piece: Piece, c, st: PieceStyle) -> list[Part]:
    cls = piece.cls
    if cls == "warrior_standing":
        w, d, r, h, hr, top, head = st.meeple
        body = circle(w / 2, 16, 1.0, d / w) if r >= min(w, d) / 2 else rect(w, d, r)
        if head == "ball":
            return [Part(body, 0, h), Part(circle(hr * 0.7, 12), h, h + 1.5), Part(circle(hr, 14), h + 1.5, top)]
        return [Part(body, 0, h), Part(circle(hr, 12), h, top)]
    if cls == "warrior_lying":
        outline, sx, sy, h = st.lying
        return [Part((STUBBY if outline == "stubby" else MEEPLE) * [sx, sy], 0, h)]
    if cls == "canoe":
        sx, sy, h, ends = st.canoe
        hull = (DUGOUT if ends else CANOE) * [sx, sy]
        parts = [Part(hull, 0, h, decals=[("poly", (hull * [0.7, 0.55]).tolist(), _scale(c, 0.6))])]
        if ends:  # raised bow and stern
            for sgn in (-1, 1):
                parts.append(Part(circle(2.2, 10) + [sgn * 15.5 * sx, 0], h, ends))
        return parts
    if cls == "tribe_disk":
        return [Part(circle(st.disk[0], 22), 0, st.disk[1])]
    if cls == "action_marker":
        kind, r, h = st.marker
        return [Part(rect(2 * r, 2 * r, 0.8) if kind == "cube" else circle(r, 16), 0, h)]
    if cls in ("woman", "hunter"):
        h = 2.2 * max(1, piece.count)
        grey = piece.side == "grey"
        face = NEUTRAL_BGR["grey"] if grey else c
        ink = (40, 40, 40) if st.faces == "classic" or grey else (235, 235, 235)
        if st.faces == "classic":
            decals = [("circle", (0, 0), 7.5, NEUTRAL_BGR["card_face"] if not grey else (120, 120, 118))]
        else:  # bold print: the face all in the token's colour, a ring and a light icon
            decals = [("line", (circle(8.6, 24)).tolist() + [circle(8.6, 24)[0].tolist()], 0.7, ink)]
        if cls == "woman":
            decals += [("circle", (0, -3.2), 2.0, ink), ("poly", [[-3.5, 5], [0, -1], [3.5, 5]], ink)]
        else:
            decals += [("line", [[-3, -5], [2.5, -2], [3.5, 0], [2.5, 2], [-3, 5]], 1.0, ink), ("line", [[-3, -5], [-3, 5]], 0.6, ink)]
        return [Part(circle(11, 24), 0, h, "card", NEUTRAL_BGR["card_edge"], face, decals)]
    if cls in ("leather", "fish", "corn", "beans", "pumpkins"):
        col = st.neutral[cls]
        sx, sy, h = st.res.get(cls, (1.0, 1.0, {"leather": 5, "fish": 6, "corn": 7, "beans": 5, "pumpkins": 8}[cls]))
        if cls == "leather":
            return [Part(LEATHER * [sx, sy], 0, h, colour=col)]
        if cls == "fish":
            return [Part(FISH * [sx, sy], 0, h, colour=col, decals=[("circle", (-6 * sx, -1), 0.9, (30, 30, 30))])]
        if cls == "corn":
            return [Part(CORN * [sx, sy], 0, h, colour=col, decals=[("line", [[-6 * sx, 0], [6 * sx, 0]], 0.6, _scale(col, 0.75))])]
        if cls == "beans":
            return [Part(BEAN * [sx, sy], 0, h, colour=col)]
        return [Part(circle(6.5 * sx, 16), 0, h, colour=col, decals=[("line", [[0, -6.5 * sx], [0, 6.5 * sx]], 0.6, _scale(col, 0.7)),
                                                                    ("circle", (0, 0), 1.3, (40, 90, 60))])]
    if cls == "beaver":
        sx, sy, h = st.res.get("beaver", (1.0, 1.0, 2.2))
        col = st.neutral["beaver"]
        if h > 4:  # a wooden beaver: a rounded body and a flat tail
            return [Part(rect(20 * sx, 20 * sy, 5), 0, h, colour=col, decals=[("circle", (0, -2 * sy), 3.5, _scale(col, 1.3))]),
                    Part(rect(7, 8, 2) + [0, 13 * sy], 0, 2.5, colour=_scale(col, 0.7))]
        return [Part(rect(20 * sx, 20 * sy, 3), 0, h, "card", NEUTRAL_BGR["card_edge"], col,
                     [("circle", (0, -1), 5 * sx, (70, 110, 150)), ("poly", [[-2.5, 3], [2.5, 3], [3, 8], [-3, 8]], (40, 60, 80))])]
    return shape(piece, st.colours)  # tokens the families do not change (Sacred Fire, swap)


def _scale(bgr, k: float) -> tuple:
    return tuple(float(min(255, v * k)) for v in bgr)


def piece_points(piece: Piece, parts: list[Part]) -> np.ndarray:
    """Every outline vertex of the piece as (u, v, height) in board mm: what bounds it in any view."""
    a = math.radians(piece.rotation_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out = []
    for p in parts:
        uv = p.footprint @ rot.T + [piece.x, piece.y]
        for z in (p.z0, p.z1):
            out.append(np.column_stack([uv, np.full(len(uv), z + piece.z0)]))
    return np.concatenate(out)


# ---------------------------------------------------------------------------------------------- drawing


@dataclass
class Light:
    """A directional light as seen from the table: toward (azimuth, elevation), table frame."""

    azimuth_deg: float
    elevation_deg: float
    strength: float  # how dark its shadow is, 0..1
    softness_mm: float  # shadow blur

    def vector(self, board_rotation_deg: float) -> np.ndarray:
        """Unit vector toward the light in a board's frame: (u, v, up)."""
        az = math.radians(self.azimuth_deg - board_rotation_deg)
        el = math.radians(self.elevation_deg)
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


class BoardPainter:
    """Draws pieces onto one board's top-down canvas (BGR + alpha), ``s`` px per mm, ``pad`` mm around the board."""

    def __init__(self, canvas, alpha, s: float, pad: float, cam_uvh: tuple[float, float, float], lights: list, light_vecs: list, colour_bgr: dict, rng,
                 style: PieceStyle | None = None, material: dict | None = None):
        self.canvas, self.alpha, self.s, self.pad = canvas, alpha, s, pad
        self.cu, self.cv, self.ch = cam_uvh
        self.lights, self.lvecs = lights, light_vecs
        self.colour_bgr = colour_bgr
        self.rng = rng
        self.style, self.material = style, material  # a piece family and a material family (None: the classic pieces)

    def px(self, uv: np.ndarray, z: float) -> np.ndarray:
        """Board mm at height z -> canvas pixels (parallax toward the camera)."""
        k = self.ch / (self.ch - z)
        c = np.array([self.cu, self.cv])
        p = c + (uv - c) * k
        return (p + self.pad) * self.s - 0.5

    def draw(self, pieces: list[Piece]) -> None:
        if not pieces:
            return
        order = sorted(range(len(pieces)), key=lambda i: (-round(math.hypot(pieces[i].x - self.cu, pieces[i].y - self.cv), 1), pieces[i].z0))
        shapes = [shape(p, self.colour_bgr, self.style) for p in pieces]
        self._shadows(pieces, shapes)
        for i in order:
            self._draw_piece(pieces[i], shapes[i])

    def _transform(self, piece: Piece):
        a = math.radians(piece.rotation_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return lambda pts: np.asarray(pts, float) @ rot.T + [piece.x, piece.y]

    def _shadows(self, pieces, shapes) -> None:
        import cv2

        h, w = self.canvas.shape[:2]
        shade = np.ones((h, w), np.float32)
        for light, lv in zip(self.lights, self.lvecs):
            mask = np.zeros((h, w), np.uint8)
            off = -lv[:2] / max(lv[2], 0.15)  # shadow displacement per mm of height
            for piece, parts in zip(pieces, shapes):
                tf = self._transform(piece)
                for part in parts:
                    base = tf(part.footprint)
                    z0, z1 = part.z0 + piece.z0, part.z1 + piece.z0
                    pts = np.concatenate([base + off * z0, base + off * z1])
                    hull = cv2.convexHull(((pts + self.pad) * self.s * 16).astype(np.int32))
                    cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
            k = max(1, int(light.softness_mm * self.s * 2) | 1)
            if k > 1:
                mask = cv2.GaussianBlur(mask, (k, k), 0)
            shade *= 1.0 - mask.astype(np.float32) * (light.strength / 255.0)
        # contact shadow (ambient occlusion) right around each base
        ao = np.zeros((h, w), np.uint8)
        for piece, parts in zip(pieces, shapes):
            base = self._transform(piece)(parts[0].footprint)
            cv2.fillPoly(ao, [((base + self.pad) * self.s * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        k = max(3, int(1.5 * self.s) * 2 + 1)
        ao = cv2.GaussianBlur(ao, (k, k), 0)
        shade *= 1.0 - ao.astype(np.float32) * (0.35 / 255.0)
        self.canvas[:] = (self.canvas * shade[..., None]).astype(np.uint8)

    def _face_light(self, normal3) -> float:
        ambient = 0.45
        d = sum(l.strength * 1.1 * max(0.0, float(normal3 @ v)) for l, v in zip(self.lights, self.lvecs))
        return ambient + min(0.75, d)

    def _draw_piece(self, piece: Piece, parts: list[Part]) -> None:
        import cv2

        tf = self._transform(piece)
        base_col = np.array(self.colour_bgr.get(piece.colour, PLAYER_BGR["none"]), float)
        mat = self.material
        wood_var = 1.0 + self.rng.normal(0, 0.04 if mat is None else mat["var"])
        for part in parts:
            col = np.array(part.colour if part.colour is not None else base_col, float) * wood_var
            if mat is not None and part.material == "wood":  # stain or paint: saturation and value of the wood
                grey = col.mean()
                col = np.clip((grey + (col - grey) * mat["sat"]) * mat["val"], 0, 255)
            top_col = np.array(part.top_colour if part.top_colour is not None else col, float)
            fp = tf(part.footprint)
            z0, z1 = part.z0 + piece.z0, part.z1 + piece.z0
            b, t = self.px(fp, z0), self.px(fp, z1)
            n = len(fp)
            area2 = np.sum(fp[:, 0] * np.roll(fp[:, 1], -1) - np.roll(fp[:, 0], -1) * fp[:, 1])
            sign = 1.0 if area2 > 0 else -1.0  # y-down frame: positive area = clockwise on screen
            faces = []
            cam = np.array([self.cu, self.cv])
            for i in range(n):
                j = (i + 1) % n
                e = fp[j] - fp[i]
                normal = sign * np.array([e[1], -e[0]]) / (math.hypot(e[0], e[1]) + 1e-9)
                if normal @ (cam - (fp[i] + fp[j]) / 2) <= 0:
                    continue
                shade = self._face_light(np.array([normal[0], normal[1], 0.0]))
                faces.append((i, np.array([b[i], b[j], t[j], t[i]]), shade))
            for _, quad, shade in faces:
                c = np.clip(col * shade * 0.85, 0, 255)
                q16 = np.round(quad * 16).astype(np.int32)
                cv2.fillConvexPoly(self.canvas, q16, c.tolist(), cv2.LINE_AA, shift=4)
                cv2.fillConvexPoly(self.alpha, q16, 255, cv2.LINE_AA, shift=4)
            if part.material == "card" and piece.count > 1 and faces:  # stacked tokens: the seams between them
                for k in range(1, piece.count):
                    ring = np.round(self.px(fp, z0 + (z1 - z0) * k / piece.count) * 16).astype(np.int32)
                    for i, _, _ in faces:
                        cv2.line(self.canvas, tuple(ring[i]), tuple(ring[(i + 1) % n]), (70, 80, 90), 1, cv2.LINE_AA, shift=4)
            top_shade = self._face_light(np.array([0.0, 0.0, 1.0]))
            poly = np.round(t * 16).astype(np.int32)
            cv2.fillPoly(self.canvas, [poly], np.clip(top_col * top_shade, 0, 255).tolist(), cv2.LINE_AA, shift=4)
            cv2.fillPoly(self.alpha, [poly], 255, cv2.LINE_AA, shift=4)
            cv2.polylines(self.canvas, [poly], True, np.clip(top_col * top_shade * 1.18 + 10, 0, 255).tolist(), 1, cv2.LINE_AA, shift=4)
            if (mat is not None or self.style is not None) and part.material == "wood":
                self._finish(piece, part, t, top_col * top_shade)
            for decal in part.decals:
                self._decal(decal, tf, z1, top_shade)

    def _finish(self, piece: Piece, part: Part, top, top_col) -> None:
        """Material and wear on a wooden part's top face (``top``: its outline in canvas px): grain lines, a gloss
        highlight toward the main light, a lit bevel rim and chipped paint on the rim."""
        import cv2

        mat, st = self.material or {}, self.style
        c = top.mean(0)
        span = float(np.ptp(top, axis=0).max())
        if span < 3:
            return
        if mat.get("grain"):
            a = math.radians(piece.rotation_deg)
            d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
            ink = np.clip(top_col * (1 - mat["grain"]), 0, 255).astype(np.float32)
            h, w = self.canvas.shape[:2]
            x0, y0 = np.maximum(0, np.floor(top.min(0)).astype(int))
            x1, y1 = np.minimum([w, h], np.ceil(top.max(0)).astype(int) + 1)
            if x1 <= x0 or y1 <= y0:
                return
            o = np.array([x0, y0], float)
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(mask, [np.round((top - o) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
            lines = np.zeros_like(mask)
            for k in np.linspace(-0.4, 0.4, 4) + self.rng.uniform(-0.05, 0.05):
                p0, p1 = c - o + n * k * span - d * span, c - o + n * k * span + d * span
                cv2.line(lines, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, 1, cv2.LINE_AA)
            m = (lines.astype(np.float32) * mask.astype(np.float32) / 65025.0)[..., None]
            roi = self.canvas[y0:y1, x0:x1].astype(np.float32)
            self.canvas[y0:y1, x0:x1] = (roi * (1 - m) + ink * m).astype(np.uint8)
        if mat.get("gloss") and self.lvecs:
            lv = self.lvecs[0]
            spot = c + np.array([lv[0], lv[1]]) * span * 0.18
            colour = np.clip(top_col + (255 - top_col) * mat["gloss"], 0, 255).tolist()
            cv2.ellipse(self.canvas, tuple(int(v) for v in np.round(spot * 16)), (int(span * 0.12 * 16) + 1, int(span * 0.07 * 16) + 1),
                        math.degrees(math.atan2(lv[1], lv[0])) + 90, 0, 360, colour, -1, cv2.LINE_AA, shift=4)
        if st is not None and st.bevel > 0:
            rim = np.clip(top_col * (1 + 0.35 * st.bevel) + 12, 0, 255).tolist()
            cv2.polylines(self.canvas, [np.round(top * 16).astype(np.int32)], True, rim, max(1, int(round(0.6 * st.bevel * self.s))),
                          cv2.LINE_AA, shift=4)
        if st is not None and st.wear > 0:
            bare = (150, 185, 215)  # raw wood under the paint
            for i in self.rng.choice(len(top), size=min(len(top), int(round(st.wear * 4))), replace=False):
                r = max(1, int(round(self.rng.uniform(0.4, 1.0) * self.s)))
                cv2.circle(self.canvas, tuple(int(v) for v in np.round(top[i])), r, bare, -1, cv2.LINE_AA)

    def _decal(self, decal, tf, z, shade) -> None:
        import cv2

        kind = decal[0]
        colour = np.clip(np.array(decal[-1], float) * shade, 0, 255).tolist()
        if kind == "circle":
            (x, y), r = decal[1], decal[2]
            pts = self.px(tf(circle(r, 16) + [x, y]), z)
            cv2.fillPoly(self.canvas, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)
        elif kind == "poly":
            pts = self.px(tf(decal[1]), z)
            cv2.fillPoly(self.canvas, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)
        elif kind == "line":
            pts = self.px(tf(decal[1]), z)
            width = max(1, int(round(decal[2] * self.s)))
            cv2.polylines(self.canvas, [np.round(pts * 16).astype(np.int32)], False, colour, width, cv2.LINE_AA, shift=4)


def scatter(polygon, n: int, min_dist: float, rng, avoid=(), margin: float = 6.0) -> list[tuple[float, float]]:
    """n points inside a polygon (mm), at least ``min_dist`` apart when possible, ``margin`` from its edges and
    outside the ``avoid`` polygons. Crowded regions relax the spacing rather than fail."""
    import cv2

    poly = np.asarray(polygon, np.float32)
    avoid = [np.asarray(a, np.float32) for a in avoid]
    (x0, y0), (x1, y1) = poly.min(0), poly.max(0)
    pts: list[tuple[float, float]] = []
    dist = min_dist
    tries = 0
    while len(pts) < n:
        tries += 1
        if tries % 60 == 0:
            dist *= 0.8
            margin *= 0.8
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if cv2.pointPolygonTest(poly, (x, y), True) < margin:
            continue
        if any(cv2.pointPolygonTest(a, (x, y), True) > -2 for a in avoid) and tries < 2000:
            continue
        if any(math.hypot(x - px, y - py) < dist for px, py in pts) and tries < 2000:
            continue
        pts.append((x, y))
    return pts
