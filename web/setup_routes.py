"""The setup wizard: a new game, the camera check with live feedback, colour calibration and the layout choice.

The game's choices (player counts, colours, its own options, its boards) and the check of the game form come from
the game through the table core (``Game.setup_options``, ``Game.parse_setup``), never from a game package.

Everything here writes into the server's DATA_DIR under fixed names (never a path from the client):
``camera.json`` is read if present (``tablewatch calibrate camera``), ``colours.json`` is written by the colour
step, ``setup.json`` holds the chosen layout for each board ({"boards": {role: layout name}}), user layouts are
``layouts/<name>.json`` (from the tracer). Photos come as uploads or from the CAMERA_FRAME hook. The hub this
table publishes to (docs/hub.md) is ``setup.json``'s ``hub`` ({url, table, event, user}; checked by
``assistant.table.hubfollow.settings``) and its broker password ``hub-password`` (mode 0600); ``tablewatch live``
picks a change up within seconds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from flask import Blueprint, current_app, jsonify, render_template, request

from assistant.errors import UserError
from assistant.table import game as games
from assistant.table import hubfollow, hubmsg
from assistant.table.session import GameSession
from calibration import camera as cam
from calibration import colours as col
from calibration import layout
from vision.locate import apply_h, locate
from web import adapter

bp = Blueprint("setup", __name__)


def data_dir() -> Path:
    d = Path(current_app.config["DATA_DIR"])
    d.mkdir(parents=True, exist_ok=True)
    return d


def user_layouts_dir() -> Path:
    d = data_dir() / "layouts"
    d.mkdir(parents=True, exist_ok=True)
    return d


def available_layouts() -> dict[str, str]:
    """name -> "built-in" | "yours" for every layout the wizard can choose."""
    out = {p.stem: "built-in" for p in sorted(layout.LAYOUTS_DIR.glob("*.json"))}
    for p in sorted(user_layouts_dir().glob("*.json")):
        out[p.stem] = "yours"
    return out


def load_layout(name: str) -> dict:
    """A layout by name (the user's own first, then built-in); the name must be one the server lists."""
    kinds = available_layouts()
    if not isinstance(name, str) or name not in kinds:
        raise UserError(f"no layout called {name!r}. Choose one of: {', '.join(sorted(kinds))}.")
    if kinds[name] == "yours":
        return layout.load(user_layouts_dir() / f"{name}.json")
    return layout.load_builtin(name)


def read_setup() -> dict:
    path = data_dir() / "setup.json"
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            pass
    return {"boards": {}}


def the_game(name=None) -> games.Game:
    """The game the wizard sets up: the one named, else the game in progress, else the default
    (``games.DEFAULT_GAME``, Wendake); ``UserError`` for a name the registry does not know."""
    if name is None or name == "":
        playing = adapter.game_of(current_app.extensions["tablewatch"].session)
        return playing if playing is not None else games.get(games.DEFAULT_GAME)
    if not isinstance(name, str):
        raise UserError(f"'game' must be a game's name: one of {', '.join(games.names())}.")
    return games.get(name)


# ---- page ------------------------------------------------------------------------------------------------
@bp.get("/setup")
def setup_page():
    game = the_game(request.args.get("game"))
    opts = game.setup_options()
    snap = adapter.snapshot(current_app.extensions["tablewatch"].session)
    return render_template("setup.html", title="Setup", v=snap, game=game, options=opts, colours=opts["colours"],
                           spots=len(_colour_spots()),
                           games=[(name, games.get(name).title) for name in games.names()],
                           tribes=opts.get("tribes", {}), pairings=opts.get("pairings", {}),
                           roles=list(opts["boards"]), layouts=available_layouts(), chosen=read_setup().get("boards", {}),
                           has_camera=callable(current_app.config.get("CAMERA_FRAME")),
                           has_colours=(data_dir() / "colours.json").is_file(), hub=read_setup().get("hub") or {})


# ---- 1. the game -----------------------------------------------------------------------------------------
def parse_game(body: dict) -> dict:
    """Check the wizard's game form; return GameSession.create keyword arguments (``game`` among them: the game
    named, else the default, ``games.DEFAULT_GAME``). UserError on bad input: the game's own check
    (``Game.parse_setup``)."""
    game = the_game(body.get("game") or games.DEFAULT_GAME)
    return {"game": game.name, **game.parse_setup(body)}


def default_new_game(params: dict):
    db = current_app.config.get("DB_PATH") or str(data_dir() / "games.sqlite")
    return GameSession.create(db, **params)


@bp.post("/api/setup/game")
def new_game():
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise UserError("send the game as a JSON object.")
    params = parse_game(body)
    factory = current_app.config.get("NEW_GAME") or default_new_game
    session = factory(params)
    current_app.extensions["tablewatch"].replace_session(session)
    return jsonify(ok=True, players=params["players"])


# ---- 2. camera check -------------------------------------------------------------------------------------
def _camera_file():
    path = data_dir() / "camera.json"
    return path if path.is_file() else None


def camera_report(frame, layout_names: list[str]) -> dict:
    """Live feedback on one frame: per board found?, markers, coverage, sharpness, px/mm, tilt, warnings."""
    import numpy as np

    if frame is None:
        raise UserError("no camera frame: the camera is not delivering pictures. Check its cable and that no other program uses it.")
    layouts = [load_layout(n) for n in layout_names]
    camfile = _camera_file()
    camera = cam.load(camfile, (frame.shape[1], frame.shape[0])) if camfile else None
    fh, fw = frame.shape[:2]
    boards = []
    for lay, loc in zip(layouts, locate(frame, layouts, camera=camera)):
        item = {"board": lay["name"], "found": bool(loc.found), "markers_total": len(lay["markers"]),
                "markers_seen": len(loc.markers_seen), "markers_used": len(loc.markers_used),
                "warnings": list(loc.warnings)}
        if loc.found:
            w, h = lay["size_mm"]
            gx, gy = np.meshgrid(np.linspace(0, w, 21), np.linspace(0, h, 21))
            pts = apply_h(loc.homography, np.c_[gx.ravel(), gy.ravel()])
            inside = (pts[:, 0] >= 0) & (pts[:, 0] < fw) & (pts[:, 1] >= 0) & (pts[:, 1] < fh)
            item.update(coverage=round(float(inside.mean()), 3),
                        sharpness=None if loc.sharpness is None else round(float(loc.sharpness), 3),
                        px_per_mm=None if loc.px_per_mm is None else round(float(loc.px_per_mm), 2),
                        tilt_deg=(loc.pose or {}).get("tilt_deg"), distance_mm=(loc.pose or {}).get("distance_mm"))
        else:
            item.update(coverage=0.0)
        item["ok"] = item["found"] and not item["warnings"] and item["coverage"] >= 0.999
        boards.append(item)
    return {"frame": [fw, fh], "camera_file": bool(camfile), "boards": boards, "ok": all(b["ok"] for b in boards)}


def _chosen_layouts() -> list[str]:
    names = request.values.getlist("layout") or [n for n in read_setup().get("boards", {}).values() if n]
    if not names:
        raise UserError("choose the boards to check first (step 4, or tick layouts here).")
    if len(names) > 12:
        raise UserError("check at most 12 boards at a time.")
    return names


def _upload_frame(field: str):
    import cv2
    import numpy as np

    f = request.files.get(field)
    if f is None or not f.filename:
        raise UserError("choose a photo to upload (JPEG or PNG).")
    data = np.frombuffer(f.read(), np.uint8)
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise UserError("the upload is not a JPEG or PNG photo the server can read.")
    return frame


def _camera_frame():
    hook = current_app.config.get("CAMERA_FRAME")
    if not callable(hook):
        raise UserError("this server has no camera connected; upload a photo instead.")
    return hook()


@bp.post("/api/setup/camera-check")
def camera_check():
    names = _chosen_layouts()
    frame = _upload_frame("photo") if "photo" in request.files else _camera_frame()
    return jsonify(camera_report(frame, names))


# ---- 3. colours ------------------------------------------------------------------------------------------
def _colour_spots() -> list[dict]:
    """The colour card's spots (``colour-card`` layout), one piece colour learned on each."""
    return [r for r in layout.load_builtin("colour-card")["regions"] if r["kind"] == "colour_spot"]


@bp.post("/api/setup/colours")
def colours():
    frame = _upload_frame("photo") if "photo" in request.files else _camera_frame()
    if frame is None:
        raise UserError("no camera frame: the camera is not delivering pictures.")
    card = layout.load_builtin("colour-card")
    loc = locate(frame, [card])[0]
    if not loc.found:
        raise UserError("the colour card was not found in the picture: " + " ".join(loc.warnings))
    known = the_game(request.values.get("game")).setup_options()["colours"]
    names = request.values.getlist("colour") or list(known)[: len(_colour_spots())]
    ed_colours = set(known)
    if any(n not in ed_colours for n in names):
        raise UserError(f"colours must be among {', '.join(sorted(ed_colours))}.")
    profile = col.learn(frame, card, names, loc.homography)
    col.save(profile, data_dir() / "colours.json")
    return jsonify(ok=True, colours={n: {"spot": c["spot"], "lab": [round(x) for x in c["lab_mean"]]} for n, c in profile["colours"].items()},
                   warnings=list(loc.warnings) + profile["warnings"])


# ---- 4. layouts ------------------------------------------------------------------------------------------
@bp.post("/api/setup/layouts")
def choose_layouts():
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("boards"), dict):
        raise UserError('send {"boards": {role: layout name}}.')
    opts = the_game(body.get("game")).setup_options()
    roles = opts["boards"]
    kinds = available_layouts()
    chosen = {}
    problems = []
    for role, name in body["boards"].items():
        if role not in roles:
            problems.append(f"unknown board {role!r}; boards are {', '.join(roles)}.")
            continue
        if not name:
            continue
        prefix = roles[role][0]
        if name not in kinds:
            problems.append(f"{role}: no layout called {name!r}.")
            continue
        lay = load_layout(name)
        if kinds[name] == "built-in" and not name.startswith(prefix):
            problems.append(f"{role}: {name} is not a {prefix} board.")
            continue
        chosen[role] = lay["name"] if kinds[name] == "built-in" else name
    required, say = opts["required_board"]
    if required not in chosen:
        problems.append(say)
    if problems:
        return jsonify(error="The layouts were not saved.", problems=problems), 422
    (data_dir() / "setup.json").write_text(json.dumps({**read_setup(), "boards": chosen}, indent=2) + "\n", encoding="utf-8")
    return jsonify(ok=True, boards=chosen)


