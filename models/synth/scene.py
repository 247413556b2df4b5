"""One scene: boards with pieces laid out on a table, seen by a random camera -> image, rectified view, labels.

Game-neutral: a game module supplies ``BoardSpec``s (layout + pieces + printed tiles) and names the main board
(the one that gets a rectified view). The label dict is documented in docs/synth.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from calibration.render import draw_card as render_card
from calibration.render import render_board
from models.synth import FORMAT
from models.synth import effects as fx
from models.synth.art import draw_art
from models.synth.camera import BoardPose, Camera, apply_homography, distortion_maps, random_camera
from models.synth.pieces import PLAYER_BGR, BoardPainter, Light, Piece, piece_points, shape

PAD_MM = 30.0  # canvas margin around a board: pieces overhanging the edge, loose pieces beside it


@dataclass
class BoardSpec:
    name: str
    layout: dict
    pieces: list[Piece]
    tiles: list[dict] = field(default_factory=list)  # {"slot", "tile", "side", "rotation_deg"} printed cards in slots
    info: dict = field(default_factory=dict)
    pose: BoardPose | None = None


# ---------------------------------------------------------------------------------------------- layout on the table


def arrange(boards: list[BoardSpec], main: str, rng) -> None:
    """Main board at the table origin, the others around it facing outward, with random gaps and small turns."""
    by = {b.name: b for b in boards}
    mw, mh = by[main].layout["size_mm"]
    by[main].pose = BoardPose(0.0, 0.0, float(rng.normal(0, 2.5)))
    cursor = {"bottom": -rng.uniform(0, 60), "top": -rng.uniform(0, 60), "left": rng.uniform(0, 40), "right": rng.uniform(0, 40)}
    sides = ["bottom", "top", "left", "right"]
    start = int(rng.integers(0, 4))
    for k, b in enumerate(x for x in boards if x.name != main):
        side = sides[(start + k) % 4]
        w, h = b.layout["size_mm"]
        gap = rng.uniform(15, 60)
        jit = float(rng.normal(0, 3))
        if side == "bottom":  # reads upright from below: no turn
            b.pose = BoardPose(cursor["bottom"], mh + gap, jit)
            cursor["bottom"] += w + rng.uniform(10, 40)
        elif side == "top":  # turned 180 degrees: its origin is its far corner
            b.pose = BoardPose(cursor["top"] + w, -gap, 180 + jit)
            cursor["top"] += w + rng.uniform(10, 40)
        elif side == "left":  # turned 90 degrees
            b.pose = BoardPose(-gap, cursor["left"], 90 + jit)
            cursor["left"] += w + rng.uniform(10, 40)
        else:
            b.pose = BoardPose(mw + gap, cursor["right"] + w, -90 + jit)
            cursor["right"] += w + rng.uniform(10, 40)


# ---------------------------------------------------------------------------------------------- board art

_ART: dict[tuple, np.ndarray] = {}


def board_art(layout: dict, s: float, art: tuple[str, int] | None = None) -> np.ndarray:
    """The layout's print art at s px/mm, padded by PAD_MM (cached per process); ``art``: (art family, printing)
    of ``models.synth.art`` (None: the schematic print)."""
    import cv2

    key = (layout["name"], s, art)
    if key not in _ART:
        if len(_ART) > 64:
            _ART.clear()
        if art is None:
            art_img = render_board(layout, s)
            art_img = (art_img.astype(np.float32) * np.array([0.93, 0.95, 0.97])).astype(np.uint8)  # printed card, not paper white
        else:
            art_img = draw_art(layout, s, *art)
        pad = int(round(PAD_MM * s))
        _ART[key] = cv2.copyMakeBorder(art_img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    return _ART[key]


# tile art by side: (face, band, text) BGR. Action tiles: cream action side, dark purple ritual side. Progress tiles
# (on a village's progress spaces): pale green face up, their band by level, and a dark green back showing the level
TILE_ART = {"action": ((175, 215, 230), (60, 150, 200), (40, 40, 40)),
            "ritual": ((95, 45, 85), (160, 120, 200), (235, 235, 235)),
            "front": ((185, 225, 200), None, (40, 40, 40)),
            "back": ((60, 95, 55), (40, 70, 40), (225, 235, 225))}
PROGRESS_BANDS = {"P1": (90, 170, 90), "P2": (40, 150, 170), "P3": (150, 90, 60)}
PROGRESS_LEVELS = {"P1": 1, "P2": 2, "P3": 3}  # dots printed along a progress tile's foot, both sides
TILE_TEXT_MM = 58.0  # the tile size the printed name's size is drawn for (a grid tile); smaller tiles, smaller print


CARD_MM = (63.0, 88.0)  # a printed card's size (Iwari's display: calibration.iwari_layouts.CARD_MM, I-NIT-4)
CARD_BACK = ((45, 60, 95), (140, 175, 205))  # a card's back: fill and frame, BGR


def draw_card(canvas, polygon, card: str | None, s: float, rotation_deg: float = 0.0, offset_mm=(0.0, 0.0)) -> None:
    """A printed card in a region of a padded board canvas: face up (``card``: its colour, the face
    ``calibration.render.card_face`` prints) or face down (None: its back), in the region's middle, moved by
    ``offset_mm`` and turned ``rotation_deg``."""
    import cv2

    poly = np.asarray(polygon, float) + PAD_MM  # board mm -> canvas mm
    if card is not None:
        render_card(canvas, poly.tolist(), card, s, CARD_MM, rotation_deg, tuple(offset_mm))
        return
    c = poly.mean(0) + offset_mm
    a = math.radians(-rotation_deg)  # counter-clockwise as seen from above, as render_card turns a face
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    half = np.array(CARD_MM) / 2
    px = lambda k: np.round(((np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half * k) @ rot.T + c) * s * 16 - 8).astype(np.int32)
    cv2.fillConvexPoly(canvas, px(1.0), CARD_BACK[1], cv2.LINE_AA, shift=4)
    cv2.fillConvexPoly(canvas, px(0.86), CARD_BACK[0], cv2.LINE_AA, shift=4)


def draw_tiles(canvas, layout: dict, tiles: list[dict], s: float, rng) -> None:
    """Tiles in their regions, the tile id printed on each (``TILE_ART`` by side): a progress tile's back shows its
    level (tile ``"P1"``). An entry with a ``"card"`` key is a printed card (``draw_card``: its colour face up, None
    face down), with its ``rotation_deg`` and ``offset_mm``."""
    import cv2

    regions = {r["id"]: r for r in layout["regions"]}
    for t in tiles:
        if "card" in t:
            draw_card(canvas, regions[t["slot"]]["polygon"], t["card"], s, t.get("rotation_deg", 0.0), t.get("offset_mm", (0.0, 0.0)))
            continue
        poly = np.asarray(regions[t["slot"]]["polygon"], float)
        c = poly.mean(0)
        half = (poly.max(0) - poly.min(0)) / 2 - 1.0
        a = math.radians(t.get("rotation_deg", 0.0))
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half @ rot.T + c
        px = lambda p: np.round(((np.asarray(p) + PAD_MM) * s - 0.5) * 16).astype(np.int32)
        face, band_bgr, ink = TILE_ART[t["side"]]
        band_bgr = band_bgr or PROGRESS_BANDS.get(t["tile"][:2], (120, 120, 120))
        cv2.fillConvexPoly(canvas, px(corners), (60, 70, 80), cv2.LINE_AA, shift=4)
        cv2.fillConvexPoly(canvas, px((corners - c) * 0.96 + c), face, cv2.LINE_AA, shift=4)
        band = np.array([[-1, -1], [1, -1], [1, -0.55], [-1, -0.55]]) * half * 0.9 @ rot.T + c
        cv2.fillConvexPoly(canvas, px(band), band_bgr, cv2.LINE_AA, shift=4)
        scale = 7.0 * s / 22.0 * min(1.0, 2 * float(half.min() + 1.0) / TILE_TEXT_MM)
        txt = t["tile"]
        (tw, th), _ = cv2.getTextSize(txt, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 1.5)))
        org = ((c + PAD_MM) * s - [tw / 2, -th / 2]).astype(int)
        cv2.putText(canvas, txt, tuple(int(v) for v in org), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, max(1, int(scale * 1.5)), cv2.LINE_AA)
        level = PROGRESS_LEVELS.get(t["tile"][:2]) if t["side"] in ("front", "back") else None
        for k in range(level or 0):  # a progress tile's level as dots along its foot: they survive any light
            dot = np.array([(k - (level - 1) / 2) * 0.45, 0.68]) * half @ rot.T + c
            cv2.circle(canvas, tuple(int(v) for v in np.round(((dot + PAD_MM) * s - 0.5) * 16)), int(round(3.0 * s * 16)),
                       ink, -1, cv2.LINE_AA, shift=4)


# ---------------------------------------------------------------------------------------------- colours


def jitter_colours(rng, base: dict | None = None) -> dict[str, tuple]:
    """Player colours varied around their nominal hues (paint batches, camera response); ``base``: an edition's
    colours (``PieceStyle.colours``; default the classic ones)."""
    import cv2

    out = {}
    for name, bgr in (base or PLAYER_BGR).items():
        hsv = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0].astype(float)
        hsv[0] = (hsv[0] + rng.normal(0, 3)) % 180
        hsv[1] = np.clip(hsv[1] * rng.uniform(0.8, 1.1), 0, 255)
        hsv[2] = np.clip(hsv[2] * rng.uniform(0.85, 1.1), 0, 255)
        out[name] = tuple(float(v) for v in cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0])
    return out


# ---------------------------------------------------------------------------------------------- rendering


def render(boards: list[BoardSpec], main: str, rng: np.random.Generator, size: tuple[int, int], rect_px_per_mm: float = 4.0,
           effects_on: bool = True, fixed: dict | None = None, look=None, extra_colours: dict | None = None) -> dict:
    """Render one scene. Returns {"image": BGR uint8, "rectified": BGR, "hand_mask": uint8, "labels": dict}.

    ``fixed`` (optional) pins what is otherwise drawn at random, so that a series of scenes shares one table:
    ``"camera"`` (a Camera), ``"poses"`` ({board name: BoardPose}; boards keep their ``pose`` when it is set),
    ``"lights"`` ([Light]), ``"kelvin"``, ``"colour_bgr"`` ({colour: BGR}), ``"table_texture"`` (BGR image).
    Without it the scene is drawn exactly as before (same random draws).

    ``look`` (optional, a ``models.synth.families.Look``): the table's families: board art, piece shapes,
    materials, lights, light colour and falloff, camera, table top and clutter come from it instead of the classic
    draws. Its clutter lies off the boards (the classic distractors may lie on one); with ``effects_on`` off (a
    recording) the same clutter in every frame.

    ``extra_colours`` ({colour name: BGR}): piece colours the classic palette lacks (Iwari's purple tribe), jittered
    as the others are, after them (None: nothing drawn for them, the scene as before)."""
    import cv2

    W, H = size
    if fixed is None:
        arrange(boards, main, rng)
    else:
        for b in boards:
            if b.name in fixed.get("poses", {}):
                b.pose = fixed["poses"][b.name]
    mainb = next(b for b in boards if b.name == main)
    mw, mh = mainb.layout["size_mm"]
    if fixed is not None and "camera" in fixed:
        cam = fixed["camera"]
        target = cam.C[:2] if "target" not in fixed else fixed["target"]
    else:
        target = mainb.pose.to_table([[mw / 2 + rng.normal(0, mw * 0.12), mh / 2 + rng.normal(0, mh * 0.12)]])[0]
        cam = random_camera(rng, size, target)

    # lights: one to three directional sources, hard or soft
    if fixed is not None and "lights" in fixed:
        lights = fixed["lights"]
        n_lights = len(lights)
    elif look is not None:
        lights = look.lights
        n_lights = len(lights)
    else:
        n_lights = int(rng.choice([1, 1, 2, 3]))
        lights = [Light(float(rng.uniform(0, 360)), float(rng.uniform(35, 80)), float(rng.uniform(0.25, 0.6) / math.sqrt(i + 1)),
                        float(rng.choice([0.3, 1.0, 3.0, 8.0]))) for i in range(n_lights)]
    if fixed is not None and "kelvin" in fixed:
        kelvin = float(fixed["kelvin"])
    else:
        kelvin = float(look.light["kelvin"]) if look is not None else float(rng.uniform(2700, 6500))
    if fixed is not None and "colour_bgr" in fixed:
        colour_bgr = fixed["colour_bgr"]
    else:
        colour_bgr = jitter_colours(rng, look.colours if look is not None else None)
    if extra_colours:
        colour_bgr = {**colour_bgr, **jitter_colours(rng, extra_colours)}

    # the undistorted canvas, large enough for everything the distorted camera sees
    mx, my = distortion_maps(cam, (0, 0))
    ml = int(math.ceil(max(0.0, -float(mx.min())))) + 2
    mt = int(math.ceil(max(0.0, -float(my.min())))) + 2
    mr = int(math.ceil(max(0.0, float(mx.max()) - W))) + 2
    mb = int(math.ceil(max(0.0, float(my.max()) - H))) + 2
    ml, mt, mr, mb = (min(v, W // 2) for v in (ml, mt, mr, mb))
    IW, IH = W + ml + mr, H + mt + mb
    shift = np.array([[1, 0, ml], [0, 1, mt], [0, 0, 1.0]])

    # table top
    if fixed is not None and "table_texture" in fixed:
        tex = fixed["table_texture"]
    else:
        tex = fx.table_texture_for(look.table, rng) if look is not None else fx.table_texture(rng)
    table_mm = 2400.0
    cx0, cy0 = target
    T = np.array([[table_mm / tex.shape[1], 0, cx0 - table_mm / 2], [0, table_mm / tex.shape[0], cy0 - table_mm / 2], [0, 0, 1]])
    Ht = shift @ cam.board_homography(BoardPose(0, 0, 0)) @ T
    ideal = cv2.warpPerspective(tex, Ht, (IW, IH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    board_mask = np.zeros((IH, IW), np.uint8)

    board_labels = []
    for b in boards:
        Hb = cam.board_homography(b.pose)
        bw, bh = b.layout["size_mm"]
        corners = np.array([[-PAD_MM, -PAD_MM], [bw + PAD_MM, -PAD_MM], [bw + PAD_MM, bh + PAD_MM], [-PAD_MM, bh + PAD_MM]])
        cu, cv_, ch = cam.centre_in_board(b.pose)
        Pc = cam.to_camera(np.column_stack([b.pose.to_table(corners), np.zeros(4)]))
        img_c = apply_homography(shift @ Hb, corners)
        x0, y0 = np.floor(img_c.min(0)).astype(int)
        x1, y1 = np.ceil(img_c.max(0)).astype(int)
        rx0, ry0, rx1, ry1 = max(0, x0), max(0, y0), min(IW, x1), min(IH, y1)
        entry = {"board": b.name, "pose_mm": {"x": round(b.pose.x, 3), "y": round(b.pose.y, 3), "rotation_deg": round(b.pose.rotation_deg, 4)},
                 "size_mm": list(b.layout["size_mm"]), "H": (Hb).round(9).tolist(), "tiles": b.tiles, **b.info}
        board_labels.append(entry)
        if (Pc[:, 2] <= 1).any() or rx1 <= rx0 or ry1 <= ry0:
            entry["rendered_px_per_mm"] = None
            continue
        # canvas resolution from the board's scale in the image
        J = _jacobian_scale(shift @ Hb, (bw / 2, bh / 2))
        s = float(np.clip(round(J * 1.3 * 2) / 2, 1.0, 4.0))
        entry["rendered_px_per_mm"] = s
        canvas = board_art(b.layout, s, (look.families["art"], look.art_variant) if look is not None else None).copy()
        alpha = np.zeros(canvas.shape[:2], np.uint8)
        pad = int(round(PAD_MM * s))
        alpha[pad:canvas.shape[0] - pad, pad:canvas.shape[1] - pad] = 255
        draw_tiles(canvas, b.layout, b.tiles, s, rng)
        vecs = [l.vector(b.pose.rotation_deg) for l in lights]
        BoardPainter(canvas, alpha, s, PAD_MM, (cu, cv_, ch), lights, vecs, colour_bgr, rng,
                     *((look.pieces, look.material) if look is not None else ())).draw(b.pieces)
        # canvas px -> board mm -> ideal image ROI
        C2B = np.array([[1 / s, 0, 0.5 / s - PAD_MM], [0, 1 / s, 0.5 / s - PAD_MM], [0, 0, 1]])
        roi = np.array([[1, 0, -rx0], [0, 1, -ry0], [0, 0, 1.0]])
        M = roi @ shift @ Hb @ C2B
        bgra = np.dstack([canvas, alpha])
        warped = cv2.warpPerspective(bgra, M, (rx1 - rx0, ry1 - ry0), flags=cv2.INTER_LINEAR, borderValue=0)
        a = warped[..., 3].astype(np.float32) * (1 / 255.0)
        ideal[ry0:ry1, rx0:rx1] = cv2.blendLinear(warped[..., :3].copy(), ideal[ry0:ry1, rx0:rx1].copy(), a, 1.0 - a)
        board_mask[ry0:ry1, rx0:rx1] = np.maximum(board_mask[ry0:ry1, rx0:rx1], warped[..., 3])

    info: dict = {"lights": [{"azimuth_deg": round(l.azimuth_deg, 2), "elevation_deg": round(l.elevation_deg, 2), "strength": round(l.strength, 3),
                              "softness_mm": l.softness_mm} for l in lights], "kelvin": round(kelvin, 1)}
    hand_ideal = np.zeros((IH, IW), np.uint8)
    px_mm = _jacobian_scale(shift @ cam.board_homography(mainb.pose), (mw / 2, mh / 2))
    main_light = lights[0].vector(0.0)
    shadow_dir_img = _image_direction(cam, shift, target, -main_light[:2])
    table_box = (target[0] - 900, target[1] - 700, target[0] + 900, target[1] + 700)
    project = lambda P: _project_ideal(cam, shift, P)
    shadow_off = -main_light / max(main_light[2], 0.2)
    off_boards = lambda x, y, r: _on_a_board(boards, x, y, r)  # clutter lies beside the boards: no label says what it hides
    if look is not None:
        info["look"] = look.to_json()
        if not effects_on and look.table["clutter"]:  # a recording: the same clutter in every frame
            info["distractors"] = fx.clutter(ideal, np.random.default_rng([look.seed, 0xC1]), project, table_box, shadow_off,
                                             look.table["clutter"], avoid=off_boards)
    if effects_on and look is not None:
        info["distractors"] = fx.clutter(ideal, rng, project, table_box, shadow_off, look.table["clutter"], avoid=off_boards)
        ideal = fx.apply_multiplier(ideal, fx.light_multiplier(look.light, rng, (IH, IW)))
        varnish = 1 if look.families["art"] == "lacquer" else 0
        info["glare"] = fx.glare(ideal, rng, board_mask, int(rng.choice([0, 0, 1, 1, 2])) + varnish)
    elif effects_on:
        info["distractors"] = fx.distractors(ideal, rng, project, table_box, shadow_off)
        gains = fx.kelvin_bgr(kelvin) / fx.kelvin_bgr(float(rng.uniform(4000, 6000)))
        gains = gains / gains.max()
        ideal = fx.apply_light(ideal, fx.light_field(rng, (IH, IW), n_lights), gains, float(rng.uniform(0.8, 1.25)))
        info["glare"] = fx.glare(ideal, rng, board_mask, int(rng.choice([0, 0, 1, 1, 2])))
    if effects_on:
        n_hands = int(rng.choice([0, 0, 1, 1, 2]))
        if n_hands:
            hand_ideal = fx.hands(ideal, rng, n_hands, px_mm, shadow_dir_img)
        info["hands"] = n_hands

    image = cv2.remap(ideal, mx + ml, my + mt, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    hand = cv2.remap(hand_ideal, mx + ml, my + mt, cv2.INTER_NEAREST) if hand_ideal.any() else np.zeros((H, W), np.uint8)
    if effects_on:
        info.update(fx.camera_effects(image, rng) if look is None else fx.sensor(image, rng, look.camera, look.light["noise_gain"]))

    labels = _labels(boards, cam, image.shape, hand, look.pieces if look is not None else None)
    for entry, b in zip(board_labels, boards):
        entry.update(_hand_cover(b, cam, hand))
    labels = {"format": FORMAT, "size": [W, H], "camera": cam.to_json(), "boards": board_labels, "pieces": labels, "effects": info}
    return {"image": image, "hand_mask": hand, "labels": labels, "camera": cam, "boards": boards}


def _on_a_board(boards: list[BoardSpec], x: float, y: float, r: float) -> bool:
    """True when a disc of radius r mm at table (x, y) reaches onto a board (or its PAD_MM margin)."""
    for b in boards:
        u, v = b.pose.from_table([[x, y]])[0]
        w, h = b.layout["size_mm"]
        if -PAD_MM - r < u < w + PAD_MM + r and -PAD_MM - r < v < h + PAD_MM + r:
            return True
    return False


def _project_ideal(cam: Camera, shift, P) -> np.ndarray:
    return apply_homography(shift, cam.project_ideal(P))


def _jacobian_scale(H, pt) -> float:
    """Image pixels per board mm at a board point (geometric mean of the two axes)."""
    p = np.array([pt, [pt[0] + 1, pt[1]], [pt[0], pt[1] + 1]], float)
    q = apply_homography(H, p)
    a, b = q[1] - q[0], q[2] - q[0]
    return float(math.sqrt(abs(a[0] * b[1] - a[1] * b[0])))


def _image_direction(cam: Camera, shift, at, d) -> np.ndarray:
    P = np.array([[at[0], at[1], 0], [at[0] + d[0] * 10, at[1] + d[1] * 10, 0]])
    q = _project_ideal(cam, shift, P)
    v = q[1] - q[0]
    return v / (np.linalg.norm(v) + 1e-9)


def _labels(boards: list[BoardSpec], cam: Camera, shape_hw, hand: np.ndarray, style=None) -> list[dict]:
    H, W = shape_hw[:2]
    out = []
    for b in boards:
        for p in b.pieces:
            parts = shape(p, PLAYER_BGR, style)
            pts = piece_points(p, parts)
            P = np.column_stack([b.pose.to_table(pts[:, :2]), -pts[:, 2]])
            q, ok = cam.project(P)
            c, cok = cam.project(np.column_stack([b.pose.to_table([[p.x, p.y]]), [0.0]]))
            lab = {"class": p.cls, "colour": p.colour, "side": p.side, "pose": p.pose, "rotation_deg": round(p.rotation_deg % 360, 2),
                   "count": p.count, "board": b.name, "board_xy_mm": [round(p.x, 3), round(p.y, 3)], "z_mm": p.z0,
                   "region": p.region, "extra": p.extra}
            in_view = bool(ok.all() and cok[0])
            box = None
            truncated = False
            if in_view:
                x0, y0 = q.min(0)
                x1, y1 = q.max(0)
                if x1 < 0 or y1 < 0 or x0 > W or y0 > H:
                    in_view = False
                else:
                    truncated = bool(x0 < 0 or y0 < 0 or x1 > W or y1 > H)
                    box = [round(float(max(0, x0)), 2), round(float(max(0, y0)), 2), round(float(min(W, x1)), 2), round(float(min(H, y1)), 2)]
            lab["image_xy"] = [round(float(c[0, 0]), 3), round(float(c[0, 1]), 3)] if cok[0] else None
            lab["in_view"] = in_view
            lab["box"] = box
            lab["truncated"] = truncated
            cover = 0.0
            if box is not None:
                xa, ya, xb, yb = int(box[0]), int(box[1]), int(math.ceil(box[2])), int(math.ceil(box[3]))
                sub = hand[ya:yb, xa:xb]
                cover = float((sub > 0).mean()) if sub.size else 0.0
            lab["hand_cover"] = round(cover, 3)
            lab["occluded"] = cover >= 0.3
            out.append(lab)
    return out


def _hand_cover(b: BoardSpec, cam: Camera, hand: np.ndarray) -> dict:
    """Which regions of a board a hand covers (region centre under the hand) and the covered share of the board."""
    if not hand.any():
        return {"hand_regions": [], "hand_cover": 0.0}
    H, W = hand.shape
    bw, bh = b.layout["size_mm"]
    gx, gy = np.meshgrid(np.arange(5, bw, 10.0), np.arange(5, bh, 10.0))
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    q, ok = cam.project(np.column_stack([b.pose.to_table(pts), np.zeros(len(pts))]))
    inside = ok & (q[:, 0] >= 0) & (q[:, 1] >= 0) & (q[:, 0] < W) & (q[:, 1] < H)
    qi = np.clip(np.round(q).astype(int), 0, [W - 1, H - 1])
    covered = inside & (hand[qi[:, 1], qi[:, 0]] > 0)
    regions = []
    for r in b.layout["regions"]:
        poly = np.asarray(r["polygon"], float)
        c = poly.mean(0)
        qc, okc = cam.project(np.array([[*b.pose.to_table([c])[0], 0.0]]))
        x, y = int(round(qc[0, 0])), int(round(qc[0, 1]))
        if okc[0] and 0 <= x < W and 0 <= y < H and hand[y, x]:
            regions.append(r["id"])
    return {"hand_regions": regions, "hand_cover": round(float(covered.sum() / max(1, inside.sum())), 4)}


# ---------------------------------------------------------------------------------------------- rectified view


def rectify(image: np.ndarray, cam: Camera, board: BoardSpec, px_per_mm: float, step: int = 8):
    """The board seen from straight above at px_per_mm (pixel (i, j) = board mm ((j + 0.5) / r, (i + 0.5) / r)),
    warped out of the (distorted) camera image with the camera model."""
    import cv2

    bw, bh = board.layout["size_mm"]
    w, h = int(round(bw * px_per_mm)), int(round(bh * px_per_mm))
    nx, ny = w // step + 3, h // step + 3
    gx = (np.arange(nx) - 0.5) * step - 0.5  # sample k sits where resize() puts source pixel k (after a crop of step)
    gy = (np.arange(ny) - 0.5) * step - 0.5
    xx, yy = np.meshgrid(gx, gy)
    mm = np.column_stack([(xx.ravel() + 0.5) / px_per_mm, (yy.ravel() + 0.5) / px_per_mm])
    q, ok = cam.project(np.column_stack([board.pose.to_table(mm), np.zeros(len(mm))]))
    q[~ok] = -1e4
    fx = cv2.resize(q[:, 0].reshape(ny, nx).astype(np.float32), (nx * step, ny * step))[step:step + h, step:step + w]
    fy = cv2.resize(q[:, 1].reshape(ny, nx).astype(np.float32), (nx * step, ny * step))[step:step + h, step:step + w]
    return cv2.remap(image, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def rectified_labels(pieces_labels: list[dict], cam: Camera, board: BoardSpec, px_per_mm: float, size_wh, style=None) -> list[dict]:
    """Labels in the rectified view: the piece's base centre and its box (tall pieces lean away from the camera);
    ``style``: the scene's piece family (``PieceStyle``; None: classic)."""
    cu, cv_, ch = cam.centre_in_board(board.pose)
    w, h = size_wh
    out = []
    for _idx, (lab, p) in enumerate(zip([l for l in pieces_labels if l["board"] == board.name], board.pieces)):
        pts = piece_points(p, shape(p, PLAYER_BGR, style))
        k = ch / (ch - pts[:, 2])
        plane = np.array([cu, cv_]) + (pts[:, :2] - [cu, cv_]) * k[:, None]
        r = plane * px_per_mm - 0.5
        x0, y0 = r.min(0)
        x1, y1 = r.max(0)
        box = [round(float(max(0, x0)), 2), round(float(max(0, y0)), 2), round(float(min(w, x1)), 2), round(float(min(h, y1)), 2)]
        out.append({"class": lab["class"], "colour": lab["colour"], "side": lab["side"], "count": lab["count"], "region": lab["region"],
                    "xy": [round(p.x * px_per_mm - 0.5, 2), round(p.y * px_per_mm - 0.5, 2)], "box": box,
                    "truncated": bool(x0 < 0 or y0 < 0 or x1 > w or y1 > h), "in_camera_view": lab["in_view"],
                    "occluded": lab["occluded"], "extra": lab["extra"]})
    return out
