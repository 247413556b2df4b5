"""Whole recorded games rendered as camera-frame folders: the end-to-end test set of the live pipeline.

One game = one folder that ``vision.sources.FolderSource`` plays and ``tablewatch replay`` reads:

- ``frame_NNNNNN.jpg`` + ``timestamps.csv`` (``index,t,file``), as ``tablewatch record`` writes them;
- ``camera.json`` (the fixed camera's intrinsics, ``tablewatch calibrate camera`` format) and ``session.json``
  (players, seed, initial state, the boards' layout names): what a replay needs to start the game;
- ``truth.json``: the true move log, and per rendered table state the frame where it is settled, the engine moves it
  covers and, for injected illegal changes, what was injected and which rules it breaks.

Per game everything physical is fixed: camera (straight over the table, seeing every board), board poses, lights,
colour temperature, table texture, piece colours. Pieces keep their spot while their region does not change
(``Placer``). After each engine move that changes the table: optionally a frame with a hand and arm over the
table (``hand_rate``; sometimes held still for 0.35 s, which only the hand test can reject), then the settled
table twice, 0.15 s and 0.55 s later (the pipeline reads it once it has been still for 300 ms).

Each player's bought progress tiles lie on their village's progress spaces (``progress_tiles``, on by default; a
Trade's purchase and a tile's use show there too, W-PRG-3/4).

Injected illegal changes (``inject_rate``, kinds in ``INJECT_KINDS``): the illegal table is shown settled, then put
back to the position before it, then the game goes on. Kinds: ``line`` (an action marker outside any legal line,
W-LINE-2), ``river`` (a guard moved to a territory it cannot reach in one step: across a river or lake, W-TERM-2 /
W-MOV), ``guard`` (a PA occupant attacked while its owner has guards there, W-FIGHT-3/4), ``score`` (a score disk
one step off after a scoring move: ScoreMismatch). Each is checked with the rules engine: it is injected only when
``rules.check`` rejects it, and the rules it breaks are recorded.

A **table** (``family`` "familiar" | "foreign", ``models.synth.families``): the board art, piece shapes,
materials, light, camera processing, table top and clutter of one look drawn from ``table_seed`` (default: the
game's seed), so several games can be played on the same table (the foreign-table set, docs/foreign-set.md).
Without ``family`` a game is rendered as before families existed, draw for draw.

``render_games`` renders many games in parallel processes and skips games already rendered with the same options
(``done.json``), so the set is cached. Game-specific parts come from ``models.synth.wendake``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.generate import play_random_game
from assistant.wendake.moves import move_to_json
from assistant.wendake.setup import new_game
from models.synth import effects as fx
from models.synth import scene as S
from models.synth import wendake as WK
from models.synth.camera import BoardPose, Camera, look_at
from models.synth.families import Look, draw_look
from models.synth.pieces import Light, scatter
from models.synth.writer import _json_default

FORMAT = "tablewatch.recording/1"
INJECT_KINDS = ("line", "river", "guard", "score")
NAMES = ["Ringo", "Paul", "John", "George"]
DEFAULT_SIZE = (2304, 1296)


@dataclass
class RecordingOptions:
    players: int = 4
    seed: int = 0
    size: tuple[int, int] = DEFAULT_SIZE
    hand_rate: float = 0.5  # share of table changes preceded by a hand frame
    inject_rate: float = 0.0  # share of eligible moves turned into an injected illegal change first
    inject_kinds: tuple[str, ...] = INJECT_KINDS
    max_states: int | None = None  # stop after this many rendered table changes (short tests)
    jpeg_quality: int = 92
    noise_sigma: float = 1.5
    # draw the bought progress tiles on the villages (``models.synth.wendake.bought_tiles``), as a real table has them;
    # off: the recordings made before they were drawn
    progress_tiles: bool = True
    family: str | None = None  # "familiar" | "foreign": the table's look from that pool (None: the classic table)
    table_seed: int | None = None  # the table's look from this seed (default: the game's seed); with ``family``

    def key(self) -> dict:
        d = dict(self.__dict__)
        d["size"] = list(self.size)
        d["inject_kinds"] = list(self.inject_kinds)
        if not self.progress_tiles:  # games rendered without them before the option existed stay cached
            del d["progress_tiles"]
        for k in ("family", "table_seed"):  # nor do the classic games rendered before families existed
            if d[k] is None:
                del d[k]
        return d


# ---------------------------------------------------------------------------------------------- games


def play_game(players: int, seed: int):
    """(initial state, moves) of a seeded random game (``assistant.wendake.generate``)."""
    names = NAMES[:players]
    _, moves = play_random_game(names, seed=seed)
    return new_game(names, seed=seed), moves


# ---------------------------------------------------------------------------------------------- the fixed table


def overhead_camera(boards, size: tuple[int, int], rng, fov_deg: float = 72.0, margin_mm: float = 40.0):
    """A camera straight over the table (tilt under 4 degrees, mild lens distortion) that sees every board."""
    W, H = size
    pts = []
    for b in boards:
        w, h = b.layout["size_mm"]
        pts.append(b.pose.to_table([[0, 0], [w, 0], [w, h], [0, h]]))
    pts = np.concatenate(pts)
    lo, hi = pts.min(0) - margin_mm, pts.max(0) + margin_mm
    centre = (lo + hi) / 2
    ext = hi - lo
    f = (W / 2) / math.tan(math.radians(fov_deg) / 2)
    # image x along table X (the roll is chosen below), so the height must fit X in W and Y in H
    height = max(ext[0] * f / W, ext[1] * f / H) * 1.04
    tilt = float(rng.uniform(0, 4))
    K = np.array([[f, 0, W / 2 + rng.normal(0, 4)], [0, f, H / 2 + rng.normal(0, 4)], [0, 0, 1.0]])
    dist = np.array([float(rng.uniform(-0.06, 0.0)), float(rng.uniform(0.0, 0.02)), 0.0, 0.0, 0.0])
    azimuth = float(rng.uniform(0, 360))
    C, R = look_at(centre, height, tilt, azimuth, 0.0)
    cam = Camera(K, dist, R, C, (W, H), height, tilt, fov_deg)
    best = None  # the roll that keeps the most board corners in the picture
    for roll in np.arange(-180, 180, 2.0):
        C2, R2 = look_at(centre, height, tilt, azimuth, float(roll))
        c2 = Camera(K, dist, R2, C2, (W, H), height, tilt, fov_deg)
        q, ok = c2.project(np.column_stack([pts, np.zeros(len(pts))]))
        if not ok.all():
            continue
        inside = (q[:, 0] >= 0) & (q[:, 0] < W) & (q[:, 1] >= 0) & (q[:, 1] < H)
        score = inside.mean() - 1e-4 * abs(roll)
        if best is None or score > best[0]:
            best = (score, c2)
    return best[1] if best is not None else cam


def boards_overlap(boards, gap_mm: float = 8.0) -> bool:
    """True when two boards' outlines (grown by ``gap_mm``) intersect on the table."""
    import cv2

    polys = []
    for b in boards:
        w, h = b.layout["size_mm"]
        polys.append(b.pose.to_table([[-gap_mm, -gap_mm], [w + gap_mm, -gap_mm], [w + gap_mm, h + gap_mm], [-gap_mm, h + gap_mm]]).astype(np.float32))
    for i in range(len(polys)):
        for j in range(i + 1, len(polys)):
            area, _ = cv2.intersectConvexConvex(polys[i], polys[j])
            if area > 1.0:
                return True
    return False


