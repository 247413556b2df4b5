"""``tablewatch wendake …``: the engine's commands (data check, tally, schema, validate, play a random or solo game)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from assistant.jsonfile import loads, read_json
from assistant.wendake import ghost, rules
from assistant.wendake.edition import load_edition, provenance_report
from assistant.wendake.generate import play_random_game, random_move
from assistant.wendake.record import game_to_json
from assistant.wendake.schema import STATE_SCHEMA, validate_state
from assistant.wendake.scoring import results, solo_score
from assistant.wendake.setup import new_game
from assistant.wendake.state import options_in_force
from assistant.wendake.tally import tally


def _read_json(path: str):
    return loads(sys.stdin.read(), "-") if path == "-" else read_json(path)


def _data(args) -> int:
    ed = load_edition(args.edition)
    report = provenance_report(ed)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"Wendake edition data: {', '.join(str(p) for p in ed.origin.values())}")
    by_source = {}
    for item in report:
        by_source.setdefault(item["source"], []).append(item)
    for source in ("unknown", "inferred"):
        items = by_source.get(source, [])
        print(f"\n{source.upper()} ({len(items)}):" + (" values in use are stand-ins; check them against your box." if source == "unknown" else ""))
        for item in items:
            print(f"  {item['file']}: {item['where']} [{item['rule']}] {item['why']}")
    print(f"\n{len(report)} facts are not from the rulebook. Correct them by copying a file from the folder above into your own"
          " folder, editing it, and setting TABLEWATCH_EDITION_DIR (or --edition) to that folder.")
    return 0


def _tally(args) -> int:
    print(json.dumps(tally(_read_json(args.file)), indent=1))
    return 0


def _schema(args) -> int:
    text = json.dumps(STATE_SCHEMA, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def _validate(args) -> int:
    errors = validate_state(_read_json(args.file))
    if errors:
        print(f"{args.file}: {len(errors)} problem(s):", file=sys.stderr)
        for e in errors:
            print(f"  {e}", file=sys.stderr)
        return 2
    print(f"{args.file}: a valid Wendake state.")
    return 0


def _play(args) -> int:
    names = args.names.split(",") if args.names else ["Ringo", "Paul", "John", "George"][: args.players]
    initial = new_game(names, seed=args.seed)
    final, moves = play_random_game(names, seed=args.seed)
    if args.out:
        Path(args.out).write_text(json.dumps(game_to_json(initial, moves)) + "\n", encoding="utf-8")
        print(f"wrote {args.out}: {len(moves)} moves")
    res = results(final)
    for p in res["players"]:
        print(f"  {p['name']:8s} {p['total']:3d}")
    print(f"winner: {res['winner']}" + (f" ({res['tie_break']})" if res["tie_break"] else ""))
    return 0


def _solo(args) -> int:
    ed = load_edition()
    state = ghost.new_solo_game(args.name, seed=args.seed, difficulty=args.difficulty, deal_tribe=args.tribe, edition=ed)
    rng = random.Random(args.seed)
    me = state.players[0]
    print(f"Solo game, seed {args.seed}, {args.difficulty}; {me.name} ({me.colour}, Home {me.home}"
          + (f", tribe {me.tribe}" if me.tribe else "") + f") against the Ghost ({state.players[1].colour}, Home {state.players[1].home}).")
    if ed.ghost_placeholder:
        print("NOTE: the Ghost cards are the PLACEHOLDER set (W-NIT-10); enter your own cards as docs/ghost-cards.md explains.")
    print(f"Ghost cards: {', '.join(state.solo.cards)}; Ghost score disks: "
          + ", ".join(f"{t} {state.players[1].tracks[t]}" for t in state.solo.score_tracks))
    changed = [o for o in options_in_force(state.options) if o["changed"]]
    print("Options: " + (", ".join(f"{o['option']}={o['value']} ({o['rule']})" for o in changed) if changed else "all defaults (spec section 20)"))
    player_moves = 0
    while state.phase != "over":
        move = random_move(state, rng, ed)
        if state.is_ghost(state.current) or type(move).__name__.startswith("Ghost"):
            print("  " + ghost.instruction(state, ed)["text"])
        else:
            player_moves += 1
        rules.apply(state, move, ed)
    res = solo_score(state, ed)
    print(f"\n{me.name} played {player_moves} moves. Score {res['score']['total']} ("
          + ", ".join(f"{p['tracks'][0]}/{p['tracks'][1]} {p['counted']}" for p in res["score"]["pairs"])
          + f", swap tokens {res['score']['swap_tokens']})")
    for o in res["objectives"]:
        print(f"  objective {o['card']}: {o['text']} -> {'met' if o['met'] else 'not met'} (+{o['points']})")
    print(f"Total {res['total']} against the Ghost's {res['ghost_total']}: {'you win' if res['win'] else 'the Ghost wins (a tie is a loss)'} (W-SOLO-12).")
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("wendake", help="Wendake rules engine: scoring calculator, edition data, states, random games")
    w = p.add_subparsers(dest="wendake_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    d = w.add_parser("data", help="list the edition facts that do not come from the rulebook")
    d.add_argument("--check", action="store_true", help="list every fact that is inferred or unknown (the default)")
    d.add_argument("--json", action="store_true", help="print the list as JSON")
    d.add_argument("--edition", metavar="DIR", help="a folder of corrected data files (else $TABLEWATCH_EDITION_DIR)")
    d.set_defaults(func=_data)

    t = w.add_parser("tally", help="score a finished game's table from a JSON file (- for stdin)",
                     description="Score a finished game. Input: {\"pairs\": [[A,B],[C,D]], \"players\": [{\"name\", \"turn_order\", "
                                 "\"swap_tokens_unused\", \"tracks\": {economic, military, ritual, mask}, \"turtles\": [...]}]}")
    t.add_argument("file")
    t.set_defaults(func=_tally)

    s = w.add_parser("schema", help="print (or write) the JSON Schema of a game state")
    s.add_argument("--out", help="write to this file")
    s.set_defaults(func=_schema)

    v = w.add_parser("validate", help="check a game-state JSON file against the schema and the piece counts")
    v.add_argument("file")
    v.set_defaults(func=_validate)

    g = w.add_parser("play", help="play a seeded random game and optionally save its record")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    g.add_argument("--names", help="comma-separated player names")
    g.add_argument("--out", help="write the game record (initial state and moves) here")
    g.set_defaults(func=_play)

    so = w.add_parser("solo", help="play a seeded solo game: the random player against the Ghost, printing the Ghost's instructions")
    so.add_argument("--seed", type=int, default=0)
    so.add_argument("--difficulty", choices=("easy", "medium", "hard"), default="medium", help="W-SOLO-1 (default medium)")
    so.add_argument("--tribe", action="store_true", help="draw 2 tribe cards and keep 1 (W-SOLO-6)")
    so.add_argument("--name", default="You")
    so.set_defaults(func=_solo)
