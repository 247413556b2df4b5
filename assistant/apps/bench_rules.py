"""``tablewatch bench rules``: random full games through the engine; games per second and per-move timings.

Every move is made by the random player, then timed through ``rules.check`` and ``rules.apply`` (the apply
timed without its own re-check, so the two figures add up to one checked move).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.edition import load_edition
from assistant.wendake.generate import random_move
from assistant.wendake.setup import new_game

NAMES = ["Ringo", "Paul", "John", "George"]
HEAVY = (M.Move, M.Trade, M.Military, M.MaskCeremony)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="tablewatch bench rules")
    ap.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    ap.add_argument("--players", type=int, choices=(2, 3, 4), default=4, help="players per game (default 4)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    ed = load_edition()
    check_ns, apply_ns, game_s, heavy_ns = [], [], [], []
    moves_total = 0
    started = time.perf_counter()
    for g in range(args.games):
        seed = args.seed + g
        rng = random.Random(seed)
        t0 = time.perf_counter()
        state = new_game(NAMES[: args.players], seed=seed, edition=ed)
        while state.phase != "over":
            move = random_move(state, rng, ed)
            a = time.perf_counter_ns()
            violations = rules.check(state, move, ed)
            b = time.perf_counter_ns()
            if violations:
                raise SystemExit(f"random player made an illegal move in game {seed}: {violations}")
            rules.apply(state, move, ed, validate=False)
            c = time.perf_counter_ns()
            check_ns.append(b - a)
            apply_ns.append(c - b)
            if isinstance(move, HEAVY):
                heavy_ns.append(c - a)
            moves_total += 1
        game_s.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - started
    med_check = statistics.median(check_ns) / 1000
    med_apply = statistics.median(apply_ns) / 1000
    both = statistics.median(a + b for a, b in zip(check_ns, apply_ns)) / 1000
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}".strip())
    print(f"games: {args.games} x {args.players} players, {moves_total} moves ({moves_total / args.games:.0f} per game)")
    print(f"games per second: {args.games / elapsed:.1f}")
    print(f"ms per game: median {statistics.median(game_s) * 1000:.1f}, p95 {sorted(game_s)[int(0.95 * len(game_s))] * 1000:.1f} (target <= 50 for 4 players)")
    print(f"median check: {med_check:.1f} us, median apply: {med_apply:.1f} us, median check+apply: {both:.1f} us (target <= 200)")
    every = sorted(a + b for a, b in zip(check_ns, apply_ns))
    print(f"check+apply p95: {every[int(0.95 * len(every))] / 1000:.1f} us, max: {every[-1] / 1000:.1f} us; "
          f"Move/Trade/Military/Mask only: median {statistics.median(heavy_ns) / 1000:.1f} us")
    return 0
