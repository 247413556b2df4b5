"""``tablewatch live``: the product's main loop on a real table — camera pipeline + game session + tablet page.

One process, two sides:
- a background thread runs ``vision.pipeline.Pipeline`` on the camera (``--source``) and feeds the current
  ``GameSession`` (its SQLite log keeps every observation and event, so a crash, ``kill -9`` or power cut loses
  nothing: the next start resumes the newest game from the log);
- the main thread serves the tablet app (``web.server.serve``) with the hooks docs/web.md describes:
  ``BOARD_IMAGE`` (the rectified boards with regions and detections drawn, the boards' states and the latest
  camera messages), ``CAMERA_FRAME`` (the newest camera frame, for the setup wizard's live camera check and
  colour calibration) and ``on_new_session`` (a game started from the wizard is the one the pipeline feeds).

Which game: ``--players A,B`` starts a new one; ``--game ID`` resumes that one; otherwise the newest game in the
database is resumed (none yet: the tablet's Setup starts one, the camera meanwhile reads the table for the
board view). Which boards: ``--layout`` (repeat), else the layouts chosen in the wizard (``DATA_DIR/setup.json``,
watched while running: a new choice is used from the next frame), else none yet (frames are only shown).
Camera intrinsics: ``--camera``, else ``DATA_DIR/camera.json`` when present; rescaled to the frame size.

Bad input never ends the game: a missing or unplugged camera is waited for (message every change, retry every
``reopen_s``), a board out of view / covered markers / a layout that does not match the table / corrupt frames
are reported by the pipeline, a full disk is reported by the session (``log_status``) and the loop goes on; an
unexpected error in the loop is reported and the loop restarts. Messages go to stderr (journald under systemd)
and onto the board view.

Learning the table (``assistant.apps.learn``): the table profile (``--table NAME``, default ``profile_name`` of the
layouts and the camera, under ``DATA_DIR/tables/``) is read with its adaptation; each look the tracker explains
surely is harvested into it; the set-up check and the adapt's progress go into its ``status.json``; an adapt runs
by itself between games (a game over, or no move for ``ADAPT_IDLE_S`` while looks wait to be learned), at low
priority, never two at once, and the tablet can ask for one (``ADAPT_NOW``). A new adaptation is read from the
next game on, or at once when the table is idle, without a restart. On the set-up look of each new game the
adaptation is judged against the base models (``AdaptationGuard``): when it read the set-up worse, the game is
read with the base models, and the next game with the adaptation again.

Many tables (docs/hub.md): ``--hub mqtt://HOST:1883 --table "Table 7"``, or the hub set in the tablet's Setup,
publishes the game log to the hub's broker (``assistant.apps.hub_publish.HubLink``, a background follower of the
log: a broker that is down never slows the game). ``--table`` then names the table at the hub too; its profile
folder is the name itself when it is a profile name, else the name's slug (``table-7``).

Owns ``Live`` (the loop thread, hooks and board-view rendering) and the ``live`` subcommand (registered by
``assistant.apps.pipecli``).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from pathlib import Path

import numpy as np

from assistant.apps.hub_publish import HubLink
from assistant.apps.learn import AdaptationGuard, AdaptRunner, Harvester, HarvestingFeed, StatusBoard
from assistant.apps.serve import open_session
from assistant.apps.stopping import sigterm_to_interrupt
from assistant.errors import UserError
from assistant.table import hubfollow, hubmsg, paths
from assistant.table.profile import TableProfile, check_name, open_profile, profile_name
from assistant.table.session import GameSession
from calibration import camera as cam
from calibration import layout as lay
from vision.detect import Detector
from vision.pipeline import Pipeline
from vision.sources import LiveSource, open_source, parse_size
from web.server import make_app, serve

VIEW_WIDTH = 1280  # width of the board-view picture
JPEG_QUALITY = 80
SETUP_POLL_S = 2.0  # how often setup.json is checked for a new layout choice
STALE_FRAME_S = 5.0  # a live camera's frame older than this is not shown as "the camera's picture"
REGION_COLOURS = {  # BGR per region kind in the board view
    "productive_area": (0, 200, 255), "territory": (60, 180, 60), "lake": (230, 140, 40), "tile_slot": (200, 80, 200),
}
PIECE_COLOURS = {"red": (40, 40, 230), "blue": (220, 120, 30), "green": (60, 170, 40), "yellow": (20, 220, 240),
                 "black": (30, 30, 30), "white": (245, 245, 245), "purple": (160, 60, 140), "orange": (0, 140, 255)}
STATE_OK = ("read", "cached")
ADAPT_IDLE_S = 10 * 60.0  # no move for this long, with new looks: the table is idle, learn from them
LEARN_POLL_S = 15.0  # how often the learning thread looks at the table
MIN_NEW_LOOKS = 1  # harvested looks since the last adapt that make another worth running


def _stderr(level: str, text: str) -> None:
    print(f"tablewatch live [{level}]: {text}", file=sys.stderr, flush=True)


def is_live_source(source) -> bool:
    return isinstance(source, LiveSource)


def resolve_layout(name: str, data_dir: Path | None) -> dict:
    """A layout by name: the user's traced one in ``DATA_DIR/layouts/<name>.json`` first, then a file path or a
    built-in layout."""
    if data_dir is not None:
        own = Path(data_dir) / "layouts" / f"{name}.json"
        if own.is_file():
            return lay.load(own)
    return lay.resolve(name)


def setup_layout_names(data_dir: Path | None) -> list[str]:
    """The layouts chosen in the setup wizard (``DATA_DIR/setup.json``), map first; [] when none."""
    if data_dir is None:
        return []
    path = Path(data_dir) / "setup.json"
    if not path.is_file():
        return []
    try:
        boards = json.loads(path.read_text(encoding="utf-8")).get("boards") or {}
    except (json.JSONDecodeError, OSError, AttributeError):
        return []
    names = [n for role, n in sorted(boards.items(), key=lambda kv: (kv[0] != "map", kv[0])) if isinstance(n, str) and n]
    return list(dict.fromkeys(names))


class Live:
    """The camera loop feeding the current game, and the web hooks. ``start()`` / ``stop()``; thread-safe hooks."""

    def __init__(self, source, session=None, layouts: list[str] | None = None, data_dir=None, camera_file=None,
                 detector=None, threads: int = 2, settle=None, reopen_s: float = 5.0, on_message=None,
                 messages_kept: int = 50, profile: TableProfile | None = None, adapt_command=None,
                 adapt_idle_s: float = ADAPT_IDLE_S):
        self.source = source
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.fixed_layouts = list(layouts or [])  # from the command line: never replaced by the wizard's choice
        self.camera_file = Path(camera_file) if camera_file else None
        if self.camera_file is not None and not self.camera_file.is_file():
            raise UserError(f"camera file {self.camera_file} not found. Make one with: tablewatch calibrate camera ... "
                            f"--out {self.camera_file}, or leave out --camera.")
        self.on_message = on_message or _stderr
        self.messages: deque = deque(maxlen=messages_kept)  # (time.time(), level, text)
        self._lock = threading.Lock()
        self._frame = None  # newest usable camera frame (BGR)
        self._frame_at = 0.0  # time.monotonic() when it came
        self._frame_size = None  # (w, h) the current layouts/camera were set up for
        self._layout_names: list[str] = []
        self._setup_mtime = None
        self._setup_checked = 0.0
        self._view_cache: tuple | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.ended = threading.Event()  # set when a recorded source has been played to its end
        self.error: str | None = None
        # layouts given on the command line are checked now, so a typo fails at start (exit 2), not in the loop
        self._fixed_data = [resolve_layout(n, self.data_dir) for n in self.fixed_layouts]

        if detector is None or isinstance(detector, (str, Path)):  # loaded once, now: a bad --model fails at start
            detector = Detector(str(detector or "detector"), threads=threads)
        self.profile = profile
        self.pipeline = Pipeline(source, [], None, detector=detector, settle=settle, threads=threads,
                                 on_message=self._say, wait_for_camera=is_live_source(source), reopen_s=reopen_s,
                                 on_frame=self._on_frame, allow_no_layouts=True, profile=profile,
                                 on_event=self._on_event, on_observation=self._on_observation)
        self.harvester = Harvester(profile, background=True, on_error=lambda t: self._say("warning", t)) \
            if profile is not None else None
        self.board = StatusBoard(profile) if profile is not None else None
        self.guard = AdaptationGuard(self.pipeline, self.board, self._say) if profile is not None else None
        self._seen = None  # the last look as read (the set-up look, when a SetupCheck comes)
        self.adapter = AdaptRunner(profile, self.data_dir, self.board, command=adapt_command, on_done=self._adapted) \
            if profile is not None and self.data_dir is not None else None
        self.adapt_idle_s = adapt_idle_s
        self._fed = None  # the HarvestingFeed the pipeline feeds
        self._last_move = time.monotonic()  # when the last move came in (or the game started)
        self._learned_at = 0  # harvested looks when the last adapt started
        self._reload_pending = False  # a new adaptation waits for the next game (or an idle table)
        self._card_stamp = self._adaptation_stamp()  # the adaptation the boards are read with
        self._learn_thread: threading.Thread | None = None
        self.session = None
        self.set_session(session)

    # ------------------------------------------------------------------------------------------ messages

    def _say(self, level: str, text: str) -> None:
        self.messages.append((time.time(), level, text))
        self.on_message(level, text)

    # ------------------------------------------------------------------------------------------ the game

    def set_session(self, session) -> None:
        """Feed ``session`` from the next frame on (the web app's on_new_session callback). A placeholder without
        a game (web.adapter.NoGame) means: read the table, track nothing."""
        self.session = session
        real = session is not None and not type(session).__name__ == "NoGame" and callable(getattr(session, "feed", None))
        fed = session
        if real and hasattr(session, "check_setup"):
            session.check_setup = True  # a camera feeds it: its first look of the start position is checked
        if real and self.harvester is not None:
            fed = HarvestingFeed(session, self.harvester, lambda: self.pipeline)  # its boards at their readers' scale
        self._fed = fed if real else None
        self._last_move = time.monotonic()
        if self.guard is not None:  # a game read with the base models: the next one with the adaptation again
            self.guard.new_game()
        if self._reload_pending:  # the next game is read with the new adaptation
            self._reload_observer()
        self.pipeline.replace_session(fed if real else None)
        if real:
            self._say("info", f"tracking game {getattr(session, 'game_id', '?')}.")

    def _on_observation(self, observation) -> None:
        self._seen = observation
        fed = self._fed
        if fed is not None and hasattr(fed, "saw"):
            fed.saw(observation)

    def _on_event(self, event) -> None:
        kind = getattr(event, "kind", "")
        if kind in ("MoveRecognized", "Correction"):
            self._last_move = time.monotonic()
        if kind == "SetupCheck" and self.board is not None:
            self.board.setup_check(event, getattr(self.session, "game_id", None))
            if not event.ok:
                self._say("warning", f"set-up check: {event.text}")
        if kind == "SetupCheck" and self.guard is not None:
            try:
                self.guard.check(self.session, self._seen)
            except Exception as exc:  # noqa: BLE001 - the guard never stops the game: the adaptation stays
                self._say("warning", f"the set-up could not be read with the base model ({type(exc).__name__}: {exc}).")

    # ------------------------------------------------------------------------------------------ learning the table

    def adapt_now(self, why: str = "asked on the tablet") -> str:
        """Start an adapt in the background (the tablet's ADAPT_NOW); one line saying what happens."""
        if self.adapter is None:
            return "this table has no profile to learn into (no data folder)"
        if self.harvester is not None:
            fed = self._fed
            if fed is not None:
                self.harvester.sync(fed.session)  # corrections made since the last look take their looks back
            self.harvester.flush()
        text = self.adapter.start(why)
        if self.adapter.running:
            self._learned_at = self._harvested()
        return text

    def _harvested(self) -> int:
        c = self.harvester.counts if self.harvester is not None else {}
        return c.get("setup", 0) + c.get("explained", 0)

    def _idle(self) -> bool:
        """No game, a game over, or no move for ``adapt_idle_s``."""
        s = self.session
        if s is None or not callable(getattr(s, "feed", None)) or type(s).__name__ == "NoGame":
            return True
        try:
            if s.game.is_over(s.state):
                return True
        except Exception:  # noqa: BLE001 - a session without a game state is idle
            return True
        return time.monotonic() - self._last_move >= self.adapt_idle_s

    def _adaptation_stamp(self):
        """When the profile's adaptation last changed (its card's time and size), or None."""
        try:
            st = (self.profile.adapted_dir / "card.json").stat() if self.profile is not None else None
        except OSError:
            return None
        return None if st is None else (st.st_mtime_ns, st.st_size)

    def learn_step(self) -> str | None:
        """One look at the table by the learning thread: adapt when idle with new looks, read a new adaptation
        (this program's adapt, a `tablewatch adapt` or a rollback run by hand) when idle. The line it said, or None."""
        if self.adapter is None:
            return None
        stamp = self._adaptation_stamp()
        if stamp != self._card_stamp and not self.adapter.running:
            self._card_stamp, self._reload_pending = stamp, True
        if self._reload_pending and self._idle() and not self.adapter.running:
            self._reload_observer()
        if not self.adapter.running and self._idle() and self._harvested() - self._learned_at >= MIN_NEW_LOOKS:
            return self.adapt_now("between games")
        return None

    def _learn_loop(self) -> None:
        while not self._stop.wait(LEARN_POLL_S):
            try:
                text = self.learn_step()
                if text:
                    self._say("info", text)
            except Exception as exc:  # noqa: BLE001 - learning never stops the game
                self._say("warning", f"learning the table failed ({type(exc).__name__}: {exc}); the game goes on.")

    def _adapted(self, ok: bool, text: str) -> None:
        self._say("info" if ok else "warning", f"learning your table: {text}")
        if ok:
            self._card_stamp, self._reload_pending = self._adaptation_stamp(), True
            if self._idle():
                self._reload_observer()

    def _reload_observer(self) -> None:
        """Read the boards again with the profile's current adaptation (a new observer, from the next frame)."""
        self._reload_pending = False
        if self._frame_size is not None:
            self._configure(self._frame_size, force=True)

    # ------------------------------------------------------------------------------------------ boards

    def _wanted_layouts(self) -> tuple[list[str], list[dict]] | None:
        """(names, layouts) to read; None when the wizard's choice cannot be loaded (keep what is read now)."""
        if self.fixed_layouts:
            return self.fixed_layouts, self._fixed_data
        names = setup_layout_names(self.data_dir)
        data, bad = [], []
        for n in names:
            try:
                data.append(resolve_layout(n, self.data_dir))
            except UserError as exc:
                bad.append(f"{n} ({exc})")
        if bad:
            self._say("error", "the layouts chosen in Setup cannot be loaded: " + "; ".join(bad) + ". Choose them again in "
                      "Setup; the boards read so far are still read.")
            return None
        return [d["name"] for d in data], data

    def _camera_for(self, size):
        path = self.camera_file
        if path is None and self.data_dir is not None and (self.data_dir / "camera.json").is_file():
            path = self.data_dir / "camera.json"
        if path is None:
            return None

        try:
            return cam.load(path, size)
        except UserError as exc:
            self._say("warning", f"{exc} Going on without lens correction (boards near the picture's edge read worse).")
            return None

    def _configure(self, size, force: bool = False) -> None:
        """(Re)give the pipeline its boards and lens for this frame size when they changed."""
        if self.fixed_layouts:
            setup_changed = False
        else:
            now = time.monotonic()
            setup_changed = False
            if now - self._setup_checked >= SETUP_POLL_S or force:
                self._setup_checked = now
                path = self.data_dir / "setup.json" if self.data_dir is not None else None
                mtime = path.stat().st_mtime if path is not None and path.is_file() else None
                setup_changed = mtime != self._setup_mtime
                self._setup_mtime = mtime
        if not (force or setup_changed or size != self._frame_size):
            return
        wanted = self._wanted_layouts()
        if wanted is None:  # said once; tried again when setup.json changes
            self._frame_size = size
            return
        names, data = wanted
        if names == self._layout_names and size == self._frame_size and not force:
            return
        self._frame_size = size
        self._layout_names = names
        if not data:
            self._say("warning", "no boards to read yet: choose the layout of each board in Setup on the tablet "
                      "(or start with --layout). The camera picture is shown meanwhile.")
        else:
            self._say("info", f"reading {', '.join(names)} at {size[0]}x{size[1]}.")
        try:
            self.pipeline.replace_layouts(data, self._camera_for(size))
        except UserError as exc:
            self._say("error", f"{exc}")

    def _on_frame(self, frame, image, result) -> None:
        with self._lock:
            self._frame = image
            self._frame_at = time.monotonic()
        size = (image.shape[1], image.shape[0])
        self._configure(size, force=self._frame_size is None)

    # ------------------------------------------------------------------------------------------ the loop

    def start(self) -> "Live":
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="tablewatch-live", daemon=True)
        self._thread.start()
        if self.adapter is not None:
            self._learn_thread = threading.Thread(target=self._learn_loop, name="tablewatch-learn", daemon=True)
            self._learn_thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self.pipeline.stop()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.adapter is not None:
            self.adapter.stop()
        if self.harvester is not None:
            self.harvester.close()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.pipeline._stop = False
            try:
                self.pipeline.run()
            except UserError as exc:  # a recorded source that cannot be opened; a live one is waited for by run()
                self.error = str(exc)
                self._say("error", f"{exc}")
                if not is_live_source(self.source):
                    break
            except Exception as exc:  # noqa: BLE001 - the loop restarts; the game is in the session's log
                self.error = f"{type(exc).__name__}: {exc}"
                self._say("error", f"the camera loop failed ({self.error}); restarting it in "
                          f"{self.pipeline.reopen_s:g} s. The game is kept.")
            else:
                if not is_live_source(self.source) or self._stop.is_set():
                    if not self._stop.is_set():
                        s = self.pipeline.stats
                        self._say("info", f"the recording has ended ({s.frames} frames, {s.observations} observations, "
                                  f"{s.events} events); the tablet page stays up. Ctrl-C to stop.")
                    break
            self._stop.wait(self.pipeline.reopen_s)
        self.ended.set()

    # ------------------------------------------------------------------------------------------ web hooks

    def camera_frame(self):
        """The newest camera frame (BGR copy); None before the first one, and None when a live camera has sent
        nothing for ``STALE_FRAME_S`` (unplugged: the setup check then says the camera delivers no pictures)."""
        with self._lock:
            if self._frame is None:
                return None
            if is_live_source(self.source) and time.monotonic() - self._frame_at > STALE_FRAME_S:
                return None
            return self._frame.copy()

    def board_view(self) -> bytes | None:
        """The board view as JPEG: each board's last read with regions and detections, its state and the latest
        camera messages; the camera picture while no board is chosen; None before any frame or message."""
        import cv2

        pipe = self.pipeline
        obs = pipe.observer
        res = pipe.last_result
        states = dict(res.boards) if res is not None else {}
        msgs = tuple(text for _, level, text in list(self.messages)[-4:] if level != "info")
        key = (id(obs), obs.views_version if obs is not None else None, tuple(sorted(states.items())), msgs,
               id(self._frame) if obs is None else None)
        cached = self._view_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        if obs is None:
            frame = self.camera_frame()
            if frame is None and not msgs:
                return None
            canvas = _fit(frame, VIEW_WIDTH) if frame is not None else np.full((360, VIEW_WIDTH, 3), 40, np.uint8)
            img = _with_messages(canvas, ("camera picture: no boards chosen yet (Setup -> layouts)",) + msgs)
        else:
            img = render_board_view(obs, states, msgs, obs.threshold)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        data = buf.tobytes() if ok else None
        self._view_cache = (key, data)
        return data

    def board_jpeg(self, board: str, regions: list[str]) -> bytes | None:
        """One board's last read with ``regions`` marked, as JPEG (the tablet's BOARD_JPEG hook); None before it
        was read."""
        return board_jpeg(self.pipeline.observer, board, regions)

    def web_config(self) -> dict:
        config = {"BOARD_IMAGE": self.board_view, "CAMERA_FRAME": self.camera_frame, "BOARD_JPEG": self.board_jpeg}
        if self.profile is not None:
            config["TABLE_PROFILE"] = self.profile
        if self.adapter is not None:
            config["ADAPT_NOW"] = self.adapt_now
        return config

    def attach(self, app) -> None:
        """Follow the web app's game: a game started from the wizard is the one the pipeline feeds."""
        app.extensions["tablewatch"].on_new_session.append(self.set_session)


# ---------------------------------------------------------------------------------------------- drawing


def _fit(img: np.ndarray, width: int) -> np.ndarray:
    import cv2

    h, w = img.shape[:2]
    if w == width:
        return img.copy()
    return cv2.resize(img, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA if w > width else cv2.INTER_LINEAR)


def _text(img, text: str, org, scale: float = 0.6, colour=(255, 255, 255), thickness: int = 1) -> None:
    import cv2

    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thickness + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)


