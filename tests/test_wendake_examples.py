"""Every worked example of the rulebooks (spec section 18, W-EX-1..9 and the derived W-EX-12) as a test.

The 4-player schematic map gives Ringo H1, Paul H2, John H3 and George H4 when they play in that order.
"""

from collections import Counter

import pytest
from wendake_helpers import (
    GEORGE,
    JOHN,
    PAUL,
    RINGO,
    M,
    add_canoes,
    cards_of,
    clean_card,
    game,
    give_turn,
    hide,
    home,
    on_deck,
    open_action,
    pa_index,
    play,
    put_guard,
    put_pa,
    rules_of,
    set_grid,
    slot_of_tile,
)

from assistant.wendake import rules
from assistant.wendake.scoring import results
from assistant.wendake.tally import tally


# ---- W-EX-1: the action-marker line example ------------------------------------------------------------------
@pytest.fixture
def line_game():
    s = game(4)
    s.display[0] = "A1-01"  # the L1 tile "Hunt + Move 1 + Trade" is on display for the restore
    set_grid(s, RINGO, {(0, 0): "B-TAN", (1, 2): "B-TRADE", (2, 1): "B-HUNT", (0, 1): "B-MASK"})
    set_grid(s, PAUL, {(1, 1): "B-FIRE", (2, 0): "B-TRADE"})
    set_grid(s, JOHN, {(1, 2): "B-FISH", (0, 2): "B-TAN", (2, 2): "B-HARVEST"})
    set_grid(s, GEORGE, {(0, 0): "B-MOVE", (1, 0): "B-HUNT"})
    return s


def test_ex1_line_rule_example(line_game):
    """W-EX-1 with W-LINE-2, W-TO-1, W-RES-1, W-RES-3, W-RES-4."""
    s = line_game
    # Round 1. Ringo activates Tan + Move 1 (a corner) and resolves Tan, then Move, top to bottom (W-TURN-1).
    play(s, M.Activate((0, 0)))
    play(s, M.TanPelts())
    home_id = s.players[RINGO].home
    play(s, M.Move((M.Step(home_id, "T01", "guard"),)))
    assert rules_of(rules.check(s, M.TanPelts())) == ["W-TURN-1"]  # Tan was above Move: no going back
    play(s, M.EndTurn())
    play(s, M.ReserveTurnOrder())  # Paul takes turn-order space 1
    play(s, M.EndTurn())
    play(s, M.Activate((1, 2)))  # John: Fish + Military, an edge-middle tile
    play(s, M.EndTurn())
    play(s, M.Activate((0, 0)))  # George: Move 3
    play(s, M.EndTurn())

    # Round 2. Ringo's corner leaves 6 options: every tile but Trade and Hunt + Move 1.
    legal = rules.legal_activation_slots(s.players[RINGO])
    assert len(legal) == 6
    assert slot_of_tile(s, RINGO, "B-TRADE") not in [divmod(i, 3) for i in legal]
    assert slot_of_tile(s, RINGO, "B-HUNT") not in [divmod(i, 3) for i in legal]
    assert rules_of(rules.check(s, M.Activate((1, 2)))) == ["W-LINE-2"]
    play(s, M.Activate((0, 1)))  # Mask Ceremony
    play(s, M.EndTurn())
    assert len(rules.legal_activation_slots(s.players[PAUL])) == 9  # his grid is still empty
    play(s, M.Activate((1, 1)))  # Sacred Fire (the tile it activates is not described; he activates none)
    play(s, M.EndTurn())
    assert len(rules.legal_activation_slots(s.players[JOHN])) == 4  # edge-middle: its row and column
    play(s, M.Activate((0, 2)))  # Tan + Move 1, in his right-hand column
    play(s, M.EndTurn())
    play(s, M.Activate((1, 0)))  # George: Hunt + Move 1
    play(s, M.EndTurn())

    # Round 3.
    play(s, M.ReserveTurnOrder())  # Ringo: space 2
    play(s, M.EndTurn())
    assert len(rules.legal_activation_slots(s.players[PAUL])) == 8  # centre first: every other tile is in a line
    play(s, M.Activate((2, 0)))  # Trade
    play(s, M.EndTurn())
    assert rules.legal_activation_slots(s.players[JOHN]) == [8]  # forced: Harvest, the last of the right column
    play(s, M.Activate((2, 2)))
    play(s, M.EndTurn())
    play(s, M.ReserveTurnOrder())  # George: space 3
    play(s, M.EndTurn())

    # Round 4: Ringo, Paul and George place their forced third tile; John reserves space 4.
    for p in (RINGO, PAUL):
        assert len(rules.legal_activation_slots(s.players[p])) == 1
        play(s, M.Activate(divmod(rules.legal_activation_slots(s.players[p])[0], 3)))
        play(s, M.EndTurn())
    assert rules_of(rules.check(s, M.Activate((2, 0)))) == ["W-RND-3"]  # John has activated 3 tiles already
    play(s, M.ReserveTurnOrder())
    play(s, M.EndTurn())
    play(s, M.Activate(divmod(rules.legal_activation_slots(s.players[GEORGE])[0], 3)))
    play(s, M.EndTurn())

    # Restore: the new order is Paul, Ringo, George, John (W-RES-1).
    assert s.phase == "restore"
    assert [s.players[i].name for i in s.turn_order] == ["Paul", "Ringo", "George", "John"]
    assert s.current == PAUL
    # Paul's Trade tile was in his bottom row, so it is below the grid and can be set aside (W-RES-3/4).
    assert "B-TRADE" in s.players[PAUL].below
    below = [t for t in s.players[PAUL].below if t != "B-TRADE"]
    play(s, M.Restore("B-TRADE", "A1-01", (below[0], "A1-01", below[1])))
    assert [g.tile for g in s.players[PAUL].grid[0:3]] == [below[0], "A1-01", below[1]]
    assert all(g.side == "action" for g in s.players[PAUL].grid[0:3])
    assert s.players[PAUL].set_aside == ["B-TRADE"]
    assert "A1-01" not in s.display and len(s.display) == 6  # refilled from the pile


