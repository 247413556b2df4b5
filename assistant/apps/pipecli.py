"""CLI of the live pipeline: ``tablewatch record``, ``tablewatch replay``, ``tablewatch e2e`` and ``tablewatch live``
(the main loop on a real table, defined in ``assistant.apps.live``).

``record`` saves camera frames with timestamps; ``replay`` runs the real pipeline over a frame folder into a fresh
game and prints the recognised move log; ``e2e`` renders (or reuses) the end-to-end game set of a game (``--game``:
Wendake by default, Iwari) and prints the issue-5 figures (``--family foreign --table-seed N``: games on one foreign
table, docs/foreign-set.md). Heavy imports stay inside the handlers.
"""

from __future__ import annotations

from assistant.errors import UserError
from assistant.table import game as games
from assistant.table import hubfollow, paths
from assistant.table.profile import open_profile
from vision.record import record
from vision.sources import open_source, parse_size


def add_parser(sub) -> None:
    p = sub.add_parser(
        "record",
        help="save camera frames with timestamps (replayable with `tablewatch replay`)",
        description="Save frames from a camera (usb:0, picam, video:FILE ...) into a folder with a "
        "timestamps.csv so the session can be replayed exactly.",
    )
    p.add_argument("--source", required=True, help="usb:0 | usb:/dev/video2 | picam | video:FILE | folder:DIR")
    p.add_argument("--out", required=True, help="new folder for the frames")
    p.add_argument("--seconds", type=float, help="stop after this many seconds (default: until Ctrl-C)")
    p.add_argument("--fps", type=float, help="frames per second to keep (and ask the camera for)")
    p.add_argument("--size", default="2304x1296", help="camera resolution WxH (default 2304x1296)")
    p.add_argument("--format", default="jpg", choices=["jpg", "png"], help="jpg (default, quality 95) or png (lossless)")
    p.add_argument("--max-frames", type=int, help="stop after this many frames")
    p.set_defaults(func=run_record)

    p = sub.add_parser(
        "replay",
        help="run the real pipeline on recorded frames and print the recognised move log",
        description="Replay a frame folder (from `tablewatch record` or the synthetic recordings) through "
        "locate -> settle -> detect -> assign -> tracker into a fresh game, and print the move log.",
    )
    p.add_argument("folder", help="frame folder with timestamps.csv")
    p.add_argument(
        "--layout", action="append", help="layout of each board on the table (repeat); default: the folder's session.json"
    )
    p.add_argument("--camera", help="camera.json (default: the folder's, if any)")
    p.add_argument("--players", help="player names, comma-separated (default: the folder's session.json)")
    p.add_argument("--game", help="the game played (default: the folder's session.json, else wendake)")
    p.add_argument("--seed", type=int, help="game seed (default: the folder's session.json)")
    p.add_argument("--db", help="keep the game in this SQLite file (default: a temporary one)")
    p.add_argument("--model", default="detector", help="detector model name or .onnx path")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--readings",
        action="store_true",
        help="rendered games only (truth.json): score the camera side alone, "
        "every emitted reading against what a perfect camera reads, no tracker",
    )
    p.add_argument("--data-dir", help="where table profiles live (default: $TABLEWATCH_DATA_DIR or ~/.tablewatch)")
    p.add_argument("--table", help="read the frames with this table profile's adaptation (DATA_DIR/tables/NAME)")
    p.add_argument(
        "--harvest-to",
        metavar="NAME",
        help="harvest the game's labelled looks into this table profile "
        "(DATA_DIR/tables/NAME), for `tablewatch adapt --table NAME`",
    )
    p.set_defaults(func=run_replay)

    p = sub.add_parser(
        "e2e",
        help="end-to-end figures: render whole games, replay them, compare with the truth",
        description="Render (cached) whole games (Wendake, or --game iwari) with hands between moves and, "
        "optionally, injected illegal moves; replay each through the real pipeline; print the share of exact "
        "move logs, illegal moves accepted, injected moves flagged and false alerts per 20 legal games.",
    )
    p.add_argument(
        "--game", default=games.DEFAULT_GAME, help=f"the game to render and replay (default {games.DEFAULT_GAME}; also iwari)"
    )
    p.add_argument(
        "--map",
        help="the map every game is played on, for a game with maps (Iwari: standard, floating-lands, "
        "glacial-mass, long-road; default: the renderer's)",
    )
    p.add_argument("--games", type=int, default=20, help="legal games (default 20, the game's player counts cycling)")
    p.add_argument("--injected-games", type=int, default=10, help="extra games with injected illegal moves (default 10)")
    p.add_argument("--inject-rate", type=float, default=0.1, help="share of moves preceded by an injected illegal move")
    p.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    p.add_argument(
        "--out",
        help="cache folder of rendered games (default ~/.cache/tablewatch/e2e, ~/.cache/tablewatch/e2e-<game> for another game)",
    )
    p.add_argument("--workers", type=int, default=2, help="rendering processes, and --looks-only processes (default 2)")
    p.add_argument("--max-states", type=int, help="render only the first N table changes of each game (quick runs)")
    p.add_argument("--render-only", action="store_true", help="render, do not replay")
    p.add_argument(
        "--no-progress-tiles",
        action="store_true",
        help="draw no bought progress tiles on the villages "
        "(the games rendered before they were drawn, as cached; a real table has them)",
    )
    p.add_argument(
        "--tracker-only",
        action="store_true",
        help="replay the looks the last full run saved in each game "
        "folder (looks.jsonl) through the tracker alone: minutes instead of hours, for work on assistant/; "
        "after a change to vision/ or models/, run without it or with --looks-only first",
    )
    p.add_argument(
        "--resume-at",
        type=float,
        metavar="SHARE",
        help="with --tracker-only: stop each game after this "
        "share of its looks (0-1) and resume it from its log, as after a crash or a power cut",
    )
    p.add_argument(
        "--looks-only",
        action="store_true",
        help="read each game's frames with the camera side alone, --workers "
        "games at a time, and save their looks (looks.jsonl) for --tracker-only; no figures",
    )
    p.add_argument(
        "--family",
        choices=["classic", "familiar", "foreign"],
        default="classic",
        help="the tables' look (docs/synth.md, Families): classic (default: the set as rendered before families "
        "existed), familiar (the training pool) or foreign (the held-out families: the foreign-table set, "
        "docs/foreign-set.md)",
    )
    p.add_argument(
        "--table-seed",
        type=int,
        help="with --family: every game on one table, its look drawn from this seed (default: each game its own table)",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=[2, 3, 4, 5],
        help="every game with this many players (default: the game's counts in turn; Wendake 2-4, Iwari 2-5)",
    )
    p.add_argument("--data-dir", help="where table profiles live (default: $TABLEWATCH_DATA_DIR or ~/.tablewatch)")
    p.add_argument(
        "--table",
        help="read the frames with this table profile's adaptation (DATA_DIR/tables/NAME); "
        "its looks are saved apart (looks-NAME.jsonl), so --tracker-only --table NAME replays them",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_e2e)

    _add_live(sub)


