"""The solo Ghost through the camera (assistant/wendake/referee.py, W-SOLO-8..11): instructions, the observation check and the
moves applied, over whole games whose observations come from ``view.expected_readings`` (a perfect camera)."""

import random
from collections import Counter

import pytest
from wendake_helpers import ED

from assistant.errors import UserError
from assistant.table.events import AlertCleared, IllegalMove, MoveRecognized, event_from_json
from assistant.table.observation import Observation, Reading, split_key
from assistant.table.tracker import Tracker
from assistant.wendake import ghost, rules
from assistant.wendake import moves as M
from assistant.wendake.edits import conceal
from assistant.wendake.generate import random_move
from assistant.wendake.observer import expected_readings, map_board, village_board
from assistant.wendake.referee import GhostInstruction, GhostReferee, new_solo_game
from assistant.wendake.scoring import solo_score
from assistant.wendake.state import Turn


def look(st, frame=0, drop=(), unread=None) -> Observation:
    """A perfect camera over a solo table (the Ghost has no village board: its markers sit on its cards)."""
    skip = village_board(st.solo.ghost) + "/"
    readings = {k: Reading(v) for k, v in expected_readings(st).items() if not k.startswith(skip) and k not in drop}
    return Observation(frame, float(frame), readings, tuple(sorted({k.split("/")[0] for k in readings})), unread or {})


def with_readings(obs: Observation, **changes) -> Observation:
    readings = dict(obs.readings)
    for k, v in changes.items():
        readings[k] = Reading(v)
    return Observation(obs.frame, obs.t, readings, obs.boards_read, obs.boards_unread)


def carry_out(state, step):
    """The table after the player did what the rulebook says for the Ghost (the engine's own forced move)."""
    table = state.copy()
    if ghost.forced_move(table, ED) is None:  # the player ends their turn first
        for m in step.prefix:
            rules.apply(table, m, ED)
    rules.apply(table, ghost.forced_move(table, ED), ED)
    return table


def misplace(step, table_after):
    """The same table with the Ghost's new map piece on another place of the same kind: (obs, wrong key, right key)."""
    colour = step.after.players[step.after.solo.ghost].colour
    mp = map_board(step.after.n)
    obs = look(table_after)
    exp = expected_readings(step.after)
    touched = {c["key"] for c in step.changes}
    for c in step.changes:
        k = c["key"]
        if not k.startswith(mp + "/") or not isinstance(c["_after"], tuple):
            continue
        gained = [p for p, n in c["_after"] if split_key(p)[1] == colour and n > dict(c["_before"] or ()).get(p, 0)]
        if not gained:
            continue
        piece = gained[0]
        is_pa = ".pa" in k
        for other in sorted(exp):
            if other in touched or not other.startswith(mp + "/") or (".pa" in other) != is_pa or other[len(mp) + 1] != "T":
                continue
            if is_pa and exp[other] != ():
                continue
            before = dict(obs.value(k))
            before[piece] -= 1
            there = dict(obs.value(other))
            there[piece] = there.get(piece, 0) + 1
            pieces = lambda d: tuple(sorted((p, n) for p, n in d.items() if n))
            return with_readings(obs, **{k: pieces(before), other: pieces(there)}), other, k
    return None


