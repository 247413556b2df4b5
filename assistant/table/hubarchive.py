"""The hub's archive: one SQLite file (WAL, ``synchronous=FULL``) of everything the hub received from the tables.

Owns what the hub knows, for the page, the standings and each game's export: every event a table published, once
per ``(event id, table, seq)``; each table's last status and since when (and the history of its changes); each
game's set-up; each game's newest snapshot (and so each table's current one); the organiser's choices (the
standings rule, rounds, games left out). Pure stdlib; messages come in as the broker delivered them and are checked
with ``hubmsg.check`` (a bad one is one line in ``Applied.rejected``, never an exception).

Applying is idempotent and order-free, so a broker's duplicates, redeliveries and out-of-order deliveries are
applied once: an event whose seq the archive holds is a duplicate; a snapshot replaces a table's (and a game's)
only when it is newer by ``(last_seq, t)``; a set-up is kept once per game (a newer copy refreshes it); a status
that changes the table's state is kept, its ``since`` the message's own unless that is older than what the archive
knew (a will made at connect time), then the time it came. ``apply`` takes a batch in one transaction, committed
before it returns: the hub acknowledges (PUBACK) a message only after that, so a hub killed at any moment loses
nothing the broker will not deliver again.

Every applied change gets a change number ``n`` (``changes_since``, ``wait``), kept across restarts: the page's
live stream counts with it. Reading (``tables``, ``games``, ``events``, ``export``) is from memory, except events.

Tables::

    meta(key TEXT PRIMARY KEY, value TEXT)              -- format, next change number, organiser settings (JSON)
    tables(event, tbl, name, state, since, received)    -- PRIMARY KEY (event, tbl): the last status
    statuses(n, event, tbl, state, since, received)     -- every status change
    games(event, tbl, game_id, name, game, title, created, setup, received, round, counted)
    snapshots(event, tbl, game_id, name, game, last_seq, t, summary, received)   -- the newest per game ('' = none)
    events(n INTEGER PRIMARY KEY, event, tbl, seq, game_id, t, kind, payload, received)   -- UNIQUE (event, tbl, seq)
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from assistant.errors import UserError
from assistant.table import hubmsg

FORMAT = "tablewatch.hub-archive/1"
FEED_KEPT = 4096  # changes kept in memory for a live page catching up
BUSY_S = 5.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (event TEXT NOT NULL, tbl TEXT NOT NULL, name TEXT NOT NULL, state TEXT, since REAL,
                                   received REAL, PRIMARY KEY (event, tbl));
CREATE TABLE IF NOT EXISTS statuses (n INTEGER PRIMARY KEY, event TEXT NOT NULL, tbl TEXT NOT NULL, state TEXT NOT NULL,
                                     since REAL NOT NULL, received REAL NOT NULL);
CREATE TABLE IF NOT EXISTS games (event TEXT NOT NULL, tbl TEXT NOT NULL, game_id TEXT NOT NULL, name TEXT, game TEXT,
                                  title TEXT, created REAL, setup TEXT, received REAL, round INTEGER,
                                  counted INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (event, tbl, game_id));
CREATE TABLE IF NOT EXISTS snapshots (event TEXT NOT NULL, tbl TEXT NOT NULL, game_id TEXT NOT NULL, name TEXT, game TEXT,
                                      last_seq INTEGER NOT NULL, t REAL NOT NULL, summary TEXT NOT NULL, received REAL,
                                      PRIMARY KEY (event, tbl, game_id));
CREATE TABLE IF NOT EXISTS events (n INTEGER PRIMARY KEY, event TEXT NOT NULL, tbl TEXT NOT NULL, seq INTEGER NOT NULL,
                                   game_id TEXT NOT NULL, t REAL NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL,
                                   received REAL NOT NULL, UNIQUE (event, tbl, seq));
CREATE INDEX IF NOT EXISTS events_game ON events (event, tbl, game_id, seq);
"""


@dataclass
class Applied:
    """What one ``apply`` did: the changes (``(n, item)``, as ``changes_since`` gives them), the duplicates and
    stale copies ignored, and one line per message refused."""

    changes: list[tuple[int, dict]] = field(default_factory=list)
    duplicates: int = 0
    stale: int = 0
    rejected: list[str] = field(default_factory=list)

    @property
    def new_events(self) -> int:
        return sum(1 for _, c in self.changes if c["type"] == "event")


def _key_text(key: tuple) -> str:
    return "/".join(key)


