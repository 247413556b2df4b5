"""Settle on a skin-coloured table (issue 34): a board lying on a pink-red cloth, a tan wooden table or a
skin-toned cloth, seen with the table along two sides (the pose a little off) and a brown beaver pile 8 mm from
its edge (e2e game 4p s3, village 1), is read from the first still frame, and a hand drawn by the scene
generator over the same board is still a hand, on the first frame and after a read. A board printed in wood
tones around its spaces while the layout's art is white there, and a large skin-coloured area that never moves,
do not hold a board back for a whole game."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import layout as lay
from calibration.render import render_board
from models.synth.effects import hands
from vision import settle as S

PX = 0.5  # the settle view's scale (``SettleConfig.px_per_mm``)
CLOTHS = {  # BGR, grain: the pink-red cloth is e2e game 4p s3's, sampled from its frame 0
    "pink-red cloth": ((85, 83, 179), False),
    "tan wood": ((95, 150, 200), True),
    "skin-toned cloth": ((150, 180, 225), False),
}
HAND_SEEDS = (0, 2, 3)  # bare arms reaching in from the left (dark, light and lightest skin); seed 1 is sleeved


def art():
    return render_board(lay.resolve("wendake-village-1"), PX)


def table(cloth: str, shape, rng) -> np.ndarray:
    colour, grain = CLOTHS[cloth]
    h, w = shape
    tex = 1 + rng.normal(0, 0.03, (h, w))
    if grain:
        tex += 0.08 * np.repeat(rng.normal(0, 1, (h, 1)), w, 1)
    return np.clip(tex[..., None] * np.array(colour, float), 0, 255).astype(np.uint8)


def camera_view(board_art: np.ndarray, cloth: str, shift=(4, 8), seed: int = 0) -> np.ndarray:
    """The board as the camera shows it: the pose off by ``shift`` pixels (8-10 mm), so the table shows along the
    top and left sides and in the last row, a beaver pile 8 mm from the bottom edge, a wooden piece, a warm cast
    and sensor noise."""
    h, w = board_art.shape[:2]
    dx, dy = shift
    v = table(cloth, (h, w), np.random.default_rng(7))  # the same table in every frame
    v[dy:h - 1, dx:] = board_art[:h - dy - 1, :w - dx]  # the last row stays table
    cv2.ellipse(v, (166, 136), (12, 8), 35, 0, 360, (60, 95, 136), -1)  # the beaver pile, as in 4p s3
    cv2.circle(v, (60, 60), 5, (70, 120, 180), -1)  # a wooden piece
    noise = np.random.default_rng(seed).normal(0, 1.5, v.shape)
    return np.clip(v * np.array([0.87, 0.93, 1.0]) + noise, 0, 255).astype(np.uint8)


def with_hand(view: np.ndarray, seed: int) -> np.ndarray:
    out = view.copy()
    hands(out, np.random.default_rng(seed), 1, PX, np.array([0.6, 0.8]))
    return out


@pytest.mark.parametrize("cloth", list(CLOTHS))
def test_a_board_on_a_skin_coloured_table_is_read_from_the_first_still_frame(cloth):
    a = art()
    st = S.Settler(art={"b": a})
    v = camera_view(a, cloth)
    assert st.update("b", v, 0.0).reason == S.MOTION
    r = st.update("b", camera_view(a, cloth, seed=1), 0.4)  # the same table, new sensor noise
    assert r.settled and not r.warnings


@pytest.mark.parametrize("cloth", list(CLOTHS))
def test_a_hand_over_a_board_on_a_skin_coloured_table_is_still_a_hand(cloth):
    """First frames with a hand held still over the board (nothing settled yet), then the hand goes: the board is
    read as soon as it is still; a hand coming back over it is a hand again."""
    a = art()
    v = camera_view(a, cloth)
    for seed in HAND_SEEDS:
        st = S.Settler(art={"b": a})
        held = with_hand(v, seed)
        for t in (0.0, 0.4, 0.8):
            r = st.update("b", held, t)
            assert not r.settled and r.reason == S.HAND, (seed, t)
        st.update("b", v, 1.2)
        r = st.update("b", v, 1.6)
        assert r.settled, seed
        st.mark_read("b", v)
        st.update("b", held, 2.0)
        r = st.update("b", held, 2.4)
        assert not r.settled and r.reason == S.HAND, seed


def test_a_skin_toned_print_whose_art_is_not_is_read_and_hands_over_it_are_caught_after():
    """A real board printed on wood tones around its spaces while the layout's art is white there: a skin-coloured
    lattice from side to side, where the colour test cannot see a hand. Before the first read it is the board's
    own print, not a hand; from the read on, an arm over it is caught by what changed."""
    a = art()
    board = a.copy()
    board[np.all(a > 250, axis=2)] = (120, 165, 205)  # the print around the spaces (30 % of the board)
    st = S.Settler(art={"b": a})
    st.update("b", board, 0.0)
    r = st.update("b", board, 0.4)
    assert r.settled
    st.mark_read("b", board)
    for seed in HAND_SEEDS:
        arm = with_hand(board, seed)
        st.update("b", arm, 1.0)
        r = st.update("b", arm, 1.4)
        assert not r.settled and r.reason == S.HAND, seed
        st.update("b", board, 2.0)
        assert st.update("b", board, 2.4).settled


def test_a_large_skin_coloured_area_that_never_moves_is_read_in_the_end():
    """Something skin-coloured and arm-sized across the edge that lies exactly still is the table (a wooden tray, a
    cloth fold over the board): it waits ``skin_accept_s`` and is then read, with a warning, rather than hiding the
    board for the whole game. A still arm is not read before that."""
    a = art()
    v = a.copy()
    cv2.rectangle(v, (0, 40), (70, 100), (95, 150, 200), -1)  # 140 x 120 mm of wood across the left edge
    st = S.Settler(art={"b": a})
    for t in (0.0, 0.4, 5.0, 19.0):
        r = st.update("b", v, t)
        assert not r.settled and r.reason == S.HAND and r.blob_mm2 > st.config.hand_accept_mm2
    r = st.update("b", v, 20.5)
    assert r.settled


def test_skin_coloured_print_is_read_although_hands_come_and_go_over_the_board():
    """A board whose real print is skin-coloured along its margin where the layout's art is not (the foreign-table
    set's lacquer map: the map was "hand" in all 120 first frames of table 101 game 1) is read once that area has
    read skin in most frames for ``skin_accept_s``, even though hands come and go over the board meanwhile (so it
    never lies still that long); a hand coming in after that is still a hand."""
    a = art()
    v = a.copy()
    v[:18, :] = (95, 150, 200)  # a 36 mm wood-toned margin along the top edge, printed on this copy only
    v[:, :14] = (95, 150, 200)  # and down the left side
    st = S.Settler(art={"b": a})
    held = with_hand(v, 0)
    t, settled_at = 0.0, None
    for k in range(40):  # a hand every fourth frame, 0.8 s apart
        r = st.update("b", held if k % 4 == 3 else v, t)
        if r.settled and settled_at is None:
            settled_at = t
            st.mark_read("b", v)
        t += 0.8
    assert settled_at is not None and settled_at >= st.config.skin_accept_s, settled_at
    r = st.update("b", held, t)
    assert not r.settled and r.reason == S.HAND