def _add_live(sub) -> None:
    p = sub.add_parser(
        "live",
        help="the table assistant: read the camera, track the game, serve the tablet page",
        description="Run the camera pipeline on the table and feed the game, while serving the tablet app "
        "(scoreboard, alerts, board view, setup). Resumes the newest game in the database unless "
        "--players starts a new one; a crash or power cut loses nothing (the game is in the SQLite log).",
    )
    p.add_argument(
        "--source",
        default="auto",
        help="camera: picam | usb:0 | usb:/dev/video2 | video:FILE | folder:DIR "
        "(default auto: the Raspberry Pi camera when picamera2 is installed, else usb:0)",
    )
    p.add_argument("--size", default="2304x1296", help="camera resolution WxH (default 2304x1296)")
    p.add_argument("--fps", type=float, default=10.0, help="camera frame rate (default 10)")
    p.add_argument(
        "--layout",
        action="append",
        help="layout of each board on the table (repeat; default: the boards chosen in Setup on the tablet)",
    )
    p.add_argument("--camera", help="camera.json from `tablewatch calibrate camera` (default: DATA_DIR/camera.json if present)")
    p.add_argument("--players", help="start a new game with these players, comma-separated (default: resume the newest game)")
    p.add_argument("--colours", help="their colours, comma-separated (default: the edition's order)")
    p.add_argument("--seed", type=int, help="seed of the new game's setup (with --players)")
    p.add_argument("--game", help="resume this game id (default: the newest)")
    paths.add_options(p)
    p.add_argument("--host", default="0.0.0.0", help="address the tablet page listens on (default 0.0.0.0: the local network)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--model", default="detector", help="detector model name or .onnx path (default detector)")
    p.add_argument("--vision-threads", type=int, default=2, help="threads for OpenCV and the detector (default 2)")
    p.add_argument("--web-threads", type=int, default=48, help="web worker threads; each open page holds one (default 48)")
    p.add_argument("--pace", action="store_true", help="play a folder source at its recorded pace (a live replay)")
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    p.add_argument(
        "--table",
        help="the table profile to learn into and read with (DATA_DIR/tables/NAME; default: named "
        "after the boards and the camera)",
    )
    hubfollow.add_options(p)
    p.set_defaults(func=_run_live)


