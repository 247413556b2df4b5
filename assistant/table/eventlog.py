"""The append-only game log: one SQLite file (WAL mode, ``synchronous=FULL``) holding games and their events.

Owns storage only: which games exist (with their setup JSON) and the ordered events of each (``seq``, game id,
time, kind, JSON payload): observations, recognised moves, alerts and corrections. Rebuilding a game's state from
its events is the session's job (``assistant/table/session.py``).

Durability: every append is its own committed transaction, and ``append_many`` (a look and the events the tracker
drew from it) is one, so a ``kill -9`` or a power cut loses at most what was being written, and never leaves half
of it (SQLite's journal): a resumed game runs its tracker again on the looks and finds every event they gave.

A full disk: a writer keeps a reserve file next to the log (``games.sqlite.reserve``, ``RESERVE_BYTES``). When a
write fails for a full disk the reserve is deleted and the write made again at once, so every event already
accepted is on disk before ``append`` returns; ``accepting_looks`` is then False (the session reads no new look,
so the tracker never runs ahead of the log) until there is room for the reserve again. Events that still cannot
be written (no reserve, a locked or read-only log) are kept in memory, in order, with their seq numbers, and
written in one transaction by a retry timer (every ``RETRY_S`` while anything is pending or the reserve is used)
or the next append; they are lost only if the process dies before that. ``status`` carries a message for the
tablet; one line goes to stderr (the journal under systemd) when a problem starts and one when it clears.

Opening: a file that is damaged, truncated or not a SQLite database, or that another program holds locked, gives a
``UserError`` saying so, where it is and what to do; the file is never changed, moved or replaced. A read-only log
(file, folder or disk) opens for reading: its games can be listed, exported and shown. ``read_only=True`` opens
any log without writing to it (``games``, ``export``).

Tables::

    games(id TEXT PRIMARY KEY, created REAL, game TEXT, title TEXT, setup TEXT)   -- setup: JSON
    events(seq INTEGER PRIMARY KEY, game_id TEXT, t REAL, kind TEXT, payload TEXT) -- payload: JSON
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import sys
import threading
import time
from pathlib import Path

from assistant.errors import UserError
from assistant.table import paths

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, created REAL NOT NULL, game TEXT NOT NULL, title TEXT, setup TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), t REAL NOT NULL,
                                   kind TEXT NOT NULL, payload TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_game ON events (game_id, seq);
"""
RESERVE_BYTES = 4 * 1024 * 1024  # room kept for the events already accepted when the disk fills (docs/pipeline.md)
RETRY_S = 2.0  # how often pending events are written again, and the reserve made again
BUSY_S = 2.0  # how long a write waits for another program's lock before the events wait in memory


_GAME_COLUMNS = ("id", "created", "game", "title", "setup")  # a pending games row, in this order


def encode(payload: dict) -> str:
    """A payload as the log stores it: JSON with sorted keys."""
    return json.dumps(payload, sort_keys=True)


def as_stored(payload: dict) -> dict:
    """A payload as the log gives it back (``encode``, then decoded): what a resumed game reads."""
    return json.loads(encode(payload))


def default_db_path() -> Path:
    """The game log every command uses when given no option (``assistant.table.paths.db_path``)."""
    return paths.db_path()


def _storage_problem(exc: Exception) -> str | None:
    text = str(exc).lower()
    if "full" in text:
        return "the disk is full"
    if "locked" in text or "busy" in text:
        return "the game log is locked by another program"
    if "readonly" in text or "read-only" in text:
        return "the game log is read-only"
    if "unable to open" in text or "disk i/o error" in text:
        return "the game log cannot be written"
    return None


def _stderr(text: str) -> None:
    print(f"tablewatch: {text}", file=sys.stderr, flush=True)


