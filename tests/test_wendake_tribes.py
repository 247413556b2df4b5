"""Tribe abilities (W-TRB-1..11) and their set-ups, including the interactions the spec flags."""

import random

import pytest
from wendake_helpers import (
    ED,
    NAMES,
    PAUL,
    RINGO,
    M,
    give_turn,
    infected_card,
    on_deck,
    open_action,
    play,
    put_guard,
    put_pa,
    rules_of,
)

from assistant.wendake import rules
from assistant.wendake.generate import random_move
from assistant.wendake.schema import validate_state
from assistant.wendake.scoring import results
from assistant.wendake.setup import new_game
from assistant.wendake.state import Options
from assistant.wendake.turns import start_restore


def tribal(ringo=None, paul=None, options=None):
    s = new_game(NAMES[:2], seed=0, turn_order=[0, 1], tribes=[ringo, paul], options=options)
    give_turn(s, RINGO)
    return s


def attack_pa(s, pa):
    open_action(s, RINGO, "move", 2)
    return play(s, M.Move((M.Step("H1", "T01", "guard"), M.Step("T01", "T01", "attack_pa", pa=pa))))


def test_cayuga_attacked_woman_goes_home_but_smallpox_sends_her_to_the_long_house():
    s = tribal(paul="cayuga")
    put_pa(s, PAUL, "T01", 0, "woman")
    attack_pa(s, 0)  # W-TRB-1
    assert s.home_counts(PAUL)["woman"] == 5 and s.players[PAUL].long_house["woman"] == 2
    assert s.territories["T01"].pas[0].owner == RINGO  # the attacker still becomes an outpost
    s = tribal(ringo="cayuga")
    put_pa(s, RINGO, "T01", 0, "woman")
    open_action(s, RINGO, "trade")
    on_deck(s, infected_card())
    play(s, M.Trade((("leather", "fish"),), victim=M.Victim("T01", 0)))  # W-ACT-10b: not for smallpox
    assert s.players[RINGO].long_house["woman"] == 3


def test_fox_buys_two_tiles_others_one():
    for tribe, ok in (("fox", True), (None, False)):
        s = tribal(ringo=tribe)
        s.players[RINGO].resources = dict.fromkeys(s.players[RINGO].resources, 5)
        a, b = s.progress_rows[1][:2]
        open_action(s, RINGO, "trade")
        pay = ("leather", "fish", "corn")
        buys = tuple(M.Purchase(t, pay, track=rules.purchase_track_options(s.players[RINGO].tracks, ED.progress[t].category, 1, 25)[0]) for t in (a, b))
        v = rules.check(s, M.Trade(purchases=buys))
        assert (not any(x.rule in ("W-ACT-10c", "W-TRB-2") for x in v)) == ok


def test_mohawk_setup_and_attacked_black_warrior_goes_home():
    s = tribal(paul="mohawk")
    assert s.home_counts(PAUL)["warrior"] == 6 and s.players[PAUL].mohawk["at"] == "guard"  # W-TRB-3
    s.players[PAUL].mohawk = {"at": "guard", "territory": "T01", "pa": None}
    s.territories["H2"].guards[PAUL] -= 1
    s.territories["T01"].guards[PAUL] += 1
    open_action(s, RINGO, "move", 1)
    play(s, M.Move((M.Step("H1", "T01", "attack_guard", target=PAUL, mohawk=True),)))
    assert s.players[PAUL].mohawk == {"at": "guard", "territory": "H2", "pa": None}
    assert s.home_counts(PAUL)["warrior"] == 6 and s.players[RINGO].long_house["warrior"] == 3


def test_mohawk_black_warrior_attacking_a_warrior_goes_home_and_stops():
    s = tribal(ringo="mohawk")
    put_guard(s, PAUL, "T01", 2)
    open_action(s, RINGO, "move", 3)
    steps = (M.Step("H1", "T01", "attack_guard", target=PAUL, mohawk=True), M.Step("H1", "T01", "attack_guard", target=PAUL, mohawk=True))
    assert "W-TRB-3" in rules_of(rules.check(s, M.Move(steps)))
    play(s, M.Move(steps[:1]))
    assert s.players[RINGO].mohawk["territory"] == "H1" and s.players[RINGO].long_house["warrior"] == 2
    assert s.players[PAUL].long_house["warrior"] == 3


def test_mohawk_black_warrior_attacking_a_hunter_becomes_an_outpost_and_smallpox_takes_it():
    s = tribal(ringo="mohawk")
    put_pa(s, PAUL, "T01", 1, "hunter")
    open_action(s, RINGO, "move", 2)
    play(s, M.Move((M.Step("H1", "T01", "guard", mohawk=True), M.Step("T01", "T01", "attack_pa", pa=1, mohawk=True))))
    assert s.players[RINGO].mohawk == {"at": "outpost", "territory": "T01", "pa": 1}
    open_action(s, RINGO, "trade")
    on_deck(s, infected_card())
    play(s, M.Trade((("leather", "fish"),), victim=M.Victim("T01", 1)))
    assert s.players[RINGO].mohawk["at"] == "long_house" and s.players[RINGO].long_house["warrior"] == 3