# ---- W-EX-2: Harvest, Hunt, Fish ---------------------------------------------------------------------------------
def test_ex2_harvest_hunt_fish():
    """W-EX-2 with W-ACT-4, W-ACT-5, W-ACT-7: women on 4 harvest PAs (2 corn, 1 pumpkin, 1 bean),
    hunters on 2 hunt PAs and 3 canoes give 2 corn, 1 pumpkin, 1 bean, 2 beavers and 3 fish."""
    s = game(4)
    assert home(s, GEORGE).pas[0].crop == "corn"  # H4's stack counts as one harvest PA and yields 1 corn
    put_pa(s, GEORGE, "T13", pa_index(s, "T13", "harvest", "corn"), "woman")
    put_pa(s, GEORGE, "T16", pa_index(s, "T16", "harvest", "pumpkins"), "woman")
    put_pa(s, GEORGE, "T15", pa_index(s, "T15", "harvest", "beans"), "woman")
    put_pa(s, GEORGE, "T16", pa_index(s, "T16", "hunt"), "hunter")  # with the Home hunt PA: 2 hunt PAs
    add_canoes(s, GEORGE, 2)  # 1 from setup + 2 = 3
    assert s.canoes_in_play(GEORGE) == 3
    before = dict(s.players[GEORGE].resources)
    beavers = s.players[GEORGE].beavers
    open_action(s, GEORGE, "harvest")
    play(s, M.Harvest())
    gained = {k: s.players[GEORGE].resources[k] - before[k] for k in before}
    assert gained == {"leather": 0, "fish": 0, "corn": 2, "beans": 1, "pumpkins": 1}
    open_action(s, GEORGE, "hunt")
    play(s, M.Hunt())
    assert s.players[GEORGE].beavers - beavers == 2
    open_action(s, GEORGE, "fish")
    play(s, M.Fish())
    assert s.players[GEORGE].resources["fish"] - before["fish"] == 3


