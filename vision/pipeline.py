"""The live loop: camera source -> Observer -> GameSession.feed, with stage timings and recovery from bad input.

``Pipeline(source, layouts, session, camera=None, ...)`` owns the loop and its robustness; the reading itself
is ``vision.observe.Observer`` and the game is the session's (``assistant.table.session.GameSession``: it stores every
observation and event in its crash-safe log, so nothing here can lose the game).

Bad input, each with a message (``on_message(level, text)``, once per change, not once per frame) and a
recovery:
- camera missing at start: with ``wait_for_camera`` the loop retries opening it every ``reopen_s`` seconds
  until it appears (a live table), else a UserError (replays);
- camera unplugged or stalled: the source reconnects by itself (``vision.sources``); when it gives up the loop
  keeps retrying at ``reopen_s`` while the game waits in the session;
- a corrupt frame (undecodable file, wrong shape, an exception while reading it): skipped and counted;
- a board out of view or its markers covered: reported with the board and for how long; the other boards are
  still read, and a covered board is read with its last pose while nothing on it changes;
- a layout that does not match the table: when a board has not been found for ``mismatch_after_s`` while the
  camera sees markers no given layout uses, the message names those marker ids and the --layout option;
- the session failing to store (full disk): reported; the loop goes on and the session says so in its snapshot.

For a long-running table (``assistant.apps.live``) the loop can change what it feeds while it runs, always between two
frames and in the loop's own thread: ``replace_session(s)`` (a game started from the tablet; ``None`` = no game
yet: observations are still made, nothing is fed) and ``replace_layouts(layouts, camera)`` (boards chosen in the
setup wizard; ``[]`` = none yet: frames are still read, for the camera check). ``on_frame(frame, image, result)``
sees every usable frame and its ``FrameResult`` (None while there are no layouts).

Each observation reaches the session with its readings' confidences made their measured reliability
(``vision.reliability``: the base one, with the table profile's own where it has enough readings; ``profile``, also
handed to the observer for its adaptation); ``on_observation`` sees it as read (what harvest and saved looks keep).
For the adaptation guard (``assistant.apps.learn.AdaptationGuard``): ``board_views`` gives the boards of the last
look as its readers saw them (``vision.boardviews``), ``read_base`` reads such views with the base models, and
``use_adaptation(False)`` reads with the base models from the next frame on (``True``: with the adaptation again).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from assistant.errors import UserError
from vision.boardviews import read_views, reader_views
from vision.locate import MIN_MARKERS_FRESH, MIN_MARKERS_TRACKED
from vision.observe import Observer, check_layouts
from vision.reliability import Reliability, for_profile, region_kinds

STAGES = ("locate", "settle", "rectify", "detect", "assign", "tracker")
LATENCY_TARGET_MS = 250.0  # issue 5: a settled frame to its event; ``PipelineStats.summary`` counts the looks over it


@dataclass
class PipelineStats:
    frames: int = 0
    corrupt: int = 0
    observations: int = 0
    events: int = 0
    reconnects: int = 0
    timings_ms: dict = field(default_factory=lambda: {s: [] for s in STAGES})  # per frame that ran the stage
    latency_ms: list = field(default_factory=list)  # frame in -> events out, for frames that fed an observation

    def summary(self) -> dict:
        def st(v):
            return {"n": len(v), "median": round(float(np.median(v)), 2), "p95": round(float(np.percentile(v, 95)), 2),
                    "max": round(float(max(v)), 2), "over_target": sum(x > LATENCY_TARGET_MS for x in v)} if v else {"n": 0}

        return {"frames": self.frames, "corrupt": self.corrupt, "observations": self.observations, "events": self.events,
                "reconnects": self.reconnects, "stages_ms": {k: st(v) for k, v in self.timings_ms.items()},
                "latency_ms": st(self.latency_ms)}


def _stderr_message(level: str, text: str) -> None:
    print(f"tablewatch [{level}]: {text}", file=sys.stderr, flush=True)


def as_bgr(image):
    """A frame as 3-channel uint8 BGR, or None when it cannot be one (a corrupt or empty buffer)."""
    import cv2

    if image is None or not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        return None
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        else:
            return None
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image if image.shape[2] == 3 else None


class Pipeline:
    def __init__(self, source, layouts: list[dict], session, camera=None, detector=None, settle=None, threads: int = 2,
                 on_message=None, on_event=None, on_observation=None, wait_for_camera: bool = False, reopen_s: float = 5.0,
                 mismatch_after_s: float = 10.0, hold_s: float = 2.0, on_frame=None, allow_no_layouts: bool = False,
                 profile=None):
        self.source = source
        self.session = session
        self.profile = profile  # the table profile (``assistant.table.profile.TableProfile``) or None
        self._observer_args = {"detector": detector, "settle": settle, "threads": threads, "hold_s": hold_s}
        if profile is not None:
            self._observer_args["profile"] = profile
        self._kinds = region_kinds(layouts or [])
        self.observer = self._make_observer(layouts, camera, allow_none=allow_no_layouts)
        self.on_message = on_message or _stderr_message
        self.on_event = on_event
        self.on_observation = on_observation
        self.on_frame = on_frame
        self.last_result = None  # FrameResult of the last processed frame
        self._pending: dict = {}  # "session" / "layouts" -> the change to make before the next frame
        self.wait_for_camera = wait_for_camera
        self.reopen_s = reopen_s
        self.mismatch_after_s = mismatch_after_s
        self.stats = PipelineStats()
        self.events: list = []
        self.messages: list[tuple[str, str]] = []
        self._said: dict[str, str] = {}  # topic -> last text said (so a state is reported once)
        self._board_state: dict[str, tuple[str, float]] = {}  # board -> (state, since t)
        self._ever_found: set[str] = set()
        self._first_t: float | None = None
        self._stop = False
        self.last_image = None  # the last usable frame (BGR, as the camera gave it)
        self._base_observer: Observer | None = None  # reads views with the base models (``read_base``)
        self._say_notes()
        self.reliability = self._load_reliability(profile)  # what the session's observations are weighed by

    def _load_reliability(self, profile):
        """The measured reliability (``vision.reliability.for_profile``); a broken file is said and left out."""
        for prof in ((profile, None) if profile is not None else (None,)):
            try:
                return for_profile(prof)
            except UserError as exc:
                self.say("warning", f"{exc} Reading goes on without it.", topic="reliability")
        return Reliability(source="none")

    def _make_observer(self, layouts, camera, allow_none: bool = False):
        if not layouts and allow_none:
            return None
        return Observer(layouts, camera=camera, **self._observer_args)

    def _say_notes(self) -> None:
        for note in (self.observer.notes if self.observer is not None else []):
            self.say("info", note, topic="note:" + note)

    # ------------------------------------------------------------------------------------------ changes while running

    def replace_session(self, session) -> None:
        """Feed ``session`` from the next frame on (thread-safe; ``None``: feed nothing). Every board's readings
        go into the next observation again, so the new game sees the whole table."""
        self._pending["session"] = session

    def replace_layouts(self, layouts: list[dict], camera=None) -> None:
        """Read these boards from the next frame on (thread-safe). Bad layouts raise UserError here, at once."""
        if layouts:
            check_layouts(layouts)
        self._pending["layouts"] = (list(layouts), camera)

    def use_adaptation(self, on: bool) -> None:
        """Read with the table profile's adaptation (``on``) or with the base models from the next frame on
        (thread-safe): the same boards, read by a new observer, with the matching reliability."""
        self._pending["adaptation"] = bool(on)

    @property
    def adapted(self) -> bool:
        """Whether the boards are read with the table profile's adaptation now."""
        return self.observer is not None and getattr(self.observer, "adaptation", None) is not None

    def board_views(self, boards=None) -> dict:
        """The boards of the last look as its readers saw them, from the last frame (``vision.boardviews.reader_views``)."""
        return {} if self.observer is None else reader_views(self.observer, self.last_image, boards)

    def read_base(self, views: dict) -> dict:
        """``views`` (``board_views``) read with the base models: an observer of the same boards without the table
        profile, made at the first call and kept while the boards stay."""
        ob = self.observer
        if self._base_observer is None or set(self._base_observer.layouts) != set(ob.layouts):
            args = {k: v for k, v in self._observer_args.items() if k != "profile"}
            self._base_observer = Observer(list(ob.layouts.values()), camera=ob.camera, **args)
        return read_views(self._base_observer, views)

    def _apply_pending(self) -> None:
        if "adaptation" in self._pending:
            on = self._pending.pop("adaptation") and self.profile is not None
            if on != ("profile" in self._observer_args):
                if on:
                    self._observer_args["profile"] = self.profile
                else:
                    self._observer_args.pop("profile", None)
                if self.observer is not None and "layouts" not in self._pending:
                    self._pending["layouts"] = (list(self.observer.layouts.values()), self.observer.camera)
        if "layouts" in self._pending:
            layouts, camera = self._pending.pop("layouts")
            try:
                self.observer = self._make_observer(layouts, camera, allow_none=True)
                self._kinds = region_kinds(layouts)
                self.reliability = self._load_reliability(self._observer_args.get("profile"))  # a new adaptation's own too
            except UserError as exc:  # e.g. a layout whose art cannot be drawn: say it, read nothing meanwhile
                self.observer = None
                self.say("error", f"the boards cannot be read: {exc}", topic="layouts")
            self._board_state.clear()
            self._ever_found.clear()
            self._first_t = None
            self._said.pop("mismatch", None)
            self._say_notes()
        if "session" in self._pending:
            self.session = self._pending.pop("session")
            if self.observer is not None:
                self.observer.emitted.clear()
                self.observer.pending_since = None
            self._said.pop("session", None)

    # ------------------------------------------------------------------------------------------ messages

    def say(self, level: str, text: str, topic: str | None = None) -> None:
        if topic is not None:
            if self._said.get(topic) == text:
                return
            self._said[topic] = text
        self.messages.append((level, text))
        self.on_message(level, text)

    def stop(self) -> None:
        self._stop = True

    # ------------------------------------------------------------------------------------------ the loop

    def _open(self) -> bool:
        """Open the source; False (after a message) when a live camera is missing and we wait for it."""
        try:
            self.source.open()
            self._said.pop("camera", None)
            return True
        except UserError as exc:
            if not self.wait_for_camera:
                raise
            self.say("error", f"{exc} Retrying every {self.reopen_s:g} s; the game is kept.", topic="camera")
            return False

    def run(self, max_frames: int | None = None, max_seconds: float | None = None) -> PipelineStats:
        """Process frames until the source ends (recordings), ``stop()``, or the limits. Returns the stats."""
        t_end = None if max_seconds is None else time.monotonic() + max_seconds
        opened = self._open()
        try:
            while not self._stop:
                if t_end is not None and time.monotonic() > t_end:
                    break
                if max_frames is not None and self.stats.frames >= max_frames:
                    break
                if not opened:
                    time.sleep(self.reopen_s)
                    opened = self._open()
                    continue
                frame = self.source.read()
                if frame is None:
                    err = getattr(self.source, "error", None)
                    if err and self.wait_for_camera:
                        self.say("error", f"{err} Retrying every {self.reopen_s:g} s; the game is kept.", topic="camera")
                        self.stats.reconnects += 1
                        try:
                            self.source.close()
                        except Exception:
                            pass
                        opened = False
                        continue
                    if err:
                        self.say("error", err, topic="camera")
                    break
                self.step(frame)
        finally:
            try:
                self.source.close()
            except Exception:
                pass
        return self.stats

    def step(self, frame) -> list:
        """One frame through observe -> session. Returns the events it caused. Never raises for bad frames."""
        if self._pending:
            self._apply_pending()
        t_in = time.perf_counter()
        self.stats.frames += 1
        image = as_bgr(frame.image)
        if image is None:
            self.stats.corrupt += 1
            why = getattr(frame, "error", None) or f"frame {frame.index} is not a usable image"
            self.say("warning", f"{why} ({self.stats.corrupt} corrupt frames so far)", topic="corrupt")
            return []
        self.last_image = image
        if self.observer is None:  # no boards chosen yet: the frame is only shown (camera check)
            self.last_result = None
            self._frame_hook(frame, image, None)
            return []
        try:
            res = self.observer.process(frame.index, frame.t, image)
        except UserError:
            raise
        except Exception as exc:  # a frame OpenCV chokes on must not end the game
            self.stats.corrupt += 1
            self.say("warning", f"frame {frame.index} could not be read ({type(exc).__name__}: {exc}); it was skipped.", topic="corrupt")
            return []
        self.last_result = res
        self._frame_hook(frame, image, res)
        for k, v in res.timings_ms.items():
            self.stats.timings_ms.setdefault(k, []).append(v)
        self._report_boards(res)
        for w in res.warnings:
            self.say("warning", w, topic="warn:" + w)
        if res.observation is None:
            return []
        self.stats.observations += 1
        if self.on_observation is not None:
            self.on_observation(res.observation)
        if self.session is None:
            self.say("info", "no game yet: the table is read but nothing is tracked. Start a game on the tablet (Setup).",
                     topic="session")
            return []
        t0 = time.perf_counter()
        try:
            events = list(self.session.feed(self.reliability.apply(res.observation, self._kinds)) or [])
        except UserError as exc:
            self.say("error", f"the game could not take this observation: {exc}", topic="session")
            return []
        except OSError as exc:
            self.say("error", f"the game log could not be written ({exc.strerror or exc}); free some disk space. "
                     "Observations go on being read.", topic="session")
            return []
        except Exception as exc:  # a tracker bug must not stop the camera: report it, keep reading
            self.say("error", f"the tracker failed on observation of frame {frame.index} ({type(exc).__name__}: {exc}); "
                     "it was skipped. Please report this.", topic="session-bug")
            return []
        t1 = time.perf_counter()
        self._said.pop("session", None)  # stored again: a later failure is reported again
        self.stats.timings_ms.setdefault("tracker", []).append((t1 - t0) * 1000)
        self.stats.latency_ms.append((t1 - t_in) * 1000)
        self.stats.events += len(events)
        self.events += events
        if self.on_event is not None:
            for e in events:
                self.on_event(e)
        return events

    def _frame_hook(self, frame, image, res) -> None:
        if self.on_frame is None:
            return
        try:
            self.on_frame(frame, image, res)
        except Exception as exc:  # a display hook must never stop the reading
            self.say("warning", f"frame display failed ({type(exc).__name__}: {exc}).", topic="on_frame")

    def _report_boards(self, res) -> None:
        if self._first_t is None:
            self._first_t = res.t
        for board, state in res.boards.items():
            if state in ("read", "cached"):
                self._ever_found.add(board)
                state = "read"
            prev = self._board_state.get(board)
            if prev is None or prev[0] != state:
                self._board_state[board] = (state, res.t)
                if state == "read" and prev is not None and prev[0] in ("out of view", "markers covered"):
                    self.say("info", f"{board} is back in view after {res.t - prev[1]:.0f} s.", topic="board:" + board)
                elif state == "out of view" and board in self._ever_found:
                    self.say("warning", f"{board} is out of view: none of its markers can be seen. Move it back under the "
                             "camera; the other boards are still read.", topic="board:" + board)
                elif state == "markers covered":
                    self.say("warning", f"the markers of {board} are covered; it is read with its last position while nothing "
                             "on it changes. Uncover the markers.", topic="board:" + board)
                continue
            since = res.t - prev[1]
            if state == "markers covered" and since >= 60 and int(since) // 60 != int(since - 1e-9) // 60:
                self.say("warning", f"the markers of {board} have been covered for {since / 60:.0f} min. Uncover them.",
                         topic="board:" + board)
        never = [b for b in res.boards if b not in self._ever_found]
        if never and res.t - self._first_t >= self.mismatch_after_s:
            if res.unknown_markers:
                self.say("error", f"{', '.join(never)} not found after {self.mismatch_after_s:g} s, but the camera sees markers "
                         f"{res.unknown_markers} that no given layout uses: the layouts do not match the boards on the table. "
                         "Check --layout (e.g. the map for the right player count).", topic="mismatch")
            else:
                part = {b: res.markers_seen[b] for b in never if res.markers_seen.get(b, (0, 0))[0]}
                gone = [b for b in never if b not in part]
                if gone:
                    self.say("warning", f"{', '.join(gone)} not found after {self.mismatch_after_s:g} s: none of its markers is "
                             "in the picture. Put the board under the camera or drop its --layout.", topic="mismatch")

                for b, (n, total) in part.items():  # 4p s9: one corner under a score track, one under a beaver pile
                    self.say("warning", f"{b} not found after {self.mismatch_after_s:g} s: only {n} of its {total} corner "
                             f"markers can be seen, too few to find it the first time ({MIN_MARKERS_FRESH}, or "
                             f"{MIN_MARKERS_TRACKED} lying flat on the table of a board already found). Clear pieces off its "
                             "markers and move any board that lies over them; nothing on it is read until then.",
                             topic="partly:" + b)
