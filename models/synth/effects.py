"""Domain randomisation in image space: table top, light colour and falloff, glare, hands, distractor objects,
motion blur, defocus, sensor noise and JPEG. Game-neutral; every function takes the scene's numpy Generator."""

from __future__ import annotations

import math

import numpy as np


def kelvin_bgr(k: float) -> np.ndarray:
    """Approximate colour of a black body at k kelvin, as BGR gains with max 1 (Tanner Helland's fit)."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    v = np.clip(np.array([b, g, r]), 1, 255)
    return v / v.max()


def table_texture(rng, size: int = 384) -> np.ndarray:
    """A wood-grain or cloth table top, BGR, ``size`` x ``size`` (stretched over about 2.4 m of table)."""
    import cv2

    kind = rng.choice(["wood", "wood", "cloth", "plain"])
    if kind == "wood":
        base = np.array([rng.uniform(40, 110), rng.uniform(80, 150), rng.uniform(120, 200)])
    elif kind == "cloth":
        base = rng.uniform(40, 190, 3)
    else:
        base = np.full(3, rng.uniform(150, 235)) + rng.normal(0, 8, 3)
    low = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    tex = np.ones((size, size), np.float32) + 0.06 * low
    if kind == "wood":
        grain = rng.normal(0, 1, (size, 1)).astype(np.float32)
        grain = cv2.GaussianBlur(np.repeat(grain, 8, 1), (1, 5), 0)
        grain = cv2.resize(grain, (size, size), interpolation=cv2.INTER_LINEAR)
        tex += 0.08 * grain
        if rng.random() < 0.5:
            tex = tex.T.copy()
    else:
        tex += rng.normal(0, 0.03, (size, size)).astype(np.float32)
    img = np.clip(tex[..., None] * base[None, None, :], 0, 255).astype(np.uint8)
    return img


def light_field(rng, shape: tuple[int, int], n_spots: int) -> np.ndarray:
    """A smooth illumination multiplier (H, W) float32 around 1: lamp falloff and vignetting."""
    import cv2

    h, w = shape
    gh, gw = 24, 32
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    field = np.full((gh, gw), rng.uniform(0.55, 0.8), np.float32)
    for _ in range(n_spots):
        cx, cy = rng.uniform(-0.2, 1.2) * gw, rng.uniform(-0.2, 1.2) * gh
        sig = rng.uniform(0.4, 1.2) * gw
        field += rng.uniform(0.3, 0.6) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sig * sig)).astype(np.float32)
    vign = 1 - rng.uniform(0.05, 0.3) * (((xx - gw / 2) / (gw / 2)) ** 2 + ((yy - gh / 2) / (gh / 2)) ** 2) / 2
    field = field * vign / max(1e-3, float(np.percentile(field * vign, 70)))
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_CUBIC)


def apply_light(img: np.ndarray, field: np.ndarray, gains: np.ndarray, exposure: float) -> np.ndarray:
    import cv2

    g = (gains * exposure).astype(np.float32)
    return cv2.multiply(img, cv2.merge([field * g[0], field * g[1], field * g[2]]), dtype=cv2.CV_8U)


def glare(img: np.ndarray, rng, where: np.ndarray | None, n: int) -> list[dict]:
    """Specular highlights on varnished board areas (``where``: uint8 mask of boards). Returns their description."""
    import cv2

    h, w = img.shape[:2]
    out = []
    for _ in range(n):
        cx, cy = int(rng.uniform(0.1, 0.9) * w), int(rng.uniform(0.1, 0.9) * h)
        ax, ay = int(rng.uniform(0.03, 0.15) * w), int(rng.uniform(0.02, 0.08) * w)
        strength = rng.uniform(0.25, 0.75)
        x0, y0, x1, y1 = max(0, cx - 2 * ax), max(0, cy - 2 * ax), min(w, cx + 2 * ax), min(h, cy + 2 * ax)
        if x1 <= x0 or y1 <= y0:
            continue
        m = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.ellipse(m, (cx - x0, cy - y0), (ax, ay), float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA)
        k = max(3, (min(ax, ay) | 1))
        m = cv2.GaussianBlur(m, (k * 2 + 1, k * 2 + 1), 0) * strength
        if where is not None:
            m *= where[y0:y1, x0:x1].astype(np.float32) / 255.0
        roi = img[y0:y1, x0:x1].astype(np.float32)
        img[y0:y1, x0:x1] = np.clip(roi + (255 - roi) * m[..., None], 0, 255).astype(np.uint8)
        out.append({"centre_px": [cx, cy], "strength": round(float(strength), 3)})
    return out


SKIN = [(170, 200, 240), (140, 175, 225), (110, 150, 205), (80, 120, 175), (60, 90, 135), (45, 65, 100)]


def hands(img: np.ndarray, rng, n: int, px_per_mm: float, shadow_dir: np.ndarray) -> np.ndarray:
    """Draw n arms reaching in from the image border; returns the uint8 mask of what they cover."""
    import cv2

    h, w = img.shape[:2]
    mask_all = np.zeros((h, w), np.uint8)
    for _ in range(n):
        side = int(rng.integers(0, 4))
        t = rng.uniform(0.15, 0.85)
        start = [(t * w, -20), (w + 20, t * h), (t * w, h + 20), (-20, t * h)][side]
        tx, ty = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
        d = np.array([tx - start[0], ty - start[1]])
        d /= np.linalg.norm(d)
        reach = rng.uniform(0.25, 0.6) * math.hypot(w, h) * 0.5
        wrist = np.array(start) + d * reach
        arm_w = rng.uniform(60, 85) * px_per_mm
        palm = wrist + d * 45 * px_per_mm
        mask = np.zeros((h, w), np.uint8)
        cv2.line(mask, tuple(np.int32(start)), tuple(np.int32(wrist)), 255, max(2, int(arm_w)), cv2.LINE_AA)
        ang = math.degrees(math.atan2(d[1], d[0]))
        cv2.ellipse(mask, tuple(np.int32(palm)), (int(50 * px_per_mm), int(42 * px_per_mm)), ang, 0, 360, 255, -1, cv2.LINE_AA)
        perp = np.array([-d[1], d[0]])
        spread = rng.uniform(0.6, 1.1)
        for f in range(5):
            off = (f - 1.5) * 17 * px_per_mm * spread if f < 4 else 48 * px_per_mm * (1 if rng.random() < 0.5 else -1)
            base = palm + d * 25 * px_per_mm + perp * (off * 0.6 if f < 4 else off * 0.7)
            fang = d * math.cos((f - 1.5) * 0.12 * spread) + perp * math.sin((f - 1.5) * 0.12 * spread)
            length = rng.uniform(40, 75) * px_per_mm * (0.7 if f == 4 else 1.0)
            tip = base + fang * length
            cv2.line(mask, tuple(np.int32(base)), tuple(np.int32(tip)), 255, max(2, int(16 * px_per_mm)), cv2.LINE_AA)
        shift = shadow_dir * rng.uniform(40, 120) * px_per_mm  # hand above the table: offset shadow
        x, y, bw, bh = cv2.boundingRect(mask)
        if bw == 0:
            continue
        k = int(max(5, 25 * px_per_mm)) | 1
        grow = k + int(abs(shift).max()) + 2
        xa, ya, xb, yb = max(0, x - grow), max(0, y - grow), min(w, x + bw + grow), min(h, y + bh + grow)
        m = mask[ya:yb, xa:xb]
        roi = img[ya:yb, xa:xb].astype(np.float32)
        M = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
        sh = cv2.GaussianBlur(cv2.warpAffine(m, M, (xb - xa, yb - ya)), (k, k), 0).astype(np.float32) * (rng.uniform(0.25, 0.5) / 255.0)
        roi *= 1 - sh[..., None]
        # skin with cylinder shading: brighter along the middle of the arm
        skin = np.array(SKIN[int(rng.integers(0, len(SKIN)))], np.float32) * rng.uniform(0.9, 1.1)
        dt = cv2.distanceTransform(m, cv2.DIST_L2, 3)
        shade = 0.6 + 0.5 * np.clip(dt / max(1.0, 0.3 * arm_w), 0, 1)
        colour = np.clip(skin[None, None, :] * shade[..., None], 0, 255)
        if rng.random() < 0.6:  # a sleeve
            cloth = rng.uniform(20, 220, 3).astype(np.float32)
            yy, xx = np.mgrid[ya:yb, xa:xb].astype(np.float32)
            along = (xx - start[0]) * d[0] + (yy - start[1]) * d[1]
            cut = reach * rng.uniform(0.3, 0.8)
            colour = np.where((along < cut)[..., None], np.clip(cloth[None, None, :] * shade[..., None], 0, 255), colour)
        a = cv2.GaussianBlur(m, (3, 3), 0).astype(np.float32)[..., None] / 255.0
        img[ya:yb, xa:xb] = (roi * (1 - a) + colour * a).astype(np.uint8)
        mask_all |= mask
    return mask_all


def distractors(img: np.ndarray, rng, project, table_box, shadow_off: np.ndarray) -> list[dict]:
    """Cups, phones and cards lying on the table. ``project(P)`` maps (N, 3) table points (Z down) to image pixels."""
    import cv2

    out = []
    x0, y0, x1, y1 = table_box
    for _ in range(int(rng.integers(0, 4))):
        kind = str(rng.choice(["cup", "phone", "card", "card"]))
        cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y1)
        a = rng.uniform(0, 2 * math.pi)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        if kind == "cup":
            r, hgt = rng.uniform(38, 48), rng.uniform(80, 110)
            ring = np.stack([np.cos(np.linspace(0, 2 * np.pi, 32)), np.sin(np.linspace(0, 2 * np.pi, 32))], 1) * r + [cx, cy]
            base = np.column_stack([ring, np.zeros(32)])
            top = np.column_stack([ring, np.full(32, -hgt)])
            sh = np.column_stack([ring + shadow_off[:2] * hgt, np.zeros(32)])
            _shadow(img, project(np.concatenate([base, sh])))
            col = rng.uniform(60, 240, 3)
            hull = cv2.convexHull(np.int32(project(np.concatenate([base, top]))))
            cv2.fillConvexPoly(img, hull, (col * 0.75).tolist(), cv2.LINE_AA)
            cv2.fillPoly(img, [np.int32(project(top))], (col * 0.95).tolist(), cv2.LINE_AA)
            inner = np.column_stack([(ring - [cx, cy]) * 0.88 + [cx, cy], np.full(32, -hgt)])
            cv2.fillPoly(img, [np.int32(project(inner))], [[20, 40, 60], [200, 210, 215], [30, 50, 90]][int(rng.integers(0, 3))], cv2.LINE_AA)
        else:
            w_, h_, hgt = (75, 155, 8) if kind == "phone" else (63, 88, 0.4)
            corners = np.array([[-w_ / 2, -h_ / 2], [w_ / 2, -h_ / 2], [w_ / 2, h_ / 2], [-w_ / 2, h_ / 2]]) @ rot.T + [cx, cy]
            base = np.column_stack([corners, np.zeros(4)])
            top = np.column_stack([corners, np.full(4, -hgt)])
            if hgt > 1:
                _shadow(img, project(np.concatenate([base, np.column_stack([corners + shadow_off[:2] * hgt, np.zeros(4)])])))
            hull = cv2.convexHull(np.int32(project(np.concatenate([base, top]))))
            if kind == "phone":
                cv2.fillConvexPoly(img, hull, (35, 35, 38), cv2.LINE_AA)
                screen = np.column_stack([(corners - [cx, cy]) * 0.9 + [cx, cy], np.full(4, -hgt)])
                cv2.fillConvexPoly(img, np.int32(project(screen)), rng.uniform(10, 60, 3).tolist(), cv2.LINE_AA)
            else:
                col = rng.uniform(120, 250, 3)
                cv2.fillConvexPoly(img, hull, (235, 235, 235), cv2.LINE_AA)
                inner = np.column_stack([(corners - [cx, cy]) * 0.85 + [cx, cy], np.full(4, -hgt)])
                cv2.fillConvexPoly(img, np.int32(project(inner)), col.tolist(), cv2.LINE_AA)
        out.append({"kind": kind, "table_mm": [round(cx, 1), round(cy, 1)]})
    return out


def _shadow(img, pts) -> None:
    import cv2

    hull = cv2.convexHull(np.int32(pts))
    x, y, w, h = cv2.boundingRect(hull)
    pad = 12
    H, W = img.shape[:2]
    xa, ya, xb, yb = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    if xb <= xa or yb <= ya:
        return
    m = np.zeros((yb - ya, xb - xa), np.uint8)
    cv2.fillConvexPoly(m, hull - [xa, ya], 255, cv2.LINE_AA)
    m = cv2.GaussianBlur(m, (15, 15), 0).astype(np.float32) / 255.0 * 0.4
    img[ya:yb, xa:xb] = (img[ya:yb, xa:xb] * (1 - m[..., None])).astype(np.uint8)


def motion_blur(img: np.ndarray, rng) -> float:
    """A straight motion blur 2-9 px long at a random angle, in place. Returns its length, rounded."""
    import cv2

    length = float(rng.uniform(2, 9))
    ang = rng.uniform(0, math.pi)
    k = int(math.ceil(length)) | 1
    ker = np.zeros((k, k), np.float32)
    c = k // 2
    cv2.line(ker, (int(round(c - math.cos(ang) * length / 2)), int(round(c - math.sin(ang) * length / 2))),
             (int(round(c + math.cos(ang) * length / 2)), int(round(c + math.sin(ang) * length / 2))), 1.0, 1, cv2.LINE_AA)
    ker /= ker.sum()
    img[:] = cv2.filter2D(img, -1, ker)
    return round(length, 2)


def camera_effects(img: np.ndarray, rng) -> dict:
    """Motion blur, defocus and sensor noise, in place. Returns what was applied."""
    import cv2

    info = {"motion_blur_px": 0.0, "defocus_sigma_px": 0.0, "noise_sigma": 0.0}
    if rng.random() < 0.3:
        info["motion_blur_px"] = motion_blur(img, rng)
    if rng.random() < 0.35:
        sigma = float(rng.uniform(0.5, 1.8))
        img[:] = cv2.GaussianBlur(img, (0, 0), sigma)
        info["defocus_sigma_px"] = round(sigma, 2)
    sigma = float(rng.uniform(1.0, 7.0))
    cv2.setRNGSeed(int(rng.integers(0, 2**31)))  # OpenCV's generator: fast, and seeded from the scene
    h, w = img.shape[:2]
    luma = np.empty((h, w), np.int16)
    cv2.randn(luma, 0, sigma)
    chroma = np.empty((h // 2 + 1, w // 2 + 1, 3), np.int16)
    cv2.randn(chroma, (0, 0, 0), (sigma * 0.5,) * 3)
    chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_NEAREST)
    img[:] = cv2.add(img, cv2.add(cv2.merge([luma, luma, luma]), chroma), dtype=cv2.CV_8U)
    info["noise_sigma"] = round(sigma, 2)
    return info


# ---------------------------------------------------------------------------------------------- families (families.py)


def table_texture_for(spec: dict, rng, size: int = 384) -> np.ndarray:
    """A table top of a table family (``families._table``): wood, cloth, gingham or stripes, BGR."""
    import cv2

    base = np.array(spec["base"], float)
    low = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    tex = np.ones((size, size), np.float32) + 0.06 * low
    kind = spec["kind"]
    if kind == "wood":
        grain = rng.normal(0, 1, (size, 1)).astype(np.float32)
        grain = cv2.resize(cv2.GaussianBlur(np.repeat(grain, 8, 1), (1, 5), 0), (size, size), interpolation=cv2.INTER_LINEAR)
        tex += 0.08 * grain
        if rng.random() < 0.5:
            tex = tex.T.copy()
    else:
        tex += rng.normal(0, 0.03, (size, size)).astype(np.float32)
    img = tex[..., None] * base[None, None, :]
    if kind in ("gingham", "stripes"):  # two colours woven: the texture spans ~2.4 m, so a period is size * mm / 2400 px
        p = max(2.0, size * spec["period_mm"] / 2400.0)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        a = ((xx // p) % 2).astype(np.float32)
        b = ((yy // p) % 2).astype(np.float32) if kind == "gingham" else np.zeros_like(a)
        share = (a + b) / 2 if kind == "gingham" else a
        img = img * (1 - share[..., None]) + tex[..., None] * np.array(spec["second"], float)[None, None, :] * share[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def light_multiplier(spec: dict, rng, shape: tuple[int, int]) -> np.ndarray:
    """(H, W, 3) float32: the light of a lighting family (``families._light``) over the image, colour temperature
    against the camera's white balance, falloff and exposure together; multiply the image by it."""
    import cv2

    h, w = shape
    f = spec["field"]
    gh, gw = 24, 32
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    wb = kelvin_bgr(spec["wb_kelvin"])
    if f["kind"] == "spots":
        field = light_field(rng, (gh, gw), f["n"])
    elif f["kind"] == "lamp":
        cx, cy, sig = f["x"] * gw, f["y"] * gh, f["sigma"] * gw
        field = f["floor"] + (1 - f["floor"]) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sig * sig))
        field = field / max(1e-3, float(np.percentile(field, 70)))
    else:  # window / mixed: a gradient across the image from the light's side
        a = math.radians(f["angle_deg"])
        t = ((xx / gw - 0.5) * math.cos(a) + (yy / gh - 0.5) * math.sin(a)) + 0.5
        t = np.clip(t, 0, 1)
        field = f["low"] + (f["high"] - f["low"]) * t
    if f["kind"] == "mixed":
        g1, g2 = kelvin_bgr(spec["kelvin"]) / wb, kelvin_bgr(spec["kelvin2"]) / wb
        top = max(g1.max(), g2.max())
        gains = (g1[None, None, :] * (1 - t[..., None]) + g2[None, None, :] * t[..., None]) / top
    else:
        g = kelvin_bgr(spec["kelvin"]) / wb
        gains = np.broadcast_to(g / g.max(), (gh, gw, 3))
    mult = (field[..., None] * gains * spec["exposure"]).astype(np.float32)
    return cv2.resize(mult, (w, h), interpolation=cv2.INTER_CUBIC)


