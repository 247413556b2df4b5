"""Recorded Iwari games (``models.synth.recording`` with ``game="iwari"``): the folder a replay reads, the truth
moves replaying through the rules engine, injected illegal changes rejected with their recorded rule IDs, the tents
of a settled frame where the state has them; and the options' validation and cache keys."""

from __future__ import annotations

import copy
import csv
import json
import random

import numpy as np
import pytest

from assistant.errors import UserError
from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.edition import Edition, load_edition
from assistant.iwari.generate import random_move
from assistant.iwari.setup import new_game
from assistant.table import game as games
from models.synth import recording as R
from models.synth import recording_iwari as RI

TRIBE_HUE = {"red": 0, "yellow": 28, "green": 60, "blue": 108, "purple": 150}  # OpenCV hue (0..180) of the pieces


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A short 4-player game at 1280x720 with injected changes: (folder, truth)."""
    out = tmp_path_factory.mktemp("iwari") / "game"
    opts = R.RecordingOptions(game="iwari", players=4, seed=5, size=(1280, 720), max_states=8, hand_rate=0.5, inject_rate=0.5)
    return out, opts, R.render_game(out, opts)


def _steps(folder, truth):
    """(step, the true state at its settled frame) per step of truth.json, the moves played through the engine."""
    meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    g = games.get(meta["game"])
    state = g.state_from_json(meta["initial"])
    moves = [g.move_from_json(m) for m in truth["moves"]]
    out = []
    for st in truth["steps"]:
        for i in st["moves"]:
            g.apply(state, moves[i])  # checked: an illegal true move raises
        out.append((st, g.copy(state)))
    return out


def test_an_iwari_game_folder_holds_what_a_replay_needs(game):
    folder, opts, truth = game
    rows = list(csv.DictReader((folder / "timestamps.csv").open()))
    assert len(rows) == truth["frames"] and all((folder / r["file"]).is_file() for r in rows)
    assert [float(r["t"]) for r in rows] == sorted(float(r["t"]) for r in rows)
    meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    initial = games.get("iwari").state_from_json(meta["initial"])
    assert meta["format"] == "tablewatch.replay-session/1" and meta["game"] == "iwari" and meta["seed"] == 5
    assert meta["players"] == [p.name for p in initial.players] == truth["players"]
    assert meta["layouts"] == [f"iwari-{initial.map.name}", "iwari-display"] and meta["options"] == {"map": initial.map.name}
    assert json.loads((folder / meta["camera"]).read_text(encoding="utf-8"))["image_size"] == [1280, 720]
    assert truth["options"]["game"] == "iwari" and R.is_done(folder, opts)
    assert len(truth["steps"]) > opts.max_states and truth["steps"][0]["moves"] == []


def test_the_true_moves_replay_to_the_game_the_recording_played(game):
    folder, opts, truth = game
    initial, moves = RI.play_game(opts.players, opts.seed)
    steps = _steps(folder, truth)
    assert truth["moves"] == [M.move_to_json(m) for m in moves[: len(truth["moves"])]]
    state = initial.copy()
    for m in moves[: len(truth["moves"])]:
        rules.apply(state, m)
    assert steps[-1][1].to_json() == state.to_json()
    # every table change shows: consecutive legal steps differ in what a camera sees
    legal = [s for st, s in steps if not st["injected"] and not st.get("put_back")]
    sigs = [RI.table_signature_state(s) for s in legal]
    assert all(a != b for a, b in zip(sigs, sigs[1:]))


def test_an_injected_change_is_rejected_with_the_recorded_rules(game):
    folder, _, truth = game
    steps = _steps(folder, truth)
    injected = [(i, st) for i, (st, _) in enumerate(steps) if st["injected"]]
    assert injected and len(truth["injected"]) == len(injected)
    for i, st in injected:
        rec = st["injected"]
        before = steps[i - 1][1]  # the table the change was made on, shown again by the put-back step
        broken = sorted({v.rule for v in rules.check(before, M.move_from_json(rec["move"]))})
        assert broken == rec["rules"] and RI.KIND_RULES[rec["kind"]] in broken
        assert steps[i + 1][0].get("put_back") and RI.table_signature_state(steps[i + 1][1]) == RI.table_signature_state(before)


def test_a_settled_frame_shows_the_tents_where_the_state_has_them(game):
    """The map found by its markers and rectified: each tent space holding a tent differs from the empty table's
    view and shows its tribe's colour; an empty space looks as on the empty table."""
    import cv2

    from calibration import layout as lay
    from vision.locate import locate, rectify

    folder, _, truth = game
    steps = _steps(folder, truth)
    st, state = [s for s in steps if not s[0]["injected"] and not s[0].get("put_back")][-1]
    layout = lay.resolve(f"iwari-{state.map.name}")
    spaces = {r["id"]: np.asarray(r["polygon"], float).mean(0) for r in layout["regions"] if r["id"] in state.map.tent_spaces}

    def view(frame):
        img = cv2.imread(str(folder / f"frame_{frame:06d}.jpg"))
        loc = locate(img, [layout])[0]
        assert loc.found
        return rectify(img, loc.homography, layout, 4.0)

    empty, full = view(truth["steps"][0]["frame"]), view(st["frame"])
    assert state.tents
    for space, (x, y) in spaces.items():
        x, y = int(x * 4), int(y * 4)
        patch = full[y - 12 : y + 12, x - 12 : x + 12]
        diff = np.abs(patch.astype(float) - empty[y - 12 : y + 12, x - 12 : x + 12]).mean()
        if space not in state.tents:
            assert diff < 15, space
            continue
        assert diff > 30, space
        hue = cv2.cvtColor(np.uint8([[patch[8:16, 8:16].reshape(-1, 3).mean(0)]]), cv2.COLOR_BGR2HSV)[0, 0, 0]
        nearest = min(TRIBE_HUE, key=lambda c: min(abs(int(hue) - TRIBE_HUE[c]), 180 - abs(int(hue) - TRIBE_HUE[c])))
        assert nearest == state.tribes[state.tents[space]], space


