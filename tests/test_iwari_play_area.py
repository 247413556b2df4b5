"""Iwari's play area as play spaces: the card display prints ``played.1`` ... ``played.K``, each read as a printed
card face (``vision.tiles``, gallery ``iwari-cards``); the observer counts a look's space reads as the ``played``
reading (``observer.played_readings``), whatever spaces the cards lie on, and the explainer adds it to each look, so
a camera that reads only faces follows a game's payments (I-TURN-6) and swaps (I-TURN-8)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from assistant.apps.replay import LOOKS_FILE, evaluate
from assistant.iwari import observer, rules
from assistant.iwari.board import MAX_CARDS
from assistant.iwari.explain import IwariExplainer
from assistant.iwari.generate import random_move
from assistant.iwari.maps import COLOURS
from assistant.iwari.setup import new_game
from assistant.table import game as games
from assistant.table.observation import Reading
from calibration import iwari_layouts as I
from calibration import layout as L
from calibration import render
from tests.perfect_games import NAMES, perfect_recording
from vision.assign import region_pieces
from vision.observe import Observer
from vision.tiles import TILE_KINDS, read_tiles

IWARI = games.get("iwari")
SPACES = [f"played.{i}" for i in range(1, I.PLAY_SPACES + 1)]


def _of_kind(lay: dict, kind: str) -> list[dict]:
    return sorted((r for r in lay["regions"] if r["kind"] == kind), key=lambda r: r["attributes"]["index"])


# ---- the layout -----------------------------------------------------------------------------------------------------
def test_the_display_prints_a_play_space_for_each_card_a_turn_can_lay():
    """One space per card of a regular move (I-TURN-1: up to 3) and one more, each a card's place read as a face,
    at the display slots' size and pitch; the observer finds them through the layout."""
    lay = L.load_builtin("iwari-display")
    spaces, slots = _of_kind(lay, "play_space"), _of_kind(lay, "display_slot")
    assert [r["id"] for r in spaces] == SPACES == observer.play_spaces() and I.PLAY_SPACES == MAX_CARDS + 1
    assert not [r for r in lay["regions"] if r["kind"] == "play_area" or r["id"] == "played"]
    size = lambda r: tuple(np.ptp(np.asarray(r["polygon"]), 0))  # noqa: E731
    assert {size(r) for r in spaces} == {size(r) for r in slots} == {I.SLOT_MM}
    pitch = lambda rs: {round(b["polygon"][0][0] - a["polygon"][0][0], 3) for a, b in zip(rs, rs[1:])}  # noqa: E731
    assert pitch(spaces) == pitch(slots)
    for r in spaces:
        assert r["attributes"] == {"index": int(r["id"][7:]), "pieces": ["card"], "reading": "tile-face", "capacity": 1}
    assert TILE_KINDS["play_space"] == TILE_KINDS["display_slot"] == "iwari-cards"
    assert region_pieces("iwari")["play_space"] == frozenset()  # a card is no piece: a detection there is dropped


def test_the_printed_board_labels_each_play_space():
    """The print art (what ``tablewatch layout render`` prints) writes each space's label inside it."""
    lay = L.load_builtin("iwari-display")
    bare = json.loads(json.dumps(lay))
    for r in bare["regions"]:
        if r["kind"] == "play_space":
            r["label"] = ""
    k = 3.0
    printed, unlabelled = render.render_board(lay, k), render.render_board(bare, k)
    for r in _of_kind(lay, "play_space"):
        (x0, y0), (x1, y1) = r["polygon"][0], r["polygon"][2]
        inside = (slice(int(y0 * k) + 3, int(y1 * k) - 3), slice(int(x0 * k) + 3, int(x1 * k) - 3))
        assert (printed[inside] != unlabelled[inside]).any(), r["id"]
        assert r["label"] == f"played {r['attributes']['index']}"


# ---- the tile reader reads the play spaces --------------------------------------------------------------------------
# how each card lies (degrees turned, mm off the space's middle): within what the card gallery holds (turned up to 2
# degrees, centred): a card 3 mm or more off centre is read wrong now and then (docs/layouts.md, the play area).
ASKEW = [(2.0, (1.0, -1.0)), (-1.5, (-1.5, 0.5)), (1.0, (0.5, 1.5)), (-2.0, (-1.0, -1.5))]


