"""Board localisation: from the markers found in a frame to each board's homography, pose and quality.

For each layout, the markers of that board give point pairs (board mm -> image px). With 3 or more markers the
homography is fitted afresh (RANSAC, then least squares on the inliers); with 2 markers it is fitted as a rigid
move of the board on the table from the last known homography ("2 plus the last pose"). With a camera file
the points are undistorted first and the pose comes from ``solvePnP``. Every result carries the per-marker
residual in mm and the quality warnings of ``vision.quality``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.errors import UserError
from calibration.layout import apply_h, marker_corners_mm
from vision import quality
from vision.markers import DETECT_LONG_SIDE, find_markers

MIN_MARKERS_FRESH = 3  # markers needed to fit a board without history
MIN_MARKERS_TRACKED = 2  # markers needed when the last homography is known
OUTLIER_MM = 6.0  # a marker whose corners miss the fit by more than this is left out (moved or peeled)
RANSAC_MM = 3.0  # corner tolerance of the first, robust fit


@dataclass
class BoardLocation:
    board: str
    found: bool
    homography: list | None = None  # 3x3, board mm -> image px (undistorted px when a camera is given)
    method: str = ""  # "fit" (3+ markers), "tracked" (2 markers + last pose) or "plane" (2 markers + another board's table)
    markers_seen: list[int] = field(default_factory=list)
    markers_used: list[int] = field(default_factory=list)
    residual_mm: dict = field(default_factory=dict)  # marker id -> rms corner residual in mm
    pose: dict | None = None  # rvec, tvec (mm), tilt_deg, distance_mm; needs a camera
    px_per_mm: float | None = None
    sharpness: float | None = None
    warnings: list[str] = field(default_factory=list)
    moved: bool = False
    moved_mm: float = 0.0

    def to_json(self) -> dict:
        out = dict(self.__dict__)
        out["residual_mm"] = {str(k): round(v, 3) for k, v in self.residual_mm.items()}
        if self.homography is not None:
            out["homography"] = [[float(v) for v in row] for row in self.homography]
        for key in ("px_per_mm", "sharpness", "moved_mm"):
            if out[key] is not None:
                out[key] = round(float(out[key]), 3)
        return out


def board_points(layout: dict):
    """{marker id: 4x2 corners in board mm} and the set of dictionaries the board uses."""
    import numpy as np

    pts = {m["id"]: np.array(marker_corners_mm(m), np.float64) for m in layout["markers"]}
    return pts, {m["dictionary"] for m in layout["markers"]}


def fit_homography(src, dst, tolerance_px: float = 4.0):
    """Robust homography src -> dst: RANSAC with the given tolerance, then least squares on the inliers."""
    import cv2

    H, mask = cv2.findHomography(src, dst, cv2.RANSAC, tolerance_px)
    if H is None:
        return None
    inl = mask.ravel().astype(bool)
    if inl.sum() >= 8:
        H2, _ = cv2.findHomography(src[inl], dst[inl], 0)
        if H2 is not None:
            H = H2
    return H / H[2, 2]


def fit_rigid_move(last_H, board_pts, image_pts):
    """Homography for a board that slid and turned on the table since ``last_H``: H = last_H @ M, with M a
    2D rotation + translation in board mm fitted to the observed corners."""
    import numpy as np

    q = apply_h(np.linalg.inv(last_H), image_pts)  # where the corners are now, in the last board frame
    p = np.asarray(board_pts, np.float64)
    pc, qc = p.mean(0), q.mean(0)
    u, _, vt = np.linalg.svd((p - pc).T @ (q - qc))
    d = np.sign(np.linalg.det(vt.T @ u.T))
    R = vt.T @ np.diag([1, d]) @ u.T
    t = qc - R @ pc
    M = np.eye(3)
    M[:2, :2] = R
    M[:2, 2] = t
    H = np.asarray(last_H) @ M
    return H / H[2, 2]


def _rough_px_per_mm(corners_by_id: dict, layout: dict) -> float:
    """Median of marker side in px over side in mm: the scale for tolerances before any fit."""
    import numpy as np

    sizes = {m["id"]: m["size"] for m in layout["markers"]}
    ratios = [np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)) / sizes[i] for i, c in corners_by_id.items()]
    return float(np.median(ratios))


def residuals_mm(H, corners_by_id: dict, layout_pts: dict) -> dict:
    """Per marker: rms distance in board mm between the layout's corners and the seen corners mapped back."""
    import numpy as np

    Hinv = np.linalg.inv(H)
    out = {}
    for mid, img in corners_by_id.items():
        back = apply_h(Hinv, img)
        out[mid] = float(np.sqrt(np.mean(np.sum((back - layout_pts[mid]) ** 2, axis=1))))
    return out


