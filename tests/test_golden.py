"""The golden corpus: looks of the e2e games, and the events the tracker must give for them, in order.

Each ``tests/golden/*.jsonl.gz`` file holds a rendered e2e game's first looks as the camera side read them, with
the events the tracker gave before issue 33 (``tests/golden/make_golden.py`` says how they were made and how to
make them again), less the questions about a line the turn might still go on to, which the tracker no longer asks
(refreshed with ``make_golden.py refresh``: 16 ``NeedsConfirmation`` and their 15 clearings gone, every other
event the same but for alert numbers). The corpus: 8 games (2, 3 and 4 players, four of them with injected illegal
changes), 304 looks and 420 events: ``MoveRecognized``, ``NeedsConfirmation`` (2), ``AlertCleared``,
``ScoreMismatch`` (4: a score disk one step off) and an ``IllegalMove`` (W-LINE-2); 139 KB, about 12 s.

The test goes through the public surface only: a fresh ``GameSession`` in a temporary game log, each look fed as
an ``Observation``, each event compared as its JSON. Code may move freely behind that surface; a difference here
is a change of behaviour.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from assistant.table import game as games
from assistant.table.observation import Observation
from assistant.table.session import GameSession

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.jsonl.gz"))


def read(path: Path) -> tuple[dict, list[dict]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        header, *looks = (json.loads(line) for line in f)
    assert header["format"] == "tablewatch.golden/1" and header["looks"] == len(looks)
    return header, looks


def session_for(header: dict, db: Path) -> GameSession:
    game = games.get(header["game"])
    initial = game.state_from_json(header["initial"]) if header["initial"] is not None else None
    return GameSession.create(str(db), players=header["players"], game=header["game"], seed=header["seed"], initial=initial)


def test_the_corpus_is_there():
    assert len(FILES) >= 3
    assert sum(p.stat().st_size for p in FILES) < 600_000  # a few hundred KB


@pytest.mark.parametrize("path", FILES, ids=[p.name.split(".")[0] for p in FILES])
def test_each_look_gives_the_events_it_gave(path, tmp_path):
    header, looks = read(path)
    session = session_for(header, tmp_path / "golden.sqlite")
    try:
        for i, look in enumerate(looks):
            got = [json.loads(json.dumps(e.to_json())) for e in session.feed(Observation.from_json(look["observation"]))]
            want = look["events"]
            assert [e["kind"] for e in got] == [e["kind"] for e in want], f"look {i} (frame {look['observation']['frame']})"
            assert got == want, f"look {i} (frame {look['observation']['frame']})"
    finally:
        session.close()