class HubArchive:
    """The archive file at ``path`` (created when missing). ``UserError`` when it cannot be opened or is not a hub
    archive. Thread-safe: the subscriber applies, the page reads."""

    def __init__(self, path, clock=time.time):
        self.path = Path(path).expanduser()
        self.clock = clock
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._feed: deque = deque(maxlen=FEED_KEPT)
        self.db = self._open()
        self._load()

    # ---- opening -----------------------------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        fix = "Give another --archive, or move that file away (the hub then starts an empty archive)."
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                f"cannot create the folder {self.path.parent} for the hub archive: {exc.strerror or exc}. {fix}"
            ) from None
        if self.path.is_dir():
            raise UserError(f"the hub archive {self.path} is a folder, not a file. {fix}")
        try:
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=BUSY_S)
        except sqlite3.Error as exc:
            raise UserError(f"cannot open the hub archive {self.path}: {exc}. {fix}") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("the file is damaged")
            found = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if found and "meta" not in found:
                raise UserError(f"{self.path} is a SQLite file but not a hub archive (it has {', '.join(sorted(found))}). {fix}")
            db.executescript(SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
            elif row[0] != FORMAT:
                raise UserError(f"{self.path} is a hub archive of format {row[0]!r}, not {FORMAT!r}. {fix}")
        except sqlite3.Error as exc:
            db.close()
            raise UserError(f"the hub archive {self.path} cannot be used ({exc}). {fix}") from None
        except UserError:
            db.close()
            raise
        return db

    def _load(self) -> None:
        db = self.db
        row = db.execute("SELECT value FROM meta WHERE key='next_n'").fetchone()
        self.last_n = int(row[0]) - 1 if row else 0
        self._tables: dict[tuple, dict] = {}
        self._games: dict[tuple, dict] = {}
        for event, tbl, name, state, since, received in db.execute("SELECT * FROM tables"):
            self._table(event, tbl, name).update(state=state, since=since, status_received=received)
        for event, tbl, gid, name, game, title, created, setup, _received, rnd, counted in db.execute("SELECT * FROM games"):
            g = self._game(event, tbl, gid)
            g.update(
                name=name or g["name"],
                game=game,
                title=title,
                created=created,
                round=rnd,
                counted=bool(counted),
                players=_setup_players(json.loads(setup)) if setup else [],
                has_setup=setup is not None,
            )
        for event, tbl, gid, name, game, last_seq, t, summary, received in db.execute(
            "SELECT * FROM snapshots ORDER BY last_seq, t"
        ):
            doc = {
                "table": tbl,
                "name": name,
                "game_id": gid or None,
                "game": game,
                "last_seq": last_seq,
                "t": t,
                "summary": json.loads(summary),
                "received": received,
            }
            if gid:
                self._game(event, tbl, gid)["snapshot"] = doc
            self._table(event, tbl, name)["snapshot"] = doc
        for event, tbl, gid, count, first, last in db.execute(
            "SELECT event, tbl, game_id, COUNT(*), MIN(seq), MAX(seq) FROM events GROUP BY event, tbl, game_id"
        ):
            self._game(event, tbl, gid).update(events=count, first_seq=first, last_seq=last)
        for event, tbl, count, first, last in db.execute(
            "SELECT event, tbl, COUNT(*), MIN(seq), MAX(seq) FROM events GROUP BY event, tbl"
        ):
            self._table(event, tbl).update(events=count, first_seq=first, last_seq=last)
        for event, tbl, seq, gid, t, kind, received in db.execute(
            "SELECT e.event, e.tbl, e.seq, e.game_id, e.t, e.kind, e.received FROM events e JOIN "
            "(SELECT event, tbl, MAX(seq) AS top FROM events GROUP BY event, tbl) m "
            "ON e.event = m.event AND e.tbl = m.tbl AND e.seq = m.top"
        ):
            self._table(event, tbl)["last_event"] = {"seq": seq, "game_id": gid, "t": t, "kind": kind, "received": received}
        self.settings = {}
        for key, value in db.execute("SELECT key, value FROM meta WHERE key LIKE 'settings/%'"):
            self.settings[key.split("/", 1)[1]] = json.loads(value)

    def _table(self, event: str, tbl: str, name: str | None = None) -> dict:
        t = self._tables.get((event, tbl))
        if t is None:
            t = self._tables[(event, tbl)] = {
                "event": event,
                "table": tbl,
                "name": name or tbl,
                "state": None,
                "since": None,
                "status_received": None,
                "snapshot": None,
                "last_event": None,
                "events": 0,
                "first_seq": None,
                "last_seq": None,
            }
        elif name:
            t["name"] = name
        return t

    def _game(self, event: str, tbl: str, game_id: str) -> dict:
        g = self._games.get((event, tbl, game_id))
        if g is None:
            g = self._games[(event, tbl, game_id)] = {
                "event": event,
                "table": tbl,
                "game_id": game_id,
                "name": self._tables.get((event, tbl), {}).get("name", tbl),
                "game": None,
                "title": None,
                "created": None,
                "round": None,
                "counted": True,
                "players": [],
                "has_setup": False,
                "snapshot": None,
                "events": 0,
                "first_seq": None,
                "last_seq": None,
            }
        return g

    def close(self) -> None:
        with self._lock:
            self.db.close()

    # ---- applying ----------------------------------------------------------------------------------------------
    def apply(self, messages) -> Applied:
        """Apply ``[(topic, payload bytes), ...]`` as one transaction, committed before returning."""
        out = Applied()
        with self._cond:
            now = self.clock()
            undo = (
                dict(self._tables),
                {k: dict(v) for k, v in self._tables.items()},
                dict(self._games),
                {k: dict(v) for k, v in self._games.items()},
                self.last_n,
            )
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for topic, payload in messages:
                    try:
                        kind, doc = hubmsg.check(topic, payload)
                    except ValueError as exc:
                        out.rejected.append(str(exc))
                        continue
                    event, _ = hubmsg.topic_names(topic)
                    item = getattr(self, f"_apply_{kind}")(event, doc, now, out)
                    if item is not None:
                        self.last_n += 1  # an event row was written with this number
                        item.update(type=kind, event=event, table=doc["table"], received=now)
                        out.changes.append((self.last_n, item))
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('next_n', ?)", (str(self.last_n + 1),))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                tables, table_rows, games, game_rows, self.last_n = undo
                self._tables = {k: table_rows[k] for k in tables}
                self._games = {k: game_rows[k] for k in games}
                raise
            if out.changes:
                self._feed.extend(out.changes)
                self._cond.notify_all()
        return out

    def _apply_status(self, event: str, doc: dict, now: float, out: Applied) -> dict | None:
        t = self._table(event, doc["table"], doc["name"])
        if t["state"] == doc["state"]:
            out.stale += 1
            return None
        since = doc["since"] if t["since"] is None or doc["since"] >= t["since"] else now
        t.update(state=doc["state"], since=since, status_received=now)
        self.db.execute(
            "INSERT OR REPLACE INTO tables VALUES (?, ?, ?, ?, ?, ?)", (event, doc["table"], t["name"], doc["state"], since, now)
        )
        self.db.execute(
            "INSERT INTO statuses (event, tbl, state, since, received) VALUES (?, ?, ?, ?, ?)",
            (event, doc["table"], doc["state"], since, now),
        )
        return {"state": doc["state"], "since": since}

    def _apply_setup(self, event: str, doc: dict, now: float, out: Applied) -> dict | None:
        self._table(event, doc["table"], doc["name"])
        g = self._game(event, doc["table"], doc["game_id"])
        fields = (doc["name"], doc["game"], doc["title"], doc["created"])
        if g["has_setup"] and (g["name"], g["game"], g["title"], g["created"]) == fields:
            out.duplicates += 1
            return None
        g.update(
            name=doc["name"],
            game=doc["game"],
            title=doc["title"],
            created=doc["created"],
            has_setup=True,
            players=_setup_players(doc["setup"]),
        )
        self.db.execute(
            "INSERT INTO games (event, tbl, game_id, name, game, title, created, setup, received) VALUES (?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (event, tbl, game_id) DO UPDATE SET name=excluded.name, game=excluded.game, title=excluded.title, "
            "created=excluded.created, setup=excluded.setup, received=excluded.received",
            (
                event,
                doc["table"],
                doc["game_id"],
                doc["name"],
                doc["game"],
                doc["title"],
                doc["created"],
                json.dumps(doc["setup"], sort_keys=True),
                now,
            ),
        )
        self._save_table_name(event, doc["table"])
        return {"game_id": doc["game_id"], "game": doc["game"], "t": doc["created"]}

    def _save_table_name(self, event: str, tbl: str) -> None:
        t = self._tables[(event, tbl)]
        self.db.execute(
            "INSERT INTO tables (event, tbl, name) VALUES (?, ?, ?) ON CONFLICT (event, tbl) DO UPDATE SET name=excluded.name",
            (event, tbl, t["name"]),
        )

    def _apply_event(self, event: str, doc: dict, now: float, out: Applied) -> dict | None:
        tbl, seq, gid = doc["table"], doc["seq"], doc["game_id"]
        cur = self.db.execute(
            "INSERT OR IGNORE INTO events VALUES (?,?,?,?,?,?,?,?,?)",
            (self.last_n + 1, event, tbl, seq, gid, doc["t"], doc["kind"], json.dumps(doc["payload"], sort_keys=True), now),
        )
        if cur.rowcount == 0:
            out.duplicates += 1
            return None
        for holder in (self._table(event, tbl), self._game(event, tbl, gid)):
            holder["events"] += 1
            holder["first_seq"] = seq if holder["first_seq"] is None else min(holder["first_seq"], seq)
            holder["last_seq"] = seq if holder["last_seq"] is None else max(holder["last_seq"], seq)
        t = self._tables[(event, tbl)]
        if t["last_event"] is None or seq > t["last_event"]["seq"]:
            t["last_event"] = {"seq": seq, "game_id": gid, "t": doc["t"], "kind": doc["kind"], "received": now}
        return {"game_id": gid, "seq": seq, "t": doc["t"], "kind": doc["kind"]}

    def _apply_snapshot(self, event: str, doc: dict, now: float, out: Applied) -> dict | None:
        tbl, gid = doc["table"], doc["game_id"]
        snap = {
            "table": tbl,
            "name": doc["name"],
            "game_id": gid,
            "game": doc["game"],
            "last_seq": doc["last_seq"],
            "t": doc["t"],
            "summary": doc["summary"],
            "received": now,
        }
        t = self._table(event, tbl, doc["name"])
        newer_for_table = _newer(snap, t["snapshot"])
        g = self._game(event, tbl, gid) if gid else None
        newer_for_game = _newer(snap, g["snapshot"]) if g is not None else newer_for_table
        if not newer_for_table and not newer_for_game:
            out.stale += 1
            return None
        if newer_for_table:
            t["snapshot"] = snap
        if newer_for_game:
            if g is not None:
                g["snapshot"] = snap
            self.db.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    event,
                    tbl,
                    gid or "",
                    doc["name"],
                    doc["game"],
                    doc["last_seq"],
                    doc["t"],
                    json.dumps(doc["summary"], sort_keys=True),
                    now,
                ),
            )
        self._save_table_name(event, tbl)
        return {"game_id": gid, "seq": doc["last_seq"], "t": doc["t"], "over": doc["summary"]["over"]}

    # ---- the live feed -----------------------------------------------------------------------------------------
    def changes_since(self, n: int, timeout: float | None = 0) -> list[tuple[int, dict]]:
        """The changes numbered after ``n`` that are still kept in memory (``FEED_KEPT``), oldest first; waits up to
        ``timeout`` seconds for the first (None: for ever). Earlier ones are in the archive, not in the feed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self.last_n <= n:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return []
                self._cond.wait(left)
            return [(k, dict(item)) for k, item in self._feed if k > n]

    # ---- reading -----------------------------------------------------------------------------------------------
    def tables(self, event: str | None = None) -> list[dict]:
        """Every table (of ``event``), by event and name: name, state and since, its current snapshot (newest),
        last event, events archived and ``missing`` (seqs between its first and last archived ones not received)."""
        with self._lock:
            out = []
            for (ev, _), t in sorted(self._tables.items(), key=lambda kv: (kv[0][0], _natural(kv[1]["name"]))):
                if event is None or ev == event:
                    row = dict(t)
                    row["missing"] = 0 if t["first_seq"] is None else t["last_seq"] - t["first_seq"] + 1 - t["events"]
                    out.append(row)
            return out

    def games(self, event: str | None = None) -> list[dict]:
        """Every game (of ``event``), oldest first: table, set-up's players, newest snapshot, round, counted."""
        with self._lock:
            rows = [dict(g) for (ev, _, _), g in self._games.items() if event is None or ev == event]
        return sorted(
            rows, key=lambda g: (g["event"], g["created"] if g["created"] is not None else float("inf"), g["table"], g["game_id"])
        )

    def game(self, event: str, table: str, game_id: str) -> dict | None:
        with self._lock:
            g = self._games.get((event, table, game_id))
            return dict(g) if g is not None else None

    def events_of(self) -> list[str]:
        """The event ids the archive holds."""
        with self._lock:
            return sorted({ev for ev, _ in self._tables})

    def events(self, event: str, table: str, game_id: str | None = None) -> list[dict]:
        """A table's archived events (of one game), by seq: ``{"seq", "game_id", "t", "kind", "payload", "received"}``."""
        sql = "SELECT seq, game_id, t, kind, payload, received FROM events WHERE event = ? AND tbl = ?"
        args: tuple = (event, table)
        if game_id is not None:
            sql, args = sql + " AND game_id = ?", args + (game_id,)
        with self._lock:
            rows = self.db.execute(sql + " ORDER BY seq", args).fetchall()
        return [{"seq": s, "game_id": g, "t": t, "kind": k, "payload": json.loads(p), "received": r} for s, g, t, k, p, r in rows]

    def missing(self, event: str, table: str) -> list[int]:
        """Seqs of ``table`` between its first and last archived event that have not come (the table sends them
        when it is back: docs/hub.md)."""
        with self._lock:
            seqs = [
                r[0] for r in self.db.execute("SELECT seq FROM events WHERE event = ? AND tbl = ? ORDER BY seq", (event, table))
            ]
        return [s for a, b in zip(seqs, seqs[1:]) for s in range(a + 1, b)]

    def export(self, event: str, table: str, game_id: str) -> dict:
        """One game as archived (``tablewatch.hub-export/1``): its set-up, every event received, by seq, the newest
        snapshot and the organiser's round; the fields the table's own export has (``game_id``, ``title``,
        ``created``, ``setup``, ``events``) are named alike. ``UserError`` for a game the archive lacks."""
        with self._lock:
            g = self._games.get((event, table, game_id))
            if g is None:
                raise UserError(f"the hub has no game {game_id!r} of table {table!r} in event {event!r}.")
            row = self.db.execute(
                "SELECT setup FROM games WHERE event = ? AND tbl = ? AND game_id = ?", (event, table, game_id)
            ).fetchone()
            events = self.events(event, table, game_id)
            seqs = [e["seq"] for e in events]
            return {
                "format": "tablewatch.hub-export/1",
                "event": event,
                "table": table,
                "name": g["name"],
                "game_id": game_id,
                "game": g["game"],
                "title": g["title"],
                "created": g["created"],
                "setup": json.loads(row[0]) if row and row[0] else None,
                "round": g["round"],
                "counted": g["counted"],
                "snapshot": g["snapshot"],
                "events": events,
                "missing": [s for a, b in zip(seqs, seqs[1:]) for s in range(a + 1, b)],
            }

    # ---- the organiser's choices -------------------------------------------------------------------------------
    def set_game(
        self, event: str, table: str, game_id: str, round: int | None | str = "keep", counted: bool | None = None
    ) -> dict:
        """Set a game's round (a number, or None for its start time's slot) and whether the standings count it."""
        with self._cond:
            g = self._games.get((event, table, game_id))
            if g is None:
                raise UserError(f"the hub has no game {game_id!r} of table {table!r} in event {event!r}.")
            if round != "keep":
                if round is not None and (isinstance(round, bool) or not isinstance(round, int) or not 1 <= round <= 999):
                    raise UserError(f"round {round!r} is not a number from 1 to 999 (leave it empty to slot by start time).")
                g["round"] = round
            if counted is not None:
                g["counted"] = bool(counted)
            self.db.execute(
                "INSERT INTO games (event, tbl, game_id, name, round, counted) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT (event, tbl, game_id) DO UPDATE SET round=excluded.round, counted=excluded.counted",
                (event, table, game_id, g["name"], g["round"], int(g["counted"])),
            )
            self._bump({"type": "organiser", "event": event, "table": table, "game_id": game_id})
            return dict(g)

    def set_settings(self, event: str, settings: dict) -> None:
        """Store the organiser's standings settings for ``event`` (checked by the caller: assistant.table.standings)."""
        with self._cond:
            self.settings[event] = dict(settings)
            self.db.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"settings/{event}", json.dumps(settings, sort_keys=True))
            )
            self._bump({"type": "organiser", "event": event})

    def _bump(self, item: dict) -> None:
        self.last_n += 1
        item["received"] = self.clock()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('next_n', ?)", (str(self.last_n + 1),))
        self._feed.append((self.last_n, item))
        self._cond.notify_all()


def _setup_players(setup) -> list[str]:
    """The players' names of a set-up (``{"players": ["Ann", ...]}`` or ``[{"name": ...}]``), as given."""
    players = setup.get("players") if isinstance(setup, dict) else None
    out = []
    for p in players if isinstance(players, list) else []:
        name = p.get("name") if isinstance(p, dict) else p
        if isinstance(name, str):
            out.append(name)
    return out


def _newer(snap: dict, old: dict | None) -> bool:
    """A snapshot replaces ``old`` when it is newer by ``(last_seq, t)``."""
    return old is None or (snap["last_seq"], snap["t"]) > (old["last_seq"], old["t"])


def _natural(name: str) -> tuple:
    """``"Table 10"`` after ``"Table 9"``."""
    return tuple((0, int(x), "") if x.isdigit() else (1, 0, x.casefold()) for x in re.findall(r"\d+|\D+", name or ""))
