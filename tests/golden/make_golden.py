"""Write the golden corpus: looks of the e2e games with the events the tracker gave for them.

Each file ``tests/golden/<game folder>.jsonl.gz`` holds one JSON line of header (``tablewatch.golden/1``: the
game, players, seed, initial state, where the looks came from) and then one line per look, in order:
``{"observation": <Observation JSON>, "events": [<event JSON>, ...]}``. ``tests/test_golden.py`` feeds each
observation to a fresh ``GameSession`` and asserts the same events in the same order.

The events must be those of the code whose behaviour the corpus pins, so run this script with that code first
on the path. It needs only the ``session`` and ``observation`` modules, found where they are in either layout
(``assistant.table.*`` from issue 33 on, ``assistant.*`` before)::

    # see what each game's looks give, and how long the tracker takes (to choose the subset)
    PYTHONPATH=/tmp/e2e-base python tests/golden/make_golden.py scan ~/.cache/tablewatch/e2e-tiles
    # write the corpus: the first N looks of each named game folder
    PYTHONPATH=/tmp/e2e-base python tests/golden/make_golden.py write ~/.cache/tablewatch/e2e-tiles \\
        game_2p_s7:40 game_3p_s5:30 ... --out tests/golden

The looks come from a rendered game's ``looks.jsonl``: a full ``tablewatch e2e`` replay saves them. The corpus
in this folder was made from the frozen pre-issue-33 tree (``/tmp/e2e-base``, commit 6306a79), with the e2e
games' own options but their first table changes only (``--max-states``), plus two injected games at a higher
rate to reach an ``IllegalMove``::

    cd /tmp/e2e-base; export PYTHONPATH=/tmp/e2e-base
    python -m assistant.cli e2e --games 3 --injected-games 3 --max-states 40 --out /tmp/golden-src2 --workers 1
    python -m assistant.cli e2e --games 0 --injected-games 6 --max-states 40 --out /tmp/golden-src3 --workers 1
    python -m assistant.cli e2e --games 0 --injected-games 2 --inject-rate 0.4 --max-states 30 --out /tmp/golden-src4
    python tests/golden/make_golden.py write /tmp/golden-src2 game_2p_s1 game_3p_s2 game_4p_s3
    python tests/golden/make_golden.py write /tmp/golden-src3 game_2p_s1004 game_3p_s1005 game_4p_s1006
    python tests/golden/make_golden.py write /tmp/golden-src4 game_2p_s1001 game_3p_s1002 --suffix _inject40

(``make_golden.py`` given as its path in the new tree; each header records the render options and the tree.)
A game rendered with ``--max-states`` is the e2e game cut short: the frames of 2p s1, 3p s2 and 4p s3 are
byte-identical to the first 111, 114 and 103 frames of the full e2e set's (``cmp``). To take the corpus from
the full set instead, once ``tablewatch e2e ... --looks-only`` has saved its looks: ``write
~/.cache/tablewatch/e2e-tiles game_2p_s1:41 ...`` (the ``:N`` keeps each test under a few seconds).

After a change of behaviour meant to change some events, ``refresh`` gives the corpus's own looks the events of the
code on the path and prints every look whose events changed, to be checked against what was meant::

    PYTHONPATH=. python tests/golden/make_golden.py refresh tests/golden/*.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

try:  # the layout before issue 33, tried first: an editable install of the new tree would supply assistant.table
    from assistant.observation import Observation
    from assistant.session import GameSession
except ImportError:  # issue 33's layout
    from assistant.table.observation import Observation
    from assistant.table.session import GameSession
from assistant.wendake.state import State

FORMAT = "tablewatch.golden/1"


def _events_json(events) -> list[dict]:
    return [json.loads(json.dumps(e.to_json())) for e in events or ()]


def _feed(meta: dict, observations: list[dict]) -> list[tuple[list[dict], float]]:
    """(events JSON, tracker seconds) for each observation JSON, fed in order to a fresh session of the game
    ``meta`` describes (players, seed, initial state: a session.json or a corpus header)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="tablewatch-golden-") as tmp:
        initial = State.from_json(meta["initial"]) if meta.get("initial") is not None else None
        session = GameSession.create(
            str(Path(tmp) / "golden.sqlite"), players=list(meta["players"]), seed=meta.get("seed"), initial=initial
        )
        for look in observations:
            t0 = time.perf_counter()
            events = session.feed(Observation.from_json(look))
            out.append((_events_json(events), time.perf_counter() - t0))
        session.close()
    return out


def _made_with() -> str:
    return str(Path(sys.modules[GameSession.__module__].__file__).parent)


