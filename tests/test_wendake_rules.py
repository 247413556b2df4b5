"""Legality and effects of each rule area, one test per rule, each citing its rule ID.

Map used (4 players, schematic): Ringo H1, Paul H2, John H3, George H4. Rivers: T05|T11, T07|T12, T10|T14.
Lakes separate T02 from T03 (L1) and T04 from T05 (L2).
"""

import pytest
from test_wendake_properties import assert_invariants
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
    home,
    infected_card,
    on_deck,
    open_action,
    pa_index,
    play,
    put_guard,
    put_pa,
    rules_of,
    set_grid,
)

from assistant.wendake import rules
from assistant.wendake.generate import play_random_game
from assistant.wendake.state import Options, State


# ---- turns and the line rule -------------------------------------------------------------------------------------
@pytest.mark.parametrize("first, options", [((0, 0), 6), ((0, 2), 6), ((2, 2), 6), ((0, 1), 4), ((1, 0), 4), ((1, 1), 8)])
def test_line_rule_second_choice_counts(first, options):
    """W-LINE-2 (derived): a corner leaves 6 second choices, an edge-middle 4, the centre 8."""
    s = game(4)
    play(s, M.Activate(first))
    assert len(rules.legal_activation_slots(s.players[RINGO])) == options


def test_line_rule_third_tile_is_forced_and_others_rejected():
    """W-LINE-2: after two tiles the third is the last of their line; anything else names W-LINE-2."""
    s = game(2)
    p = s.current
    for slot in ((0, 0), (1, 1)):
        give_turn(s, p)
        play(s, M.Activate(slot))
    give_turn(s, p)
    assert rules.legal_activation_slots(s.players[p]) == [8]
    v = rules.check(s, M.Activate((0, 2)))
    assert rules_of(v) == ["W-LINE-2"] and "[2, 2]" in v[0].fix


def test_three_activations_and_one_reservation_per_year():
    """W-RND-3, W-TO-2: a fourth activation is refused; a second reservation is refused; a turn must place."""
    s = game(2)
    p = s.current
    assert rules_of(rules.check(s, M.EndTurn())) == ["W-RND-3"]
    play(s, M.ReserveTurnOrder())
    assert rules_of(rules.check(s, M.Activate((0, 0)))) == ["W-RND-3"]  # one placement per turn
    give_turn(s, p)
    assert rules_of(rules.check(s, M.ReserveTurnOrder())) == ["W-TO-2"]
    for slot in ((0, 0), (0, 1), (0, 2)):
        give_turn(s, p)
        play(s, M.Activate(slot))
    give_turn(s, p)
    assert rules_of(rules.check(s, M.Activate((1, 1)))) == ["W-RND-3"]


def test_turn_rotation_skips_players_without_markers():
    """W-RND-2: play follows turn order, each placing one marker, and a player with none left is skipped."""
    s = game(3, order=[2, 0, 1])
    assert s.current == 2
    play(s, M.ReserveTurnOrder())
    play(s, M.EndTurn())
    assert s.current == 0
    s.players[1].sages = 0
    play(s, M.ReserveTurnOrder())
    play(s, M.EndTurn())
    assert s.current == 2


def test_reservations_set_the_next_order():
    """W-TO-1, W-RES-1: the first to reserve becomes 1st, and so on, from the restore on."""
    s = game(2, order=[0, 1])
    for _ in range(8):
        if not s.players[s.current].reserved and s.current == 1:
            play(s, M.ReserveTurnOrder())
        elif len(s.players[s.current].markers) < 3:
            play(s, M.Activate(divmod(rules.legal_activation_slots(s.players[s.current])[0], 3)))
        else:
            play(s, M.ReserveTurnOrder())
        play(s, M.EndTurn())
    assert s.phase == "restore" and s.turn_order == [1, 0]


def test_actions_top_to_bottom_and_each_once():
    """W-TURN-1: actions of the activated tile come top to bottom, each optional and each once."""
    s = game(4)
    set_grid(s, RINGO, {(0, 0): "B-HUNT"})  # Hunt + Move 1
    play(s, M.Activate((0, 0)))
    play(s, M.Move(()))  # Hunt skipped: it is given up
    assert rules_of(rules.check(s, M.Hunt())) == ["W-TURN-1"]
    assert rules_of(rules.check(s, M.Move(()))) == ["W-TURN-1"]
    assert rules_of(rules.check(s, M.Harvest())) == ["W-TURN-1"]  # not on this tile


