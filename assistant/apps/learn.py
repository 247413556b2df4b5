"""Learning the owner's table, the glue: harvesting labelled looks during a game, and running ``tablewatch adapt``.

Owns ``AdaptationGuard`` (on the set-up look of each new game, the table's adaptation against the base models:
worse, and the game is read with the base models; ``judge_setup``), ``Harvester`` (after each look a session was
fed: was it explained surely? then the game's expected readings of the accepted state, the region kinds and the
boards' views as their readers saw them, ``look_views``, are written as a harvested look, ``vision.harvest``),
``HarvestingFeed`` (a session stand-in for ``vision.pipeline.Pipeline`` that harvests after each feed),
``StatusBoard`` (the profile's ``status.json``, what the tablet shows about learning) and
``AdaptRunner`` (one ``tablewatch adapt`` subprocess at a time, at low priority, its progress in status.json).
The live loop (``assistant.apps.live``), the replay (``assistant.apps.replay``) and the demo use them.

A look is harvested when the rules engine vouches for it: the start position before the first move ("setup"),
or a look the tracker explained surely ("explained"). The set-up look is the one the session's set-up check was
made on (``assistant.table.setup_check``): its position is known whatever the tracker made of it, so it is kept
even when its misreadings raised an alert (on an unfamiliar table they do: the foreign table 101's first look
gave a TableOutOfSync), as chesscog learns a new set from photos of the starting position. Any other look with no
move yet, or after, is kept when explained surely: the look was read (not held back by a full disk), no alert
came from it and none is open (IllegalMove, TableOutOfSync, ScoreMismatch, NeedsConfirmation), it fitted no
lines that would look different equally well (``Tracker.had_choice``, asked about or not), and the tracker
neither waited on it (a board under a hand) nor held it for another look. Its labels are the keys the look
read, less those the rules cannot vouch for: a stack whose top disk reads as another piece of the same class (which
disk lies on top of a stack is the players' doing, not the rules'). Each look records how many
moves were accepted when it was taken; an undo, a correction, a confirmed other candidate or a switch to a kept
alternative that takes moves back from the log deletes the game's looks taken after the moves it took back. A
harvest that fails (a full disk) is one line on stderr; the game goes on.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from assistant.jsonfile import write_atomic
from assistant.table.profile import DEFAULT_MAX_LOOKS_BYTES, TableProfile
from assistant.table.setup_check import agrees, check_setup
from vision import harvest as H

# The adaptation is dropped for a game when it misreads more of the set-up look's regions than the base models by more
# than this: the base read is of the look's views (``vision.boardviews``), the adapted one of the frame (docs/adapt.md).
GUARD_MARGIN = 0
SURE_KINDS = ("IllegalMove", "TableOutOfSync", "ScoreMismatch", "NeedsConfirmation", "Correction")
QUEUE_LOOKS = 8  # looks waiting to be written in the background; more are dropped (the camera never waits)


def _stderr(text: str) -> None:
    print(f"tablewatch harvest: {text}", file=sys.stderr, flush=True)


class Harvester:
    """Harvests the looks of the games fed through it into ``profile`` (module docstring). ``background``: write
    in a thread of its own (the live loop), else at once (replays, tests). ``on_error(text)``: where a failure is
    said, once until a write succeeds again (stderr by default)."""

    def __init__(self, profile: TableProfile, max_bytes: int = DEFAULT_MAX_LOOKS_BYTES, background: bool = False, on_error=None):
        self.profile = profile
        self.max_bytes = int(max_bytes)
        self.on_error = on_error or _stderr
        self.counts = {"setup": 0, "explained": 0, "skipped": 0, "deleted": 0, "failed": 0, "dropped": 0}
        self._games: dict[str, dict] = {}  # game id -> {"seq": last event seen, "moves": moves then, "next": look no}
        self._bytes: int | None = None  # the looks' size, counted once then kept up to date
        self._failing: str | None = None
        self._queue: queue.Queue | None = queue.Queue(QUEUE_LOOKS) if background else None
        self._thread = None
        if background:
            self._thread = threading.Thread(target=self._work, name="tablewatch-harvest", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------------------------------ around a feed

    def before(self, session) -> dict:
        """What the session's tracker says before a look is fed (``after`` compares)."""
        tr = session.tracker
        game = self._game(session)
        game.setdefault("seq", session.last_seq)
        game.setdefault("moves", len(tr.moves))
        return {"observations": tr.stats["observations"], "deferred": tr.stats["deferred"], "held": tr.stats["held"]}

    def after(self, session, observation, events, reader, before: dict) -> str | None:
        """Harvest ``observation`` (just fed to ``session``, giving ``events``) if the rules engine vouches for it;
        ``reader``: what read it (``look_views``). Returns the look's source, or None."""
        self.sync(session)
        tr = session.tracker
        read = tr.stats["observations"] == before["observations"] + 1
        setup = read and not tr.moves and any(getattr(e, "kind", "") == "SetupCheck" for e in events)
        sure = setup or (
            read
            and not tr.alerts
            and not tr.had_choice
            and tr.stats["deferred"] == before["deferred"]
            and tr.stats["held"] == before["held"]
            and not any(getattr(e, "kind", "") in SURE_KINDS for e in events)
        )
        if not sure or reader is None:
            self.counts["skipped"] += 1
            return None
        views = look_views(reader, sorted({k.split("/", 1)[0] for k in observation.readings}))
        expected_all = session.game.expected_readings(tr.state)
        kind = session.game.region_kind
        keys = [
            k
            for k in observation.readings
            if k in expected_all
            and k.split("/", 1)[0] in views
            and _vouched(kind(k), observation.readings[k].value, expected_all[k])
        ]
        if not keys:
            self.counts["skipped"] += 1
            return None
        source = "explained" if tr.moves else "setup"
        game = self._game(session)
        look = game["next"]
        game["next"] += 1
        job = (
            session.game_id,
            look,
            source,
            views,
            {k: expected_all[k] for k in keys},
            {k: (observation.readings[k].value, observation.readings[k].confidence) for k in keys},
            {k: kind(k) for k in keys},
            len(tr.moves),
        )
        self._submit(("write", job))
        return source

    def sync(self, session) -> None:
        """Take back the looks that the corrections logged since the last call make wrong (an undo on the tablet
        between two looks too). Call before adapting."""
        game = self._games.get(session.game_id)
        if game is None or "seq" not in game:
            return
        moves = game["moves"]
        for e in session.events_since(game["seq"]):
            game["seq"] = max(game["seq"], e["seq"])
            p = e["payload"]
            if e["kind"] == "MoveRecognized":
                moves += len(p.get("moves", ()))
            elif e["kind"] == "Correction":
                moves -= len(p.get("removed", ()))
                if p.get("removed"):
                    self._submit(("delete", (session.game_id, moves)))
                moves += len(p.get("added", ()))
        game["moves"] = moves

    def _game(self, session) -> dict:
        game = self._games.get(session.game_id)
        if game is None:
            done = [int(lk.meta.get("look", 0)) for lk in H.list_looks(self.profile.looks_dir) if lk.game == session.game_id]
            game = self._games[session.game_id] = {"next": max(done, default=0) + 1}
        return game

    # ------------------------------------------------------------------------------------------ writing

    def _submit(self, job) -> None:
        if self._queue is None:
            self._run(job)
            return
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            if job[0] == "delete":  # a deletion is never dropped: it waits
                self._queue.put(job)
            else:
                self.counts["dropped"] += 1

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                self._run(job)
            finally:
                self._queue.task_done()

    def _run(self, job) -> None:
        kind, args = job
        try:
            if kind == "delete":
                game, after = args
                n = H.delete_looks(self.profile.looks_dir, game, after)
                self.counts["deleted"] += n
                if n:
                    self._bytes = None
                return
            game, look, source, views, expected, read, kinds, moves = args
            folder = H.write_look(self.profile.looks_dir, game, look, source, views, expected, read, kinds, moves)
            self.counts[source] += 1
            if self._bytes is None:
                self._bytes = sum(H.folder_bytes(lk.folder) for lk in H.list_looks(self.profile.looks_dir))
            else:
                self._bytes += H.folder_bytes(folder)
            if self._bytes > self.max_bytes:
                H.enforce_cap(self.profile.looks_dir, self.max_bytes)
                self._bytes = None
            self._failing = None
        except Exception as exc:  # noqa: BLE001 - a full disk, a bug: the game goes on, one line says it
            self.counts["failed"] += 1
            text = (
                f"a look of the table could not be kept for learning ({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}); "
                "the game goes on. Free some disk space to learn this table."
            )
            if text != self._failing:
                self._failing = text
                self.on_error(text)

    def flush(self) -> None:
        """Wait until the looks waiting to be written are (background); at once otherwise."""
        if self._queue is not None and self._thread is not None and self._thread.is_alive():
            self._queue.join()

    def close(self, timeout: float = 30.0) -> None:
        """Finish the looks waiting to be written (background)."""
        if self._queue is not None and self._thread is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout)