@pytest.mark.parametrize("seed", [3, 11])
def test_whole_solo_game_driven_by_observations(seed):
    """W-SOLO-8..11: the player's side from the random player; every Ghost move only from the referee's verdict on
    the table a perfect camera reads: not yet before, wrong with a fix when a piece lands elsewhere, done after."""
    state = ghost.new_solo_game("You", seed=seed)
    referee = GhostReferee(ED)
    rng = random.Random(seed)
    seen = Counter()
    wrong_done = 0
    frame = 0
    while state.phase != "over":
        step = referee.due(state)
        if ghost.forced_move(state, ED) is None:  # the player decides; the Ghost's step waits for their EndTurn
            move = random_move(state, rng, ED)
            if step is None or not isinstance(move, M.EndTurn):
                if step is None:
                    assert referee.check(state, look(state)).status == "none"
                else:  # announced for when the turn ends; the player's own move is not the Ghost's
                    assert step.prefix == (M.EndTurn(),) and referee.check(state, look(state)).status in ("not_yet", "done")
                rules.apply(state, move, ED)
                continue
        frame += 1
        assert not step.card_needed  # the deck is known in this simulated box
        assert step.rule in ("W-SOLO-8", "W-SOLO-10", "W-SOLO-11") and step.text
        visible = [c for c in step.changes if c["part"] == "ghost"]
        before = referee.check(state, look(step.before, frame))
        if visible:
            assert before.status == "not_yet" and before.remaining and not before.seen_by_camera
            assert all(c["where"] in before.message for c in before.remaining)
        else:
            assert before.status == "done" and not before.seen_by_camera  # a climb, a removal, a card: nothing shows
        table = carry_out(state, step)
        bad = misplace(step, table) if wrong_done < 3 else None
        if bad is not None:
            obs, wrong_key, right_key = bad
            v = referee.check(state, obs)
            assert v.status == "wrong" and v.rule == "W-SOLO-10" and "W-SOLO-10" in v.fix and not v.moves
            where_wrong = next(p for p in v.problems if p["key"] == wrong_key)
            assert "take the Ghost's" in where_wrong["text"]
            right = next(c for c in step.changes if c["key"] == right_key)
            assert right["where"] in v.fix  # the fix names where the piece belongs
            wrong_done += 1
        v = referee.check(state, look(table, frame))
        assert v.status == "done", v.message
        assert v.moves == step.moves and v.seen_by_camera == bool(visible)
        for m in v.moves:
            rules.apply(state, m, ED)
        assert expected_readings(state) == expected_readings(table)
        seen[type(step.move).__name__] += 1
        seen["with EndTurn"] += bool(step.prefix)
    assert seen["GhostCard"] == ED.years and seen["GhostAction"] == 3 * ED.years and seen["GhostRestore"] == ED.years - 1
    assert seen["with EndTurn"] > 0 and wrong_done == 3
    res = solo_score(state, ED)
    assert res["final"] and res["ghost_total"] == sum(state.players[1].tracks[t] for t in state.solo.score_tracks)


def attack_state():
    """Year 1, the Ghost's turn, its action a woman on the English flag, every harvest PA near the Ghost your woman."""
    s = ghost.new_solo_game("You", seed=0)
    card = next(c.id for c in ED.mask_cards.values()
                if c.oval == "red" and ED.ghost_sides[s.solo.cards[0]]["lines"][str(c.ghost_line)] == {"kind": "place", "native": "woman"})
    s.mask_deck.remove(card)
    s.mask_deck.append(card)
    rules.apply(s, M.GhostCard(card), ED)
    near = s.territories[ED.map_for(2).flags["english"]["near"]]  # the Ghost chooses near (0 women <= 0 far)
    for pa in near.pas:
        if pa.kind == "harvest":
            assert s.players[0].long_house["woman"] > 0
            pa.owner, pa.native, pa.count = 0, "woman", 1
            s.players[0].long_house["woman"] -= 1
    s.current, s.turn = 1, Turn(1)
    s.players[0].sages = 2
    return s


