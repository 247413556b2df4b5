"""``tablewatch synth``: write a synthetic training set (camera images + rectified map views + JSON labels);
``tablewatch train``: train the piece detector on it and export ONNX; ``tablewatch eval detector``: score the
committed detector on a fresh, harder held-out set; ``tablewatch train-counter``: render resource-space crops and
train the resource counter (``models.counter``).

Light to import: numpy, OpenCV, torch and the generator are imported inside the ``run`` functions.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from assistant.errors import UserError
from assistant.pairs import parse_pair


def _need_torch() -> None:
    """A one-line error when PyTorch (the ``train`` extra) is not installed; torch itself is loaded by training alone."""
    if importlib.util.find_spec("torch") is None:
        raise UserError("training needs PyTorch: pip install torch==2.13.0 (the `train` extra).")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "synth", help="render synthetic table scenes with exact labels (training data for the piece detector)",
        description="Render N seeded random Wendake (or, with --game iwari, Iwari) positions as camera images with ground truth. "
                    "Writes scene_NNNNNN.jpg, scene_NNNNNN_<map>.jpg (rectified map view), scene_NNNNNN.json and manifest.json. "
                    "Format: docs/synth.md.")
    p.add_argument("--n", type=int, required=True, help="number of scenes")
    p.add_argument("--seed", type=int, default=0, help="seed: the same seed gives the same scenes (default 0)")
    p.add_argument("--out", required=True, help="output folder (created if missing)")
    p.add_argument("--game", choices=["wendake", "iwari"], default="wendake",
                   help="the game whose positions and boards are drawn (default wendake); iwari: tents and totems in the tribe "
                        "colours on a random built-in map, the cards on the display board (docs/synth.md)")
    p.add_argument("--players", type=int, default=4, help="2, 3 or 4 players (Iwari: up to 5; default 4)")
    p.add_argument("--size", default="1280x960", help="image size WxH (default 1280x960)")
    p.add_argument("--rect-px-per-mm", type=float, default=4.0, help="scale of the rectified map view (default 4 px/mm)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1; output is the same for any number)")
    p.add_argument("--progress-tiles", action="store_true",
                   help="draw the bought progress tiles on the village boards (off by default: the committed detector was not trained on them)")
    p.add_argument("--family", choices=["classic", "familiar", "foreign", "randomised"], default="familiar",
                   help="the tables' looks (docs/synth.md, Families): familiar (default: the training pool of board art, piece "
                        "shapes, materials, light, cameras and table tops), foreign (the held-out families: never train on it), "
                        "randomised (training only: the familiar pool with board art in random palettes and pieces of random sizes "
                        "and colours) or classic (the scenes as drawn before families existed)")
    p.set_defaults(func=run)
    add_train_parser(subparsers)
    add_counter_parser(subparsers)
    add_eval_parser(subparsers)


def add_train_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "train", help="train the piece detector on a synth folder and export ONNX (needs the train extra: torch==2.13.0)",
        description="Train the centre-point piece detector on `tablewatch synth` output (random crops of the rectified "
                    "view of every board: the map at --px-per-mm, smaller boards at --small-px-per-mm), with a progress bar and a validation curve PNG, then export "
                    "detector.onnx + detector.json (and detector-int8.onnx) into --out. Model card: models/README.md.")
    p.add_argument("--data", required=True, nargs="+",
                   help="folder(s) written by `tablewatch synth`; several (a Wendake and an Iwari set) train one detector on "
                        "all their classes")
    p.add_argument("--data-weights", type=float, nargs="+", default=None,
                   help="each --data folder's share of the training crops (default: equal shares)")
    p.add_argument("--out", default="models/weights", help="weights folder (default models/weights)")
    p.add_argument("--steps", type=int, default=4000, help="optimiser steps (default 4000: the 60-minute recipe, ~38 min on 2 cores; the committed weights "
                        "took 12000 steps of 64 crops on a GPU, models/README.md)")
    p.add_argument("--batch", type=int, default=32, help="crops per step (default 32)")
    p.add_argument("--crop", type=int, default=192, help="crop size in pixels (default 192)")
    p.add_argument("--px-per-mm", type=float, default=1.0, help="model input scale for the map (default 1 px/mm)")
    p.add_argument("--small-px-per-mm", type=float, default=0.0,
                   help="input scale for boards up to 0.16 m² (village boards, score tracks, mask board); default 0: as the map. "
                        "2 px/mm was tried: within the 60-minute budget it loses the rare small pieces (models/README.md)")
    p.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    p.add_argument("--val-scenes", type=int, default=40, help="last N scenes of --data used for validation (default 40)")
    p.add_argument("--val-every", type=int, default=250, help="validate every N steps (default 250)")
    p.add_argument("--width", type=int, default=32, help="net width (default 32, ~156k parameters)")
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (default 3e-3)")
    p.add_argument("--device", default="cpu", help="cpu (default: the 60-minute recipe) or cuda (a GPU: the committed weights' recipe)")
    p.add_argument("--loader-workers", type=int, default=0,
                   help="processes drawing the crops (default 0: in the training process, the 60-minute recipe); each step's "
                        "crops are then seeded by (seed, step), the same for any number of workers")
    p.add_argument("--gpu-crops", action="store_true",
                   help="make the crops and their targets on --device (a GPU: no CPU loader to wait for), with a wider light "
                        "augmentation (models/detector/gpu_crops.py)")
    p.add_argument("--minutes", type=float, default=None,
                   help="a time budget: the step count is set from the pace of the first steps (at most --steps) and written "
                        "in the card")
    p.add_argument("--checkpoint", default=None, help="also save the best weights so far to this file at every validation")
    p.add_argument("--no-int8", action="store_true", help="skip the int8 variant")
    p.add_argument("--init", default=None,
                   help="fine-tune: start from this detector.onnx (same classes and width) instead of random weights, its "
                        "BatchNorms fixed; use a lower --lr, e.g. 5e-4 (models/README.md)")
    p.set_defaults(func=run_train)


def add_counter_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "train-counter", help="train the resource counter (how many pieces lie on a resource space) and export ONNX (train extra)",
        description="Render --scenes random tables, cut their village boards' resource spaces into crops (cached in --data), "
                    "train the count classifier on them with a progress bar and export counter.onnx + counter.json into --out. "
                    "Model card: models/README.md.")
    p.add_argument("--data", default=None, help="crop cache: rendered first when missing (default data/counter_<scenes>_<seed>.npz, "
                   "with the families after it unless they are just classic)")
    p.add_argument("--scenes", type=int, default=3000, help="scenes to render when --data is missing (default 3000)")
    p.add_argument("--family", nargs="+", default=["classic"], metavar="FAMILY",
                   help="the scenes' looks, taken in turn (tablewatch synth --family): classic (default), familiar, randomised; "
                        "never foreign, which only measures (docs/foreign-set.md)")
    p.add_argument("--seed", type=int, default=1, help="seed of the scenes and of training (default 1)")
    p.add_argument("--out", default="models/weights", help="weights folder (default models/weights)")
    p.add_argument("--steps", type=int, default=6000, help="optimiser steps (default 6000)")
    p.add_argument("--batch", type=int, default=32, help="crops per step (default 32)")
    p.add_argument("--width", type=int, default=16, help="channels of the first layer; the last has 6x (default 16)")
    p.add_argument("--workers", type=int, default=2, help="rendering processes (default 2)")
    p.set_defaults(func=run_counter)


def add_eval_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "eval", help="evaluate a model on a fresh held-out synthetic set",
        description="Render a fresh held-out set (new seeds; stronger light, more occlusion) and print per-class "
                    "recall / precision (8 mm), per-region accuracy after layout assignment and whole-board exact.")
    p.add_argument("what", choices=["detector", "scores", "reliability", "counter"],
                   help="detector: recall, precision, per-region accuracy; counter: the resource counter's accuracy on the resource "
                        "spaces of --n scenes (--family, --counter); scores: the share of detections that are real "
                        "pieces by score, on scenes of 2, 3 and 4 players in turn (--write stores it in the model's card for the "
                        "pipeline's near misses); reliability: how often each region kind reads right per confidence, over "
                        "rendered games (--games; --write stores models/weights/reliability.json)")
    p.add_argument("--n", type=int, default=500, help="scenes (default 500)")
    p.add_argument("--seed", type=int, default=1000, help="seed of the held-out scenes; must differ from the training data seed (default 1000)")
    p.add_argument("--model", default="detector", help="detector, detector-int8 or a path to an .onnx file")
    p.add_argument("--workers", type=int, default=2, help="rendering processes (default 2)")
    p.add_argument("--players", type=int, default=4, help="2, 3 or 4 players (default 4)")
    p.add_argument("--easy", action="store_true", help="no extra light / occlusion (the training distribution)")
    p.add_argument("--write", action="store_true", help="scores: store the calibration in the model's card; reliability: "
                   "store it as the base reliability")
    p.add_argument("--games", nargs="+", metavar="DIR", help="reliability: rendered game folders (truth.json and looks.jsonl), "
                   "or folders of game_* folders")
    p.add_argument("--out", help="reliability: store it at this path instead")
    p.add_argument("--json", action="store_true", help="reliability: print the reliability file's JSON")
    p.add_argument("--counter", default="counter", help="resource counter model (default counter); 'none': count resources with the detector alone")
    p.add_argument("--progress-tiles", action="store_true", help="scenes with the bought progress tiles drawn (tablewatch synth --progress-tiles)")
    p.add_argument("--family", choices=["classic", "familiar", "foreign"], default="classic",
                   help="detector and counter: the scenes' looks (tablewatch synth --family): classic (default: the held-out set of the "
                        "model card), familiar (the widened training pool) or foreign (the held-out families, docs/foreign-set.md)")
    p.add_argument("--game", choices=["wendake", "iwari"], default="wendake",
                   help="detector: the game whose positions are drawn (default wendake; iwari: tents and totems, 2 to 5 players)")
    p.set_defaults(func=run_eval)


def _positive(name: str, value, low=1) -> None:
    if value < low:
        raise UserError(f"--{name} must be at least {low} (got {value}).")


def run_train(args) -> int:
    for name in ("steps", "batch", "val_every", "width"):
        _positive(name.replace("_", "-"), getattr(args, name))
    _positive("loader-workers", args.loader_workers, 0)
    if args.minutes is not None and not args.minutes > 0:
        raise UserError(f"--minutes must be a positive number of minutes (got {args.minutes}).")
    if args.gpu_crops and args.loader_workers:
        raise UserError("--gpu-crops makes the crops on the training device; drop --loader-workers.")
    if args.device != "cpu" and not args.device.startswith("cuda"):
        raise UserError(f"--device must be cpu or cuda (cuda:N for one of several GPUs), not {args.device!r}.")
    if args.crop < 32 or args.crop % 8:
        raise UserError(f"--crop must be a multiple of 8, at least 32 (got {args.crop}).")
    if not (0.25 <= args.px_per_mm <= 8):
        raise UserError(f"--px-per-mm must be between 0.25 and 8 (got {args.px_per_mm}).")
    if args.small_px_per_mm and not (0.25 <= args.small_px_per_mm <= 8):
        raise UserError(f"--small-px-per-mm must be 0 or between 0.25 and 8 (got {args.small_px_per_mm}).")
    data = [Path(d) for d in args.data]
    for d in data:
        if not d.is_dir():
            raise UserError(f"--data {d} is not a folder; make one with `tablewatch synth --n 1500 --seed 1 --out {d}`.")
    if args.data_weights is not None and (len(args.data_weights) != len(data) or min(args.data_weights) <= 0):
        raise UserError(f"--data-weights needs one positive number per --data folder ({len(data)}), got {args.data_weights}.")
    _need_torch()
    from models.detector.train import train

    init = Path(args.init) if args.init else None
    if init is not None and not init.is_file():
        raise UserError(f"--init {init} is not a file; give an exported detector, e.g. models/weights/detector.onnx.")
    out = Path(args.out)
    if init is not None and (out / "detector.onnx").resolve() == init.resolve():
        raise UserError(f"--init {init} would be overwritten by this run's export; write to another --out.")
    card = train(data, out, args.steps, args.batch, args.crop, args.px_per_mm, args.seed, args.val_scenes, args.val_every,
                 args.width, args.lr, small_px_per_mm=args.small_px_per_mm, device=args.device,
                 loader_workers=args.loader_workers, checkpoint=Path(args.checkpoint) if args.checkpoint else None,
                 init=init, data_weights=args.data_weights, gpu_crops=args.gpu_crops, minutes=args.minutes)
    print(f"wrote {out / 'detector.onnx'} ({card['params']} parameters; best val F1 {card['val']['f1']:.3f} at step "
          f"{card['train']['best_step']}, {card['train']['minutes']:.1f} min) and {out / 'detector_val_curve.png'}")
    if not args.no_int8:
        from models.detector.quantize import quantize
        from models.detector.train import model_scales

        q = quantize(out / "detector.onnx", data, model_scales(args.px_per_mm, args.small_px_per_mm))
        print(f"wrote {q}")
    return 0


def run_eval(args) -> int:
    if args.what == "reliability":
        if not args.games:
            raise UserError("eval reliability needs --games DIR [DIR ...]: rendered games (tablewatch e2e --out DIR).")
        from assistant.apps.reliability_cli import run as run_reliability

        return run_reliability(args)
    _positive("n", args.n)
    _positive("workers", args.workers)
    counts = (2, 3, 4, 5) if args.game == "iwari" and args.what == "detector" else (2, 3, 4)
    if args.players not in counts:
        raise UserError(f"--players must be {', '.join(map(str, counts[:-1]))} or {counts[-1]} (got {args.players}).")
    if args.game != "wendake" and args.what != "detector":
        raise UserError(f"--game {args.game} goes with eval detector only; eval {args.what} reads Wendake scenes.")
    if args.what == "counter":
        from models.counter.evaluate import measure

        if args.counter == "none":
            raise UserError("eval counter measures a resource counter: give --counter counter (the committed one) or a .onnx path.")
        return measure(args.counter, args.n, args.seed, args.family, args.workers)
    if args.what == "scores":
        from models.detector.calibrate import calibrate

        return calibrate(args.model, args.n, args.seed, args.workers, hard=not args.easy, write=args.write)
    from models.detector.evaluate import evaluate

    return evaluate(args.model, args.n, args.seed, args.workers, args.players, hard=not args.easy,
                    counter=None if args.counter == "none" else args.counter, progress_tiles=args.progress_tiles,
                    family=None if args.family == "classic" else args.family, game=args.game)


def counter_data_path(scenes: int, seed: int, families) -> str:
    """The default crop cache of ``tablewatch train-counter``."""
    tail = "" if list(families) == ["classic"] else "_" + "-".join(families)
    return f"data/counter_{scenes}_{seed}{tail}.npz"


def run_counter(args) -> int:
    for name in ("scenes", "steps", "batch", "workers", "width"):
        _positive(name, getattr(args, name))
    for family in args.family:
        if family == "foreign":
            raise UserError("--family foreign is held out of training: it only measures (tablewatch eval counter --family foreign).")
        if family not in ("classic", "familiar", "randomised"):
            raise UserError(f"--family takes classic, familiar or randomised, not {family!r}.")
    _need_torch()
    from models.counter.train import train

    out = Path(args.out)
    data = args.data or counter_data_path(args.scenes, args.seed, args.family)
    card = train(Path(data), out, args.scenes, args.seed, args.steps, args.batch, args.workers, families=tuple(args.family),
                 width=args.width)
    v = card["validation"]
    print(f"wrote {out / 'counter.onnx'} and {out / 'counter.json'}: validation accuracy {v['accuracy']:.4f} "
          f"({v['n']} crops; within one piece {v['within_one']:.4f}), {card['training']['minutes']:.1f} min of training")
    return 0


def parse_size(text: str) -> tuple[int, int]:
    return parse_pair(text, "--size", "WIDTHxHEIGHT, for example --size 1280x960", 64, 8192)


def check_args(args) -> tuple[Path, tuple[int, int]]:
    if args.n <= 0:
        raise UserError(f"--n must be at least 1 (got {args.n}).")
    counts = (2, 3, 4, 5) if args.game == "iwari" else (2, 3, 4)
    if args.players not in counts:
        raise UserError(f"--players must be {', '.join(map(str, counts[:-1]))} or {counts[-1]} (got {args.players}).")
    if args.game == "iwari" and args.progress_tiles:
        raise UserError("--progress-tiles draws Wendake's progress tiles; leave it out with --game iwari.")
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
        stats = generate(args.n, args.seed, out, args.players, size, args.rect_px_per_mm, args.workers, progress_tiles=args.progress_tiles,
                         family=None if args.family == "classic" else args.family, game=args.game)
    except OSError as exc:
        raise UserError(f"writing into {out} failed: {exc.strerror or exc}. Check the folder and free disk space.") from None
    print(f"wrote {stats['scenes']} scenes to {out} in {stats['seconds']:.1f} s ({stats['scenes_per_s']:.2f} scenes/s)")
    return 0