# Random arrangements tried for a table where no board lies on another. 200 were too few for 5 of the 30 e2e games
# (3p s2, 4p s9, s12, s15, s1006 took 208-685); those were rendered with a board across another until 2026-11-23.
ARRANGE_TRIES = 2000


def push_apart(boards, main: str, step_mm: float = 10.0, gap_mm: float = 8.0) -> None:
    """Move boards outward, away from the main board's centre, until no two overlap (``boards_overlap``): of each
    overlapping pair the one farther out moves. Deterministic (no random draw)."""
    mb = next(b for b in boards if b.name == main)
    mw, mh = mb.layout["size_mm"]
    centre = mb.pose.to_table([[mw / 2, mh / 2]])[0]

    def middle(b):
        w, h = b.layout["size_mm"]
        return b.pose.to_table([[w / 2, h / 2]])[0]

    for _ in range(500):
        if not boards_overlap(boards, gap_mm):
            return
        others = [b for b in boards if b.name != main]
        for i, a in enumerate(others):
            for b in others[i + 1:] + [mb]:
                if not boards_overlap([a, b], gap_mm):
                    continue
                far = a if b is mb or np.linalg.norm(middle(a) - centre) >= np.linalg.norm(middle(b) - centre) else b
                d = middle(far) - centre
                d = d / (np.linalg.norm(d) or 1.0) * step_mm
                far.pose = BoardPose(far.pose.x + float(d[0]), far.pose.y + float(d[1]), far.pose.rotation_deg)
    raise RuntimeError("boards still overlap after pushing them apart")


