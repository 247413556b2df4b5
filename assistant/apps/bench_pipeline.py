"""``tablewatch bench pipeline``: latency from a settled frame to the emitted event, stage by stage, 2 threads.

Two table positions one move apart are rendered at 2304x1296 (``models.synth.recording``: fixed overhead camera,
every board in view) of a seeded game of ``--game`` (Wendake, or Iwari on the map its seed draws); the tracker's
session starts from the recording's session.json through the game registry, as ``tablewatch replay`` does. Each timed run shows position A until every board is read (the tracker sees it too), then
B: the frame at which B has been still for 300 ms is the *settled frame*; its time through locate, settle,
rectify, detect, assign and the tracker (``GameSession.feed``) is the latency, and the events it emitted are
counted (the true move should be among them). Only the boards whose picture changed are read again, as live;
``--read-all`` reads them all (the worst case). OpenCV and onnxruntime get 2 threads. Without assistant.table.session the tracker
stage is left out and said so.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from assistant.apps.replay import make_session, session_game
from assistant.errors import UserError
from assistant.table import paths
from assistant.table.profile import TABLES_DIR, TableProfile, check_name
from calibration import layout as lay
from models.synth import recording as R
from vision.observe import Observer
from vision.sources import parse_size


def _frames(game: str, players: int, seed: int, size):
    """(session.json of the recording, the moves from A to B, image A, image B, the camera) of a seeded ``game``:
    A is its initial table, B the first table a camera sees differently (the moves up to it)."""
    import numpy as np

    opts = R.RecordingOptions(players=players, seed=seed, size=size, game=game)
    part = R.part_for(game)
    initial, moves = part.play(opts)
    rng = np.random.default_rng([seed, players, 0x6A3E])
    look = R._setup(initial, opts, rng)
    placer = R.Placer(np.random.default_rng([seed, 11]))
    a = initial.copy()
    img_a, _ = R._render_state(a, look, placer, opts, 0)
    b = a.copy()
    sig = part.signature(a, opts)
    used = []
    for m in moves:
        part.apply(b, m)
        used.append(m)
        if part.signature(b, opts) != sig:
            break
    img_b, _ = R._render_state(b, look, placer, opts, 1)
    return part.session(initial, opts), used, img_a, img_b, look.fixed["camera"]


def _check_game(game: str, players: int) -> None:
    """``UserError`` in one line for a game the recorder cannot render or a player count it does not take."""
    try:
        counts = R.part_for(game).players
    except UserError as exc:
        raise UserError(f"--game {game}: {exc} Pass one of them with --game.") from None
    if players not in counts:
        raise UserError(
            f"--players {players}: {game} is benched for {', '.join(map(str, counts))} players; pass one of them with --players."
        )


def _session(db: Path, meta: dict):
    """A new session of the recording's game from its session.json (players, initial state), as a replay starts one."""
    return make_session(db, meta["players"], None, meta["initial"], game=session_game(meta))


