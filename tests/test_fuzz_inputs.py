"""Bad input never ends in a traceback or an HTTP 500 (issue 32, item 7): hypothesis writes broken files and
bodies and feeds them to each entry point that reads user JSON.

- CLI JSON inputs: ``wendake tally`` and ``wendake validate`` (game records), ``layout trace --traced``;
- camera files: ``tablewatch locate PHOTO --camera bad.json`` on a real photo;
- layout files: ``tablewatch locate IMAGE --layout bad.json``;
- web JSON bodies: every JSON POST route, unlocked with the PIN and the CSRF token;
- recording folders: ``tablewatch replay DIR`` with a broken ``session.json`` or ``timestamps.csv``.

Each asserts what the user sees: exit code 2 and exactly one line on stderr without "Traceback" (HTTP: a 4xx
with a one-line error), or, where a generated file may be valid, no traceback whatever the outcome.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from conftest_vision import real
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from assistant.apps.cli import main
from assistant.jsonfile import MAX_DEPTH
from calibration import layout as L

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SLOW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# JSON values of every shape, and text that is not JSON (or JSON JSON forbids: NaN, 1e999, deep nesting).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
deep_text = (st.integers(MAX_DEPTH + 1, 200_000).map(lambda n: "[" * n + "]" * n)
             | st.integers(MAX_DEPTH + 1, 100_000).map(lambda n: '{"a":' * n + "1" + "}" * n))
bad_numbers = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "1" * 5000])
broken_bytes = st.one_of(
    st.binary(min_size=1, max_size=200).filter(lambda b: _not_json(b)),
    deep_text.map(str.encode),
    bad_numbers.map(lambda n: f'{{"players": [{n}]}}'.encode()),
    st.just(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"),
)


def _not_json(data: bytes) -> bool:
    try:
        json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return True
    return False


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, err: str) -> None:
    assert "Traceback" not in err
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("tablewatch: ")


@pytest.fixture
def workdir():
    with tempfile.TemporaryDirectory(prefix="tw-fuzz-") as d:
        yield Path(d)


# ---- CLI JSON inputs ---------------------------------------------------------------------------------------------
@FAST
@given(data=broken_bytes, command=st.sampled_from([["wendake", "tally"], ["wendake", "validate"]]))
@example(data=bytes(range(256)), command=["wendake", "tally"])
@example(data=b"[" * 100_000 + b"]" * 100_000, command=["wendake", "tally"])
def test_game_record_files_that_are_not_json_get_one_line(capsys, workdir, data, command):
    path = workdir / "game.json"
    path.write_bytes(data)
    code, _, err = _run(capsys, command + [str(path)])
    _one_line_error(code, err)
    assert str(path) in err


@FAST
@given(data=broken_bytes | json_values.map(lambda v: json.dumps(v).encode()))
def test_traced_region_files_get_one_line(capsys, workdir, data):
    traced = workdir / "traced.json"
    traced.write_bytes(data)
    code, _, err = _run(capsys, ["layout", "trace", "aruco-sheet", "--traced", str(traced), "--out", str(workdir / "out.json")])
    _one_line_error(code, err)


def test_missing_and_unreadable_json_files_say_so(capsys, workdir):
    code, _, err = _run(capsys, ["wendake", "tally", str(workdir / "nope.json")])
    _one_line_error(code, err)
    assert "not found" in err
    code, _, err = _run(capsys, ["wendake", "tally", str(workdir)])
    _one_line_error(code, err)
    assert "folder" in err


# ---- camera files ------------------------------------------------------------------------------------------------
PHOTO_SIZE = [3456, 4608]  # aruco.jpg, width x height
GOOD_CAMERA = {"format": "tablewatch-camera/1", "image_size": PHOTO_SIZE,
               "camera_matrix": [[3500.0, 0.0, 1728.0], [0.0, 3500.0, 2304.0], [0.0, 0.0, 1.0]],
               "distortion": [0.05, -0.1, 0.0, 0.0, 0.02], "rms_px": 0.4, "images_used": 12, "images_given": 12}
not_a_number = st.none() | st.booleans() | st.text(max_size=5) | st.lists(st.integers(), max_size=2) | st.just({})


@st.composite
def broken_camera(draw) -> bytes:
    """A camera file with one thing no calibration writes: valid JSON with a nonsense value, or broken text."""
    cam = copy.deepcopy(GOOD_CAMERA)
    kind = draw(st.sampled_from(["focal", "centre", "entry", "dist_value", "dist_size", "size", "missing", "text"]))
    if kind == "focal":
        i = draw(st.sampled_from([0, 1]))
        cam["camera_matrix"][i][i] = draw(st.floats(max_value=0, allow_nan=False, allow_infinity=False) | st.floats(1e7, 1e300) | not_a_number)
    elif kind == "centre":
        i = draw(st.sampled_from([0, 1]))
        cam["camera_matrix"][i][2] = draw(st.floats(-1e300, -1.0) | st.floats(PHOTO_SIZE[1] + 1.0, 1e300))
    elif kind == "entry":
        r, c = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        cam["camera_matrix"][r][c] = draw(not_a_number)
    elif kind == "dist_value":
        i = draw(st.integers(0, 4))
        cam["distortion"][i] = draw(st.floats(1001.0, 1e300) | st.floats(-1e300, -1001.0) | not_a_number)
    elif kind == "dist_size":
        n = draw(st.integers(0, 20).filter(lambda n: n not in (4, 5, 8, 12, 14)))
        cam["distortion"] = [0.0] * n
    elif kind == "size":
        cam["image_size"] = draw(not_a_number | st.lists(st.integers(-5, 0), min_size=2, max_size=2) | st.just([3456]))
    elif kind == "missing":
        del cam[draw(st.sampled_from(["camera_matrix", "distortion", "image_size"]))]
    else:
        text = json.dumps(cam)
        how = draw(st.sampled_from(["nan", "truncate", "binary"]))
        if how == "nan":
            return text.replace("0.05", draw(bad_numbers), 1).encode()
        if how == "truncate":
            return text[: draw(st.integers(0, len(text) - 1))].encode()
        return b"\xff\xd8\xff\xe0" + text.encode()
    return json.dumps(cam).encode()


def _zero_matrix() -> bytes:
    return json.dumps(GOOD_CAMERA | {"camera_matrix": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}).encode()


@pytest.fixture(scope="module")
def photo():
    return str(real("aruco-sheet", "aruco.jpg"))


@SLOW
@given(data=broken_camera())
@example(data=_zero_matrix())
@example(data=json.dumps(GOOD_CAMERA).replace("0.05", "NaN").encode())
@example(data=json.dumps(GOOD_CAMERA | {"distortion": [1e300, 0, 0, 0, 0]}).encode())
def test_camera_files_with_nonsense_values_get_one_line(capsys, workdir, photo, data):
    cam = workdir / "camera.json"
    cam.write_bytes(data)
    code, _, err = _run(capsys, ["locate", photo, "--layout", "aruco-sheet", "--camera", str(cam)])
    _one_line_error(code, err)
    assert "calibrate camera" in err  # the fix: calibrate again


def test_a_missing_image_says_not_found(capsys, workdir):
    code, _, err = _run(capsys, ["locate", str(workdir / "table.jpg"), "--layout", "aruco-sheet"])
    _one_line_error(code, err)
    assert "not found" in err and "cannot read" not in err


# ---- layout files ------------------------------------------------------------------------------------------------
@st.composite
def mutated_layout(draw) -> bytes:
    """The built-in aruco-sheet layout with one value anywhere replaced by any JSON value, or broken text."""
    lay = L.load_builtin("aruco-sheet")
    if draw(st.booleans()):
        return draw(broken_bytes)
    node, paths = lay, []
    while isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else list(range(len(node)))))
        paths.append(key)
        node = node[key]
    value = draw(json_values | st.floats(1e15, 1e300) | st.floats(-1e300, -1e15))
    if not paths:
        return json.dumps(value).encode()
    parent = lay
    for key in paths[:-1]:
        parent = parent[key]
    parent[paths[-1]] = value
    return json.dumps(lay).encode()


@pytest.fixture(scope="module")
def tiny_image():
    import cv2
    import numpy as np

    d = tempfile.mkdtemp(prefix="tw-fuzz-img-")
    path = str(Path(d) / "blank.png")
    cv2.imwrite(path, np.full((48, 64, 3), 128, np.uint8))
    yield path
    shutil.rmtree(d)


@FAST
@given(data=mutated_layout())
def test_layout_files_get_one_line_or_are_used(capsys, workdir, tiny_image, data):
    path = workdir / "board.json"
    path.write_bytes(data)
    code, _, err = _run(capsys, ["locate", tiny_image, "--layout", str(path)])
    assert "Traceback" not in err and "internal error" not in err, err
    try:
        problems = L.validate(json.loads(data))
    except (ValueError, RecursionError):
        problems = ["not JSON"]
    if problems:
        _one_line_error(code, err)
    else:  # a layout that is still valid: read, and its board not found in a blank image
        assert code == 1, err


# ---- web JSON bodies ---------------------------------------------------------------------------------------------
PIN = "48219305"
JSON_ROUTES = ["/api/unlock", "/api/correct", "/api/confirm", "/api/tablet/ghost_card", "/api/setup/game", "/api/setup/layouts",
               "/api/trace/save"]


@pytest.fixture(scope="module")
def web():
    from assistant.table.session import GameSession
    from web import security
    from web.app import create_app

    d = Path(tempfile.mkdtemp(prefix="tw-fuzz-web-"))
    security.PinStore(d / "pin.json").set_pin(PIN)
    session = GameSession.create(str(d / "games.sqlite"), players=["Ann", "Bob"], seed=3)
    app = create_app(session, {"PIN_FILE": str(d / "pin.json"), "DATA_DIR": str(d / "data"), "DB_PATH": str(d / "new.sqlite"),
                               "TESTING": True})
    client = app.test_client()
    csrf = client.get("/api/whoami").get_json()["csrf_token"]
    r = client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200, r.get_data(as_text=True)
    yield client, csrf
    app.extensions["tablewatch"].session.close()
    shutil.rmtree(d)


def _post(web, route: str, body: bytes):
    client, csrf = web
    return client.post(route, data=body, headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})


@FAST
@given(route=st.sampled_from(JSON_ROUTES), body=broken_bytes)
@example(route="/api/correct", body=b"[" * 100_000 + b"]" * 100_000)
@example(route="/api/correct", body=b'{"moves": ' + b"[" * 5000 + b"]" * 5000 + b"}")
def test_broken_json_bodies_get_a_one_line_400(web, route, body):
    r = _post(web, route, body)
    assert r.status_code == 400, (route, r.status_code, r.get_data(as_text=True)[:300])
    error = r.get_json()["error"]
    assert "\n" not in error and error


@FAST
@given(route=st.sampled_from(JSON_ROUTES), value=json_values)
def test_any_json_body_gets_no_500(web, route, value):
    r = _post(web, route, json.dumps(value).encode())
    assert r.status_code < 500, (route, value, r.get_data(as_text=True)[:300])
    if r.status_code >= 400:
        assert "\n" not in (r.get_json() or {}).get("error", ""), r.get_data(as_text=True)


# ---- recording folders -------------------------------------------------------------------------------------------
GOOD_META = {"players": ["Ann", "Bob"], "seed": 3, "layouts": ["aruco-sheet"]}


@st.composite
def broken_recording(draw) -> tuple[bytes | None, bytes]:
    """(session.json bytes or None, timestamps.csv bytes): one of them broken."""
    stamps = b"index,t,file\n0,0.0,frame_000000.png\n"
    meta = dict(GOOD_META)
    what = draw(st.sampled_from(["meta_text", "meta_type", "meta_field", "stamps"]))
    if what == "meta_text":
        return draw(broken_bytes | json_values.filter(lambda v: not isinstance(v, dict)).map(lambda v: json.dumps(v).encode())), stamps
    if what == "meta_field":
        field = draw(st.sampled_from(["players", "seed", "layouts", "camera", "initial"]))
        bad = {"players": st.none() | st.booleans() | st.integers() | st.just([]) | st.lists(st.integers() | st.just(""), min_size=1, max_size=3),
               "seed": st.text(max_size=4) | st.floats(allow_nan=False) | st.lists(st.integers(), max_size=2) | st.booleans(),
               "layouts": st.just([]) | st.integers() | st.lists(st.integers() | st.text(alphabet="xyz", min_size=1, max_size=4), min_size=1, max_size=2),
               "camera": st.integers() | st.lists(st.text(), max_size=1) | st.just("no-such-camera.json"),
               "initial": st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2)
               | st.dictionaries(st.sampled_from(["players", "year", "phase", "x"]), json_values, min_size=1, max_size=3)}[field]
        meta[field] = draw(bad)
        return json.dumps(meta).encode(), stamps
    if what == "meta_type":
        meta["players"] = draw(st.just({"Ann": 1}) | st.just("Ann,Bob"))
        return json.dumps(meta).encode(), stamps
    bad_stamps = draw(st.binary(max_size=80).map(lambda b: b"index,t,file\n\xff" + b)  # not UTF-8
                      | st.binary(max_size=80).map(lambda b: b"index,t,file\n0,0.0,frame\x00" + b)  # NUL in a name
                      | st.sampled_from([b"index,t,file\n0,zero,frame_000000.png\n", b"index,t,file\n0,NaN,frame_000000.png\n",
                                         b"index,t,file\n0,0.0\n", b"index,t,file\n0,0.0,../../etc/passwd\n",
                                         b"index,t,file\n0,0.0,/etc/passwd\n", b"index,t,file\n0,0.0,\n",
                                         b"index,t,file\n0,0.0,frame\x00.png\n", b"a\x00b,c\n1,2,3\n"]))
    return json.dumps(meta).encode(), bad_stamps


@pytest.fixture(scope="module")
def frame_png():
    import cv2
    import numpy as np

    ok, png = cv2.imencode(".png", np.full((48, 64, 3), 128, np.uint8))
    return png.tobytes()


@FAST
@given(rec=broken_recording())
def test_broken_recording_folders_get_one_line(capsys, workdir, frame_png, rec):
    meta, stamps = rec
    folder = workdir / "rec"
    folder.mkdir()
    (folder / "frame_000000.png").write_bytes(frame_png)
    if meta is not None:
        (folder / "session.json").write_bytes(meta)
    (folder / "timestamps.csv").write_bytes(stamps)
    code, _, err = _run(capsys, ["replay", str(folder), "--db", str(workdir / "replay.sqlite")])
    shutil.rmtree(folder)
    (workdir / "replay.sqlite").unlink(missing_ok=True)
    _one_line_error(code, err)
