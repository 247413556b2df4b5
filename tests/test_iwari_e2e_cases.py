"""Cases from the rendered Iwari games (``tablewatch e2e --game iwari``): a tracker fed the looks a camera gave
there, so that no illegal table is explained by a legal-looking line (issue 35)."""

from __future__ import annotations

from iwari_helpers import game, give, look, spaces_look, tent, totem

from assistant.iwari.edits import conceal
from assistant.iwari.observer import PLAY_AREA, PLAYED, expected_readings, play_space_key, play_spaces
from assistant.iwari.table_game import Iwari
from assistant.table.evidence import reading_error
from assistant.table.observation import Observation, Reading
from assistant.table.session import GameSession
from assistant.table.tracker import Tracker

IWARI = Iwari()


def test_a_totem_over_the_majority_is_not_explained_by_an_unseen_totem_on_the_movers_own_stack():
    """iwari_5p_s1004, frame 338: a red totem put on another tribe's stack over the tent majority (I-TURN-5), its top
    read red just below the alert confidence, two cards in the play area. The mover's own stack elsewhere, topped
    red already, would hide a legal totem paid with those cards; but all of a turn's pieces go into one territory
    (I-TURN-1) and the look shows the mover's piece in another one, so that line does not explain the look."""
    s = game()
    tent(s, "S01", 0)
    tent(s, "S02", 0)
    totem(s, "T01", 0)  # Ann's stack, her top: a second totem there shows nothing
    tent(s, "S05", 1)
    totem(s, "T02", 1)  # Bob's stack, one tent: a second totem breaks the majority
    give(s, 0, "forest", "forest", "coast")
    tracker = Tracker(conceal(s), game=IWARI)
    readings = expected_readings(s)
    readings["iwari-standard/totem.T02"] = (("totem:red", 1),)
    readings[PLAYED] = (("card:forest", 2),)
    events = look(tracker, readings, {"iwari-standard/totem.T02": 0.59})
    kinds = [e.kind for e in events]
    assert "MoveRecognized" not in kinds, [e.to_json() for e in events]
    alerts = [e for e in events if e.kind == "IllegalMove"]
    assert alerts and alerts[0].rule == "I-TURN-5", [e.to_json() for e in events]


def _tied_pair_look(played_1: Reading) -> list:
    """iwari_2p_s9, frame 12: Ann pays a tent in T01 (tundra) with a desert pair, the first card read glaciers just
    ahead of desert (``played_1``), the second desert, unsurely, with no runner-up listed."""
    s = game(2)
    give(s, 0, "desert", "desert", "coast")  # her hand known (cards taken from the display): no tundra card
    tracker = Tracker(s, game=IWARI)
    # the spaces tell the play area
    readings = {k: Reading(v, 1.0) for k, v in expected_readings(s).items() if k not in (PLAYED, PLAY_AREA)}
    readings["iwari-standard/S01"] = Reading((("tent:" + s.tribes[0], 1),), 1.0)
    spaces = play_spaces()
    readings[play_space_key(1)] = played_1
    readings[play_space_key(2)] = Reading("desert", 0.45)
    for i in range(3, len(spaces) + 1):
        readings[play_space_key(i)] = Reading(None, 1.0)
    return tracker.observe(Observation(1, 1.0, readings))


def test_a_pair_read_as_a_near_tie_is_followed():
    """A play space read below the alert confidence, its runner-up listed close behind, may show the runner-up: the
    desert pair that turns it explains the look, one step behind, and no I-TURN-6 alert is raised."""
    events = _tied_pair_look(Reading("glaciers", 0.26, (("desert", 0.2563),)))
    assert not [e for e in events if e.kind in ("IllegalMove", "TableOutOfSync")], [e.to_json() for e in events]
    moves = [m for e in events if e.kind == "MoveRecognized" for m in e.moves]
    assert [(m["territory"], m["cards"]) for m in moves if m["type"] == "place"] == [("T01", ["desert", "desert"])]


def test_a_sure_or_far_read_still_contradicts_the_payment():
    """The same look with the first card read glaciers surely, or unsurely with its runner-up far behind: no pair
    the play area shows pays in T01, an IllegalMove naming I-TURN-6."""
    for read in (Reading("glaciers", 0.9, (("desert", 0.9),)), Reading("glaciers", 0.55, (("desert", 0.55),))):
        events = _tied_pair_look(read)
        assert "MoveRecognized" not in [e.kind for e in events], [e.to_json() for e in events]
        alerts = [e for e in events if e.kind == "IllegalMove"]
        assert alerts and alerts[0].rule == "I-TURN-6", [e.to_json() for e in events]


