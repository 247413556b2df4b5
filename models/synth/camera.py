"""The table frame, board poses and the camera: pinhole + radial distortion, projections, homographies.

Frames (all lengths in mm):
* **board**: a layout's own frame, origin top-left, x right, y down (docs/layouts.md).
* **table (world)**: X, Y on the table top, Z pointing *down into* the table (right-handed); a point h mm above the
  table has Z = -h. A board lies at Z = 0 with the pose ``(x, y, rotation_deg)``: board point (u, v) goes to
  X = x + u cos(a) - v sin(a), Y = y + u sin(a) + v cos(a).
* **camera**: OpenCV's (x right, y down, z forward). Pixel = distort(K, R (P - C)), distortion as in OpenCV
  ``projectPoints`` with coefficients (k1, k2, p1, p2, k3).

Game-neutral.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class BoardPose:
    x: float
    y: float
    rotation_deg: float

    def matrix(self) -> np.ndarray:
        """3x3 affine board-mm -> table-mm (homogeneous 2-D)."""
        a = math.radians(self.rotation_deg)
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, self.x], [s, c, self.y], [0, 0, 1.0]])

    def to_table(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        return pts @ self.matrix()[:2, :2].T + self.matrix()[:2, 2]

    def from_table(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        m = self.matrix()
        return (pts - m[:2, 2]) @ m[:2, :2]  # inverse rotation = transpose


@dataclass
class Camera:
    K: np.ndarray  # 3x3
    dist: np.ndarray  # (5,) k1 k2 p1 p2 k3
    R: np.ndarray  # world -> camera rotation
    C: np.ndarray  # camera centre in world mm
    size: tuple[int, int]  # (W, H)
    height_mm: float = 0.0
    tilt_deg: float = 0.0
    fov_deg: float = 0.0

    @property
    def t(self) -> np.ndarray:
        return -self.R @ self.C

    def max_radius(self) -> float:
        """Normalised radius beyond which projected points are thrown away (distortion polynomial not monotonic)."""
        cached = self.__dict__.get("_max_radius")
        if cached is not None:
            return cached
        W, H = self.size
        corner = math.hypot(max(self.K[0, 2], W - self.K[0, 2]) / self.K[0, 0], max(self.K[1, 2], H - self.K[1, 2]) / self.K[1, 1])
        k1, k2, _, _, k3 = self.dist
        r = np.linspace(0, 3 * corner, 600)
        deriv = 1 + 3 * k1 * r**2 + 5 * k2 * r**4 + 7 * k3 * r**6
        bad = np.nonzero(deriv <= 0.05)[0]
        limit = r[bad[0]] if len(bad) else r[-1]
        self.__dict__["_max_radius"] = float(min(limit, 1.5 * corner))
        return self.__dict__["_max_radius"]

    def to_camera(self, Pw) -> np.ndarray:
        Pw = np.asarray(Pw, np.float64).reshape(-1, 3)
        return (Pw - self.C) @ self.R.T

    def project(self, Pw) -> tuple[np.ndarray, np.ndarray]:
        """Distorted pixel coordinates (N, 2) and a mask of points that project validly (in front, inside the lens)."""
        Pc = self.to_camera(Pw)
        z = Pc[:, 2]
        ok = z > 1.0
        zs = np.where(ok, z, 1.0)
        x, y = Pc[:, 0] / zs, Pc[:, 1] / zs
        ok &= np.hypot(x, y) < self.max_radius()
        return distort_normalised(np.stack([x, y], 1), self.K, self.dist), ok

    def project_ideal(self, Pw) -> np.ndarray:
        """Undistorted (pinhole) pixel coordinates (N, 2)."""
        Pc = self.to_camera(Pw)
        z = np.maximum(Pc[:, 2], 1.0)
        return np.stack([Pc[:, 0] / z * self.K[0, 0] + self.K[0, 2], Pc[:, 1] / z * self.K[1, 1] + self.K[1, 2]], 1)

    def board_homography(self, pose: BoardPose) -> np.ndarray:
        """3x3 homography board-mm -> undistorted pixel (apply ``dist`` to get the real pixel), normalised H[2,2] = 1."""
        m = pose.matrix()
        a1 = np.array([m[0, 0], m[1, 0], 0.0])
        a2 = np.array([m[0, 1], m[1, 1], 0.0])
        o = np.array([m[0, 2], m[1, 2], 0.0])
        H = self.K @ np.column_stack([self.R @ a1, self.R @ a2, self.R @ o + self.t])
        return H / H[2, 2]

    def centre_in_board(self, pose: BoardPose) -> tuple[float, float, float]:
        """The camera centre in a board's frame: (u, v, height above the table)."""
        u, v = pose.from_table(self.C[:2])[0]
        return float(u), float(v), float(-self.C[2])

    def to_json(self) -> dict:
        return {
            "K": np.round(self.K, 6).tolist(), "dist": np.round(self.dist, 6).tolist(),
            "R": np.round(self.R, 9).tolist(), "t": np.round(self.t, 6).tolist(),
            "centre_mm": np.round(self.C, 3).tolist(), "height_mm": round(self.height_mm, 2),
            "tilt_deg": round(self.tilt_deg, 3), "fov_deg": round(self.fov_deg, 3),
        }


