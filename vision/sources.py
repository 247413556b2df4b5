"""Camera sources: one ``FrameSource`` interface over USB webcams, the Raspberry Pi camera, image folders and video files.

A source is an iterator of ``Frame(index, t, image)`` with ``open()``, ``close()`` and context-manager use.
``image`` is a BGR uint8 array, or None for a frame that could not be decoded (then ``error`` says why): a
corrupt frame is reported, never raised. ``t`` is seconds since the source opened (live cameras) or the
recorded timestamp (folders written by ``tablewatch record``).

Live sources (USB, picamera2) read in a background thread that keeps only the newest frame (no stale buffer),
and reconnect by themselves after an unplug or a stall: a read that fails, or no new frame for ``stall_s``,
releases the device and opens it again with bounded retries and exponential backoff. ``status`` always says
what the source is doing ("streaming", "reconnecting (try 2 of 8): ...", "lost: ..."), and ``on_status`` is
called on each change. When the retries are used up the iterator ends and ``error`` holds the reason; nothing
raises out of ``__next__``.

``open_source(spec)`` parses ``usb:0``, ``usb:/dev/video2``, ``picam``, ``picam:1``, ``folder:DIR`` or a
directory, ``video:FILE`` or a video file. Folder layout (what ``tablewatch record`` writes): image files plus
``timestamps.csv`` (``index,t,file``); without it, files play in name order at a nominal fps.
"""

from __future__ import annotations

import csv
import math
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from assistant.errors import UserError
from assistant.pairs import parse_pair

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".h264", ".mjpeg", ".mjpg")
TIMESTAMPS = "timestamps.csv"
DEFAULT_FOLDER_FPS = 5.0


@dataclass
class Frame:
    index: int  # 0, 1, 2 ... in the order the source delivered them
    t: float  # seconds (since open for live sources; recorded time for folders; position for videos)
    image: object  # BGR uint8 numpy array, or None for a corrupt frame
    error: str | None = None  # why image is None
    name: str | None = None  # file name, for folders