def test_cards_read_unsurely_still_count_in_the_play_area():
    """iwari_3p_s1002, frame 195: Ann's tent paid with a tundra card read unsurely, then her totem in a second
    territory (I-TURN-1) paid with a glaciers card, read unsurely too. Three made-up turns (two swaps of glaciers,
    her totem paid with it) explained the look while the colours were weighed alone, as if the tundra card had gone.
    A card on a play space is surely no bare space, whatever its colour: two cards lie there, not one."""
    s = game(3)
    tent(s, "S10", 0)  # Ann's tent in T03 (glaciers): room for one totem there
    give(s, 0, "tundra", "glaciers", "coast")
    tracker = Tracker(conceal(s), game=IWARI)
    red = (("tent:red", 1),)
    tundra = Reading("tundra", 0.35, (("forest", 0.35),))
    first = tracker.observe(spaces_look(s, {"iwari-standard/S01": red}, [tundra]))
    moves = [m for e in first if e.kind == "MoveRecognized" for m in e.moves]
    assert [(m["type"], m.get("space")) for m in moves] == [("place", "S01")], [e.to_json() for e in first]
    glaciers = Reading("glaciers", 0.45, (("coast", 0.45),))
    changes = {"iwari-standard/S01": red, "iwari-standard/totem.T03": (("totem:red", 1),)}
    events = tracker.observe(spaces_look(s, changes, [tundra, glaciers]))
    assert "MoveRecognized" not in [e.kind for e in events], [e.to_json() for e in events]
    alerts = [e for e in events if e.kind == "IllegalMove"]
    assert alerts and alerts[0].rule == "I-TURN-1", [e.to_json() for e in events]


def test_a_play_area_difference_says_how_many_cards_lie_there():
    """The words of a play-area difference an alert lists: how many cards the play area should hold and holds."""
    x = Tracker(game(3), game=IWARI).x
    text = x.put_back(PLAY_AREA, (("card", 2),), (("card", 1),))["text"]
    assert "play area: should hold 2 cards, holds 1" in text


def _ann_tops_t02():
    """A 3-player game where Ann tops T02 (forest) with her totem, her 2 tents there leaving room for one more, and
    holds a forest card: a second totem of hers there would not show from above."""
    s = game(3)
    tent(s, "S05", 0)
    tent(s, "S06", 0)
    totem(s, "T02", 0)
    give(s, 0, "forest", "glaciers", "coast")
    return s


def test_a_totem_on_its_tribes_own_top_or_a_swap_is_asked():
    """One card laid that matches a territory the mover tops already, nothing else changed: a totem on that stack
    (its height does not show from above) or a card swap (I-TURN-8). The stack's height scores (I-TOT-2), so the
    tablet asks which it was."""
    s = _ann_tops_t02()
    tracker = Tracker(conceal(s), game=IWARI)
    events = tracker.observe(spaces_look(s, {}, [Reading("forest", 1.0)]))
    asks = [e for e in events if e.kind == "NeedsConfirmation"]
    assert asks, [e.to_json() for e in events]
    kinds = {tuple(m["type"] for m in c["moves"])[:1] for c in asks[0].candidates}
    assert {("place",), ("swap",)} <= kinds, asks[0].candidates


def test_a_card_read_as_a_near_tie_pays_the_turn_that_shows_it():
    """iwari_5p_s20, frame 48: Ann's tent in T01 (tundra) paid with a tundra card read desert, tundra close behind.
    Her turn ended unseen and Bob's swap of a desert card explained the look exactly, the one card standing for two
    turns'; later turns then lost their cards. A card the play area shows only as a near tie pays a piece of the
    turn that lies there: that turn does not end within the look."""
    s = game(3)
    give(s, 0, "tundra", "glaciers", "coast")
    tracker = Tracker(conceal(s), game=IWARI)
    card = Reading("desert", 0.25, (("tundra", 0.2525), ("coast", 0.36)))
    events = tracker.observe(spaces_look(s, {"iwari-standard/S01": (("tent:red", 1),)}, [card]))
    moves = [(e.player, m["type"]) for e in events if e.kind == "MoveRecognized" for m in e.moves]
    assert moves == [(0, "place")], [e.to_json() for e in events]


def test_a_past_look_passes_only_a_pile_read_one_off_as_noise():
    """What a re-read takes for noise in an earlier look (``Explainer.near_miscount``): a feat pile read one short,
    not a tent read where the line has none (I-TURN-4); in the play area, whose cards are each surely told from a
    bare space, no card more or fewer (cards laid ahead of their piece are a turn in progress, below)."""
    x = Tracker(game(3), game=IWARI).x
    feats = (("feat:none:honour", 2),), (("feat:none:honour", 1),)
    assert x.near_miscount("iwari-standard/feat.T01", reading_error(*feats), *feats)
    tent_read = (("tent:red", 1),), ()
    assert not x.near_miscount("iwari-standard/S01", reading_error(*tent_read), *tent_read)
    for cards in ((("card", 2),), (("card", 1),)), ((("card", 1),), (("card", 2),)):
        assert not x.near_miscount(PLAY_AREA, reading_error(*cards), *cards)


