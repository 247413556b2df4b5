"""``tablewatch eval reliability --games DIR [DIR ...] [--write]``: measure how often the camera side reads each region
kind right at each raw confidence, over rendered games, and store it as the base reliability
(``vision.reliability``, ``models/weights/reliability.json``).

Each game's saved looks (``looks.jsonl``, from a full ``tablewatch e2e`` replay) are compared with its truth
(``truth.json``) as ``tablewatch replay DIR --readings`` compares them (``assistant.apps.replay.look_checks``);
region kinds come from the game's layouts. ``add_parser`` registers the command, ``main(argv)`` runs it alone
(``python -m assistant.apps.reliability_cli``); ``tablewatch eval reliability`` (``assistant.apps.models_cli``) imports
it when run, as it loads the camera side (numpy).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assistant.apps.replay import look_checks, read_session_file
from assistant.errors import UserError
from calibration import layout as lay
from vision.reliability import BASE_PATH, EDGES, MIN_READ_AS_CHECKED, Reliability, kind_of, region_kinds


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "reliability", help="measure the reading reliability per region kind on rendered games",
        description="Compare the saved looks of rendered games (looks.jsonl) with their truth, per region kind and raw "
                    "confidence bin, and print the measured reliability; --write stores it as the base reliability "
                    "the pipeline applies (models/weights/reliability.json).")
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p) -> None:
    p.add_argument("--games", nargs="+", required=True, metavar="DIR",
                   help="rendered game folders (each with truth.json and looks.jsonl), or folders holding game_* folders")
    p.add_argument("--write", action="store_true", help="store it as models/weights/reliability.json")
    p.add_argument("--out", default=None, help="store it at this path instead")
    p.add_argument("--json", action="store_true", help="print the reliability file's JSON")


def game_folders(paths) -> list[Path]:
    """The rendered game folders named by ``paths`` (a game folder, or a folder of ``game_*`` folders)."""
    out = []
    for p in map(Path, paths):
        if (p / "truth.json").is_file():
            out.append(p)
        elif p.is_dir() and any(p.glob("game_*/truth.json")):
            out += sorted(g.parent for g in p.glob("game_*/truth.json"))
        else:
            raise UserError(f"{p} is not a rendered game (no truth.json) nor a folder of game_* folders; render some "
                            "with `tablewatch e2e --out DIR`.")
    return out


def measure(folders, progress=None):
    """The reliability counted over ``folders`` (``vision.reliability.Reliability``)."""
    rel = Reliability()
    kinds_of_layouts: dict[tuple, dict] = {}
    for f in folders:
        names = tuple(read_session_file(f)["layouts"])
        if names not in kinds_of_layouts:
            kinds_of_layouts[names] = region_kinds([lay.resolve(n) for n in names])
        kinds = kinds_of_layouts[names]
        n = 0
        for key, value, conf, ok in look_checks(f):
            if kind_of(kinds, key) is not None:
                rel.add_reading(kinds, key, value, conf, ok)
                n += 1
        if progress:
            progress(f, n)
    rel.source = f"tablewatch reliability over {len(folders)} rendered games: " + ", ".join(f.name for f in folders)
    return rel


def run(args) -> int:
    folders = game_folders(args.games)
    quiet = args.json
    rel = measure(folders, None if quiet else lambda f, n: print(f"{f.name}: {n} readings", file=sys.stderr))
    if not rel.counts:
        raise UserError("no readings to count: the games have no looks.jsonl readings at legal steps.")
    if args.json:
        print(json.dumps(rel.to_json(), indent=1))
    else:
        fit = rel.fitted()
        print(f"{rel.checked()} readings over {len(folders)} games, {rel.checked() - rel.correct()} wrong")
        for k in sorted(k for k in rel.counts if ":" not in k or rel.checked(k) >= MIN_READ_AS_CHECKED):
            n, ok = rel.checked(k), rel.correct(k)
            low = [f"{EDGES[i]:.2f}+ {fit[k][i]:.3f} ({b[0]})" for i, b in enumerate(rel.counts[k]) if b[0] and fit[k][i] < (EDGES[i] + EDGES[i + 1]) / 2]
            print(f"  {k:18s} {n:8d} checked  {1000 * (n - ok) / n:7.2f} wrong per 1,000"
                  + (f"  below their confidence: {', '.join(low)}" if low else ""))
    if args.write or args.out:
        path = Path(args.out) if args.out else BASE_PATH
        rel.save(path)
        print(f"wrote {path}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tablewatch reliability")
    add_arguments(p)
    try:
        return run(p.parse_args(argv))
    except UserError as exc:
        print(f"tablewatch: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