# ---- movement ----------------------------------------------------------------------------------------------------
def test_move_rivers_and_lakes_are_impassable():
    """W-TERM-2, W-MOV-2: T05|T11 is a river and L2 lies between T04 and T05."""
    s = game(4)
    put_guard(s, RINGO, "T05")
    open_action(s, RINGO, "move", 3)
    v = rules.check(s, M.Move((M.Step("T05", "T11", "guard"),)))
    assert rules_of(v) == ["W-MOV-2"] and "T11" not in v[0].fix
    assert rules_of(rules.check(s, M.Move((M.Step("T05", "T04", "guard"),)))) == ["W-MOV-2"]
    assert rules.check(s, M.Move((M.Step("T05", "T06", "guard"),))) == []


def test_move_never_into_an_opponent_home():
    """W-TERM-3: Paul's Home H2 is next to T03 but closed to Ringo."""
    s = game(4)
    put_guard(s, RINGO, "T03")
    open_action(s, RINGO, "move", 3)
    assert rules_of(rules.check(s, M.Move((M.Step("T03", "H2", "guard"),)))) == ["W-TERM-3"]


def test_move_steps_budget_and_multi_step_trip():
    """W-ACT-3, W-MOV-3: 3 steps may take one warrior 3 territories; a 4th step is refused."""
    s = game(4)
    open_action(s, RINGO, "move", 3)
    trip = [M.Step("H1", "T01", "guard"), M.Step("T01", "T02", "guard"), M.Step("T02", "T02", "outpost", pa=0)]
    assert rules.check(s, M.Move(tuple(trip))) == []
    v = rules.check(s, M.Move(tuple(trip + [M.Step("H1", "T04", "guard")])))
    assert rules_of(v) == ["W-ACT-3"]
    play(s, M.Move(tuple(trip)))
    assert s.territories["T02"].pas[0].owner == RINGO and s.territories["T02"].pas[0].native == "warrior"
    assert s.territories["T01"].guards[RINGO] == 0 and home(s, RINGO).guards[RINGO] == 4


def test_outposts_never_move_and_pas_hold_one_native():
    """W-MOV-1, W-MOV-4, W-TERM-4: an outpost cannot step on; an occupied PA must be attacked; Home PAs hold stacks."""
    s = game(4)
    put_pa(s, RINGO, "T01", 0, "warrior")
    put_pa(s, PAUL, "T02", 0, "woman")
    open_action(s, RINGO, "move", 3)
    assert rules_of(rules.check(s, M.Move((M.Step("T01", "T02", "guard"),)))) == ["W-MOV-1"]
    put_guard(s, RINGO, "T01")
    assert rules_of(rules.check(s, M.Move((M.Step("T01", "T02", "outpost", pa=0),)))) == ["W-MOV-4"]
    assert rules_of(rules.check(s, M.Move((M.Step("H1", "H1", "outpost", pa=0),)))) == ["W-TERM-4"]


def test_guards_stand_beside_enemies_and_fights_are_optional():
    """W-MOV-6, W-FIGHT-6: guards may stand next to enemy guards, and walk past them, without fighting."""
    s = game(4)
    put_guard(s, PAUL, "T01", 2)
    open_action(s, RINGO, "move", 2)
    play(s, M.Move((M.Step("H1", "T01", "guard"), M.Step("T01", "T02", "guard"))))
    assert s.territories["T01"].guards == [0, 2, 0, 0] and s.territories["T02"].guards[RINGO] == 1


def test_attack_an_outpost_injures_both():
    """W-FIGHT-3: attacking a lone outpost sends both warriors to their Long Houses and empties the PA."""
    s = game(4)
    put_pa(s, PAUL, "T01", 0, "warrior")
    open_action(s, RINGO, "move", 1)
    play(s, M.Move((M.Step("H1", "T01", "attack_pa", pa=0),)))
    assert s.territories["T01"].pas[0].empty
    assert s.players[RINGO].long_house["warrior"] == 3 and s.players[PAUL].long_house["warrior"] == 3


def test_attack_on_entry_extra_step_option():
    """W-FIGHT-5: by default entering and attacking is one step; reading (B) makes it two."""
    s = game(4)
    put_pa(s, PAUL, "T01", 0, "woman")
    open_action(s, RINGO, "move", 1)
    attack = M.Move((M.Step("H1", "T01", "attack_pa", pa=0),))
    assert rules.check(s, attack) == []
    s.options = Options(attack_on_entry_extra_step=True)
    assert rules_of(rules.check(s, attack)) == ["W-ACT-3"]


