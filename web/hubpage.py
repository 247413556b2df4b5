"""The hub's page (Flask): every table's live score, the tables offline, the standings and each game's export.
``create_hub_app(archive, config)``; the program that feeds the archive from the broker is assistant.apps.hub_serve.

Same style and safety as the tablet (web.app): its CSS and script (``/static/app.css``, ``/static/app.js``), its
PIN model (web.security: viewing is open, changing needs the organiser's PIN and the CSRF token; the same
attempt limiter), its live updates (web.hub's update pump over the archive's changes: ``/events`` SSE, capped,
``/api/view`` for a page refused a stream). Game-neutral: it reads the archive (assistant.table.hubarchive) and
the standings (assistant.table.standings), never a game.

Pages: ``/`` (the live parts ``head``, ``tables``, ``standings``, ``games``, one section per event id; the
organiser's standings form, shown once unlocked), ``/game/<event>/<table>/<game id>`` (one game: its result and
the organiser's round and "counted" form). Data: ``/export/<event>/<table>/<game id>.json`` (the game as
archived, a download), ``/api/hub`` (everything the page shows, as JSON). Changes (POST, PIN and CSRF; a form
post is answered by a redirect with a one-line notice, JSON by JSON): ``/api/standings`` (rule, tie-breaks, round
length, place points of one event), ``/api/game`` (a game's round and whether it counts), ``/api/unlock``,
``/api/lock``.

Config keys:
  PIN_FILE       the organiser's PIN file (required; web.security)
  EVENT          the one event id shown (None: every event in the archive)
  BROKER_STATE   hook: ``callable() -> {"state": "connected" | "connecting" | "disconnected", "since", "problem",
                 "broker"}``: the hub's own connection, shown in the head; the page re-renders when it changes
  COALESCE_S     the pump renders at most once per this many seconds (default 0.1): changes in between are sent
                 together
  HEARTBEAT_S, MAX_STREAMS, MAX_STREAMS_PER_CLIENT   as the tablet's (web.hub)
"""

from __future__ import annotations

import json
import math
import re
import threading
import time

from flask import (
    Flask,
    Response,
    flash,
    get_flashed_messages,
    has_request_context,
    jsonify,
    redirect,
    render_template,
    request,
)
from flask import session as cookie

from assistant.errors import UserError
from assistant.table import hubmsg, standings
from assistant.table.hubarchive import HubArchive
from web import bodies, security
from web.chart import css_colour
from web.hub import MAX_STREAMS, MAX_STREAMS_PER_CLIENT, Hub, stream_response

PARTS = ("head", "tables", "standings", "games")
COALESCE_S = 0.1
DEFAULTS_KEY = "*"  # the settings every event without its own uses (the command line's)
_SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_GAME_ID = re.compile(r"[A-Za-z0-9._-]{1,100}")


class ArchiveFeed:
    """The archive's changes as web.hub's pump reads a session's events: ``events_since(n, timeout)`` gives
    ``[(change number, change)]``; a waiting call (the pump's) returns at most once per ``coalesce_s``, so a busy
    evening renders the page a few times a second, not once per message."""

    def __init__(self, archive: HubArchive, coalesce_s: float = COALESCE_S):
        self.archive = archive
        self.coalesce_s = coalesce_s
        self._last = 0.0

    @property
    def last_seq(self) -> int:
        return self.archive.last_n

    def events_since(self, seq: int, timeout: float | None = None) -> list[tuple[int, dict]]:
        changes = self.archive.changes_since(seq, timeout)
        if changes and timeout and self.coalesce_s > 0:
            wait = self._last + self.coalesce_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
                changes = self.archive.changes_since(seq, 0)
            self._last = time.monotonic()
        return changes

    def snapshot(self) -> dict:
        return {}  # the pump's page snapshot is unused: the parts are rendered from the archive


