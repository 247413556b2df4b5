"""``tablewatch record``: save a camera session's frames with their timestamps so it can be replayed exactly.

Output folder: ``frame_NNNNNN.jpg`` (or ``.png`` with ``--format png``, lossless) and ``timestamps.csv``
(``index,t,file``), the layout ``vision.sources.FolderSource`` reads back in the same order and timing. Corrupt frames
are skipped and counted; a full disk stops the recording with a clear message, keeping what was written.
"""

from __future__ import annotations

import errno
import sys
import time
from pathlib import Path

from assistant.errors import UserError


def record(source, out: Path, seconds: float | None = None, fps: float | None = None, fmt: str = "jpg", quality: int = 95,
           max_frames: int | None = None, progress: bool = True) -> dict:
    """Record frames from an opened-or-not ``FrameSource`` into ``out``; returns counts."""
    import cv2

    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {out}: {exc.strerror or exc}.") from None
    if any(out.glob("frame_*")) or (out / "timestamps.csv").exists():
        raise UserError(f"{out} already holds a recording; choose another --out folder.")
    if fmt not in ("jpg", "png"):
        raise UserError(f"--format must be jpg or png (got {fmt}).")
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)] if fmt == "jpg" else [cv2.IMWRITE_PNG_COMPRESSION, 1]
    written = skipped = 0
    last_t = None
    t_start = time.monotonic()
    stamps = (out / "timestamps.csv").open("w", encoding="utf-8")
    stamps.write("index,t,file\n")
    try:
        with source:
            for frame in source:
                if seconds is not None and time.monotonic() - t_start >= seconds:
                    break
                if max_frames is not None and written >= max_frames:
                    break
                if frame.image is None:
                    skipped += 1
                    continue
                if fps and last_t is not None and frame.t - last_t < 1.0 / fps - 1e-6:
                    continue
                name = f"frame_{written:06d}.{fmt}"
                ok, buf = cv2.imencode("." + fmt, frame.image, params)
                if not ok:
                    skipped += 1
                    continue
                try:
                    (out / name).write_bytes(buf.tobytes())
                    stamps.write(f"{written},{frame.t:.4f},{name}\n")
                    stamps.flush()
                except OSError as exc:
                    if exc.errno == errno.ENOSPC:
                        raise UserError(f"the disk is full: recording stopped after {written} frames in {out} (they are kept). "
                                        "Free some space and record again.") from None
                    raise UserError(f"cannot write to {out}: {exc.strerror or exc}.") from None
                written += 1
                last_t = frame.t
                if progress and written % 10 == 0:
                    print(f"\r{written} frames, {frame.t:.1f} s", end="", file=sys.stderr, flush=True)
    finally:
        stamps.close()
        if progress:
            print(file=sys.stderr)
    if getattr(source, "error", None):
        print(f"tablewatch: {source.error}", file=sys.stderr)
    return {"frames": written, "skipped": skipped, "folder": str(out)}
