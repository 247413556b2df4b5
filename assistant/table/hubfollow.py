"""Following the game log for a hub: which hub messages a table sends next, and the acknowledged seq it keeps.

Owns the table side's decisions, without the network (the MQTT client is ``assistant.apps.hub_publish``): reading
the game log (read only, its own SQLite connection: publishing never writes the log) for the events after a seq,
in seq order, each preceded by its game's setup the first time; the table's snapshot message (``hubmsg.summary``
of the session's snapshot, from a caller's live session or else the game resumed read-only from the log); and the
**acknowledged seq**: the highest seq up to which the broker acknowledged every event, kept durably beside the log
in ``<log>.hub-<key digest>.json`` (``assistant.jsonfile.write_atomic``: whole or not at all), one file per hub
(broker, event id, table), never in the log's own tables.

    f = Follower("games.sqlite", HubKey("mqtt://h:1883", "default", "Table 7"))
    batch = f.next(limit=100)           # [(Message, "setup" | "event", game id | seq), ...]; the cursor moves
    f.acknowledged(seq)                 # the broker acknowledged every event up to seq
    f.save()                            # the acknowledged seq to its file (throttled by the caller)
    f.rewind()                          # the cursor back to the acknowledged seq (a new process does this at start)

Where a table starts with a hub it never published to: after the last event before its newest game (a table
joining a café night sends its current game, not the years before); with no game yet, from the first event.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from assistant.errors import UserError
from assistant.jsonfile import read_json, write_atomic
from assistant.table import hubmsg
from assistant.table.eventlog import EventLog
from assistant.table.session import GameSession

STATE_FORMAT = "tablewatch.hub-state/1"
SETUPS_KEPT = 50  # game ids whose setup the broker acknowledged, newest last
LOOK_KINDS = ("Observation",)  # events that never change the snapshot by themselves (the tracker's events do)
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class Broker:
    """Where the hub's broker listens: ``mqtt://host[:1883]`` or ``mqtts://host[:8883]`` (TLS)."""

    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker(url: str) -> Broker:
    """A broker URL; ``UserError`` saying what is wrong and what to give for anything else."""
    example = "give it as mqtt://HOST:1883 (or mqtts://HOST:8883 for TLS), e.g. mqtt://192.168.1.20:1883"
    if not isinstance(url, str) or not url.strip():
        raise UserError(f"no hub broker given: {example}.")
    text = url.strip()
    if "://" not in text:
        raise UserError(f"hub broker {text!r} has no scheme: {example}.")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise UserError(f"hub broker {text!r} is not a URL ({exc}): {example}.") from None
    if parts.scheme not in DEFAULT_PORTS:
        raise UserError(f"hub broker {text!r}: scheme {parts.scheme!r} is not mqtt or mqtts: {example}.")
    if not parts.hostname:
        raise UserError(f"hub broker {text!r} names no host: {example}.")
    if parts.username or parts.password:
        raise UserError(
            f"hub broker {text!r}: give the user and password apart (--hub-user, --hub-password-file), not in the URL."
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise UserError(f"hub broker {text!r} has a path or query; {example}.")
    return Broker(parts.hostname, port or DEFAULT_PORTS[parts.scheme], parts.scheme == "mqtts")


@dataclass(frozen=True)
class HubSettings:
    """How a table joins a hub: the broker, the table's name, the event id, the broker user and password, the CA
    certificate (TLS with ``mqtts://`` or a CA)."""

    broker: Broker
    name: str
    event: str = hubmsg.DEFAULT_EVENT
    user: str | None = None
    password: str | None = None
    ca: str | None = None

    @property
    def tls(self) -> bool:
        return self.broker.tls or self.ca is not None

    @property
    def key(self) -> "HubKey":
        return HubKey(f"{self.broker.host}:{self.broker.port}", self.event, self.name)


def settings(
    url: str,
    name: str | None,
    event: str | None = None,
    user: str | None = None,
    password_file: str | None = None,
    ca: str | None = None,
    password: str | None = None,
) -> HubSettings:
    """Hub settings from the command line or the tablet; ``UserError`` with what to fix for bad ones."""
    broker = parse_broker(url)
    if not name or not str(name).strip():
        raise UserError('publishing to a hub needs the table\'s name: add --table "Table 7" (or set it in Setup).')
    try:
        hubmsg.table_slug(name)
        hubmsg.event_slug(event or hubmsg.DEFAULT_EVENT)
    except ValueError as exc:
        raise UserError(f"{exc}.") from None
    if password_file:
        path = Path(password_file).expanduser()
        try:
            password = path.read_text(encoding="utf-8").splitlines()[0].strip() if path.stat().st_size else ""
        except FileNotFoundError:
            raise UserError(f"hub password file {path} not found. Put the table's broker password in it (one line).") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"hub password file {path} cannot be read ({getattr(exc, 'strerror', None) or exc}).") from None
        if not password:
            raise UserError(f"hub password file {path} is empty. Put the table's broker password in it (one line).")
    if password and not user:
        raise UserError("a hub password needs its user: add --hub-user NAME.")
    if ca is not None and not Path(ca).expanduser().is_file():
        raise UserError(f"hub CA certificate {ca} not found. Give the organiser's CA file (PEM) to --hub-ca.")
    return HubSettings(
        broker,
        str(name).strip(),
        hubmsg.event_slug(event or hubmsg.DEFAULT_EVENT),
        user or None,
        password or None,
        str(Path(ca).expanduser()) if ca else None,
    )