def _display_with(played: dict[str, str], k: float, light: float = 1.0):
    """The iwari-display board rendered at ``k`` px/mm with the display's first slots full and ``played`` ({space:
    colour}) face up, each card turned and moved a little as a hand leaves it (``ASKEW``), under a light ``light``
    as bright."""
    lay = L.load_builtin("iwari-display")
    img = render.render_board(lay, k)
    regions = {r["id"]: r for r in lay["regions"]}
    for n, colour in enumerate(("coast", "desert"), 1):
        render.draw_card(img, regions[f"slot.{n}"]["polygon"], colour, k, I.CARD_MM, 1.5, (0.5, -1.0))
    for (space, colour), (turn, at) in zip(played.items(), ASKEW):
        render.draw_card(img, regions[space]["polygon"], colour, k, I.CARD_MM, turn, at)
    return lay, np.clip(img.astype(np.float32) * light, 0, 255).astype(np.uint8)


PLAYS = [
    {},
    {"played.1": "forest"},
    {"played.3": "tundra", "played.2": "tundra"},
    {"played.4": "glaciers", "played.1": "desert", "played.2": "coast"},
]


@pytest.mark.parametrize("k, light", [(2.0, 1.0), (2.5, 0.8)])
@pytest.mark.parametrize("played", PLAYS, ids=["none", "one", "two", "three"])
def test_the_tile_reader_reads_each_play_space(played, k, light):
    lay, img = _display_with(played, k, light)
    reads = read_tiles(img, k, lay)
    assert {s: reads[s].value for s in SPACES} == {s: played.get(s) for s in SPACES}
    assert reads["slot.1"].value == "coast" and reads["slot.3"].value is None


def test_the_camera_reads_the_play_area_the_observer_expects():
    """A position with 3 cards played, rendered and read by the camera side (``Observer.read_view``, the detector
    included): the explainer's readings of that look give the ``played`` count the observer expects."""
    state = new_game(NAMES[:3], seed=5)
    moves = random.Random(5)
    while len(state.played) < 2:
        rules.apply(state, random_move(state, moves))
    lay, img = _display_with(dict(zip(("played.4", "played.2", "played.3"), state.played)), 2.0)
    readings = Observer([lay]).read_view("iwari-display", img, 2.0)
    weighed = IwariExplainer(None).readings(readings)
    assert weighed[observer.PLAYED].value == observer.expected_readings(state)[observer.PLAYED] != ()
    assert weighed[observer.PLAY_AREA] == Reading(observer.expected_readings(state)[observer.PLAY_AREA], 1.0)
    assert all(readings[f"iwari-display/{s}"].value == () for s in SPACES)  # a card is no piece


# ---- the played reading, from the space reads -----------------------------------------------------------------------
def _reads(colours: list, confidences=None) -> dict[str, Reading]:
    confidences = confidences or [0.9] * len(colours)
    return {observer.play_space_key(i): Reading(c, p) for i, (c, p) in enumerate(zip(colours, confidences), 1)}


def test_every_space_read_gives_the_played_count_at_the_lowest_confidence():
    got = observer.played_readings(_reads(["forest", None, "forest", "coast"], [0.9, 0.8, 0.4, 1.0]))
    assert got[observer.PLAYED] == Reading((("card:coast", 1), ("card:forest", 2)), 0.4)
    # how many cards lie there is as sure as the spaces' card-or-bare reads, not their colours: the bare space's 0.8
    assert got[observer.PLAY_AREA] == Reading((("card", 3),), 0.8)
    bare = observer.played_readings(_reads([None] * 4, [1.0] * 4))
    assert bare == {observer.PLAYED: Reading((), 1.0), observer.PLAY_AREA: Reading((), 1.0)}


def test_a_card_read_unsurely_is_a_card_unless_the_bare_space_is_close_behind():
    reads = _reads(["tundra", None, None, None], [0.3, 1.0, 1.0, 1.0])
    reads[observer.play_space_key(1)] = Reading("tundra", 0.3, (("forest", 0.3),))
    assert observer.played_readings(reads)[observer.PLAY_AREA] == Reading((("card", 1),), 1.0)
    reads[observer.play_space_key(1)] = Reading("tundra", 0.3, (("forest", 0.3), (None, 0.45)))
    assert observer.played_readings(reads)[observer.PLAY_AREA] == Reading((("card", 1),), 0.45)