def camera_json(cam) -> dict:
    return {"format": "tablewatch-camera/1", "image_size": list(cam.size), "camera_matrix": np.round(cam.K, 6).tolist(),
            "distortion": np.round(cam.dist, 8).tolist(), "rms_px": 0.0, "images_used": 0, "images_given": 0,
            "pattern": {"kind": "synthetic"}}


# ---------------------------------------------------------------------------------------------- persistent pieces


def _pkey(p) -> tuple:
    return (p.region, p.cls, p.colour, p.side)


class Placer:
    """Keeps pieces where they were: a piece of the new position takes the spot of a piece with the same region,
    class, colour and side in the previous one; new pieces take their fresh spot unless it is too close to a kept
    piece, in which case another spot in their region is drawn. A tile still in its slot, the same side up,
    keeps the angle it lay at."""

    def __init__(self, rng, min_mm: float = 12.0):
        self.rng = rng
        self.min_mm = min_mm
        self.prev: dict[str, list] = {}  # board -> pieces
        self.tiles: dict[tuple, float] = {}  # (board, slot, tile, side) -> the angle it lies at

    def place(self, boards) -> None:
        for b in boards:
            for t in b.tiles:
                t["rotation_deg"] = self.tiles.setdefault((b.name, t["slot"], t["tile"], t["side"]), t["rotation_deg"])
            old = {}
            for p in self.prev.get(b.name, []):
                old.setdefault(_pkey(p), []).append(p)
            kept, fresh = [], []
            for p in b.pieces:
                lst = old.get(_pkey(p))
                if lst:
                    q = lst.pop(0)
                    p.x, p.y, p.rotation_deg = q.x, q.y, q.rotation_deg
                    kept.append(p)
                else:
                    fresh.append(p)
            regions = {r["id"]: r for r in b.layout["regions"]}
            for p in fresh:
                if p.region in regions and p.cls not in ("tribe_disk",) and self._crowded(p, kept):
                    poly = regions[p.region]["polygon"]
                    avoid = [r["polygon"] for r in b.layout["regions"] if r.get("parent") == p.region]
                    for _ in range(20):
                        spot = scatter(poly, 1, 0.0, self.rng, avoid=avoid, margin=8.0)
                        if spot:
                            p.x, p.y = spot[0]
                        if not self._crowded(p, kept):
                            break
                kept.append(p)
            self.prev[b.name] = list(b.pieces)

    def _crowded(self, p, others) -> bool:
        return any(math.hypot(p.x - q.x, p.y - q.y) < self.min_mm and abs(p.z0 - q.z0) < 1 for q in others if q is not p)


