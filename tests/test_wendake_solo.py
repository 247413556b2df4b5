"""The solo Ghost (W-SOLO-1..14): set-up, its card line, each action kind, the restore, objectives and the CLI."""

import random
import subprocess
import sys

from wendake_helpers import ED, rules_of

from assistant.wendake import ghost, rules
from assistant.wendake import moves as M
from assistant.wendake.generate import random_move
from assistant.wendake.scoring import objective_met, results, solo_score
from assistant.wendake.state import Options, PendingAction, Turn


def solo(seed=0, **kw):
    return ghost.new_solo_game(seed=seed, **kw)


def reveal(s, card=None):
    rules.apply(s, M.GhostCard(card))


def test_setup_w_solo_2_to_6():
    s = solo()
    g = s.players[1]
    assert s.home_counts(1) == {"warrior": 7, "woman": 7, "hunter": 7} and sum(g.long_house.values()) == 0  # W-SOLO-3
    assert all(len(st) == 1 for st in s.turtle_stacks.values())  # W-SOLO-2
    assert all(len(r) == 4 for r in s.progress_rows.values())
    total = sum(ED.ghost_sides[c]["value"] for c in s.solo.cards)
    assert sum(g.tracks[t] for t in s.solo.score_tracks) == total  # W-SOLO-5
    assert len({ED.ghost_sides[c]["card"] for c in s.solo.cards}) == 3  # W-SOLO-4: 3 different cards
    assert s.players[0].sages == 3 and s.turn_order_track == [0, 1]  # W-SOLO-6
    assert g.mask_space == next(iter(ED.mask_spaces)) and s.solo.progress_level == 1 and s.solo.advanced_disk == 0


def test_year_starts_with_the_ghost_card_and_the_player_cannot_reserve():
    s = solo()
    assert "W-SOLO-8" in rules_of(rules.check(s, M.Activate((0, 0))))
    reveal(s)
    assert s.solo.under[0] and s.solo.year_slot == 0  # W-SOLO-8: leftmost free Ghost card
    assert "W-SOLO-7" in rules_of(rules.check(s, M.ReserveTurnOrder()))
    rules.apply(s, M.Activate((0, 0)))
    rules.apply(s, M.EndTurn())
    assert s.current == 1 and "W-SOLO-9" in rules_of(rules.check(s, M.Activate((0, 1))))


def test_the_three_actions_read_left_to_right_from_the_years_card():
    s = solo()
    reveal(s)
    line = ED.mask_cards[s.solo.year_card].ghost_line
    seen = []
    while s.year == 1 and s.phase == "actions":
        if s.current == 1:
            seen.append(ghost.current_action(s, ED))
            rules.apply(s, M.GhostAction())
        else:
            rules.apply(s, random_move(s, random.Random(len(seen))))
    assert [a["card"] for a in seen] == [0, 1, 2] and all(a["line"] == line for a in seen)  # W-SOLO-8, W-EX-11


def ghost_turn(s, action, card_oval="red"):
    """Put the Ghost on turn with a given line action (bypassing the card data)."""
    card = next(c.id for c in ED.mask_cards.values() if c.oval == card_oval)
    s.solo.year_card = card
    s.solo.awaiting_card = False
    s.current = 1
    return ghost._perform(s, action, None, ED)


def test_progress_climb_and_removal():
    s = solo()
    ghost_turn(s, {"kind": "climb"})
    ghost_turn(s, {"kind": "climb"})
    ghost_turn(s, {"kind": "climb"})
    assert s.solo.progress_level == 3  # W-SOLO-10 (1): never above L3
    first = s.progress_rows[3][0]
    ghost_turn(s, {"kind": "remove"})
    assert first not in s.progress_rows[3] and s.solo.progress_level == 1  # W-SOLO-10 (2)
    s.progress_rows[2] = []
    s.solo.progress_level = 2
    first = s.progress_rows[1][0]
    ghost_turn(s, {"kind": "remove"})
    assert first not in s.progress_rows[1]  # the next level down when the row is empty


def test_score_step_on_the_lower_ghost_track():
    s = solo()
    a, b = s.solo.score_tracks
    before = sum(s.players[1].tracks[t] for t in (a, b))
    ghost_turn(s, {"kind": "score"})
    assert sum(s.players[1].tracks[t] for t in (a, b)) == before + 1  # W-SOLO-10 (3)


