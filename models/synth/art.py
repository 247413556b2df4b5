"""Board art by family: the same layout geometry (regions, markers, borders) drawn as a printed or painted board
with another palette, texture, lettering, decoration and varnish (``models.synth.families``, axis "art").

``"schematic"`` is the classic print (``calibration.render.render_board`` on a card tint). The other families
keep every region where the layout puts it and every marker as printed (black on a white quiet zone) and change
only the drawing: region fills from the family's palette (a little different per region and per printing,
``variant``), a paper, brush, canvas or engraving texture, illustration marks inside regions (trees, waves,
hatching), ink outlines of the family's weight, river borders, region names in the family's lettering, a frame,
and a varnish sheen. Game-neutral: fills follow region kinds and attributes as the schematic print does.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from calibration.layout import centroid, region_by_id
from calibration.render import draw_marker, render_board

# palette keys as the schematic print fills regions (calibration.render): territory, home, lake, corn, beans,
# pumpkins, hunt, default; plus paper, ink, river and text. BGR.
STYLES = {
    "parchment": {"paper": (170, 205, 228), "ink": (35, 55, 85), "text": (30, 45, 80), "river": (150, 110, 60),
                  "fills": {"territory": (150, 195, 205), "home": (120, 180, 225), "lake": (190, 175, 140), "corn": (90, 190, 230),
                            "beans": (100, 135, 180), "pumpkins": (80, 140, 215), "hunt": (120, 150, 150), "default": (165, 200, 222)},
                  "texture": "paper", "outline_mm": 0.8, "font": "complex", "ids": True, "decor": "hatch", "jitter": 10, "sheen": 0.0},
    "painted": {"paper": (120, 160, 150), "ink": (30, 50, 40), "text": (240, 245, 245), "river": (190, 120, 40),
                "fills": {"territory": (70, 150, 90), "home": (90, 170, 200), "lake": (170, 110, 40), "corn": (40, 180, 220),
                          "beans": (60, 90, 150), "pumpkins": (30, 110, 210), "hunt": (60, 110, 80), "default": (150, 185, 195)},
                "texture": "brush", "outline_mm": 0.0, "font": "triplex", "ids": False, "decor": "trees", "jitter": 22, "sheen": 0.05},
    "pastel": {"paper": (238, 240, 244), "ink": (140, 140, 150), "text": (90, 90, 100), "river": (220, 170, 130),
               "fills": {"territory": (205, 230, 215), "home": (200, 225, 245), "lake": (240, 215, 190), "corn": (170, 230, 245),
                         "beans": (190, 200, 230), "pumpkins": (170, 205, 245), "hunt": (200, 215, 200), "default": (230, 232, 236)},
               "texture": "dots", "outline_mm": 0.4, "font": "duplex", "ids": True, "decor": "none", "jitter": 8, "sheen": 0.0},
    # held out (families.HELD_OUT): dark lacquered art, gold engraving and script lettering under a glossy varnish
    "lacquer": {"paper": (40, 30, 35), "ink": (90, 180, 215), "text": (110, 200, 235), "river": (160, 120, 40),
                "fills": {"territory": (70, 80, 40), "home": (60, 60, 120), "lake": (95, 55, 25), "corn": (50, 130, 170),
                          "beans": (60, 50, 100), "pumpkins": (40, 80, 150), "hunt": (55, 70, 55), "default": (60, 50, 55)},
                "texture": "engrave", "outline_mm": 0.6, "font": "script", "ids": False, "decor": "hatch", "jitter": 14, "sheen": 0.25},
}
FONTS = {"simplex": 0, "duplex": 2, "complex": 3, "triplex": 4, "script": 7}  # cv2.FONT_HERSHEY_*
TEXTURES = ("paper", "brush", "dots", "engrave")
RANDOM_PRINTINGS = 32  # printings of the "random" family: each its own palette, texture, lettering and decoration


def random_style(variant: int) -> dict:
    """A printing of the training-only ``"random"`` family (``families.RANDOMISED``): paper of any hue from near-black
    to near-white, region fills of any hue and saturation around it, ink that stands out from it, and the texture,
    lettering and decoration of another family; never the held-out lacquer's engraving, script or varnish."""
    import cv2

    rng = np.random.default_rng([0x5A17, int(variant)])

    def hsv(h, s, v) -> tuple:
        px = np.array([[[h % 180, np.clip(s, 0, 255), np.clip(v, 0, 255)]]], np.uint8)
        return tuple(int(c) for c in cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0])

    held_out = STYLES["lacquer"]
    dark = rng.random() < 0.4
    hue, v = rng.uniform(0, 180), rng.uniform(25, 95) if dark else rng.uniform(150, 245)
    fills = {k: hsv(hue + rng.normal(0, 45), rng.uniform(10, 200), v + rng.uniform(-50, 50)) for k in held_out["fills"]}
    ink = hsv(rng.uniform(0, 180), rng.uniform(0, 150), rng.uniform(190, 240) if dark else rng.uniform(20, 70))
    return {"paper": hsv(hue, rng.uniform(0, 120), v), "ink": ink, "text": ink, "fills": fills,
            "river": hsv(rng.uniform(0, 180), rng.uniform(60, 200), rng.uniform(60, 220)),
            "texture": str(rng.choice([t for t in TEXTURES if t != held_out["texture"]])),
            "outline_mm": float(rng.choice([0.0, 0.4, 0.8])),
            "font": str(rng.choice([f for f in FONTS if f != held_out["font"]])), "ids": bool(rng.random() < 0.5),
            "decor": str(rng.choice(["hatch", "trees", "none"])), "jitter": float(rng.uniform(6, 25)),
            "sheen": float(rng.choice([0.0, 0.0, rng.uniform(0.02, 0.08)]))}