SETUP_FILE = "setup.json"  # in DATA_DIR: the tablet's Setup choices; its "hub" key is {url, table, event, user}
PASSWORD_FILE = "hub-password"  # in DATA_DIR, mode 0600: the broker password given in Setup


def from_setup(data_dir) -> HubSettings | None:
    """The hub set in the tablet's Setup (``DATA_DIR/setup.json``'s ``hub``, the password in
    ``DATA_DIR/hub-password``), or None when none is set; ``UserError`` for settings that cannot be used."""
    path = Path(data_dir) / SETUP_FILE
    if not path.is_file():
        return None
    doc = read_json(path)
    hub = doc.get("hub") if isinstance(doc, dict) else None
    if not isinstance(hub, dict) or not hub.get("url"):
        return None
    secret = Path(data_dir) / PASSWORD_FILE
    return settings(
        hub.get("url"),
        hub.get("table"),
        hub.get("event"),
        hub.get("user"),
        str(secret) if hub.get("user") and secret.is_file() else None,
    )


def add_options(parser, table: bool = False) -> None:
    """Add ``--hub``, ``--event``, ``--hub-user``, ``--hub-password-file``, ``--hub-ca`` (and ``--table`` when
    the command has none: ``tablewatch live`` has its own, which names the table)."""
    parser.add_argument(
        "--hub",
        metavar="URL",
        help="publish the game to a hub's MQTT broker: mqtt://HOST:1883 or mqtts://HOST:8883 (TLS); needs --table (docs/hub.md)",
    )
    if table:
        parser.add_argument("--table", help='the table\'s name at the hub, e.g. "Table 7"')
    parser.add_argument("--event", help=f"the organiser's event id at the hub (default {hubmsg.DEFAULT_EVENT})")
    parser.add_argument("--hub-user", help="the table's user on the broker")
    parser.add_argument("--hub-password-file", help="a file holding the table's broker password (one line)")
    parser.add_argument("--hub-ca", help="the organiser's CA certificate (PEM): connect with TLS")


def settings_from_args(args) -> HubSettings | None:
    """The hub settings the command line gives, or None without ``--hub``."""
    if not getattr(args, "hub", None):
        if getattr(args, "hub_user", None) or getattr(args, "hub_password_file", None) or getattr(args, "hub_ca", None):
            raise UserError("--hub-user, --hub-password-file and --hub-ca go with --hub mqtt://HOST:1883.")
        return None
    return settings(
        args.hub, getattr(args, "table", None), getattr(args, "event", None), args.hub_user, args.hub_password_file, args.hub_ca
    )


