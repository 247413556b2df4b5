"""Colour profiles: what each player colour looks like under this table's light.

``learn`` reads one photo of the colour card (layout "colour-card") with one piece of each colour on its
numbered spot. White balance comes from the white quiet zones around the card's markers: per-channel gains
make that paper grey. Each colour is then kept as the mean and covariance of its Lab values after the gains;
``classify`` names pixels by the nearest colour (Mahalanobis distance). Rerun ``learn`` when the light changes.
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.errors import UserError
from calibration.layout import apply_h, centroid, marker_corners_mm
from calibration.markers import cells

FORMAT = "tablewatch-colours/1"


def _sample_board(frame, H, points_mm):
    """Frame pixels (BGR float) at board points (N, 2) mm, by bilinear sampling through homography H."""
    import cv2
    import numpy as np

    px = apply_h(H, points_mm).astype(np.float32)
    out = cv2.remap(frame, px[:, 0].reshape(-1, 1), px[:, 1].reshape(-1, 1), cv2.INTER_LINEAR)
    return out.reshape(-1, frame.shape[2] if frame.ndim == 3 else 1).astype(np.float64)


def white_points_mm(layout: dict, step_mm: float = 0.5):
    """Board points in the white quiet zones around the markers (a ring from 25% to 75% of a code cell out)."""
    import numpy as np

    pts = []
    for m in layout["markers"]:
        cell = m["size"] / cells(m["dictionary"])
        corners = np.array(marker_corners_mm(m))
        centre = corners.mean(0)
        ex = (corners[1] - corners[0]) / np.linalg.norm(corners[1] - corners[0])
        ey = (corners[3] - corners[0]) / np.linalg.norm(corners[3] - corners[0])
        half = m["size"] / 2
        grid = np.arange(-half - 0.75 * cell, half + 0.75 * cell + 1e-9, step_mm)
        for u in grid:
            for v in grid:
                d = max(abs(u), abs(v))
                if half + 0.25 * cell <= d <= half + 0.75 * cell:
                    pts.append(centre + u * ex + v * ey)
    return np.array(pts)


def white_gains(frame, H, layout: dict):
    """Per-channel (B, G, R) gains that make the markers' white borders neutral grey, and the white level."""
    import numpy as np

    white = _sample_board(frame, H, white_points_mm(layout))
    if white.shape[1] != 3:
        raise UserError("colour calibration needs a colour photo; this one is greyscale.")
    mean = np.median(white, axis=0)
    if mean.min() < 40:
        raise UserError("the white borders around the markers are too dark. Light the table better, or uncover the markers.")
    if mean.max() > 250:
        raise UserError("the white borders around the markers are overexposed. Lower the camera exposure or the light.")
    level = float(mean.mean())
    return (level / mean).tolist(), level


def _lab(bgr):
    import cv2
    import numpy as np

    img = np.clip(bgr, 0, 255).astype(np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(img, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float64)


def spot_points_mm(region: dict, step_mm: float = 0.5, keep: float = 0.6):
    """Board points inside the middle ``keep`` fraction of a spot (away from its printed edge)."""
    import cv2
    import numpy as np

    poly = np.array(region["polygon"], np.float64)
    c = np.array(centroid(region["polygon"]))
    inner = c + (poly - c) * keep
    x0, y0 = inner.min(0)
    x1, y1 = inner.max(0)
    xs, ys = np.meshgrid(np.arange(x0, x1, step_mm), np.arange(y0, y1, step_mm))
    pts = np.c_[xs.ravel(), ys.ravel()]
    inside = [cv2.pointPolygonTest(inner.astype(np.float32), (float(x), float(y)), False) >= 0 for x, y in pts]
    return pts[np.array(inside)]


def learn(frame, layout: dict, names: list[str], H) -> dict:
    """A colour profile from a frame of the colour card with the board homography H."""
    import numpy as np

    spots = sorted((r for r in layout["regions"] if r["kind"] == "colour_spot"), key=lambda r: r.get("attributes", {}).get("index", 0))
    if len(names) > len(spots):
        raise UserError(f"{len(names)} colours given but the card has {len(spots)} spots. Give at most {len(spots)} names.")
    gains, level = white_gains(frame, H, layout)
    colours = {}
    for name, spot in zip(names, spots):
        lab = _lab(_sample_board(frame, H, spot_points_mm(spot)) * gains)
        cov = np.cov(lab.T) + np.eye(3) * 4.0  # floor: camera noise and light changes over the table
        colours[name] = {"spot": spot["id"], "lab_mean": lab.mean(0).round(3).tolist(), "lab_cov": cov.round(3).tolist()}
    means = {n: np.array(c["lab_mean"]) for n, c in colours.items()}
    warnings = []
    for a in means:
        for b in means:
            if a < b and np.linalg.norm(means[a][1:] - means[b][1:]) < 8 and abs(means[a][0] - means[b][0]) < 10:
                warnings.append(f"{a} and {b} look almost the same under this light. Use more, whiter light, or check each piece is on its spot.")
    return {"format": FORMAT, "white_gains_bgr": [round(g, 5) for g in gains], "white_level": round(level, 2), "colours": colours, "warnings": warnings}


def classify(profile: dict, bgr_pixels, gains=None):
    """(names, distances) for BGR pixels (N, 3): the nearest profile colour by Mahalanobis distance in Lab.
    ``gains``: this frame's white-balance gains (from ``white_gains``); the profile's own by default."""
    import numpy as np

    lab = _lab(np.asarray(bgr_pixels, np.float64).reshape(-1, 3) * np.asarray(gains or profile["white_gains_bgr"]))
    names = list(profile["colours"])
    dists = []
    for n in names:
        c = profile["colours"][n]
        d = lab - np.array(c["lab_mean"])
        inv = np.linalg.inv(np.array(c["lab_cov"]))
        dists.append(np.sqrt(np.einsum("ij,jk,ik->i", d, inv, d)))
    dists = np.array(dists)
    best = dists.argmin(0)
    return [names[i] for i in best], dists[best, np.arange(len(best))]


def save(profile: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(profile, indent=2) + "\n", encoding="utf-8")


def load(path: str | Path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"colour profile {path} not found. Make one with: tablewatch calibrate colours PHOTO --out {path}")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise UserError(f"{path} is not a colour profile from 'tablewatch calibrate colours'. Run it again.")
    return data
