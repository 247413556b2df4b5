"""Whole recorded games rendered as camera-frame folders: the end-to-end test set of the live pipeline.

One game = one folder that ``vision.sources.FolderSource`` plays and ``tablewatch replay`` reads:

- ``frame_NNNNNN.jpg`` + ``timestamps.csv`` (``index,t,file``), as ``tablewatch record`` writes them;
- ``camera.json`` (the fixed camera's intrinsics, ``tablewatch calibrate camera`` format) and ``session.json``
  (game, players, seed, initial state, the boards' layout names): what a replay needs to start the game;
- ``truth.json``: the true move log, and per rendered table state the frame where it is settled, the engine moves it
  covers and, for injected illegal changes, what was injected and which rules it breaks.

The games: Wendake (``RecordingOptions.game`` "wendake", ``recording_wendake``) and Iwari ("iwari",
``recording_iwari``, on ``RecordingOptions.map`` or a built-in map drawn from the seed). What is game-specific (the
seeded game, the boards of a state, the table signature, the injected illegal changes, session.json) is behind a
``GamePart``; everything here is game-neutral. docs/synth.md ("Recorded games") gives the folder's contract.

Per game everything physical is fixed: camera (straight over the table, seeing every board), board poses, lights,
colour temperature, table texture, piece colours. Pieces keep their spot while their region does not change
(``placing.Placer``). After each engine move that changes the table: optionally a frame with a hand and arm over
the table (``hand_rate``; sometimes held still for 0.35 s, which only the hand test can reject), then the settled
table twice, 0.15 s and 0.55 s later (the pipeline reads it once it has been still for 300 ms).

Each Wendake player's bought progress tiles lie on their village's progress spaces (``progress_tiles``, on by
default; a Trade's purchase and a tile's use show there too, W-PRG-3/4).

Injected illegal changes (``inject_rate``, kinds in ``inject_kinds``, by default all of the game's): the illegal
table is shown settled, then put back to the position before it, then the game goes on (a kind of the game's
``after_kinds``, Wendake's ``score``, is shown after its move instead and then corrected). Each is checked with the
rules engine: it is injected only when ``rules.check`` rejects it, and the rules it breaks are recorded. The kinds
are in each game part's docstring.

A **table** (``family`` "familiar" | "foreign", ``models.synth.families``): the board art, piece shapes,
materials, light, camera processing, table top and clutter of one look drawn from ``table_seed`` (default: the
game's seed), so several games can be played on the same table (the foreign-table set, docs/foreign-set.md).
Without ``family`` a game is rendered as before families existed, draw for draw.

``render_games`` renders many games in parallel processes and skips games already rendered with the same options
(``done.json``), so the set is cached. ``done.json`` also keeps ``renderer_code()``, a hash of this package's
source: a cached game drawn by other renderer code is reused as it is (a measured set stays fixed), and said.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from assistant.errors import UserError
from models.synth import effects as fx
from models.synth import recording_iwari as IP
from models.synth import recording_wendake as WP
from models.synth import scene as S
from models.synth.camera import BoardPose, Camera, look_at
from models.synth.families import Look, draw_look
from models.synth.pieces import Light
from models.synth.placing import Placer as Placer
from models.synth.placing import table_signature as table_signature
from models.synth.recording_wendake import INJECT_KINDS as INJECT_KINDS
from models.synth.recording_wendake import NAMES as NAMES
from models.synth.recording_wendake import illegal_variant as illegal_variant
from models.synth.recording_wendake import play_game as play_game
from models.synth.recording_wendake import table_signature_state as table_signature_state
from models.synth.writer import _json_default

FORMAT = "tablewatch.recording/1"
DEFAULT_SIZE = (2304, 1296)


@dataclass
class RecordingOptions:
    """One recorded game. ``UserError`` for a game, player count, map or injected kind the game does not have."""

    players: int = 4
    seed: int = 0
    size: tuple[int, int] = DEFAULT_SIZE
    hand_rate: float = 0.5  # share of table changes preceded by a hand frame
    inject_rate: float = 0.0  # share of eligible moves turned into an injected illegal change first
    inject_kinds: tuple[str, ...] | None = None  # None: every kind of the game (``GamePart.inject_kinds``)
    max_states: int | None = None  # stop after this many rendered table changes (short tests)
    jpeg_quality: int = 92
    noise_sigma: float = 1.5
    # draw the bought progress tiles on the villages (``models.synth.wendake.bought_tiles``), as a real table has them;
    # off: the recordings made before they were drawn (Wendake)
    progress_tiles: bool = True
    family: str | None = None  # "familiar" | "foreign": the table's look from that pool (None: the classic table)
    table_seed: int | None = None  # the table's look from this seed (default: the game's seed); with ``family``
    game: str = "wendake"  # "wendake" | "iwari"
    map: str | None = None  # Iwari: the built-in map (None: one drawn from the seed)

    def __post_init__(self) -> None:
        part = part_for(self.game)
        if self.players not in part.players:
            raise UserError(f"{self.game} is recorded for {', '.join(map(str, part.players))} players, not {self.players}.")
        part.check_options(self)
        unknown = [k for k in self.inject_kinds or () if k not in part.inject_kinds]
        if unknown:
            raise UserError(f"{self.game} has no injected change {unknown[0]!r}; its kinds are {', '.join(part.inject_kinds)}.")

    def kinds(self) -> tuple[str, ...]:
        """The injected kinds drawn from: ``inject_kinds``, or every kind of the game."""
        return tuple(self.inject_kinds) if self.inject_kinds is not None else part_for(self.game).inject_kinds

    def key(self) -> dict:
        """The options as ``done.json`` and truth.json keep them; a Wendake game's key has neither ``game`` nor
        ``map``, so the games cached before Iwari was recorded stay cached."""
        d = dict(self.__dict__)
        d["size"] = list(self.size)
        d["inject_kinds"] = list(self.kinds())
        if not self.progress_tiles:  # games rendered without them before the option existed stay cached
            del d["progress_tiles"]
        for k in ("family", "table_seed", "map"):  # nor do the classic games rendered before families existed
            if d[k] is None:
                del d[k]
        if self.game == "wendake":
            del d["game"]
        return d


# ---------------------------------------------------------------------------------------------- games


class GamePart(Protocol):
    """What ``render_game`` asks of a game (``recording_wendake.PART``, ``recording_iwari.PART``)."""

    name: str
    players: tuple[int, ...]  # the player counts it renders
    inject_kinds: tuple[str, ...]  # its injected illegal changes (``RecordingOptions.inject_kinds`` None: all)
    after_kinds: tuple[str, ...]  # kinds shown after the move (made, one thing off) rather than instead of it

    def check_options(self, opts) -> None: ...  # ``UserError`` for an option the game does not take
    def names(self, players: int) -> list[str]: ...  # the players' names
    def play(self, opts) -> tuple: ...  # (initial state, moves) of the seeded game, every move checked
    def apply(self, state, move) -> None: ...  # play a move in place, checked
    def table_for(self, state, rng, opts, setup: bool = False) -> tuple: ...  # (main board, [BoardSpec]) of a state
    def settle(self, boards) -> None: ...  # after the ``Placer``: pieces that stand on others
    def extra_colours(self) -> dict: ...  # piece colours the classic palette lacks, {name: BGR}
    def signature(self, state, opts) -> tuple: ...  # what a camera sees of a state's table
    def illegal(self, kind: str, before, move, after, rng, opts): ...  # (illegal state, record) or None
    def move_to_json(self, move) -> dict: ...
    def folder(self, opts) -> str: ...  # the game's folder name under ``render_games``' root
    def session(self, initial, opts) -> dict: ...  # session.json


PARTS: dict[str, GamePart] = {"wendake": WP.PART, "iwari": IP.PART}


def part_for(game: str) -> GamePart:
    """The game part of ``game``; ``UserError`` naming the known games."""
    if game not in PARTS:
        raise UserError(f"no recorded games of {game!r}: the games are {', '.join(PARTS)}.")
    return PARTS[game]


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
        polys.append(
            b.pose.to_table([[-gap_mm, -gap_mm], [w + gap_mm, -gap_mm], [w + gap_mm, h + gap_mm], [-gap_mm, h + gap_mm]]).astype(
                np.float32
            )
        )
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
            for b in others[i + 1 :] + [mb]:
                if not boards_overlap([a, b], gap_mm):
                    continue
                far = a if b is mb or np.linalg.norm(middle(a) - centre) >= np.linalg.norm(middle(b) - centre) else b
                d = middle(far) - centre
                d = d / (np.linalg.norm(d) or 1.0) * step_mm
                far.pose = BoardPose(far.pose.x + float(d[0]), far.pose.y + float(d[1]), far.pose.rotation_deg)
    raise RuntimeError("boards still overlap after pushing them apart")


def camera_json(cam) -> dict:
    return {
        "format": "tablewatch-camera/1",
        "image_size": list(cam.size),
        "camera_matrix": np.round(cam.K, 6).tolist(),
        "distortion": np.round(cam.dist, 8).tolist(),
        "rms_px": 0.0,
        "images_used": 0,
        "images_given": 0,
        "pattern": {"kind": "synthetic"},
    }


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
    """The fixed table of a game: board poses, the overhead camera, lights, colours, top and light field."""
    part = part_for(opts.game)
    main, boards = part.table_for(initial, rng, opts, setup=True)
    for _ in range(ARRANGE_TRIES):  # a table where no board lies on another (the random arrangement allows overlaps)
        S.arrange(boards, main, rng)
        if not boards_overlap(boards):
            break
    else:  # never seen: push the last arrangement's boards apart (a wider table: a camera farther away)
        push_apart(boards, main)
    cam = overhead_camera(boards, opts.size, rng)
    table = table_look(opts)
    if table is not None:
        return _with_extra_colours(_setup_look(boards, main, cam, opts, *table), part, table[1])
    n_lights = int(rng.choice([1, 2]))
    lights = [
        Light(
            float(rng.uniform(0, 360)),
            float(rng.uniform(45, 80)),
            float(rng.uniform(0.25, 0.5) / math.sqrt(i + 1)),
            float(rng.choice([1.0, 3.0, 8.0])),
        )
        for i in range(n_lights)
    ]
    fixed = {
        "camera": cam,
        "poses": {b.name: b.pose for b in boards},
        "lights": lights,
        "kelvin": float(rng.uniform(3200, 6000)),
        "colour_bgr": S.jitter_colours(rng),
        "table_texture": fx.table_texture(rng),
    }
    W, H = opts.size
    light = fx.light_field(rng, (H, W), n_lights)
    gains = fx.kelvin_bgr(fixed["kelvin"]) / fx.kelvin_bgr(float(rng.uniform(4500, 5500)))
    mb = next(b for b in boards if b.name == main)
    px = S._jacobian_scale(cam.board_homography(mb.pose), tuple(np.array(mb.layout["size_mm"]) / 2))
    return _with_extra_colours(
        _Look(fixed, light, gains / gains.max(), float(rng.uniform(0.9, 1.1)), px, np.array([0.6, 0.8]), main), part, rng
    )


def _with_extra_colours(look: _Look, part: GamePart, rng) -> _Look:
    """The game's piece colours the palette lacks (Iwari's purple), jittered as the others, drawn last so that a
    game without them draws as before."""
    extra = part.extra_colours()
    if extra:
        look.fixed["colour_bgr"] = {**look.fixed["colour_bgr"], **S.jitter_colours(rng, extra)}
    return look


def _setup_look(boards, main: str, cam, opts: RecordingOptions, look: Look, trng) -> _Look:
    """The fixed table of a game on a family table: lights, colours, top, light field and JPEG from the table."""
    fixed = {
        "camera": cam,
        "poses": {b.name: b.pose for b in boards},
        "lights": look.lights,
        "kelvin": look.light["kelvin"],
        "colour_bgr": S.jitter_colours(trng, look.colours),
        "table_texture": fx.table_texture_for(look.table, trng),
    }
    W, H = opts.size
    mult = fx.light_multiplier(look.light, trng, (H, W))
    mb = next(b for b in boards if b.name == main)
    px = S._jacobian_scale(cam.board_homography(mb.pose), tuple(np.array(mb.layout["size_mm"]) / 2))
    lo, hi = look.camera["jpeg"]
    return _Look(
        fixed,
        np.ones((H, W), np.float32),
        np.ones(3),
        1.0,
        px,
        np.array([0.6, 0.8]),
        main,
        look=look,
        mult=mult,
        jpeg_quality=int(trng.integers(max(lo, 70), max(hi, 72))),
    )


def _render_state(state, look: _Look, placer: Placer, opts: RecordingOptions, k: int):
    """(image before the camera's noise, boards) of table state number ``k``, pieces kept in their spots."""
    part = part_for(opts.game)
    main, boards = part.table_for(state, np.random.default_rng([opts.seed, k, 7]), opts)
    placer.place(boards)
    part.settle(boards)
    out = S.render(
        boards, main, np.random.default_rng([opts.seed, 99]), opts.size, 1.0, effects_on=False, fixed=look.fixed, look=look.look
    )
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
    part = part_for(opts.game)
    initial, moves = part.play(opts)
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
    shown_sig = part.signature(state, opts)
    pending: list[int] = []

    for i, move in enumerate(moves):
        before = state.copy()
        part.apply(state, move)
        pending.append(i)
        sig = part.signature(state, opts)
        if sig == shown_sig:
            continue
        if opts.inject_rate > 0 and rng.random() < opts.inject_rate and len(pending) == 1:
            kinds = list(opts.kinds())
            rng.shuffle(kinds)
            for kind in kinds:
                got = part.illegal(kind, before, move, state, rng, opts)
                if got is None:
                    continue
                bad, rec = got
                if kind in part.after_kinds:  # the move is made, with a wrong score step; then the disk is corrected
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
    session = part.session(initial, opts)
    (out / "session.json").write_text(json.dumps(session, default=_json_default), encoding="utf-8")
    truth = {
        "format": FORMAT,
        "options": opts.key(),
        "players": part.names(opts.players),
        "seed": opts.seed,
        "moves": [part.move_to_json(m) for m in moves[: last_move + 1]],
        "complete": last_move == len(moves) - 1,
        "frames": len(frames),
        "steps": steps,
        "injected": injected,
    }
    if look.look is not None:
        truth["look"] = look.look.to_json()
    (out / "truth.json").write_text(json.dumps(truth, default=_json_default), encoding="utf-8")
    done = {"options": opts.key(), "frames": len(frames), "renderer": renderer_code()}
    (out / "done.json").write_text(json.dumps(done), encoding="utf-8")
    return truth


@functools.cache
def renderer_code() -> str:
    """A short hash of the scene renderer's source (``models/synth/*.py``), kept in each game's ``done.json``; read
    once a process (``render_games`` asks it of every cached game)."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def drawn_by_other_code(out: Path) -> bool:
    """Whether a rendered game's ``done.json`` names other renderer code than this (or none: drawn before the
    hash was kept)."""
    try:
        return json.loads((Path(out) / "done.json").read_text(encoding="utf-8")).get("renderer") != renderer_code()
    except (OSError, ValueError, AttributeError):
        return True


def is_done(out: Path, opts: RecordingOptions) -> bool:
    """Whether ``out`` holds the game rendered with these very options (its ``done.json``)."""
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


def game_options(
    n_games: int, base_seed: int = 1, players: int | None = None, game: str = "wendake", **kw
) -> list[RecordingOptions]:
    """The end-to-end set of ``game``: games cycling through its player counts (Wendake 2, 3 and 4; Iwari 2 to 5),
    or all of ``players``, seeds base_seed, base_seed + 1, ..."""
    counts = part_for(game).players
    return [
        RecordingOptions(players=players or counts[i % len(counts)], seed=base_seed + i, game=game, **kw) for i in range(n_games)
    ]


def render_games(root: Path, options: list[RecordingOptions], workers: int = 1, progress: bool = True) -> list[Path]:
    """Render (or reuse, when already rendered with the same options) one folder per game under ``root``: Wendake's
    ``game_<players>p_s<seed>``, Iwari's ``iwari_[<map>_]<players>p_s<seed>`` (``GamePart.folder``)."""
    import sys

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    jobs = [(str(root / part_for(o.game).folder(o)), o) for o in options]
    old = [p for p, o in jobs if is_done(p, o) and drawn_by_other_code(p)]
    if old and progress:
        print(
            f"{len(old)} of {len(jobs)} games under {root} were drawn by other renderer code than this one (models/synth "
            f"changed since, or they predate its hash) and are reused as they are; delete their folders to draw them again.",
            file=sys.stderr,
            flush=True,
        )
    done = []
    if workers > 1:
        import multiprocessing as mp

        # spawned, not forked: a fork taken while an OpenCV or onnxruntime thread of this process holds a lock
        # leaves the child waiting on it for ever (a README test run hung so in test_end_to_end_figures)
        with mp.get_context("spawn").Pool(workers) as pool:
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
