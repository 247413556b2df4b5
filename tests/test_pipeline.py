"""The live loop's robustness: corrupt frames, boards out of view, layouts that do not match the table, a missing
camera, a tracker that fails; and observations reaching the session from a rendered recording."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from assistant.errors import UserError
from calibration import camera as cam
from calibration import layout as lay
from tests.conftest_vision import real
from vision.pipeline import Pipeline, as_bgr
from vision.sources import FolderSource, Frame, FrameSource


class FakeSession:
    def __init__(self, fail: bool = False):
        self.observations = []
        self.fail = fail

    def feed(self, obs):
        self.observations.append(obs)
        if self.fail:
            raise RuntimeError("tracker exploded")
        return [{"kind": "MoveRecognized", "frame": obs.frame}]


def _collect():
    msgs = []
    return msgs, lambda level, text: msgs.append((level, text))


def test_corrupt_frames_and_wrong_layout_are_reported_not_fatal(tmp_path):
    shutil.copy(real("aruco-sheet", "frame.jpg"), tmp_path / "000.jpg")
    (tmp_path / "001.jpg").write_bytes(b"garbage")
    shutil.copy(real("aruco-sheet", "aruco.jpg"), tmp_path / "002.jpg")
    msgs, say = _collect()
    p = Pipeline(FolderSource(tmp_path, fps=0.5), [lay.load_builtin("wendake-map-2p")], FakeSession(), on_message=say,
                 mismatch_after_s=1.0)
    stats = p.run()
    assert stats.frames == 3 and stats.corrupt == 1
    texts = " | ".join(t for _, t in msgs)
    assert "corrupt" in texts
    assert "wendake-map-2p not found" in texts and "--layout" in texts
    assert stats.observations == 0  # nothing is made up for a board that was never seen


def test_board_found_in_a_real_photo_is_read():
    msgs, say = _collect()
    sess = FakeSession()
    folder = real("aruco-sheet")
    p = Pipeline(FolderSource(folder), [lay.load_builtin("aruco-sheet")], sess, on_message=say)
    # two real photos differ (different shots), so feed the same photo three times: still for 0.4 s
    import cv2

    img = cv2.imread(str(folder / "aruco.jpg"))
    for i, t in enumerate((0.0, 0.2, 0.45)):
        p.step(Frame(i, t, img))
    assert len(sess.observations) == 1
    assert sess.observations[0].boards_read == ("aruco-sheet",)


def test_a_board_seen_by_too_few_markers_says_how_many_and_what_to_clear():
    """A real photo of the marker sheet with all but two of its markers painted over: the board is never found
    (a first fit needs three), and the warning says that two of its markers are seen and what to clear, not that
    none is in the picture (4p s9: one corner under a score track, one under a beaver pile)."""
    import cv2

    from vision.markers import find_markers

    img = cv2.imread(str(real("aruco-sheet", "aruco.jpg")))
    sheet = lay.load_builtin("aruco-sheet")
    found = find_markers(img, {m["dictionary"] for m in sheet["markers"]})
    ours = [(m["dictionary"], m["id"]) for m in sheet["markers"] if (m["dictionary"], m["id"]) in found]
    assert len(ours) >= 4
    for key in ours[2:]:
        c = found[key]
        centre = c.mean(axis=0)
        cv2.fillConvexPoly(img, np.round(centre + 1.4 * (c - centre)).astype(np.int32), (255, 255, 255))
    msgs, say = _collect()
    p = Pipeline(FolderSource(real("aruco-sheet")), [sheet], FakeSession(), on_message=say, mismatch_after_s=1.0)
    for i, t in enumerate((0.0, 0.6, 1.2)):
        p.step(Frame(i, t, img))
    texts = " | ".join(t for _, t in msgs)
    assert f"only 2 of its {len(sheet['markers'])} corner markers can be seen" in texts, texts
    assert "none of its markers" not in texts


def test_as_bgr_normalises_or_rejects():
    assert as_bgr(np.zeros((4, 4), np.uint8)).shape == (4, 4, 3)
    assert as_bgr(np.zeros((4, 4, 4), np.uint8)).shape == (4, 4, 3)
    assert as_bgr(np.zeros((4, 4, 3), np.uint16)).dtype == np.uint8
    assert as_bgr(np.zeros((4, 4, 3), np.float32)) is None
    assert as_bgr(None) is None and as_bgr(np.zeros((0,), np.uint8)) is None


class FlakySource(FrameSource):
    """Missing at first, then delivers a few copies of one image."""

    def __init__(self, img, missing: int = 2, n: int = 3):
        super().__init__()
        self.img, self.missing, self.n, self.i = img, missing, n, 0

    def open(self):
        if self.missing > 0:
            self.missing -= 1
            raise UserError("cannot open USB camera 0.")
        self.is_open = True
        return self

    def read(self):
        if self.i >= self.n:
            return None
        self.i += 1
        return Frame(self.i - 1, 0.2 * self.i, self.img)


def test_missing_camera_is_waited_for_when_live_and_an_error_otherwise():
    img = np.full((240, 320, 3), 128, np.uint8)
    msgs, say = _collect()
    p = Pipeline(FlakySource(img), [lay.load_builtin("wendake-map-2p")], FakeSession(), on_message=say,
                 wait_for_camera=True, reopen_s=0.01)
    stats = p.run(max_seconds=5)
    assert stats.frames == 3
    assert any("Retrying" in t for _, t in msgs)
    with pytest.raises(UserError):
        Pipeline(FlakySource(img), [lay.load_builtin("wendake-map-2p")], FakeSession()).run()


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    from models.synth.recording import RecordingOptions, render_game

    out = tmp_path_factory.mktemp("rec")
    render_game(out, RecordingOptions(players=2, seed=4, max_states=2, hand_rate=0.0))
    return out


def test_recording_feeds_the_session_and_a_failing_tracker_is_survived(recording):
    meta = json.loads((recording / "session.json").read_text())
    layouts = [lay.resolve(n) for n in meta["layouts"]]
    K = cam.load(recording / "camera.json")
    sess = FakeSession()
    p = Pipeline(FolderSource(recording), layouts, sess, camera=K, on_message=lambda *a: None)
    stats = p.run()
    assert stats.observations >= 2 and len(p.events) == stats.observations
    assert stats.summary()["stages_ms"]["detect"]["n"] >= 1
    msgs, say = _collect()
    bad = Pipeline(FolderSource(recording), layouts, FakeSession(fail=True), camera=K, on_message=say)
    stats = bad.run()
    assert stats.frames == p.stats.frames
    assert any("tracker failed" in t for _, t in msgs)


def test_latency_summary_counts_the_looks_over_the_target():
    """``tablewatch e2e`` and the replays report how many looks took longer than the 250 ms target (issue 5) and
    the slowest, not only the median and p95, which hide a few slow looks."""
    from vision.pipeline import LATENCY_TARGET_MS, PipelineStats

    stats = PipelineStats()
    stats.latency_ms += [10.0, 20.0, LATENCY_TARGET_MS + 50.0, LATENCY_TARGET_MS]
    got = stats.summary()["latency_ms"]
    assert got["n"] == 4 and got["over_target"] == 1 and got["max"] == LATENCY_TARGET_MS + 50.0
    assert PipelineStats().summary()["latency_ms"] == {"n": 0}
