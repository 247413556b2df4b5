"""``tablewatch demo``: replay the bundled recorded game and show the live score as it goes.

Until the camera pipeline exists this replays the game's moves through the rules engine, checking each one,
and prints every move with its score change, the standings at the end of each year, and the final result
with the tie-break explained.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

DEMO_GAME = Path(__file__).parent / "wendake" / "data" / "demo_game.json"


def _standings(state, include_turtles: bool) -> str:
    from assistant.wendake.scoring import results

    res = results(state, include_turtles=include_turtles)
    pairs = " | ".join("/".join(p) for p in state.pairs)
    lines = [f"  {'player':8s} {'econ':>4s} {'mil':>4s} {'rit':>4s} {'mask':>4s}  total  (pairs: {pairs})"]
    for pl, r in zip(state.players, res["players"]):
        t = pl.tracks
        lines.append(f"  {pl.name:8s} {t['economic']:4d} {t['military']:4d} {t['ritual']:4d} {t['mask']:4d}  {r['total']:5d}")
    lines.append(f"  leader: {res['winner']}" + (f" - {res['tie_break']}" if res["tie_break"] else ""))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from assistant.wendake import moves as M
    from assistant.wendake.describe import describe
    from assistant.wendake.record import load_game, replay
    from assistant.wendake.scoring import results

    initial, moves = load_game(args.game)
    print(f"Tablewatch demo: replaying {Path(args.game).name} ({len(moves)} moves, {initial.n} players) through the Wendake rules engine.")
    print("Order of play: " + ", ".join(initial.players[i].name for i in initial.turn_order))

    def show(before, move, after):
        if not isinstance(move, (M.EndTurn,)):
            print(f"  year {before.year}  {describe(before, move, after)}")
        if after.year != before.year or (after.phase == "over" and before.phase != "over"):
            print(f"\n== end of year {before.year} ==\n" + _standings(after, include_turtles=False) + "\n")
        if args.delay:
            time.sleep(args.delay)

    final = replay(initial, moves, on_move=show if not args.quiet else None)
    res = results(final)
    print("== final score (turtles revealed) ==")
    for p in res["players"]:
        pairs = " + ".join(f"{x['counted']} ({'/'.join(x['tracks'])})" for x in p["pairs"])
        print(f"  {p['name']:8s} {pairs} + {p['swap_tokens']} swap = {p['total']}")
    print(f"winner: {res['winner']}" + (f" ({res['tie_break']})" if res["tie_break"] else ""))
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="replay the bundled demo game and show the live score")
    p.add_argument("--game", default=str(DEMO_GAME), help="a game record to replay (default: the bundled game)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to wait after each move")
    p.add_argument("--quiet", action="store_true", help="print only the final result")
    p.set_defaults(func=run)
