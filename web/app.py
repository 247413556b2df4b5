"""The Flask app: pages, the live SSE stream, the JSON API and the PIN/CSRF guard. ``create_app(session, config)``.

Pages (open to anyone on the LAN): ``/`` scoreboard, ``/log`` move log, ``/board`` board image, ``/results``
final results, ``/setup`` setup wizard, ``/trace`` layout tracer. Live data: ``/events`` (SSE, see web.hub;
capped per client and in all, a refused stream gets 429/503 with ``Retry-After`` and a one-line JSON reason),
``/api/view`` (the live parts as the stream's ``view`` message: what a refused page polls), ``/api/snapshot``
(the page's snapshot as JSON, web.adapter, the game's own part kept as ``raw``), ``/board.jpg`` (the latest board image).

Changing anything is a POST that needs the PIN (``/api/unlock``) and the CSRF token (header ``X-CSRF-Token``):
``/api/undo``, ``/api/correct``, ``/api/confirm``, ``/api/tablet/<action>`` (a tap the game turns into moves:
Wendake's ``ghost_card``, the solo Ghost's revealed mask card) here, the setup and tracer APIs in
web.setup_routes and web.trace_routes, ``/api/adapt`` (learning the table) and the board image of one board
(``/board.jpg?board=B&region=R``) in web.learn_routes.

Config keys (``create_app(session, config)``):
  PIN_FILE       where the hashed PIN and session secret live (required; web.security)
  DATA_DIR       a folder the server owns: user layouts, colour profile, setup choices, traced photos
  DB_PATH        the game database a new game from the wizard is created in
  BOARD_IMAGE    hook: ``callable() -> JPEG bytes | None``, the latest board image: the rectified boards with
                 detections and regions drawn (the pipeline provides it); without it the session's
                 ``board_image()`` method is used if it has one
  CAMERA_FRAME   hook: ``callable() -> BGR numpy frame | None``, the camera's latest frame, for the setup
                 wizard's live camera check and colour calibration
  NEW_GAME       hook: ``callable(params: dict) -> session``: start a game (default: GameSession.create)
  TABLE_PROFILE  the live table's ``assistant.table.profile.TableProfile``: the page shows its learning status
                 and set-up check (web.learning; the status file is watched, so the page follows it live)
  ADAPT_NOW      hook: ``callable() -> one line``: start an adapt in the background (``POST /api/adapt``, PIN);
                 without it the page offers no adapt
  BOARD_JPEG     hook: ``callable(board: str, regions: list[str]) -> JPEG bytes | None``: the board image of one
                 board with those regions marked (``/board.jpg?board=B&region=R``, web.learn_routes); without it
                 the set-up check and a NeedsConfirmation show the whole board image
  HEARTBEAT_S    SSE heartbeat interval (default 15)
  MAX_STREAMS, MAX_STREAMS_PER_CLIENT   SSE stream caps (defaults in web.hub; web.server.make_server sets
                 MAX_STREAMS from its thread count)
The app's runtime object is ``app.extensions["tablewatch"]`` (a ``Tablewatch``): ``.session``, ``.hub`` and
``.on_new_session`` (callbacks ``f(session)`` run when the wizard starts a new game, so the camera pipeline
can feed the new session).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from flask import Flask, Response, has_request_context, jsonify, render_template, request
from flask import session as cookie

from assistant.errors import UserError
from web import adapter, bodies, learn_routes, learning, security, setup_routes, trace_routes
from web.chart import css_colour, score_chart
from web.hub import MAX_STREAMS, MAX_STREAMS_PER_CLIENT, Hub, stream_response

MAX_UPLOAD_MB = 25
LIVE_PARTS = ("alerts", "turn", "scoreboard", "log", "results")


class Tablewatch:
    """What the app serves: the game session (swappable by the wizard), its hub and the PIN store."""

    def __init__(self, app: Flask, session, pins: security.PinStore):
        self.app = app
        self.pins = pins
        self.limiter = security.AttemptLimiter()
        self.on_new_session: list = []
        self._first_session = session
        self.hub = Hub(session, self.render_parts, heartbeat_s=float(app.config.get("HEARTBEAT_S", 15.0)),
                       max_streams=int(app.config.get("MAX_STREAMS", MAX_STREAMS)),
                       max_streams_per_client=int(app.config.get("MAX_STREAMS_PER_CLIENT", MAX_STREAMS_PER_CLIENT)),
                       watch=lambda: learning.watch_key(app.config))

    @property
    def session(self):
        return self.hub.session

    def replace_session(self, new) -> None:
        self.hub.replace(new)
        self.watch_log(new)
        for f in self.on_new_session:
            f(new)

    def watch_log(self, session) -> None:
        """A game log's problem that starts or clears without an event (the disk freed, the events written by its
        retry timer: assistant.table.eventlog) re-renders the page now."""
        listeners = getattr(getattr(session, "log", None), "listeners", None)
        if isinstance(listeners, list):
            listeners.append(self.hub.refresh)

    def with_learning(self, snap: dict) -> dict:
        """The page's snapshot with what the tablet shows about learning the table (``learning``, web.learning)
        and whether one board's picture can be drawn (``board_crops``: the BOARD_JPEG hook)."""
        hub = getattr(self, "hub", None)  # the hub renders once while it is being made
        session = hub.session if hub is not None else self._first_session
        learnt = learning.view(self.app.config, adapter.setup_check(session), snap.get("game_id"))
        pics = [p for a in snap.get("alerts") or [] for p in a.get("pictures") or []]
        pics += (learnt.get("setup_check") or {}).get("pictures") or [] if learnt else []
        titles = adapter.board_titles(session, pics) if pics else {}
        for p in pics:
            p["title"] = titles.get(p["board"], p["board"])
        return snap | {"learning": learnt, "board_crops": callable(self.app.config.get("BOARD_JPEG"))}

    def render_parts(self, snap: dict) -> dict:
        """The live parts rendered from the page's snapshot (web.adapter.snapshot)."""
        snap = self.with_learning(snap)
        with self.app.app_context():
            return {name: render_template(f"parts/{name}.html", v=snap, chart=_chart_for(snap)) for name in LIVE_PARTS}