def settings_for(archive: HubArchive, event: str) -> tuple[standings.Settings, str]:
    """The standings settings of ``event`` and where they come from: ``"event"`` (chosen for it on the page),
    ``"default"`` (the command line's, for every event) or ``"built-in"``."""
    for key, origin in ((event, "event"), (DEFAULTS_KEY, "default")):
        doc = archive.settings.get(key)
        if doc is not None:
            try:
                return standings.Settings.from_json(doc), origin
            except UserError:
                continue
    return standings.Settings(), "built-in"


def _clock(t: float | None) -> str:
    return time.strftime("%H:%M", time.localtime(t)) if t else "?"


def _ago(t: float | None, now: float) -> str:
    if not t:
        return ""
    s = max(0, int(now - t))
    return f"{s} s" if s < 60 else f"{s // 60} min" if s < 3600 else f"{s // 3600} h {s % 3600 // 60:02d} min"


def _number(x) -> str:
    if x is None:
        return "–"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class HubPage:
    """What the hub's app serves: the archive, the update pump over it and the PIN store."""

    def __init__(self, app: Flask, archive: HubArchive, pins: security.PinStore):
        self.app = app
        self.archive = archive
        self.pins = pins
        self.limiter = security.AttemptLimiter()
        self.broker_state = app.config.get("BROKER_STATE") or (lambda: None)
        self._render_lock = threading.Lock()
        self.pump = Hub(
            ArchiveFeed(archive, float(app.config.get("COALESCE_S", COALESCE_S))),
            self.render_parts,
            heartbeat_s=float(app.config.get("HEARTBEAT_S", 15.0)),
            max_streams=int(app.config.get("MAX_STREAMS", MAX_STREAMS)),
            max_streams_per_client=int(app.config.get("MAX_STREAMS_PER_CLIENT", MAX_STREAMS_PER_CLIENT)),
            watch=self.watch_key,
        )

    def watch_key(self):
        """What changes the page without an archive change: the hub's broker connection, and the minute (the
        "offline for 12 min" lines)."""
        state = self.broker_state() or {}
        return (state.get("state"), state.get("problem"), int(time.time() // 60))

    def events(self) -> list[str]:
        event = self.app.config.get("EVENT")
        return [event] if event else self.archive.events_of() or [hubmsg.DEFAULT_EVENT]

    def view(self) -> dict:
        """Everything the page shows, per event: tables, games, standings (also ``/api/hub``)."""
        now = time.time()
        out = []
        for event in self.events():
            tables = self.archive.tables(event)
            games = self.archive.games(event)
            settings, origin = settings_for(self.archive, event)
            rows, rounds = standings.standings(games, settings)
            out.append(
                {
                    "event": event,
                    "tables": tables,
                    "games": games,
                    "settings": settings.to_json(),
                    "settings_from": origin,
                    "standings": [r.__dict__ for r in rows],
                    "rounds": rounds,
                    "offline": [t for t in tables if t["state"] == "offline"],
                }
            )
        return {"now": now, "broker": self.broker_state(), "events": out}

    def render_parts(self, _snap: dict | None = None) -> dict:
        """The live parts, from the archive (the pump's page snapshot is unused)."""
        with self._render_lock:
            v = self.view()
            with self.app.app_context():
                return {name: render_template(f"hub/{name}.html", v=v) for name in PARTS}


def create_hub_app(archive: HubArchive, config: dict | None = None) -> Flask:
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.request_class = bodies.Request
    app.config.update(
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_NAME="tablewatch-hub",
        JSON_SORT_KEYS=False,
    )
    app.config.update(config or {})
    if not app.config.get("PIN_FILE"):
        raise UserError("the hub's page needs a PIN file (config PIN_FILE); 'tablewatch hub' sets one up.")
    pins = security.PinStore(app.config["PIN_FILE"])
    if not pins.is_set:
        raise UserError(f"no PIN is set in {pins.path}. Start the hub with 'tablewatch hub' to choose one.")
    app.secret_key = pins.secret
    app.jinja_env.globals.update(
        css_colour=css_colour,
        clock=_clock,
        ago=_ago,
        number=_number,
        parts=PARTS,
        rules=standings.RULES,
        tie_breaks=standings.TIE_BREAKS,
    )
    hp = HubPage(app, archive, pins)
    app.extensions["tablewatch_hub"] = hp

    @app.before_request
    def _guard():
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
        if not security.csrf_ok(cookie, sent):
            return _refuse("The page is out of date (security token missing or wrong). Reload the page and try again.", "reload")
        if request.endpoint not in ("unlock", "lock") and not security.is_unlocked(cookie, hp.pins):
            return _refuse("Enter the organiser's PIN (the PIN button, top right) to change anything.", "pin")
        return None

    def _refuse(text: str, need: str):
        if request.is_json or request.endpoint in ("unlock", "lock"):
            return jsonify(error=text, need=need), 403
        flash(text, "error")
        return redirect(_back(), code=303)

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        )
        return resp

    @app.errorhandler(UserError)
    def _user_error(exc):
        if request.method == "POST" and not request.is_json:
            flash(str(exc), "error")
            return redirect(_back(), code=303)
        return jsonify(error=str(exc)), 400

    @app.errorhandler(404)
    def _not_found(exc):
        return jsonify(error="No such page on the hub. The tables are at /."), 404

    @app.context_processor
    def _ctx():
        if not has_request_context():
            return {}
        return {
            "csrf_token": security.csrf_token(cookie),
            "unlocked": security.is_unlocked(cookie, hp.pins),
            "notices": get_flashed_messages(with_categories=True),
        }

    # ---- pages -------------------------------------------------------------------------------------------------
    @app.get("/")
    def page():
        v = hp.view()
        live = json.loads(hp.pump.parts)
        forms = {e["event"]: e for e in v["events"]}
        return render_template("hub/page.html", title="Hub", live=live, v=v, forms=forms)

    @app.get("/game/<event>/<table>/<game_id>")
    def game_page(event, table, game_id):
        g = _game_or_404(event, table, game_id)
        if isinstance(g, Response):
            return g
        return render_template(
            "hub/game.html", title=f"{g['name']} · {game_id}", g=g, event=event, missing=hp.archive.missing(event, table)
        )

    @app.get("/export/<event>/<table>/<game_id>.json")
    def export(event, table, game_id):
        g = _game_or_404(event, table, game_id)
        if isinstance(g, Response):
            return g
        body = json.dumps(hp.archive.export(event, table, game_id), indent=1)
        resp = Response(body + "\n", mimetype="application/json")
        resp.headers["Content-Disposition"] = f'attachment; filename="{event}-{table}-{game_id}.json"'
        return resp

    def _game_or_404(event, table, game_id):
        if not (_SLUG.fullmatch(event) and _SLUG.fullmatch(table) and _GAME_ID.fullmatch(game_id)):
            return _missing(f"{event}/{table}/{game_id} is not an event id, table slug and game id.")
        g = hp.archive.game(event, table, game_id)
        if g is None:
            return _missing(f"the hub has no game {game_id} of table {table} in event {event}.")
        return g

    def _missing(text: str):
        resp = jsonify(error=f"{text[:200]} The games are listed at /.")
        resp.status_code = 404
        return resp

    # ---- live data ---------------------------------------------------------------------------------------------
    @app.get("/events")
    def events():
        return stream_response(hp.pump)

    @app.get("/api/view")
    def api_view():
        resp = Response(hp.pump.parts, mimetype="application/json")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.get("/api/hub")
    def api_hub():
        return jsonify(hp.view() | {"seq": hp.pump.seq})

    @app.get("/api/whoami")
    def whoami():
        return jsonify(unlocked=security.is_unlocked(cookie, hp.pins), csrf_token=security.csrf_token(cookie))

    # ---- the organiser -----------------------------------------------------------------------------------------
    @app.post("/api/standings")
    def api_standings():
        body = _body()
        event = _event_of(body)
        tb = body.get("tie_breaks")
        if tb is None:  # the form: one select per place in the order, blanks left out
            tb = [body.get(f"tie_break_{i}") for i in range(1, len(standings.TIE_BREAKS) + 1)]
            tb = [t for t in tb if t]
        minutes = body.get("round_minutes", standings.DEFAULT_ROUND_MINUTES)
        if isinstance(minutes, str):
            minutes = _int(minutes, "the round length in minutes")
        settings = standings.Settings.from_json(
            {
                "rule": body.get("rule", standings.DEFAULT_RULE),
                "tie_breaks": tb,
                "round_minutes": minutes,
                "place_points": body.get("place_points"),
            }
        )
        hp.archive.set_settings(event, settings.to_json())
        return _done(f"Standings of {event}: {settings.rule}, tie-breaks {', '.join(settings.tie_breaks) or 'none'}.")

    @app.post("/api/game")
    def api_game():
        body = _body()
        event = _event_of(body)
        table, game_id = str(body.get("table", "")), str(body.get("game_id", ""))
        rnd = body.get("round", "keep")
        if isinstance(rnd, str) and rnd != "keep":
            rnd = _int(rnd, "the round") if rnd.strip() else None
        counted = body.get("counted")
        if not request.is_json:  # an unticked checkbox sends nothing
            counted = body.get("counted") == "on"
        if counted is not None and not isinstance(counted, bool):
            raise UserError("'counted' is true or false.")
        hp.archive.set_game(event, table, game_id, round=rnd, counted=counted)
        where = "slotted by start time" if rnd is None else f"round {rnd}" if rnd != "keep" else "round unchanged"
        return _done(f"Game {game_id} at {table}: {where}, {'counted' if counted is not False else 'left out'}.")

    def _body() -> dict:
        if request.is_json:
            body = request.get_json()
            if not isinstance(body, dict):
                raise UserError("send a JSON object.")
            return body
        return request.form.to_dict()

    def _event_of(body: dict) -> str:
        event = body.get("event") or app.config.get("EVENT") or hubmsg.DEFAULT_EVENT
        if not isinstance(event, str) or not _SLUG.fullmatch(event):
            raise UserError(f"event id {str(event)[:40]!r} is not one the hub follows.")
        return event

    def _done(text: str):
        hp.pump.refresh()
        if request.is_json:
            return jsonify(ok=True, message=text)
        flash(text, "ok")
        return redirect(_back(), code=303)

    @app.post("/api/unlock")
    def unlock():
        pin = _body().get("pin")
        if not isinstance(pin, str) or not pin.strip():
            return jsonify(error="Type the PIN."), 400
        who = security.client_key(request.remote_addr)
        wait = hp.limiter.take(who)
        if wait > 0:
            resp = jsonify(error=f"Too many PIN attempts from this device. Wait {math.ceil(wait)} s and try again.")
            resp.headers["Retry-After"] = str(math.ceil(wait))
            return resp, 429
        if not hp.pins.verify(pin):
            return jsonify(error="Wrong PIN."), 403
        hp.limiter.succeeded(who)
        security.unlock(cookie, hp.pins)
        return jsonify(ok=True, unlocked=True)

    @app.post("/api/lock")
    def lock():
        security.lock(cookie, hp.pins)
        return jsonify(ok=True, unlocked=False)

    return app


def _int(text: str, what: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise UserError(f"{what} {str(text)[:20]!r} is not a whole number.") from None


def _back() -> str:
    """Where a form post returns: the page it came from on this server (a game's page or the hub page)."""
    ref = request.headers.get("Referer") or ""
    path = ref.split("://", 1)[-1].partition("/")[2]
    return "/" + path if path.startswith("game/") and re.fullmatch(r"game/[a-z0-9-]+/[a-z0-9-]+/[A-Za-z0-9._-]+", path) else "/"