def table_signature(boards) -> tuple:
    """What the camera can see change: pieces by region (with counts and heights) and printed tiles."""
    sig = []
    for b in boards:
        for p in b.pieces:
            sig.append((b.name, p.region or "", p.cls, p.colour, p.side or "", p.count, round(p.z0, 1)))
        for t in b.tiles:
            sig.append((b.name, t["slot"], "tile", t["tile"], t["side"], 0, 0.0))
    return tuple(sorted(sig))


# ---------------------------------------------------------------------------------------------- illegal changes


def _violations(state, move) -> list:
    try:
        return list(rules.check(state, move))
    except Exception:
        return []


def _applied(state, move):
    s = state.copy()
    try:
        rules.apply(s, move, validate=False)
    except Exception:
        return None
    return s


def illegal_variant(kind: str, before, move, after, rng, progress_tiles: bool = False):
    """(illegal table state, record) for an injected change of ``kind`` at this move, or None when it does not fit."""
    p = before.turn.player if getattr(before, "turn", None) is not None and hasattr(before.turn, "player") else None
    if kind == "score":
        changed = [(i, t) for i, (a, b) in enumerate(zip(before.players, after.players)) for t in a.tracks if a.tracks[t] != b.tracks[t]]
        if not changed:
            return None
        i, t = changed[int(rng.integers(0, len(changed)))]
        bad = after.copy()
        v = bad.players[i].tracks[t]
        bad.players[i].tracks[t] = v + 1 if v < 25 else v - 1
        return bad, {"kind": "score", "rules": ["W-SCR"], "player": i, "track": t, "shown": bad.players[i].tracks[t], "true": v}
    if kind == "line" and isinstance(move, M.Activate):
        slots = [(r, c) for r in range(3) for c in range(3) if (r, c) != tuple(move.slot)]
        rng.shuffle(slots)
        for s in slots:
            cand = M.Activate(tuple(s))
            vs = _violations(before, cand)
            if any(v.rule.startswith("W-LINE") for v in vs):
                bad = _applied(before, cand)
                if bad is not None:
                    return bad, {"kind": "line", "rules": sorted({v.rule for v in vs}), "move": _mj(cand)}
        return None
    if kind in ("river", "guard") and isinstance(move, M.Move) and move.steps:
        st = move.steps[0]
        terr = list(before.territories)
        rng.shuffle(terr)
        for to in terr:
            if kind == "river":
                cand_steps = [M.Step(st.frm, to, "guard")]
            else:
                t = before.territories[to]
                cand_steps = [M.Step(st.frm, to, "attack_pa", pa=i, target=pa.owner) for i, pa in enumerate(t.pas)
                              if pa.owner is not None and pa.count > 0 and pa.owner != p and t.guards[pa.owner] > 0]
            for s in cand_steps:
                cand = M.Move((s,))
                vs = _violations(before, cand)
                want = ("W-MOV", "W-TERM") if kind == "river" else ("W-FIGHT",)
                if vs and all(not v.rule.startswith("W-TURN") for v in vs) and any(v.rule.startswith(want) for v in vs):
                    bad = _applied(before, cand)
                    if bad is not None and table_signature_state(bad, progress_tiles) != table_signature_state(before, progress_tiles):
                        return bad, {"kind": kind, "rules": sorted({v.rule for v in vs}), "move": _mj(cand)}
        return None
    return None


def _mj(move) -> dict:
    return move_to_json(move)


def table_signature_state(state, progress_tiles: bool = False) -> tuple:
    _, boards = WK.table_for(state, np.random.default_rng(0), extras=False, progress_tiles=progress_tiles)
    return table_signature(boards)


# ---------------------------------------------------------------------------------------------- rendering