def fill_key(region: dict) -> str:
    """The palette key of a region, as the schematic print chooses its fill."""
    a = region.get("attributes", {})
    if region["kind"] == "territory":
        return "home" if a.get("home") else "territory"
    if region["kind"] == "productive_area":
        return a.get("crop", "hunt") if a.get("pa") == "harvest" else "hunt"
    return region["kind"] if region["kind"] in ("lake",) else "default"


def draw_art(layout: dict, s: float, family: str, variant: int) -> np.ndarray:
    """The board at ``s`` px/mm in art ``family``, printing ``variant`` (BGR uint8, unpadded)."""
    if family == "schematic":
        art = render_board(layout, s)
        return (art.astype(np.float32) * np.array([0.93, 0.95, 0.97])).astype(np.uint8)
    import cv2

    st = random_style(variant) if family == "random" else STYLES[family]
    rng = np.random.default_rng([zlib.crc32(f"{family}/{layout['name']}".encode()), int(variant)])
    w_mm, h_mm = layout["size_mm"]
    H, W = int(round(h_mm * s)), int(round(w_mm * s))
    tint = rng.uniform(0.9, 1.1, 3)  # this printing's ink balance
    canvas = np.empty((H, W, 3), np.uint8)
    canvas[:] = np.clip(np.array(st["paper"]) * tint, 0, 255)

    def pts(poly):
        return np.round((np.asarray(poly, np.float64) * s - 0.5) * 16).astype(np.int32)

    regions = [r for r in layout["regions"] if "parent" not in r] + [r for r in layout["regions"] if "parent" in r]
    outline = max(0, int(round(st["outline_mm"] * s)))
    for r in regions:
        base = np.array(st["fills"].get(fill_key(r), st["fills"]["default"]), float) * tint + rng.normal(0, st["jitter"], 3)
        cv2.fillPoly(canvas, [pts(r["polygon"])], np.clip(base, 0, 255).tolist(), cv2.LINE_AA, shift=4)
    _texture(canvas, st["texture"], s, rng)
    _decorate(canvas, layout, st, s, rng)
    for r in regions:
        if outline:
            cv2.polylines(canvas, [pts(r["polygon"])], True, st["ink"], outline, cv2.LINE_AA, shift=4)
    by_id = region_by_id(layout)
    for a, b, how in layout.get("adjacency", []):
        if how != "river":
            continue
        ma, mb = np.zeros((H, W), np.uint8), np.zeros((H, W), np.uint8)
        cv2.fillPoly(ma, [pts(by_id[a]["polygon"])], 1, shift=4)
        cv2.fillPoly(mb, [pts(by_id[b]["polygon"])], 1, shift=4)
        k = np.ones((int(3 * s) | 1, int(3 * s) | 1), np.uint8)
        canvas[(cv2.dilate(ma, k) & cv2.dilate(mb, k)) > 0] = st["river"]
    font = FONTS[st["font"]]
    for r in layout["regions"]:
        xs, ys = [p[0] for p in r["polygon"]], [p[1] for p in r["polygon"]]
        cx, cy = centroid(r["polygon"])
        size = min(max(xs) - min(xs), max(ys) - min(ys))
        if r["kind"] in ("territory", "lake"):
            if st["ids"]:
                _text(canvas, r["id"], min(xs) + 4, min(ys) + 9, 6, s, st["text"], font, centre=False)
            _text(canvas, r.get("label", ""), cx, min(ys) + 20, 5, s, st["text"], font)
        elif st["ids"] or rng.random() < 0.5:
            _text(canvas, r.get("label", r["id"]), cx, cy, min(4.0, size / 5), s, st["text"], font)
    f = 2.0 * s  # a printed frame just inside the board's edge
    cv2.rectangle(canvas, (int(f), int(f)), (W - 1 - int(f), H - 1 - int(f)), st["ink"], max(1, int(0.8 * s)), cv2.LINE_AA)
    for m in layout["markers"]:
        draw_marker(canvas, m, s)
    _text(canvas, layout["title"], 55, 4, 4, s, st["text"], font, centre=False)
    if st["sheen"]:  # varnish: a soft broad sheen across the print
        yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
        a = rng.uniform(0, math.pi)
        g = (np.cos(a) * xx + np.sin(a) * yy) / max(W, H)
        sheen = cv2.resize(np.clip(1 - np.abs(g - rng.uniform(0.2, 0.8)) * 4, 0, 1) * st["sheen"], (W, H))
        canvas[:] = np.clip(canvas + (255 - canvas.astype(np.float32)) * sheen[..., None], 0, 255).astype(np.uint8)
    return canvas


