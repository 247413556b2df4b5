"""``tablewatch serve``: serve the tablet app for a game in a database (the newest one, or ``--game ID``).

The data folder and the game log follow ``assistant.table.paths`` (the rule every command uses). ``open_session``
never turns a log that cannot be opened into "no game": see its docstring."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from assistant.errors import UserError
from assistant.table import paths
from assistant.table.eventlog import EventLog
from assistant.table.session import GameSession
from web.adapter import NoGame


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="serve the tablet app (live score, alerts, corrections, setup, layout tracer)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the whole local network; 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--game", help="the game id to show (default: the newest game in the database)")
    paths.add_options(p)
    p.add_argument("--threads", type=int, default=48, help="worker threads; each open page holds one (default 48)")
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    p.set_defaults(func=_serve)


def open_session(db: str, game: str | None):
    """The GameSession for ``game`` in ``db`` (newest when None); NoGame when the database holds none yet.
    A log that exists but cannot be opened (damaged, truncated, locked by another program) is never "no game":
    with ``game`` given that is a UserError; else the problem goes to stderr and the NoGame carries it, so the
    tablet says it (and the wizard cannot start a game over it). A read-only log opens: its game is shown."""
    if not Path(db).is_file():
        if game:
            raise UserError(f"{db} does not exist, so it has no game {game!r}. Check --data-dir / --db.")
        return NoGame()
    try:
        log = EventLog(db, create=False)
        if log.latest_game() is None:
            log.close()
            if game:
                raise UserError(f"{db} holds no game yet, so no game {game!r}. Check --data-dir / --db.")
            return NoGame()
        # the tracker reads the game's stored looks again (GameSession._rerun): seconds, a minute on a Pi late in a game
        print(f"Opening {db}: {'game ' + game if game else 'the newest game'} is read again from its log "
              "(its looks too, so that it goes on as before)...", file=sys.stderr, flush=True)
        return GameSession.resume(log, game_id=game)
    except sqlite3.DatabaseError as exc:  # damaged past what opening checks: met while reading the game
        problem = f"{db} cannot be read ({exc}). Tablewatch does not change, move or replace it. Keep a copy; " \
                  f"`sqlite3 {db} .recover` may rescue its games. To play meanwhile: --data-dir NEW_FOLDER or --db NEW_FILE."
    except UserError as exc:
        if game:
            raise
        problem = str(exc)
    print(f"tablewatch: {problem}", file=sys.stderr, flush=True)
    return NoGame(problem)


def _serve(args) -> int:
    from web.server import serve

    data_dir = paths.data_dir(args.data_dir)
    db = str(paths.db_path(args.db, args.data_dir))
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the data folder {data_dir}: {exc.strerror or exc}. Choose another --data-dir.") from None
    print(f"tablewatch serve: data folder {data_dir}; game log {db}", file=sys.stderr, flush=True)
    session = open_session(db, args.game)
    return serve(session, host=args.host, port=args.port, data_dir=data_dir, db_path=db, threads=args.threads, qr=not args.no_qr)