@dataclass
class _Look:
    fixed: dict
    light: np.ndarray
    gains: np.ndarray
    exposure: float
    px_per_mm: float
    shadow_dir: np.ndarray
    main: str
    poses: dict = field(default_factory=dict)
    look: Look | None = None  # the table's families (None: classic)
    mult: np.ndarray | None = None  # with a look: its light over the image (``effects.light_multiplier``)
    jpeg_quality: int | None = None  # with a look: its camera's JPEG quality


def table_look(opts: RecordingOptions) -> tuple[Look, np.random.Generator] | None:
    """The table's look and the generator that fixes the rest of the table (its colours, top, light), both from
    ``table_seed`` (or the game's seed): the same for every game on that table. None without ``family``."""
    if opts.family is None:
        return None
    rng = np.random.default_rng([opts.seed if opts.table_seed is None else opts.table_seed, 0x7AB1E])
    return draw_look(rng, opts.family), rng


def _setup(initial, opts: RecordingOptions, rng) -> _Look:
    main, boards = WK.table_for(initial, rng, extras=False)
    for _ in range(ARRANGE_TRIES):  # a table where no board lies on another (the random arrangement allows overlaps)
        S.arrange(boards, main, rng)
        if not boards_overlap(boards):
            break
    else:  # never seen: push the last arrangement's boards apart (a wider table: a camera farther away)
        push_apart(boards, main)
    cam = overhead_camera(boards, opts.size, rng)
    table = table_look(opts)
    if table is not None:
        return _setup_look(boards, main, cam, opts, *table)
    n_lights = int(rng.choice([1, 2]))
    lights = [Light(float(rng.uniform(0, 360)), float(rng.uniform(45, 80)), float(rng.uniform(0.25, 0.5) / math.sqrt(i + 1)),
                    float(rng.choice([1.0, 3.0, 8.0]))) for i in range(n_lights)]
    fixed = {"camera": cam, "poses": {b.name: b.pose for b in boards}, "lights": lights, "kelvin": float(rng.uniform(3200, 6000)),
             "colour_bgr": S.jitter_colours(rng), "table_texture": fx.table_texture(rng)}
    W, H = opts.size
    light = fx.light_field(rng, (H, W), n_lights)
    gains = fx.kelvin_bgr(fixed["kelvin"]) / fx.kelvin_bgr(float(rng.uniform(4500, 5500)))
    mb = next(b for b in boards if b.name == main)
    px = S._jacobian_scale(cam.board_homography(mb.pose), tuple(np.array(mb.layout["size_mm"]) / 2))
    return _Look(fixed, light, gains / gains.max(), float(rng.uniform(0.9, 1.1)), px, np.array([0.6, 0.8]), main)


def _setup_look(boards, main: str, cam, opts: RecordingOptions, look: Look, trng) -> _Look:
    """The fixed table of a game on a family table: lights, colours, top, light field and JPEG from the table."""
    fixed = {"camera": cam, "poses": {b.name: b.pose for b in boards}, "lights": look.lights, "kelvin": look.light["kelvin"],
             "colour_bgr": S.jitter_colours(trng, look.colours), "table_texture": fx.table_texture_for(look.table, trng)}
    W, H = opts.size
    mult = fx.light_multiplier(look.light, trng, (H, W))
    mb = next(b for b in boards if b.name == main)
    px = S._jacobian_scale(cam.board_homography(mb.pose), tuple(np.array(mb.layout["size_mm"]) / 2))
    lo, hi = look.camera["jpeg"]
    return _Look(fixed, np.ones((H, W), np.float32), np.ones(3), 1.0, px, np.array([0.6, 0.8]), main, look=look, mult=mult,
                 jpeg_quality=int(trng.integers(max(lo, 70), max(hi, 72))))


def _render_state(state, look: _Look, placer: Placer, opts: RecordingOptions, k: int):
    main, boards = WK.table_for(state, np.random.default_rng([opts.seed, k, 7]), extras=False,
                                progress_tiles=opts.progress_tiles)
    placer.place(boards)
    out = S.render(boards, main, np.random.default_rng([opts.seed, 99]), opts.size, 1.0, effects_on=False, fixed=look.fixed,
                   look=look.look)
    if look.mult is not None:
        return fx.apply_multiplier(out["image"], look.mult), boards
    img = fx.apply_light(out["image"], look.light, look.gains, look.exposure)
    return img, boards


