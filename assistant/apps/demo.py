"""``tablewatch demo``: a recorded game replayed through the real camera pipeline, the live score as moves are
recognised, then the tablet page.

The frames are rendered once from a seeded game (``models.synth.recording``: fixed camera over the table, hands
between moves) and cached under ``~/.cache/tablewatch/demo/``; nothing is downloaded. They go through
``vision.pipeline.Pipeline`` (locate -> settle -> detect -> assign -> tracker) into a ``GameSession``; each
recognised move and alert is printed with the standings. At the end the tablet page is served with
``web.server.serve`` (``--no-serve`` to skip) on the local network (``--local``: this machine only), so that a
tablet that scans the printed QR code reaches it; its Board page shows the pipeline's last read of the boards
(regions and detections drawn, the ``BOARD_IMAGE`` hook ``tablewatch live`` gives too). Changes on the tablet
need a PIN: the demo makes a one-time PIN and prints it (``--pin`` to choose it), never asking on the terminal,
and keeps it with the demo's other server files in a temporary folder, not in ~/.tablewatch.

It also shows learning the table (``assistant.apps.learn``): the game's first look is checked against the start
position (the set-up check, printed), the looks the tracker explains surely are harvested into a demo table profile
(``demo-<n>p`` in ``--data-dir``, else in the demo's temporary folder), and after the game ``tablewatch adapt``
learns from them and prints its one line; the tablet's learning panel shows both (the profile's status.json).
``--no-adapt`` skips the adapt.

``--game iwari`` plays a seeded Iwari game (2-5 players) the same way: each recognised move with the standings the
Iwari way (each tribe's score so far and what it would be if the next scoring, the half journey or the end, were
made now), then the tablet; its frames are cached apart (``iwari-<n>p-...``), its table profile is ``demo-iwari-<n>p``.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from pathlib import Path

from assistant.apps.learn import AdaptRunner, Harvester, HarvestingFeed, StatusBoard
from assistant.errors import UserError
from assistant.table import game as games
from assistant.table import paths
from assistant.table.profile import open_profile
from calibration import camera as cam
from calibration import layout as lay
from vision.sources import FolderSource

CACHE = Path("~/.cache/tablewatch/demo").expanduser()
DEMO_SEED = {2: 11, 3: 12, 4: 13}
DEMO_SEEDS = {games.DEFAULT_GAME: DEMO_SEED, "iwari": {2: 21, 3: 22, 4: 23, 5: 24}}  # the bundled game of each


def _standings(snap: dict) -> str:
    rows = []
    for p in snap.get("players", []):
        t = p.get("tracks", {})
        rows.append(
            f"{p.get('name')}: econ {t.get('economic', 0)} mil {t.get('military', 0)} rit {t.get('ritual', 0)} "
            f"mask {t.get('mask', 0)} = {p.get('projected_total', '?')}"
        )
    return "  |  ".join(rows)


def _scores_now(snap: dict) -> str:
    """Standings from a snapshot whose players have a ``score`` so far and a ``projected_total`` (Iwari's: so far
    plus what the next scoring, ``next_scoring``, would give now), the 2-player third tribe after them."""
    when = snap.get("next_scoring")
    rows = [f"{p.get('name')} {p.get('score', 0)} ({p.get('projected_total', '?')})" for p in snap.get("players", [])]
    third = snap.get("third_tribe")
    if third:
        rows.append(f"third tribe ({third.get('colour')}) {third.get('score', 0)} ({third.get('projected_total', '?')})")
    return f"so far (if the {when or 'game'} were scored now): " + "  |  ".join(rows)


STANDINGS = {games.DEFAULT_GAME: _standings}  # a game's standings line; any other: _scores_now


def demo_options(game: str, players: int, states: int | None) -> tuple[object, str]:
    """(the renderer's options, the cache folder's name) of the bundled demo game of ``game`` for ``players``.
    ``UserError`` for a game without a bundled demo or a player count it is not played with. Wendake's are as they
    always were (same seeds, same folders)."""
    from models.synth.recording import RecordingOptions

    g = games.get(game)
    seeds = DEMO_SEEDS.get(g.name)
    if seeds is None:
        raise UserError(f"{g.title} has no demo game yet; the demos are: {', '.join(sorted(DEMO_SEEDS))}.")
    if players not in seeds:
        raise UserError(f"--players must be {', '.join(map(str, sorted(seeds)[:-1]))} or {max(seeds)} (got {players}).")
    opts = RecordingOptions(game=g.name, players=players, seed=seeds[players], max_states=states, hand_rate=0.5)
    prefix = "" if g.name == games.DEFAULT_GAME else f"{g.name}-"
    return opts, f"{prefix}{players}p-{states or 'all'}"


def run(args: argparse.Namespace) -> int:
    from models.synth.recording import is_done, render_game

    states = 12 if args.fast else (None if args.all else 60)
    opts, name = demo_options(args.game, args.players, states)
    folder = CACHE / name
    if not is_done(folder, opts):
        print(f"Rendering the demo game's camera frames once into {folder} (cached for next time) ...", flush=True)
        try:
            render_game(folder, opts, progress=lambda n: print(f"\r  {n} table positions", end="", flush=True))
        except OSError as exc:
            raise UserError(f"cannot write the demo frames to {folder}: {exc.strerror or exc}. Free some disk space.") from None
        print()
    import json

    from assistant.apps.live import board_jpeg, pipeline_board_jpeg
    from assistant.apps.replay import event_json, event_kind, make_session
    from vision.pipeline import Pipeline

    meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    # a temporary log unless --db / --data-dir is given: a demo game in the real log would be the game `live` resumes
    db = (
        str(paths.db_path(args.db, args.data_dir))
        if args.db or args.data_dir
        else str(Path(tempfile.mkdtemp(prefix="tablewatch-demo-")) / "demo.sqlite")
    )
    game = meta.get("game") or games.DEFAULT_GAME
    session = make_session(Path(db), meta["players"], meta["seed"], meta["initial"], game)
    standings = STANDINGS.get(game, _scores_now)
    web_dir = Path(tempfile.mkdtemp(prefix="tablewatch-demo-web-"))  # the PIN and the server's files: this demo only
    data_dir = Path(args.data_dir).expanduser() if args.data_dir else web_dir
    try:
        profile = open_profile(
            data_dir, f"demo-{args.players}p" if game == games.DEFAULT_GAME else f"demo-{game}-{args.players}p"
        )
    except OSError as exc:
        raise UserError(
            f"cannot make the demo's table profile in {data_dir}: {exc.strerror or exc}. Free some disk space."
        ) from None
    board = StatusBoard(profile)
    harvester = Harvester(profile, background=True)  # the camera never waits for a look to be written
    fed = HarvestingFeed(session, harvester, lambda: pipe)
    title = "" if game == games.DEFAULT_GAME else f"{session.game.title}, "
    print(
        f"Tablewatch demo: {title}{len(meta['players'])} players ({', '.join(meta['players'])}); camera frames from {folder}; game log {db}"
    )
    print(f"  (afterwards: tablewatch games --db {db}; tablewatch export latest --db {db})")

    def on_event(e):
        kind = event_kind(e)
        d = event_json(e)
        text = d.get("text") or "; ".join(d.get("texts") or ()) or d.get("message") or d.get("move") or d.get("reason") or ""
        print(f"  {kind:18s} {text}")
        if kind == "MoveRecognized":
            print(f"  {'':18s} {standings(session.snapshot())}")
        if kind == "SetupCheck":  # the tablet's learning panel shows it (status.json)
            board.setup_check(e, session.game_id)

    def on_message(level, text):
        if level != "info":
            print(f"  [{level}] {text}")

    source = FolderSource(folder, pace=not args.fast and not args.no_pace)
    pipe = Pipeline(
        source,
        [lay.resolve(n) for n in meta["layouts"]],
        fed,
        camera=cam.load(folder / "camera.json"),
        on_event=on_event,
        on_message=on_message,
        on_observation=fed.saw,
        profile=profile,
    )
    stats = pipe.run()
    s = stats.summary()
    print(
        f"\n{s['frames']} frames, {s['observations']} observations, {s['events']} events; latency per settled frame: "
        f"median {s['latency_ms'].get('median', '-')} ms"
    )
    print("standings: " + standings(session.snapshot()))
    harvester.close()
    c = harvester.counts
    print(f"harvested for learning: {c['setup']} set-up look(s), {c['explained']} explained look(s) into {profile.root}")
    runner = AdaptRunner(profile, data_dir, board)
    if not args.no_adapt:
        print("learning this table (tablewatch adapt, at low priority) ...", flush=True)
        started = runner.start("the demo game")
        if runner.running:
            ok, text = runner.wait()
            print(f"  {'learnt' if ok else 'learning failed'}: {text}")
        else:
            print(f"  {started}")
    if args.no_serve:
        return 0
    if not sys.stdout.isatty():
        print("(not a terminal: the tablet page is not served; run it in a terminal, or pass --no-serve to silence this)")
        return 0
    try:
        from web.server import serve
    except ImportError as exc:
        print(f"tablewatch: the tablet page is not available yet (web.server: {exc}); the game log is {db}.", file=sys.stderr)
        return 0
    host = "127.0.0.1" if args.local else args.host
    pin = args.pin or f"{secrets.randbelow(10**6):06d}"
    print(f"\nPIN for changes on the tablet (undo, corrections, setup): {pin}  (this demo only)")
    return serve(
        session,
        host=host,
        port=args.port,
        data_dir=web_dir,
        db_path=db,
        pin=pin,
        config={
            "BOARD_IMAGE": lambda: pipeline_board_jpeg(pipe),
            "TABLE_PROFILE": profile,
            "ADAPT_NOW": lambda: runner.start("asked on the tablet"),
            "BOARD_JPEG": lambda b, regions: board_jpeg(pipe.observer, b, regions),
        },
    )


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="replay a recorded game through the camera pipeline, show the live score and the tablet page",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", default=games.DEFAULT_GAME, help=f"the game to play (default {games.DEFAULT_GAME}; also iwari)")
    p.add_argument("--players", type=int, default=4, help="2, 3 or 4 players; Iwari 2 to 5 (default 4)")
    p.add_argument("--fast", action="store_true", help="only the first 12 table changes, as fast as possible")
    p.add_argument("--all", action="store_true", help="the whole game (rendering it once takes several minutes)")
    p.add_argument("--no-pace", action="store_true", help="do not wait between frames (default: recorded pace)")
    p.add_argument("--no-serve", action="store_true", help="do not serve the tablet page at the end")
    p.add_argument(
        "--host",
        default="0.0.0.0",
        help="tablet page address to listen on (default 0.0.0.0: the local network, so a tablet can join)",
    )
    p.add_argument("--local", action="store_true", help="serve the tablet page to this machine only (127.0.0.1)")
    p.add_argument("--pin", help="the PIN for changes on the tablet (default: a one-time PIN, printed)")
    p.add_argument("--port", type=int, default=8080, help="tablet page port (default 8080)")
    p.add_argument("--db", help="keep the game log in this SQLite file (default: a temporary one, printed at the start)")
    p.add_argument(
        "--data-dir",
        help="keep the game log in DATA_DIR/games.sqlite, as `live` and `export` find it, and the "
        "demo's table profile in DATA_DIR/tables/",
    )
    p.add_argument("--no-adapt", action="store_true", help="do not learn the table after the game (tablewatch adapt)")
    p.set_defaults(func=run)
