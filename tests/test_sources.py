"""Camera sources: folders with and without timestamps, corrupt frames, video files, spec parsing, and live
sources that unplug, stall and come back (a scripted fake device)."""

from __future__ import annotations

import shutil
import threading
import time

import cv2
import numpy as np
import pytest

from assistant.errors import UserError
from tests.conftest_vision import real
from vision import sources as S


def _img(v: int, size=(64, 48)):
    return np.full((size[1], size[0], 3), v, np.uint8)


def test_folder_with_timestamps_plays_recorded_order_and_times(tmp_path):
    for i, v in enumerate((10, 20, 30)):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), _img(v))
    (tmp_path / "timestamps.csv").write_text("index,t,file\n0,0.0,f2.png\n1,0.25,f0.png\n2,1.5,f1.png\n")
    with S.FolderSource(tmp_path) as src:
        frames = list(src)
    assert [f.t for f in frames] == [0.0, 0.25, 1.5]
    assert [int(f.image[0, 0, 0]) for f in frames] == [30, 10, 20]
    assert [f.index for f in frames] == [0, 1, 2]


def test_folder_without_timestamps_uses_name_order_at_nominal_fps(tmp_path):
    for name, v in (("b.png", 2), ("a.png", 1), ("c.jpg", 3)):
        cv2.imwrite(str(tmp_path / name), _img(v * 50))
    (tmp_path / "notes.txt").write_text("not a frame")
    frames = list(S.FolderSource(tmp_path, fps=4.0))
    assert [f.name for f in frames] == ["a.png", "b.png", "c.jpg"]
    assert [f.t for f in frames] == [0.0, 0.25, 0.5]


def test_corrupt_frame_is_reported_not_raised(tmp_path):
    shutil.copy(real("aruco-sheet", "frame.jpg"), tmp_path / "000.jpg")
    (tmp_path / "001.jpg").write_bytes(b"\xff\xd8 this is not a jpeg")
    (tmp_path / "002.jpg").write_bytes(b"")
    frames = list(S.FolderSource(tmp_path))
    assert frames[0].image is not None and frames[0].image.ndim == 3
    assert frames[1].image is None and "corrupt" in frames[1].error
    assert frames[2].image is None and frames[2].error


def test_bad_timestamps_file_and_missing_folder_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="not found"):
        S.FolderSource(tmp_path / "nope").open()
    with pytest.raises(UserError, match="no images"):
        S.FolderSource(tmp_path).open()
    (tmp_path / "timestamps.csv").write_text("index,t,file\nx,y,z\n")
    with pytest.raises(UserError, match="line 2"):
        S.FolderSource(tmp_path).open()


def test_video_file_source(tmp_path):
    path = tmp_path / "clip.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for v in (0, 100, 200):
        w.write(_img(v))
    w.release()
    with S.open_source(str(path)) as src:
        frames = list(src)
    assert len(frames) == 3
    assert abs(int(frames[2].image.mean()) - 200) < 10
    assert frames[0].t <= frames[1].t <= frames[2].t
    with pytest.raises(UserError):
        S.VideoFileSource(tmp_path / "missing.mp4").open()


def test_open_source_parses_specs(tmp_path):
    assert isinstance(S.open_source("usb:1"), S.UsbSource) and S.open_source("usb:1").device == 1
    assert S.open_source("usb:/dev/video2").device == "/dev/video2"
    assert isinstance(S.open_source("picam"), S.PiCameraSource)
    assert isinstance(S.open_source(f"folder:{tmp_path}"), S.FolderSource)
    assert isinstance(S.open_source(str(tmp_path)), S.FolderSource)
    assert S.open_source("usb:0", size=(1280, 720), fps=5).size == (1280, 720)
    with pytest.raises(UserError, match="unknown camera source"):
        S.open_source("firewire:3")
    assert S.parse_size("2304x1296") == (2304, 1296)
    with pytest.raises(UserError):
        S.parse_size("big")


def test_picamera_without_picamera2_is_a_clear_error():
    pytest.importorskip("cv2")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(UserError, match="picamera2"):
            S.PiCameraSource().open()
    else:  # pragma: no cover - only on a Raspberry Pi
        pytest.skip("picamera2 is installed here")


def test_missing_usb_camera_is_a_user_error():
    with pytest.raises(UserError, match="cannot open"):
        S.UsbSource(97, retries=1, backoff_s=0.01).open()


class FakeCamera(S.LiveSource):
    """A device scripted per connection: a list of actions per connect ("ok", "fail", "stall"), None = cannot connect."""

    kind = "fake"

    def __init__(self, script, **kw):
        super().__init__(**kw)
        self.script = list(script)
        self.connects = 0

    def _connect(self):
        self.connects += 1
        if not self.script:
            return None
        plan = self.script.pop(0)
        return None if plan is None else {"plan": list(plan), "stalled": threading.Event()}

    def _grab(self, h):
        time.sleep(0.002)
        if not h["plan"]:
            return None  # unplugged
        act = h["plan"].pop(0)
        if act == "stall":
            h["stalled"].wait(5.0)
            return None
        return _img(self.connects)

    def _release(self, h):
        h["stalled"].set()


def test_live_source_reconnects_after_unplug_and_stall():
    seen = []
    cam = FakeCamera([["ok"] * 3, None, ["ok", "stall"], ["ok"] * 2], stall_s=1.0, retries=4, backoff_s=0.01, on_status=seen.append)
    with cam:
        frames = []
        for f in cam:
            frames.append(f)
    assert len(frames) >= 4  # frames from the first, third and fourth connection
    assert {int(f.image[0, 0, 0]) for f in frames} >= {1, 4}
    assert cam.reconnects >= 2
    assert any(s.startswith("reconnecting") for s in seen)
    assert cam.error and "lost" in cam.error  # the script ran out: it gives up without raising
    assert [f.index for f in frames] == list(range(len(frames)))


def test_live_source_gives_up_after_bounded_retries():
    cam = FakeCamera([["ok"], None, None, None], stall_s=0.2, retries=3, backoff_s=0.01)
    with cam:
        frames = list(cam)
    assert len(frames) == 1
    assert "3 reconnection attempts failed" in cam.error
    assert cam.status.startswith("lost")
