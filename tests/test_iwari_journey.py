"""The journey of an Iwari game through ``assistant.iwari.rules``: the half journey on the deck's first exhaustion
(I-HALF), the end on the second or a tribe out of tents with the round finished (I-END), the winner (I-END-4), the
optional feats (I-FEAT) and expeditions (I-EXP), random playouts at every player count, and the edition data the
owner can correct (I-NIT)."""

from __future__ import annotations

import json
import random

import pytest
from iwari_helpers import NAMES, finish_turn, game, give, new_turn, play, rules_of, supply, tent, totem

from assistant.apps.bench_rules import main as bench_rules
from assistant.errors import UserError
from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.edition import load_edition, provenance_report
from assistant.iwari.edits import apply_edit, conceal
from assistant.iwari.generate import legal_moves, random_move
from assistant.iwari.invariants import invariant_errors
from assistant.iwari.scoring import score
from assistant.iwari.setup import new_game
from assistant.iwari.state import State


def run_out(s, keep: int) -> None:
    """Move all but ``keep`` deck cards to the discard pile (as if played earlier)."""
    s.discard += s.deck[keep:] if keep == 0 else s.deck[:-keep]
    s.deck = s.deck[-keep:] if keep else []


# ---- half journey (I-HALF) ---------------------------------------------------------------------------------------
def test_half_journey_when_the_last_card_is_drawn():
    """I-HALF-1/2: the draw that takes the deck's last card exhausts it: the discard pile becomes the new deck, the
    display is unchanged, tents (only, I-HALF-3) are scored at once; the turn finishes its refill from the new deck."""
    s = game()
    tent(s, "S05", 1)
    tent(s, "S06", 1)
    tent(s, "S22", 2)
    tent(s, "S03", 3)
    totem(s, "T02", 1)
    give(s, 0, "tundra", "tundra", "desert")
    run_out(s, 1)
    pile = sorted(s.discard)
    play(s, M.Place("tent", "T01", ("tundra",), "S01"), M.Place("tent", "T01", ("tundra",), "S02"))
    display = list(s.display)
    play(s, M.Draw())
    assert s.exhaustions == 1 and s.end is None and s.display == display
    assert sorted(s.deck) == pile and s.discard == []
    expected = score(s.map, s.tribes, s.tents_by_colour(), s.totem_counts(), {}, final=False).totals
    assert s.scores == [expected[c] for c in s.tribes] == [3, 2, 1, 2]  # T01: Ann 2 tents of 3, Di 1; T02: Bob; T06: Cy
    assert s.half["scoring"] == "half" and s.half["totems"] == {}
    play(s, M.Draw())
    assert len(s.deck) == len(pile) - 1


def test_a_display_refill_can_exhaust_the_deck():
    """I-HALF-1 with I-TURN-7: the card turned up into the display is the deck's last: the half journey follows."""
    s = game()
    give(s, 0, "tundra", "tundra", "desert")
    run_out(s, 1)
    play(s, M.Place("tent", "T01", ("tundra",), "S01"), M.Draw(1, refill=s.deck[-1]))
    assert s.exhaustions == 1 and s.half is not None


# ---- end of the journey (I-END) ------------------------------------------------------------------------------
def test_second_exhaustion_ends_the_journey_after_the_round():
    """I-END-1/2: the second exhaustion triggers the end; the round is finished so every player had the same
    number of turns, then the final scoring (I-END-3) and the winner (I-END-4)."""
    s = game()
    s.first = s.current = s.turn.player = 1  # Bob first: Ann's turn is the round's last
    s.exhaustions, s.half = 1, {"scoring": "half"}
    give(s, 1, "coast", "coast", "desert")
    run_out(s, 1)
    play(s, M.Place("tent", "T01", ("coast", "coast"), "S01"), M.Draw())
    assert s.end == "deck" and s.deck == [] and s.phase == "play"
    play(s, M.Draw(3), M.EndTurn())  # the deck is gone: the display only
    for _ in range(3):  # Cy, Di, Ann
        p = s.current
        play(s, M.Swap(s.hands[p][0]), M.Draw(next(i for i, c in enumerate(s.display, 1) if c)), M.EndTurn())
    assert s.phase == "over" and s.turns_taken == [1, 1, 1, 1]
    assert s.final["scoring"] == "final" and s.winners and s.tie_break
    assert rules_of(rules.check(s, M.EndTurn())) == ["I-END-3"]