def locate_board(layout: dict, markers: dict, frame_shape, camera=None, last_H=None, frame=None, plane_H=None) -> BoardLocation:
    """Locate one board from the markers found in a frame ({(dictionary, id): corners px}). ``plane_H``: the
    homography of another board lying on the same table (board mm -> image px); a board never seen before whose
    corner markers are seen only two at a time (one under a score track, one under a pile of pieces: e2e 4p s9)
    is then fitted as a board lying on that table, turned and moved (three unknowns, not eight), and kept only if
    every seen marker sits within ``OUTLIER_MM`` of that fit."""
    import cv2
    import numpy as np

    layout_pts, dicts = board_points(layout)
    seen = {}
    for m in layout["markers"]:
        key = (m["dictionary"], m["id"])
        if key in markers:
            seen[m["id"]] = np.asarray(markers[key], np.float64)
    loc = BoardLocation(board=layout["name"], found=False, markers_seen=sorted(seen))
    if camera is not None:
        K, dist = camera
        undist = {mid: cv2.undistortPoints(c.reshape(-1, 1, 2), K, dist, P=K).reshape(-1, 2) for mid, c in seen.items()}
    else:
        undist = seen
    use = dict(undist)
    H = None
    for _ in range(3):  # fit, drop markers that disagree, fit again
        if len(use) >= MIN_MARKERS_FRESH:
            src = np.concatenate([layout_pts[i] for i in use]).astype(np.float32)
            dst = np.concatenate([use[i] for i in use]).astype(np.float32)
            H = fit_homography(src, dst, RANSAC_MM * _rough_px_per_mm(use, layout))
            loc.method = "fit"
        elif len(use) >= MIN_MARKERS_TRACKED and (last_H is not None or plane_H is not None):
            src = np.concatenate([layout_pts[i] for i in use])
            dst = np.concatenate([use[i] for i in use])
            H = fit_rigid_move(np.asarray(last_H if last_H is not None else plane_H, np.float64), src, dst)
            loc.method = "tracked" if last_H is not None else "plane"
        else:
            H = None
            break
        if H is None or not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:  # markers in a line, or degenerate
            H = None
            break
        res = residuals_mm(H, use, layout_pts)
        bad = [i for i, r in res.items() if r > OUTLIER_MM]
        if bad and loc.method == "plane":  # not lying flat on that table, or a marker out of place: no guess
            H = None
            break
        if not bad or len(use) - 1 < MIN_MARKERS_TRACKED:
            break
        worst = max(bad, key=lambda i: res[i])
        loc.warnings.append(f"marker {worst} does not sit where the layout says (off by {res[worst]:.1f} mm); it was ignored. Check it is stuck in its place.")
        del use[worst]
    if H is None:
        need = f"{MIN_MARKERS_FRESH} markers" + (f" (or {MIN_MARKERS_TRACKED} once the board has been seen)" if last_H is None else "")
        loc.warnings.append(
            f"board {layout['name']} not found: {len(seen)} of its {len(layout['markers'])} markers are visible, {need} are needed. "
            "Clear hands and pieces off the markers, and check the whole board is in the picture."
        )
        return loc
    loc.found = True
    loc.homography = H.tolist()
    loc.markers_used = sorted(use)
    loc.residual_mm = residuals_mm(H, undist, layout_pts)
    if camera is not None:
        loc.pose = pose_from_points(layout_pts, use, camera)
    quality.assess(loc, layout, frame_shape, frame=frame, image_corners=seen)
    return loc


def pose_from_points(layout_pts: dict, undist: dict, camera) -> dict:
    """Board pose from the undistorted corners: rotation vector, translation (mm), tilt and distance."""
    import cv2
    import numpy as np

    K, _ = camera
    obj = np.concatenate([np.c_[layout_pts[i], np.zeros(4)] for i in undist]).astype(np.float64)
    img = np.concatenate([undist[i] for i in undist]).astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return None
    R, _ = cv2.Rodrigues(rvec)
    normal = R[:, 2]  # board's z axis in camera coordinates
    tilt = float(np.degrees(np.arccos(min(1.0, abs(normal[2])))))
    return {
        "rvec": [float(v) for v in rvec.ravel()],
        "tvec_mm": [float(v) for v in tvec.ravel()],
        "tilt_deg": round(tilt, 2),
        "distance_mm": round(float(np.linalg.norm(tvec)), 1),
    }


def locate(frame, layouts: list[dict], camera=None, last: dict | None = None, long_side: int | None = None) -> list[BoardLocation]:
    """Find every board of ``layouts`` in a BGR or grey frame. ``last``: {board name: last homography}."""
    dicts = {m["dictionary"] for lay in layouts for m in lay["markers"]}
    markers = find_markers(frame, dicts, long_side or DETECT_LONG_SIDE)
    last = last or {}
    return [locate_board(lay, markers, frame.shape, camera, last.get(lay["name"]), frame) for lay in layouts]


def view_matrix(px_per_mm: float, origin=(0.0, 0.0)):
    """Board mm -> pixels of a top-down view at ``px_per_mm`` whose pixel (0, 0) covers board mm ``origin``:
    output pixel i covers board mm [i, i + 1) / px_per_mm from the origin (pixel centres at i + 0.5)."""
    import numpy as np

    x0, y0 = origin
    return np.array([[px_per_mm, 0.0, -px_per_mm * x0 - 0.5], [0.0, px_per_mm, -px_per_mm * y0 - 0.5], [0.0, 0.0, 1.0]])


def rectify(frame, H, layout: dict, px_per_mm: float = 2.0, camera=None):
    """The board seen from straight above: an image of size_mm * px_per_mm, board mm (x, y) at pixel
    (x, y) * px_per_mm. With a camera the frame is undistorted first."""
    import cv2
    import numpy as np

    if camera is not None:
        K, dist = camera
        frame = cv2.undistort(frame, K, dist)
    w, h = layout["size_mm"]
    M = view_matrix(px_per_mm) @ np.linalg.inv(np.asarray(H, np.float64))
    return cv2.warpPerspective(frame, M, (round(w * px_per_mm), round(h * px_per_mm)), flags=cv2.INTER_AREA if px_per_mm < 1 else cv2.INTER_LINEAR)


def rectify_photo(photo: str, layout: dict, px_per_mm: float = 2.0, camera=None):
    """(rectified BGR image, BoardLocation) for a photo of the board; UserError if the board is not found."""
    import cv2

    frame = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if frame is None:
        raise UserError(f"cannot read {photo} as an image. Give a JPEG or PNG photo of the board.")
    loc = locate(frame, [layout], camera=camera)[0]
    if not loc.found:
        raise UserError("the board was not found in the photo: " + " ".join(loc.warnings))
    return rectify(frame, loc.homography, layout, px_per_mm, camera), loc