def look_views(reader, boards: list[str]) -> dict:
    """{board: (view, its px/mm, the detector's px/mm)} of ``boards`` as ``reader`` read them: a
    ``vision.pipeline.Pipeline`` gives each at the finest scale its readers read it at (``board_views``: a village
    board at 2 px/mm); an observer alone its detector's last views (``Observer.views``)."""
    if hasattr(reader, "board_views"):
        return reader.board_views(boards)
    have = getattr(reader, "views", {})
    return {b: (have[b].image, have[b].px_per_mm, have[b].px_per_mm) for b in boards if b in have}


def _vouched(kind: str, read, expected) -> bool:
    """Whether the rules vouch for ``expected`` where ``read`` was seen: not a stack whose top reads as another
    piece of the class that lies there (the rules do not know which disk is on top)."""
    return kind != "top-of-stack" or read == expected or not agrees(kind, read, expected)


class HarvestingFeed:
    """A session as the pipeline sees it (``feed``), harvesting each look fed (``Harvester``); everything else is
    the session's. ``observer()``: what read the look, for its views (``look_views``): the pipeline (its boards at
    their readers' scale), or the pipeline's observer (the detector's views), which may be replaced. The
    pipeline feeds the session its readings with their confidences weighed by their measured reliability; give
    ``saw`` as the pipeline's ``on_observation`` and the look is kept with the confidences as read."""

    def __init__(self, session, harvester: Harvester, observer):
        self.session = session
        self.harvester = harvester
        self.observer = observer
        self._as_read = None

    def saw(self, observation) -> None:
        """The look as the observer read it, just before the pipeline feeds it (``Pipeline(on_observation=...)``)."""
        self._as_read = observation

    def feed(self, observation):
        try:
            before = self.harvester.before(self.session)
        except Exception as exc:  # noqa: BLE001 - harvesting never stops the game
            self.harvester.on_error(f"harvest skipped ({type(exc).__name__}: {exc})")
            return self.session.feed(observation)
        events = self.session.feed(observation)
        raw, self._as_read = self._as_read, None
        if raw is not None and (raw.frame != observation.frame or set(raw.readings) != set(observation.readings)):
            raw = None
        try:
            self.harvester.after(self.session, raw or observation, list(events or []), self.observer(), before)
        except Exception as exc:  # noqa: BLE001
            self.harvester.on_error(f"harvest skipped ({type(exc).__name__}: {exc})")
        return events

    def __getattr__(self, name):
        return getattr(self.session, name)


