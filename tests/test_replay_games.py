"""Replay and the end-to-end figures for every registered game (``assistant.apps.replay``, ``Game.movelog``).

A recording's ``session.json`` names its game; the session is built through the registry, and a recognised move
log is compared with the truth as far as a camera can tell, through the game's ``movelog``. Iwari's comparison
(``assistant.iwari.movelog``) sees the pieces, the play area and the display, never a hand or a deck draw. The
figures of a game seen through a perfect camera come from the tracker alone (``evaluate(..., tracker_only=True)``
over looks made from the game's expected readings), so they need no rendering; Wendake's comparison gives the
figures ``assistant.wendake.movelog.turns_equal`` gave.
"""

from __future__ import annotations

import json
import random

import pytest

from assistant.apps.cli import main
from assistant.apps.replay import evaluate, look_checks, make_session, read_session_file, reading_report, score_game
from assistant.errors import UserError
from assistant.iwari import moves as IM
from assistant.iwari.maps import COLOURS
from assistant.iwari.movelog import split_turns, turns
from assistant.iwari.setup import new_game
from assistant.table import game as games
from assistant.wendake import movelog as WL
from tests.perfect_games import NAMES, as_json, perfect_recording, playout

IWARI = games.get("iwari")
WENDAKE = games.get("wendake")


def result_of(game, initial, seen: list, folder: str = "x") -> dict:
    """A replay's result as ``score_game`` reads it: the recognised ``seen`` moves, no events."""
    return {
        "folder": folder,
        "game": game.name,
        "initial": game.state_to_json(initial),
        "moves": as_json(game, seen),
        "events": [],
    }


def exact(game, initial, seen: list, true: list) -> tuple[int, int]:
    g = score_game(result_of(game, initial, seen), {"moves": as_json(game, true), "steps": [{"frame": 0, "moves": []}]})
    return g["turns_exact"], g["turns"]


# ---- Iwari's move log as a camera sees it ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def iwari_game():
    return playout(IWARI, 3, seed=5, limit=90)


def test_an_iwari_log_equals_itself_and_a_turn_is_one_players_move(iwari_game):
    states, moves = iwari_game
    cut = split_turns(moves)
    assert all(isinstance(t[-1], IM.EndTurn) for t in cut[:-1]) and sum(map(len, cut)) == len(moves)
    assert len(turns(states[0], moves)) == len(cut) >= 10
    assert exact(IWARI, states[0], moves, moves) == (len(cut), len(cut))


def elsewhere(state, move):
    """Another free tent space of ``move``'s territory in ``state``, or None."""
    return next(
        (s for s, t in state.map.tent_spaces.items() if t == move.territory and s != move.space and s not in state.tents), None
    )


def test_an_iwari_log_with_a_tent_on_another_space_differs_in_that_turn_only(iwari_game):
    states, moves = iwari_game
    k, move, space = next(
        (k, m, elsewhere(states[k], m))
        for k, m in enumerate(moves)
        if isinstance(m, IM.Place) and m.piece == "tent" and elsewhere(states[k], m)
    )
    seen = list(moves)
    seen[k] = IM.Place(move.piece, move.territory, move.cards, space, move.third)
    got, total = exact(IWARI, states[0], seen, moves)
    assert got == total - 1


def test_the_cards_seen_in_the_play_area_count_but_not_which_piece_they_paid(iwari_game):
    states, moves = iwari_game
    turn_of = {}
    k = 0
    for t, cut in enumerate(split_turns(moves)):
        for _ in cut:
            turn_of[k] = t
            k += 1
    # two pieces of one turn: the cards swapped between them show the same play area
    pair = next(
        (i, j)
        for i in range(len(moves))
        for j in range(i + 1, min(i + 3, len(moves)))
        if isinstance(moves[i], IM.Place)
        and isinstance(moves[j], IM.Place)
        and turn_of[i] == turn_of[j]
        and moves[i].cards != moves[j].cards
    )
    i, j = pair
    a, b = moves[i], moves[j]
    swapped = list(moves)
    swapped[i] = IM.Place(a.piece, a.territory, b.cards, a.space, a.third)
    swapped[j] = IM.Place(b.piece, b.territory, a.cards, b.space, b.third)
    before = turns(states[0], moves)
    assert turns(states[0], swapped) == before
    # a card of another colour laid for a piece is another game
    colour = next(c for c in COLOURS if c not in a.cards)
    paid = list(moves)
    paid[i] = IM.Place(a.piece, a.territory, (colour,), a.space, a.third)
    assert turns(IWARI.conceal(states[0]), paid)[turn_of[i]] != before[turn_of[i]]  # unseen hands pay any card


