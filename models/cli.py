"""``tablewatch synth``: write a synthetic training set (camera images + rectified map views + JSON labels).

Light to import: numpy, OpenCV and the generator are imported inside ``run``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from assistant.errors import UserError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "synth", help="render synthetic table scenes with exact labels (training data for the piece detector)",
        description="Render N seeded random Wendake positions as camera images with ground truth. "
                    "Writes scene_NNNNNN.jpg, scene_NNNNNN_<map>.jpg (rectified map view), scene_NNNNNN.json and manifest.json. "
                    "Format: docs/synth.md.")
    p.add_argument("--n", type=int, required=True, help="number of scenes")
    p.add_argument("--seed", type=int, default=0, help="seed: the same seed gives the same scenes (default 0)")
    p.add_argument("--out", required=True, help="output folder (created if missing)")
    p.add_argument("--players", type=int, default=4, help="2, 3 or 4 players (default 4)")
    p.add_argument("--size", default="1280x960", help="image size WxH (default 1280x960)")
    p.add_argument("--rect-px-per-mm", type=float, default=4.0, help="scale of the rectified map view (default 4 px/mm)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1; output is the same for any number)")
    p.set_defaults(func=run)


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise UserError(f"--size {text!r} is not WIDTHxHEIGHT; use for example --size 1280x960.")
    w, h = int(m.group(1)), int(m.group(2))
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise UserError(f"--size {w}x{h} is out of range; width and height must be 64..8192 pixels.")
    return w, h


def check_args(args) -> tuple[Path, tuple[int, int]]:
    if args.n <= 0:
        raise UserError(f"--n must be at least 1 (got {args.n}).")
    if args.players not in (2, 3, 4):
        raise UserError(f"--players must be 2, 3 or 4 (got {args.players}).")
    if not (0.5 <= args.rect_px_per_mm <= 16):
        raise UserError(f"--rect-px-per-mm must be between 0.5 and 16 (got {args.rect_px_per_mm}).")
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1 (got {args.workers}).")
    size = parse_size(args.size)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder; give a folder path.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the output folder {out}: {exc.strerror}. Choose a folder you can write to.") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(f"cannot write into {out}: permission denied. Choose a folder you can write to.")
    return out, size


def run(args) -> int:
    out, size = check_args(args)
    from models.synth.writer import generate

    try:
        stats = generate(args.n, args.seed, out, args.players, size, args.rect_px_per_mm, args.workers)
    except OSError as exc:
        raise UserError(f"writing into {out} failed: {exc.strerror or exc}. Check the folder and free disk space.") from None
    print(f"wrote {stats['scenes']} scenes to {out} in {stats['seconds']:.1f} s ({stats['scenes_per_s']:.2f} scenes/s)")
    return 0