def test_ojibwa_places_twice_in_a_row_once_a_year():
    s = tribal(ringo="ojibwa")
    play(s, M.Activate((0, 0)))
    play(s, M.EndTurn(again=True))  # W-TRB-4
    assert s.current == RINGO and s.turn.bonus
    play(s, M.ReserveTurnOrder())
    assert "W-TRB-4" in rules_of(rules.check(s, M.EndTurn(again=True)))
    play(s, M.EndTurn())
    assert s.current == PAUL
    s2 = tribal(paul="ojibwa")
    play(s2, M.Activate((0, 0)))
    assert "W-TRB-4" in rules_of(rules.check(s2, M.EndTurn(again=True)))


def test_ojibwa_actions_only_option():
    s = tribal(ringo="ojibwa", options=Options(ojibwa_actions_only=True))
    play(s, M.Activate((0, 0)))
    play(s, M.EndTurn(again=True))
    assert "W-TRB-4" in rules_of(rules.check(s, M.ReserveTurnOrder()))


def test_oneida_owns_a_box_tile_without_points():
    s = new_game(NAMES[:2], seed=0, tribes=["oneida", None])
    tile = s.players[RINGO].progress[0]
    assert ED.progress[tile].level in (1, 2) and all(tile not in row for row in s.progress_rows.values())  # W-TRB-5
    assert sum(s.players[RINGO].tracks.values()) == 0


def test_onondaga_six_of_each_at_home():
    s = tribal(ringo="onondaga")
    assert s.home_counts(RINGO) == {"warrior": 6, "woman": 6, "hunter": 6}  # W-TRB-6
    assert s.players[RINGO].long_house == {"warrior": 1, "woman": 1, "hunter": 1}


def test_ottawa_sacred_fire_never_flips():
    s = new_game(NAMES[:2], seed=4, tribes=["ottawa", None])
    rng = random.Random(4)
    fire = ED.fire_tile
    while s.phase != "over":
        rules.apply(s, random_move(s, rng))
        for g in s.players[RINGO].grid:
            if g is not None and g.tile == fire:
                assert g.side == "action"  # W-TRB-7


def test_ottawa_fire_tile_stays_but_others_flip_at_restore():
    for tribe, side in (("ottawa", "action"), (None, "ritual")):
        s = new_game(NAMES[:2], seed=0, turn_order=[0, 1], tribes=[tribe, None])
        s.players[RINGO].markers = [4]  # the Sacred Fire tile in the centre held a marker this year
        s.turn_order_track = [0, 1]
        start_restore(s, ED)
        fire = next(g for g in s.players[RINGO].grid if g is not None and g.tile == ED.fire_tile)
        assert fire.side == side  # W-TRB-7, W-RES-2


def test_seneca_two_swap_tokens_each_worth_one():
    s = tribal(ringo="seneca")
    assert s.players[RINGO].swap_tokens == 2  # W-TRB-8
    play(s, M.Swap((0, 0), (0, 1)))
    play(s, M.Swap((0, 0), (0, 1)))
    assert "W-SWAP-1" in rules_of(rules.check(s, M.Swap((0, 0), (0, 1))))
    assert results(s)["players"][RINGO]["swap_tokens"] == 0


def test_shawnee_four_warriors_at_home():
    s = tribal(ringo="shawnee")
    assert s.home_counts(RINGO)["warrior"] == 4 and s.players[RINGO].long_house["warrior"] == 3  # W-TRB-9, W-NIT-17


@pytest.mark.parametrize("survives", [False, True])
def test_tuscarora_hunter_fights_back(survives):
    s = tribal(paul="tuscarora", options=Options(tuscarora_hunter_survives=survives))
    put_pa(s, PAUL, "T01", 1, "hunter")
    attack_pa(s, 1)  # W-TRB-10: the attacker is injured; by default (001) the hunter too
    assert s.players[RINGO].long_house["warrior"] == 3
    pa = s.territories["T01"].pas[1]
    assert (pa.owner, pa.native) == ((PAUL, "hunter") if survives else (None, None))
    assert s.players[PAUL].long_house["hunter"] == (2 if survives else 3)


def test_wendat_has_no_ability_and_front_materials_are_marked_unknown():
    s = tribal(ringo="wendat")
    assert s.home_counts(RINGO) == {"warrior": 5, "woman": 5, "hunter": 5}  # W-TRB-11
    assert ED.tribes["wendat"]["materials_provenance"]["source"] == "unknown"  # W-NIT-7


def test_dealt_tribes_are_distinct_and_validate():
    for seed in range(5):
        s = new_game(NAMES, seed=seed, deal_tribes=True)
        tribes = [p.tribe for p in s.players]
        assert len(set(tribes)) == 4 and all(t in ED.tribes for t in tribes)  # W-SET-7 b
        assert validate_state(s.to_json()) == []
