"""`tablewatch live` learns its table (``assistant.apps.learn`` in ``assistant.apps.live``): a recorded game fed
through ``Live`` leaves harvested looks and the set-up check in the table profile; the tablet hooks are set; an adapt
runs as a subprocess at low priority, one at a time, its progress and result in status.json; between games it
starts by itself, and the boards are read again with the new adaptation when the table is idle. The adapt
command itself is ``tablewatch adapt`` (tests/test_adapt.py); here a stand-in script plays its part, writing a card
as it does, so that the runner is tested apart from the learning."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from assistant.apps.live import Live
from assistant.table.profile import open_profile
from assistant.table.session import GameSession
from vision.harvest import list_looks
from vision.sources import FolderSource

FAKE_ADAPT = r"""
import json, os, sys, time
from pathlib import Path
prof = Path(sys.argv[1])
(prof.parent / "nice.txt").write_text(str(os.nice(0)))
for i in range(1, 5):
    print(f"reading looks {i}/4", flush=True)
    time.sleep(0.05)
(prof / "adapted").mkdir(exist_ok=True)
card = {"format": "tablewatch.adapted/1", "looks": 3, "text": "read 97.0 % -> 99.5 % of your table's regions"}
(prof / "adapted" / "card.json").write_text(json.dumps(card))
print(card["text"], flush=True)
"""


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    from models.synth.recording import RecordingOptions, render_game

    out = tmp_path_factory.mktemp("learn-rec")
    render_game(out, RecordingOptions(players=2, seed=11, max_states=3, hand_rate=0.5))  # as the demo
    # a camera over a table being set up sees it still for a while: the rendered game's first frame, 4 times more
    rows = (out / "timestamps.csv").read_text().splitlines()
    head, first, rest = rows[0], rows[1].split(","), [r.split(",") for r in rows[1:]]
    still = [[str(i), f"{0.4 * i:.1f}", first[2]] for i in range(4)]
    moved = [[str(int(i) + 4), f"{float(t) + 1.6:.1f}", f] for i, t, f in rest]
    (out / "timestamps.csv").write_text("\n".join([head] + [",".join(r) for r in still + moved]) + "\n")
    return out


def test_live_harvests_checks_the_set_up_and_adapts_between_games(recording, tmp_path):
    meta = json.loads((recording / "session.json").read_text())
    prof = open_profile(tmp_path / "data", "t")
    session = GameSession.create(str(tmp_path / "games.sqlite"), players=meta["players"], seed=meta["seed"])
    said = []
    live = Live(
        FolderSource(recording),
        session,
        layouts=meta["layouts"],
        data_dir=tmp_path / "data",
        camera_file=recording / meta["camera"],
        profile=prof,
        adapt_idle_s=0.0,
        adapt_command=[sys.executable, "-c", FAKE_ADAPT, str(prof.root)],
        on_message=lambda level, text: said.append((level, text)),
    )
    live.start()
    assert live.ended.wait(120)
    live.harvester.flush()
    try:
        looks = list_looks(prof.looks_dir)
        assert looks and looks[0].source == "setup" and all(lk.game == session.game_id for lk in looks)
        # each board as its readers saw it: village boards at the tile reader's and the counter's 2 px/mm, rectified
        # from the frame, the others at the detector's 1 px/mm; the detector read them all at 1 px/mm
        first = looks[0]
        for board in first.meta["boards"]:
            village = board.startswith("wendake-village")
            assert first.px_per_mm(board) == (2.0 if village else 1.0) and first.read_px_per_mm(board) == 1.0
            if village:
                assert first.image(board).shape == (600, 800, 3)
        status = prof.status()
        assert status["setup_check"]["game_id"] == session.game_id and status["setup_check"]["checked"] > 100
        config = live.web_config()
        assert config["TABLE_PROFILE"] == prof and callable(config["ADAPT_NOW"])
        board = meta["layouts"][0]
        assert config["BOARD_JPEG"](board, ["T01"])[:2] == b"\xff\xd8"
        readings = sum(1 for _, text in said if text.startswith("reading "))

        text = live.learn_step()  # idle (adapt_idle_s=0) with new looks: it learns by itself
        assert text and text.startswith(f"learning your table from {len(looks)} looks (between games)")
        assert config["ADAPT_NOW"]() == "already learning your table"  # never two at once
        ok, line = live.adapter.wait(60)
        assert ok and line == "read 97.0 % -> 99.5 % of your table's regions"
        status = prof.status()
        assert status["state"] == "done" and status["text"] == line and status["card"]["looks"] == 3
        assert int((tmp_path / "data" / "tables" / "nice.txt").read_text()) >= 10  # at low priority
        assert sum(1 for _, text in said if text.startswith("reading ")) == readings + 1  # read again, idle
        assert live.learn_step() is None  # nothing new to learn from
        assert sum(1 for _, text in said if text.startswith("reading ")) == readings + 1
        card = prof.adapted_dir / "card.json"  # `tablewatch adapt --rollback` run by hand: read again, idle
        card.write_text(json.dumps({"format": "tablewatch.adapted/1", "text": "rolled back to the previous one"}))
        assert live.learn_step() is None
        assert sum(1 for _, text in said if text.startswith("reading ")) == readings + 2
    finally:
        live.stop()
        session.close()


def test_a_failed_adapt_says_why_and_the_tablet_sees_it(tmp_path):
    from assistant.apps.learn import AdaptRunner
    from vision.harvest import write_look

    prof = open_profile(tmp_path, "t")
    runner = AdaptRunner(
        prof, tmp_path, command=[sys.executable, "-c", "print('50%'); print('too few looks: play a game'); raise SystemExit(2)"]
    )
    assert runner.start() == "nothing to learn from yet: play a game first (its looks are kept as it goes)"
    write_look(prof.looks_dir, "g", 1, "setup", {}, {}, {}, {})
    assert runner.start().startswith("learning your table from 1 looks")
    assert runner.wait(30) == (False, "too few looks: play a game")
    assert prof.status()["state"] == "failed" and prof.status()["text"] == "too few looks: play a game"


def test_a_replay_harvests_into_a_profile_and_reads_with_it(recording, tmp_path):
    from assistant.apps.replay import replay_folder

    prof = open_profile(tmp_path, "t")
    res = replay_folder(recording, harvest_to=prof)
    looks = list_looks(prof.looks_dir)
    assert res["harvest"]["setup"] == 1 and len(looks) == res["harvest"]["setup"] + res["harvest"]["explained"] >= 2
    assert [e["kind"] for e in res["events"]].count("SetupCheck") == 1
    first = looks[0]
    assert first.source == "setup" and first.meta["moves"] == 0 and len(first.meta["boards"]) == 6
    again = replay_folder(recording, profile=prof)  # a profile never adapted reads as none
    assert again["moves"] == res["moves"] and "harvest" not in again


def adapted_profile(data_dir, name, swap_colours: bool):
    """A table profile whose adaptation is a table head alone: the identity, or one that reads every player's colour
    as the next player's (red as blue, blue as green, ...): an adaptation made for another table at its worst."""
    from vision.detect import TableHead

    prof = open_profile(data_dir, name)
    prof.adapted_dir.mkdir()
    card = json.loads((Path(__file__).parents[1] / "models" / "weights" / "detector.json").read_text(encoding="utf-8"))
    head = TableHead.identity(card)
    if swap_colours:
        k = len(card["colours"])  # the player colours, then "none", then the net's "no colour"
        head.colour_w = head.colour_w[list(range(1, k - 1)) + [0, k - 1, k]]
    head.save(prof.adapted_dir / "detector_head.npz")
    (prof.adapted_dir / "card.json").write_text(json.dumps({"format": "tablewatch.adapted/1", "text": name}), encoding="utf-8")
    return prof