def test_attack_half_done_is_not_yet_then_done():
    """W-SOLO-10: the Ghost attacks your woman: she goes to your Long House, a Ghost woman takes her place. Half of
    it (your woman off, the Ghost's not yet on) is "not yet", never "wrong"."""
    s = attack_state()
    referee = GhostReferee(ED)
    step = referee.due(s)
    assert step is not None and "attacks" in step.text and not step.prefix
    keys = {c["key"]: c for c in step.changes}
    pa_key = next(k for k in keys if ".pa" in k)
    lh_key = next(k for k in keys if k.endswith("/long_house"))
    assert keys[lh_key]["part"] == "ghost"
    table = carry_out(s, step)
    half = with_readings(look(table), **{pa_key: ()})
    v = referee.check(s, half)
    assert v.status == "not_yet" and v.seen_by_camera and [c["key"] for c in v.remaining] == [pa_key]
    assert referee.check(s, look(table)).status == "done"
    # the Ghost's woman on the player's woman (both read in the PA) is on the way too; a second Ghost woman is not
    red, blue = (f"woman:{s.players[p].colour}:colour" for p in (0, 1))
    assert referee.check(s, with_readings(look(table), **{pa_key: tuple(sorted(((red, 1), (blue, 1))))})).status == "not_yet"
    v = referee.check(s, with_readings(look(table), **{pa_key: ((blue, 2),)}))
    assert v.status == "wrong" and v.problems[0]["key"] == pa_key and "W-SOLO-10" in v.fix


def test_absent_keys_are_unknown_never_wrong():
    s = attack_state()
    referee = GhostReferee(ED)
    step = referee.due(s)
    table = carry_out(s, step)
    pa_key = next(c["key"] for c in step.changes if ".pa" in c["key"])
    board = pa_key.split("/")[0]
    v = referee.check(s, look(table, drop=(pa_key,), unread={}))
    assert v.status == "done" and pa_key in v.unchecked  # a region not read for good does not block
    others = [k for k in look(table).readings if k.startswith(board + "/")]
    v = referee.check(s, look(table, drop=others, unread={board: "hand"}))
    assert v.status == "not_yet" and pa_key in [c["key"] for c in v.remaining]  # a hand over the map: look again
    low = Observation(0, 0.0, {**look(s).readings, pa_key: Reading((), 0.3)})
    assert referee.check(s, low).status == "not_yet"  # a doubtful reading never makes it wrong


def test_wrong_score_disk_is_a_stray():
    """W-SOLO-10 (3): the Ghost's score disk moved 2 spaces instead of 1 shows as a Ghost disk where none belongs."""
    s = ghost.new_solo_game("You", seed=0)
    referee = GhostReferee(ED)
    s.solo.awaiting_card = False
    s.solo.year_card = next(c.id for c in ED.mask_cards.values()
                            if ED.ghost_sides[s.solo.cards[0]]["lines"][str(c.ghost_line)] == {"kind": "score"})
    s.current, s.turn = 1, Turn(1)
    step = referee.due(s)
    assert step is not None and "Score" in step.text
    track = next(t for t in s.solo.score_tracks if step.after.players[1].tracks[t] != s.players[1].tracks[t])
    table = step.after.copy()
    table.players[1].tracks[track] += 1  # one space too far
    v = referee.check(s, look(table))
    far = f" space {table.players[1].tracks[track]}"
    assert v.status == "wrong" and [p["text"] for p in v.problems] == [f"take the Ghost's {table.players[1].colour} disk off {track} track{far}"]
    right = f"{track} track space {step.after.players[1].tracks[track]}"
    assert right in v.fix and "W-SOLO-10" in v.fix
    assert referee.check(s, look(s)).status == "not_yet"
    assert referee.check(s, look(step.after)).status == "done"