def test_hidden_draws_are_ignored_deck_cards_and_a_display_card_replaced_by_its_colour(iwari_game):
    states, moves = iwari_game
    hidden = IWARI.conceal(states[0])
    # the deck's cards named or not, the hands unseen: the same game as far as a camera can tell
    named = [
        IM.Draw(None, card=states[k].deck[-1]) if isinstance(m, IM.Draw) and m.slot is None else m for k, m in enumerate(moves)
    ]
    assert turns(hidden, named) == turns(states[0], moves)
    # a display card taken and replaced by a card of its colour looks like a deck draw
    k = next(k for k, m in enumerate(moves) if isinstance(m, IM.Draw) and m.slot is None and states[k].deck)
    slot = next(i for i, c in enumerate(states[k].display, 1) if c is not None)
    same = list(moves)
    same[k] = IM.Draw(slot, refill=states[k].display[slot - 1])
    assert turns(hidden, same) == turns(hidden, moves)  # the hands unseen: the card drawn goes in as any card
    other = next(c for c in sorted(states[0].cards) if c != states[k].display[slot - 1])
    same[k] = IM.Draw(slot, refill=other)
    assert turns(hidden, same) != turns(hidden, moves)


def test_a_totem_on_a_stack_its_tribe_already_tops_shows_its_territory():
    """A totem put on a stack its own tribe tops keeps the top's colour, but the stack changes (``vision.stacks``):
    the camera tells which stack it went on, as for a totem on another tribe's stack."""
    state = new_game(["Ann", "Bob", "Cid"], seed=5)
    me = state.current
    colour_of = {t: v for t, v in state.map.territories.items()}
    t1, t2 = next((a, b) for a in colour_of for b in colour_of if a < b and colour_of[a] == colour_of[b])
    state.hands[me] = [colour_of[t1]] * 3
    state.stacks[t1], state.stacks[t2] = [me], [me]
    views = [turns(state, [IM.Place("totem", t, (colour_of[t1],)), IM.EndTurn()]) for t in (t1, t2)]
    assert views[0] != views[1]
    assert views[0][0].pieces == ((("totem", t1, None, state.tribes[me]), 1),)
    other = (me + 1) % len(state.tribes)
    state.stacks[t2] = [other]
    shown = turns(state, [IM.Place("totem", t2, (colour_of[t1],)), IM.EndTurn()])
    assert shown[0].pieces == ((("totem", t2, None, state.tribes[me]), 1),) and shown == views[1]


def test_an_iwari_log_needs_its_start_to_be_compared(iwari_game):
    _, moves = iwari_game
    with pytest.raises(ValueError, match="initial state"):
        turns(None, moves)
    truth = {"moves": as_json(IWARI, moves), "steps": [{"frame": 0, "moves": []}]}
    with pytest.raises(UserError, match="Iwari"):
        score_game({"folder": "x", "game": "iwari", "initial": None, "moves": [], "events": []}, truth)


# ---- Wendake's figures are the ones turns_equal gave ------------------------------------------------------------