# ---------------------------------------------------------------------------------------------- the adaptation guard


@dataclass
class GuardVerdict:
    """The set-up look of one game read with the table's adaptation and with the base models: regions checked,
    misread by each, and whether the adaptation is dropped for the game."""

    game_id: str | None
    checked: int
    adapted: int
    base: int
    dropped: bool
    text: str

    def json(self) -> dict:
        return {
            "game_id": self.game_id,
            "checked": self.checked,
            "misread_adapted": self.adapted,
            "misread_base": self.base,
            "dropped": self.dropped,
            "text": self.text,
        }


def judge_setup(expected: dict, adapted: dict, base: dict, kind_of, game_id: str | None = None) -> GuardVerdict:
    """The adaptation against the base models on a set-up look: ``adapted`` and ``base`` (key -> value) each compared
    with the start position (``expected``) as the set-up check compares (``check_setup``), over the keys both read.
    Dropped when the adaptation misreads more regions than the base models by more than ``GUARD_MARGIN``."""
    keys = set(adapted) & set(base) & set(expected)
    a = check_setup(expected, {k: adapted[k] for k in keys}, kind_of).misread
    b = check_setup(expected, {k: base[k] for k in keys}, kind_of).misread
    dropped = a > b + GUARD_MARGIN
    if dropped:
        text = f"your table's adaptation read the set-up worse ({a} misread vs {b}): using the base model for this game"
    else:
        text = f"your table's adaptation read the set-up as well or better ({a} misread vs {b} with the base model): using it"
    return GuardVerdict(game_id, len(keys), a, b, dropped, text)