def test_an_adaptation_that_reads_the_set_up_worse_is_dropped_for_the_game(recording, tmp_path):
    meta = json.loads((recording / "session.json").read_text())
    prof = adapted_profile(tmp_path / "data", "other-table", swap_colours=True)
    session = GameSession.create(str(tmp_path / "games.sqlite"), players=meta["players"], seed=meta["seed"])
    said = []
    live = Live(
        FolderSource(recording),
        session,
        layouts=meta["layouts"],
        data_dir=tmp_path / "data",
        camera_file=recording / meta["camera"],
        profile=prof,
        adapt_idle_s=1e9,
        adapt_command=[sys.executable, "-c", "pass"],
        on_message=lambda level, text: said.append((level, text)),
    )
    assert live.pipeline.adapted is False  # no boards yet
    live.start()
    assert live.ended.wait(120)
    try:
        verdict = live.guard.last
        assert verdict is not None and verdict.dropped and verdict.adapted > verdict.base + 5 and verdict.checked > 100
        line = (
            f"your table's adaptation read the set-up worse ({verdict.adapted} misread vs {verdict.base}): "
            "using the base model for this game"
        )
        assert ("warning", line) in said
        assert prof.status()["guard"] == {**verdict.json(), "text": line} and prof.status()["guard"]["game_id"] == session.game_id
        assert not live.pipeline.adapted  # the rest of the game was read with the base models
        assert [e.kind for e in live.pipeline.events].count("MoveRecognized") >= 3

        nxt = GameSession.create(str(tmp_path / "games.sqlite"), players=meta["players"], seed=meta["seed"])
        live.set_session(nxt)  # the next game is read with the adaptation again
        frame = next(iter(FolderSource(recording)))
        live.pipeline.step(frame)
        assert live.pipeline.adapted
        nxt.close()
    finally:
        live.stop()
        session.close()


def test_the_guard_keeps_an_adaptation_that_reads_the_set_up_as_well_or_better():
    from assistant.apps.learn import judge_setup

    expected = {"v/a": (("tribe_disk:red", 1),), "v/b": (("tribe_disk:blue", 1),), "v/c": ()}
    kind = lambda key: "count"  # noqa: E731
    right = dict(expected)
    one_off = {**expected, "v/c": (("tribe_disk:red", 1),)}
    assert not judge_setup(expected, right, one_off, kind).dropped  # better
    assert not judge_setup(expected, one_off, one_off, kind).dropped  # as well
    worse = judge_setup(expected, one_off, right, kind, "g1")
    assert worse.dropped and (worse.adapted, worse.base, worse.checked, worse.game_id) == (1, 0, 3, "g1")
    assert judge_setup(expected, one_off, {"v/a": right["v/a"]}, kind).checked == 1  # only keys both read