def test_the_order_of_the_cards_on_the_spaces_does_not_matter():
    a = observer.played_readings(_reads(["glaciers", "desert", None, None]))
    b = observer.played_readings(_reads([None, None, "desert", "glaciers"]))
    c = observer.played_readings(_reads(["desert", None, "glaciers", None]))
    assert a == b == c
    assert a[observer.PLAYED] == Reading((("card:desert", 1), ("card:glaciers", 1)), 0.9)


def test_one_space_unread_gives_no_played_reading():
    reads = _reads(["forest", None, None, "tundra"])
    del reads[observer.play_space_key(2)]  # a hand over it
    assert observer.played_readings(reads) == {}
    assert observer.played_readings({}) == {}


def test_the_explainer_adds_the_played_reading_and_keeps_one_given():
    other = {"iwari-display/slot.1#tile": Reading("forest", 0.8)}
    weighed = IwariExplainer(None).readings({**other, **_reads(["tundra", None, None, None])})
    assert (
        weighed[observer.PLAYED] == Reading((("card:tundra", 1),), 0.9)
        and weighed["iwari-display/slot.1#tile"] == other["iwari-display/slot.1#tile"]
    )
    given = Reading((("card:coast", 2),), 0.7)
    weighed = IwariExplainer(None).readings({**_reads(["tundra", None, None, None]), observer.PLAYED: given})
    assert weighed[observer.PLAYED] == given
    assert weighed[observer.PLAY_AREA] == Reading((("card", 2),), 0.7)  # the count of the reading given
    assert IwariExplainer(None).readings(other) == other  # no play space read: nothing added


def test_the_observer_expects_the_play_area_count_not_the_spaces():
    state = new_game(NAMES[:3], seed=2)
    moves = random.Random(2)
    while not state.played:
        rules.apply(state, random_move(state, moves))
    expected = observer.expected_readings(state)
    assert expected[observer.PLAYED] == tuple(sorted((f"card:{c}", state.played.count(c)) for c in set(state.played)))
    assert not [k for k in expected if "/played." in k]
    assert observer.region_kind(observer.play_space_key(1)) == "tile-face"
    assert {c for c in state.played} <= set(COLOURS)


# ---- a game seen through a camera that reads the play spaces only -----------------------------------------------
def _space_reads(readings: dict, rng: random.Random) -> dict:
    """A perfect camera's readings with the play area read as its spaces: the turn's cards on spaces drawn at
    random, the ``played`` and ``play-area`` counts left out."""
    out = {k: v for k, v in readings.items() if k not in (observer.PLAYED, observer.PLAY_AREA)}
    cards = [c for key, n in readings[observer.PLAYED] for c in [key.split(":")[1]] * n]
    spaces = rng.sample(range(1, I.PLAY_SPACES + 1), I.PLAY_SPACES)
    for i, space in enumerate(spaces):
        out[observer.play_space_key(space)] = cards[i] if i < len(cards) else None
    return out


def _space_recording(folder, players: int, seed: int, limit: int) -> int:
    """``tests.perfect_games.perfect_recording`` with each look's play area read as its spaces only; the number of
    looks that show played cards."""
    shown = perfect_recording(folder, IWARI, players, seed, limit, reads=_space_reads)
    return sum(readings[observer.PLAYED] != () for readings in shown)


@pytest.mark.parametrize("players, seed", [(2, 3), (4, 7)])
def test_a_game_read_through_the_play_spaces_alone_is_followed(tmp_path, players, seed):
    shown = _space_recording(tmp_path / "g", players, seed, limit=60)
    looks = [json.loads(line) for line in (tmp_path / "g" / LOOKS_FILE).read_text().splitlines()]
    assert shown >= 5 and not [lk for lk in looks if observer.PLAYED in lk["readings"]]
    res = evaluate([tmp_path / "g"], tracker_only=True)
    game = res["per_game"][0]
    assert game["turns"] >= 4 and game["turns_exact"] == game["turns"], game
    assert res["log_equal_share"] == 1.0 and res["false_alerts_per_20_legal_games"] == 0.0
