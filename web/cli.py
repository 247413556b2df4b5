"""``tablewatch serve``: serve the tablet app for a game in a database (the newest one, or ``--game ID``)."""

from __future__ import annotations

from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="serve the tablet app (live score, alerts, corrections, setup, layout tracer)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the whole local network; 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--db", help="the game database (default: DATA_DIR/games.sqlite)")
    p.add_argument("--game", help="the game id to show (default: the newest game in the database)")
    p.add_argument("--data-dir", default=str(Path.home() / ".tablewatch"),
                   help="the server's own folder: PIN, layouts, colour profile, setup (default ~/.tablewatch)")
    p.add_argument("--threads", type=int, default=48, help="worker threads; each open page holds one (default 48)")
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    p.set_defaults(func=_serve)


def open_session(db: str, game: str | None):
    """The GameSession for ``game`` in ``db`` (newest when None); NoGame when the database holds none yet."""
    from assistant.errors import UserError
    from web.adapter import NoGame

    if not Path(db).is_file():
        if game:
            raise UserError(f"{db} does not exist, so it has no game {game!r}. Check --db.")
        return NoGame()
    import sys

    from assistant.session import GameSession

    # the tracker reads the game's stored looks again (GameSession._rerun): seconds, a minute on a Pi late in a game
    print(f"Opening {db}: {'game ' + game if game else 'the newest game'} is read again from its log "
          "(its looks too, so that it goes on as before)...", file=sys.stderr, flush=True)
    try:
        return GameSession.resume(db, game_id=game)
    except (LookupError, UserError) as exc:
        if game:
            raise UserError(f"no game {game!r} in {db}: {exc}") from None
        return NoGame()


def _serve(args) -> int:
    from web.server import serve

    data_dir = Path(args.data_dir).expanduser()
    db = args.db or str(data_dir / "games.sqlite")
    data_dir.mkdir(parents=True, exist_ok=True)
    session = open_session(db, args.game)
    return serve(session, host=args.host, port=args.port, data_dir=data_dir, db_path=db, threads=args.threads, qr=not args.no_qr)