def test_no_deck_draw_after_the_second_exhaustion():
    """I-END-2 engine: once the deck is gone for good, draws come from the display only, and a slot taken stays
    empty."""
    s = game()
    s.exhaustions, s.half, s.end = 2, {"scoring": "half"}, "deck"
    give(s, 0, "tundra", "tundra", "desert")
    run_out(s, 0)
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert rules_of(rules.check(s, M.Draw())) == ["I-END-2"]
    assert rules_of(rules.check(s, M.Draw(1, refill="coast"))) == ["I-END-2"]
    play(s, M.Draw(1))
    assert s.display[0] is None
    assert rules_of(rules.check(s, M.Draw(1))) == ["I-TURN-7"]


def test_a_tribe_out_of_tents_triggers_the_end():
    """I-END-1: a player with no tents left triggers the end; the round is still finished (I-END-2)."""
    s = game()
    supply(s, 0, tents=1)
    give(s, 0, "tundra", "tundra", "desert")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert s.end == "tents" and s.phase == "play"
    finish_turn(s)
    for _ in range(3):
        p = s.current
        play(s, M.Swap(s.hands[p][0]), M.Draw(), M.EndTurn())
    assert s.phase == "over" and s.turns_taken == [1, 1, 1, 1]


def test_the_third_tribe_out_of_tents_does_not_end_the_journey():
    """I-2P-4 (not in text; engine, edition data): the third tribe's tents running out ends nothing."""
    s = game(2)
    supply(s, 2, tents=1)
    give(s, 0, "tundra", "desert", "desert")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"), M.Place("tent", "T02", ("desert", "desert"), "S05", third=True))
    assert s.tents_left[2] == 0 and s.end is None


def test_winner_tie_break_on_unused_pieces():
    """I-END-4: tied on points, the most unused pieces (tents + totems) wins; the third tribe never wins (I-2P-4)."""
    s = game(2)
    s.exhaustions, s.half, s.end = 1, {"scoring": "half"}, "deck"
    s.first = s.current = s.turn.player = 1
    tent(s, "S01", 0)
    tent(s, "S05", 1)
    tent(s, "S10", 2)
    tent(s, "S11", 2)
    totem(s, "T02", 1)  # Bob has one piece fewer in supply
    play(s, M.Swap(s.hands[1][0]), M.Draw(), M.EndTurn())
    assert s.phase == "play"
    play(s, M.Swap(s.hands[0][0]), M.Draw(), M.EndTurn())
    assert s.phase == "over" and s.scores[0] == s.scores[1]
    assert s.winners == [0] and "unused" in s.tie_break


# ---- feats (I-FEAT) ----------------------------------------------------------------------------------------------
def test_discovery_is_earned_by_filling_a_territory_and_placed_at_once():
    """I-FEAT-2: the tent on a territory's last free space earns Discovery, placed at once (I-FEAT-5) in any other
    territory; its factor counts at half journey (I-FEAT-6)."""
    s = game(feats=True)
    for space in ("S10", "S11"):
        tent(s, space, 1)
    tent(s, "S01", 0)
    give(s, 0, "glaciers", "tundra", "tundra")
    play(s, M.Place("tent", "T03", ("glaciers",), "S12"))
    assert [p["feat"] for p in s.pending] == ["discovery"]
    assert rules_of(rules.check(s, M.Draw())) == ["I-FEAT-5"]
    assert rules_of(rules.check(s, M.PlaceFeat("discovery", "T03"))) == ["I-FEAT-2"]
    assert rules_of(rules.check(s, M.PlaceFeat("union", "T01"))) == ["I-FEAT-5"]
    play(s, M.PlaceFeat("discovery", "T01"))
    assert s.feats == {"T01": 1} and s.feat_supply["discovery"] == 1 and s.pending == []