def _chart_for(snap: dict) -> str:
    if not snap.get("finished") and not snap.get("score_by_year"):
        return ""
    colours = {p["name"]: p["colour"] for p in snap["players"]}
    return score_chart(snap.get("score_by_year") or {}, colours)


def create_app(session, config: dict | None = None) -> Flask:
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.request_class = bodies.Request  # JSON bodies: one-line 400s, never a RecursionError 500 (web.bodies)
    app.config.update(MAX_CONTENT_LENGTH=MAX_UPLOAD_MB * 1024 * 1024, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_HTTPONLY=True, JSON_SORT_KEYS=False)
    app.config.update(config or {})
    if not app.config.get("PIN_FILE"):
        raise UserError("the web app needs a PIN file (config PIN_FILE); 'tablewatch serve' sets one up.")
    pins = security.PinStore(app.config["PIN_FILE"])
    if not pins.is_set:
        raise UserError(f"no PIN is set in {pins.path}. Start the server with 'tablewatch serve' to choose one.")
    app.secret_key = pins.secret
    data_dir = Path(app.config.get("DATA_DIR") or Path(app.config["PIN_FILE"]).parent)
    app.config["DATA_DIR"] = str(data_dir)
    app.jinja_env.globals.update(css_colour=css_colour, parts=LIVE_PARTS, board_src=learning.board_src)
    tw = Tablewatch(app, session, pins)
    tw.watch_log(session)
    app.extensions["tablewatch"] = tw

    # ---- guard ---------------------------------------------------------------------------------------------
    @app.before_request
    def _guard():
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
        if not security.csrf_ok(cookie, sent):
            return jsonify(error="The page is out of date (security token missing or wrong). Reload the page and try again.", need="reload"), 403
        if request.endpoint not in ("unlock", "lock") and not security.is_unlocked(cookie, tw.pins):
            return jsonify(error="Enter the PIN to change anything.", need="pin"), 403
        return None

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
                                "script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
        return resp

    @app.errorhandler(UserError)
    def _user_error(exc):
        return jsonify(error=str(exc)), 400

    @app.errorhandler(413)
    def _too_big(exc):
        return jsonify(error=f"The upload is too big; the limit is {MAX_UPLOAD_MB} MB. Send a smaller photo."), 413

    @app.context_processor
    def _ctx():
        if not has_request_context():  # the hub renders live parts outside any request
            return {}
        return {"csrf_token": security.csrf_token(cookie), "unlocked": security.is_unlocked(cookie, tw.pins)}

    def page(template: str, **kw):
        snap = tw.with_learning(adapter.snapshot(tw.session))
        return render_template(template, v=snap, chart=_chart_for(snap), live=json.loads(tw.hub.parts), **kw)

    # ---- pages ---------------------------------------------------------------------------------------------
    @app.get("/")
    def scoreboard():
        return page("scoreboard.html", title="Score")

    @app.get("/log")
    def move_log():
        return page("log.html", title="Moves")

    @app.get("/board")
    def board():
        return page("board.html", title="Board image")

    @app.get("/results")
    def results():
        return page("results.html", title="Results")

    # ---- live data -----------------------------------------------------------------------------------------
    @app.get("/events")
    def events():
        return stream_response(tw.hub, "; close other Tablewatch tabs to get live updates back")

    @app.get("/api/view")
    def api_view():
        """The page's live parts as the stream's ``view`` message carries them: what a page refused a stream polls."""
        resp = Response(tw.hub.parts, mimetype="application/json")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.get("/api/snapshot")
    def api_snapshot():
        snap = tw.with_learning(adapter.snapshot(tw.session))
        # ``raw`` stays: a game's figures the page's snapshot does not normalise (Iwari's scorings, deck, display)
        return jsonify(snap | {"seq": tw.hub.seq, "epoch": tw.hub.epoch})

    @app.get("/api/whoami")
    def whoami():
        return jsonify(unlocked=security.is_unlocked(cookie, tw.pins), csrf_token=security.csrf_token(cookie))

    @app.get("/board.jpg")
    def board_jpg():
        """The board image; with ``?board=B&region=R...`` and the BOARD_JPEG hook, board B's alone with regions R
        marked (web.learn_routes)."""
        if request.args.get("board") is not None and callable(app.config.get("BOARD_JPEG")):
            return learn_routes.one_board_jpeg(app.config["BOARD_JPEG"])
        hook = app.config.get("BOARD_IMAGE") or getattr(tw.session, "board_image", None)
        data = hook() if callable(hook) else None
        if not data:
            return Response("No board image yet: the camera has not read a settled table.", status=404, mimetype="text/plain")
        resp = Response(bytes(data), mimetype="image/jpeg")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    # ---- PIN -----------------------------------------------------------------------------------------------
    @app.post("/api/unlock")
    def unlock():
        pin = _json_body().get("pin") if request.is_json else request.form.get("pin")
        if not isinstance(pin, str) or not pin.strip():
            return jsonify(error="Type the PIN."), 400
        who = security.client_key(request.remote_addr)
        wait = tw.limiter.take(who)  # counted before the (slow) check, so parallel guesses cannot all be checked
        if wait > 0:
            resp = jsonify(error=f"Too many PIN attempts from this device. Wait {math.ceil(wait)} s and try again.")
            resp.headers["Retry-After"] = str(math.ceil(wait))
            return resp, 429
        if not tw.pins.verify(pin):
            return jsonify(error="Wrong PIN."), 403
        tw.limiter.succeeded(who)
        security.unlock(cookie, tw.pins)
        return jsonify(ok=True, unlocked=True)

    @app.post("/api/lock")
    def lock():
        security.lock(cookie, tw.pins)
        return jsonify(ok=True, unlocked=False)

    # ---- corrections ---------------------------------------------------------------------------------------
    @app.post("/api/undo")
    def api_undo():
        adapter.undo(tw.session)
        return jsonify(ok=True)

    @app.post("/api/correct")
    def api_correct():
        moves = parse_moves(_json_body().get("moves"), adapter.game_of(tw.session))
        adapter.correct(tw.session, moves)
        return jsonify(ok=True)

    @app.post("/api/confirm")
    def api_confirm():
        index = _json_body().get("index")
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise UserError("'index' must be the number (0, 1, ...) of the move to confirm.")
        adapter.confirm(tw.session, index)
        return jsonify(ok=True)

    # ---- a tap the game turns into moves (Wendake: the Ghost's mask card, W-SOLO-8) --------------------------------
    @app.post("/api/tablet/<action>")
    def api_tablet(action):
        adapter.tablet_action(tw.session, action, _json_body())
        return jsonify(ok=True)

    app.register_blueprint(setup_routes.bp)
    app.register_blueprint(trace_routes.bp)
    app.register_blueprint(learn_routes.bp)
    return app


def _json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise UserError("send a JSON object (Content-Type: application/json).")
    return body


def parse_moves(value, game=None) -> list[dict]:
    """A correction's moves: a list of the game's move objects (JSON), each checked with the game's
    ``move_from_json`` (``game``: the registered ``Game`` the session plays; None: no game yet, nothing to check)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise UserError(f"the moves are not valid JSON: {exc.msg} at line {exc.lineno}.") from None
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not value:
        raise UserError('give the moves that really happened as a JSON list, e.g. [{"type": "harvest"}].')
    if len(value) > 50:
        raise UserError("a correction holds at most 50 moves.")
    for i, m in enumerate(value):
        if game is None:
            break
        try:
            game.move_from_json(m)
        except (ValueError, TypeError, KeyError) as exc:
            raise UserError(f"move {i + 1}: {exc}") from None
    return value
