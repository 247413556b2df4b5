"""``tablewatch bench detector``: milliseconds per rectified map view of the piece detector (fp32, int8; 2 threads).

The scene is rendered once by the synthetic-scene writer; each timed run resizes the view, runs the network and
decodes its peaks, and the three are reported apart. ``--compare`` times the network alone of any other ONNX model.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from assistant.errors import UserError
from models.synth.writer import make_scene
from vision.detect import Detector, cpu_session, decode


def main(argv: list[str]) -> int:
    """``tablewatch bench detector``: milliseconds per rectified map view (fp32 and int8), 2 threads."""
    ap = argparse.ArgumentParser(prog="tablewatch bench detector",
                                 description="Time the piece detector on rectified map views (onnxruntime, 2 threads).")
    ap.add_argument("--models", default="detector,detector-int8", help="comma-separated model names or .onnx paths")
    ap.add_argument("--runs", type=int, default=50, help="timed runs per model (default 50)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the rendered scene (default 7)")
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads (default 2)")
    ap.add_argument("--compare", action="append", default=[], metavar="ONNX",
                    help="also time the network alone of another ONNX detector at its fixed input size, e.g. a 640-px YOLO11n "
                         "export (docs/benchmarks.md says how to make one); repeatable")
    args = ap.parse_args(argv)
    if args.runs < 1:
        raise UserError(f"--runs must be at least 1 (got {args.runs}).")
    sc = make_scene(args.seed, 0, 4, (1280, 960), 4.0)
    view = cv2.imdecode(np.frombuffer(sc["rect_jpeg"], np.uint8), cv2.IMREAD_COLOR)
    r = sc["labels"]["rectified"]["px_per_mm"]
    print(f"rectified map view {view.shape[1]}x{view.shape[0]} px at {r:g} px/mm; {args.runs} runs, {args.threads} threads")
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        det = Detector(name, threads=args.threads)
        t = det.prepare(view, r)
        for _ in range(5):
            det.run(t)
        times, pre, post = [], [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            t = det.prepare(view, r)
            t1 = time.perf_counter()
            out = det.run(t)
            t2 = time.perf_counter()
            decode(out["heat"][0], out["reg"][0], out["colour"][0], out["side"][0], det.card, float(det.card.get("threshold", 0.3)))
            t3 = time.perf_counter()
            pre.append(t1 - t0)
            times.append(t2 - t1)
            post.append(t3 - t2)
        ms = lambda a: 1000 * float(np.median(a))  # noqa: E731
        size_mb = det.path.stat().st_size / 1e6
        print(f"{det.path.name:22s} input {t.shape[3]}x{t.shape[2]}  net {ms(times):6.2f} ms  resize {ms(pre):5.2f} ms  "
              f"decode {ms(post):5.2f} ms  total {ms(times) + ms(pre) + ms(post):6.2f} ms/view (median)  {size_mb:.2f} MB")
    for path in args.compare:
        net_ms, shape = time_onnx(path, args.runs, args.threads)
        print(f"{Path(path).name:22s} input {shape[3]}x{shape[2]}  net {net_ms:6.2f} ms (median, network only: no resize, no NMS)  "
              f"{Path(path).stat().st_size / 1e6:.2f} MB")
    return 0


def time_onnx(path: str, runs: int, threads: int) -> tuple[float, tuple]:
    """Median milliseconds of one run of any ONNX model with a single fixed-size image input (zeros)."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"--compare {path}: no such file; give the path of an .onnx model.")
    sess = cpu_session(p, threads, f"--compare {path}: onnxruntime cannot load it")
    inp = sess.get_inputs()[0]
    if not all(isinstance(d, int) for d in inp.shape):
        raise UserError(f"--compare {path}: its input {inp.name} has no fixed size {inp.shape}; export it with a fixed image size.")
    x = np.zeros(inp.shape, np.float32)
    for _ in range(3):
        sess.run(None, {inp.name: x})
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, {inp.name: x})
        times.append(time.perf_counter() - t0)
    return 1000 * float(np.median(times)), tuple(inp.shape)