@dataclass(frozen=True)
class HubKey:
    """Which hub a table publishes to: the broker (``host:port``), the event id and the table's name."""

    broker: str
    event: str
    name: str

    @property
    def table(self) -> str:
        return hubmsg.table_slug(self.name)

    @property
    def event_slug(self) -> str:
        return hubmsg.event_slug(self.event)

    @property
    def text(self) -> str:
        return f"{self.broker}/{self.event_slug}/{self.table}"

    def state_path(self, log_path) -> Path:
        digest = hashlib.sha1(self.text.encode("utf-8")).hexdigest()[:12]
        return Path(f"{log_path}.hub-{digest}.json")


class Follower:
    """Reads the game log after a cursor and turns what it finds into hub messages. Not thread-safe: one thread
    (the publisher's) uses it."""

    def __init__(self, log_path, key: HubKey, snapshot_of: Callable[[str], dict | None] | None = None):
        self.log_path = Path(log_path)
        self.key = key
        self.event, self.name, self.table = key.event_slug, key.name, key.table  # a bad name fails here, at start
        self.state_path = key.state_path(self.log_path)
        self.snapshot_of = snapshot_of or (lambda game_id: None)
        self._db: sqlite3.Connection | None = None
        self._reader: EventLog | None = None
        self._resumed: tuple | None = None  # (game id, last seq, snapshot) of the read-only resume
        self.acked = 0
        self.setups: list[str] = []  # games whose setup the broker acknowledged
        self._sent_setups: set[str] = set()  # games whose setup went out since the cursor was last set
        self.changed = True  # an event that may change the snapshot (not a look) went out since the last snapshot
        self._saved = (None, None)
        self._load()
        self.cursor = self.acked

    # ---- the acknowledged seq --------------------------------------------------------------------------------
    def _load(self) -> None:
        if not self.state_path.is_file():
            self.acked = self._start_point()
            return
        doc = read_json(self.state_path, fix=f"Delete {self.state_path} to publish the newest game again.")
        ok = isinstance(doc, dict) and doc.get("format") == STATE_FORMAT and isinstance(doc.get("acked"), int)
        if not ok or doc.get("hub") != self.key.text:
            raise UserError(
                f"{self.state_path} is not this hub's state ({STATE_FORMAT}, {self.key.text}). Delete it "
                "to publish the newest game again."
            )
        self.acked = max(0, doc["acked"])
        self.setups = [g for g in doc.get("setups") or [] if isinstance(g, str)][-SETUPS_KEPT:]
        self._saved = (self.acked, tuple(self.setups))

    def _start_point(self) -> int:
        """After the last event before the newest game; 0 without a log or a game."""
        db = self._connect()
        if db is None:
            return 0
        row = db.execute("SELECT id FROM games ORDER BY created DESC, rowid DESC LIMIT 1").fetchone()
        if row is None:
            return 0
        first = db.execute("SELECT MIN(seq) FROM events WHERE game_id = ?", (row[0],)).fetchone()[0]
        if first is None:
            return db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        return first - 1

    def acknowledged(self, seq: int | None = None, setup_of: str | None = None) -> None:
        """The broker acknowledged every event up to ``seq`` (or the setup of game ``setup_of``)."""
        if seq is not None and seq > self.acked:
            self.acked = seq
        if setup_of is not None and setup_of not in self.setups:
            self.setups = (self.setups + [setup_of])[-SETUPS_KEPT:]

    def save(self) -> bool:
        """Write the acknowledged seq beside the log when it changed; False (said by the caller) when it cannot."""
        now = (self.acked, tuple(self.setups))
        if now == self._saved:
            return True
        doc = {"format": STATE_FORMAT, "hub": self.key.text, "acked": self.acked, "setups": self.setups, "t": time.time()}
        try:
            write_atomic(self.state_path, json.dumps(doc) + "\n")
        except OSError:
            return False
        self._saved = now
        return True

    def rewind(self) -> None:
        """Send again from the acknowledged seq (what a new process does)."""
        self.cursor = self.acked
        self._sent_setups.clear()

    # ---- reading the log -------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        if not self.log_path.is_file():
            return None
        try:
            db = sqlite3.connect(f"file:{self.log_path}?mode=ro", uri=True, check_same_thread=False, timeout=2.0)
            db.execute("SELECT 1 FROM events LIMIT 1").fetchall()
        except sqlite3.DatabaseError:
            return None  # no tables yet, or a log the game itself reports on: tried again at the next call
        self._db = db
        return db

    def next(self, limit: int = 100) -> list[tuple[hubmsg.Message, str, str | int]]:
        """The next messages after the cursor, in seq order: ``(message, "event", seq)``, each event preceded by
        ``(message, "setup", game id)`` the first time its game comes (unless the broker acknowledged that setup
        before). The cursor moves past them."""
        db = self._connect()
        if db is None or limit <= 0:
            return []
        try:
            rows = db.execute(
                "SELECT seq, game_id, t, kind, payload FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (self.cursor, limit)
            ).fetchall()
        except sqlite3.DatabaseError:
            return []
        out: list[tuple[hubmsg.Message, str, str | int]] = []
        for seq, game_id, t, kind, payload in rows:
            if game_id not in self._sent_setups and game_id not in self.setups:
                msg = self.setup_message(game_id)
                if msg is not None:
                    out.append((msg, "setup", game_id))
                self._sent_setups.add(game_id)
            out.append((hubmsg.event(self.event, self.name, game_id, seq, t, kind, json.loads(payload)), "event", seq))
            self.cursor = seq
            self.changed = self.changed or kind not in LOOK_KINDS
        return out

    def setup_message(self, game_id: str) -> hubmsg.Message | None:
        db = self._connect()
        row = (
            db.execute("SELECT created, game, title, setup FROM games WHERE id = ?", (game_id,)).fetchone()
            if db is not None
            else None
        )
        if row is None:
            return None
        return hubmsg.setup(self.event, self.name, game_id, row[1], row[2], row[0], json.loads(row[3]))

    def newest_game(self) -> str | None:
        db = self._connect()
        if db is None:
            return None
        row = db.execute("SELECT id FROM games ORDER BY created DESC, rowid DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def status_message(self, state: str, since: float | None = None) -> hubmsg.Message:
        return hubmsg.status(self.event, self.name, state, time.time() if since is None else since)

    def snapshot_message(self) -> hubmsg.Message | None:
        """The table's snapshot: its newest game, from the caller's session (``snapshot_of``) or resumed read-only
        from the log (moves only: ``GameSession.resume(rerun=False)``); None before any game."""
        self.changed = False
        game_id = self.newest_game()
        if game_id is None:
            return None
        snap = self.snapshot_of(game_id)
        last = int(snap.get("seq") or 0) if snap is not None else 0
        if snap is None:
            snap, last = self._resume(game_id)
        if snap is None:
            return None
        return hubmsg.snapshot(self.event, self.name, game_id, snap.get("game"), last, time.time(), hubmsg.summary(snap))

    def _resume(self, game_id: str) -> tuple[dict | None, int]:
        """The snapshot of ``game_id`` as the log holds it now, and the log's last seq (cached until it grows)."""
        db = self._connect()
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0] if db is not None else 0
        if self._resumed is not None and self._resumed[:2] == (game_id, last):
            return self._resumed[2], last
        try:
            if self._reader is None:
                self._reader = EventLog(self.log_path, create=False, read_only=True)
            snap = GameSession.resume(self._reader, game_id=game_id, rerun=False).snapshot()
        except (UserError, sqlite3.DatabaseError, KeyError, ValueError):
            return None, last  # a game this version cannot read: its events still go out
        self._resumed = (game_id, last, snap)
        return snap, last

    def close(self) -> None:
        for thing in (self._db, self._reader):
            if thing is not None:
                try:
                    thing.close()
                except (sqlite3.Error, OSError):
                    pass
        self._db = self._reader = None