def test_feed_with_a_real_tracker_card_tap_alerts_and_log():
    """The session glue on a concealed table: the Ghost's card is asked for (W-SOLO-8) and playing on without it
    raises an alert; after the tap, the player's turn goes to the tracker, the Ghost's move to the referee, and
    a misplaced Ghost piece raises a W-SOLO-10 alert that clears once it is put right."""
    truth = ghost.new_solo_game("You", seed=1)
    tracker = Tracker(conceal(truth))
    referee = GhostReferee(ED)
    ev = referee.announce(tracker)
    assert len(ev) == 1 and isinstance(ev[0], GhostInstruction) and ev[0].card_needed and ev[0].rule == "W-SOLO-8"
    assert event_from_json(ev[0].to_json()) == ev[0]  # a resumed session reads it back
    assert referee.announce(tracker) == []  # once per step
    assert referee.feed(tracker, look(truth, 1)) == []  # nothing moved: nothing to say
    card = truth.mask_deck[-1]
    early = truth.copy()
    rules.apply(early, M.GhostCard(card), ED)
    rng = random.Random(1)
    rules.apply(early, random_move(early, rng, ED), ED)  # the player's first placement
    out = referee.feed(tracker, look(early, 2))
    alert = next(e for e in out if isinstance(e, IllegalMove))
    assert alert.rule == "W-SOLO-8" and "tap" in alert.fix and tracker.state.solo.awaiting_card
    assert referee.feed(tracker, look(early, 3)) == []  # the same alert is not raised again
    tracker.correct([{"type": "ghost_card", "card": card}])  # the tablet tap (POST /api/tablet/ghost_card)
    rules.apply(truth, M.GhostCard(card), ED)
    frame = 4
    ghost_moves = wrong = invisible = 0
    while truth.year == 1 and truth.phase == "actions":
        step = referee.due(tracker.state)
        if ghost.forced_move(truth, ED) is None:  # the player's turn: one settled look per move (the tracker's job)
            move = random_move(truth, rng, ED)
            if step is None or not isinstance(move, M.EndTurn):
                rules.apply(truth, move, ED)
                frame += 1
                out = referee.feed(tracker, look(truth, frame))
                assert not [e for e in out if isinstance(e, IllegalMove)], out
                continue
        frame += 1
        table = carry_out(truth, step)
        if not any(c["part"] == "ghost" for c in step.changes):  # nothing shows: the tracker catches up later
            truth = table
            assert not [e for e in referee.feed(tracker, look(truth, frame)) if isinstance(e, IllegalMove)]
            invisible += 1
            continue
        bad = misplace(step, table)
        if bad is not None and not wrong:
            out = referee.feed(tracker, bad[0])
            alert = next(e for e in out if isinstance(e, IllegalMove))
            assert alert.rule == "W-SOLO-10" and alert.player == 1 and alert.alert_id in tracker.alerts
            wrong += 1
        truth = table
        out = referee.feed(tracker, look(truth, frame))
        recognised = [e for e in out if isinstance(e, MoveRecognized)]
        assert recognised and recognised[-1].player == 1 and recognised[-1].name == ghost.GHOST_NAME
        assert not any(isinstance(e, IllegalMove) for e in tracker.alerts.values()), tracker.alerts
        if wrong == 1:
            assert any(isinstance(e, AlertCleared) for e in out)
            wrong += 1
        ghost_moves += 1
        assert expected_readings(tracker.state) == expected_readings(truth) or tracker.state.phase != truth.phase
    assert ghost_moves + invisible >= 3 and ghost_moves >= 1 and wrong == 2
    assert truth.phase == "restore" and expected_readings(tracker.state) == expected_readings(truth)
    assert len([m for m in tracker.moves if isinstance(m, M.GhostAction)]) == 3


def test_new_solo_game_from_session_arguments():
    s = new_solo_game(["Ann"], colours=["green"], seed=2, difficulty="hard", options={"ghost_switch_territory": False})
    assert s.solo is not None and s.solo.difficulty == "hard" and s.players[0].colour == "green"
    assert s.players[1].name == ghost.GHOST_NAME and s.players[1].colour != "green"
    assert not s.options.ghost_switch_territory
    assert new_solo_game(["Ann", "Ghost"], seed=2).players[0].name == "Ann"
    for bad in (dict(players=["Ann", "Bob"]), dict(players=["Ghost"]), dict(players=["Ann"], difficulty="brutal"),
                dict(players=["Ann"], tribes=["mohawk", "seneca"]), dict(players=["Ann"], colours=["plaid"]),
                dict(players=["Ann"], tribes=["nowhere"])):
        with pytest.raises(UserError):
            new_solo_game(**bad)