class FrameSource(ABC):
    """Base of every source: iteration, context manager, status reporting."""

    kind = "source"

    def __init__(self, on_status: Callable[[str], None] | None = None):
        self.on_status = on_status
        self.status = "closed"
        self.error: str | None = None
        self.is_open = False

    def _set_status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            if self.on_status is not None:
                self.on_status(text)

    def describe(self) -> str:
        return self.kind

    @abstractmethod
    def open(self) -> "FrameSource":
        """Start the source (open the camera, list the folder, ...); returns self."""

    def close(self) -> None:
        self.is_open = False
        if not self.status.startswith("lost"):  # keep saying why it was lost
            self._set_status("closed")

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None at the end of the stream (or after the source was lost: see ``error``)."""

    def __iter__(self):
        if not self.is_open:
            self.open()
        return self

    def __next__(self) -> Frame:
        frame = self.read()
        if frame is None:
            raise StopIteration
        return frame

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()
        return False


# ---------------------------------------------------------------------------------------------- live sources


class LiveSource(FrameSource):
    """A camera that can go away: a reader thread keeps the newest frame; unplug or stall -> reconnect.

    Subclasses implement ``_connect() -> handle``, ``_grab(handle) -> image or None`` (None: the read failed) and
    ``_release(handle)``. ``retries`` reconnect attempts per outage, waiting ``backoff_s`` doubling up to
    ``max_backoff_s``."""

    def __init__(self, stall_s: float = 3.0, retries: int = 8, backoff_s: float = 0.5, max_backoff_s: float = 8.0,
                 on_status=None):
        super().__init__(on_status)
        self.stall_s = stall_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.reconnects = 0
        self._handle = None
        self._t0 = 0.0
        self._index = 0
        self._lock = threading.Condition()
        self._latest = None  # (seq, t, image)
        self._seq = 0
        self._taken = 0
        self._failed: str | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # -- each camera kind implements these
    @abstractmethod
    def _connect(self):
        """Open the device; returns its handle (raise OSError / RuntimeError when it is not there)."""

    @abstractmethod
    def _grab(self, handle):
        """One image from the device, or None when the read failed."""

    def _release(self, handle) -> None:
        pass

    # -- machinery
    def open(self) -> "LiveSource":
        if self.is_open:
            return self
        self._set_status("opening")
        try:
            self._handle = self._connect()
        except UserError:
            self._set_status("closed")
            raise
        except Exception as exc:  # drivers raise anything
            self._set_status("closed")
            raise UserError(f"cannot open {self.describe()}: {exc}. Check the camera is plugged in and not used by another program.") from None
        if self._handle is None:
            self._set_status("closed")
            raise UserError(f"cannot open {self.describe()}. Check the camera is plugged in, that its number is right "
                            "(try usb:0, usb:1 ...) and that no other program uses it.")
        self._t0 = time.monotonic()
        self.is_open = True
        self.error = None
        self._start_reader()
        self._set_status("streaming")
        return self

    def _start_reader(self) -> None:
        self._stop = threading.Event()
        self._failed = None
        handle, stop = self._handle, self._stop
        self._thread = threading.Thread(target=self._reader, args=(handle, stop), name=f"tablewatch-{self.kind}", daemon=True)
        self._thread.start()

    def _reader(self, handle, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                img = self._grab(handle)
            except Exception as exc:  # an unplugged device may raise instead of failing the read
                img, why = None, f"read error: {exc}"
            else:
                why = "the camera stopped delivering frames (unplugged?)"
            if stop.is_set():
                return
            with self._lock:
                if img is None:
                    self._failed = why
                    self._lock.notify_all()
                    return
                self._seq += 1
                self._latest = (self._seq, time.monotonic() - self._t0, img)
                self._lock.notify_all()

    def _wait_frame(self):
        """(t, image) of a frame newer than the last one taken, or (None, reason) on failure or stall."""
        deadline = time.monotonic() + self.stall_s
        with self._lock:
            while True:
                if self._latest is not None and self._latest[0] > self._taken:
                    seq, t, img = self._latest
                    self._taken = seq
                    return t, img
                if self._failed:
                    return None, self._failed
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, f"no new frame for {self.stall_s:g} s (the camera stalled)"
                self._lock.wait(left)

    def _reconnect(self, why: str) -> bool:
        self._stop.set()
        try:
            self._release(self._handle)
        except Exception:
            pass
        self._handle = None
        wait = self.backoff_s
        for attempt in range(1, self.retries + 1):
            self._set_status(f"reconnecting (try {attempt} of {self.retries}): {why}")
            time.sleep(wait)
            wait = min(wait * 2, self.max_backoff_s)
            try:
                handle = self._connect()
            except Exception:
                handle = None
            if handle is not None:
                self._handle = handle
                self.reconnects += 1
                with self._lock:
                    self._latest = None
                    self._taken = self._seq
                self._start_reader()
                self._set_status("streaming")
                return True
        self.error = (f"{self.describe()} is lost: {why}; {self.retries} reconnection attempts failed. "
                      "Plug the camera back in (or check its cable and power) and start again.")
        self._set_status("lost: " + why)
        return False

    def read(self) -> Frame | None:
        if not self.is_open:
            return None
        while True:
            t, img = self._wait_frame()
            if t is not None:
                frame = Frame(self._index, t, img)
                self._index += 1
                return frame
            if not self._reconnect(img):
                self.is_open = False
                return None

    def close(self) -> None:
        self._stop.set()
        if self._handle is not None:
            try:
                self._release(self._handle)
            except Exception:
                pass
        self._handle = None
        super().close()


class UsbSource(LiveSource):
    """An OpenCV ``VideoCapture`` (USB webcam, V4L2 device): asks for ``size`` (w, h) and ``fps``."""

    kind = "usb"

    def __init__(self, device: int | str = 0, size: tuple[int, int] | None = (2304, 1296), fps: float | None = 10.0, **kw):
        super().__init__(**kw)
        self.device = device
        self.size = size
        self.fps = fps
        self.actual: dict = {}

    def describe(self) -> str:
        return f"USB camera {self.device}"

    def _connect(self):
        import cv2

        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            return None
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))  # high resolutions need MJPEG on USB 2
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        if self.fps:
            cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self.actual = {"size": (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))),
                       "fps": float(cap.get(cv2.CAP_PROP_FPS))}
        return cap

    def _grab(self, cap):
        ok, img = cap.read()
        return img if ok and img is not None else None

    def _release(self, cap) -> None:
        cap.release()


class PiCameraSource(LiveSource):
    """A Raspberry Pi camera through picamera2 (imported only here): ``size`` (w, h), ``fps``, BGR frames."""

    kind = "picam"

    def __init__(self, camera_num: int = 0, size: tuple[int, int] | None = (2304, 1296), fps: float | None = 10.0, **kw):
        super().__init__(**kw)
        self.camera_num = camera_num
        self.size = size
        self.fps = fps

    def describe(self) -> str:
        return f"Raspberry Pi camera {self.camera_num}"

    def _connect(self):
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise UserError("the Raspberry Pi camera needs picamera2, which is not installed here. On Raspberry Pi OS: "
                            "sudo apt install python3-picamera2 (and create the venv with --system-site-packages); "
                            "elsewhere use a USB camera (--source usb:0).") from None
        cam = Picamera2(self.camera_num)
        controls = {"FrameRate": float(self.fps)} if self.fps else {}
        config = cam.create_video_configuration(main={"size": tuple(self.size or (2304, 1296)), "format": "RGB888"},
                                                controls=controls, buffer_count=2)
        cam.configure(config)
        cam.start()
        return cam

    def _grab(self, cam):
        img = cam.capture_array("main")  # "RGB888" is stored B, G, R in memory: OpenCV's BGR
        return img[..., :3] if img is not None else None

    def _release(self, cam) -> None:
        try:
            cam.stop()
        finally:
            cam.close()


# ---------------------------------------------------------------------------------------------- recorded sources


def read_timestamps(folder: Path) -> list[tuple[int, float, str]] | None:
    """Rows (index, t, file) of a folder's timestamps.csv, or None when it has none. ``UserError`` for a file that
    is not UTF-8 CSV, a row that is not 'index,t,file' with a finite time, or a file name that leaves the folder."""
    path = folder / TIMESTAMPS
    if not path.is_file():
        return None
    fix = "Re-record the session or delete the file to play the images in name order."
    rows = []
    n = -1
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            for n, row in enumerate(csv.DictReader(fh)):
                try:
                    index, t, name = int(row["index"]), float(row["t"]), row["file"]
                except (KeyError, TypeError, ValueError):
                    raise UserError(f"{path}: line {n + 2} is not 'index,t,file'. {fix}") from None
                if not math.isfinite(t) or not isinstance(name, str) or not name or "\x00" in name or Path(name).name != name \
                        or name in (".", ".."):
                    raise UserError(f"{path}: line {n + 2} needs a finite time and the name of an image in the folder. {fix}")
                rows.append((index, t, name))
    except UnicodeDecodeError:
        raise UserError(f"{path} is not a text file (not UTF-8). {fix}") from None
    except csv.Error as exc:
        raise UserError(f"{path}: line {n + 3} cannot be read as CSV ({exc}). {fix}") from None
    return rows


class FolderSource(FrameSource):
    """Images in a folder, in recorded order with recorded timestamps (``timestamps.csv``), else name order at
    ``fps``. ``pace``: wait so frames come at their recorded times (a live replay); default as fast as possible."""

    kind = "folder"

    def __init__(self, folder, fps: float = DEFAULT_FOLDER_FPS, pace: bool = False, loop: bool = False, on_status=None):
        super().__init__(on_status)
        self.folder = Path(folder)
        self.fps = fps
        self.pace = pace
        self.loop = loop
        self.rows: list[tuple[int, float, str]] = []
        self._pos = 0
        self._index = 0
        self._start = 0.0

    def describe(self) -> str:
        return f"image folder {self.folder}"

    def open(self) -> "FolderSource":
        if not self.folder.is_dir():
            raise UserError(f"frame folder {self.folder} not found. Give a folder written by `tablewatch record` or one holding images.")
        rows = read_timestamps(self.folder)
        if rows is None:
            files = sorted(p.name for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if self.fps <= 0:
                raise UserError(f"--fps must be positive (got {self.fps}).")
            rows = [(i, i / self.fps, f) for i, f in enumerate(files)]
        if not rows:
            raise UserError(f"{self.folder} holds no images ({', '.join(IMAGE_SUFFIXES)}).")
        self.rows = rows
        self._pos = 0
        self._index = 0
        self._start = time.monotonic()
        self.is_open = True
        self._set_status("streaming")
        return self

    def __len__(self) -> int:
        return len(self.rows)

    def read(self) -> Frame | None:
        import cv2
        import numpy as np

        if not self.is_open:
            return None
        if self._pos >= len(self.rows):
            if not self.loop:
                self._set_status("ended")
                return None
            self._pos = 0
        _, t, name = self.rows[self._pos]
        self._pos += 1
        if self.pace:
            wait = t - self.rows[0][1] - (time.monotonic() - self._start)
            if wait > 0:
                time.sleep(wait)
        path = self.folder / name
        image, error = None, None
        try:
            data = np.fromfile(str(path), np.uint8)
            image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
            if image is None:
                error = f"frame {name} is corrupt or not an image; it was skipped."
        except OSError as exc:
            error = f"frame {name} cannot be read ({exc.strerror or exc}); it was skipped."
        frame = Frame(self._index, t, image, error, name)
        self._index += 1
        return frame


class VideoFileSource(FrameSource):
    """A video file through OpenCV; ``t`` is the frame's position in the file."""

    kind = "video"

    def __init__(self, path, on_status=None):
        super().__init__(on_status)
        self.path = Path(path)
        self._cap = None
        self._index = 0
        self.fps = 0.0

    def describe(self) -> str:
        return f"video file {self.path}"

    def open(self) -> "VideoFileSource":
        import cv2

        if not self.path.is_file():
            raise UserError(f"video file {self.path} not found.")
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise UserError(f"cannot open {self.path} as a video (OpenCV has no decoder for it). Convert it to MP4 (H.264) or MJPEG AVI.")
        self._cap = cap
        self.fps = float(cap.get(cv2.CAP_PROP_FPS)) or 0.0
        self._index = 0
        self.is_open = True
        self._set_status("streaming")
        return self

    def read(self) -> Frame | None:
        import cv2

        if not self.is_open or self._cap is None:
            return None
        ok, img = self._cap.read()
        if not ok or img is None:
            self._set_status("ended")
            return None
        pos = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
        t = pos if pos > 0 or self._index == 0 else (self._index / self.fps if self.fps else float(self._index))
        frame = Frame(self._index, t, img)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        super().close()