def test_attack_needs_an_enemy_guard():
    """W-FIGHT-2: there must be a guard of the named opponent to attack."""
    s = game(4)
    open_action(s, RINGO, "move", 1)
    assert rules_of(rules.check(s, M.Move((M.Step("H1", "T01", "attack_guard", target=PAUL),)))) == ["W-FIGHT-2"]


# ---- transfers -----------------------------------------------------------------------------------------------------
def test_transfer_sends_the_outpost_home_and_fills_from_home_stack():
    """W-XFER-2: the warrior stands in Home; a hunter from the Home stack takes the hunt PA."""
    s = game(4)
    hunt = pa_index(s, "T01", "hunt")
    put_pa(s, RINGO, "T01", hunt, "warrior")
    give_turn(s, RINGO)
    stack = home(s, RINGO).pas[1].count
    play(s, M.Transfer("T01", hunt))
    pa = s.territories["T01"].pas[hunt]
    assert (pa.owner, pa.native) == (RINGO, "hunter")
    assert home(s, RINGO).guards[RINGO] == 5 and home(s, RINGO).pas[1].count == stack - 1


def test_transfer_rules():
    """W-XFER-2, W-XFER-3: only outposts transfer; with an empty Home stack the PA must stay empty."""
    s = game(4)
    put_pa(s, RINGO, "T01", 0, "woman")
    give_turn(s, RINGO)
    assert rules_of(rules.check(s, M.Transfer("T01", 0))) == ["W-XFER-2"]
    hunt = pa_index(s, "T02", "hunt")
    put_pa(s, RINGO, "T02", hunt, "warrior")
    s.players[RINGO].long_house["hunter"] += home(s, RINGO).pas[1].count
    home(s, RINGO).pas[1].count = 0
    v = rules.check(s, M.Transfer("T02", hunt))
    assert rules_of(v) == ["W-XFER-2"] and "replace=false" in v[0].fix
    play(s, M.Transfer("T02", hunt, replace=False))
    assert s.territories["T02"].pas[hunt].empty


# ---- canoes, trade, smallpox, progress -------------------------------------------------------------------------------
def test_canoes_at_most_five():
    """W-ACT-2: a player has 5 canoes."""
    s = game(4)
    add_canoes(s, RINGO, 4)
    open_action(s, RINGO, "canoe")
    assert rules_of(rules.check(s, M.Canoe("L1"))) == ["W-ACT-2"]


def test_trade_exchanges_limited_by_canoes_and_no_beavers():
    """W-ACT-10a, W-TERM-5: one exchange per canoe in play; beavers are never exchanged."""
    s = game(4)
    s.players[RINGO].resources.update(leather=3)
    open_action(s, RINGO, "trade")
    assert rules_of(rules.check(s, M.Trade((("leather", "fish"), ("leather", "corn")))))[:1] == ["W-ACT-10a"]
    assert rules_of(rules.check(s, M.Trade((("beaver", "fish"),)))) == ["W-TERM-5"]


def test_smallpox_infected_blanket_takes_a_native():
    """W-ACT-10b: after an exchange an infected blanket sends one native of the player's choice to the Long House."""
    s = game(4)
    card = on_deck(s, infected_card(exclude=s.mask_deck[-1:]))
    open_action(s, RINGO, "trade")
    exchange = (("leather", "fish"),)
    assert rules_of(rules.check(s, M.Trade(exchange))) == ["W-ACT-10b"]
    play(s, M.Trade(exchange, victim=M.Victim("H1")))
    assert s.players[RINGO].long_house["warrior"] == 3 and home(s, RINGO).guards[RINGO] == 4
    assert s.mask_discard[-1] == card


def test_smallpox_clean_blanket_and_no_check_without_exchange():
    """W-ACT-10b: a clean blanket removes nobody; without an exchange there is no check."""
    s = game(4)
    card = on_deck(s, clean_card(exclude=s.mask_deck[-1:]))
    open_action(s, RINGO, "trade")
    assert rules_of(rules.check(s, M.Trade((("leather", "fish"),), victim=M.Victim("H1")))) == ["W-ACT-10b"]
    assert rules_of(rules.check(s, M.Trade(victim=M.Victim("H1")))) == ["W-ACT-10b"]
    before = s.natives_on_map(RINGO)
    play(s, M.Trade((("leather", "fish"),)))
    assert s.natives_on_map(RINGO) == before and s.mask_discard[-1] == card