def test_union_for_a_first_settlement_and_one_feat_of_a_kind():
    """I-FEAT-1: completing a settlement (4 tents joined by paths, I-SETL-1) earns Union, placed in a territory the
    settlement covers; a player earns one feat of each kind (I-FEAT-5 engine)."""
    s = game(feats=True)
    for space in ("S01", "S02", "S03"):
        tent(s, space, 0)
    give(s, 0, "tundra", "tundra", "tundra")
    play(s, M.Place("tent", "T01", ("tundra",), "S04"))
    assert [p["feat"] for p in s.pending] == ["discovery", "union"]
    assert s.pending[1]["options"] == ("T01",)
    play(s, M.PlaceFeat("discovery", "T02"), M.PlaceFeat("union", "T01"))
    assert s.feats == {"T01": 1, "T02": 1}
    for space in ("S10", "S11"):
        tent(s, space, 1)
    new_turn(s, 0)
    give(s, 0, "glaciers", "tundra", "tundra")
    play(s, M.Place("tent", "T03", ("glaciers",), "S12"))  # fills T03, joins nothing: no second Discovery
    assert s.pending == [] and s.feat_supply == {"union": 1, "discovery": 1, "honour": 1, "respect": 1}


def test_honour_for_the_first_totem_majority_on_a_land_connection():
    """I-FEAT-3: the first player to hold the totem majority in both territories of a land connection places
    Honour on that connection (I-NIT-9); mountains earn nothing."""
    s = game(feats=True)
    tent(s, "S01", 0)
    tent(s, "S05", 0)
    totem(s, "T01", 0)
    give(s, 0, "forest", "tundra", "tundra")
    play(s, M.Place("totem", "T02", ("forest",)))
    assert s.pending == [{"tribe": 0, "feat": "honour", "options": ("connection:1",)}]
    play(s, M.PlaceFeat("honour", "connection:1"))
    assert s.feats == {"connection:1": 1} and s.feat_supply["honour"] == 0


def test_feats_are_off_unless_chosen():
    """I-FEAT is an optional module."""
    s = game()
    for space in ("S01", "S02", "S03"):
        tent(s, space, 0)
    give(s, 0, "tundra", "tundra", "tundra")
    play(s, M.Place("tent", "T01", ("tundra",), "S04"))
    assert s.pending == []


# ---- expeditions (I-EXP) -----------------------------------------------------------------------------------------
def test_expeditions_given_as_data_score_first_and_second(tmp_path, monkeypatch):
    """I-EXP-1/2: the first tribe to complete a mission scores the first circle at once, the second the second,
    nobody else. The cards are edition data (I-NIT-10: not in the text)."""
    own = {
        "expeditions": {
            "cards": [{"id": "E1", "mission": {"kind": "tents", "n": 2}, "points": [5, 3]}],
            "source": "unknown",
            "rule": "I-NIT-10",
            "note": "test cards",
        }
    }
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(own))
    monkeypatch.setenv("TABLEWATCH_IWARI_EDITION", str(path))
    s = new_game(NAMES[:3], seed=1, first=0, expeditions=True)
    give(s, 0, "tundra", "tundra", "tundra")
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert s.scores == [0, 0, 0]
    tent(s, "S05", 0)
    tent(s, "S06", 1)
    tent(s, "S07", 1)
    tent(s, "S08", 2)
    new_turn(s, 0)
    give(s, 0, "tundra", "tundra", "tundra")
    play(s, M.Place("tent", "T02", ("tundra", "tundra"), "S09"))  # Ann completes it first
    new_turn(s, 2)
    give(s, 2, "forest", "forest", "forest")
    play(s, M.Place("tent", "T08", ("forest",), "S32"))  # Cy: 2 tents, second
    assert s.scores == [5, 0, 3]
    assert s.expeditions[0]["done"] == [0, 2]


