"""``vision.stacks``: whether a stack looks different since the board's last emitted observation, on a drawn Iwari
map (a stack drawn as turned blocks with a carved mark, the upper one leaning out as a taller stack does away from
the camera)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from assistant.table.observation import CHANGED
from calibration import layout as lay
from calibration.render import render_board
from vision.locate import view_matrix
from vision.observe import Observer
from vision.stacks import CHANGED_MM2, SURE, StackWatch, confidence, stack_regions

PX = 3.0  # the drawn frame: board mm -> pixels, straight from above
MAP = lay.resolve("iwari-standard")
REGIONS = stack_regions(MAP)
T02 = "totem.T02"
KEY = f"iwari-standard/{T02}{CHANGED}"
BOARD = render_board(MAP, PX)


def _block(img, centre, angle: float, colour, side_mm: float = 14.0) -> None:
    (cx, cy), s = centre, side_mm * PX
    box = cv2.boxPoints(((cx * PX, cy * PX), (s, s), angle))
    cv2.fillConvexPoly(img, np.round(box).astype(np.int32), colour, cv2.LINE_AA)
    a = np.radians(angle)  # a carved mark on the top face, turned with the block
    mark = (int(round(cx * PX + 3 * PX * np.cos(a))), int(round(cy * PX + 3 * PX * np.sin(a))))
    cv2.circle(img, mark, int(1.5 * PX), (30, 30, 30), -1, cv2.LINE_AA)


def _frame(blocks, shift_px: int = 0, light: int = 0, seed: int = 0) -> np.ndarray:
    """The map with T02's stack of ``blocks`` ((dx mm, dy mm, angle, BGR), bottom first), noise, a light change and
    the whole picture shifted by ``shift_px`` (a board pose a little off)."""
    img = BOARD.copy()
    x, y, _ = REGIONS[T02]
    for dx, dy, angle, colour in blocks:
        _block(img, (x + dx, y + dy), angle, colour)
    img = np.roll(img, shift_px, axis=1).astype(np.int16) + light
    img += np.random.default_rng(seed).normal(0, 2.0, img.shape).round().astype(np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


RED, BLUE = (40, 40, 200), (200, 80, 40)
ONE = [(0.0, 0.0, 10.0, RED)]


def _changed(before, after):
    """The change reading of ``after`` after ``before`` went out in an observation."""
    watch = StackWatch([MAP])
    H = view_matrix(PX)  # board mm -> frame pixels
    visible = set(REGIONS)
    assert KEY not in watch.read("iwari-standard", before, H, visible)  # no earlier look: no change reading
    watch.emitted("iwari-standard", {})
    return watch.read("iwari-standard", after, H, visible)[KEY], watch


def test_only_the_layouts_top_of_stack_regions_are_watched():
    assert set(REGIONS) == {r["id"] for r in MAP["regions"] if r["id"].startswith("totem.")} and len(REGIONS) > 5
    assert stack_regions(lay.resolve("wendake-village-1")) == {}


@pytest.mark.parametrize(
    "second",
    [
        [*ONE, (1.5, 1.0, 55.0, RED)],  # a red totem on red: the top keeps its colour
        [*ONE, (1.5, 1.0, 55.0, BLUE)],  # another tribe's on top
    ],
)
def test_a_totem_put_on_the_stack_is_a_change(second):
    read, _ = _changed(_frame(ONE), _frame(second, seed=1))
    assert read.value is True and read.confidence >= 0.6


@pytest.mark.parametrize("shift_px,light", [(0, 0), (2, 0), (0, 12), (-3, -10)])
def test_noise_light_and_a_pose_a_little_off_are_no_change(shift_px, light):
    read, _ = _changed(_frame(ONE), _frame(ONE, shift_px=shift_px, light=light, seed=2))
    assert read.value is False and read.confidence >= 0.6


def test_a_repeated_observation_says_unchanged_and_later_reads_compare_with_the_last_one_emitted():
    before, after = _frame(ONE), _frame([*ONE, (1.5, 1.0, 55.0, RED)], seed=1)
    read, watch = _changed(before, after)
    repeated = watch.emitted("iwari-standard", {KEY: read, "iwari-standard/S01": read})
    assert repeated[KEY].value is False and repeated["iwari-standard/S01"] is read
    assert watch.read("iwari-standard", after, view_matrix(PX), set(REGIONS))[KEY].value is False


def test_a_region_out_of_view_gets_no_reading_and_confidence_grows_away_from_the_threshold():
    watch = StackWatch([MAP])
    H = view_matrix(PX)
    watch.read("iwari-standard", _frame(ONE), H, set(REGIONS))
    watch.emitted("iwari-standard", {})
    assert KEY not in watch.read("iwari-standard", _frame(ONE), H, set(REGIONS) - {T02})
    assert confidence(CHANGED_MM2) == 0 and confidence(0.0) == SURE and confidence(3 * CHANGED_MM2, quality=0.5) == 0.5


def test_the_observer_sends_a_look_when_only_a_stack_changed():
    """A totem put on a stack of its own colour changes no piece reading: the change reading alone makes the observer
    send a look, and the same table seen on sends none."""
    ob = Observer([MAP], threads=1)
    before, after = _frame(ONE), _frame([*ONE, (1.5, 1.0, 55.0, RED)], seed=1)
    sent = []
    for k, img in enumerate([before] * 8 + [after] * 8 + [after] * 4):
        obs = ob.process(k, 0.1 * k, img).observation
        if obs is not None:
            sent.append({key: r.value for key, r in obs.readings.items() if key.endswith(CHANGED)})
    assert len(sent) == 2 and sent[0] == {}, sent  # the first look has nothing to compare with
    assert sent[1][KEY] is True and not any(v for key, v in sent[1].items() if key != KEY), sent


def test_a_tent_put_beside_the_circle_is_no_change_but_a_totem_at_its_edge_is():
    """Only the pixels near the stack count: a tent reaching 23 mm from a circle's centre (the nearest tent spaces'
    edges lie 27 mm from one in every Iwari layout) changes nothing there, though 66 mm² of the patch; a stack
    standing at its circle's edge, where a piece was detected, does."""
    x, y, _ = REGIONS[T02]
    tent = BOARD.copy()
    cv2.circle(tent, (int((x + 31) * PX), int(y * PX)), int(8 * PX), BLUE, -1, cv2.LINE_AA)
    watch = StackWatch([MAP])
    H = view_matrix(PX)
    watch.read("iwari-standard", _frame(ONE), H, set(REGIONS))
    watch.emitted("iwari-standard", {})
    with_tent = _frame(ONE, seed=3)
    with_tent[tent != BOARD] = tent[tent != BOARD]
    assert watch.read("iwari-standard", with_tent, H, set(REGIONS))[KEY].value is False

    edge = [(12.0, 0.0, 10.0, RED)]
    spot = {T02: (x + 12.0, y)}
    watch = StackWatch([MAP])
    watch.read("iwari-standard", _frame(edge), H, set(REGIONS), spots=spot)
    watch.emitted("iwari-standard", {})
    read = watch.read("iwari-standard", _frame([*edge, (14.0, 1.0, 55.0, RED)], seed=4), H, set(REGIONS), spots=spot)[KEY]
    assert read.value is True and read.confidence >= 0.6