@pytest.mark.parametrize("level, pay, ok", [
    (1, ("leather", "fish", "corn"), True),
    (1, ("leather", "fish", "fish"), False),
    (2, ("leather", "leather", "fish", "fish", "corn", "beans"), True),
    (2, ("leather", "leather", "fish", "fish", "corn", "corn"), False),
    (3, ("leather",) * 3 + ("fish",) * 3 + ("corn", "beans", "pumpkins"), True),
    (3, ("leather",) * 3 + ("fish",) * 3 + ("corn", "corn", "pumpkins"), False),
])
def test_progress_prices(level, pay, ok):
    """W-ACT-10c: L1 1+1+any vegetable; L2 2+2+2 different; L3 3+3+one of each vegetable."""
    s = game(4)
    s.players[RINGO].resources = {"leather": 3, "fish": 3, "corn": 2, "beans": 1, "pumpkins": 1}
    tile = next(t for t in s.progress_rows[level] if t[3:] not in ("07", "08", "09", "10"))  # not Lowest/Highest
    open_action(s, RINGO, "trade")
    v = rules.check(s, M.Trade(purchases=(M.Purchase(tile, pay),)))
    assert (v == []) == ok and (ok or rules_of(v) == ["W-ACT-10c"])


def test_progress_purchase_scores_economic_then_category():
    """W-PRG-2: +E on Economic, then +K on the category; a Lowest tile goes on the lowest track after E."""
    s = game(4)
    ringo = s.players[RINGO]
    ringo.tracks = {"economic": 0, "military": 2, "ritual": 5, "mask": 1}
    ringo.resources = {"leather": 1, "fish": 1, "corn": 1, "beans": 0, "pumpkins": 0}
    if "P1-07" not in s.progress_rows[1]:
        s.progress_rows[1][0] = "P1-07"  # Lowest: Discount 1 (E = K = 1 as shipped)
    open_action(s, RINGO, "trade")
    # after +1 Economic, Economic and Mask are tied at 1: the buyer must choose
    buy = M.Purchase("P1-07", ("leather", "fish", "corn"))
    assert rules_of(rules.check(s, M.Trade(purchases=(buy,)))) == ["W-PRG-2"]
    play(s, M.Trade(purchases=(M.Purchase("P1-07", ("leather", "fish", "corn"), track="mask"),)))
    assert ringo.tracks == {"economic": 1, "military": 2, "ritual": 5, "mask": 2}
    assert "P1-07" not in s.progress_rows[1] and ringo.progress == ["P1-07"]


def test_one_purchase_per_trade():
    """W-ACT-10c: one progress tile per Trade."""
    s = game(4)
    s.players[RINGO].resources = {"leather": 2, "fish": 2, "corn": 2, "beans": 0, "pumpkins": 0}
    a, b = s.progress_rows[1][:2]
    open_action(s, RINGO, "trade")
    pay = ("leather", "fish", "corn")
    v = rules.check(s, M.Trade(purchases=(M.Purchase(a, pay, "economic"), M.Purchase(b, pay, "economic"))))
    assert "W-ACT-10c" in rules_of(v)


# ---- masks, Sacred Fire, swap, the cap ----------------------------------------------------------------------------------
def test_mask_space_occupied_by_own_disk():
    """W-ACT-9.2: a space holding any disk, your own included, is not empty."""
    s = game(4)
    s.players[RINGO].mask_space = "S1"
    wolves = cards_of("wolf", 2)
    hide(s, wolves)
    s.players[RINGO].hand = wolves
    open_action(s, RINGO, "mask")
    v = rules.check(s, M.MaskCeremony("deck", space="S1", cards=tuple(wolves)))
    assert rules_of(v) == ["W-ACT-9.2"] and "your own disk" in v[0].message


def test_mask_draw_must_match_the_known_top_card():
    """W-ACT-9: the drawn card is the top of the pile drawn from."""
    s = game(4)
    open_action(s, RINGO, "mask")
    wrong = next(c for c in s.mask_deck[:-1] if c)
    assert rules_of(rules.check(s, M.MaskCeremony("deck", card=wrong))) == ["W-ACT-9"]