def _run_live(args) -> int:
    from assistant.apps.live import run_live

    return run_live(args)


def run_record(args) -> int:
    src = open_source(args.source, size=parse_size(args.size), fps=args.fps)
    res = record(src, args.out, seconds=args.seconds, fps=args.fps, fmt=args.format, max_frames=args.max_frames)
    print(
        f"recorded {res['frames']} frames into {res['folder']}"
        + (f" ({res['skipped']} corrupt frames skipped)" if res["skipped"] else "")
    )
    return 0


def run_replay(args) -> int:
    import json

    from assistant.apps.replay import replay_folder

    if args.readings:
        from pathlib import Path

        from assistant.apps.replay import reading_report

        if not (Path(args.folder) / "truth.json").is_file():
            raise UserError(f"--readings needs a rendered game with a truth.json; {args.folder} has none.")
        base = paths.data_dir(args.data_dir)
        rep = reading_report(args.folder, detector=args.model, profile=open_profile(base, args.table) if args.table else None)
        if args.json:
            print(json.dumps(rep, indent=1))
        else:
            print(
                f"{rep['readings']} regions checked over {rep['steps_checked']} table states: {rep['misread_per_1000']} "
                f"misread and {rep['never_read_per_1000']} never read per 1,000 ({rep['unseen']} no camera can see, left out)"
            )
            for k, c in rep["per_kind"].items():
                print(f"  {k:8s} wrong {c['wrong']:5d}  missing {c['missing']:5d}  of {c['total']}")
            for w in rep["most_wrong"]:
                print(f"  {w['steps']:4d} x {w['key']}: expected {w['expected']}, read {w['read']}")
        return 0
    players = [p.strip() for p in args.players.split(",")] if args.players else None
    base = paths.data_dir(args.data_dir)
    res = replay_folder(
        args.folder,
        layouts=args.layout,
        camera=args.camera,
        players=players,
        seed=args.seed,
        db=args.db,
        detector=args.model,
        quiet=args.json,
        game=args.game,
        harvest_to=open_profile(base, args.harvest_to) if args.harvest_to else None,
        profile=open_profile(base, args.table) if args.table else None,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "folder": res["folder"],
                    "moves": res["move_log"],
                    "alerts": res["alerts"],
                    "events": [{"frame": e["frame"], "kind": e["kind"]} for e in res["events"]],
                    "stats": res["stats"],
                },
                indent=1,
                default=str,
            )
        )
    else:
        for m in res["move_log"]:
            print(f"  {m.get('text', m.get('move'))}")
        for a in res["alerts"]:
            print(f"  alert {a.get('kind')}: {a.get('message')}")
        s = res["stats"]
        print(
            f"{len(res['move_log'])} moves recognised from {s['frames']} frames ({s['observations']} observations, "
            f"{s['corrupt']} corrupt frames skipped)"
        )
        if res.get("harvest") is not None:
            print(f"harvested into table profile {args.harvest_to}: {res['harvest']}")
    return 0