# ---- W-EX-3: Military ------------------------------------------------------------------------------------------------
def test_ex3_military_turtles_and_majorities():
    """W-EX-3 with W-ACT-8, W-TUR-2, W-TUR-3: hunters in 2 PAs (no tile), women in 4 PAs (L3 or L4),
    3 canoes (L3); majorities in 2 territories, one his Home; a 1-1 tie with Ringo scores nothing."""
    s = game(4)
    put_pa(s, GEORGE, "T16", pa_index(s, "T16", "hunt"), "hunter")
    for tid in ("T13", "T16", "T12"):
        put_pa(s, GEORGE, tid, pa_index(s, tid, "harvest"), "woman")
    add_canoes(s, GEORGE, 2)
    put_guard(s, GEORGE, "T15", 2)  # George's majority
    put_guard(s, GEORGE, "T06", 1)
    put_guard(s, RINGO, "T06", 1)  # tie: nobody scores T06
    open_action(s, GEORGE, "military")
    assert rules_of(rules.check(s, M.Military(("hunters-3",)))) == ["W-TUR-2"]
    assert rules_of(rules.check(s, M.Military(("women-5",)))) == ["W-TUR-2"]
    assert rules_of(rules.check(s, M.Military(("women-3", "women-4")))) == ["W-TUR-3"]
    assert rules.check(s, M.Military(("women-3", "canoes-3"))) == []
    play(s, M.Military(("women-4", "canoes-3")))
    assert s.players[GEORGE].tracks["military"] == 2
    assert sorted(t["type"] for t in s.players[GEORGE].turtles) == ["canoes-3", "women-4"]


# ---- W-EX-4: Mask Ceremony -------------------------------------------------------------------------------------------
def test_ex4_mask_ceremony():
    """W-EX-4 with W-ACT-9, W-ACT-9.2: three different masks score 2; the space is then taken, so Ringo
    plays two identical masks on the other space (2) from the discard and keeps his third card; taking the
    last discard card turns the top deck card face up."""
    s = game(4)
    bears, wolves, turtle = cards_of("bear", 2), cards_of("wolf", 2), cards_of("turtle", 1)
    drawn_by_george = cards_of("eagle", 1)
    hide(s, bears + wolves + turtle + drawn_by_george)
    s.players[GEORGE].hand = [bears[0], wolves[0]]
    s.mask_deck.append(drawn_by_george[0])  # George draws an eagle: three different masks
    open_action(s, GEORGE, "mask")
    play(s, M.MaskCeremony("deck", space="S2", cards=(bears[0], wolves[0], drawn_by_george[0])))
    assert s.players[GEORGE].tracks["mask"] == 2 and s.players[GEORGE].mask_space == "S2"

    s.players[RINGO].hand = [bears[1], turtle[0]]
    s.mask_discard = [wolves[1]]  # the only face-up card
    deck_top = s.mask_deck[-1]
    open_action(s, RINGO, "mask")
    blocked = rules.check(s, M.MaskCeremony("discard", space="S2", cards=(bears[1], turtle[0], wolves[1])))
    assert rules_of(blocked) == ["W-ACT-9.2"]
    # With only one wolf, bear and turtle, two identical masks are not there...
    assert rules_of(rules.check(s, M.MaskCeremony("discard", space="S1", cards=(bears[1], turtle[0])))) == ["W-ACT-9"]
    # ...so give Ringo a second turtle card in hand, as in the rulebook picture: he plays the pair.
    turtle2 = cards_of("turtle", 1, exclude=turtle)
    hide(s, turtle2)
    s.players[RINGO].hand.append(turtle2[0])
    play(s, M.MaskCeremony("discard", space="S1", cards=(turtle[0], turtle2[0])))
    assert s.players[RINGO].tracks["mask"] == 2
    assert Counter(s.players[RINGO].hand) == Counter([bears[1], wolves[1]])  # keeps the rest
    assert s.mask_discard == [deck_top]  # the top deck card restarted the discard pile