# ---- 5. the hub (many tables, docs/hub.md) --------------------------------------------------------------
def _write_secret(path: Path, text: str) -> None:
    """``text`` into ``path``, readable by its owner only from the first byte, whole or not at all."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@bp.post("/api/setup/hub")
def choose_hub():
    """Save the hub this table publishes to: ``{"url", "table", "event", "user", "password"}`` (an empty url: no
    hub; an empty password keeps the saved one). Checked as ``tablewatch live --hub`` checks it."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not all(isinstance(body.get(k, ""), str) for k in ("url", "table", "event", "user", "password")):
        raise UserError('send {"url": "mqtt://HOST:1883", "table": "Table 7", "event", "user", "password"} as texts.')
    fields = {k: body.get(k, "").strip() for k in ("url", "table", "event", "user")}
    password = body.get("password", "")
    secret = data_dir() / hubfollow.PASSWORD_FILE
    current = read_setup()
    if not fields["url"]:
        current.pop("hub", None)
        (data_dir() / "setup.json").write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")
        secret.unlink(missing_ok=True)
        return jsonify(ok=True, hub=None)
    kept = secret.read_text(encoding="utf-8").strip() if not password and secret.is_file() else None
    hub = hubfollow.settings(fields["url"], fields["table"], fields["event"] or None, fields["user"] or None,
                             password=password or kept)
    if password:
        _write_secret(secret, password)
    elif not fields["user"]:
        secret.unlink(missing_ok=True)
    saved = {"url": hub.broker.url, "table": hub.name, "event": hub.event, "user": hub.user or ""}
    (data_dir() / "setup.json").write_text(json.dumps({**current, "hub": saved}, indent=2) + "\n", encoding="utf-8")
    return jsonify(ok=True, hub=saved, topic=hubmsg.prefix(hub.event, hub.key.table))
