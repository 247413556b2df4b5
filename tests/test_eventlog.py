"""The append-only SQLite game log: crash safety (kill -9), full disk, read-only and corrupt files."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from assistant.errors import UserError
from assistant.table.eventlog import EventLog


def test_append_and_read_back(tmp_path):
    log = EventLog(tmp_path / "g.sqlite")
    log.create_game("g1", "wendake", {"x": 1}, "A vs B")
    seqs = [log.append("g1", "Note", {"i": i}) for i in range(5)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 5
    assert [e["payload"]["i"] for e in log.events("g1")] == list(range(5))
    assert [e["payload"]["i"] for e in log.events("g1", since=seqs[2])] == [3, 4]
    mode = log.db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    log.close()
    again = EventLog(tmp_path / "g.sqlite")
    assert again.games()[0]["id"] == "g1" and again.games()[0]["events"] == 5
    assert again.append("g1", "Note", {"i": 5}) == seqs[-1] + 1


def test_full_disk_keeps_events_in_memory_then_flushes(tmp_path):
    log = EventLog(tmp_path / "g.sqlite", reserve_bytes=0)  # no reserve: the events wait in memory
    log.create_game("g1", "wendake", {"x": 1})
    pages = log.db.execute("PRAGMA page_count").fetchone()[0]
    log.db.execute(f"PRAGMA max_page_count = {pages}")
    big = {"blob": "x" * 20000}
    seqs = [log.append("g1", "Big", dict(big, i=i)) for i in range(4)]
    assert not log.status["ok"]
    assert "disk is full" in log.status["message"] and "kept in memory" in log.status["message"]
    assert [e["payload"]["i"] for e in log.events("g1")] == [0, 1, 2, 3]  # nothing lost, still readable
    log.db.execute("PRAGMA max_page_count = 1000000")
    assert log.flush() and log.status["ok"]
    log.close()
    reopened = EventLog(tmp_path / "g.sqlite")
    assert [e["seq"] for e in reopened.events("g1")] == seqs


def test_a_look_and_its_events_are_written_together_or_not_at_all(tmp_path):
    """``append_many`` (a look and the events the tracker drew from it, ``GameSession.feed``) is one transaction: on
    a full disk none of it reaches the file, all of it stays in memory, and it is written whole once there is room.
    A resumed game runs its tracker again on the looks (``GameSession._rerun``), so a look must never be stored
    without the events it gave."""
    import sqlite3

    log = EventLog(tmp_path / "g.sqlite", reserve_bytes=0)
    log.create_game("g1", "wendake", {"x": 1})
    pages = log.db.execute("PRAGMA page_count").fetchone()[0]
    log.db.execute(f"PRAGMA max_page_count = {pages + 1}")  # room for a small row, not for a big one
    seqs = log.append_many("g1", [("Observation", {"i": 0}), ("MoveRecognized", {"blob": "x" * 20000})])
    assert seqs == [1, 2] and not log.status["ok"]
    on_disk = sqlite3.connect(str(tmp_path / "g.sqlite"))
    assert on_disk.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    assert [e["kind"] for e in log.events("g1")] == ["Observation", "MoveRecognized"]  # kept in memory
    log.db.execute("PRAGMA max_page_count = 1000000")
    assert log.flush() and log.status["ok"]
    assert [r[0] for r in on_disk.execute("SELECT seq FROM events ORDER BY seq")] == seqs
    on_disk.close()
    log.close()


def test_corrupt_file_gives_clear_message(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(UserError, match="damaged or not a Tablewatch game log"):
        EventLog(bad)


def test_missing_log_when_not_creating(tmp_path):
    with pytest.raises(UserError, match="no game log"):
        EventLog(tmp_path / "none.sqlite", create=False)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_log_keeps_game_in_memory(tmp_path):
    path = tmp_path / "g.sqlite"
    log = EventLog(path)
    log.create_game("g1", "wendake", {"x": 1})
    log.append("g1", "Note", {"i": 0})
    log.close()
    for f in tmp_path.iterdir():
        f.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        ro = EventLog(path)
        ro.append("g1", "Note", {"i": 1})
        assert not ro.status["ok"] and "read-only" in ro.status["message"]
        assert [e["payload"]["i"] for e in ro.events("g1")] == [0, 1]
    finally:
        tmp_path.chmod(0o755)


WRITER = textwrap.dedent("""
    import sys
    from assistant.table.observation import Observation, Reading
    from assistant.table.session import GameSession
    from assistant.wendake import moves as M
    from assistant.wendake.generate import play_random_game
    from assistant.wendake.observer import expected_readings

    db, seed = sys.argv[1], int(sys.argv[2])
    states, moves = [], []
    final, _ = play_random_game(["Ann", "Bob"], seed=seed, on_move=lambda s, m: (states.append(s.copy()), moves.append(m)))
    states.append(final)
    s = GameSession.create(db, players=["Ann", "Bob"], seed=seed, game_id="crash")
    for i, m in enumerate(moves):
        if isinstance(m, (M.EndTurn, M.Restore)):
            obs = Observation(i, float(i), {k: Reading(v, 1.0) for k, v in expected_readings(states[i + 1]).items()})
            s.feed(obs)
            print(s.last_seq, flush=True)
""")


def _replayed_state(db):
    """The state the stored log describes, rebuilt without the session: setup + recognised moves + corrections."""
    from assistant.wendake import moves as M
    from assistant.wendake import rules
    from assistant.wendake.state import State

    log = EventLog(db)
    state = State.from_json(log.setup("crash")["initial"])
    played = []
    for e in log.events("crash"):
        if e["kind"] == "MoveRecognized":
            played += [M.move_from_json(m) for m in e["payload"]["moves"]]
    for m in played:
        rules.apply(state, m)
    log.close()
    return state, len(played)


def test_kill_9_then_resume_gives_the_logged_state(tmp_path):
    from assistant.table.session import GameSession

    rng = random.Random(3)
    for attempt in range(3):
        db = tmp_path / f"crash{attempt}.sqlite"
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(40 + attempt)], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        wanted = rng.randint(3, 25)
        lines = 0
        deadline = time.monotonic() + 120
        while lines < wanted and time.monotonic() < deadline:
            if not proc.stdout.readline():
                break
            lines += 1
        time.sleep(rng.random() * 0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert lines >= 1
        session = GameSession.resume(db)
        state, n = _replayed_state(db)
        assert n >= 1
        assert session.state.to_json() == state.to_json()
        assert len(session.tracker.moves) == n
        # the resumed game goes on: the log accepts new events after the last one
        assert session.log.append(session.game_id, "Note", {}) == session.last_seq
        session.close()
