"""Camera intrinsics: calibrate from chessboard or ChArUco photos, and read/write ``camera.json``.

``camera.json`` holds the camera matrix and distortion for the image size they were measured at; ``load``
rescales them to another frame size of the same aspect ratio (a camera streaming at a lower resolution).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json
from assistant.pairs import parse_pair
from calibration.markers import dictionary

FORMAT = "tablewatch-camera/1"


@dataclass
class Calibration:
    camera_matrix: list[list[float]]
    distortion: list[float]
    image_size: tuple[int, int]  # width, height in pixels
    rms_px: float
    images_used: int
    images_given: int
    rejected: list[str]
    pattern: dict

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "image_size": list(self.image_size),
            "camera_matrix": self.camera_matrix,
            "distortion": self.distortion,
            "rms_px": self.rms_px,
            "images_used": self.images_used,
            "images_given": self.images_given,
            "pattern": self.pattern,
        }


def parse_pattern(text: str) -> tuple[int, int]:
    """'9x6' -> (9, 6): inner corners across and down for a chessboard, squares for ChArUco."""
    return parse_pair(text, "pattern", "9x6 (columns x rows)", 2)


def _read_grey(path: str):
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if img is None:
        if not Path(path).is_file():
            raise UserError(f"image {path} not found.")
        raise UserError(f"{path} is not an image OpenCV can read (use JPEG or PNG).")
    return img


def chessboard_points(gray, pattern: tuple[int, int], square_mm: float):
    """(object points, image points) for one photo of a chessboard, or None when the board is not found."""
    import cv2
    import numpy as np

    cols, rows = pattern
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    found, corners = cv2.findChessboardCorners(gray, pattern, flags)
    if found:
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
        corners = cv2.cornerSubPix(gray, corners, (11, 11), (-1, -1), criteria)
    else:  # the sector-based detector finds boards the classic one misses (blur, strong perspective)
        found, corners = cv2.findChessboardCornersSB(gray, pattern, cv2.CALIB_CB_ACCURACY | cv2.CALIB_CB_NORMALIZE_IMAGE)
        if not found:
            return None
    obj = np.zeros((cols * rows, 3), np.float32)
    obj[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    return obj, corners.reshape(-1, 1, 2).astype(np.float32)


def charuco_board(pattern: tuple[int, int], square_mm: float, marker_mm: float, dictionary_name: str):
    import cv2

    if marker_mm >= square_mm:
        raise UserError(f"--marker-mm ({marker_mm}) must be smaller than --square-mm ({square_mm}).")
    return cv2.aruco.CharucoBoard(pattern, square_mm, marker_mm, dictionary(dictionary_name))


def charuco_points(gray, board, min_corners: int = 6):
    """(object points, image points) for one ChArUco photo, or None when too few corners are seen."""
    import cv2

    detector = cv2.aruco.CharucoDetector(board)
    ch_corners, ch_ids, _, _ = detector.detectBoard(gray)
    if ch_ids is None or len(ch_ids) < min_corners:
        return None
    obj, img = board.matchImagePoints(ch_corners, ch_ids)
    return obj.astype("float32"), img.astype("float32")


def calibrate(paths: list[str], kind: str, pattern: tuple[int, int], square_mm: float, marker_mm: float | None = None, dictionary_name: str = "DICT_4X4_100") -> Calibration:
    """Find the pattern in each photo and solve for the intrinsics; photos without the pattern are skipped."""
    import cv2

    if not paths:
        raise UserError("give the calibration photos, e.g. tablewatch calibrate camera --chessboard 9x6 --square-mm 25 shots/*.jpg --out camera.json")
    board = charuco_board(pattern, square_mm, marker_mm or square_mm * 0.75, dictionary_name) if kind == "charuco" else None
    objects, images, rejected = [], [], []
    size = None
    for path in paths:
        gray = _read_grey(path)
        here = (gray.shape[1], gray.shape[0])
        if size is None:
            size = here
        elif here != size:
            raise UserError(f"{path} is {here[0]}x{here[1]} but the first photo is {size[0]}x{size[1]}; calibrate one camera resolution at a time.")
        found = chessboard_points(gray, pattern, square_mm) if kind == "chessboard" else charuco_points(gray, board)
        if found is None:
            rejected.append(str(path))
            continue
        objects.append(found[0])
        images.append(found[1])
    if len(images) < 3:
        raise UserError(
            f"the {kind} was found in only {len(images)} of {len(paths)} photos; at least 3 are needed (10-25 is better). "
            "Check the pattern size (inner corners for a chessboard, e.g. 9x6) and take sharp photos of the whole pattern."
        )
    rms, K, dist, _, _ = cv2.calibrateCamera(objects, images, size, None, None)
    return Calibration(
        camera_matrix=K.tolist(),
        distortion=dist.ravel().tolist(),
        image_size=size,
        rms_px=float(rms),
        images_used=len(images),
        images_given=len(paths),
        rejected=rejected,
        pattern={"kind": kind, "size": list(pattern), "square_mm": square_mm, **({"marker_mm": marker_mm or square_mm * 0.75, "dictionary": dictionary_name} if kind == "charuco" else {})},
    )


def save(cal: Calibration, path: str | Path) -> None:
    Path(path).write_text(json.dumps(cal.to_json(), indent=2) + "\n", encoding="utf-8")


DIST_SIZES = (4, 5, 8, 12, 14)  # the distortion models OpenCV knows: k1 k2 p1 p2 [k3 [k4 k5 k6 [s1-s4 [tx ty]]]]
MAX_DIST = 1000.0  # |coefficient|; calibrated lenses stay far below (a fisheye's rational model: tens)
MAX_SIDE_PX = 100_000


def validate(data, path) -> tuple[list[list[float]], list[float], tuple[int, int]]:
    """(camera matrix, distortion, image size) of a parsed camera file, or ``UserError`` naming the first field
    that no calibration could have written: a missing or malformed field, a number that is not finite, a focal
    length that is not positive, a principal point outside the image, a distortion of a size OpenCV does not
    use or with a coefficient beyond ``MAX_DIST``. Such values would otherwise reach OpenCV and numpy and end in
    a ``LinAlgError`` or a board "found" nowhere."""
    again = f"Calibrate again: tablewatch calibrate camera ... --out {path}"

    def bad(field: str, what: str):
        return UserError(f"{path}: {field} {what}. {again}")

    if not isinstance(data, dict):
        raise UserError(f"{path} is not a camera file written by 'tablewatch calibrate camera'. {again}")
    for key in ("camera_matrix", "distortion", "image_size"):
        if key not in data:
            raise bad(key, "is missing")

    def number(value, field: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad(field, f"must be a number, not {json.dumps(value)[:40]}")
        try:
            out = float(value)
        except OverflowError:
            out = math.inf
        if not math.isfinite(out):
            raise bad(field, "is not a finite number")
        return out

    size = data["image_size"]
    if not isinstance(size, list) or len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in size) \
            or not all(0 < v <= MAX_SIDE_PX for v in size):
        raise bad("image_size", "must be [width, height] in whole pixels, e.g. [1920, 1080]")
    w, h = size
    K = data["camera_matrix"]
    if not isinstance(K, list) or len(K) != 3 or not all(isinstance(row, list) and len(row) == 3 for row in K):
        raise bad("camera_matrix", "must be 3 rows of 3 numbers")
    K = [[number(v, f"camera_matrix[{r}][{c}]") for c, v in enumerate(row)] for r, row in enumerate(K)]
    fx, fy = K[0][0], K[1][1]
    if not (0 < fx <= 100 * max(w, h)) or not (0 < fy <= 100 * max(w, h)):
        raise bad("camera_matrix", f"has focal lengths {fx:g}, {fy:g} px; they must be positive and below {100 * max(w, h)}")
    if not (0 <= K[0][2] <= w and 0 <= K[1][2] <= h):
        raise bad("camera_matrix", f"puts the principal point at ({K[0][2]:g}, {K[1][2]:g}), outside the {w}x{h} image")
    if K[1][0] != 0 or K[2] != [0, 0, 1] or abs(K[0][1]) > fx:
        raise bad("camera_matrix", "must have the form [[fx, s, cx], [0, fy, cy], [0, 0, 1]]")
    dist = data["distortion"]
    if isinstance(dist, list) and len(dist) == 1 and isinstance(dist[0], list):  # OpenCV's 1xN shape
        dist = dist[0]
    if not isinstance(dist, list) or len(dist) not in DIST_SIZES:
        raise bad("distortion", f"must be a list of {', '.join(map(str, DIST_SIZES))} numbers")
    dist = [number(v, f"distortion[{i}]") for i, v in enumerate(dist)]
    for i, v in enumerate(dist):
        if abs(v) > MAX_DIST:
            raise bad(f"distortion[{i}]", f"is {v:g}; no lens has a coefficient beyond {MAX_DIST:g}")
    return K, dist, (w, h)


def load(path: str | Path, image_size: tuple[int, int] | None = None):
    """(camera_matrix, distortion) as numpy arrays, rescaled to ``image_size`` (width, height) if given.
    A file that is not a camera file, or holds values no calibration writes, raises ``UserError`` (``validate``)."""
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise UserError(f"camera file {path} not found. Make one with: tablewatch calibrate camera ... --out {path}")
    data = read_json(path, fix=f"Calibrate again: tablewatch calibrate camera ... --out {path}")
    K, dist, (w0, h0) = validate(data, path)
    K = np.array(K, np.float64)
    dist = np.array(dist, np.float64)
    if image_size and tuple(image_size) != (w0, h0):
        sx, sy = image_size[0] / w0, image_size[1] / h0
        if abs(sx - sy) > 0.01 * sx:
            raise UserError(
                f"{path} was calibrated at {w0}x{h0}, which has another shape than the {image_size[0]}x{image_size[1]} frame. "
                "Calibrate at this resolution."
            )
        K = K.copy()
        K[0] *= sx
        K[1] *= sy
    return K, dist