# ---- W-EX-5: Trade -----------------------------------------------------------------------------------------------------
def test_ex5_trade():
    """W-EX-5 with W-ACT-10a-d, W-PRG-2: 3 exchanges, the smallpox check, an L2 Military tile for
    2 leather + 2 fish + corn + bean (+2 Economic, +2 Military), then corn + bean for +2 Economic."""
    s = game(4)
    george = s.players[GEORGE]
    george.resources = {"leather": 4, "fish": 1, "corn": 4, "beans": 0, "pumpkins": 0}
    add_canoes(s, GEORGE, 2)
    s.progress_rows[2][0] = "P2-01"  # Two steps (L2 Military), the tile of the example
    card = on_deck(s, clean_card(exclude=s.mask_deck[-1:]))
    open_action(s, GEORGE, "trade")
    exchanges = (("leather", "fish"), ("leather", "beans"), ("corn", "beans"))
    too_greedy = M.Trade(exchanges, points=("corn", "beans", "corn"))
    assert "W-ACT-10d" in rules_of(rules.check(s, too_greedy))  # his last corn cannot be added
    trade = M.Trade(exchanges, purchases=(M.Purchase("P2-01", ("leather", "leather", "fish", "fish", "corn", "beans")),),
                    points=("corn", "beans"))
    assert rules.check(s, trade) == []
    play(s, trade)
    assert george.resources == {"leather": 0, "fish": 0, "corn": 1, "beans": 0, "pumpkins": 0}
    assert george.tracks["economic"] == 4 and george.tracks["military"] == 2
    assert george.progress == ["P2-01"]
    assert s.mask_discard[-1] == card  # the smallpox card is the new top of the discard pile


# ---- W-EX-6: Ritual ------------------------------------------------------------------------------------------------------
def test_ex6_ritual():
    """W-EX-6 with W-ACT-12: Home 2 hunters / 1 woman / 5 warriors; back come 1 hunter and 1 woman:
    3 hunters, 2 women, 5 warriors, and Ritual scores 2."""
    s = game(4)
    john = s.players[JOHN]
    h = home(s, JOHN)
    harvest, hunt = h.pas[0], h.pas[1]
    john.long_house["woman"] += harvest.count - 1
    john.long_house["hunter"] += hunt.count - 2
    harvest.count, hunt.count = 1, 2
    open_action(s, JOHN, "ritual")
    assert rules_of(rules.check(s, M.Ritual(("hunter",)))) == ["W-ACT-12"]  # two natives come back
    play(s, M.Ritual(("hunter", "woman")))
    assert s.home_counts(JOHN) == {"warrior": 5, "woman": 2, "hunter": 3}
    assert john.tracks["ritual"] == 2


# ---- W-EX-7: fighting ----------------------------------------------------------------------------------------------------
def test_ex7_fight_lone_hunter():
    """W-EX-7 (i), W-FIGHT-3: the attacked hunter goes to Ringo's Long House; George's warrior stays as outpost."""
    s = game(4)
    hunt = pa_index(s, "T16", "hunt")
    put_pa(s, RINGO, "T16", hunt, "hunter")
    lh = s.players[RINGO].long_house["hunter"]
    open_action(s, GEORGE, "move", 3)
    play(s, M.Move((M.Step("H4", "T16", "attack_pa", pa=hunt),)))
    pa = s.territories["T16"].pas[hunt]
    assert (pa.owner, pa.native) == (GEORGE, "warrior")
    assert s.players[RINGO].long_house["hunter"] == lh + 1


def test_ex7_fight_guards_first():
    """W-EX-7 (ii), W-FIGHT-2, W-FIGHT-4: with a Ringo guard there, George first attacks the guard (both
    injured), then takes the hunter with a second warrior."""
    s = game(4)
    hunt = pa_index(s, "T16", "hunt")
    put_pa(s, RINGO, "T16", hunt, "hunter")
    put_guard(s, RINGO, "T16")
    open_action(s, GEORGE, "move", 3)
    direct = M.Move((M.Step("H4", "T16", "attack_pa", pa=hunt),))
    assert rules_of(rules.check(s, direct)) == ["W-FIGHT-4"]
    lh_r, lh_g = dict(s.players[RINGO].long_house), dict(s.players[GEORGE].long_house)
    play(s, M.Move((M.Step("H4", "T16", "attack_guard", target=RINGO), M.Step("H4", "T16", "attack_pa", pa=hunt))))
    assert s.players[RINGO].long_house == {**lh_r, "warrior": lh_r["warrior"] + 1, "hunter": lh_r["hunter"] + 1}
    assert s.players[GEORGE].long_house == {**lh_g, "warrior": lh_g["warrior"] + 1}
    assert s.territories["T16"].pas[hunt].owner == GEORGE and s.territories["T16"].guards[RINGO] == 0