class AdaptationGuard:
    """Guards a game against an adaptation made for another table. After the set-up check of a new game, the set-up
    look as read with the adaptation is read once more with the base models (``pipeline.read_base`` of
    ``pipeline.board_views``: one extra read of one look per game) and both are judged (``judge_setup``); when the
    adaptation read it worse, the pipeline reads this game with the base models (``pipeline.use_adaptation(False)``)
    and ``new_game`` puts the adaptation back for the next one. The verdict goes into status.json (``guard``,
    ``StatusBoard``) and its line to ``say(level, text)``. Nothing happens while the pipeline reads without an
    adaptation."""

    def __init__(self, pipeline, board: "StatusBoard | None" = None, say=None):
        self.pipeline = pipeline
        self.board = board
        self.say = say
        self.dropped = False
        self.last: GuardVerdict | None = None

    def check(self, session, observation) -> GuardVerdict | None:
        """Judge the adaptation on ``observation`` (the set-up look of ``session``'s game, as read); None when the
        boards are read without an adaptation or there is no look."""
        if observation is None or not self.pipeline.adapted:
            return None
        expected = session.game.expected_readings(session.tracker.initial)
        adapted = {k: r.value for k, r in observation.readings.items() if k in expected}
        boards = sorted({k.split("/", 1)[0] for k in adapted})
        base = {k: r.value for k, r in self.pipeline.read_base(self.pipeline.board_views(boards)).items()}
        verdict = judge_setup(expected, adapted, base, session.game.region_kind, getattr(session, "game_id", None))
        if verdict.dropped:
            self.pipeline.use_adaptation(False)
            self.dropped = True
        self.last = verdict
        if self.board is not None:
            self.board.update(guard=verdict.json())
        if self.say is not None:
            self.say("warning" if verdict.dropped else "info", verdict.text)
        return verdict

    def new_game(self) -> None:
        """A new game: read with the adaptation again (its own set-up look judges it anew)."""
        if self.dropped:
            self.pipeline.use_adaptation(True)
            self.dropped = False


# ---------------------------------------------------------------------------------------------- status and adapt


class StatusBoard:
    """The profile's ``status.json`` (what the tablet shows about learning: ``TableProfile.status``: ``state``,
    ``text``, ``progress``, ``card``, ``setup_check``, ``guard``: the last ``GuardVerdict``), written whole (a
    temporary file and ``os.replace``). Failures to write are said once on stderr and change nothing."""

    def __init__(self, profile: TableProfile):
        self.profile = profile
        self._lock = threading.Lock()
        self._failing = False  # said once until a write succeeds again

    def update(self, **fields) -> dict:
        with self._lock:
            try:
                status = self.profile.status()
            except Exception:  # noqa: BLE001 - a torn or foreign file is written anew
                status = {}
            status = {
                "state": "idle",
                "text": "",
                "progress": None,
                "card": None,
                "setup_check": None,
                "guard": None,
                **status,
                **fields,
            }
            status["card"] = self.profile.card() if "card" not in fields else fields["card"]
            status["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            path = self.profile.status_path
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, json.dumps(status, indent=1))
                self._failing = False
            except OSError as exc:
                if not self._failing:
                    _stderr(f"the learning status could not be written ({exc.strerror or exc}); the game goes on.")
                self._failing = True
            return status

    def setup_check(self, event, game_id: str | None = None) -> None:
        """Show a set-up check (a ``SetupCheck`` event) of game ``game_id`` on the tablet."""
        self.update(setup_check={**event.to_json(), "game_id": game_id})


