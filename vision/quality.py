"""Can the camera read the pieces? Resolution, obliqueness, framing and focus of a located board.

``assess`` fills a BoardLocation's ``px_per_mm`` and ``sharpness`` and adds a plain warning for each problem a
user can fix at the table: camera too far or too low in resolution, too oblique, board partly outside the
picture, or out of focus.
"""

from __future__ import annotations

from calibration.layout import apply_h
from calibration.markers import cells

MIN_PX_PER_MM = 1.5  # a 15 mm piece must cover about 22 px or more at the far edge of the board
MAX_SCALE_RATIO = 2.0  # near edge / far edge pixel scale without a camera file
MAX_TILT_DEG = 45.0
MIN_SHARPNESS = 0.15  # normalised Laplacian energy of the markers; sharp photos give about 0.5-1.0
PATCH_CELL_PX = 8  # pixels per marker cell in the canonical patch used for sharpness


def local_scale(H, x: float, y: float) -> float:
    """Pixels per mm of the homography H around board point (x, y): sqrt of the Jacobian's determinant."""
    import numpy as np

    H = np.asarray(H, np.float64)
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    u = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
    v = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
    J = np.array([[H[0, 0] - u * H[2, 0], H[0, 1] - u * H[2, 1]], [H[1, 0] - v * H[2, 0], H[1, 1] - v * H[2, 1]]]) / w
    return float(np.sqrt(abs(np.linalg.det(J))))


def marker_sharpness(frame, corners, cells: int) -> float:
    """Laplacian energy over contrast of one marker resampled so each code cell is PATCH_CELL_PX pixels."""
    import cv2
    import numpy as np

    n = cells * PATCH_CELL_PX
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    patch = cv2.warpPerspective(frame, M, (n, n), flags=cv2.INTER_LINEAR)
    if patch.ndim == 3:
        patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    patch = patch.astype(np.float32)
    contrast = patch.var()
    if contrast < 1.0:
        return 0.0
    return float(cv2.Laplacian(patch, cv2.CV_32F).var() / contrast)


def assess(loc, layout: dict, frame_shape, frame=None, image_corners: dict | None = None) -> None:
    import numpy as np

    w, h = layout["size_mm"]
    H = np.asarray(loc.homography, np.float64)
    board_corners = [(0, 0), (w, 0), (w, h), (0, h)]
    scales = [local_scale(H, x, y) for x, y in board_corners]
    loc.px_per_mm = local_scale(H, w / 2, h / 2)
    far = min(scales)
    if far < MIN_PX_PER_MM:
        loc.warnings.append(
            f"the camera sees the far edge of {layout['name']} at {far:.2f} px/mm; pieces need at least {MIN_PX_PER_MM} px/mm. "
            "Move the camera closer to the table or use a higher resolution."
        )
    tilt = loc.pose["tilt_deg"] if loc.pose else None
    if tilt is not None and tilt > MAX_TILT_DEG:
        loc.warnings.append(f"the camera looks at {layout['name']} {tilt:.0f} degrees off vertical; keep it under {MAX_TILT_DEG:.0f}. Raise it and point it more straight down.")
    elif tilt is None and max(scales) / max(far, 1e-9) > MAX_SCALE_RATIO:
        loc.warnings.append(
            f"the camera is too oblique: the near edge of {layout['name']} looks {max(scales) / far:.1f} times bigger than the far edge. "
            "Raise the camera and point it more straight down."
        )

    img_pts = apply_h(H, board_corners)
    fh, fw = frame_shape[:2]
    if ((img_pts[:, 0] < 0) | (img_pts[:, 0] > fw - 1) | (img_pts[:, 1] < 0) | (img_pts[:, 1] > fh - 1)).any():
        loc.warnings.append(f"part of {layout['name']} is outside the picture: the camera is too low or off-centre. Raise it or move the board into view.")
    if frame is not None and image_corners:
        dicts = {m["id"]: m["dictionary"] for m in layout["markers"]}
        values = [marker_sharpness(frame, c, cells(dicts[i])) for i, c in image_corners.items()]
        loc.sharpness = float(np.median(values))
        if loc.sharpness < MIN_SHARPNESS:
            loc.warnings.append(f"the picture is out of focus (sharpness {loc.sharpness:.2f}, need {MIN_SHARPNESS}). Focus the camera on the table and hold it still.")