# ---- W-EX-8: turtles -----------------------------------------------------------------------------------------------------
def test_ex8_no_second_tile_of_a_type():
    """W-EX-8 (i), W-TUR-4: George owns L3 Women; after losing a woman and regaining a third he cannot
    take another L3 Women."""
    s = game(4)
    for tid in ("T13", "T16"):
        put_pa(s, GEORGE, tid, pa_index(s, tid, "harvest"), "woman")
    open_action(s, GEORGE, "military")
    play(s, M.Military(("women-3",)))
    t16 = s.territories["T16"].pas[pa_index(s, "T16", "harvest")]
    t16.owner = t16.native = None
    t16.count = 0
    s.players[GEORGE].long_house["woman"] += 1  # injured
    assert s.occupied_pas(GEORGE, "woman") == 2
    put_pa(s, GEORGE, "T12", pa_index(s, "T12", "harvest"), "woman")
    open_action(s, GEORGE, "military")
    assert rules_of(rules.check(s, M.Military(("women-3",)))) == ["W-TUR-4"]


def test_ex8_transfers_before_military():
    """W-EX-8 (ii), W-XFER-1/2, W-TUR-3: 2 hunters + 2 women in PAs and 4 outposts (3 hunt, 1 harvest);
    transferring all 4 first gives 5 hunters and 3 women: L5 Hunters and L3 Women."""
    s = game(4)
    ringo = s.players[RINGO]
    # Ringo's Home counts as one hunt PA and one harvest PA.
    put_pa(s, RINGO, "T02", pa_index(s, "T02", "hunt"), "hunter")
    put_pa(s, RINGO, "T04", pa_index(s, "T04", "harvest"), "woman")
    outposts = [("T04", pa_index(s, "T04", "hunt", nth=0)), ("T04", pa_index(s, "T04", "hunt", nth=1)),
                ("T01", pa_index(s, "T01", "hunt")), ("T01", pa_index(s, "T01", "harvest"))]
    for tid, i in outposts:
        put_pa(s, RINGO, tid, i, "warrior")
    assert s.occupied_pas(RINGO, "hunter") == 2 and s.occupied_pas(RINGO, "woman") == 2
    give_turn(s, RINGO)
    for tid, i in outposts:
        play(s, M.Transfer(tid, i, replace=True))
    assert s.occupied_pas(RINGO, "hunter") == 5 and s.occupied_pas(RINGO, "woman") == 3
    assert ringo.long_house == {"warrior": 2, "woman": 2, "hunter": 2}
    open_action(s, RINGO, "military")
    play(s, M.Military(("hunters-5", "women-3")))
    open_action(s, RINGO, "military")
    assert rules.check(s, M.Military(("hunters-4",))) == []  # later he may still take L4 Hunters


# ---- W-EX-9: the final score ---------------------------------------------------------------------------------------------
EX9 = {"pairs": [["economic", "ritual"], ["mask", "military"]], "players": [
    {"name": "Ringo", "turn_order": 3, "swap_tokens_unused": 0, "tracks": {"economic": 17, "ritual": 20, "mask": 19, "military": 22}},
    {"name": "Paul", "turn_order": 1, "swap_tokens_unused": 1, "tracks": {"economic": 19, "ritual": 23, "mask": 18, "military": 18}},
    {"name": "John", "turn_order": 4, "swap_tokens_unused": 1, "tracks": {"economic": 18, "ritual": 18, "mask": 20, "military": 15}},
    {"name": "George", "turn_order": 2, "swap_tokens_unused": 1, "tracks": {"economic": 16, "ritual": 16, "mask": 21, "military": 24}},
]}