def test_warrior_near_then_far_never_attacks():
    s = solo()
    flags = ED.map_for(2).flags["english"]
    ghost_turn(s, {"kind": "place", "native": "warrior"})
    ghost_turn(s, {"kind": "place", "native": "warrior"})
    assert s.territories[flags["near"]].guards[1] == 1 and s.territories[flags["far"]].guards[1] == 1  # W-SOLO-10 (4)


def test_hunters_go_near_then_far_and_switch_when_full():
    s = solo()
    flags = ED.map_for(2).flags["english"]
    near, far = s.territories[flags["near"]], s.territories[flags["far"]]
    hunt_near = sum(pa.kind == "hunt" for pa in near.pas)
    hunt_far = sum(pa.kind == "hunt" for pa in far.pas)
    for _ in range(hunt_near + hunt_far):
        ghost_turn(s, {"kind": "place", "native": "hunter"})
    assert sum(pa.owner == 1 for pa in near.pas if pa.kind == "hunt") == hunt_near
    assert sum(pa.owner == 1 for pa in far.pas if pa.kind == "hunt") == hunt_far  # the rulebook's hunter note
    text = ghost_turn(s, {"kind": "place", "native": "hunter"})
    assert "nothing is placed" in text[0]


def test_ghost_attacks_woman_outpost_and_guard():
    s = solo()
    near = ED.map_for(2).flags["english"]["near"]
    t = s.territories[near]
    harvest = [i for i, pa in enumerate(t.pas) if pa.kind == "harvest"]
    for i in harvest:  # the player holds every harvest PA: woman in the first, outposts elsewhere
        t.pas[i].owner, t.pas[i].native, t.pas[i].count = 0, "woman" if i == harvest[0] else "warrior", 1
        s.players[0].long_house["woman" if i == harvest[0] else "warrior"] -= 1
    s.options = Options(ghost_switch_territory=False)
    ghost_turn(s, {"kind": "place", "native": "woman"})
    assert (t.pas[harvest[0]].owner, t.pas[harvest[0]].native) == (1, "woman") and s.players[0].long_house["woman"] == 2
    s3 = solo()
    t3 = s3.territories[near]
    for i in harvest:
        t3.pas[i].owner, t3.pas[i].native, t3.pas[i].count = 0, "warrior", 1
        s3.players[0].long_house["warrior"] -= 1
    s3.options = Options(ghost_switch_territory=False)
    ghost_turn(s3, {"kind": "place", "native": "woman"})
    assert t3.pas[harvest[0]].empty and s3.players[0].long_house["warrior"] == 3 - len(harvest)  # outpost: nothing placed
    s2 = solo()
    t2 = s2.territories[near]
    i = harvest[0]
    t2.pas[i].owner, t2.pas[i].native, t2.pas[i].count = 0, "woman", 1
    s2.players[0].long_house["woman"] -= 1
    for j in harvest[1:]:
        t2.pas[j].owner, t2.pas[j].native, t2.pas[j].count = 1, "woman", 1
        s2.territories["H2"].pas[0].count -= 1
    far = s2.territories[ED.map_for(2).flags["english"]["far"]]
    for pa in far.pas:  # the Ghost's women far match those near, so it chooses near
        if pa.kind == "harvest" and sum(q.owner == 1 for q in far.pas if q.kind == "harvest") < len(harvest) - 1:
            pa.owner, pa.native, pa.count = 1, "woman", 1
            s2.territories["H2"].pas[0].count -= 1
    t2.guards[0] = 1
    s2.territories["H1"].guards[0] -= 1
    s2.options = Options(ghost_switch_territory=False)
    ghost_turn(s2, {"kind": "place", "native": "woman"})
    assert t2.guards[0] == 0 and t2.pas[i].owner == 0 and s2.players[0].long_house["warrior"] == 3  # protected


def test_injured_ghost_natives_go_back_to_its_home():
    s = solo()
    reveal(s)
    s.territories["T01"].guards[1] = 1
    s.territories["H2"].guards[1] -= 1
    s.turn.placed = "tile"
    s.turn.pending = [PendingAction("move", 1, "tile")]
    rules.apply(s, M.Move((M.Step("H1", "T01", "attack_guard", target=1),)))
    assert s.home_counts(1)["warrior"] == 7 and sum(s.players[1].long_house.values()) == 0  # W-SOLO-7


