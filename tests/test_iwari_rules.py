"""Iwari's turn rules (I-TURN, I-2P, I-COMP) through ``assistant.iwari.rules``: spec §12's derived vectors I-EX-1,
I-EX-4 (both readings), I-EX-5 and I-EX-6, and one test per violation a table can commit, each with its rule ID.
The journey (half journey, end, feats, expeditions) is in test_iwari_journey.py."""

from __future__ import annotations

import json

import pytest
from iwari_helpers import finish_turn, game, give, play, rules_of, supply, tent, totem

from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.edition import load_edition
from assistant.iwari.edits import conceal
from assistant.iwari.generate import legal_moves
from assistant.iwari.moves import InvalidMoveError, move_from_json, move_to_json


# ---- components (I-COMP, I-EX-1) -----------------------------------------------------------------------------
@pytest.mark.parametrize("n, cards", [(2, 47), (3, 47), (4, 52), (5, 57)])
def test_i_ex_1_deck_sizes(n, cards):
    """I-EX-1: 57 cards in the box; 52 with 4 players, 47 with 2 or 3 (I-COMP-2); 5 players remove none (inferred).
    Every card is dealt, in the display or in the deck."""
    ed = load_edition()
    assert sum(ed.cards.values()) == 57
    assert sum(ed.cards_for(n).values()) == cards
    s = game(n)
    assert len(s.deck) + len(s.display) + sum(len(h) for h in s.hands) == cards
    assert all(len(h) == 3 for h in s.hands) and len(s.display) == ed.display_size


def test_two_players_share_a_third_tribe():
    """I-2P-1: a 2-player game has a third tribe with its own colour and its own pieces."""
    s = game(2)
    assert len(s.tribes) == 3 and len(set(s.tribes)) == 3 and s.third == 2
    assert game(3).third is None


# ---- the regular move (I-TURN-1..6) ------------------------------------------------------------------------------
def test_a_first_tent_opens_a_territory_and_is_its_only_piece():
    """I-TURN-2: in an unexplored territory only one tent; a second piece there is refused, naming I-TURN-2."""
    s = game()
    give(s, 0, "forest", "forest", "forest")
    play(s, M.Place("tent", "T02", ("forest",), "S05"))
    v = rules.check(s, M.Place("tent", "T02", ("forest",), "S06"))
    assert rules_of(v) == ["I-TURN-2"]
    assert rules_of(rules.check(s, M.Place("totem", "T02", ("forest",)))) == ["I-TURN-2"]


def test_no_totem_goes_into_an_unexplored_territory():
    """I-TURN-2 (derived with I-TURN-5): the first piece in a territory is a tent, never a totem."""
    s = game()
    give(s, 0, "forest", "desert", "desert")
    assert "I-TURN-2" in rules_of(rules.check(s, M.Place("totem", "T02", ("forest",))))


def test_up_to_two_pieces_in_an_explored_territory():
    """I-TURN-3: 2 tents, 2 totems or one of each in an explored territory; a third piece is refused."""
    s = game()
    tent(s, "S05", 1)
    give(s, 0, "forest", "forest", "forest")
    play(s, M.Place("tent", "T02", ("forest",), "S06"), M.Place("tent", "T02", ("forest",), "S07"))
    assert "I-TURN-3" in rules_of(rules.check(s, M.Place("totem", "T02", ("forest",))))


def test_pieces_in_two_territories_in_one_turn_are_refused():
    """I-TURN-1: all the pieces of a turn go into one territory."""
    s = game()
    tent(s, "S05", 1)
    tent(s, "S32", 1)
    give(s, 0, "forest", "forest", "forest")
    play(s, M.Place("tent", "T02", ("forest",), "S06"))
    v = rules.check(s, M.Place("tent", "T08", ("forest",), "S33"))
    assert rules_of(v) == ["I-TURN-1"] and "T02" in v[0].fix


def test_a_tent_on_an_occupied_space_is_refused():
    """I-TURN-4: a tent goes on an empty tent space of its territory."""
    s = game()
    tent(s, "S05", 1)
    give(s, 0, "forest", "forest", "forest")
    v = rules.check(s, M.Place("tent", "T02", ("forest",), "S05"))
    assert rules_of(v) == ["I-TURN-4"] and "S06" in v[0].fix
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("forest",), "S10"))) == ["I-TURN-4"]
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("forest",)))) == ["I-TURN-4"]


