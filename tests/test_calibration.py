"""Camera calibration on the real chessboard photos, ChArUco on synthetic views, and camera.json handling."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest_vision import real

from assistant.apps.cli import main
from assistant.errors import UserError
from calibration import camera


def test_chessboard_real_photos_use_all_25_and_reach_0_2_px(tmp_path, capsys):
    folder = real("chessboard-9x6")
    images = sorted(str(p) for p in folder.glob("left*.jpg"))
    assert len(images) == 25
    out = tmp_path / "camera.json"
    assert main(["calibrate", "camera", "--chessboard", "9x6", "--square-mm", "25", *images, "--out", str(out)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    rms, used = last.split()
    assert rms.startswith("rms=") and used == "images=25/25"
    assert float(rms[4:]) <= 0.2
    data = json.loads(out.read_text())
    assert data["image_size"] == [640, 512] and len(data["distortion"]) == 5
    K, dist = camera.load(out, (1280, 1024))  # twice the resolution: focal length and centre double
    assert K[0, 0] == pytest.approx(2 * data["camera_matrix"][0][0])
    print(f"\n{last}")


def test_charuco_calibration_on_synthetic_views(tmp_path):
    import cv2

    board = camera.charuco_board((7, 5), 30.0, 22.0, "DICT_4X4_100")
    k = 4.0
    img = board.generateImage((int(7 * 30 * k), int(5 * 30 * k)), marginSize=40)
    img = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    K = np.array([[900.0, 0, 640], [0, 900.0, 480], [0, 0, 1]])
    paths = []
    rng = np.random.default_rng(1)
    h, w = img.shape
    for n in range(8):
        rvec = rng.normal(0, 0.35, 3)
        rvec[2] = rng.normal(0, 0.2)
        R, _ = cv2.Rodrigues(rvec)
        t = np.array([rng.normal(0, 40), rng.normal(0, 30), 650.0])
        # board image pixel -> board mm (centred) -> camera -> image
        S = np.array([[1 / k, 0, -(40 + 40) / k - 105], [0, 1 / k, -(40 + 40) / k - 75], [0, 0, 1]])
        H = K @ np.c_[R[:, :2], t] @ S
        view = cv2.warpPerspective(img, H, (1280, 960), borderValue=128)
        p = tmp_path / f"v{n}.png"
        cv2.imwrite(str(p), view)
        paths.append(str(p))
    cal = camera.calibrate(paths, "charuco", (7, 5), 30.0, 22.0, "DICT_4X4_100")
    assert cal.images_used == 8
    assert cal.rms_px < 0.5
    assert cal.camera_matrix[0][0] == pytest.approx(900, rel=0.03)


def test_calibration_errors_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="should look like 9x6"):
        camera.parse_pattern("nine")
    blank = tmp_path / "blank.png"
    import cv2

    cv2.imwrite(str(blank), np.full((100, 100), 255, np.uint8))
    with pytest.raises(UserError, match="found in only 0 of 3"):
        camera.calibrate([str(blank)] * 3, "chessboard", (9, 6), 25.0)
    with pytest.raises(UserError, match="not found"):
        camera.load(tmp_path / "nope.json")
