"""``tablewatch bench locate``: milliseconds to locate the boards in one 12 MP frame.

The frame is decoded once before timing (a camera hands over raw frames, not JPEG files); each timed run
finds the markers on a downscaled copy, refines them at full resolution and fits every board.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from assistant.errors import UserError
from calibration import layout as lay
from vision.locate import locate

DEFAULT_IMAGE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real" / "aruco-sheet" / "aruco.jpg"


def main(argv: list[str]) -> int:
    import cv2

    p = argparse.ArgumentParser(prog="tablewatch bench locate", description=__doc__)
    p.add_argument("--image", default=str(DEFAULT_IMAGE), help="12 MP photo (default: the shared aruco-sheet photo)")
    p.add_argument("--layout", default="aruco-sheet", help="layout file or built-in name (default aruco-sheet)")
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args(argv)
    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        raise UserError(f"cannot read {args.image}. Pass --image with a 12 MP photo (the shared photos live in ../shared/data/real/).")
    layout = lay.resolve(args.layout)
    locate(frame, [layout])  # warm up
    times = []
    found = 0
    for _ in range(args.runs):
        t = time.perf_counter()
        result = locate(frame, [layout])[0]
        times.append((time.perf_counter() - t) * 1000)
        found = len(result.markers_seen)
    h, w = frame.shape[:2]
    print(f"frame {w}x{h} ({w * h / 1e6:.1f} MP), board {layout['name']}, markers found {found}/{len(layout['markers'])}, {args.runs} runs, OpenCV threads {cv2.getNumThreads()}")
    print(f"locate ms per frame: median {statistics.median(times):.1f}, min {min(times):.1f}, max {max(times):.1f}")
    return 0