def _camera_frame(img, rng, look: _Look, opts: RecordingOptions, moving: bool):
    """A frame as the table's camera delivers it: its sensor and processing (a family table) or the classic
    noise. The frames of a recording are still but for hands: motion blur only while a hand moves. Its noise is
    drawn from the lower half of the family's range (a video camera's, at a table's light)."""
    if look.look is None:
        return _noisy(img, rng, opts.noise_sigma)
    cam = dict(look.look.camera)
    lo, hi = cam["noise"]
    cam["noise"] = [lo, lo + (hi - lo) / 2]
    out = img.copy()
    fx.sensor(out, rng, cam, look.look.light["noise_gain"], moving=moving)
    return out


def _noisy(img, rng, sigma: float):
    import cv2

    if sigma <= 0:
        return img.copy()
    noise = np.empty(img.shape, np.int16)
    cv2.setRNGSeed(int(rng.integers(0, 2**31)))
    cv2.randn(noise, (0, 0, 0), (sigma,) * 3)
    return cv2.add(img, noise, dtype=cv2.CV_8U)


def render_game(out: Path, opts: RecordingOptions, progress=None) -> dict:
    """Render one game into ``out`` (see the module doc). Returns the truth dict."""
    import cv2

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    initial, moves = play_game(opts.players, opts.seed)
    rng = np.random.default_rng([opts.seed, opts.players, 0x6A3E])
    look = _setup(initial, opts, rng)
    placer = Placer(np.random.default_rng([opts.seed, 11]))
    frames: list[tuple[int, float, str]] = []
    steps: list[dict] = []
    injected: list[dict] = []
    t = 0.0
    k = 0

    def write(img, when):
        name = f"frame_{len(frames):06d}.jpg"
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg_quality or opts.jpeg_quality])
        (out / name).write_bytes(buf.tobytes())
        frames.append((len(frames), round(when, 4), name))
        return len(frames) - 1

    def show(state, with_hand: bool):
        nonlocal t, k
        img, _ = _render_state(state, look, placer, opts, k)
        k += 1
        if with_hand:
            hand = img.copy()
            fx.hands(hand, rng, 1, look.px_per_mm, look.shadow_dir)
            write(_camera_frame(hand, rng, look, opts, True), t)
            if rng.random() < 0.3:  # a hand held still over the table
                write(_camera_frame(hand, rng, look, opts, False), t + 0.35)
                t += 0.35
            t += 0.3
        write(_camera_frame(img, rng, look, opts, False), t)
        settled = write(_camera_frame(img, rng, look, opts, False), t + 0.4)
        t += 2.0
        return settled

    state = initial.copy()
    first = show(state, False)
    steps.append({"frame": first, "moves": [], "injected": None})
    shown_sig = table_signature_state(state, opts.progress_tiles)
    pending: list[int] = []

    for i, move in enumerate(moves):
        before = state.copy()
        rules.apply(state, move)
        pending.append(i)
        sig = table_signature_state(state, opts.progress_tiles)
        if sig == shown_sig:
            continue
        if opts.inject_rate > 0 and rng.random() < opts.inject_rate and len(pending) == 1:
            kinds = list(opts.inject_kinds)
            rng.shuffle(kinds)
            for kind in kinds:
                got = illegal_variant(kind, before, move, state, rng, opts.progress_tiles)
                if got is None:
                    continue
                bad, rec = got
                if kind == "score":  # the move is made, with a wrong score step; then the disk is corrected
                    f = show(bad, rng.random() < opts.hand_rate)
                    rec.update({"frame": f, "after_move": i})
                    injected.append(rec)
                    steps.append({"frame": f, "moves": list(pending), "injected": rec})
                    pending = []
                    break
                f = show(bad, rng.random() < opts.hand_rate)
                rec.update({"frame": f, "before_move": i})
                injected.append(rec)
                steps.append({"frame": f, "moves": [], "injected": rec})
                back = show(before, rng.random() < opts.hand_rate)  # put back
                steps.append({"frame": back, "moves": [], "injected": None, "put_back": True})
                break
        f = show(state, rng.random() < opts.hand_rate)
        steps.append({"frame": f, "moves": list(pending), "injected": None})
        pending = []
        shown_sig = sig
        if progress:
            progress(len(steps))
        if opts.max_states is not None and len(steps) > opts.max_states:
            break
    last_move = max([m for s in steps for m in s["moves"]], default=-1)
    with open(out / "timestamps.csv", "w", encoding="utf-8") as fh:
        fh.write("index,t,file\n")
        for idx, when, name in frames:
            fh.write(f"{idx},{when},{name}\n")
    cam = look.fixed["camera"]
    (out / "camera.json").write_text(json.dumps(camera_json(cam), indent=1), encoding="utf-8")
    layouts = sorted(WK.layouts(opts.players))
    session = {"format": "tablewatch.replay-session/1", "game": "wendake", "players": NAMES[:opts.players], "seed": opts.seed,
               "initial": initial.to_json(), "layouts": layouts, "camera": "camera.json"}
    (out / "session.json").write_text(json.dumps(session, default=_json_default), encoding="utf-8")
    truth = {"format": FORMAT, "options": opts.key(), "players": NAMES[:opts.players], "seed": opts.seed,
             "moves": [move_to_json(m) for m in moves[:last_move + 1]], "complete": last_move == len(moves) - 1,
             "frames": len(frames), "steps": steps, "injected": injected}
    if look.look is not None:
        truth["look"] = look.look.to_json()
    (out / "truth.json").write_text(json.dumps(truth, default=_json_default), encoding="utf-8")
    (out / "done.json").write_text(json.dumps({"options": opts.key(), "frames": len(frames)}), encoding="utf-8")
    return truth