def run_e2e(args) -> int:
    import json
    import sys
    from pathlib import Path

    from models.synth.recording import game_options, render_games

    if args.resume_at is not None and (not args.tracker_only or not 0 < args.resume_at < 1):
        raise UserError(
            "--resume-at SHARE goes with --tracker-only and takes a share between 0 and 1 (0.5: half-way through each game)."
        )
    if args.table_seed is not None and args.family == "classic":
        raise UserError("--table-seed draws a table's look from a family: add --family familiar or --family foreign.")
    kw = {
        "max_states": args.max_states,
        "progress_tiles": not args.no_progress_tiles,
        "players": args.players,
        "family": None if args.family == "classic" else args.family,
        "table_seed": args.table_seed,
    }
    kw.update(e2e_game_options(args))
    out = Path(args.out or f"~/.cache/tablewatch/e2e{'' if args.game == games.DEFAULT_GAME else '-' + args.game}").expanduser()
    opts = game_options(args.games, args.seed, **kw)
    opts += game_options(args.injected_games, args.seed + 1000, inject_rate=args.inject_rate, **kw)
    folders = render_games(out, opts, workers=args.workers)
    if args.render_only:
        print(f"{len(folders)} games rendered under {out}")
        return 0
    from assistant.apps.replay import evaluate, looks_file
    from vision.pipeline import LATENCY_TARGET_MS

    profile = None
    if args.table:
        base = paths.data_dir(args.data_dir)
        if not (base / "tables" / args.table).is_dir():
            raise UserError(
                f"no table profile {args.table!r} under {base}: harvest one first (tablewatch replay GAME "
                f"--harvest-to {args.table} --data-dir {base}), then run tablewatch adapt."
            )
        profile = open_profile(base, args.table)

    if args.looks_only:
        from assistant.apps.replay import save_looks_all

        def saved(folder, n, seconds):
            print(f"{Path(folder).name}: {n} looks saved ({seconds:.0f} s)", file=sys.stderr, flush=True)

        save_looks_all(folders, workers=args.workers, progress=saved, profile=profile)
        print(f"looks of {len(folders)} games saved under {out}: run with --tracker-only for the figures")
        return 0
    if args.tracker_only:
        name = looks_file(profile)
        kept = [f for f in folders if (Path(f) / name).is_file()]
        if len(kept) < len(folders):
            print(
                f"{len(folders) - len(kept)} of {len(folders)} games have no saved looks ({name}) and are left out: "
                "run tablewatch e2e once without --tracker-only to replay their frames.",
                file=sys.stderr,
            )
        if not kept:
            return 2
        folders = kept

    def progress(g):
        print(
            f"{Path(g['folder']).name}: log equal {g['log_equal']} ({g['turns_exact']}/{g['turns']} turns), "
            f"{g['moves_recognised']}/{g['moves_true']} moves, "
            f"injected {g['injected']} flagged {g['flagged']}, alerts {g['alerts']}, "
            f"{_latency_text(g['latency_ms'])}" + (f", resumed in {g['resume_s']} s" if "resume_s" in g else ""),
            file=sys.stderr,
            flush=True,
        )

    res = evaluate(folders, progress=progress, tracker_only=args.tracker_only, resume_at=args.resume_at, profile=profile)
    if args.json:
        print(json.dumps(res, indent=1, default=str))
    else:
        print(f"games {res['games']} ({res['legal_games']} legal)")
        print(f"move log equals the truth: {res['log_equal_share']}  (target >= 0.95)")
        if res["legal_games"] < res["games"]:
            print(
                f"  legal games: {res['legal_log_equal_share']}; games with injected moves: "
                f"{res['injected_logs_equal']} of {res['games'] - res['legal_games']}"
            )
        print(f"illegal moves accepted: {res['illegal_accepted']}  (target 0)")
        print(f"injected illegal moves flagged: {res['flagged_share']} of {res['injected']}  (target >= 0.99)")
        print(f"false alerts per 20 legal games: {res['false_alerts_per_20_legal_games']}  (target <= 1)")
        lat = res["latency_ms"]
        what = "the tracker's time a look" if args.tracker_only else "latency a look (settled frame to its events)"
        print(
            f"{what}: {lat['over_target']} of {lat['looks']} looks over {LATENCY_TARGET_MS:.0f} ms, the slowest "
            f"{lat['max']} ms, median of the games' medians {lat['median_of_games']} ms"
        )
    return 0


def e2e_game_options(args) -> dict:
    """The renderer's options (``models.synth.recording.RecordingOptions``) that pick the game of ``tablewatch e2e``:
    none for Wendake (its games render and cache as before), ``game`` and ``map`` for another game. ``UserError``
    for a game nobody registered, a player count it is not played with, or a map for a game without maps."""
    g = games.get(args.game)
    if args.players is not None and (args.players < 2 or args.players not in g.player_counts):
        counts = [n for n in g.player_counts if n >= 2]
        raise UserError(f"{g.title} e2e games have {counts[0]} to {counts[-1]} players, not {args.players}: fix --players.")
    maps = g.setup_options().get("maps") or {}
    if args.map and args.map not in maps:
        raise UserError(
            f"{g.title} has no map {args.map!r}"
            + (f"; its maps are: {', '.join(sorted(maps))}. Fix --map." if maps else ": drop --map.")
        )
    if g.name == games.DEFAULT_GAME:
        return {}
    return {"game": g.name} | ({"map": args.map} if args.map else {})


def _latency_text(st: dict) -> str:
    """One game's per-look latency summary (``PipelineStats.summary``) in a few words."""
    from vision.pipeline import LATENCY_TARGET_MS

    if not st.get("n"):
        return "no looks"
    return f"look median {st['median']} ms, max {st['max']} ms, {st['over_target']} over {LATENCY_TARGET_MS:.0f} ms"
