"""The append-only game log: one SQLite file (WAL mode, ``synchronous=FULL``) holding games and their events.

Owns storage only: which games exist (with their setup JSON) and the ordered events of each (``seq``, game id,
time, kind, JSON payload): observations, recognised moves, alerts and corrections. Rebuilding a game's state from
its events is the session's job (``assistant/session.py``).

Durability: every append is its own committed transaction, and ``append_many`` (a look and the events the tracker
drew from it) is one, so a ``kill -9`` or a power cut loses at most what was being written, and never leaves half
of it (SQLite's journal): a resumed game runs its tracker again on the looks and finds every event they gave.
When the disk is full ("database or disk is full") or the file is read-only, the event is kept in memory,
``status`` carries a clear message, the game goes on, and the pending events are written at the next append or
``flush()`` that succeeds — in order, with the seq numbers they were given, in one transaction. A file that is not a SQLite database gives a ``UserError`` saying so.

Tables::

    games(id TEXT PRIMARY KEY, created REAL, game TEXT, title TEXT, setup TEXT)   -- setup: JSON
    events(seq INTEGER PRIMARY KEY, game_id TEXT, t REAL, kind TEXT, payload TEXT) -- payload: JSON
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

from assistant.errors import UserError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, created REAL NOT NULL, game TEXT NOT NULL, title TEXT, setup TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), t REAL NOT NULL,
                                   kind TEXT NOT NULL, payload TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_game ON events (game_id, seq);
"""


def encode(payload: dict) -> str:
    """A payload as the log stores it: JSON with sorted keys."""
    return json.dumps(payload, sort_keys=True)


def as_stored(payload: dict) -> dict:
    """A payload as the log gives it back (``encode``, then decoded): what a resumed game reads."""
    return json.loads(encode(payload))


def default_db_path() -> Path:
    """``$TABLEWATCH_DB``, else ``~/.local/share/tablewatch/games.sqlite``."""
    env = os.environ.get("TABLEWATCH_DB")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "tablewatch" / "games.sqlite"


def _storage_problem(exc: Exception) -> str | None:
    text = str(exc).lower()
    if "full" in text:
        return "the disk is full"
    if "readonly" in text or "read-only" in text or "attempt to write a readonly database" in text:
        return "the game log is read-only"
    if "unable to open" in text or "disk i/o error" in text:
        return "the game log cannot be written"
    return None