def test_more_pieces_than_the_tribe_has_are_refused():
    """I-COMP-3 with I-NIT-2: a tribe places only the tents and totems of its supply."""
    s = game()
    tent(s, "S05", 0)
    supply(s, 0, tents=0, totems=0)
    give(s, 0, "forest", "forest", "forest")
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("forest",), "S06"))) == ["I-COMP-3"]
    assert rules_of(rules.check(s, M.Place("totem", "T02", ("forest",)))) == ["I-COMP-3"]


def test_a_totem_above_the_tent_majority_is_refused():
    """I-TURN-5: the totem stack is capped at the territory's tent majority."""
    s = game()
    tent(s, "S05", 1)
    totem(s, "T02", 1)
    give(s, 0, "forest", "forest", "forest")
    v = rules.check(s, M.Place("totem", "T02", ("forest",)))
    assert rules_of(v) == ["I-TURN-5"] and "1" in v[0].message


def test_a_tent_placed_first_raises_the_cap_for_the_totem():
    """I-TURN-5 engine: pieces resolve one at a time in the player's order; a tent first raises the cap."""
    s = game()
    tent(s, "S05", 0)
    totem(s, "T02", 1)
    give(s, 0, "forest", "forest", "forest")
    assert rules_of(rules.check(s, M.Place("totem", "T02", ("forest",)))) == ["I-TURN-5"]
    play(s, M.Place("tent", "T02", ("forest",), "S06"), M.Place("totem", "T02", ("forest",)))
    assert s.stacks["T02"] == [1, 0]


@pytest.mark.parametrize("reading", ["A", "B"])
def test_i_ex_4_totem_cap_under_both_readings(reading):
    """I-EX-4: tents A = 3, B = 1 and a stack of 1. Reading A: either player may add totems up to 3 high. Reading
    B: B cannot add one (the stack is at B's 1); A may add up to 3."""
    a, b = 0, 1
    for placer, room in ((a, 2), (b, 2 if reading == "A" else 0)):
        s = game(totem_cap=reading)
        s.first = s.current = s.turn.player = placer
        for space in ("S05", "S06", "S07"):
            tent(s, space, a)
        tent(s, "S08", b)
        totem(s, "T02", b)
        give(s, placer, "forest", "forest", "forest")
        for _ in range(room):
            play(s, M.Place("totem", "T02", ("forest",)))
        assert len(s.stacks["T02"]) == 1 + room
        v = rules.check(s, M.Place("totem", "T02", ("forest",)))
        assert "I-TURN-5" in rules_of(v)


def test_i_ex_5_payments():
    """I-EX-5: a tent and a totem in a forest territory with {forest, desert, desert}: the forest card pays one
    piece, the desert pair the other, in either order. With {desert, desert, coast} two pieces cannot be paid: the
    second would need another pair."""
    for order in ((("forest",), ("desert", "desert")), (("desert", "desert"), ("forest",))):
        s = game()
        tent(s, "S05", 1)
        give(s, 0, "forest", "desert", "desert")
        play(s, M.Place("tent", "T02", order[0], "S06"), M.Place("totem", "T02", order[1]))
        assert s.hands[0] == [] and sorted(s.played) == ["desert", "desert", "forest"]
    s = game()
    tent(s, "S05", 1)
    give(s, 0, "desert", "desert", "coast")
    play(s, M.Place("tent", "T02", ("desert", "desert"), "S06"))
    assert not [m for m in legal_moves(s) if isinstance(m, M.Place)]
    assert rules_of(rules.check(s, M.Place("totem", "T02", ("coast",)))) == ["I-TURN-6"]
    assert "I-TURN-1" in rules_of(rules.check(s, M.Place("totem", "T02", ("coast", "coast"))))


def test_bad_payments_are_refused_with_the_rule():
    """I-TURN-6: one off-colour card, a 'pair' holding the territory's colour, a mixed pair under reading A, cards
    the hand does not hold; a mixed pair is legal under reading B."""
    s = game()
    give(s, 0, "desert", "coast", "forest")
    for cards in (("desert",), ("forest", "desert"), ("desert", "coast"), ("tundra",)):
        assert "I-TURN-6" in rules_of(rules.check(s, M.Place("tent", "T02", cards, "S05"))), cards
    s = game(pair="B")
    give(s, 0, "desert", "coast", "forest")
    assert rules.check(s, M.Place("tent", "T02", ("desert", "coast"), "S05")) == []