# ---- random playouts ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"feats": True, "totem_cap": "B", "pair": "B"}])
def test_random_playouts_end_and_keep_their_invariants(n, options):
    """A seeded random game at every player count ends, every state keeps its invariants, every random move
    checks clean and a sample of states agrees with legal_moves; the final scoring names a winner."""
    for seed in range(3):
        rng = random.Random(seed)
        s = new_game(NAMES[:n], seed=seed, **options)
        for k in range(3000):
            if s.phase == "over":
                break
            assert invariant_errors(s) == [], k
            m = random_move(s, rng)
            assert rules.check(s, m) == [], (k, m)
            if k % 40 == 0:
                assert m in list(legal_moves(s)) or isinstance(m, M.Draw), m
            rules.apply(s, m, validate=False)
        assert s.phase == "over" and invariant_errors(s) == []
        assert s.exhaustions >= 1 and s.half and s.final and s.winners
        assert len(set(s.turns_taken)) == 1
        assert State.from_json(json.loads(json.dumps(s.to_json()))) == s


def test_apply_is_deterministic():
    """The same moves from the same state give the same state (the half journey's shuffle is in the state)."""
    rng = random.Random(3)
    a = new_game(NAMES[:3], seed=9)
    b = a.copy()
    while a.phase != "over":
        m = random_move(a, rng)
        rules.apply(a, m)
        rules.apply(b, m)
    assert a == b


# ---- hidden information ------------------------------------------------------------------------------------------
def test_edits_name_hidden_cards_within_the_game():
    """apply_edit names cards of a concealed hand or deck; naming more cards of a colour than the game holds fails."""
    s = conceal(game())
    apply_edit(s, {"op": "hands", "hands": [["tundra", None, None], [None] * 3, [None] * 3, [None] * 3]})
    assert s.hands[0][0] == "tundra"
    too_many = ["desert"] * len(s.deck)
    with pytest.raises(ValueError, match="desert"):
        apply_edit(s, {"op": "deck", "deck": too_many})
    assert set(s.deck) == {None}
    with pytest.raises(ValueError):
        apply_edit(s, {"op": "hands", "hands": [["tundra"]]})


# ---- edition data (I-NIT) ----------------------------------------------------------------------------------------
def test_edition_facts_have_provenance_and_the_owner_can_correct_them(tmp_path, monkeypatch):
    """Every fact the text does not give is marked inferred or unknown with its I-NIT rule; an owner's file
    replaces facts one by one; a fact without provenance is refused with a one-line message."""
    report = {r["fact"]: r for r in provenance_report(load_edition())}
    assert report["pieces"]["source"] == "unknown" and report["pieces"]["rule"] == "I-NIT-2"
    assert report["display"]["source"] == "unknown" and report["hand_size"]["source"] == "inferred"
    assert "cards" not in report and "removal" not in report  # rulebook facts
    path = tmp_path / "iwari-edition.json"
    path.write_text(json.dumps({"pieces": {"value": {"tents": 15, "totems": 6}, "source": "rulebook", "rule": "I-NIT-2"}}))
    monkeypatch.setenv("TABLEWATCH_EDITION_DIR", str(tmp_path))
    s = new_game(NAMES[:4], seed=1)
    assert s.supply[0] == [15, 6] and len(s.display) == 4
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"pieces": {"value": {"tents": 15, "totems": 6}}}))
    monkeypatch.setenv("TABLEWATCH_IWARI_EDITION", str(bad))
    with pytest.raises(UserError, match="provenance"):
        new_game(NAMES[:4], seed=1)


def test_set_up_refuses_what_does_not_fit():
    """A player count outside I-NIT-1, twin names or colours, an unknown map are UserErrors with one line."""
    with pytest.raises(UserError, match="2, 3, 4 or 5"):
        new_game(["Ann"])
    with pytest.raises(UserError, match="same name"):
        new_game(["Ann", "Ann"])
    with pytest.raises(UserError, match="colour"):
        new_game(["Ann", "Bob"], colours=["red", "red"])
    with pytest.raises(UserError, match="map"):
        new_game(["Ann", "Bob"], map="atlantis")


# ---- the benchmark -----------------------------------------------------------------------------------------------
def test_bench_rules_plays_iwari_games(capsys):
    """``tablewatch bench rules --game iwari`` plays random Iwari games and prints the per-game figures."""
    assert bench_rules(["--game", "iwari", "--games", "3", "--players", "5"]) == 0
    out = capsys.readouterr().out
    assert "game: iwari; games: 3 x 5 players" in out and "ms per game" in out