def test_sacred_fire_target_rules():
    """W-ACT-11, W-LINE-3: not itself, not a marked tile, never a tile of the line still to complete."""
    s = game(4)
    play(s, M.Activate((0, 0)))
    play(s, M.EndTurn())
    s.current = RINGO
    s.turn.player = RINGO
    s.turn.placed = None
    play(s, M.Activate((1, 1)))  # Sacred Fire in the centre: the line is the diagonal (0,0)(1,1)(2,2)
    assert rules_of(rules.check(s, M.SacredFire((1, 1)))) == ["W-ACT-11"]
    assert rules_of(rules.check(s, M.SacredFire((0, 0)))) == ["W-ACT-11"]
    assert rules_of(rules.check(s, M.SacredFire((2, 2)))) == ["W-ACT-11"]
    before = len(s.turn.pending)
    play(s, M.SacredFire((0, 1)))
    assert s.players[RINGO].fire == 1 and len(s.turn.pending) > before
    assert rules.legal_activation_slots(s.players[RINGO]) == [8]


def test_swap_keeps_a_legal_line():
    """W-SWAP-1, W-LINE-4: marked tiles cannot be swapped, nor may the Fire tile move into the forced slot."""
    s = game(4)
    ringo = s.players[RINGO]
    ringo.markers = [0, 4]
    ringo.fire = 1
    give_turn(s, RINGO)
    assert rules_of(rules.check(s, M.Swap((0, 0), (0, 2)))) == ["W-SWAP-1"]
    assert rules_of(rules.check(s, M.Swap((0, 1), (2, 2)))) == ["W-LINE-4"]
    play(s, M.Swap((0, 1), (0, 2)))
    assert ringo.fire == 2 and ringo.swap_tokens == 0
    assert rules_of(rules.check(s, M.Swap((1, 0), (2, 0)))) == ["W-SWAP-1"]  # no token left


def test_tracks_capped_at_25():
    """W-SCR-5: points beyond 25 are lost when gained."""
    s = game(4)
    s.players[PAUL].tracks["ritual"] = 23
    open_action(s, PAUL, "ritual")
    play(s, M.Ritual(("warrior", "warrior")))
    assert s.players[PAUL].tracks["ritual"] == 25


# ---- restore ------------------------------------------------------------------------------------------------------------
def _finish_year(s):
    while s.phase == "actions":
        p = s.players[s.current]
        if s.turn.placed is None:
            slots = rules.legal_activation_slots(p)
            play(s, M.Activate(divmod(slots[0], 3)) if slots and len(p.markers) < 3 else M.ReserveTurnOrder())
        else:
            play(s, M.EndTurn())


def test_restore_flip_slide_and_fire_tile_not_flipped():
    """W-RES-2, W-RES-3: marked tiles flip, the Fire-marked tile does not; the grid slides down a row and
    the bottom row leaves it Action side up."""
    s = game(2, order=[0, 1])
    ringo = s.players[RINGO]
    top = [g.tile for g in ringo.grid[0:3]]
    middle = [g.tile for g in ringo.grid[3:6]]
    bottom = [g.tile for g in ringo.grid[6:9]]
    play(s, M.Activate((1, 1)))
    play(s, M.SacredFire((0, 1)))
    fire_tile = ringo.grid[1].tile
    play(s, M.EndTurn())
    _finish_year(s)
    assert s.phase == "restore"
    assert [g.tile for g in ringo.grid[3:6]] == top and [g.tile for g in ringo.grid[6:9]] == middle
    assert ringo.below == bottom
    assert ringo.grid[4].side == "action" and ringo.grid[4].tile == fire_tile  # fire-marked, not flipped
    assert ringo.grid[7].side == "ritual"  # the Sacred Fire tile held a marker: flipped


def test_restore_year3_brings_level2_display_and_masks_return():
    """W-RES-5, W-RES-6, W-RES-8: after year 3 the display is 6 Level 2 tiles; disks and played cards return."""
    s = game(2)
    for year in (1, 2, 3):
        _finish_year(s)
        s.players[0].mask_space = "S1"
        played = s.players[0].hand.pop()
        s.players[0].played = [played]
        while s.phase == "restore":
            play(s, M.Restore(order=tuple(s.players[s.current].below)))
        assert s.year == year + 1
    assert s.advanced_level == 2 and len(s.display) == 6 and all(t.startswith("A2-") for t in s.display)
    assert s.players[0].mask_space is None and s.players[0].played == [] and played in s.players[0].hand