def test_more_than_three_cards_are_refused():
    """I-TURN-1: up to 3 cards a regular move; two pairs (4 cards) cannot be paid (I-TURN-6 derived)."""
    s = game()
    tent(s, "S05", 1)
    give(s, 0, "desert", "desert", "coast")
    play(s, M.Place("tent", "T02", ("desert", "desert"), "S06"))
    s.hands[0].append(s.deck.pop(max(i for i, c in enumerate(s.deck) if c == "coast")))  # a 4th card, as if misdealt
    s.hand_size = 4
    assert "I-TURN-1" in rules_of(rules.check(s, M.Place("totem", "T02", ("coast", "coast"))))


def test_check_reports_every_broken_rule_at_once():
    """check returns every violation, each with its ID, a message and a fix."""
    s = game()
    tent(s, "S05", 1)
    give(s, 0, "forest", "forest", "forest")
    play(s, M.Place("tent", "T02", ("forest",), "S06"), M.Place("tent", "T02", ("forest",), "S07"))
    v = rules.check(s, M.Place("tent", "T08", ("desert",), "S05"))
    assert {"I-TURN-1", "I-TURN-3", "I-TURN-4", "I-TURN-6"} <= set(rules_of(v))
    assert all(x.message and x.rule.startswith("I-") for x in v)
    with pytest.raises(rules.IllegalMoveError) as err:
        rules.apply(s, M.Place("tent", "T08", ("desert",), "S05"))
    assert "I-TURN-1" in str(err.value)


# ---- the refill and the swap (I-TURN-7, I-TURN-8) -----------------------------------------------------------------
def test_refill_from_the_deck_and_the_display():
    """I-TURN-7: after the move, draw back up to 3 from the deck or the display; a display card is replaced from
    the deck at once; no more than 3; the turn ends only once the hand is full."""
    s = game()
    give(s, 0, "tundra", "tundra", "tundra")
    assert rules_of(rules.check(s, M.Draw())) == ["I-TURN-7"]  # nothing placed yet
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert rules_of(rules.check(s, M.EndTurn())) == ["I-TURN-7"]
    taken, top = s.display[1], s.deck[-1]
    play(s, M.Draw(2, refill=top))
    assert s.hands[0][-1] == taken and s.display[1] == top
    assert rules_of(rules.check(s, M.Draw(2, refill="glaciers" if s.deck[-1] != "glaciers" else "coast"))) == ["I-TURN-7"]
    assert rules_of(rules.check(s, M.Place("tent", "T01", ("tundra",), "S02"))) == ["I-TURN-1"]
    play(s, M.EndTurn())
    assert s.current == 1 and s.discard == ["tundra"] and s.played == []


def test_a_full_hand_draws_no_more():
    """I-TURN-7: up to 3 cards."""
    s = game()
    give(s, 0, "tundra", "desert", "desert")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"), M.Draw())
    assert rules_of(rules.check(s, M.Draw())) == ["I-TURN-7"]


def test_card_swap_instead_of_a_move():
    """I-TURN-8: discard one card and draw one instead of a regular move: not after a placement, one draw only."""
    s = game()
    give(s, 0, "tundra", "desert", "coast")
    play(s, M.Swap("coast"))
    assert rules_of(rules.check(s, M.Place("tent", "T01", ("tundra",), "S01"))) == ["I-TURN-1"]
    assert rules_of(rules.check(s, M.EndTurn())) == ["I-TURN-8"]
    play(s, M.Draw())
    assert rules_of(rules.check(s, M.Draw())) == ["I-TURN-8"]
    play(s, M.EndTurn())
    assert s.discard == ["coast"] and len(s.hands[0]) == 3
    s = game()
    give(s, 0, "tundra", "desert", "coast")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert rules_of(rules.check(s, M.Swap("coast"))) == ["I-TURN-8"]
    s = game()
    give(s, 0, "tundra", "desert", "desert")
    assert rules_of(rules.check(s, M.Swap("coast"))) == ["I-TURN-8"]  # not a card of the hand


def test_a_turn_is_passed_only_when_nothing_can_be_done():
    """I-TURN-1: a turn is a regular move or a card swap; ending it with neither is refused while one is possible."""
    s = game()
    assert rules_of(rules.check(s, M.EndTurn())) == ["I-TURN-1"]