def main(argv: list[str]) -> int:
    import cv2
    import numpy as np

    ap = argparse.ArgumentParser(prog="tablewatch bench pipeline", description=__doc__)
    ap.add_argument("--runs", type=int, default=10, help="timed settled frames (default 10)")
    ap.add_argument("--game", default="wendake", help=f"the game rendered: {', '.join(R.PARTS)} (default wendake)")
    ap.add_argument("--players", type=int, default=4, help="players (Wendake 2-4, Iwari 2-5; default 4)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--size", default="2304x1296", help="frame size WxH (default 2304x1296)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", default="detector", help="detector model (detector, detector-int8 or a path)")
    ap.add_argument(
        "--read-all",
        action="store_true",
        help="read every board again at the settled frame, not only those the move changed (the first "
        "look of a game, or after the light changed): the worst case",
    )
    ap.add_argument("--table", help="read with this table profile's adaptation (DATA_DIR/tables/NAME, `tablewatch adapt`)")
    ap.add_argument("--data-dir", help="where table profiles live (default: $TABLEWATCH_DATA_DIR or ~/.tablewatch)")
    args = ap.parse_args(argv)
    _check_game(args.game, args.players)
    if args.runs < 1 or args.threads < 1:
        raise UserError(f"--runs {args.runs} --threads {args.threads}: both must be 1 or more.")
    profile = None
    if args.table:
        profile = TableProfile(paths.data_dir(args.data_dir) / TABLES_DIR / check_name(args.table))
        if profile.card() is None:
            raise UserError(
                f"table profile {args.table} has no adaptation in {profile.adapted_dir}: run `tablewatch adapt "
                f"--table {args.table}` first, or leave --table out."
            )
        print(f"reading with the adaptation of table profile {args.table}: {profile.card().get('text', '')}")

    size = parse_size(args.size)
    cv2.setNumThreads(args.threads)
    print(f"rendering the two positions at {size[0]}x{size[1]} ...", flush=True)
    meta, used, img_a, img_b, cam = _frames(args.game, args.players, args.seed, size)
    layouts = [lay.resolve(n) for n in meta["layouts"]]
    K = (cam.K, cam.dist)
    session = None
    tmp = tempfile.TemporaryDirectory(prefix="tablewatch-bench-")
    try:
        session = _session(Path(tmp.name) / "bench.sqlite", meta)
    except Exception as exc:  # noqa: BLE001 - any failure means: time vision only
        print(f"note: no tracker stage ({exc})")
    stages = {k: [] for k in ("locate", "settle", "rectify", "detect", "assign", "tracker", "total")}
    emitted = Counter()  # the events the timed settled frames emitted, by kind
    t = 0.0
    ob = Observer(layouts, detector=args.model, camera=K, threads=args.threads, profile=profile)
    # A is shown long enough for every board to be read, a piece lying across a board's edge included (the
    # settler takes it for fingers until it has lain still ``piece_accept_s``); B's settled frame is timed
    a_times = (0.0, 0.4, ob.settler.config.piece_accept_s + 0.6)
    for run in range(args.runs + 1):
        ob.cache.clear()
        ob.emitted.clear()
        ob.settler.reset()
        for img, times in ((img_a, a_times), (img_b, (0.0, 0.4))):
            for dt in times:
                if args.read_all and img is img_b and dt > 0:
                    ob.cache.clear()
                t0 = time.perf_counter()
                res = ob.process(int((t + dt) * 10), t + dt, img)
                t1 = time.perf_counter()
                tracker = 0.0
                events = []
                if res.observation is not None and session is not None:
                    try:
                        events = session.feed(res.observation) or []
                    except Exception as exc:  # noqa: BLE001 - timed all the same; said once
                        if run == 1:
                            print(f"note: the tracker raised {type(exc).__name__}: {exc}")
                    tracker = (time.perf_counter() - t1) * 1000
                if img is img_b and dt > 0 and run > 0:  # the settled frame of B (run 0 warms up)
                    for k in ("locate", "settle", "rectify", "detect", "assign"):
                        stages[k].append(res.timings_ms.get(k, 0.0))
                    stages["tracker"].append(tracker)
                    stages["total"].append((t1 - t0) * 1000 + tracker)
                    emitted.update(e.kind for e in events)
            t += 10.0
        if session is not None:  # start each run from the initial position again
            try:
                session.close()
            except Exception:  # noqa: BLE001
                pass
            session = _session(Path(tmp.name) / f"bench{run}.sqlite", meta)
    tmp.cleanup()
    read = "every board read again" if args.read_all else "the boards the move changed read again"
    print(
        f"settled frame {size[0]}x{size[1]}, {len(layouts)} boards ({read}), {args.runs} runs, {args.threads} threads, "
        f"model {args.model}"
    )
    for k, v in stages.items():
        if k == "tracker" and session is None:
            print(f"  {k:8s}    n/a (assistant.table.session not available)")
            continue
        print(f"  {k:8s} {statistics.median(v):8.1f} ms median  {np.percentile(v, 95):8.1f} ms p95")
    if session is not None:
        got = ", ".join(f"{k} x{n}" for k, n in sorted(emitted.items())) or "none"
        print(f"  events at the settled frames: {got} (true move: {', '.join(type(m).__name__ for m in used)})")
    print(f"target: total <= 250 ms -> {'met' if statistics.median(stages['total']) <= 250 else 'NOT met'} (median)")
    return 0