def test_wendake_turns_are_counted_as_turns_equal_counts_them():
    states, moves = playout(WENDAKE, 3, seed=2, limit=200)
    initial = states[0]
    rng = random.Random(4)
    for trial in range(5):
        seen = list(moves[: len(moves) * (trial + 2) // 6])
        for _ in range(trial):  # moves dropped or repeated: a log the engine need not accept
            i = rng.randrange(len(seen))
            if rng.random() < 0.5:
                del seen[i]
            else:
                seen.insert(i, seen[rng.randrange(len(seen))])
        want, turns_true = WL.turns_equal(seen, moves, set(), WL.noop_moves(initial, moves))
        if len(WL.split_turns(seen)) > turns_true:
            want = min(want, turns_true - 1)
        result = {
            "folder": "x",
            "initial": initial.to_json(),
            "moves": as_json(WENDAKE, seen),
            "events": [],
            "turns": WENDAKE.movelog.turns(None, seen),
        }  # a replay's turns: no game key, Wendake's
        g = score_game(result, {"moves": as_json(WENDAKE, moves), "steps": [{"frame": 0, "moves": []}]})
        assert (g["turns_exact"], g["turns"]) == (want, turns_true)
    assert exact(WENDAKE, initial, moves, moves) == (len(WL.split_turns(moves)),) * 2


# ---- a recording's game ------------------------------------------------------------------------------------------


def test_make_session_builds_the_recorded_game_from_its_initial_state(tmp_path):
    initial = IWARI.new_state(NAMES[:4], seed=9)
    session = make_session(tmp_path / "g.sqlite", NAMES[:4], 9, IWARI.state_to_json(initial), "iwari")
    try:
        assert session.game.name == "iwari" and session.check_setup
        assert IWARI.expected_readings(session.tracker.initial) == IWARI.expected_readings(initial)
        assert session.snapshot()["game"] == "iwari"
    finally:
        session.close()
    wendake = make_session(tmp_path / "w.sqlite", NAMES[:2], 3, None)  # no game named: Wendake
    try:
        assert wendake.game.name == "wendake"
    finally:
        wendake.close()


@pytest.mark.parametrize(
    "game, initial, words",
    [
        ("chess", None, "no game called 'chess'; the games are: iwari, wendake."),
        ("iwari", {"players": 3}, "not a state of Iwari"),
    ],
)
def test_make_session_refuses_an_unknown_game_or_a_state_of_another_game_in_one_line(tmp_path, game, initial, words):
    with pytest.raises(UserError) as err:
        make_session(tmp_path / "g.sqlite", NAMES[:3], 1, initial, game)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_session_file_with_a_game_that_is_no_name_is_refused(tmp_path):
    (tmp_path / "session.json").write_text(json.dumps({"game": 7, "players": ["Ann"]}))
    with pytest.raises(UserError, match="'game' must be a game's name"):
        read_session_file(tmp_path)


# ---- the figures of a game seen through a perfect camera (the tracker alone) ---------------------------------------


@pytest.mark.parametrize("name, players, seed", [("iwari", 2, 3), ("iwari", 5, 4), ("wendake", 2, 6)])
def test_the_tracker_alone_gives_the_figures_of_a_game_seen_through_a_perfect_camera(tmp_path, name, players, seed):
    perfect_recording(tmp_path / "g", games.get(name), players, seed, limit=70)
    res = evaluate([tmp_path / "g"], tracker_only=True)
    game = res["per_game"][0]
    assert game["turns"] >= 4 and game["turns_exact"] == game["turns"], game
    assert res["log_equal_share"] == 1.0 and res["false_alerts_per_20_legal_games"] == 0.0
    assert res["legal_log_equal_share"] == 1.0 and res["injected_logs_equal"] == 0  # no game with injected moves
    assert res["illegal_accepted"] == 0 and res["flagged_share"] is None


def test_a_perfect_camera_iwari_game_against_a_truth_with_a_tent_elsewhere_is_not_equal(tmp_path):
    perfect_recording(tmp_path / "g", IWARI, 3, 8, limit=60)
    truth = json.loads((tmp_path / "g" / "truth.json").read_text())
    states, moves = playout(IWARI, 3, 8, limit=60)
    k, space = next(
        (k, elsewhere(states[k], m))
        for k, m in enumerate(moves[: len(truth["moves"])])
        if isinstance(m, IM.Place) and m.piece == "tent" and elsewhere(states[k], m)
    )
    truth["moves"][k]["space"] = space
    (tmp_path / "g" / "truth.json").write_text(json.dumps(truth))
    game = evaluate([tmp_path / "g"], tracker_only=True)["per_game"][0]
    assert not game["log_equal"] and game["turns_exact"] == game["turns"] - 1


def test_the_camera_sides_report_says_in_one_line_that_it_reads_wendake_games_only(tmp_path):
    perfect_recording(tmp_path / "g", IWARI, 2, 1, limit=20)
    for report in (reading_report, look_checks):
        with pytest.raises(UserError, match="holds a game of Iwari: the camera side's report .* reads Wendake games only"):
            report(tmp_path / "g")


# ---- the command line --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game", "chess"], "no game called 'chess'"),
        (["--game", "wendake", "--players", "5"], "Wendake e2e games have 2 to 4 players, not 5"),
        (["--game", "iwari", "--map", "atlantis"], "Iwari has no map 'atlantis'; its maps are: floating-lands"),
        (["--map", "standard"], "Wendake has no map 'standard': drop --map."),
    ],
)
def test_e2e_refuses_a_bad_game_player_count_or_map_in_one_line(tmp_path, capsys, args, words):
    assert main(["e2e", "--games", "1", "--injected-games", "0", "--out", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert not any(tmp_path.iterdir())  # refused before rendering anything