def apply_multiplier(img: np.ndarray, mult: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.multiply(img.astype(np.float32), mult, dtype=cv2.CV_8U)


def sensor(img: np.ndarray, rng, cam: dict, noise_gain: float = 1.0, moving: bool = True, fixed_wb: bool = True) -> dict:
    """A camera family's sensor and processing (``families._camera``), in place: fewer real pixels, lens shading,
    white-balance error, motion blur with rolling-shutter skew (``moving``), defocus, denoise smear, sharpening
    and luma + blotchy chroma noise. Returns what was applied."""
    import cv2

    h, w = img.shape[:2]
    info = {"camera_family": cam["family"]}
    if cam["down"] < 1:
        small = cv2.resize(img, (max(8, int(w * cam["down"])), max(8, int(h * cam["down"]))), interpolation=cv2.INTER_AREA)
        img[:] = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if cam["shading"] or cam["wb"] != [1.0, 1.0, 1.0]:
        yy, xx = np.mgrid[0:24, 0:32].astype(np.float32)
        r2 = ((xx - 15.5) / 16) ** 2 + ((yy - 11.5) / 12) ** 2
        shade = cv2.resize((1 - cam["shading"] * r2 / 2).astype(np.float32), (w, h))
        img[:] = np.clip(img.astype(np.float32) * shade[..., None] * np.array(cam["wb"], np.float32), 0, 255).astype(np.uint8)
    if moving and rng.random() < cam["motion_p"]:
        info["motion_blur_px"] = motion_blur(img, rng)
        if cam["rolling"]:  # the rows are read one after another while the scene moves: a skew
            skew = cam["rolling"] * w * (1 if rng.random() < 0.5 else -1)
            mx = (np.arange(w, dtype=np.float32)[None, :] + skew * (np.arange(h, dtype=np.float32)[:, None] / h - 0.5))
            my = np.repeat(np.arange(h, dtype=np.float32)[:, None], w, 1)
            img[:] = cv2.remap(img, mx.astype(np.float32), my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            info["rolling_px"] = round(float(skew), 1)
    if moving and rng.random() < cam["defocus_p"]:
        sigma = float(rng.uniform(0.5, 1.8))
        img[:] = cv2.GaussianBlur(img, (0, 0), sigma)
        info["defocus_sigma_px"] = round(sigma, 2)
    if cam["smear"]:  # phone denoising: flat areas smeared, fine texture lost
        img[:] = cv2.addWeighted(img, 1 - cam["smear"], cv2.bilateralFilter(img, 5, 30, 5), cam["smear"], 0)
    if cam["sharpen"]:
        blur = cv2.GaussianBlur(img, (0, 0), 1.5)
        img[:] = cv2.addWeighted(img, 1 + cam["sharpen"], blur, -cam["sharpen"], 0)
    sigma = float(rng.uniform(*cam["noise"])) * noise_gain
    cv2.setRNGSeed(int(rng.integers(0, 2**31)))
    luma = np.empty((h, w), np.int16)
    cv2.randn(luma, 0, sigma)
    b = int(cam["blotch"])
    chroma = np.empty((h // b + 1, w // b + 1, 3), np.int16)
    cv2.randn(chroma, (0, 0, 0), (sigma * cam["chroma"],) * 3)
    chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_NEAREST if b <= 2 else cv2.INTER_LINEAR)
    img[:] = cv2.add(img, cv2.add(cv2.merge([luma, luma, luma]), chroma), dtype=cv2.CV_8U)
    info["noise_sigma"] = round(sigma, 2)
    return info


def clutter(img: np.ndarray, rng, project, table_box, shadow_off: np.ndarray, n: int, avoid=None) -> list[dict]:
    """``n`` things lying on the table: sleeved cards, fans of cards, rule sheets, cups, phones. ``avoid(x, y, r)``
    (optional): True where an object of radius r mm centred at table (x, y) would lie on a board; such spots are
    drawn again (a recording's boards must stay in view: its truth knows nothing of clutter)."""
    import cv2

    out = []
    x0, y0, x1, y1 = table_box
    for _ in range(n):
        kind = str(rng.choice(["sleeve", "sleeve", "fan", "sheet", "cup", "phone"]))
        radius = {"sleeve": 60, "fan": 110, "sheet": 190, "cup": 50, "phone": 90}[kind]
        for _try in range(30):
            cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y1)
            if avoid is None or not avoid(cx, cy, radius):
                break
        else:
            continue
        a = rng.uniform(0, 2 * math.pi)
        if kind in ("cup", "phone"):
            sub = distractors_at(img, rng, project, shadow_off, kind, cx, cy, a)
            out.append(sub)
            continue
        cards = [(0.0, 0.0, 0.0)] if kind != "fan" else [(i * 9.0 - 18, abs(i - 2) * 3.0, (i - 2) * 0.25) for i in range(5)]
        w_, h_ = (66, 91) if kind != "sheet" else (210, 297)
        back = rng.uniform(60, 220, 3)
        for dx, dy, turn in cards:
            rot = np.array([[math.cos(a + turn), -math.sin(a + turn)], [math.sin(a + turn), math.cos(a + turn)]])
            corners = np.array([[-w_ / 2, -h_ / 2], [w_ / 2, -h_ / 2], [w_ / 2, h_ / 2], [-w_ / 2, h_ / 2]]) @ rot.T + [cx + dx, cy + dy]
            q = np.int32(project(np.column_stack([corners, np.full(4, -0.5)])))
            if kind == "sheet":
                cv2.fillConvexPoly(img, q, (238, 240, 242), cv2.LINE_AA)
                for k in range(1, 12):  # printed lines
                    p0 = np.array([-w_ / 2 + 20, -h_ / 2 + k * 24]) @ rot.T + [cx, cy]
                    p1 = np.array([w_ / 2 - 20, -h_ / 2 + k * 24]) @ rot.T + [cx, cy]
                    ln = np.int32(project(np.array([[*p0, -0.5], [*p1, -0.5]])))
                    cv2.line(img, tuple(ln[0]), tuple(ln[1]), (90, 90, 90), 1, cv2.LINE_AA)
                continue
            cv2.fillConvexPoly(img, q, back.tolist(), cv2.LINE_AA)
            inner = np.column_stack([(corners - corners.mean(0)) * 0.86 + corners.mean(0), np.full(4, -0.5)])
            cv2.fillConvexPoly(img, np.int32(project(inner)), np.clip(back * 0.6 + 90, 0, 255).tolist(), cv2.LINE_AA)
            if kind == "sleeve":  # a glossy plastic sleeve: a bright sheen along one edge
                edge = np.column_stack([corners[[0, 1]], np.full(2, -0.5)])
                e = np.int32(project(edge))
                cv2.line(img, tuple(e[0]), tuple(e[1]), (245, 245, 245), 2, cv2.LINE_AA)
        out.append({"kind": kind, "table_mm": [round(cx, 1), round(cy, 1)]})
    return out


def distractors_at(img: np.ndarray, rng, project, shadow_off, kind: str, cx: float, cy: float, a: float) -> dict:
    """One cup or phone at table (cx, cy), turned by ``a`` (radians)."""
    import cv2

    if kind == "cup":
        r, hgt = rng.uniform(38, 48), rng.uniform(80, 110)
        ring = np.stack([np.cos(np.linspace(0, 2 * np.pi, 32)), np.sin(np.linspace(0, 2 * np.pi, 32))], 1) * r + [cx, cy]
        base, top = np.column_stack([ring, np.zeros(32)]), np.column_stack([ring, np.full(32, -hgt)])
        _shadow(img, project(np.concatenate([base, np.column_stack([ring + shadow_off[:2] * hgt, np.zeros(32)])])))
        col = rng.uniform(60, 240, 3)
        cv2.fillConvexPoly(img, cv2.convexHull(np.int32(project(np.concatenate([base, top])))), (col * 0.75).tolist(), cv2.LINE_AA)
        cv2.fillPoly(img, [np.int32(project(top))], (col * 0.95).tolist(), cv2.LINE_AA)
    else:
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        corners = np.array([[-37.5, -77.5], [37.5, -77.5], [37.5, 77.5], [-37.5, 77.5]]) @ rot.T + [cx, cy]
        base, top = np.column_stack([corners, np.zeros(4)]), np.column_stack([corners, np.full(4, -8.0)])
        _shadow(img, project(np.concatenate([base, np.column_stack([corners + shadow_off[:2] * 8, np.zeros(4)])])))
        cv2.fillConvexPoly(img, cv2.convexHull(np.int32(project(np.concatenate([base, top])))), (35, 35, 38), cv2.LINE_AA)
        screen = np.column_stack([(corners - [cx, cy]) * 0.9 + [cx, cy], np.full(4, -8.0)])
        cv2.fillConvexPoly(img, np.int32(project(screen)), rng.uniform(10, 60, 3).tolist(), cv2.LINE_AA)
    return {"kind": kind, "table_mm": [round(cx, 1), round(cy, 1)]}
