"""The layout tracer: map an owner's retail board by tracing its regions on a rectified photo.

1. ``POST /api/trace/start`` (multipart): start from a sticker plan and the measured board size (a new layout),
   or from one of the user's own layouts; with a photo of the board the photo is rectified by its markers
   (vision.locate.rectify_photo), without one the layout itself is drawn, so existing regions can be edited.
   The server keeps the base layout and the image under a random token in DATA_DIR/trace/.
2. ``GET /trace/image/<token>.png``: that image; the page draws polygons on it in image pixels.
3. ``POST /api/trace/save`` (JSON): the traced regions (pixel polygons) and adjacency are merged into the
   base layout (calibration.trace.add_traced), validated (calibration.layout.validate) and saved as
   DATA_DIR/layouts/<name>.json. Problems come back as a list (HTTP 422) for the page to show inline.
"""

from __future__ import annotations

import json
import re
import secrets

from flask import Blueprint, abort, jsonify, render_template, request, send_file

from assistant.errors import UserError
from calibration import layout, render, sheet, trace
from vision.locate import rectify_photo
from web.setup_routes import available_layouts, data_dir, user_layouts_dir

bp = Blueprint("trace", __name__)

TOKEN_RE = re.compile(r"^[0-9a-f]{24}$")
LAYOUT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,47}$")
PX_PER_MM = 2.0
MAX_REGIONS = 400
MAX_POINTS = 400


def _trace_dir():
    d = data_dir() / "trace"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _plans() -> list[str]:
    return sorted(n for n, k in available_layouts().items() if k == "built-in" and n.startswith("wendake-"))


@bp.get("/trace")
def trace_page():
    mine = sorted(n for n, k in available_layouts().items() if k == "yours")
    return render_template("trace.html", title="Layouts", plans=_plans(), mine=mine, kinds=sorted(layout.KINDS), v=None)


def _number(value, what: str, lo: float, hi: float) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{what} must be a number in millimetres.") from None
    if not lo <= x <= hi:
        raise UserError(f"{what} must be between {lo:.0f} and {hi:.0f} mm; measure the board again.")
    return x


def _base_layout(form) -> dict:
    mine = form.get("mine")
    if mine:
        if mine not in available_layouts() or available_layouts()[mine] != "yours":
            raise UserError(f"you have no layout called {mine!r}.")
        return layout.load(user_layouts_dir() / f"{mine}.json")
    plan = form.get("plan")
    if plan not in _plans():
        raise UserError(f"choose which board's stickers you used: one of {', '.join(_plans())}.")
    name = (form.get("name") or "").strip()
    if not LAYOUT_NAME_RE.match(name):
        raise UserError("the layout name must be 1-48 small letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. my-map.")
    if name in available_layouts() and available_layouts()[name] == "built-in":
        raise UserError(f"{name!r} is a built-in layout's name; choose another name, e.g. my-{name}.")
    w = _number(form.get("width_mm"), "the board width", 50, 2000)
    h = _number(form.get("height_mm"), "the board height", 50, 2000)
    return sheet.retail_layout(plan, w, h, name)


@bp.post("/api/trace/start")
def trace_start():
    import cv2

    base = _base_layout(request.form)
    token = secrets.token_hex(12)
    tdir = _trace_dir()
    photo = request.files.get("photo")
    rectified = False
    if photo is not None and photo.filename:
        tmp = tdir / f"{token}.upload"
        photo.save(tmp)
        try:
            img, loc = rectify_photo(str(tmp), base, PX_PER_MM)
        finally:
            tmp.unlink(missing_ok=True)
        warnings = list(loc.warnings)
        rectified = True
    else:
        img = render.render_board(base, PX_PER_MM)
        warnings = []
    cv2.imwrite(str(tdir / f"{token}.png"), img)
    (tdir / f"{token}.json").write_text(json.dumps(base), encoding="utf-8")
    regions = [{"id": r["id"], "kind": r["kind"], "label": r.get("label"), "parent": r.get("parent"),
                "attributes": r.get("attributes", {}),
                "polygon_px": [[x * PX_PER_MM - 0.5, y * PX_PER_MM - 0.5] for x, y in r["polygon"]]}
               for r in base["regions"] if not (r["id"] == "board" and r["kind"] == "area")]
    return jsonify(token=token, image=f"/trace/image/{token}.png", px_per_mm=PX_PER_MM, name=base["name"],
                   size_px=[img.shape[1], img.shape[0]], rectified=rectified, warnings=warnings,
                   regions=regions, adjacency=base.get("adjacency", []))