class EventLog:
    """One open log file. Thread-safe (one lock). ``listeners``: callables run (no lock held, from the retry
    timer) when ``status`` changes without an append, e.g. the pending events written once there is room."""

    def __init__(self, path, create: bool = True, read_only: bool = False, reserve_bytes: int | None = None,
                 retry_s: float | None = None, report=_stderr):
        self.path = Path(path).expanduser() if str(path) != ":memory:" else path
        self._lock = threading.RLock()
        self._pending: list[tuple] = []  # (table, row) not yet written
        self.problem: str | None = None
        self.read_only = read_only
        self.low_space = False  # the reserve was used for a full disk: no new looks until it is made again
        self.listeners: list = []
        self.report = report or (lambda text: None)
        self.reserve_bytes = RESERVE_BYTES if reserve_bytes is None else reserve_bytes
        self.retry_s = RETRY_S if retry_s is None else retry_s
        self.reserve = Path(f"{self.path}.reserve") if self.path != ":memory:" else None
        self._reported: str | None = None
        self._closed = threading.Event()
        self._timer: threading.Thread | None = None
        if self.path == ":memory:":
            self.db = self._connect()
            return
        if not Path(self.path).exists():
            if not create or read_only:
                hint = ""
                old = paths.older_log(self.path)
                if old is not None:
                    hint = f" An older log is at {old}: pass --db {old} (nothing is moved for you)."
                raise UserError(f"no game log at {self.path}. Start a game first, or pass --data-dir / --db "
                                f"(or set ${paths.ENV_DATA_DIR}).{hint}")
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UserError(f"cannot create the folder {Path(self.path).parent} for the game log: "
                                f"{exc.strerror or exc}. Choose another --data-dir or --db.") from None
        if read_only:
            self.db = self._open_read_only()
            return
        try:
            self.db = self._connect()
        except sqlite3.DatabaseError as exc:
            problem = _storage_problem(exc)
            if problem in ("the game log is read-only", "the game log cannot be written") and Path(self.path).exists():
                self.db = self._open_read_only()  # still readable: shown, listed, exported
                self.read_only = True
                self._set_problem("read-only", f"{self.path} is read-only ({exc}): the game can be read, but new "
                                  "events are kept in memory only and are lost when Tablewatch stops. Make the file "
                                  "and its folder writable, or copy the folder to a writable disk and pass --data-dir.")
                return
            raise self._unusable(exc) from None
        self._make_reserve()

    def _connect(self):
        db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=BUSY_S)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            self._check(db)
            db.executescript(SCHEMA)
            self._next_seq = (db.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0) + 1
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _check(self, db) -> None:
        """A damaged or truncated file fails here, before anything is written to it."""
        if self.path == ":memory:":
            return
        row = db.execute("PRAGMA quick_check(1)").fetchone()
        if row is None or row[0] != "ok":
            raise sqlite3.DatabaseError(f"database disk image is malformed: {row[0] if row else 'no answer'}")

    def _open_read_only(self):
        """The log opened without writing to it: ``mode=ro``, else (a read-only disk without SQLite's ``-shm``
        file) ``immutable=1``, which only a log with no ``-wal`` file can be read by in full."""
        last = None
        wal = Path(f"{self.path}-wal")
        for query in ("mode=ro", "immutable=1"):
            if query == "immutable=1" and wal.is_file() and wal.stat().st_size > 0:
                break
            try:
                db = sqlite3.connect(f"file:{self.path}?{query}", uri=True, check_same_thread=False,
                                     isolation_level=None, timeout=BUSY_S)
            except sqlite3.DatabaseError as exc:
                last = exc
                continue
            try:
                self._check(db)
                db.execute("SELECT 1 FROM games LIMIT 1").fetchall()
                self._next_seq = (db.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0) + 1
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                last = exc
                if _storage_problem(exc) is None and "unable to open" not in str(exc):
                    break  # damaged: the other way will not read it either
        raise self._unusable(last or sqlite3.DatabaseError(f"unable to open database file (its {wal.name} cannot be read)"))

    def _unusable(self, exc: Exception) -> UserError:
        problem = _storage_problem(exc)
        where = self.path
        if problem == "the game log is locked by another program":
            return UserError(f"{where} is locked by another program ({exc}). Stop the other Tablewatch (e.g. `sudo "
                             "systemctl stop tablewatch`) or the program using the file, then start again. The log "
                             "was not changed.")
        if problem == "the disk is full":
            return UserError(f"the disk holding {where} is full ({exc}). Free some disk space and start again; the "
                             "log was not changed.")
        if problem is not None:
            return UserError(f"cannot open {where} ({exc}). Check that the file and its folder exist and can be read "
                             "(and written, to go on with a game), or pass another --data-dir / --db.")
        return UserError(f"{where} is damaged or not a Tablewatch game log ({exc}). Tablewatch does not change, move or "
                         f"replace it. Keep a copy; `sqlite3 {where} .recover` may rescue its games. To play meanwhile, "
                         "start a new log elsewhere: --data-dir NEW_FOLDER or --db NEW_FILE.")

    # ---- problems and the reserve ------------------------------------------------------------------------------
    def _set_problem(self, kind: str | None, message: str | None) -> None:
        """One stderr line when a problem starts (or changes kind), one when it clears."""
        self.problem = message
        if kind != self._reported:
            if kind is not None:
                self.report(f"game log {self.path}: {message}")
            elif self._reported is not None:
                self.report(f"game log {self.path}: can be written again; every event is on disk.")
            self._reported = kind

    def _make_reserve(self) -> bool:
        """Preallocate the reserve; False (and looks paused) when the disk has no room for it."""
        if not self.reserve_bytes or self.reserve is None or self.read_only:
            return True
        try:
            if self.reserve.is_file() and self.reserve.stat().st_size >= self.reserve_bytes:
                return True
            fd = os.open(self.reserve, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                try:
                    os.posix_fallocate(fd, 0, self.reserve_bytes)
                except (AttributeError, OSError) as exc:
                    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
                        raise
                    chunk = b"\0" * 65536  # a file system without fallocate: write it
                    for _ in range(0, self.reserve_bytes, len(chunk)):
                        os.write(fd, chunk)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self._drop_reserve()
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                self.low_space = True
                self._set_problem("low-space", self._low_space_message())
                self._start_timer()
                return False
            return True  # e.g. a folder that refuses new files: the log itself reports what it meets
        return True

    def _drop_reserve(self) -> bool:
        try:
            self.reserve.unlink()
            return True
        except (OSError, AttributeError):
            return False

    def _low_space_message(self) -> str:
        return ("the disk is full: every event so far is saved, and the camera's new looks are not read until there "
                "is room again (free some disk space: old recordings, `sudo journalctl --vacuum-size=50M`); the "
                "game goes on from there by itself.")

    def _start_timer(self) -> None:
        if self._timer is None and not self._closed.is_set():
            self._timer = threading.Thread(target=self._retry, name="tablewatch-log-retry", daemon=True)
            self._timer.start()

    def _retry(self) -> None:
        """While events are pending or the reserve is used: write them, and make the reserve again, every
        ``retry_s``; tell ``listeners`` when ``status`` changed."""
        while not self._closed.wait(self.retry_s):
            with self._lock:
                if self._closed.is_set():
                    break
                before = self.status
                if self._pending:
                    self.flush()
                if self.low_space and not self._pending:
                    self._try_space()
                after = self.status
                done = not self._pending and not self.low_space
                if done:
                    self._timer = None
            if after != before:
                for f in list(self.listeners):
                    try:
                        f()
                    except Exception:  # noqa: BLE001 - a listener (the tablet's refresh) must not stop the retries
                        pass
            if done:
                return

    def _try_space(self) -> None:
        """Make the reserve again once the disk has room for it and as much again for the game."""
        try:
            free = shutil.disk_usage(Path(self.path).parent).free
        except OSError:
            return
        if free >= 2 * self.reserve_bytes and self._make_reserve():
            self._set_problem(None, None)  # before looks are read again: a reader never sees both at once
            self.low_space = False

    @property
    def accepting_looks(self) -> bool:
        """False while the reserve is used for a full disk: a new look would not be saved, so it is not read."""
        return not self.low_space

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
            waiting = bool(self._pending) and self._timer is not None
            self._pending += [("events", (seq, game_id, when, kind, encode(payload)))
                              for seq, (kind, payload) in zip(seqs, events)]
            if not waiting:  # else the retry timer writes them (a locked log would make every look wait BUSY_S)
                self.flush()
            elif self.problem:
                self.problem = self.problem.replace(f"{len(self._pending) - len(events)} event(s)",
                                                    f"{len(self._pending)} event(s)", 1)
            return seqs

    def flush(self) -> bool:
        """Write the pending rows, in one transaction; True when nothing is left pending. On a full disk the reserve
        is given up and the write made again at once; what still cannot be written waits for the retry timer."""
        with self._lock:
            if not self._pending:
                return True
            if self.read_only:
                return False  # kept in memory: the status (set at opening) says so
            try:
                self._write()
            except sqlite3.OperationalError as exc:
                self._rollback()
                problem = _storage_problem(exc)
                if problem == "the disk is full" and self.reserve is not None and self._drop_reserve():
                    self.low_space = True
                    return self.flush()  # the reserve's room, for the events already accepted
                if problem is None:
                    problem = f"the game log cannot be written ({exc})"
                what = {"the disk is full": "free some disk space",
                        "the game log is locked by another program": "stop the other program using the file"}.get(
                            problem, "check the file and its folder")
                self._set_problem(problem, f"{problem}: {len(self._pending)} event(s) are kept in memory and the game "
                                  f"goes on; they are written as soon as the log can be written again ({what}).")
                self._start_timer()
                return False
            except sqlite3.DatabaseError as exc:
                self._rollback()
                self._set_problem("damaged", f"the game log file is damaged ({exc}); events are kept in memory. "
                                  "Export the game now.")
                self._start_timer()
                return False
            self._pending.clear()
            if self.low_space:
                self._set_problem("low-space", self._low_space_message())
                self._start_timer()
            else:
                self._set_problem(None, None)
            return True

    def _write(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        for table, row in self._pending:
            if table == "games":
                self.db.execute("INSERT OR IGNORE INTO games (id, created, game, title, setup) VALUES (?, ?, ?, ?, ?)", row)
            else:
                self.db.execute("INSERT INTO events (seq, game_id, t, kind, payload) VALUES (?, ?, ?, ?, ?)", row)
        self.db.execute("COMMIT")

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

    def _game_column(self, game_id: str, column: str):
        """One column of a game's row (``game`` or ``setup``), written or still pending; UserError for an unknown id."""
        with self._lock:
            row = self.db.execute(f"SELECT {column} FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                at = _GAME_COLUMNS.index(column)
                row = next(((r[at],) for tb, r in self._pending if tb == "games" and r[0] == game_id), None)
            if row is None:
                known = ", ".join(g["id"] for g in self.games()) or "none"
                raise UserError(f"no game {game_id!r} in {self.path}. Games: {known}.")
            return row[0]

    def game_of(self, game_id: str) -> str:
        """The name of the game ``game_id`` plays (its registry key, ``"wendake"``); UserError for an unknown id."""
        return self._game_column(game_id, "game")

    def setup(self, game_id: str) -> dict:
        return json.loads(self._game_column(game_id, "setup"))

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
        """Write what is pending (a last try), stop the retry timer and close the file."""
        self._closed.set()
        with self._lock:
            self.flush()
            self.db.close()