def _write_corpus(path: Path, header: dict, rows) -> None:
    """One corpus file: the header line, then one line per (observation JSON, events JSON)."""
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write(json.dumps(header, separators=(",", ":")) + "\n")
        for look, events in rows:
            f.write(json.dumps({"observation": look, "events": events}, separators=(",", ":")) + "\n")


def run_game(folder: Path, limit: int | None = None):
    """(session.json, [(look JSON, events JSON, tracker seconds)]) for the first ``limit`` looks of ``folder``."""
    meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    looks = [json.loads(line) for line in (folder / "looks.jsonl").read_text(encoding="utf-8").splitlines()[:limit]]
    return meta, [(look, events, s) for look, (events, s) in zip(looks, _feed(meta, looks))]


def scan(src: Path) -> None:
    """One line per game, then per look: seconds, events."""
    print(f"session from {sys.modules[GameSession.__module__].__file__}", flush=True)
    for folder in sorted(p for p in src.iterdir() if (p / "looks.jsonl").is_file()):
        _, looks = run_game(folder)
        kinds = Counter(e["kind"] for _, evs, _ in looks for e in evs)
        print(f"{folder.name}: {len(looks)} looks, {sum(s for *_, s in looks):.1f} s, {dict(kinds)}", flush=True)
        total = 0.0
        for i, (_, evs, s) in enumerate(looks):
            total += s
            rare = [e["kind"] for e in evs if e["kind"] != "MoveRecognized"]
            print(f"  {i:4d} {s:6.2f} s (to here {total:6.1f} s) {len(evs)} events {' '.join(rare)}")


def _render_options(folder: Path) -> dict | None:
    """How ``tablewatch e2e`` rendered the game (``done.json``'s options: players, seed, inject rate, max states)."""
    done = folder / "done.json"
    return json.loads(done.read_text(encoding="utf-8")).get("options") if done.is_file() else None


def write(src: Path, picks: list[str], out: Path, suffix: str = "") -> None:
    out.mkdir(parents=True, exist_ok=True)
    for pick in picks:
        name, _, n = pick.partition(":")
        meta, looks = run_game(src / name, int(n) if n else None)
        header = {
            "format": FORMAT,
            "source": name,
            "game": meta.get("game", "wendake"),
            "players": meta["players"],
            "seed": meta.get("seed"),
            "initial": meta.get("initial"),
            "looks": len(looks),
            "rendered_with": _render_options(src / name),
            "made_with": _made_with(),
        }
        path = out / f"{name}{suffix}.jsonl.gz"
        _write_corpus(path, header, [(look, events) for look, events, _ in looks])
        kinds = Counter(e["kind"] for _, evs, _ in looks for e in evs)
        print(
            f"{path}: {len(looks)} looks, {path.stat().st_size // 1024} KB, tracker {sum(s for *_, s in looks):.1f} s, "
            f"{dict(kinds)}",
            flush=True,
        )


def refresh(files: list[Path]) -> None:
    """Give each corpus file the events the code on the path gives for its own looks, keeping its looks and
    header (``made_with`` becomes this tree, ``refreshed_from`` the tree before); print each look whose events
    changed, old and new, so that the change of behaviour can be checked to be the one intended."""
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            header, *looks = (json.loads(line) for line in f)
        game = header.get("game", "wendake")
        if game != "wendake":
            raise SystemExit(f"{path.name}: a {game} game; refresh knows Wendake's State only")
        rows = []
        for i, (look, (events, _)) in enumerate(zip(looks, _feed(header, [look["observation"] for look in looks]))):
            if events != look["events"]:
                print(f"{path.name} look {i}: {[e['kind'] for e in look['events']]} -> {[e['kind'] for e in events]}")
            rows.append((look["observation"], events))
        header["refreshed_from"] = header.get("made_with")
        header["made_with"] = _made_with()
        _write_corpus(path, header, rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scan")
    s.add_argument("src", type=Path)
    w = sub.add_parser("write")
    w.add_argument("src", type=Path)
    w.add_argument("picks", nargs="+", help="GAME_FOLDER[:FIRST_N_LOOKS]")
    w.add_argument("--out", type=Path, default=Path(__file__).parent)
    w.add_argument("--suffix", default="", help="added to each file's name (games rendered with other options)")
    r = sub.add_parser("refresh", help="the events of the code on the path for the corpus's own looks")
    r.add_argument("files", type=Path, nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "scan":
        scan(a.src)
    elif a.cmd == "refresh":
        refresh(a.files)
    else:
        write(a.src, a.picks, a.out, a.suffix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
