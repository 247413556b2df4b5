"""Impossible tables are refused: every component count against the edition data (issue 32, item 9)."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.apps.cli import main
from assistant.wendake import rules
from assistant.wendake.generate import random_move
from assistant.wendake.ghost import forced_move, new_solo_game
from assistant.wendake.schema import validate_state
from assistant.wendake.setup import new_game
from assistant.wendake.tally import tally_errors

NAMES = ["Ringo", "Paul", "John", "George"]
TRACK_VALUES = {"economic": 10, "ritual": 10, "mask": 10, "military": 10}


def _tally(players):
    return {"pairs": [["economic", "ritual"], ["mask", "military"]],
            "players": [{"name": n, "turn_order": i + 1, "tracks": dict(TRACK_VALUES), **p} for i, (n, p) in enumerate(zip(NAMES, players))]}


def _run_tally(tmp_path, capsys, doc):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(doc))
    code = main(["wendake", "tally", str(path)])
    return code, capsys.readouterr()


def test_tally_refuses_four_level_3_turtles(tmp_path, capsys):
    """W-TUR-4: one tile of each of the 9 types, so at most 3 level 3 tiles (women, hunters, canoes)."""
    four = [{"level": 3, "track": t} for t in ("economic", "ritual", "mask", "military")]
    code, out = _run_tally(tmp_path, capsys, _tally([{"turtles": four}, {}]))
    assert code == 2 and "Traceback" not in out.err
    assert "players[0] (Ringo).turtles: 4 level 3 turtles" in out.err and "3 level 3 types (W-TUR-4, turtles.json)" in out.err
    assert tally_errors(_tally([{"turtles": four[:3]}, {}])) == []


def test_tally_refuses_two_players_with_two_swap_tokens(tmp_path, capsys):
    """W-COMP-3, W-TRB-8: one swap token per colour; only a Seneca player starts with 2."""
    code, out = _run_tally(tmp_path, capsys, _tally([{"swap_tokens_unused": 2}, {"swap_tokens_unused": 2}]))
    assert code == 2 and "Traceback" not in out.err
    assert "players[0] (Ringo), players[1] (Paul): each holds more than 1 unused swap token" in out.err
    assert "only a seneca player can" in out.err
    assert tally_errors(_tally([{"swap_tokens_unused": 2}, {"swap_tokens_unused": 1}])) == []  # one may be Seneca
    named = tally_errors(_tally([{"swap_tokens_unused": 2, "tribe": "wendat"}, {"swap_tokens_unused": 1, "tribe": "seneca"}]))
    assert len(named) == 1 and "players[0] (Ringo).swap_tokens_unused: 2; a wendat holds at most 1" in named[0]
    assert tally_errors(_tally([{"swap_tokens_unused": 2, "tribe": "seneca"}, {"swap_tokens_unused": 1, "tribe": "fox"}])) == []


def _state(n=4, seed=0, **kw):
    return new_game(NAMES[:n], seed=seed, **kw).to_json()


def test_validate_state_refuses_a_fifth_women_3_turtle_in_a_4_player_game():
    d = _state()
    assert validate_state(d) == []
    d["players"][0]["turtles"].append({"type": "women-3", "hidden": {"track": "mask"}})  # the stack still holds 4
    errors = validate_state(d)
    assert len(errors) == 1, errors
    assert errors[0].startswith("turtle tile women-3: 5 in the game (mask_board.turtle_stacks.women-3, players[0].turtles)")
    assert "the box allows 4 (W-SET-14, components.json by_player_count.4.turtles_per_stack)" in errors[0]
    assert "Remove 1 from" in errors[0]


def test_validate_state_refuses_two_turtles_of_one_type_for_one_player():
    d = _state()
    stack = d["mask_board"]["turtle_stacks"]["hunters-4"]
    d["players"][2]["turtles"] += [{"type": "hunters-4", "hidden": stack.pop()}, {"type": "hunters-4", "hidden": stack.pop()}]
    assert validate_state(d) == ["players[2] (John): 2 turtle tiles hunters-4; the box allows 1 (W-TUR-4: never two tiles of the "
                                 "same type). Remove 1 from players[2].turtles."]


def test_validate_state_refuses_a_progress_tile_both_in_the_row_and_owned():
    d = _state()
    tile = d["progress_rows"]["1"][0]
    d["players"][1]["progress"].append(tile)
    errors = validate_state(d)
    assert errors == [f"progress tile {tile}: 2 in the game (progress_rows.1, players[1].progress); the box allows 1 "
                      f"(W-NIT-9, progress.json copies_per_tile). Remove 1 from progress_rows.1, players[1].progress."]


def test_validate_state_refuses_a_non_seneca_player_with_two_swap_tokens():
    d = _state()
    d["players"][3]["swap_tokens"] = 2
    errors = validate_state(d)
    assert len(errors) == 1 and errors[0].startswith("players[3] (George): 2 swap tokens; the box allows 1 (W-COMP-3")
    assert "only Seneca starts with more (W-TRB-8)" in errors[0]
    d["players"][3]["tribe"] = "seneca"
    assert validate_state(d) == []


def test_validate_state_counts_other_components_the_same_way():
    d = _state()
    d["flag_supply"] = ["english", "french"]
    d["players"][0]["flag"] = "french"  # a third flag tile
    d["players"][1]["sages"] = 4
    d["players"][1]["reserved"] = True  # a 5th action marker
    d["advanced"]["pile"].append(d["advanced"]["display"][0])  # one advanced tile in two places
    errors = validate_state(d)
    assert any(e.startswith("flag tile french: 2 in the game") for e in errors), errors
    assert any(e.startswith("players[1] (Paul): 5 action markers; the box allows 4 (W-COMP-3") for e in errors), errors
    assert any(e.startswith(f"advanced tile {d['advanced']['display'][0]}: 2 in the game") for e in errors), errors


def test_solo_game_has_one_turtle_per_type():
    d = new_solo_game("You", seed=1).to_json()
    assert validate_state(d) == []
    d["players"][0]["turtles"].append({"type": "canoes-5", "hidden": {"tracks": ["economic", "mask"]}})
    assert [e for e in validate_state(d) if "W-SOLO-2" in e]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), kind=st.sampled_from(["2", "3", "4", "tribes", "solo"]))
def test_every_state_of_a_legal_random_playout_passes_validate_state(seed, kind):
    """The checks do not refuse real games: states of a seeded random game (tribes and solo included), one in 8
    (the schema validator is slow) and the last."""
    rng = random.Random(seed)
    if kind == "solo":
        s = new_solo_game("You", seed=seed, tribe=rng.choice([None, "seneca", "mohawk", "oneida"]))
    else:
        s = new_game(NAMES[:int(kind) if kind.isdigit() else 4], seed=seed, deal_tribes=kind == "tribes")
    step = rng.randrange(8)
    while True:
        step += 1
        if step % 8 == 0 or s.phase == "over":
            assert validate_state(s.to_json()) == []
        if s.phase == "over":
            break
        rules.apply(s, (forced_move(s) if s.solo is not None else None) or random_move(s, rng))
