"""``tablewatch bench pipeline --game iwari``: the settled-frame latency table of a rendered Iwari game, the Wendake
default unchanged, and one-line refusals for a game or player count the bench does not take."""

from __future__ import annotations

import re

import pytest

from assistant.apps.cli import main

STAGES = ("locate", "settle", "rectify", "detect", "assign", "tracker", "total")


def _table(out: str) -> dict[str, tuple[float, float]]:
    """The printed stage rows: {stage: (median ms, p95 ms)}."""
    rows = {}
    for line in out.splitlines():
        m = re.fullmatch(r"\s+(\w+)\s+([\d.]+) ms median\s+([\d.]+) ms p95", line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return rows


def _bench(capsys, *args: str, size: str = "768x432") -> str:
    assert main(["bench", "pipeline", "--size", size, "--runs", "1", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("read_all, read", [(False, "the boards the move changed read again"), (True, "every board read again")])
def test_iwari_settled_frame_is_timed_stage_by_stage(capsys, read_all, read):
    # at 768x432 a tent covers too few camera pixels for the detector to see it (no change, no event); at 1536x864 it is read
    out = _bench(capsys, "--game", "iwari", "--players", "5", *(["--read-all"] if read_all else []), size="1536x864")
    # the map board and the card display of the recording's session.json
    assert f"settled frame 1536x864, 2 boards ({read}), 1 runs, 2 threads, model detector" in out
    rows = _table(out)
    assert set(rows) == set(STAGES), out  # the tracker stage too: the session came from the game registry
    assert rows["detect"][0] > 0 and rows["tracker"][0] > 0
    assert rows["total"][0] >= rows["detect"][0] + rows["tracker"][0] - 0.5
    # the first move of an Iwari game places a piece; the settled frame of the new table makes the tracker say something
    events = re.search(r"events at the settled frames: (.+) \(true move: (.+)\)", out)
    assert events and events.group(1) != "none" and events.group(2) == "Place", out
    assert re.search(r"target: total <= 250 ms -> (met|NOT met) \(median\)", out)


def test_wendake_stays_the_default(capsys):
    out = _bench(capsys, "--players", "2")
    assert "settled frame 768x432, 6 boards (the boards the move changed read again)" in out
    assert set(_table(out)) == set(STAGES)
    assert "(true move: Activate)" in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game", "iwari", "--players", "6"], "--players 6: iwari is benched for 2, 3, 4, 5 players"),
        (["--game", "iwari", "--players", "1"], "--players 1: iwari"),
        (["--players", "5"], "--players 5: wendake is benched for 2, 3, 4 players"),
        (["--game", "chess"], "--game chess: no recorded games of 'chess'"),
        (["--game", "iwari", "--runs", "0"], "--runs 0"),
    ],
)
def test_bad_options_are_refused_in_one_line(capsys, args, words):
    assert main(["bench", "pipeline", *args]) == 2
    cap = capsys.readouterr()
    assert "rendering" not in cap.out  # refused before anything is rendered
    err = cap.err.strip()
    assert words in err and "\n" not in err, err