@bp.get("/trace/image/<token>.png")
def trace_image(token: str):
    if not TOKEN_RE.match(token):
        abort(404)
    path = _trace_dir() / f"{token}.png"
    if not path.is_file():
        abort(404)
    return send_file(path, mimetype="image/png", max_age=0)


def _check_traced(body: dict) -> dict:
    """The traced regions/adjacency in calibration.trace.add_traced form; UserError on malformed input."""
    regions = body.get("regions")
    if not isinstance(regions, list) or not regions:
        raise UserError("trace at least one region before saving.")
    if len(regions) > MAX_REGIONS:
        raise UserError(f"at most {MAX_REGIONS} regions per layout.")
    out = []
    for n, r in enumerate(regions, 1):
        if not isinstance(r, dict):
            raise UserError(f"region {n}: expected an object.")
        poly = r.get("polygon_px")
        if not isinstance(poly, list) or not 3 <= len(poly) <= MAX_POINTS or not all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in p) for p in poly):
            raise UserError(f"region {n} ({r.get('id', '?')}): a polygon needs 3 to {MAX_POINTS} points [x, y].")
        item = {"id": str(r.get("id", "")).strip(), "kind": str(r.get("kind", "")).strip(), "polygon_px": poly}
        for key in ("label", "parent"):
            if r.get(key):
                item[key] = str(r[key])
        attrs = r.get("attributes") or {}
        if not isinstance(attrs, dict):
            raise UserError(f"region {n}: attributes must be an object.")
        if attrs:
            item["attributes"] = attrs
        out.append(item)
    adjacency = body.get("adjacency", [])
    if not isinstance(adjacency, list) or not all(isinstance(a, list) and len(a) == 3 and all(isinstance(x, str) for x in a) for a in adjacency):
        raise UserError('adjacency must be a list of [region, region, "land"|"river"|"lake"].')
    return {"px_per_mm": PX_PER_MM, "regions": out, "adjacency": adjacency}


@bp.post("/api/trace/save")
def trace_save():
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise UserError("send the traced regions as a JSON object.")
    token = body.get("token")
    if not isinstance(token, str) or not TOKEN_RE.match(token) or not (_trace_dir() / f"{token}.json").is_file():
        raise UserError("this tracing session is unknown or expired; start again from step 1.")
    base = json.loads((_trace_dir() / f"{token}.json").read_text(encoding="utf-8"))
    traced = _check_traced(body)
    # regions removed on the page are dropped from the base before merging
    keep = {r["id"] for r in traced["regions"]}
    base["regions"] = [r for r in base["regions"] if r["id"] in keep or (r["id"] == "board" and r["kind"] == "area")]
    if not base["regions"]:
        base["regions"] = [{"id": "board", "kind": "area", "polygon": [[0, 0], [base["size_mm"][0], 0], base["size_mm"], [0, base["size_mm"][1]]]}]
    try:
        out = trace.add_traced(base, traced)
    except UserError as exc:
        problems = [line.strip()[2:] for line in str(exc).splitlines() if line.strip().startswith("- ")] or [str(exc)]
        return jsonify(error="The layout was not saved: fix the problems below.", problems=problems), 422
    layout.save(out, user_layouts_dir() / f"{out['name']}.json")
    return jsonify(ok=True, name=out["name"], regions=len(out["regions"]), adjacency=len(out.get("adjacency", [])))