def distort_normalised(xy: np.ndarray, K: np.ndarray, dist) -> np.ndarray:
    """OpenCV's distortion model applied to normalised camera coordinates -> pixels."""
    k1, k2, p1, p2, k3 = dist
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]], 1)


def apply_homography(H: np.ndarray, pts) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def look_at(target, height: float, tilt_deg: float, azimuth_deg: float, roll_deg: float):
    """Camera centre and world->camera rotation for a camera ``height`` mm above the table looking at ``target``
    (a table point) with its optical axis ``tilt_deg`` from vertical, leaning toward ``azimuth_deg``."""
    th, az, ro = map(math.radians, (tilt_deg, azimuth_deg, roll_deg))
    f = np.array([math.sin(th) * math.cos(az), math.sin(th) * math.sin(az), math.cos(th)])  # forward, Z down
    C = np.array([target[0], target[1], 0.0]) - f * (height / math.cos(th))
    hint = np.array([0.0, 1.0, 0.0]) if abs(f[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = hint - f * (hint @ f)
    x = np.cross(x / np.linalg.norm(x), f)  # camera x axis
    y = np.cross(f, x)
    c, s = math.cos(ro), math.sin(ro)
    x, y = c * x + s * y, -s * x + c * y
    R = np.stack([x, y, f])
    return C, R


def random_camera(rng: np.random.Generator, size: tuple[int, int], target) -> Camera:
    """A camera 0.6-1.2 m above the table, tilted up to 30 degrees, any roll, with radial lens distortion."""
    W, H = size
    height = rng.uniform(600, 1200)
    tilt = min(30.0, abs(rng.normal(0, 14)))
    fov = rng.uniform(55, 78)  # horizontal field of view
    f = (W / 2) / math.tan(math.radians(fov) / 2)
    K = np.array([[f * rng.uniform(0.995, 1.005), 0, W / 2 + rng.normal(0, W * 0.01)],
                  [0, f, H / 2 + rng.normal(0, H * 0.01)], [0, 0, 1.0]])
    dist = np.array([rng.uniform(-0.22, 0.06), rng.uniform(-0.03, 0.06), rng.normal(0, 5e-4), rng.normal(0, 5e-4), 0.0])
    C, R = look_at(target, height, tilt, rng.uniform(0, 360), rng.uniform(-180, 180))
    return Camera(K, dist, R, C, (W, H), height, tilt, fov)


def distortion_maps(cam: Camera, margin: tuple[int, int], step: int = 16):
    """remap() maps that turn an undistorted image drawn with principal point shifted by ``margin`` into the real,
    distorted camera image of size ``cam.size``."""
    import cv2

    W, H = cam.size
    gx = np.arange(0, W + step, step, dtype=np.float64)
    gy = np.arange(0, H + step, step, dtype=np.float64)
    xx, yy = np.meshgrid(gx, gy)
    pts = np.stack([xx.ravel(), yy.ravel()], 1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, cam.K, cam.dist, None, None, cam.K, (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6))
    und = und.reshape(len(gy), len(gx), 2)
    full_w, full_h = len(gx) * step, len(gy) * step
    mx = cv2.resize(und[..., 0].astype(np.float32), (full_w, full_h), interpolation=cv2.INTER_LINEAR)
    my = cv2.resize(und[..., 1].astype(np.float32), (full_w, full_h), interpolation=cv2.INTER_LINEAR)
    # resize treats samples as pixel areas: shift so that sample i sits at pixel i*step
    off = (step - 1) / 2.0
    M = np.float32([[1, 0, off], [0, 1, off]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    mx = cv2.warpAffine(mx, M, (W, H), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.warpAffine(my, M, (W, H), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return mx + margin[0], my + margin[1]
