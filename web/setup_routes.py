"""The setup wizard: a new game, the camera check with live feedback, colour calibration and the layout choice.

Everything here writes into the server's DATA_DIR under fixed names (never a path from the client):
``camera.json`` is read if present (``tablewatch calibrate camera``), ``colours.json`` is written by the colour
step, ``setup.json`` holds the chosen layout for each board ({"boards": {role: layout name}}), user layouts are
``layouts/<name>.json`` (from the tracer). Photos come as uploads or from the CAMERA_FRAME hook.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from flask import Blueprint, current_app, jsonify, render_template, request

from assistant.errors import UserError
from web import adapter

bp = Blueprint("setup", __name__)

TRACKS = ("economic", "military", "ritual", "mask")
PAIRINGS = {  # the three ways to split the four tracks into two pairs (W-SET-2)
    "economic+military": [["economic", "military"], ["ritual", "mask"]],
    "economic+ritual": [["economic", "ritual"], ["military", "mask"]],
    "economic+mask": [["economic", "mask"], ["military", "ritual"]],
}
BOARD_ROLES = {  # wizard role -> (layout name prefix, default built-in)
    "map": ("wendake-map", None),
    "mask": ("wendake-mask", "wendake-mask"),
    "scores-a": ("wendake-scores", "wendake-scores-a"),
    "scores-b": ("wendake-scores", "wendake-scores-b"),
    **{f"village-{i}": ("wendake-village", f"wendake-village-{i}") for i in range(1, 5)},
}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,23}$")


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
    from calibration.layout import LAYOUTS_DIR

    out = {p.stem: "built-in" for p in sorted(LAYOUTS_DIR.glob("*.json"))}
    for p in sorted(user_layouts_dir().glob("*.json")):
        out[p.stem] = "yours"
    return out


def load_layout(name: str) -> dict:
    """A layout by name (the user's own first, then built-in); the name must be one the server lists."""
    from calibration import layout

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


def _edition():
    from assistant.wendake.edition import load_edition

    return load_edition()


# ---- page ------------------------------------------------------------------------------------------------
@bp.get("/setup")
def setup_page():
    ed = _edition()
    view = adapter.snapshot(current_app.extensions["tablewatch"].session)
    return render_template("setup.html", title="Setup", v=view, colours=list(ed.colours),
                           tribes={k: t.get("name", k) for k, t in ed.tribes.items()}, pairings=PAIRINGS,
                           roles=list(BOARD_ROLES), layouts=available_layouts(), chosen=read_setup().get("boards", {}),
                           has_camera=callable(current_app.config.get("CAMERA_FRAME")),
                           has_colours=(data_dir() / "colours.json").is_file())


# ---- 1. the game -----------------------------------------------------------------------------------------
def parse_game(body: dict) -> dict:
    """Check the wizard's game form; return GameSession.create keyword arguments. UserError on bad input."""
    ed = _edition()
    if body.get("game", "wendake") != "wendake":
        raise UserError("only Wendake can be tracked so far; choose 'wendake'.")
    players = body.get("players")
    if not isinstance(players, list) or not ed.min_players <= len(players) <= ed.max_players:
        raise UserError(f"Wendake needs {ed.min_players} to {ed.max_players} players; add or remove players.")
    names, colours, tribes = [], [], []
    for i, p in enumerate(players, 1):
        if not isinstance(p, dict):
            raise UserError(f"player {i}: expected name, colour and tribe.")
        name = str(p.get("name", "")).strip()
        if not NAME_RE.match(name):
            raise UserError(f"player {i}: the name must be 1-24 letters, digits, spaces or . _ ' - (starting with a letter or digit).")
        colour = p.get("colour")
        if colour not in ed.colours:
            raise UserError(f"player {i} ({name}): colour must be one of {', '.join(ed.colours)}.")
        tribe = p.get("tribe") or None
        if tribe is not None and tribe not in ed.tribes:
            raise UserError(f"player {i} ({name}): unknown tribe {tribe!r}; choose one of {', '.join(ed.tribes)} or none.")
        names.append(name)
        colours.append(colour)
        tribes.append(tribe)
    if len({n.lower() for n in names}) != len(names):
        raise UserError("two players have the same name; give each player their own name.")
    if len(set(colours)) != len(colours):
        raise UserError("two players have the same colour; each player needs their own colour.")
    if len({t for t in tribes if t}) != len([t for t in tribes if t]):
        raise UserError("two players chose the same tribe; each tribe card is unique.")
    pairs = body.get("pairs") or "random"
    if pairs != "random" and pairs not in PAIRINGS:
        raise UserError(f"track pairs must be 'random' or one of {', '.join(PAIRINGS)}.")
    seed = body.get("seed")
    if seed in ("", None):
        seed = None
    else:
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise UserError("the seed must be a whole number, or empty for a random setup.") from None
    out = {"players": names, "colours": colours, "seed": seed, "pairs": None if pairs == "random" else PAIRINGS[pairs]}
    if any(tribes):
        out["tribes"] = tribes
    return out


def default_new_game(params: dict):
    import inspect

    from assistant.table.session import GameSession

    db = current_app.config.get("DB_PATH") or str(data_dir() / "games.sqlite")
    if "tribes" in params and "tribes" not in inspect.signature(GameSession.create).parameters:
        raise UserError("this version cannot track tribe abilities yet; set every tribe to 'none (back side)'.")
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

    from calibration import camera as cam
    from vision.locate import apply_h, locate

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
@bp.post("/api/setup/colours")
def colours():
    from calibration import colours as col
    from calibration import layout
    from vision.locate import locate

    frame = _upload_frame("photo") if "photo" in request.files else _camera_frame()
    if frame is None:
        raise UserError("no camera frame: the camera is not delivering pictures.")
    card = layout.load_builtin("colour-card")
    loc = locate(frame, [card])[0]
    if not loc.found:
        raise UserError("the colour card was not found in the picture: " + " ".join(loc.warnings))
    names = request.values.getlist("colour") or list(_edition().colours)
    ed_colours = set(_edition().colours)
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
    kinds = available_layouts()
    chosen = {}
    problems = []
    for role, name in body["boards"].items():
        if role not in BOARD_ROLES:
            problems.append(f"unknown board {role!r}; boards are {', '.join(BOARD_ROLES)}.")
            continue
        if not name:
            continue
        prefix = BOARD_ROLES[role][0]
        if name not in kinds:
            problems.append(f"{role}: no layout called {name!r}.")
            continue
        lay = load_layout(name)
        if kinds[name] == "built-in" and not name.startswith(prefix):
            problems.append(f"{role}: {name} is not a {prefix} board.")
            continue
        chosen[role] = lay["name"] if kinds[name] == "built-in" else name
    if "map" not in chosen:
        problems.append("choose the map's layout (wendake-map-2p/3p/4p for the player count, or your own traced map).")
    if problems:
        return jsonify(error="The layouts were not saved.", problems=problems), 422
    (data_dir() / "setup.json").write_text(json.dumps({**read_setup(), "boards": chosen}, indent=2) + "\n", encoding="utf-8")
    return jsonify(ok=True, boards=chosen)