def _text(canvas, text: str, x_mm, y_mm, height_mm, s, colour, font, centre=True) -> None:
    import cv2

    if not text:
        return
    scale = height_mm * s / 22.0
    thick = max(1, int(round(scale * 1.4)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    x = int(x_mm * s - (tw / 2 if centre else 0))
    y = int(y_mm * s + (th / 2 if centre else 0))
    cv2.putText(canvas, text, (x, y), font, scale, colour, thick, cv2.LINE_AA)


def _texture(canvas: np.ndarray, kind: str, s: float, rng) -> None:
    """Multiply the print by a texture: paper fibres, brush strokes, a halftone of dots, or engraved lines."""
    import cv2

    H, W = canvas.shape[:2]
    small = (max(2, W // 6), max(2, H // 6))
    if kind == "paper":
        t = cv2.resize(rng.normal(0, 1, (small[1], small[0])).astype(np.float32), (W, H)) * 0.05
        t += cv2.resize(rng.normal(0, 1, (max(2, H // 40), max(2, W // 40))).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC) * 0.06
    elif kind == "brush":
        n = rng.normal(0, 1, (small[1], small[0])).astype(np.float32)
        k = max(3, int(4 * s) | 1)
        n = cv2.GaussianBlur(n, (k * 3 | 1, 1), 0) if rng.random() < 0.5 else cv2.GaussianBlur(n, (1, k * 3 | 1), 0)
        t = cv2.resize(n, (W, H), interpolation=cv2.INTER_LINEAR) * 0.25
    elif kind == "dots":
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        p = max(2.0, 1.2 * s)
        t = (np.cos(xx * 2 * math.pi / p) * np.cos(yy * 2 * math.pi / p)) * 0.04
    else:  # engraved diagonal lines
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        p = max(2.0, 1.5 * s)
        t = (np.cos((xx + yy) * 2 * math.pi / p) > 0.6).astype(np.float32) * 0.18
    canvas[:] = np.clip(canvas.astype(np.float32) * (1 + t[..., None]), 0, 255).astype(np.uint8)


def _decorate(canvas: np.ndarray, layout: dict, st: dict, s: float, rng) -> None:
    """Illustration marks inside the big regions: trees in territories and waves on lakes, or ink hatching."""
    import cv2

    kind = st["decor"]
    if kind == "none":
        return
    for r in layout["regions"]:
        if r["kind"] not in ("territory", "lake") or "parent" in r:
            continue
        poly = np.asarray(r["polygon"], np.float32)
        children = [np.asarray(c["polygon"], np.float32) for c in layout["regions"] if c.get("parent") == r["id"]]
        (x0, y0), (x1, y1) = poly.min(0), poly.max(0)
        n = int((x1 - x0) * (y1 - y0) / 900)
        fill = np.array(st["fills"]["lake" if r["kind"] == "lake" else "territory"], float)
        for _ in range(n):
            x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
            if cv2.pointPolygonTest(poly, (x, y), True) < 4 or any(cv2.pointPolygonTest(c, (x, y), True) > -2 for c in children):
                continue
            c = (int(x * s * 16), int(y * s * 16))
            if kind == "trees" and r["kind"] != "lake":
                col = np.clip(fill * rng.uniform(0.45, 0.7), 0, 255).tolist()
                for dx, dy in ((0, 0), (-1.6, 1.2), (1.6, 1.2)):
                    cv2.circle(canvas, (c[0] + int(dx * s * 16), c[1] + int(dy * s * 16)), int(rng.uniform(1.5, 2.8) * s * 16), col, -1, cv2.LINE_AA, shift=4)
            elif kind == "trees":  # waves
                col = np.clip(fill * 1.35 + 20, 0, 255).tolist()
                cv2.ellipse(canvas, c, (int(4 * s * 16), int(1.5 * s * 16)), 0, 200, 340, col, max(1, int(0.5 * s)), cv2.LINE_AA, shift=4)
            else:  # hatching: short ink strokes
                col = np.clip(fill * 0.6, 0, 255).tolist() if sum(st["paper"]) > 300 else st["ink"]
                a = rng.uniform(0, math.pi)
                d = np.array([math.cos(a), math.sin(a)]) * rng.uniform(2, 5) * s * 16
                cv2.line(canvas, (int(c[0] - d[0]), int(c[1] - d[1])), (int(c[0] + d[0]), int(c[1] + d[1])), col, max(1, int(0.3 * s)), cv2.LINE_AA, shift=4)