def is_done(out: Path, opts: RecordingOptions) -> bool:
    try:
        return json.loads((Path(out) / "done.json").read_text(encoding="utf-8"))["options"] == opts.key()
    except (OSError, ValueError, KeyError):
        return False


def _work(args):
    import cv2

    cv2.setNumThreads(1)
    out, opts = args
    t0 = time.perf_counter()
    if not is_done(out, opts):
        render_game(Path(out), opts)
    return str(out), time.perf_counter() - t0


def game_options(n_games: int, base_seed: int = 1, players: int | None = None, **kw) -> list[RecordingOptions]:
    """The end-to-end set: games cycling through 2, 3 and 4 players (or all of ``players``), seeds base_seed,
    base_seed + 1, ..."""
    return [RecordingOptions(players=players or (2, 3, 4)[i % 3], seed=base_seed + i, **kw) for i in range(n_games)]


def render_games(root: Path, options: list[RecordingOptions], workers: int = 1, progress: bool = True) -> list[Path]:
    """Render (or reuse, when already rendered with the same options) one folder per game under ``root``."""
    import sys

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    jobs = [(str(root / f"game_{o.players}p_s{o.seed}"), o) for o in options]
    done = []
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("fork" if hasattr(os, "fork") else "spawn").Pool(workers) as pool:
            for path, dt in pool.imap_unordered(_work, jobs):
                done.append(Path(path))
                if progress:
                    print(f"rendered {path} in {dt:.0f} s ({len(done)}/{len(jobs)})", file=sys.stderr, flush=True)
    else:
        for job in jobs:
            path, dt = _work(job)
            done.append(Path(path))
            if progress:
                print(f"rendered {path} in {dt:.0f} s ({len(done)}/{len(jobs)})", file=sys.stderr, flush=True)
    return sorted(done)
