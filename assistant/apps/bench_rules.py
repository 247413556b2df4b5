"""``tablewatch bench rules [--game wendake|iwari]``: random full games through a game's engine; games per second and
per-move timings.

Every move is made by the game's random player, then timed through its ``rules.check`` and ``rules.apply`` (the
apply timed without its own re-check, so the two figures add up to one checked move). "ms per game" is the whole
game: set-up, the random player's choices, checks and applies. Targets: Wendake <= 50 ms and Iwari <= 10 ms for a
4-player game (issue 35).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from assistant.iwari import moves as IM
from assistant.iwari import rules as irules
from assistant.iwari.generate import random_move as iwari_random_move
from assistant.iwari.setup import new_game as iwari_new_game
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.edition import load_edition
from assistant.wendake.generate import random_move
from assistant.wendake.setup import new_game

NAMES = ["Ringo", "Paul", "John", "George", "Yoko"]
HEAVY = (M.Move, M.Trade, M.Military, M.MaskCeremony)
IWARI_HEAVY = (IM.Place,)  # the moves that place pieces (feats, expeditions and settlements are weighed there)
TARGET_MS = {"wendake": 50, "iwari": 10}  # ms per 4-player game


def _wendake(players: int, ed):
    """(new state, random move, check, apply without check, is over, the heavy move types) for Wendake."""
    return (
        lambda seed: new_game(NAMES[:players], seed=seed, edition=ed),
        lambda s, rng: random_move(s, rng, ed),
        lambda s, m: rules.check(s, m, ed),
        lambda s, m: rules.apply(s, m, ed, validate=False),
        lambda s: s.phase == "over",
        HEAVY,
        "Move/Trade/Military/Mask",
    )


def _iwari(players: int, _ed):
    """The same for Iwari."""
    return (
        lambda seed: iwari_new_game(NAMES[:players], seed=seed),
        iwari_random_move,
        irules.check,
        lambda s, m: irules.apply(s, m, validate=False),
        lambda s: s.phase == "over",
        IWARI_HEAVY,
        "Place",
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="tablewatch bench rules")
    ap.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    ap.add_argument("--players", type=int, choices=(2, 3, 4, 5), default=4, help="players per game (default 4; 5: Iwari only)")
    ap.add_argument("--game", choices=("wendake", "iwari"), default="wendake", help="the game's engine (default wendake)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.game == "wendake" and args.players == 5:
        ap.error("Wendake is played by 2 to 4 players here; --players 5 is for Iwari.")
    ed = load_edition() if args.game == "wendake" else None
    start, move_of, check, apply, over, heavy, heavy_name = (_wendake if args.game == "wendake" else _iwari)(args.players, ed)
    check_ns, apply_ns, game_s, heavy_ns = [], [], [], []
    moves_total = 0
    started = time.perf_counter()
    for g in range(args.games):
        seed = args.seed + g
        rng = random.Random(seed)
        t0 = time.perf_counter()
        state = start(seed)
        while not over(state):
            move = move_of(state, rng)
            a = time.perf_counter_ns()
            violations = check(state, move)
            b = time.perf_counter_ns()
            if violations:
                raise SystemExit(f"random player made an illegal move in game {seed}: {violations}")
            apply(state, move)
            c = time.perf_counter_ns()
            check_ns.append(b - a)
            apply_ns.append(c - b)
            if isinstance(move, heavy):
                heavy_ns.append(c - a)
            moves_total += 1
        game_s.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - started
    med_check = statistics.median(check_ns) / 1000
    med_apply = statistics.median(apply_ns) / 1000
    both = statistics.median(a + b for a, b in zip(check_ns, apply_ns)) / 1000
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}".strip())
    print(
        f"game: {args.game}; games: {args.games} x {args.players} players, {moves_total} moves "
        f"({moves_total / args.games:.0f} per game)"
    )
    print(f"games per second: {args.games / elapsed:.1f}")
    print(
        f"ms per game: median {statistics.median(game_s) * 1000:.1f}, p95 {sorted(game_s)[int(0.95 * len(game_s))] * 1000:.1f} (target <= {TARGET_MS[args.game]} for 4 players)"
    )
    print(
        f"median check: {med_check:.1f} us, median apply: {med_apply:.1f} us, median check+apply: {both:.1f} us (target <= 200)"
    )
    every = sorted(a + b for a, b in zip(check_ns, apply_ns))
    print(
        f"check+apply p95: {every[int(0.95 * len(every))] / 1000:.1f} us, max: {every[-1] / 1000:.1f} us; "
        f"{heavy_name} only: median {statistics.median(heavy_ns) / 1000:.1f} us"
    )
    return 0
