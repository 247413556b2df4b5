"""`tablewatch live`: the camera loop feeding the game behind the tablet app — board view and camera hooks, a game
started from the wizard is the one fed, layouts chosen in Setup are picked up, bad input is reported and never
ends the game, and (a real server in a subprocess) a kill -9 resumes the same game from the log."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.apps.live import VIEW_WIDTH, Live, build_app, open_game, setup_layout_names
from assistant.errors import UserError
from vision.sources import FolderSource, UsbSource
from web import adapter

PIN = "246813"  # new PINs have 6-12 digits (web.security)


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    from models.synth.recording import RecordingOptions, render_game

    out = tmp_path_factory.mktemp("live-rec")
    render_game(out, RecordingOptions(players=2, seed=4, max_states=2, hand_rate=0.0))
    return out


def _meta(folder: Path) -> dict:
    return json.loads((folder / "session.json").read_text())


def _session(tmp_path, meta):
    from assistant.table.session import GameSession

    return GameSession.create(str(tmp_path / "games.sqlite"), players=meta["players"], seed=meta["seed"])


def _quiet():
    msgs = []
    return msgs, lambda level, text: msgs.append((level, text))


def _unlocked(client) -> dict:
    t = client.get("/api/whoami").get_json()["csrf_token"]
    assert client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}).status_code == 200
    return {"X-CSRF-Token": t}


def _observations(session) -> int:
    return sum(1 for e in session.log.events(session.game_id) if e["kind"] == "Observation")


def test_recording_feeds_the_game_and_the_board_view_is_served(recording, tmp_path):
    meta = _meta(recording)
    session = _session(tmp_path, meta)
    msgs, say = _quiet()
    live = Live(FolderSource(recording), session, layouts=meta["layouts"], data_dir=tmp_path / "data",
                camera_file=recording / "camera.json", on_message=say)
    app = build_app(live, session, tmp_path / "data", str(tmp_path / "games.sqlite"), pin=PIN, out=open(os.devnull, "w"))
    client = app.test_client()
    assert client.get("/board.jpg").status_code == 404  # no frame yet
    live.start()
    assert live.ended.wait(240), "the recording was not played to its end"
    stats = live.pipeline.stats
    assert stats.frames == len(FolderSource(recording).open()) and stats.corrupt == 0
    assert stats.observations >= 2 and _observations(session) == stats.observations
    r = client.get("/board.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    img = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[1] == VIEW_WIDTH and img.shape[0] > 400
    assert set(live.pipeline.observer.views) == set(meta["layouts"])  # every board was read and is drawn
    assert client.get("/board.jpg").data == r.data  # nothing new: the same picture (cached)
    frame = live.camera_frame()
    assert frame is not None and frame.shape[:2] == (1296, 2304)
    assert any("recording has ended" in t for _, t in msgs)
    live.stop()


def test_camera_check_uses_the_live_frame(recording, tmp_path):
    meta = _meta(recording)
    live = Live(FolderSource(recording), None, layouts=meta["layouts"], data_dir=tmp_path, on_message=lambda *a: None)
    app = build_app(live, adapter.NoGame(), tmp_path, str(tmp_path / "g.sqlite"), pin=PIN, out=open(os.devnull, "w"))
    c = app.test_client()
    h = _unlocked(c)
    source = FolderSource(recording).open()
    live.pipeline.step(source.read())
    r = c.post("/api/setup/camera-check", data={"layout": "wendake-map-2p"}, headers=h)
    body = r.get_json()
    assert r.status_code == 200, body
    board = body["boards"][0]
    assert board["found"] and board["coverage"] > 0.9


def test_a_game_started_in_the_wizard_is_the_one_fed(recording, tmp_path):
    meta = _meta(recording)
    msgs, say = _quiet()
    source = FolderSource(recording)
    live = Live(source, adapter.NoGame(), layouts=meta["layouts"], data_dir=tmp_path, camera_file=recording / "camera.json",
                on_message=say)
    app = build_app(live, adapter.NoGame(), tmp_path, str(tmp_path / "g.sqlite"), pin=PIN, out=open(os.devnull, "w"))
    c = app.test_client()
    source.open()
    for _ in range(4):  # no game yet: the table is read, nothing is fed, and it is said once
        live.pipeline.step(source.read())
    assert live.pipeline.observer is not None and live.pipeline.stats.observations >= 1
    assert sum("no game yet" in t for _, t in msgs) == 1
    h = _unlocked(c)
    colours = ["red", "blue"]
    players = [{"name": n, "colour": col} for n, col in zip(meta["players"], colours)]
    r = c.post("/api/setup/game", json={"players": players, "seed": meta["seed"]}, headers=h)
    assert r.status_code == 200, r.get_json()
    new = app.extensions["tablewatch"].session
    assert live.session is new and new.game_id
    for frame in source:
        live.pipeline.step(frame)
    # the new game got the whole table first (every board), then the changes
    obs = [e for e in new.log.events(new.game_id) if e["kind"] == "Observation"]
    assert obs, "the new game was not fed"
    boards = {k.split("/")[0] for k in obs[0]["payload"]["readings"]}
    assert boards == set(meta["layouts"])


def test_layouts_chosen_in_setup_are_picked_up(recording, tmp_path):
    msgs, say = _quiet()
    source = FolderSource(recording).open()
    live = Live(source, None, data_dir=tmp_path, on_message=say)
    live.pipeline.step(source.read())
    assert live.pipeline.observer is None  # nothing chosen: the frame is only shown
    assert any("no boards to read yet" in t for _, t in msgs)
    jpg = live.board_view()
    assert jpg is not None and cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_COLOR).shape[1] == VIEW_WIDTH
    (tmp_path / "setup.json").write_text(json.dumps({"boards": {"village-1": "wendake-village-1", "map": "wendake-map-2p"}}))
    assert setup_layout_names(tmp_path) == ["wendake-map-2p", "wendake-village-1"]
    live._setup_checked = 0.0  # do not wait for the next poll
    live.pipeline.step(source.read())  # sees the new choice
    live.pipeline.step(source.read())  # reads with it
    assert live.pipeline.observer is not None
    assert set(live.pipeline.observer.layouts) == {"wendake-map-2p", "wendake-village-1"}
    # a choice that cannot be loaded is reported; the loop goes on with what it had
    (tmp_path / "setup.json").write_text(json.dumps({"boards": {"map": "no-such-layout"}}))
    live._setup_checked = 0.0
    live.pipeline.step(source.read())
    assert any("cannot be loaded" in t and "no-such-layout" in t for _, t in msgs)
    assert set(live.pipeline.observer.layouts) == {"wendake-map-2p", "wendake-village-1"}  # still read


def test_bad_input_at_start_is_a_clear_error(tmp_path, recording):
    with pytest.raises(UserError, match="not found"):
        Live(FolderSource(recording), None, layouts=["wendake-map-2p"], camera_file=tmp_path / "nope.json")
    with pytest.raises(UserError):
        Live(FolderSource(recording), None, layouts=["no-such-layout"])
    with pytest.raises(UserError, match="detector model"):
        Live(FolderSource(recording), None, layouts=["wendake-map-2p"], detector=str(tmp_path / "missing.onnx"))
    with pytest.raises(UserError, match="only one"):
        open_game(str(tmp_path / "g.sqlite"), "Ann,Bob", None, None, "g-1")
    assert isinstance(open_game(str(tmp_path / "g.sqlite"), None, None, None, None), adapter.NoGame)


def test_missing_camera_is_waited_for_and_the_loop_stops_cleanly(tmp_path):
    msgs, say = _quiet()
    live = Live(UsbSource(str(tmp_path / "video-does-not-exist")), None, layouts=["wendake-map-2p"], on_message=say,
                reopen_s=0.05)
    live.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any("Retrying" in t for _, t in msgs):
        time.sleep(0.05)
    assert any(level == "error" and "Retrying" in t and "game is kept" in t for level, t in msgs)
    assert live._thread.is_alive()  # still waiting for the camera, not crashed
    live.stop()
    assert not live._thread.is_alive()


class FullDiskSession:
    game_id = "g-full"

    def __init__(self):
        self.calls = 0

    def feed(self, obs):
        self.calls += 1
        raise OSError(28, "No space left on device")


def test_a_full_disk_is_reported_and_reading_goes_on(recording, tmp_path):
    meta = _meta(recording)
    msgs, say = _quiet()
    sess = FullDiskSession()
    live = Live(FolderSource(recording), sess, layouts=meta["layouts"], camera_file=recording / "camera.json", on_message=say)
    live.start()
    assert live.ended.wait(240)
    assert sess.calls >= 2 and live.pipeline.stats.frames > sess.calls
    assert sum("free some disk space" in t for _, t in msgs) == 1  # said once, not once per observation
    assert live.board_view() is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str, timeout: float = 2.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def _start(args, env):
    return subprocess.Popen([sys.executable, "-m", "assistant.apps.cli", "live", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)


def _wait_for(pred, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            v = pred()
            if v:
                return v
        except OSError:
            pass
        time.sleep(0.3)
    return None


def test_real_server_survives_kill_9_and_resumes_the_game(recording, tmp_path):
    """The CLI as systemd runs it: a real server on a free port; kill -9 mid-game; the restart resumes the same
    game with the same events; SIGTERM ends it cleanly."""
    folder = tmp_path / "frames"
    shutil.copytree(recording, folder)
    meta = _meta(folder)
    data = tmp_path / "data"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    common = ["--source", f"folder:{folder}", "--camera", str(folder / "camera.json"), "--data-dir", str(data),
              "--host", "127.0.0.1", "--port", str(port), "--no-qr"] + sum((["--layout", n] for n in meta["layouts"]), [])
    p = _start(common + ["--players", ",".join(meta["players"]), "--seed", str(meta["seed"])], env)
    try:
        snap = _wait_for(lambda: (lambda s: s if s.get("seq", 0) > 0 else None)(_get_json(url + "/api/snapshot")), 180)
        assert snap, "no event reached the tablet page"
        game = snap["game_id"]
    finally:
        p.kill()  # kill -9: no clean-up at all
        out1 = p.communicate(timeout=30)[0]
    assert p.returncode == -signal.SIGKILL, out1
    p2 = _start(common, env)
    try:
        snap2 = _wait_for(lambda: _get_json(url + "/api/snapshot"), 60)
        assert snap2 and snap2["game_id"] == game, (snap2, out1)
        assert snap2["seq"] >= snap["seq"]
        assert _wait_for(lambda: urllib.request.urlopen(url + "/board.jpg", timeout=2).status == 200, 120)
    finally:
        p2.send_signal(signal.SIGTERM)
        out2 = p2.communicate(timeout=60)[0]
    assert p2.returncode == 0, out2
    assert "stopped; the game is kept" in out2 and f"game {game}" in out2


class FakeCam:
    """A camera that can be unplugged and plugged back (a vision.sources.LiveSource driver)."""

    def __new__(cls, image):
        from vision.sources import LiveSource

        class _Cam(LiveSource):
            kind = "usb"
            plugged = True

            def describe(self):
                return "fake camera"

            def _connect(self):
                return object() if self.plugged else None

            def _grab(self, handle):
                time.sleep(0.02)
                return image.copy() if self.plugged else None

        return _Cam(stall_s=0.5, retries=2, backoff_s=0.05, max_backoff_s=0.1)


def test_an_unplugged_camera_is_reported_and_picked_up_again(monkeypatch):
    import assistant.apps.live as L

    monkeypatch.setattr(L, "STALE_FRAME_S", 0.3)
    img = np.full((360, 640, 3), 120, np.uint8)
    cam = FakeCam(img)
    msgs, say = _quiet()
    live = Live(cam, None, on_message=say, reopen_s=0.1)
    live.start()
    try:
        assert _wait_for(lambda: live.pipeline.stats.frames > 3, 20)
        assert live.camera_frame() is not None
        cam.plugged = False
        assert _wait_for(lambda: any("Retrying" in t for _, t in msgs), 20), msgs
        assert live.camera_frame() is None  # no stale picture for the camera check
        assert live.board_view() is not None  # the board view says what is wrong
        seen = live.pipeline.stats.frames
        cam.plugged = True
        assert _wait_for(lambda: live.pipeline.stats.frames > seen + 3, 20)
        assert live.camera_frame() is not None and live._thread.is_alive()
    finally:
        live.stop()
