"""Progress-tile abilities (W-PRG-L1..L3), alliances, turtles and the game options (spec section 20)."""

import random

import pytest
from wendake_helpers import (
    ED,
    PAUL,
    RINGO,
    M,
    add_canoes,
    cards_of,
    clean_card,
    game,
    give_turn,
    hide,
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
from assistant.wendake.scoring import results, score_player
from assistant.wendake.state import Options, options_in_force

TILE = {t.rule: t.id for t in ED.progress.values()}


def own(s, p, rule):
    tile = TILE[rule]
    for row in s.progress_rows.values():
        if tile in row:
            row.remove(tile)
    s.players[p].progress.append(tile)
    return tile


def rich(s, p, k=5):
    s.players[p].resources = dict.fromkeys(s.players[p].resources, k)


def two():
    s = game(2)
    give_turn(s, RINGO)
    return s


# ---- any time on your turn ---------------------------------------------------------------------------------
def test_L1_1_step_moves_one_warrior_one_step_and_flips():
    s = two()
    t = own(s, RINGO, "W-PRG-L1-1")
    assert "W-PRG-L1-1" in rules_of(rules.check(s, M.UseProgress(t, steps=(M.Step("H1", "T01", "guard"), M.Step("T01", "T01", "outpost", pa=0)))))
    play(s, M.UseProgress(t, steps=(M.Step("H1", "T01", "guard"),)))
    assert s.territories["T01"].guards[RINGO] == 1 and t in s.players[RINGO].progress_used
    assert "W-PRG-3" in rules_of(rules.check(s, M.UseProgress(t, steps=(M.Step("T01", "T01", "outpost", pa=0),))))  # once per year


@pytest.mark.parametrize("rule,n", [("W-PRG-L2-1", 2), ("W-PRG-L3-1", 3)])
def test_L2_1_L3_1_move_up_to_n_steps_in_one_movement_with_fights(rule, n):
    s = two()
    t = own(s, RINGO, rule)
    put_pa(s, PAUL, "T01", 1, "hunter")
    steps = (M.Step("H1", "T01", "guard"), M.Step("T01", "T01", "attack_pa", pa=1))
    play(s, M.UseProgress(t, steps=steps))  # W-FIGHT-1: a progress move may fight
    assert s.territories["T01"].pas[1].owner == RINGO and s.players[PAUL].long_house["hunter"] == 3
    s2 = two()
    t = own(s2, RINGO, rule)
    too_many = tuple(M.Step("H1", "T01", "guard") for _ in range(n + 1))
    assert "W-ACT-3" in rules_of(rules.check(s2, M.UseProgress(t, steps=too_many)))


def test_L1_3_free_order_lets_the_tile_actions_go_in_any_order():
    s = two()
    t = own(s, RINGO, "W-PRG-L1-3")
    open_action(s, RINGO, "hunt")
    s.turn.pending.append(s.turn.pending[0].__class__("move", 1, "tile"))
    s.turn.pending[0], s.turn.pending[1] = s.turn.pending[1], s.turn.pending[0]  # Move 1, then Hunt
    play(s, M.UseProgress(t))
    play(s, M.Hunt())  # W-TURN-2: the bottom action first
    assert not rules.check(s, M.Move((M.Step("H1", "T01", "guard"),)))  # and the Move is still open


def test_L1_9_L2_9_L3_9_take_resources():
    s = two()
    before = dict(s.players[RINGO].resources)
    a, b, c = own(s, RINGO, "W-PRG-L1-9"), own(s, RINGO, "W-PRG-L2-9"), own(s, RINGO, "W-PRG-L3-9")
    assert "W-PRG-L1-9" in rules_of(rules.check(s, M.UseProgress(a, resources=("corn",))))
    play(s, M.UseProgress(a, resources=("fish",)))
    assert "W-PRG-L2-9" in rules_of(rules.check(s, M.UseProgress(b, resources=("fish", "leather"))))
    play(s, M.UseProgress(b, resources=("leather", "beans")))
    beavers = s.players[RINGO].beavers
    play(s, M.UseProgress(c, resources=("pumpkins", "pumpkins")))
    res = s.players[RINGO].resources
    assert res["fish"] == before["fish"] + 1 and res["leather"] == before["leather"] + 1
    assert res["beans"] == before["beans"] + 1 and res["pumpkins"] == before["pumpkins"] + 2
    assert s.players[RINGO].beavers == beavers + 1


@pytest.mark.parametrize("rule,good,bad", [
    ("W-PRG-L1-10", ("leather", "fish"), ("leather", "corn")),
    ("W-PRG-L2-10", ("corn", "beans", "pumpkins"), ("corn", "corn")),
    ("W-PRG-L3-10", ("leather", "fish", "corn", "beans", "pumpkins"), ("fish", "fish")),
])
def test_points_tiles_spend_different_resources_for_points_on_one_track(rule, good, bad):
    s = two()
    rich(s, RINGO)
    t = own(s, RINGO, rule)
    assert rule in rules_of(rules.check(s, M.UseProgress(t, resources=bad, track="ritual")))
    assert rule in rules_of(rules.check(s, M.UseProgress(t, resources=good)))  # a track must be named
    play(s, M.UseProgress(t, resources=good, track="ritual"))
    assert s.players[RINGO].tracks["ritual"] == len(good)
    assert all(s.players[RINGO].resources[r] == 4 for r in good)


def test_L3_10_points_lost_above_25():
    s = two()
    rich(s, RINGO)
    s.players[RINGO].tracks["mask"] = 24
    t = own(s, RINGO, "W-PRG-L3-10")
    play(s, M.UseProgress(t, resources=("corn", "fish"), track="mask"))
    assert s.players[RINGO].tracks["mask"] == 25  # W-SCR-5


def test_L2_4_shifts_one_point_between_tracks():
    s = two()
    t = own(s, RINGO, "W-PRG-L2-4")
    assert "W-PRG-L2-4" in rules_of(rules.check(s, M.UseProgress(t, from_track="mask", track="ritual")))  # nothing to give
    s.players[RINGO].tracks["mask"] = 3
    play(s, M.UseProgress(t, from_track="mask", track="ritual"))
    assert s.players[RINGO].tracks["mask"] == 2 and s.players[RINGO].tracks["ritual"] == 1


def test_L2_7_free_exchange_of_up_to_three_without_smallpox():
    s = two()
    rich(s, RINGO, 2)
    t = own(s, RINGO, "W-PRG-L2-7")
    deck = list(s.mask_deck)
    assert "W-PRG-L2-7" in rules_of(rules.check(s, M.UseProgress(t, exchanges=(("fish", "corn"),) * 4)))
    play(s, M.UseProgress(t, exchanges=(("fish", "corn"), ("fish", "corn"), ("leather", "beans"))))
    assert s.players[RINGO].resources["corn"] == 4 and s.players[RINGO].resources["fish"] == 0
    assert s.mask_deck == deck  # no smallpox card drawn


def test_L3_4_returns_a_native_from_the_long_house():
    s = two()
    t = own(s, RINGO, "W-PRG-L3-4")
    play(s, M.UseProgress(t, natives=("hunter",)))
    assert s.players[RINGO].long_house["hunter"] == 1 and s.home_counts(RINGO)["hunter"] == 6


def test_L3_7_flips_any_tile_but_never_ottawas_sacred_fire():
    s = two()
    t = own(s, RINGO, "W-PRG-L3-7")
    play(s, M.UseProgress(t, slot=(0, 0)))
    assert s.players[RINGO].grid[0].side == "ritual"
    s2 = two()
    s2.players[RINGO].tribe = "ottawa"
    t = own(s2, RINGO, "W-PRG-L3-7")
    assert "W-TRB-7" in rules_of(rules.check(s2, M.UseProgress(t, slot=(1, 1))))


def test_triggered_tiles_are_not_usable_any_time():
    s = two()
    t = own(s, RINGO, "W-PRG-L2-3")
    assert "W-PRG-L2-3" in rules_of(rules.check(s, M.UseProgress(t)))


# ---- Military: alliances ---------------------------------------------------------------------------------------
def test_L1_2_alliance_flag_and_virtual_guard():
    s = two()
    rich(s, RINGO)
    open_action(s, RINGO, "trade")
    tile = TILE["W-PRG-L1-2"]
    if tile not in s.progress_rows[1]:
        s.progress_rows[1].append(tile)
    play(s, M.Trade(purchases=(M.Purchase(tile, ("leather", "fish", "corn"), flag="english"),)))
    assert s.players[RINGO].flag == "english" and s.flag_supply == ["french"]
    # W-PRG-L1-2: +1 virtual guard in each English territory (T07, T04), won with no guard at all
    put_guard(s, PAUL, "T04")
    open_action(s, RINGO, "military")
    base = s.players[RINGO].tracks["military"]
    play(s, M.Military(use=(tile,)))
    assert s.players[RINGO].tracks["military"] - base == 2  # Home + T07 (T04 ties 1-1 and scores nothing)
    assert tile in s.players[RINGO].progress_used


def test_L1_2_second_flag_goes_to_the_box_under_000_but_stays_under_001():
    for opt, supply in ((False, []), (True, ["french"])):
        s = two()
        s.options = Options(alliance_flags_001=opt)
        rich(s, RINGO, 9)
        s.players[RINGO].flag = "english"
        s.flag_supply = ["french"]
        tile = TILE["W-PRG-L3-2"]
        if tile not in s.progress_rows[3]:
            s.progress_rows[3].append(tile)
        open_action(s, RINGO, "trade")
        play(s, M.Trade(purchases=(M.Purchase(tile, ("leather",) * 3 + ("fish",) * 3 + ("corn", "beans", "pumpkins")),)))
        assert s.flag_supply == supply and s.players[RINGO].flag == "english"


def test_L3_2_alliance_wins_ties_everywhere_but_never_empty_territories():
    s = two()
    own(s, RINGO, "W-PRG-L3-2")
    put_guard(s, RINGO, "T01")
    put_guard(s, PAUL, "T01")
    open_action(s, RINGO, "military")
    play(s, M.Military(use=(TILE["W-PRG-L3-2"],)))
    assert s.players[RINGO].tracks["military"] == 2  # Home + the tie in T01; no flag, no virtual guard


# ---- Ritual tiles --------------------------------------------------------------------------------------------
def test_L1_4_ritual_bonus_point_then_a_step():
    s = two()
    t = own(s, RINGO, "W-PRG-L1-4")
    open_action(s, RINGO, "ritual")
    play(s, M.Ritual(("woman", "hunter"), use=(t,), steps=(M.Step("H1", "T01", "guard"),)))
    assert s.players[RINGO].tracks["ritual"] == 5 + 1 and s.territories["T01"].guards[RINGO] == 1


def test_L1_4_step_needs_the_tile():
    s = two()
    open_action(s, RINGO, "ritual")
    assert "W-PRG-L1-4" in rules_of(rules.check(s, M.Ritual(("woman", "hunter"), steps=(M.Step("H1", "T01", "guard"),))))


def test_L2_3_scores_the_most_common_instead_or_in_addition():
    for additional, expected in ((False, 7), (True, 12)):
        s = two()
        s.options = Options(ritual_most_common_additional=additional)
        t = own(s, RINGO, "W-PRG-L2-3")
        open_action(s, RINGO, "ritual")
        play(s, M.Ritual(("warrior", "warrior"), use=(t,)))  # Home 7 warriors, 5 women, 5 hunters
        assert s.players[RINGO].tracks["ritual"] == expected


def test_L3_3_one_more_native_then_a_point():
    s = two()
    t = own(s, RINGO, "W-PRG-L3-3")
    open_action(s, RINGO, "ritual")
    assert "W-ACT-12" in rules_of(rules.check(s, M.Ritual(("woman", "hunter", "warrior"))))
    play(s, M.Ritual(("woman", "hunter", "warrior"), use=(t,)))
    assert s.players[RINGO].tracks["ritual"] == 6 + 1


# ---- Mask tiles ----------------------------------------------------------------------------------------------
def test_L1_5_draw_two_then_discard_one():
    s = two()
    t = own(s, RINGO, "W-PRG-L1-5")
    a, b = cards_of("bear", 2)
    hide(s, [a, b])
    s.mask_deck += [b, a]
    open_action(s, RINGO, "mask")
    hand = list(s.players[RINGO].hand)
    assert "W-PRG-L1-5" in rules_of(rules.check(s, M.MaskCeremony("deck", use=(t,), source2="deck")))  # no card named
    play(s, M.MaskCeremony("deck", use=(t,), source2="deck", discard=hand[0]))
    assert set(s.players[RINGO].hand) == {a, b} | set(hand[1:]) and s.mask_discard[-1] == hand[0]


def test_L1_5_a_hidden_hand_discards_an_unknown_card():
    """The tracker knows hands as unknown cards (None): Draw two may then discard one of them, unnamed; a hand of
    known cards must name its discard."""
    s = two()
    t = own(s, RINGO, "W-PRG-L1-5")
    open_action(s, RINGO, "mask")
    s.players[RINGO].hand = [None, None]
    s.mask_deck = [None] * len(s.mask_deck)
    play(s, M.MaskCeremony("deck", use=(t,), source2="deck"))
    assert s.players[RINGO].hand == [None, None, None] and s.mask_discard[-1] is None


def test_L1_6_occupied_space_can_be_used():
    s = two()
    t = own(s, RINGO, "W-PRG-L1-6")
    a, b = cards_of("wolf", 2)
    hide(s, [a, b])
    s.players[RINGO].hand = [a, b]
    s.players[PAUL].mask_space = "S1"
    open_action(s, RINGO, "mask")
    top = s.mask_deck[-1]
    assert "W-ACT-9.2" in rules_of(rules.check(s, M.MaskCeremony("deck", space="S1", cards=(a, b))))
    play(s, M.MaskCeremony("deck", space="S1", cards=(a, b), use=(t,)))
    assert s.players[RINGO].mask_space == "S1" and s.players[RINGO].tracks["mask"] == 2 and top in s.players[RINGO].hand


def _recall_ready(options=None):
    """Ringo owns Recall (W-PRG-L2-5), has played two eagle cards this year, holds none, and is at a Mask action."""
    s = two()
    if options is not None:
        s.options = options
    t = own(s, RINGO, "W-PRG-L2-5")
    a, b = cards_of("eagle", 2)
    hide(s, [a, b])
    s.players[RINGO].hand = []
    s.players[RINGO].played = [a, b]
    open_action(s, RINGO, "mask")
    return s, t, a, b


def test_L2_5_recall_all_played_cards_before_the_ceremony():
    s, t, a, b = _recall_ready()
    play(s, M.MaskCeremony("deck", space="S1", cards=(a, b), use=(t,)))
    assert s.players[RINGO].tracks["mask"] == 2 and s.players[RINGO].played == [a, b]


def test_L2_6_wild_card_and_L3_6_phantom_card():
    s = two()
    w = own(s, RINGO, "W-PRG-L2-6")
    ph = own(s, RINGO, "W-PRG-L3-6")
    a = cards_of("bear", 1)[0]
    b = cards_of("wolf", 1)[0]
    hide(s, [a, b])
    s.players[RINGO].hand = [a, b]
    open_action(s, RINGO, "mask")
    assert "W-ACT-9" in rules_of(rules.check(s, M.MaskCeremony("deck", space="S1", cards=(a, b))))
    play(s, M.MaskCeremony("deck", space="S1", cards=(a, b), use=(w,), wild=b, wild_as="bear"))
    assert s.players[RINGO].tracks["mask"] == 2
    s2 = two()
    ph = own(s2, RINGO, "W-PRG-L3-6")
    hide(s2, [a])
    s2.players[RINGO].hand = [a]
    open_action(s2, RINGO, "mask")
    play(s2, M.MaskCeremony("deck", space="S1", cards=(a,), use=(ph,), phantom="bear"))
    assert s2.players[RINGO].tracks["mask"] == 2 and a in s2.players[RINGO].played


def test_L3_5_ceremony_point_even_without_a_disk():
    s = two()
    t = own(s, RINGO, "W-PRG-L3-5")
    open_action(s, RINGO, "mask")
    play(s, M.MaskCeremony("deck", use=(t,)))
    assert s.players[RINGO].tracks["mask"] == 1


# ---- Lowest tiles: discounts, extra exchange --------------------------------------------------------------------
@pytest.mark.parametrize("rule,pay", [("W-PRG-L1-7", ("leather", "leather", "fish", "corn", "beans")),
                                      ("W-PRG-L2-8", ("leather", "fish", "fish", "corn")),
                                      ("W-PRG-L3-8", ("leather", "fish", "beans"))])
def test_discounts_remove_resources_of_your_choice(rule, pay):
    s = two()
    rich(s, RINGO)
    d = own(s, RINGO, rule)
    tile = next(t for t in s.progress_rows[2] if ED.progress[t].category in ("military", "ritual", "mask"))
    open_action(s, RINGO, "trade")
    assert "W-ACT-10c" in rules_of(rules.check(s, M.Trade(purchases=(M.Purchase(tile, pay),))))
    play(s, M.Trade(purchases=(M.Purchase(tile, pay, discounts=(d,)),)))
    assert tile in s.players[RINGO].progress and d in s.players[RINGO].progress_used


def test_discounts_combine_by_default_not_under_the_option():
    for combine in (True, False):
        s = two()
        s.options = Options(discounts_combine=combine)
        rich(s, RINGO)
        d1, d2 = own(s, RINGO, "W-PRG-L1-7"), own(s, RINGO, "W-PRG-L2-8")
        tile = s.progress_rows[2][0]
        open_action(s, RINGO, "trade")
        v = rules.check(s, M.Trade(purchases=(M.Purchase(tile, ("leather",), discounts=(d1, d2)),)))
        assert ("W-PRG-4" in rules_of(v)) == (not combine)  # W-PRG-4


def test_L1_8_extra_exchange_two_more_and_optional_smallpox():
    s = two()
    rich(s, RINGO)
    t = own(s, RINGO, "W-PRG-L1-8")
    open_action(s, RINGO, "trade")
    swaps = (("fish", "corn"),) * 3  # 1 canoe + 2
    assert "W-ACT-10a" in rules_of(rules.check(s, M.Trade(swaps)))
    deck = list(s.mask_deck)
    play(s, M.Trade(swaps, use=(t,), skip_smallpox=True))
    assert s.mask_deck == deck and s.players[RINGO].resources["corn"] == 8
    s2 = two()
    t = own(s2, RINGO, "W-PRG-L1-8")
    open_action(s2, RINGO, "trade")
    card = on_deck(s2, clean_card())
    play(s2, M.Trade((("fish", "corn"),), use=(t,)))  # 000/002: drawing is still allowed
    assert s2.mask_discard[-1] == card


def test_L1_8_compulsory_reading_never_draws():
    s = two()
    s.options = Options(extra_exchange_no_draw=True)
    t = own(s, RINGO, "W-PRG-L1-8")
    open_action(s, RINGO, "trade")
    on_deck(s, infected_card())
    assert "W-ACT-10b" in rules_of(rules.check(s, M.Trade((("fish", "corn"),), use=(t,), victim=M.Victim("H1"))))
    deck = list(s.mask_deck)
    play(s, M.Trade((("fish", "corn"),), use=(t,)))
    assert s.mask_deck == deck


def test_highest_tile_points_lost_at_25_and_resolved_after_economic():
    s = two()
    rich(s, RINGO)
    s.players[RINGO].tracks = {"economic": 24, "military": 25, "ritual": 3, "mask": 3}
    tile = TILE["W-PRG-L1-9"]  # Highest, E = K = 1 (W-NIT-9)
    if tile not in s.progress_rows[1]:
        s.progress_rows[1].append(tile)
    open_action(s, RINGO, "trade")
    # after +1 Economic both Economic and Military are at 25: the player chooses, and the point is lost either way
    assert "W-PRG-2" in rules_of(rules.check(s, M.Trade(purchases=(M.Purchase(tile, ("leather", "fish", "corn")),))))
    assert "W-PRG-2" in rules_of(rules.check(s, M.Trade(purchases=(M.Purchase(tile, ("leather", "fish", "corn"), track="ritual"),))))
    play(s, M.Trade(purchases=(M.Purchase(tile, ("leather", "fish", "corn"), track="military"),)))
    assert s.players[RINGO].tracks == {"economic": 25, "military": 25, "ritual": 3, "mask": 3}


# ---- Military tile: transfer as guard ----------------------------------------------------------------------------
def test_L2_2_transfer_as_guard_in_its_own_territory():
    s = two()
    put_guard(s, RINGO, "T01")
    s.territories["T01"].guards[RINGO] -= 1
    s.territories["T01"].pas[1].owner, s.territories["T01"].pas[1].native, s.territories["T01"].pas[1].count = RINGO, "warrior", 1
    assert "W-PRG-L2-2" in rules_of(rules.check(s, M.Transfer("T01", 1, as_guard=True)))
    t = own(s, RINGO, "W-PRG-L2-2")
    play(s, M.Transfer("T01", 1, as_guard=True))
    assert s.territories["T01"].guards[RINGO] == 1 and s.territories["T01"].pas[1].native == "hunter"
    assert t in s.players[RINGO].progress_used


# ---- turtles ---------------------------------------------------------------------------------------------------
def test_turtles_one_per_category_no_duplicates_and_shawnee_needs_one_less():
    s = two()
    add_canoes(s, RINGO, 2)  # 3 canoes
    open_action(s, RINGO, "military")
    assert "W-TUR-3" in rules_of(rules.check(s, M.Military(("canoes-3", "canoes-4"))))
    assert "W-TUR-2" in rules_of(rules.check(s, M.Military(("canoes-4",))))
    s.players[RINGO].tribe = "shawnee"
    assert rules.check(s, M.Military(("canoes-4",))) == []  # W-TRB-9: 3 canoes suffice for level 4
    play(s, M.Military(("canoes-4",)))
    open_action(s, RINGO, "military")
    assert "W-TUR-4" in rules_of(rules.check(s, M.Military(("canoes-4",))))


def test_turtle_values_stay_secret_until_the_end():
    s = two()
    s.players[RINGO].turtles = [{"type": "women-4", "hidden": {"track": "ritual"}}]
    s.players[RINGO].tracks = dict.fromkeys(s.players[RINGO].tracks, 5)
    assert results(s, include_turtles=False)["players"][RINGO]["tracks"]["ritual"]["final"] == 5  # W-TUR-6
    assert results(s)["players"][RINGO]["tracks"]["ritual"]["final"] == 7  # W-TUR-7: L4 = +2


def test_level5_turtle_goes_on_the_better_of_its_two_tracks():
    r = score_player({"economic": 5, "military": 9, "ritual": 9, "mask": 9}, [{"level": 5, "tracks": ["economic", "ritual"]}],
                     (("economic", "military"), ("ritual", "mask")), 0)
    assert r["turtle_choices"][0]["chosen"] == "economic" and r["total"] == 7 + 9  # W-TUR-7, W-SCR-1


# ---- options ---------------------------------------------------------------------------------------------------
def test_options_in_force_list_every_section_20_reading_with_its_default():
    listed = options_in_force(Options())
    rules_listed = {o["rule"] for o in listed}
    assert {"W-TRB-10", "W-PRG-L2-5", "W-PRG-L2-3", "W-ACT-10b", "W-RES-4", "W-PRG-L1-8", "W-PRG-L1-2",
            "W-FIGHT-5", "W-XFER-1", "W-TRB-4", "W-SOLO-10"} <= rules_listed
    assert not any(o["changed"] for o in listed)
    assert [o["option"] for o in options_in_force(Options(recall_one_card=True)) if o["changed"]] == ["recall_one_card"]
    assert Options.from_json({**Options().to_json(), "unknown": True}) == Options()


def test_recall_one_card_option():
    s, t, a, b = _recall_ready(Options(recall_one_card=True))
    assert "W-ACT-9.1" in rules_of(rules.check(s, M.MaskCeremony("deck", space="S1", cards=(a, b), use=(t,), recall=a)))
    play(s, M.MaskCeremony("deck", use=(t,), recall=a))
    assert a in s.players[RINGO].hand and s.players[RINGO].played == [b]


def test_take_back_basic_only_option():
    s = game(2)
    s.options = Options(take_back_basic_only=True)
    while s.phase != "restore":
        rules.apply(s, random_move(s, random.Random(1)))
    p = s.current
    tile = next(t for t in ED.advanced[1] if t not in s.display)
    s.players[p].set_aside = [tile]
    move = M.Restore(s.players[p].below[0], tile)
    assert "W-RES-4" in rules_of(rules.check(s, move))
