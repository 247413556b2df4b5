"""Iwari seen through the camera side: the observer's display slots are printed card faces read by the tile reader
against the ``iwari-cards`` gallery, and what the tile reader reads is what the observer expects."""

from __future__ import annotations

from assistant.iwari import observer
from assistant.iwari.setup import new_game
from assistant.table.game import REGION_KINDS


def test_display_slots_are_card_faces():
    state = new_game(["Ann", "Bo", "Cy"], seed=3)
    readings = observer.expected_readings(state)
    for slot, colour in enumerate(state.display, 1):
        key = observer.slot_key(slot)
        assert key == f"iwari-display/slot.{slot}#tile" and readings[key] == colour
        assert observer.region_kind(key) == "tile-face"
    kinds = {observer.region_kind(k) for k in readings}
    assert kinds <= set(REGION_KINDS) and {"tile-face", "top-of-stack", "count"} <= kinds


def test_a_card_face_read_maps_to_the_card_key():
    key = observer.slot_key(2)
    assert observer.shown_card({key: "forest"}, 2) == (("card:forest", 1),)
    assert observer.shown_card({key: None}, 2) == ()  # read empty
    assert observer.shown_card({}, 2) is None  # not read
    # the perfect camera's two forms of a slot agree
    state = new_game(["Ann", "Bo"], seed=1)
    readings = observer.expected_readings(state)
    for slot in range(1, len(state.display) + 1):
        assert observer.shown_card(readings, slot) == readings[f"iwari-display/slot.{slot}"]