# ---------------------------------------------------------------------------------------------- spec parsing


def parse_size(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None

    return parse_pair(text, "size", "2304x1296 (width x height)", 16)


def open_source(spec: str, size: tuple[int, int] | None = None, fps: float | None = None, pace: bool = False,
                on_status=None, **live) -> FrameSource:
    """A (not yet opened) source from a spec: ``usb:0``, ``usb:/dev/video2``, ``picam``, ``picam:1``,
    ``folder:DIR``, ``video:FILE``, or a plain directory / video file path."""
    spec = str(spec).strip()
    kind, sep, arg = spec.partition(":")
    kind = kind.lower() if sep else ""
    if kind in ("usb", "webcam", "cam"):
        dev: int | str = int(arg) if arg.strip().isdigit() else (arg or 0)
        kw = {"size": size} if size else {}
        return UsbSource(dev, fps=fps if fps else 10.0, on_status=on_status, **kw, **live)
    if spec.lower() in ("picam", "picamera", "pi") or kind in ("picam", "picamera"):
        num = int(arg) if arg.strip().isdigit() else 0
        kw = {"size": size} if size else {}
        return PiCameraSource(num, fps=fps if fps else 10.0, on_status=on_status, **kw, **live)
    if kind == "folder":
        return FolderSource(arg, fps=fps or DEFAULT_FOLDER_FPS, pace=pace, on_status=on_status)
    if kind in ("video", "file"):
        return VideoFileSource(arg, on_status=on_status)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps=fps or DEFAULT_FOLDER_FPS, pace=pace, on_status=on_status)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            raise UserError(f"{spec} is a single image; give the folder that holds the frames (folder:{path.parent}).")
        return VideoFileSource(path, on_status=on_status)
    if spec.isdigit():
        kw = {"size": size} if size else {}
        return UsbSource(int(spec), fps=fps if fps else 10.0, on_status=on_status, **kw, **live)
    raise UserError(f"unknown camera source {spec!r}. Use usb:0 (a USB webcam), picam (Raspberry Pi camera), "
                    "folder:DIR (recorded frames) or video:FILE.")
