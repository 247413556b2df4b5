"""``tablewatch replay DIR``: the real pipeline on recorded frames, into a fresh game; prints the recognised move log.

Owns ``replay_folder`` (one folder -> move log, events by frame, stage timings) and ``evaluate`` (the end-to-end
figures of issue 5 over rendered games with a ``truth.json``, see ``models/synth/recording.py``): share of games
whose move log equals the truth (turn by turn, as far as a camera can tell: the game's ``Game.movelog``), illegal
moves accepted, injected illegal moves flagged, false alerts per 20 legal games. Any registered game: a recording's
``session.json`` names it (``"game"``; absent: Wendake, ``DEFAULT_GAME``) and the session, the initial state and the
move logs go through the game's ``Game`` interface.

A folder from ``models.synth.recording`` carries ``session.json`` (game, players, seed, initial state, layouts) and
``camera.json``; for a folder from ``tablewatch record`` give ``--layout`` (and ``--camera``, ``--players``).
The camera side's report against the truth (``reading_report``, ``look_checks``) reads Wendake games only.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path

from assistant.apps.learn import Harvester, HarvestingFeed
from assistant.errors import UserError
from assistant.jsonfile import read_json
from assistant.table import game as games
from assistant.table.observation import Observation
from assistant.table.profile import TableProfile
from assistant.table.session import GameSession
from assistant.wendake import moves as M
from assistant.wendake import observer as V
from assistant.wendake import rules
from assistant.wendake.state import State
from calibration import camera as cam
from calibration import layout as lay
from vision.observe import Observer
from vision.pipeline import Pipeline, PipelineStats
from vision.reliability import for_profile, region_kinds
from vision.sources import FolderSource

ALERT_KINDS = ("IllegalMove", "ScoreMismatch", "TableOutOfSync")


def event_kind(e) -> str:
    if isinstance(e, dict):
        return str(e.get("kind") or e.get("type") or "")
    return str(getattr(e, "kind", None) or type(e).__name__)


def event_json(e) -> dict:
    if isinstance(e, dict):
        return e
    if hasattr(e, "to_json"):
        d = e.to_json()
        return d if isinstance(d, dict) else {"value": d}
    return {"kind": event_kind(e), "text": str(e)}


SESSION_FIELDS = {  # session.json field: (check, what it must be)
    "game": (lambda v: isinstance(v, str) and v.strip(), 'a game\'s name, such as "wendake"'),
    "players": (
        lambda v: isinstance(v, list) and 0 < len(v) <= 8 and all(isinstance(p, str) and p.strip() for p in v),
        "a list of player names",
    ),
    "seed": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)), "a whole number or null"),
    "layouts": (
        lambda v: isinstance(v, list) and v and all(isinstance(n, str) and n for n in v),
        "a list of layout names or files",
    ),
    "camera": (lambda v: v is None or (isinstance(v, str) and v), "the name of a camera file in the folder"),
    "initial": (lambda v: v is None or isinstance(v, dict), "a game state object or null"),
}


def read_session_file(folder: Path) -> dict:
    """A recording's ``session.json`` ({} when it has none), its fields checked: ``UserError`` names the first
    field of the wrong type (``SESSION_FIELDS``)."""
    path = Path(folder) / "session.json"
    if not path.is_file():
        return {}
    meta = read_json(path, fix="Re-record the session, or delete session.json and give --layout and --players.")
    if not isinstance(meta, dict):
        raise UserError(
            f"{path} is not a recording's session description (a JSON object). Re-record the session, or delete it "
            "and give --layout and --players."
        )
    for key, (ok, what) in SESSION_FIELDS.items():
        if key in meta and not ok(meta[key]):
            raise UserError(
                f"{path}: {key!r} must be {what}, not {json.dumps(meta[key])[:40]}. Fix it, or delete it and give "
                f"--{key} on the command line."
            )
    return meta


def make_session(db: Path, players: list[str], seed: int | None, initial: dict | None, game: str = games.DEFAULT_GAME):
    """A new GameSession of ``game`` (a registry name) in ``db`` for these players, from the recorded initial state
    (the game's JSON form) when given, with the set-up check on, as a camera feeds it. ``UserError`` in one line,
    naming the game, for a game nobody registered or an initial state that is not one of its states."""
    try:
        g = games.get(game)
    except UserError as exc:
        raise UserError(f'{exc} Name one of them as the recording\'s game ("game" in its session.json, or --game).') from None
    kw = {"players": players, "game": g.name}
    if seed is not None:
        kw["seed"] = seed
    if initial is not None:
        try:
            kw["initial"] = g.state_from_json(initial)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, UserError) as exc:
            raise UserError(
                f"the recording's session.json holds an 'initial' that is not a state of {g.title} ({type(exc).__name__}: "
                f"{str(exc)[:80]}). Re-record the session, or delete 'initial' to start from a new set-up."
            ) from None
    session = GameSession.create(str(db), **kw)
    session.check_setup = True
    return session


def session_game(meta: dict) -> str:
    """The game a recording's ``session.json`` names (``DEFAULT_GAME`` when it names none)."""
    return meta.get("game") or games.DEFAULT_GAME


def open_recording(folder: Path, layouts: list[str] | None = None, camera: str | None = None):
    """A recorded frame folder, opened for a replay: (its session.json, the layouts, the opened FolderSource, the
    camera model or None)."""
    meta = read_session_file(folder)
    names = layouts or meta.get("layouts")
    if not names:
        raise UserError(f"{folder} has no session.json naming its boards: pass --layout for every board on the table.")
    layout_data = [lay.resolve(n) for n in names]
    source = FolderSource(folder)
    source.open()
    first = next((r for r in source.rows), None)
    cam_path = camera or (str(folder / meta["camera"]) if meta.get("camera") else None)
    K = None
    if cam_path:
        import cv2

        probe = cv2.imread(str(folder / first[2])) if first else None
        size = (probe.shape[1], probe.shape[0]) if probe is not None else None
        K = cam.load(cam_path, size)
    return meta, layout_data, source, K


def replay_folder(
    folder,
    layouts: list[str] | None = None,
    camera: str | None = None,
    players: list[str] | None = None,
    seed: int | None = None,
    db: str | None = None,
    detector=None,
    quiet: bool = True,
    looks_out: Path | None = None,
    harvest_to=None,
    profile=None,
    game: str | None = None,
) -> dict:
    """Run the pipeline over a frame folder into a fresh session of ``game`` (default: the one its session.json names,
    else Wendake). Returns moves, events by frame, stats, messages.
    ``looks_out``: write every observation fed to the session there (JSON lines, see ``replay_looks``).
    ``harvest_to``: a ``TableProfile`` to harvest the game's labelled looks into (``assistant.apps.learn``); the
    result's ``harvest`` then counts them. ``profile``: read the frames with that table profile's adaptation."""
    folder = Path(folder)
    meta, layout_data, source, K = open_recording(folder, layouts, camera)
    if game:
        meta = {**meta, "game": game}
    ppl = players or meta.get("players")
    if not ppl:
        raise UserError("say who plays: --players Ann,Bob (or replay a folder with a session.json).")
    tmp = None
    if db is None:
        tmp = tempfile.TemporaryDirectory(prefix="tablewatch-replay-")
        db = str(Path(tmp.name) / "replay.sqlite")
    try:
        session = make_session(
            Path(db), list(ppl), seed if seed is not None else meta.get("seed"), meta.get("initial"), session_game(meta)
        )
        by_frame: list[dict] = []
        looks: list[dict] = []
        harvester = Harvester(harvest_to) if harvest_to is not None else None
        fed = HarvestingFeed(session, harvester, lambda: pipe) if harvester is not None else session

        def seen(obs):  # each look as read, before the pipeline weighs it for the session
            if looks_out:
                looks.append(obs.to_json())
            if harvester is not None:
                fed.saw(obs)

        pipe = Pipeline(
            source,
            layout_data,
            fed,
            camera=K,
            detector=detector,
            on_message=(lambda lv, tx: None) if quiet else None,
            on_observation=seen if looks_out or harvester is not None else None,
            profile=profile,
        )
        current = {"frame": None}

        def on_event(e):
            by_frame.append(event_row(current["frame"], e))

        pipe.on_event = on_event
        stats = pipe.stats
        for frame in source:
            current["frame"] = frame.index
            pipe.step(frame)
        source.close()
        if looks_out:
            write_looks(Path(looks_out), looks)
        result = close_result(session, folder, meta, by_frame, stats, list(pipe.messages))
        if harvester is not None:
            harvester.close()
            result["harvest"] = dict(harvester.counts)
        return result
    finally:
        if tmp is not None:
            tmp.cleanup()


def event_row(frame, e) -> dict:
    """One emitted event of a replay: the frame that fed it, its kind and its JSON."""
    return {"frame": frame, "kind": event_kind(e), "event": event_json(e)}


def close_result(session, folder: Path, meta: dict, by_frame: list[dict], stats, messages: list) -> dict:
    """Close a replay's session; its result: the game, moves, the recognised turns as a camera sees them
    (``Game.movelog``), events by frame, stats, messages."""
    snap = session.snapshot() if hasattr(session, "snapshot") else {}
    tr = getattr(session, "tracker", None)
    turns = session.game.movelog.turns(tr.initial, tr.moves, tr.edits) if tr is not None else None
    if hasattr(session, "close"):
        session.close()
    if not isinstance(snap, dict):
        snap = {}
    return {
        "folder": str(folder),
        "game": session_game(meta),
        "moves": [m.get("move") for m in snap.get("moves", [])],
        "turns": turns,
        "initial": meta.get("initial"),
        "move_log": snap.get("moves", []),
        "alerts": snap.get("alerts", []),
        "events": by_frame,
        "stats": stats.summary(),
        "messages": messages,
    }


LOOKS_FILE = "looks.jsonl"  # in a rendered game's folder: the observations its last full replay fed the tracker


def looks_file(profile=None) -> str:
    """The saved looks' file name in a game folder: ``LOOKS_FILE``, or ``looks-<table>.jsonl`` when read with a
    table profile's adaptation (so a zero-shot and an adapted reading of one game are both kept)."""
    return LOOKS_FILE if profile is None else f"looks-{profile.name}.jsonl"


def write_looks(path: Path, looks: list[dict]) -> None:
    """The observations of one replay as JSON lines, written whole or not at all."""
    tmp = path.with_name(path.name + ".part")
    tmp.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n" for o in looks), encoding="utf-8")
    tmp.replace(path)


def replay_looks(folder, resume_at: float | None = None, profile=None) -> dict:
    """The tracker alone over the observations a full replay of ``folder`` saved (``LOOKS_FILE``), into a fresh
    session: the same result as ``replay_folder`` in seconds instead of minutes, for work on ``assistant/``. The
    looks are what the camera side read when they were saved: after a change to ``vision/`` or ``models/``,
    replay the frames again. ``resume_at``: after that share of the looks the session is closed and the game
    resumed from its log (``GameSession.resume``), as after a crash; the result's ``resume_s`` is how long that took.
    ``profile``: the looks read with that table profile's adaptation (``looks_file``), weighed by its reliability."""
    import time

    folder = Path(folder)
    path = folder / looks_file(profile)
    if not path.is_file():
        raise UserError(f"{folder} has no {path.name}: run the full replay once (tablewatch e2e without --tracker-only).")
    meta = read_session_file(folder)
    reliability, kinds = looks_reliability(meta, profile)  # as the pipeline weighs each observation
    by_frame: list[dict] = []
    stats = PipelineStats()  # the tracker's share of the latency only
    with tempfile.TemporaryDirectory(prefix="tablewatch-looks-") as tmp:
        db = Path(tmp) / "replay.sqlite"
        session = make_session(db, list(meta["players"]), meta.get("seed"), meta.get("initial"), session_game(meta))
        lines = path.read_text(encoding="utf-8").splitlines()
        stop = None if resume_at is None else int(len(lines) * resume_at)
        resume_s = None
        for i, line in enumerate(lines):
            if i == stop:
                session.close()
                t0 = time.perf_counter()
                session = GameSession.resume(db)
                resume_s = round(time.perf_counter() - t0, 3)
            obs = reliability.apply(Observation.from_json(json.loads(line)), kinds)
            t0 = time.perf_counter()
            events = session.feed(obs) or []
            stats.latency_ms.append((time.perf_counter() - t0) * 1000)
            stats.observations += 1
            by_frame += [event_row(obs.frame, e) for e in events]
        return dict(close_result(session, folder, meta, by_frame, stats, []), resume_s=resume_s)


class _NoTracker:
    """A session that takes observations and answers nothing: the camera side alone (``save_looks``)."""

    def feed(self, obs):
        return []


def save_looks(folder, threads: int = 2, profile=None) -> int:
    """The camera side alone over a rendered game's frames: the observations a full replay would feed the
    tracker, written to ``LOOKS_FILE`` for ``replay_looks``. The same looks as ``replay_folder`` saves (the data
    flows one way: the tracker never feeds back into the camera side), in a third to a half of its time. Returns
    the number of looks. ``profile``: read with that table profile's adaptation, into ``looks_file(profile)``."""
    folder = Path(folder)
    meta, layout_data, source, K = open_recording(folder)
    looks: list[dict] = []
    pipe = Pipeline(
        source,
        layout_data,
        _NoTracker(),
        camera=K,
        threads=threads,
        on_message=lambda lv, tx: None,
        on_observation=lambda obs: looks.append(obs.to_json()),
        profile=profile,
    )
    for frame in source:
        pipe.step(frame)
    source.close()
    write_looks(folder / looks_file(profile), looks)
    return len(looks)


def _save_looks_job(job: tuple[str, str | None]) -> tuple[str, int, float]:
    import time

    import cv2

    folder, profile_dir = job
    cv2.setNumThreads(1)
    t0 = time.perf_counter()
    profile = TableProfile(Path(profile_dir)) if profile_dir else None
    return folder, save_looks(folder, threads=1, profile=profile), time.perf_counter() - t0


def save_looks_all(folders, workers: int = 2, progress=None, profile=None) -> None:
    """``save_looks`` over many games, ``workers`` at a time (fresh processes: no onnxruntime state forked)."""
    import multiprocessing as mp

    jobs = [(str(f), str(profile.root) if profile is not None else None) for f in folders]
    if workers <= 1:
        for job in jobs:
            r = _save_looks_job(job)
            if progress:
                progress(*r)
        return
    with mp.get_context("spawn").Pool(workers) as pool:
        for r in pool.imap_unordered(_save_looks_job, jobs):
            if progress:
                progress(*r)


# ---------------------------------------------------------------------------------------------- end-to-end figures


def _turns_exact(result: dict, truth: dict) -> tuple[int, int]:
    """(physical turns whose recognised moves equal the true ones as far as a camera can tell, true turns): the
    game's ``Game.movelog`` turns compared one by one (the recognised ones as the replay saw them, ``result["turns"]``,
    else from its moves); a recognised log with more turns than the truth counts one turn wrong."""
    g = games.get(result.get("game") or games.DEFAULT_GAME)
    initial = g.state_from_json(result["initial"]) if result.get("initial") else None
    try:
        seen = result.get("turns")
        if seen is None:
            seen = g.movelog.turns(initial, [g.move_from_json(m) for m in result["moves"]])
        true = g.movelog.turns(initial, [g.move_from_json(m) for m in truth["moves"]])
    except ValueError as exc:
        raise UserError(
            f"{result['folder']}: cannot compare {g.title} move logs ({exc}); re-render the game with its session.json."
        ) from None
    turns = len(true)
    exact = sum(k < len(seen) and seen[k] == t for k, t in enumerate(true))
    if len(seen) > turns:
        exact = min(exact, turns - 1)
    return exact, turns


def score_game(result: dict, truth: dict) -> dict:
    """One game's figures against its truth.json."""
    events = result["events"]
    steps = truth["steps"]

    def window(i):  # frames after step i-1's settled frame up to the frame before step i+1's first frame
        lo = steps[i - 1]["frame"] + 1 if i > 0 else 0
        hi = steps[i + 1]["frame"] - 1 if i + 1 < len(steps) else 10**9
        return [e for e in events if e["frame"] is not None and lo <= e["frame"] <= hi]

    flagged = accepted = 0
    per_kind: dict[str, list[int]] = {}
    for i, st in enumerate(steps):
        rec = st.get("injected")
        if not rec:
            continue
        ev = window(i)
        kinds = {e["kind"] for e in ev}
        ok = bool(kinds & set(ALERT_KINDS))
        flagged += ok
        per_kind.setdefault(rec["kind"], [0, 0])
        per_kind[rec["kind"]][0] += ok
        per_kind[rec["kind"]][1] += 1
        if rec["kind"] != "score" and "MoveRecognized" in kinds:
            accepted += 1
    alerts = sum(1 for e in events if e["kind"] in ALERT_KINDS)
    injected = sum(1 for st in steps if st.get("injected"))
    turns_exact, turns = _turns_exact(result, truth)
    return {
        "folder": result["folder"],
        "log_equal": turns_exact == turns,
        "turns": turns,
        "turns_exact": turns_exact,
        "moves_true": len(truth["moves"]),
        "moves_recognised": len(result["moves"]),
        "injected": injected,
        "flagged": flagged,
        "illegal_accepted": accepted,
        "alerts": alerts,
        "false_alerts": alerts if injected == 0 else None,
        "per_kind": per_kind,
    }


def evaluate(
    folders, detector=None, progress=None, tracker_only: bool = False, resume_at: float | None = None, profile=None
) -> dict:
    """The issue-5 figures over rendered game folders (each with truth.json). A full replay saves each game's
    looks (``looks_file(profile)``); ``tracker_only`` replays those instead of the frames (``replay_looks``), each
    game resumed from its log after ``resume_at`` of its looks when given. ``profile``: read with that table
    profile's adaptation."""
    games = []
    for f in folders:
        truth = json.loads((Path(f) / "truth.json").read_text(encoding="utf-8"))
        res = (
            replay_looks(f, resume_at, profile=profile)
            if tracker_only
            else replay_folder(f, detector=detector, looks_out=Path(f) / looks_file(profile), profile=profile)
        )
        g = score_game(res, truth)
        g["latency_ms"] = res["stats"]["latency_ms"]
        if res.get("resume_s") is not None:
            g["resume_s"] = res["resume_s"]
        games.append(g)
        if progress:
            progress(g)
    legal = [g for g in games if g["injected"] == 0]
    inj = sum(g["injected"] for g in games)
    lat = [g["latency_ms"] for g in games if g["latency_ms"].get("n")]
    latency = {
        "looks": sum(x["n"] for x in lat),
        "over_target": sum(x["over_target"] for x in lat),
        "max": max((x["max"] for x in lat), default=None),
        "median_of_games": round(float(statistics.median(x["median"] for x in lat)), 2) if lat else None,
    }
    return {
        "games": len(games),
        "latency_ms": latency,
        "log_equal_share": round(sum(g["log_equal"] for g in games) / len(games), 4) if games else None,
        "legal_log_equal_share": round(sum(g["log_equal"] for g in legal) / len(legal), 4) if legal else None,
        "injected_logs_equal": sum(g["log_equal"] for g in games if g["injected"]),
        "illegal_accepted": sum(g["illegal_accepted"] for g in games),
        "injected": inj,
        "flagged_share": round(sum(g["flagged"] for g in games) / inj, 4) if inj else None,
        "legal_games": len(legal),
        "false_alerts_per_20_legal_games": round(20 * sum(g["false_alerts"] for g in legal) / len(legal), 2) if legal else None,
        "per_game": games,
    }


# ---------------------------------------------------------------------------------------------- vision-only figures


def looks_reliability(meta: dict, profile=None):
    """(the reliability, the region kinds of the game's layouts): what ``Pipeline`` applies to each observation
    before the session sees it, for ``replay_looks`` (saved looks are as read); ``profile``'s own when given."""
    return for_profile(profile), region_kinds([lay.resolve(n) for n in meta["layouts"]])


def reading_agrees(key: str, got, want, stacks: dict, colours: list) -> bool:
    """Whether reading ``got`` at ``key`` agrees with the true expected reading ``want``: a score space with
    ``score_reading_agrees`` (only the top disk of a stack shows), any other region exactly. ``stacks``: the
    true score stacks per score board, ``colours`` the players' colours (``_truth_at``)."""
    board, _, region = key.partition("/")
    if board in stacks:
        return V.score_reading_agrees(got, {colours[p] for p in stacks[board].get(region, [])})
    return got == want


def _truth_at(state) -> tuple[dict, dict, list]:
    """What a perfect camera reads of ``state``: (expected readings, score stacks per score board, colours)."""
    return (V.expected_readings(state), {b: V.score_stacks(state, b) for b in V.SCORE_BOARDS}, [p.colour for p in state.players])


def _board_kind(key: str) -> str:
    board = key.partition("/")[0]
    return (
        "tile"
        if "#tile" in key
        else next((k for k in ("map", "village", "scores", "mask") if board.startswith(f"wendake-{k}")), board)
    )


def _truth_states(folder: Path):
    """(session meta, truth, [(step, the true state after it)]) of a rendered game. The renderer draws a step's
    new position in every frame after the previous step's settled frame (its hand frames too), up to the step's
    own settled frame (``steps[i]["frame"]``), which has no hand over the table."""
    meta = read_session_file(folder)
    if session_game(meta) != "wendake":  # the report weighs Wendake's score stacks (reading_agrees)
        raise UserError(
            f"{folder} holds a game of {games.get(session_game(meta)).title}: the camera side's report against the truth "
            "reads Wendake games only so far; use tablewatch e2e for its figures."
        )
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    state = State.from_json(meta["initial"])
    moves = [M.move_from_json(m) for m in truth["moves"]]
    out = []
    for st in truth["steps"]:
        for m in st["moves"]:
            rules.apply(state, moves[m], validate=False)
        out.append((st, state.copy()))
    return meta, truth, out


def look_checks(folder) -> list[tuple[str, object, float, bool]]:
    """Each reading of a rendered game's saved looks (``LOOKS_FILE``) against the truth, as ``reading_report``
    compares them: (reading key, value read, raw confidence, right?). A look belongs to the step whose frames hold it
    (``_truth_states``); looks at an injected illegal change, and readings at keys the truth does not know, are
    left out. What ``tablewatch eval reliability`` counts."""
    import bisect

    folder = Path(folder)
    path = folder / LOOKS_FILE
    if not path.is_file():
        raise UserError(f"{folder} has no {LOOKS_FILE}: run the full replay once (tablewatch e2e without --tracker-only).")
    _, _, steps = _truth_states(folder)
    frames = [st["frame"] for st, _ in steps]
    truths: dict[int, tuple] = {}
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obs = Observation.from_json(json.loads(line))
        j = bisect.bisect_left(frames, obs.frame)
        if j >= len(steps) or steps[j][0].get("injected"):
            continue
        if j not in truths:
            truths[j] = _truth_at(steps[j][1])
        exp, stacks, colours = truths[j]
        for key, r in obs.readings.items():
            if key in exp:
                out.append((key, r.value, r.confidence, reading_agrees(key, r.value, exp[key], stacks, colours)))
    return out


def reading_report(folder, detector=None, max_examples: int = 25, profile=None) -> dict:
    """How well the camera side alone reads a rendered game: at each table change (legal steps of truth.json),
    the readings the pipeline has emitted up to that step's settled frame against the true state's expected
    readings (``reading_agrees``). No tracker involved, so this separates vision errors from tracking errors.

    Two figures per 1,000 regions checked (issue 34): **misread** (the latest reading disagrees) and **never
    read** (no reading of that region yet in the game). Hands aside: a step's settled frame has no hand over the
    table (``_truth_states``), so a region not read there is the camera's miss, and the hand frames before it are
    not checked. Regions no camera can see are neither and are not checked (``unseen``): a region never read all
    game while its board was read (out of the picture, under another board; also a key no camera reading gives,
    such as a village's progress set, which the game derives from its progress spaces), and a disk under other
    disks (``score_reading_agrees`` counts only the top one). A tile face the reader cannot name is a miss. Returns
    counts per board kind and the most frequent wrong readings. ``profile``: read with that table profile's
    adaptation."""
    from collections import Counter

    folder = Path(folder)
    meta, truth, steps = _truth_states(folder)
    ob = Observer(
        [lay.resolve(n) for n in meta["layouts"]],
        detector=detector,
        camera=cam.load(folder / meta["camera"]) if meta.get("camera") else None,
        profile=profile,
    )
    belief: dict = {}
    boards_read: set[str] = set()
    status: list[tuple[str, str]] = []  # (key, "wrong" | "missing" | "right") per region of each checked step
    wrong_examples: Counter = Counter()
    checked = 0
    source = FolderSource(folder)
    frames = iter(source)
    pending = None
    for st, state in steps:
        while True:  # play the frames up to this step's settled frame
            f = pending or next(frames, None)
            pending = None
            if f is None:
                break
            if f.index > st["frame"]:
                pending = f
                break
            if f.image is None:
                continue
            res = ob.process(f.index, f.t, f.image)
            if res.observation is not None:
                belief.update({k: r.value for k, r in res.observation.readings.items()})
                boards_read.update(res.observation.boards_read)
        if st.get("injected"):
            continue
        checked += 1
        exp, stacks, colours = _truth_at(state)
        for key, want in exp.items():
            if key not in belief:
                status.append((key, "missing"))
            elif reading_agrees(key, belief[key], want, stacks, colours):
                status.append((key, "right"))
            else:
                status.append((key, "wrong"))
                wrong_examples[(key, str(want), str(belief[key]))] += 1
    source.close()
    unseen = {k for k, _ in status if k not in belief and "#tile" not in k and k.partition("/")[0] in boards_read}
    per_kind: dict[str, list[int]] = {}  # board kind -> [wrong, missing, checked, unseen]
    for key, s in status:
        c = per_kind.setdefault(_board_kind(key), [0, 0, 0, 0])
        if key in unseen:
            c[3] += 1
            continue
        c[2] += 1
        c[0] += s == "wrong"
        c[1] += s == "missing"
    total = sum(c[2] for c in per_kind.values())
    wrong = sum(c[0] for c in per_kind.values())
    missing = sum(c[1] for c in per_kind.values())
    return {
        "folder": str(folder),
        "steps_checked": checked,
        "readings": total,
        "correct_share": round(1 - (wrong + missing) / total, 5) if total else None,
        "misread_per_1000": round(1000 * wrong / total, 3) if total else None,
        "never_read_per_1000": round(1000 * missing / total, 3) if total else None,
        "misread": wrong,
        "never_read": missing,
        "unseen": sum(c[3] for c in per_kind.values()),
        "per_kind": {k: {"wrong": c[0], "missing": c[1], "total": c[2], "unseen": c[3]} for k, c in sorted(per_kind.items())},
        "most_wrong": [
            {"key": k, "expected": w, "read": g, "steps": n} for (k, w, g), n in wrong_examples.most_common(max_examples)
        ],
    }