def adapt_command(profile: TableProfile, data_dir: Path) -> list[str]:
    """The ``tablewatch adapt`` command line for ``profile`` (in a fresh interpreter: no onnxruntime state shared)."""
    return [sys.executable, "-m", "assistant.apps.cli", "adapt", "--profile", str(profile.root), "--data-dir", str(data_dir)]


def _progress_of(line: str) -> float | None:
    """A progress share from one line of adapt's progress bar ("[###....]  37 %  ..."), or None: its result line
    ("read 97.7 % -> 99.6 % ...", "kept the current weights: ... 99.7 % ...") is no progress, whatever it quotes."""
    import re

    if not line.startswith("["):
        return None
    m = re.search(r"(\d+(?:\.\d+)?)\s*%", line)
    if m:
        return min(1.0, float(m.group(1)) / 100.0)
    m = re.search(r"\b(\d+)\s*/\s*(\d+)\b", line)
    if m and int(m.group(2)) > 0:
        return min(1.0, int(m.group(1)) / int(m.group(2)))
    return None


class AdaptRunner:
    """Runs ``tablewatch adapt`` for one profile, one at a time, under ``os.nice(10)``; its progress and its one
    line of result go into status.json (``StatusBoard``). ``on_done(ok, text)`` is called after each run,
    ``on_progress(share, line)`` at each progress line."""

    def __init__(
        self,
        profile: TableProfile,
        data_dir: Path,
        board: StatusBoard | None = None,
        command=None,
        on_done=None,
        nice: int = 10,
        on_progress=None,
    ):
        self.profile = profile
        self.data_dir = Path(data_dir)
        self.board = board or StatusBoard(profile)
        self.command = command or adapt_command(profile, self.data_dir)
        self.on_done = on_done
        self.on_progress = on_progress
        self.nice = nice
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self.last: tuple[bool, str] | None = None  # (ok, text) of the last run

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, why: str = "asked on the tablet") -> str:
        """Start an adapt in the background; the one-line answer for the tablet."""
        with self._lock:
            if self.running:
                return "already learning your table"
            n = len(H.list_looks(self.profile.looks_dir))
            if n == 0:
                return "nothing to learn from yet: play a game first (its looks are kept as it goes)"
            self.board.update(state="learning", text="learning your table", progress=0.0)
            self._thread = threading.Thread(target=self._run, args=(why,), name="tablewatch-adapt", daemon=True)
            self._thread.start()
            return f"learning your table from {n} looks ({why})"

    def wait(self, timeout: float | None = None) -> tuple[bool, str] | None:
        if self._thread is not None:
            self._thread.join(timeout)
        return self.last

    def _run(self, why: str) -> None:
        nice = self.nice
        lines: list[str] = []
        shown = -1.0
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                preexec_fn=(lambda: os.nice(nice)) if nice and hasattr(os, "nice") else None,
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
            )
            buf = ""
            while True:
                ch = self._proc.stdout.read(1)
                if not ch:
                    break
                if ch in "\r\n":
                    line, buf = buf.strip(), ""
                    if line:
                        lines.append(line)
                        p = _progress_of(line)
                        if p is not None and p - shown >= 0.02 or p == 1.0:
                            shown = p
                            self.board.update(state="learning", text="learning your table", progress=round(p, 3))
                        if p is not None and self.on_progress is not None:
                            self.on_progress(p, line)
                    continue
                buf += ch
            if buf.strip():
                lines.append(buf.strip())
            rc = self._proc.wait()
        except OSError as exc:
            rc, lines = -1, lines + [f"adapt could not start ({exc.strerror or exc})"]
        card = self.profile.card()
        if rc == 0:
            said = [ln for ln in lines if _progress_of(ln) is None]  # adapt's own last line: swapped in or kept
            text = said[-1] if said else (card or {}).get("text") or "adapted"
            self.last = (True, text)
            self.board.update(state="done", text=text, progress=None, card=card)
        else:
            text = lines[-1] if lines else f"adapt ended with code {rc}"
            self.last = (False, text)
            self.board.update(state="failed", text=text, progress=None, card=card)
        if self.on_done is not None:
            self.on_done(*self.last)

    def stop(self) -> None:
        """End a run in progress (at exit)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
