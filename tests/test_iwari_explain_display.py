"""Iwari's explainer reads the card display as printed card faces (``iwari-display/slot.N#tile``, through
``observer.shown_card``): a new face in a slot is a card drawn from it (I-TURN-7), and a payment the visible display
contradicts is an alert naming I-TURN-6."""

from __future__ import annotations

from iwari_helpers import game as new
from iwari_helpers import give, play

from assistant.iwari import moves as M
from assistant.iwari.edits import conceal
from assistant.iwari.observer import DISPLAY_BOARD, expected_readings, region_kind, slot_key
from assistant.iwari.table_game import Iwari
from assistant.table.evidence import Look
from assistant.table.observation import Observation, Reading
from assistant.table.tracker import Tracker

IWARI = Iwari()
ALERTS = ("IllegalMove", "TableOutOfSync")


def look(tracker: Tracker, k: int, readings: dict) -> list:
    """The tracker's events for a look reading ``readings``, every one surely."""
    return tracker.observe(Observation(k, float(k), {key: Reading(v, 1.0) for key, v in readings.items()}))


def test_the_display_is_read_only_as_printed_card_faces():
    readings = expected_readings(new(4))
    display = sorted(k for k in readings if k.startswith(DISPLAY_BOARD + "/slot."))
    assert display and all(region_kind(k) == "tile-face" and k.endswith("#tile") for k in display)


def test_a_new_card_face_in_a_display_slot_is_explained_as_the_draw():
    """Ann places a tent paid with a tundra card, then takes display slot 2's card; the deck's top card, of another
    colour, turns up there. The look shows the new face (the slot's ``#tile`` key, nothing else of the display):
    the tracker logs the draw from slot 2 with that refill, and no alert."""
    s = new(4)
    give(s, 0, "tundra", "forest", "desert")
    old = s.display[1]
    i = max(i for i, c in enumerate(s.deck) if c != old)  # a card of another colour on top of the deck
    s.deck.append(s.deck.pop(i))
    refill = s.deck[-1]
    tracker = Tracker(conceal(s), game=IWARI)
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    assert not [e for e in look(tracker, 1, expected_readings(s)) if e.kind in ALERTS]
    play(s, M.Draw(2))
    readings = expected_readings(s)
    assert readings[slot_key(2)] == refill != old and f"{DISPLAY_BOARD}/slot.2" not in readings
    # the explainer's candidates: slot 2 seen turned to the new card, the slots still showing theirs not taken
    items = Look((k, v, 1.0) for k, v in readings.items())
    draws = [
        (m, pref)
        for m, pref, _ in tracker.x.candidates(tracker.node(tracker.state, (), items, 0), items)
        if isinstance(m, M.Draw) and m.slot is not None
    ]
    assert draws and draws[0] == (M.Draw(2, refill=refill), 0) and {m.slot for m, _ in draws} == {2}, draws
    events = look(tracker, 2, readings)
    assert not [e for e in events if e.kind in ALERTS], [e.to_json() for e in events]
    assert M.Draw(2, refill=refill) in tracker.moves and tracker.state.display == s.display


def _glaciers_in_sight(on_display: int):
    """A concealed 4-player game whose glaciers cards are all in sight but one per display slot not showing one:
    ``on_display`` of them face up in the display, the rest in the discard pile."""
    s = conceal(new(4))
    s.display = ["glaciers"] * on_display + [c if c != "glaciers" else "tundra" for c in s.display[on_display:]]
    s.discard = ["glaciers"] * (s.cards["glaciers"] - on_display)
    s.deck = s.deck[len(s.discard) :]
    return s


def test_a_payment_the_display_contradicts_raises_an_alert_naming_its_rule():
    """Every glaciers card lies face up, two of them in the display (read as printed faces): a tent in the glaciers
    territory T03 paid with a glaciers card from Ann's hidden hand is one the display contradicts (I-TURN-6). With
    one of those two display cards another colour (an unseen glaciers card left), the same look is legal."""
    for on_display, illegal in ((2, True), (1, False)):
        s = _glaciers_in_sight(on_display)
        if not illegal:
            s.discard.pop()
            s.deck.append(None)
        readings = expected_readings(s)
        assert [readings[slot_key(n)] for n in (1, 2)].count("glaciers") == on_display
        readings[f"iwari-{s.map.name}/S10"] = (("tent:" + s.tribes[0], 1),)
        readings[f"{DISPLAY_BOARD}/played"] = (("card:glaciers", 1),)
        events = look(Tracker(s, game=IWARI), 1, readings)
        alerts = [e for e in events if e.kind in ALERTS]
        if illegal:
            assert alerts and alerts[0].kind == "IllegalMove" and alerts[0].rule == "I-TURN-6", [e.to_json() for e in events]
            assert "glaciers" in alerts[0].message and "display" in alerts[0].message
        else:
            assert not alerts, [e.to_json() for e in events]


def _after_a_tent_with_slot_3_read(conf: float, runner_up: float):
    """Ann's tent placed, and a look reading it with display slot 3 read as another colour at ``conf``, its true
    colour a runner-up ``runner_up`` behind (``Reading.others``): (the tracker's moves, alerts, the colour read)."""
    s = new(4)
    give(s, 0, "tundra", "forest", "desert")
    tracker = Tracker(conceal(s), game=IWARI)
    play(s, M.Place("tent", "T01", ("tundra",), "S01"))
    wrong = next(c for c in ("desert", "coast") if c != s.display[2])
    readings = {k: Reading(v, 1.0) for k, v in expected_readings(s).items()}
    readings[slot_key(3)] = Reading(wrong, conf, ((s.display[2], runner_up),))
    events = tracker.observe(Observation(1, 1.0, readings))
    return tracker.moves, [e for e in events if e.kind in ALERTS], wrong


def test_a_display_face_read_weakly_names_no_card():
    """A display face read below 0.1 (``TILE_NAMED``, as Wendake's tile faces), its true colour a close runner-up,
    is no evidence of a draw: Ann's tent alone is logged. Read at 0.4, the new face is the draw from slot 3."""
    tent = M.Place("tent", "T01", ("tundra",), "S01")
    moves, alerts, _ = _after_a_tent_with_slot_3_read(0.05, 0.02)
    assert moves == [tent] and not alerts
    moves, alerts, wrong = _after_a_tent_with_slot_3_read(0.4, 0.02)
    assert moves == [tent, M.Draw(3, refill=wrong)] and not alerts
