"""``tablewatch adapt``: learn one table from its harvested looks, or roll the last adaptation back (docs/adapt.md).

The table is a table profile: ``--table NAME`` under ``DATA_DIR/tables/`` (``--data-dir``, else
``$TABLEWATCH_DATA_DIR``, else ``~/.tablewatch``), or ``--profile DIR`` for a profile folder anywhere. The work
is ``models.adapt.run``; this module parses, draws the progress bar on stderr and prints one line (or JSON).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from assistant.errors import UserError
from assistant.table import paths
from assistant.table.profile import TABLES_DIR, TableProfile, check_name, list_profiles

BAR_WIDTH = 30


def add_parser(sub) -> None:
    p = sub.add_parser(
        "adapt",
        help="learn your table (pieces, boards, light, camera) from the looks harvested in play",
        description="Fit the detector's table head, the counter's recalibration and the tile and token "
        "galleries on a table profile's harvested looks, on CPU; swap them in only when they read the "
        "held-out looks better. The previous adaptation is kept for --rollback.",
    )
    p.add_argument("--data-dir", default=None, help=paths.DATA_DIR_HELP)
    who = p.add_mutually_exclusive_group()
    who.add_argument("--table", help="the table profile's name (DATA_DIR/tables/NAME)")
    who.add_argument("--profile", help="a table profile folder (holding looks/)")
    p.add_argument("--rollback", action="store_true", help="put the previous adaptation back instead of adapting")
    p.add_argument("--threads", type=int, default=2, help="threads for the models (default 2)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def resolve(args) -> TableProfile:
    """The profile the arguments name; UserError with the fix when it does not exist."""
    if args.profile:
        root = Path(args.profile).expanduser()
        if not root.is_dir():
            raise UserError(f"{root} is not a table profile folder: give the folder that holds looks/ (or use --table NAME).")
        return TableProfile(root)
    base = paths.data_dir(args.data_dir)
    if not args.table:
        names = ", ".join(p.name for p in list_profiles(base)) or "none yet"
        raise UserError(f"say which table to adapt: --table NAME (profiles in {base / TABLES_DIR}: {names}) or --profile DIR.")
    prof = TableProfile(base / TABLES_DIR / check_name(args.table))
    if not prof.root.is_dir():
        names = ", ".join(p.name for p in list_profiles(base)) or "none yet"
        raise UserError(
            f"no table profile {args.table!r} in {base / TABLES_DIR} (profiles: {names}); play a game with "
            "`tablewatch live` first, or give --profile DIR."
        )
    return prof


def bar(t0: float):
    """A progress bar on stderr: ``update(share, what)``."""

    def update(share: float, what: str) -> None:
        fill = int(BAR_WIDTH * min(1.0, share))
        el = time.perf_counter() - t0
        eta = el / share * (1 - share) if share > 0.02 else 0.0
        sys.stderr.write(
            f"\r[{'#' * fill}{'.' * (BAR_WIDTH - fill)}] {100 * share:3.0f} %  {el / 60:.1f} min  "
            f"eta {eta / 60:.1f} min  {what:<34}"
        )
        sys.stderr.flush()

    return update


def run(args) -> int:
    prof = resolve(args)
    if args.threads < 1:
        raise UserError("--threads must be 1 or more.")
    from models.adapt.run import adapt, rollback

    if args.rollback:
        text = rollback(prof)
        print(json.dumps({"rolled_back": True, "text": text}) if args.json else text)
        return 0
    t0 = time.perf_counter()
    res = adapt(prof, bar(t0), threads=args.threads)
    sys.stderr.write("\n")
    res["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(res, indent=1, ensure_ascii=False) if args.json else f"{prof.name}: {res['text']} ({res['seconds']:.0f} s)")
    return 0