def _ask_then_bobs_totem(answer: str | None) -> list:
    """Ann lays a forest card and nothing shows (a totem on her own stack in T02, or a swap); the players answer the
    ask with ``answer`` ("place" or "swap", None: not at all); her turn ends; Bob puts a blue totem on T02, legal only
    if Ann swapped (the stack's height is capped by her 2 tents there, I-TURN-5). The events of Bob's look."""
    s = _ann_tops_t02()
    tracker = Tracker(conceal(s), game=IWARI)
    events = tracker.observe(spaces_look(s, {}, [Reading("forest", 1.0)]))
    ask = next(e for e in events if e.kind == "NeedsConfirmation")
    if answer is not None:
        tracker.confirm(next(c["index"] for c in ask.candidates if c["moves"][0]["type"] == answer))
    tracker.observe(spaces_look(s, {}, []))  # her turn over: the card gone
    blue = {"iwari-standard/totem.T02": (("totem:blue", 1),)}
    return tracker.observe(spaces_look(s, blue, [Reading("forest", 1.0)]))


def test_a_stack_height_the_players_confirmed_flags_a_totem_over_the_majority():
    """Answered "a totem": Bob's totem breaks the majority, an IllegalMove naming I-TURN-5. Unanswered, the camera
    cannot tell the two apart, and the earlier turn is re-read as the swap that makes Bob's totem legal."""
    events = _ask_then_bobs_totem("place")
    alerts = [e for e in events if e.kind == "IllegalMove"]
    assert alerts and alerts[0].rule == "I-TURN-5", [e.to_json() for e in events]
    assert "IllegalMove" not in [e.kind for e in _ask_then_bobs_totem("swap")]
    unanswered = _ask_then_bobs_totem(None)
    assert [e.kind for e in unanswered][:1] == ["Correction"], [e.to_json() for e in unanswered]


def test_the_tablet_says_why_it_asks_about_an_unseen_totem(tmp_path):
    """The stack-height ask through a session, as the tablet reads it (the snapshot's alert ``tablet`` words): it says
    that such a totem does not show from above and that the height counts (I-TOT-2), with both candidates."""
    s = _ann_tops_t02()
    session = GameSession.create(str(tmp_path / "g.sqlite"), players=["Ann", "Bob", "Cy"], game="iwari", initial=conceal(s))
    session.feed(spaces_look(s, {}, [Reading("forest", 1.0)]))
    snap = session.snapshot()
    ask = next(a for a in snap["alerts"] if a["kind"] == "NeedsConfirmation")
    assert "does not show from above" in ask["tablet"]["message"] and "I-TOT-2" in ask["tablet"]["message"]
    texts = [" ".join(c["moves"]) for c in snap["confirmation"]["candidates"]]
    assert any("totem" in t for t in texts) and any("swaps" in t for t in texts), texts
    session.close()


def _cards_then_tent(cards: list) -> tuple[list, list, Tracker]:
    """Ann lays ``cards`` (Readings) in the play area and the camera sees them settle before she reaches for her tent;
    then the tent stands on S01 (T01, tundra). The events of both looks, and the tracker."""
    s = game(3)
    give(s, 0, "tundra", "desert", "desert")
    tracker = Tracker(conceal(s), game=IWARI)
    first = tracker.observe(spaces_look(s, {}, cards))
    second = tracker.observe(spaces_look(s, {"iwari-standard/S01": (("tent:red", 1),)}, cards))
    return first, second, tracker


def test_cards_laid_ahead_of_their_piece_raise_no_alert():
    """A pair laid before the tent: no move shows them yet and no rule is broken, so the tracker waits (no alert,
    however many looks); the tent then is paid with them."""
    pair = [Reading("desert", 0.5), Reading("desert", 0.6)]
    first, second, tracker = _cards_then_tent(pair)
    assert not [e for e in first if e.kind in ("IllegalMove", "TableOutOfSync")], [e.to_json() for e in first]
    assert not [e for e in second if e.kind in ("IllegalMove", "TableOutOfSync")], [e.to_json() for e in second]
    place = [m for m in tracker.moves if IWARI.move_to_json(m)["type"] == "place"]
    assert [(m.space, tuple(m.cards)) for m in place] == [("S01", ("desert", "desert"))]


def test_one_card_laid_ahead_of_its_piece_is_a_payment_once_the_piece_shows():
    """One card laid first looks like a card swap (I-TURN-8); when the tent follows, the turn is re-read as the tent
    paid with that card, no alert."""
    first, second, tracker = _cards_then_tent([Reading("tundra", 0.9)])
    assert not [e for e in first + second if e.kind in ("IllegalMove", "TableOutOfSync")], [e.to_json() for e in second]
    assert [IWARI.move_to_json(m)["type"] for m in tracker.moves] == ["place"], tracker.moves
