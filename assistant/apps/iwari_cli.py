"""``tablewatch iwari …``: Iwari's commands (the scoring calculator ``tally``, the built-in ``maps``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from assistant.iwari.maps import builtin_map, map_names
from assistant.iwari.tally import describe, load_table, tally
from assistant.jsonfile import read_json


def _tally(args) -> int:
    if args.file == "-":
        doc, base = load_table(sys.stdin.buffer.read(), "-"), Path.cwd()
    else:
        path = Path(args.file)
        read_json(path)  # a missing file, a folder, unreadable bytes: one line each
        doc, base = load_table(path.read_bytes(), str(path)), path.parent
    out = tally(doc, final=not args.half, base_dir=base)
    print(json.dumps(out, indent=1) if args.json else describe(out))
    return 0


def _maps(args) -> int:
    for name in map_names():
        m = builtin_map(name)
        print(
            f"{name:15s} {len(m.territories):2d} territories, {len(m.tent_spaces)} tent spaces, {len(m.connections)} connections"
            + (f", road of {len(m.road)}" if m.road else "")
            + f"  [{m.provenance.get('source')}: {m.title}]"
        )
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("iwari", help="Iwari: scoring calculator (tally) and the built-in maps")
    w = p.add_subparsers(dest="iwari_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    t = w.add_parser(
        "tally",
        help="score an Iwari table described in JSON (- for stdin)",
        description="Score an Iwari table: map, tribes, tents, totems, feats, unused, score_track, options "
        "(format: docs/iwari-tally.md, schema docs/iwari-table.schema.json).",
    )
    t.add_argument("file", help="the table file (JSON), or - for standard input")
    when = t.add_mutually_exclusive_group()
    when.add_argument("--final", action="store_true", help="the end-of-journey scoring: tents, totems, settlements (default)")
    when.add_argument("--half", action="store_true", help="the half-journey scoring: tents only (I-HALF-2)")
    t.add_argument("--json", action="store_true", help="print the result as JSON")
    t.set_defaults(func=_tally)

    m = w.add_parser("maps", help="list the built-in maps (schematic: the real geometry is not in the text, I-NIT-6)")
    m.set_defaults(func=_maps)