def test_ex9_final_score_tally():
    """W-EX-9 with W-SCR-2, W-SCR-4: 38 / 38 / 36 / 34, Paul wins the tie on turn order."""
    out = tally(EX9)
    totals = {p["name"]: p["total"] for p in out["players"]}
    assert totals == {"Paul": 38, "George": 38, "Ringo": 36, "John": 34}
    assert out["winner"] == "Paul" and out["ranking"] == ["Paul", "George", "Ringo", "John"]
    assert "turn-order" in out["tie_break"] and "W-SCR-4" in out["tie_break"]


def test_ex9_final_score_engine():
    """W-EX-9 through the engine's own result: same totals, tie to the earlier turn order (W-SCR-4)."""
    s = game(4)
    s.pairs = (("economic", "ritual"), ("mask", "military"))
    s.turn_order = [PAUL, GEORGE, RINGO, JOHN]
    for p, spec in zip((RINGO, PAUL, JOHN, GEORGE), EX9["players"]):
        s.players[p].tracks = dict(spec["tracks"])
        s.players[p].swap_tokens = spec["swap_tokens_unused"]
    res = results(s)
    assert [x["total"] for x in res["players"]] == [36, 38, 34, 38]
    assert res["winner"] == "Paul"


# ---- W-EX-12: derived tests ------------------------------------------------------------------------------------------------
def test_ex12_ritual_untouched_home_scores_5():
    """W-EX-12, W-ACT-12: an untouched 5/5/5 Home scores 5, whatever comes back from the Long House."""
    s = game(4)
    open_action(s, PAUL, "ritual")
    play(s, M.Ritual(("warrior", "warrior")))
    assert s.players[PAUL].tracks["ritual"] == 5


def test_ex12_tan_pelts():
    """W-EX-12, W-ACT-6: 3 beavers become 3 leather and leave 0 beavers."""
    s = game(4)
    s.players[JOHN].beavers = 3
    leather = s.players[JOHN].resources["leather"]
    open_action(s, JOHN, "tan")
    play(s, M.TanPelts())
    assert s.players[JOHN].beavers == 0 and s.players[JOHN].resources["leather"] == leather + 3


def test_ex12_economic_points_need_different_resources():
    """W-EX-12, W-ACT-10d: {2 corn, 1 fish} buys at most 2 points."""
    s = game(4)
    s.players[JOHN].resources = {"leather": 0, "fish": 1, "corn": 2, "beans": 0, "pumpkins": 0}
    open_action(s, JOHN, "trade")
    assert rules_of(rules.check(s, M.Trade(points=("corn", "corn", "fish")))) == ["W-ACT-10d"]
    play(s, M.Trade(points=("corn", "fish")))
    assert s.players[JOHN].tracks["economic"] == 2


def test_ex12_highest_points_lost_at_25():
    """W-EX-12, W-PRG-2: a Highest tile's points are lost when a track is at 25."""
    s = game(4)
    ringo = s.players[RINGO]
    ringo.tracks = {"economic": 3, "military": 25, "ritual": 10, "mask": 4}
    ringo.resources = {"leather": 1, "fish": 1, "corn": 1, "beans": 0, "pumpkins": 0}
    highest = "P1-09"  # L1 Highest: Animal
    if highest not in s.progress_rows[1]:
        s.progress_rows[1][0] = highest
    open_action(s, RINGO, "trade")
    assert rules_of(rules.check(s, M.Trade(purchases=(M.Purchase(highest, ("leather", "fish", "corn"), track="ritual"),)))) == ["W-PRG-2"]
    play(s, M.Trade(purchases=(M.Purchase(highest, ("leather", "fish", "corn")),)))
    assert ringo.tracks == {"economic": 4, "military": 25, "ritual": 10, "mask": 4}


def test_ex12_four_player_piles():
    """W-EX-12, W-SET-3, W-SET-13: with 4 players the rows are 8/8/8 and the advanced piles 17/17."""
    s = game(4)
    assert [len(s.progress_rows[k]) for k in (1, 2, 3)] == [8, 8, 8]
    assert len(s.display) + len(s.advanced_pile) == 17 and len(s.advanced_pile_l2) == 17