class EventLog:
    """One open log file. Thread-safe (one lock)."""

    def __init__(self, path, create: bool = True):
        self.path = Path(path).expanduser() if str(path) != ":memory:" else path
        self._lock = threading.RLock()
        self._pending: list[tuple] = []  # (table, row) not yet written
        self.problem: str | None = None
        if self.path != ":memory:":
            if not Path(self.path).exists() and not create:
                raise UserError(f"no game log at {self.path}. Start a game first, or pass --db PATH.")
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=10.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            self._next_seq = (self.db.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0) + 1
        except sqlite3.DatabaseError as exc:
            problem = _storage_problem(exc)
            if problem and "readonly" not in problem and Path(self.path).exists():
                raise UserError(f"{self.path}: {problem} ({exc}). Free some space or choose another file with --db.") from None
            if problem and Path(self.path).exists():
                # read-only: still readable
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
                self._next_seq = (self.db.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0) + 1
                self.problem = f"{problem}: new events are kept in memory until it can be written"
                return
            raise UserError(f"{self.path} is not a usable Tablewatch game log ({exc}). It may be corrupt: move it "
                            "aside (keep it for recovery) and start a new log, or pass --db with another file.") from None

    # ---- writing -----------------------------------------------------------------------------------------------
    def create_game(self, game_id: str, game: str, setup: dict, title: str | None = None) -> None:
        with self._lock:
            self._pending.append(("games", (game_id, time.time(), game, title, encode(setup))))
            self.flush()

    def append(self, game_id: str, kind: str, payload: dict, t: float | None = None) -> int:
        """Append one event; returns its seq. Never raises for a full or read-only disk (see ``status``)."""
        return self.append_many(game_id, [(kind, payload)], t)[0]

    def append_many(self, game_id: str, events: list[tuple[str, dict]], t: float | None = None) -> list[int]:
        """Append ``(kind, payload)`` events in one transaction (all or none of them are written); returns their
        seqs. Never raises for a full or read-only disk (see ``status``)."""
        with self._lock:
            seqs = list(range(self._next_seq, self._next_seq + len(events)))
            self._next_seq += len(events)
            when = time.time() if t is None else t
            self._pending += [("events", (seq, game_id, when, kind, encode(payload)))
                              for seq, (kind, payload) in zip(seqs, events)]
            self.flush()
            return seqs

    def flush(self) -> bool:
        """Write the pending rows, in one transaction; True when nothing is left pending."""
        with self._lock:
            if not self._pending:
                self.problem = None
                return True
            try:
                self.db.execute("BEGIN IMMEDIATE")
                for table, row in self._pending:
                    if table == "games":
                        self.db.execute("INSERT OR IGNORE INTO games (id, created, game, title, setup) VALUES (?, ?, ?, ?, ?)", row)
                    else:
                        self.db.execute("INSERT INTO events (seq, game_id, t, kind, payload) VALUES (?, ?, ?, ?, ?)", row)
                self.db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                self._rollback()
                problem = _storage_problem(exc) or f"the game log cannot be written ({exc})"
                self.problem = (f"{problem}: {len(self._pending)} event(s) are kept in memory and the game goes on; "
                                "they are written as soon as the log can be written again (free some disk space).")
                return False
            except sqlite3.DatabaseError as exc:
                self._rollback()
                self.problem = f"the game log file is damaged ({exc}); events are kept in memory. Export the game now."
                return False
            self._pending.clear()
            self.problem = None
            return True

    def _rollback(self) -> None:
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # no transaction was open (BEGIN itself failed)

    @property
    def status(self) -> dict:
        return {"ok": self.problem is None, "message": self.problem, "pending": len(self._pending)}

    # ---- reading -----------------------------------------------------------------------------------------------
    def games(self) -> list[dict]:
        with self._lock:
            rows = self.db.execute(
                "SELECT g.id, g.created, g.game, g.title, (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id), "
                "(SELECT MAX(t) FROM events e WHERE e.game_id = g.id) FROM games g ORDER BY g.created, g.rowid").fetchall()
            out = [{"id": r[0], "created": r[1], "game": r[2], "title": r[3], "events": r[4], "last": r[5]} for r in rows]
            written = {g["id"] for g in out}
            for table, row in self._pending:
                if table == "games" and row[0] not in written:
                    out.append({"id": row[0], "created": row[1], "game": row[2], "title": row[3], "events": 0, "last": None})
            for g in out:
                g["events"] += sum(1 for table, row in self._pending if table == "events" and row[1] == g["id"])
            return out

    def setup(self, game_id: str) -> dict:
        with self._lock:
            row = self.db.execute("SELECT setup FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                row = next(((r[4],) for tb, r in self._pending if tb == "games" and r[0] == game_id), None)
            if row is None:
                known = ", ".join(g["id"] for g in self.games()) or "none"
                raise UserError(f"no game {game_id!r} in {self.path}. Games: {known}.")
            return json.loads(row[0])

    def events(self, game_id: str, since: int = 0, kinds=None) -> list[dict]:
        """Events of a game with seq > since, oldest first: ``{"seq", "t", "kind", "payload"}``."""
        with self._lock:
            rows = self.db.execute("SELECT seq, t, kind, payload FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
                                   (game_id, since)).fetchall()
            out = [{"seq": r[0], "t": r[1], "kind": r[2], "payload": json.loads(r[3])} for r in rows]
            out += [{"seq": r[0], "t": r[2], "kind": r[3], "payload": json.loads(r[4])}
                    for tb, r in self._pending if tb == "events" and r[1] == game_id and r[0] > since]
            if kinds is not None:
                out = [e for e in out if e["kind"] in kinds]
            return out

    def latest_game(self) -> str | None:
        games = self.games()
        return games[-1]["id"] if games else None

    def close(self) -> None:
        with self._lock:
            self.flush()
            self.db.close()