# ---- two players (I-2P, I-EX-6) ----------------------------------------------------------------------------------
def test_i_ex_6_the_third_tribe_moves_with_the_cards_left():
    """I-EX-6: 1 card for one tent; the 2 cards left pay a third-tribe move (a pair for one piece, or two matching
    cards for two pieces); only then does the player refill to 3."""
    s = game(2)
    give(s, 0, "tundra", "desert", "desert")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"), M.Place("tent", "T02", ("desert", "desert"), "S05", third=True))
    assert s.tents == {"S01": 0, "S05": 2} and s.hands[0] == []
    play(s, M.Draw(), M.Draw(), M.Draw())
    assert len(s.hands[0]) == 3
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("desert", "desert"), "S06", third=True))) == ["I-2P-2"]
    s = game(2)
    tent(s, "S17", 1)
    give(s, 0, "tundra", "coast", "coast")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    play(s, M.Place("tent", "T05", ("coast",), "S18", third=True), M.Place("totem", "T05", ("coast",), third=True))
    assert s.stacks["T05"] == [2]


def test_the_third_tribe_does_not_move_after_three_cards():
    """I-2P-3: all 3 cards used, no third-tribe turn; I-2P-2: not before the player's own move; I-2P-1: only with
    2 players."""
    s = game(2)
    give(s, 0, "tundra", "desert", "desert")
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("desert", "desert"), "S05", third=True))) == ["I-2P-2"]
    tent(s, "S02", 1)
    play(s, M.Place("tent", "T01", ("tundra",), "S01"), M.Place("tent", "T01", ("desert", "desert"), "S03"))
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("tundra",), "S05", third=True))) == ["I-2P-3"]
    s = game(3)
    give(s, 0, "tundra", "desert", "desert")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert rules_of(rules.check(s, M.Place("tent", "T02", ("desert", "desert"), "S05", third=True))) == ["I-2P-1"]


# ---- hidden cards ----------------------------------------------------------------------------------------------
def test_unseen_cards_pay_unless_the_table_shows_every_card_of_the_colour():
    """A concealed hand (the tracker's view) pays from unseen cards; a payment in a colour whose every card is in
    sight is refused (I-TURN-6: the visible table contradicts it)."""
    s = game()
    give(s, 0, "tundra", "desert", "desert")
    hidden = conceal(s)
    assert hidden.hands[0] == [None, None, None] and set(hidden.deck) == {None}
    glaciers = hidden.cards["glaciers"]
    hidden.discard = ["glaciers"] * glaciers  # every glaciers card in sight
    hidden.deck = hidden.deck[glaciers:]
    assert rules_of(rules.check(hidden, M.Place("tent", "T03", ("glaciers",), "S10"))) == ["I-TURN-6"]
    play(hidden, M.Place("tent", "T01", ("tundra",), "S01"))
    assert hidden.hands[0] == [None, None] and hidden.played == ["tundra"]
    play(hidden, M.Draw(card="coast"))
    assert "coast" in hidden.hands[0]


# ---- moves as JSON -----------------------------------------------------------------------------------------------
def test_moves_round_trip_and_ill_typed_moves_are_refused():
    """Typed moves: JSON round trips; a move that does not fit its schema is an InvalidMoveError naming the field."""
    for m in (
        M.Place("tent", "T01", ("tundra",), "S01"),
        M.Place("totem", "T02", ("desert", "desert"), third=True),
        M.Draw(),
        M.Draw(2, refill="coast"),
        M.Swap("forest"),
        M.PlaceFeat("honour", "connection:1"),
        M.EndTurn(),
    ):
        assert move_from_json(json.loads(json.dumps(move_to_json(m)))) == m
    for doc, field in (
        ({"type": "place", "piece": "hut", "territory": "T01", "cards": ["tundra"]}, "piece"),
        ({"type": "place", "piece": "tent", "territory": "T01", "cards": []}, "cards"),
        ({"type": "place", "piece": "tent", "territory": "T01", "cards": ["gold"]}, "cards"),
        ({"type": "draw", "slot": 0}, "slot"),
        ({"type": "swap"}, "card"),
        ({"type": "draw", "deck": 1}, "deck"),
        ({"type": "fly"}, "type"),
    ):
        with pytest.raises(InvalidMoveError, match=field):
            move_from_json(doc)
    with pytest.raises(InvalidMoveError):
        rules.check(game(), M.Draw(slot="2"))


def test_finish_turn_helper_passes_the_turn():
    s = game()
    give(s, 0, "tundra", "desert", "desert")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    finish_turn(s)
    assert s.current == 1 and s.turns_taken == [1, 0, 0, 0]
