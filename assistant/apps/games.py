"""``tablewatch games`` (list the games in a log) and ``tablewatch export GAME`` (a whole game as JSON).

Owns the command-line side of the game log. The log file is found by the rule every command uses
(``assistant.table.paths.db_path``): ``--db``, else ``--data-dir``/games.sqlite, else ``$TABLEWATCH_DB``, else
``$TABLEWATCH_DATA_DIR``/games.sqlite, else ``~/.tablewatch/games.sqlite`` -- where ``live``, ``serve``, the setup
wizard and ``demo --data-dir`` write. The log is opened read-only (never changed): a read-only log, or one that a
running ``tablewatch live`` is writing, can be listed and exported.

Export format ``tablewatch.game-export/1``, for every game through the ``Game`` interface::

    {"format", "game_id", "game", "title", "created", "setup": {...}, "events": [{"seq", "t", "kind", "payload"}, ...],
     "moves": [<move JSON>, ...], "record": <tablewatch.<game>.game/1: initial state + moves>,
     "final_state": <state JSON>, "results": <Game.results>, "alerts_active": [...]}

The record is ``{"format": "tablewatch.<game>.game/1", "initial", "moves"}``: for Wendake the record
``assistant.wendake.record`` reads (``tablewatch wendake replay``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from assistant.table import paths
from assistant.table.eventlog import EventLog
from assistant.table.session import GameSession


def add_parser(sub) -> None:
    p = sub.add_parser("games", help="list the games in the game log")
    paths.add_options(p)
    p.set_defaults(func=_games)
    p = sub.add_parser("export", help="write a whole game (setup, events, moves, final state) as JSON")
    p.add_argument("game", help="game id (see `tablewatch games`), or 'latest'")
    paths.add_options(p)
    p.add_argument("--out", help="output file (default: standard output)")
    p.add_argument("--no-observations", action="store_true", help="leave the stored observations out")
    p.set_defaults(func=_export)


def _open(args):
    return EventLog(paths.db_path(args.db, args.data_dir), create=False, read_only=True)


def _games(args) -> int:
    log = _open(args)
    games = log.games()
    if not games:
        print(f"no games in {log.path}")
        return 0
    for g in games:
        created = time.strftime("%Y-%m-%d %H:%M", time.localtime(g["created"]))
        print(f"{g['id']}  {created}  {g['game']}  {g['events']:6d} events  {g['title'] or ''}")
    return 0


def record(game, initial, moves) -> dict:
    """A game's record: its initial state and the moves played, as JSON (``tablewatch.<game>.game/1``)."""
    return {"format": f"tablewatch.{game.name}.game/1", "initial": game.state_to_json(initial),
            "moves": [game.move_to_json(m) for m in moves]}


def export_game(log, game_id: str, observations: bool = True) -> dict:
    """The whole game ``game_id`` (or "latest") of ``log`` in the export format (module docstring)."""
    if game_id == "latest":
        game_id = log.latest_game() or game_id
    setup = log.setup(game_id)
    info = next(g for g in log.games() if g["id"] == game_id)
    session = GameSession.resume(log, game_id, rerun=False)  # the logged moves are the export
    events = log.events(game_id)
    if not observations:
        events = [e for e in events if e["kind"] != "Observation"]
    tr, game = session.tracker, session.game
    rec = record(game, tr.initial, tr.moves)
    return {"format": "tablewatch.game-export/1", "game_id": game_id, "game": game.name, "title": info["title"],
            "created": info["created"], "setup": setup, "events": events, "moves": list(rec["moves"]), "record": rec,
            "final_state": game.state_to_json(tr.state), "results": game.results(tr.state),
            "alerts_active": [ev.to_json() for ev in tr.alerts.values()]}


def _export(args) -> int:
    log = _open(args)
    doc = export_game(log, args.game, observations=not args.no_observations)
    text = json.dumps(doc, indent=1, sort_keys=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}: {len(doc['moves'])} moves, {len(doc['events'])} events", file=sys.stderr)
    else:
        print(text)
    return 0