def test_restore_removes_the_advanced_tile_and_swaps_turn_order():
    s = solo(3)
    rng = random.Random(3)
    first = s.display[0]
    while s.year == 1:
        rules.apply(s, random_move(s, rng))
    assert first in s.solo.removed and first not in s.display and s.solo.advanced_disk == 1  # W-SOLO-11 2.B
    assert s.turn_order == [1, 0] and s.players[1].mask_space == list(ED.mask_spaces)[1]  # 2.E, 2.C
    while s.year <= 3:
        rules.apply(s, random_move(s, rng))
    assert s.solo.under == [[], [], []]  # year 3: the mask cards go to the bottom of the discard pile


def test_instruction_and_check_observed():
    s = solo()
    reveal(s)
    s.current = 1
    s.turn = Turn(1)
    ins = ghost.instruction(s, ED)
    assert ins["move"] == M.GhostAction() and ins["text"]
    assert ghost.check_observed(s, ins["expected"], ED) == []
    assert ghost.check_observed(s, s, ED) != [] or ins["expected"].territories == s.territories


def test_objectives_and_result_by_difficulty():
    s = solo()
    s.solo.cards = ["A", "C", "E"]
    for oid in ED.objectives:
        objective_met(s, oid, s.players[0].tracks, ED)  # each objective is computable (W-SOLO-14)
    assert objective_met(s, "long_house_4", {}, ED) is False  # 6 natives in the Long House at the start
    s.players[0].long_house = {"warrior": 0, "woman": 0, "hunter": 0}
    s.territories["H1"].guards[0] += 2
    assert objective_met(s, "long_house_4", {}, ED)
    assert objective_met(s, "ghost_outside_5", {}, ED)
    for diff, each in (("easy", 3), ("medium", 2), ("hard", 1)):
        s.solo.difficulty = diff
        r = solo_score(s, ED)
        assert all(o["points"] in (0, each) for o in r["objectives"])  # W-SOLO-12
        assert r["win"] == (r["total"] > r["ghost_total"])


def test_cli_plays_a_whole_solo_game():
    out = subprocess.run([sys.executable, "-m", "assistant.apps.cli", "wendake", "solo", "--seed", "5"], capture_output=True, text=True, check=True).stdout
    assert "Put " in out or "put " in out
    assert "Year 7" in out and "against the Ghost's" in out


def test_check_observed_compares_score_disks_mask_disks_and_ghost_disks():
    """W-SOLO-10 (3) and (1): a missed score step or progress climb shows in check_observed."""
    s = solo()
    ghost_turn(s, {"kind": "climb"})  # put the Ghost on turn with a year card
    s.solo.progress_level = 1
    s.turn = Turn(1)
    ins = ghost.instruction(s, ED)
    expected = ins["expected"]
    assert ghost.check_observed(s, expected, ED) == []
    wrong = expected.copy()
    track = s.solo.score_tracks[0]
    wrong.players[1].tracks[track] += 1  # the Ghost's score disk one space too far
    wrong.players[0].mask_space = "S9"
    wrong.solo.progress_level = 3
    out = ghost.check_observed(s, wrong, ED)
    assert any(f"{track} score disk" in line for line in out)
    assert any("mask disk" in line and "S9" in line for line in out)
    assert any("price tokens" in line for line in out)  # expected level 1 or 2 (a climb), never 3


def test_scoring_results_handles_the_solo_game():
    """W-SOLO-12 through scoring.results: the player's total with objectives, the Ghost's 2 disks, a tie is a loss."""
    s = solo()
    s.solo.cards = ["A", "C", "E"]
    r = results(s)
    mine = solo_score(s, ED)
    me, gh = r["players"]
    assert me["total"] == mine["total"] and gh["total"] == mine["ghost_total"] and gh["ghost"]
    assert gh["total"] == sum(s.players[1].tracks[t] for t in s.solo.score_tracks)
    assert r["winner"] == "Ghost" and r["ranking"] == ["Ghost", "You"] and r["solo"]["win"] is False
    # make it a tie: the player's pairs come to exactly the Ghost's total
    for t in s.players[0].tracks:
        s.players[0].tracks[t] = 0
    s.players[0].swap_tokens = 0
    need = gh["total"] - results(s)["players"][0]["total"]
    s.players[0].swap_tokens = need
    r = results(s)
    assert r["players"][0]["total"] == r["players"][1]["total"] and r["winner"] == "Ghost" and "W-SOLO-12" in r["tie_break"]
    s.players[0].swap_tokens = need + 1
    assert results(s)["winner"] == "You" and results(s)["solo"]["win"]
    assert results(s, include_turtles=False)["players"][0]["total"] == need + 1 + results(s)["players"][0]["objective_points"]