def _with_messages(img: np.ndarray, lines) -> np.ndarray:
    """The picture with a bar of message lines under it (long lines cut)."""
    lines = [ln if len(ln) <= 150 else ln[:147] + "..." for ln in lines if ln]
    if not lines:
        return img
    bar = np.full((26 * len(lines) + 10, img.shape[1], 3), (30, 30, 60), np.uint8)
    for i, ln in enumerate(lines):
        _text(bar, ln, (10, 24 + 26 * i), 0.55, (200, 230, 255))
    return np.vstack([img, bar])


def draw_board(view, layout: dict, threshold: float) -> np.ndarray:
    """One board's rectified view with its regions (by kind) and detections (ring in the piece's colour, grey and
    thin for near misses below ``threshold``)."""
    import cv2

    img = view.image.copy()
    r = view.px_per_mm
    for reg in layout.get("regions", []):
        kind = reg.get("kind")
        if kind == "colour_spot":
            continue
        pts = np.round(np.asarray(reg["polygon"], np.float64) * r).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, REGION_COLOURS.get(kind, (150, 150, 150)), 1, cv2.LINE_AA)
    for p in view.detections:
        c = (int(round(p.x_mm * r)), int(round(p.y_mm * r)))
        rad = max(3, int(round(max(p.w_mm, p.h_mm) * r / 2)))
        if p.score < threshold:
            cv2.circle(img, c, rad, (160, 160, 160), 1, cv2.LINE_AA)
            continue
        col = PIECE_COLOURS.get(p.colour, (255, 255, 255))
        cv2.circle(img, c, rad + 2, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.circle(img, c, rad, col, 2, cv2.LINE_AA)
        _text(img, p.cls[:3], (c[0] - rad, c[1] - rad - 3), 0.35 * max(1.0, r), (255, 255, 255))
    return img


def _titled(img: np.ndarray, title: str, ok: bool) -> np.ndarray:
    bar = np.full((30, img.shape[1], 3), (40, 90, 40) if ok else (20, 90, 170), np.uint8)
    _text(bar, title, (8, 21), 0.6)
    return np.vstack([bar, img])


def render_board_view(observer, states: dict, messages=(), threshold: float = 0.3, width: int = VIEW_WIDTH) -> np.ndarray:
    """Every board of ``observer`` in one BGR picture: the first board (the map) full width, the others three to a
    row, each titled with its name and state; then the messages."""
    views = dict(observer.views)
    tiles = []
    for name, board_layout in observer.layouts.items():
        state = states.get(name, "not read yet")
        v = views.get(name)
        if v is not None:
            img = draw_board(v, board_layout, threshold)
            when = f"{state}" if state in STATE_OK else f"{state} (showing the last read)"
        else:
            w, h = board_layout["size_mm"]
            img = np.full((max(1, int(h)), max(1, int(w)), 3), 60, np.uint8)
            when = state
        tiles.append((img, f"{name}: {when}", state in STATE_OK))
    rows = []
    if tiles:
        first, rest = tiles[0], tiles[1:]
        rows.append(_titled(_fit(first[0], width), first[1], first[2]))
        per_row = 3
        for i in range(0, len(rest), per_row):
            group = rest[i:i + per_row]
            tw = width // per_row
            cells = [_titled(_fit(img, tw), title, ok) for img, title, ok in group]
            hmax = max(c.shape[0] for c in cells)
            padded = [np.vstack([c, np.full((hmax - c.shape[0], tw, 3), 25, np.uint8)]) for c in cells]
            padded += [np.full((hmax, tw, 3), 25, np.uint8)] * (per_row - len(group))
            row = np.hstack(padded)
            if row.shape[1] < width:
                row = np.hstack([row, np.full((hmax, width - row.shape[1], 3), 25, np.uint8)])
            rows.append(row)
    canvas = np.vstack(rows) if rows else np.full((200, width, 3), 40, np.uint8)
    return _with_messages(canvas, list(messages))


def board_jpeg(observer, board: str, regions: list[str]) -> bytes | None:
    """One board of ``observer`` (its last read, ``draw_board``) with ``regions`` outlined thick in red, as JPEG;
    None when that board was never read."""
    import cv2

    view = observer.views.get(board) if observer is not None else None
    layout = observer.layouts.get(board) if observer is not None else None
    if view is None or layout is None:
        return None
    img = draw_board(view, layout, observer.threshold)
    wanted = {r.partition("#")[0] for r in regions}
    for reg in layout.get("regions", []):
        if reg.get("id") in wanted:
            pts = np.round(np.asarray(reg["polygon"], np.float64) * view.px_per_mm).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [pts], True, (0, 0, 255), 3, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return buf.tobytes() if ok else None


def pipeline_board_jpeg(pipeline, messages=()) -> bytes | None:
    """The board view (``render_board_view``) of a ``Pipeline``'s last look as JPEG, for a pipeline run outside
    ``Live`` (``tablewatch demo``'s BOARD_IMAGE hook); None while it has no boards."""
    import cv2

    obs = pipeline.observer
    if obs is None:
        return None
    res = pipeline.last_result
    img = render_board_view(obs, dict(res.boards) if res is not None else {}, messages, obs.threshold)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return buf.tobytes() if ok else None


# ---------------------------------------------------------------------------------------------- the command


def pick_source(spec: str, size, fps, pace: bool):
    if spec == "auto":
        try:
            import picamera2  # noqa: F401

            spec = "picam"
        except ImportError:
            spec = "usb:0"
    return open_source(spec, size=size, fps=fps, pace=pace)


def open_game(db: str, players: str | None, colours: str | None, seed: int | None, game: str | None):
    """The session to feed: a new game (``players``), the given one, the newest, or web.adapter.NoGame."""
    if players:
        names = [n.strip() for n in players.split(",") if n.strip()]
        cols = [c.strip() for c in colours.split(",")] if colours else None
        if game:
            raise UserError("--players starts a new game and --game resumes one; give only one of them.")
        return GameSession.create(db, players=names, colours=cols, seed=seed)
    if colours or seed is not None:
        raise UserError("--colours and --seed go with --players (a new game); leave them out to resume a game.")

    return open_session(db, game)


def build_app(live: Live, session, data_dir: Path, db: str, pin: str | None = None, out=sys.stdout):
    """The tablet app for ``live``: PIN set up at first start (web.server.ensure_pin), the pipeline hooks, and the
    pipeline following the wizard's new games. A new game goes into ``db`` (the app's default NEW_GAME)."""
    app = make_app(session, data_dir, db, pin=pin, config=live.web_config(), out=out)
    live.attach(app)
    return app


def table_profile(data_dir: Path, name: str | None, layouts: list[str] | None, camera: str | None) -> TableProfile | None:
    """The table profile live learns into: ``name`` (``--table``), else the one named after the boards (the
    command line's, else the wizard's) and the camera file. None, said on stderr, when its folder cannot be made:
    the game goes on without learning."""
    if not name:
        cam_file = camera or (str(Path(data_dir) / "camera.json") if (Path(data_dir) / "camera.json").is_file() else None)
        name = profile_name(list(layouts or setup_layout_names(data_dir)), cam_file)
    try:
        return open_profile(data_dir, name)
    except OSError as exc:
        _stderr("warning", f"the table profile {name} cannot be made ({exc.strerror or exc}); the table is not learnt.")
        return None


def profile_of_table(name: str | None) -> str | None:
    """The table profile ``--table NAME`` names: NAME when it can name a profile folder, else its slug ("Table 7"
    -> table-7, the name the hub shows it under too)."""
    if not name:
        return None
    try:
        return check_name(name)
    except UserError:
        try:
            return hubmsg.table_slug(name)
        except ValueError as exc:
            raise UserError(f"--table: {exc}.") from None


def session_snapshot(live: Live):
    """For the hub's snapshot: the live session's snapshot when it plays ``game_id``, else None."""

    def snapshot_of(game_id: str):
        s = live.session
        if getattr(s, "game_id", None) == game_id and callable(getattr(s, "snapshot", None)):
            return s.snapshot()
        return None

    return snapshot_of


def run_live(args) -> int:
    import cv2

    if args.vision_threads < 1 or args.web_threads < 1:
        raise UserError("--vision-threads and --web-threads must be at least 1.")
    hub_settings = hubfollow.settings_from_args(args)  # a bad --hub fails now, before the camera opens
    cv2.setNumThreads(args.vision_threads)
    data_dir = paths.data_dir(args.data_dir)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the data folder {data_dir}: {exc.strerror or exc}. Choose another --data-dir.") from None
    db = str(paths.db_path(args.db, args.data_dir))
    source = pick_source(args.source, parse_size(args.size), args.fps, args.pace)
    if not is_live_source(source):
        source.open()  # a recording that cannot be played fails now, with its message
    session = open_game(db, args.players, args.colours, args.seed, args.game)
    profile = table_profile(data_dir, profile_of_table(getattr(args, "table", None)), args.layout, args.camera)
    live = Live(source, session, layouts=args.layout, data_dir=data_dir, camera_file=args.camera, detector=args.model,
                threads=args.vision_threads, profile=profile)
    game = getattr(session, "game_id", None)
    if profile is not None:
        print(f"tablewatch live: table profile {profile.name} ({profile.root})", flush=True)
    print(f"tablewatch live: camera {source.describe()}; game database {db}; "
          + (f"game {game}" if game else "the game log cannot be opened (said above; the tablet says it too)"
             if getattr(session, "problem", None) else "no game yet: start one in Setup on the tablet"), flush=True)
    hub = HubLink(db, data_dir, fixed=hub_settings, snapshot_of=session_snapshot(live),
                  on_message=lambda level, text: live._say(level, f"hub: {text}")).start()
    sigterm_to_interrupt()
    try:
        serve(session, args.host, args.port, data_dir=data_dir, db_path=db, threads=args.web_threads,
              config=live.web_config(), qr=not args.no_qr, companion=live)
    finally:
        hub.stop()
        s = live.session
        if s is not None and hasattr(s, "close"):
            try:
                s.close()
            except Exception:  # noqa: BLE001 - closing at exit; every event is already in the log
                pass
    print("tablewatch live: stopped; the game is kept in " + db, flush=True)
    return 0