def test_each_kind_of_illegal_change_is_found_and_rejected_by_the_rules():
    initial, moves = RI.play_game(3, 2)
    state = initial.copy()
    rng = np.random.default_rng(0)
    found = {}
    for m in moves:
        before = state.copy()
        rules.apply(state, m)
        for kind in set(RI.INJECT_KINDS) - set(found) - {"too_many"}:
            got = RI.illegal_variant(kind, before, m, state, rng)
            if got is not None:
                bad, rec = got
                assert sorted({v.rule for v in rules.check(before, M.move_from_json(rec["move"]))}) == rec["rules"]
                assert RI.table_signature_state(bad) != RI.table_signature_state(before)
                found[kind] = rec
    assert set(found) == set(RI.INJECT_KINDS) - {"too_many"}
    assert found["occupied"]["rules"] == ["I-TURN-4"] and found["two_territories"]["rules"] == ["I-TURN-1"]


def test_a_piece_more_than_the_tribe_has_breaks_I_COMP_3():
    """Random games seldom empty a supply (none of 20 did): a box with 3 tents and 1 totem per tribe does."""
    ed = load_edition()
    raw = copy.deepcopy(ed.raw)
    raw["pieces"]["value"] = {"tents": 3, "totems": 1}
    state = new_game(["a", "b", "c"], seed=1, map="standard", edition=Edition(raw, ed.origin))
    rng, draws = random.Random(1), np.random.default_rng(1)
    while state.phase != "over":
        if (got := RI.illegal_variant("too_many", state, None, None, draws)) is not None:
            break
        rules.apply(state, random_move(state, rng))
    assert got is not None, "no tribe ran out of a piece"
    bad, rec = got
    p = state.current
    assert "I-COMP-3" in rec["rules"] and (state.tents_left[p] == 0 or state.totems_left[p] == 0)
    assert sorted({v.rule for v in rules.check(state, M.move_from_json(rec["move"]))}) == rec["rules"]
    assert RI.table_signature_state(bad) != RI.table_signature_state(state)


def test_options_keep_wendake_keys_and_name_what_is_wrong():
    assert "game" not in R.RecordingOptions().key() and "map" not in R.RecordingOptions().key()
    assert R.RecordingOptions().key()["inject_kinds"] == list(R.INJECT_KINDS)
    key = R.RecordingOptions(game="iwari", players=5, map="long-road").key()
    assert key["game"] == "iwari" and key["map"] == "long-road" and key["inject_kinds"] == list(RI.INJECT_KINDS)
    for bad, words in (
        ({"game": "chess"}, "wendake, iwari"),
        ({"game": "iwari", "players": 6}, "2, 3, 4, 5 players"),
        ({"game": "iwari", "map": "atlantis"}, "long-road"),
        ({"map": "standard"}, "no map option"),
        ({"game": "iwari", "inject_kinds": ("river",)}, "two_territories"),
    ):
        with pytest.raises(UserError, match=words):
            R.RecordingOptions(**bad)
    opts = R.game_options(5, 1, game="iwari")
    assert [o.players for o in opts] == [2, 3, 4, 5, 2] and all(o.game == "iwari" for o in opts)
    assert [o.players for o in R.game_options(4, 1)] == [2, 3, 4, 2]
    assert RI.PART.folder(opts[0]) == "iwari_2p_s1" != R.PARTS["wendake"].folder(R.RecordingOptions(players=2, seed=1))
    assert RI.map_for(3, 7) == RI.map_for(3, 7) and RI.map_for(3, 7, "standard") == "standard"


def test_an_injected_totem_on_its_tribes_own_top_is_drawn_on_the_stack():
    """A totem put on a stack its own tribe already tops keeps the top's colour, but the stack changes (a camera reads
    that, ``vision.stacks``): such changes are injected too, and each injected totem is drawn on its stack."""
    initial, moves = RI.play_game(4, 3)
    state = initial.copy()
    rng = np.random.default_rng(1)
    totems = own = 0
    for m in moves:
        before = state.copy()
        rules.apply(state, m)
        got = RI.illegal_variant("totem_majority", before, m, state, rng)
        if got is not None:
            bad, record = got
            stack = before.stacks.get(record["move"]["territory"], [])
            assert bad.stacks[record["move"]["territory"]] == [*stack, before.current]
            assert RI.table_signature_state(bad) != RI.table_signature_state(before)
            totems += 1
            own += bool(stack) and stack[-1] == before.current
    assert totems >= 5 and own >= 1, (totems, own)