def test_restore_must_take_in_place_and_from_own_pile():
    """W-RES-4: a set-aside tile is replaced by a display tile or an own set-aside tile; row 0 is those 3 tiles."""
    s = game(2)
    _finish_year(s)
    p = s.current
    below = s.players[p].below
    assert rules_of(rules.check(s, M.Restore(below[0]))) == ["W-RES-4"]
    assert rules_of(rules.check(s, M.Restore(below[0], "A2-01"))) == ["W-RES-4"]
    assert rules_of(rules.check(s, M.Restore(order=(below[0], below[0], below[1])))) == ["W-RES-4"]
    assert rules_of(rules.check(s, M.Activate((0, 0)))) == ["W-RES-4"]


def test_game_ends_after_year_7_with_a_winner():
    """W-RND-1, W-RES-8, W-SCR: the game ends after year 7's turn-order step and no move is then legal."""
    s, moves = play_random_game(("A", "B", "C"), seed=5)
    assert s.phase == "over" and s.year == 7 and s.current is None
    assert rules_of(rules.check(s, M.EndTurn())) == ["W-RND-1"]


def test_deck_runs_out_and_the_discard_is_reshuffled():
    """W-ACT-9 a, W-ACT-10b: when the smallpox check takes the last deck card, the discard pile becomes a new
    face-down deck (order unknown) and the revealed card starts the new discard pile; later draws name their card."""
    s = game(2)
    last = on_deck(s, clean_card())
    rest = [c for c in s.mask_deck if c != last]
    s.mask_deck = [last]
    s.mask_discard = s.mask_discard + rest  # every other card is face up in the discard pile
    reshuffled = len(s.mask_discard)
    open_action(s, RINGO, "trade")
    play(s, M.Trade((("leather", "fish"),)))
    assert s.mask_discard == [last] and len(s.mask_deck) == reshuffled and all(c is None for c in s.mask_deck)
    open_action(s, RINGO, "mask")
    drawn = rest[0]
    play(s, M.MaskCeremony("deck", card=drawn))
    assert s.players[RINGO].hand[-1] == drawn

    assert_invariants(s)


# ---- W-XFER-4: move, transfer, move again ------------------------------------------------------------------------
def _move_then_transfer(s):
    """Ringo's Move 3 puts a warrior as an outpost in T01 with 2 steps left over, then transfers it Home."""
    open_action(s, RINGO, "move", n=3)
    play(s, M.Move((M.Step("H1", "T01", "outpost", pa=0),)))
    play(s, M.Transfer("T01", 0, replace=False))
    assert home(s, RINGO).guards[RINGO] == 5


def test_w_xfer_4_no_move_again_in_the_same_action_after_a_transfer():
    """W-XFER-4, W-MOV-7: the Move's leftover steps are not usable after the transfer."""
    s = game(2)
    _move_then_transfer(s)
    v = rules.check(s, M.Move((M.Step("H1", "T01", "guard"),)))
    assert rules_of(v) == ["W-XFER-4"] and "steps left over" in v[0].message


def test_w_xfer_4_allows_moving_again_in_another_action():
    """W-XFER-4: across different actions of the same turn (a second Move action, a progress tile's move) it is allowed."""
    s = game(2)
    _move_then_transfer(s)
    s.turn.pending.append(s.turn.pending[0].__class__("move", 1, "tile"))  # a second Move action on the tile
    assert rules.check(s, M.Move((M.Step("H1", "T01", "guard"),))) == []
    s2 = game(2)
    tile = next(t.id for t in ED.progress.values() if t.rule == "W-PRG-L1-1")
    for row in s2.progress_rows.values():
        if tile in row:
            row.remove(tile)
    s2.players[RINGO].progress.append(tile)
    _move_then_transfer(s2)
    play(s2, M.UseProgress(tile, steps=(M.Step("H1", "T01", "guard"),)))  # the progress tile's move
    assert s2.territories["T01"].guards[RINGO] == 1


def test_w_xfer_4_record_survives_json():
    s = game(2)
    _move_then_transfer(s)
    assert s.turn.done == ["move", "transfer"]
    back = State.from_json(s.to_json())
    assert rules_of(rules.check(back, M.Move((M.Step("H1", "T01", "guard"),)))) == ["W-XFER-4"]
