"""Move texts speak the players' language (assistant.wendake.describe): no grid indices like ``[0, 2]``, no map ids
like ``T07`` / ``L1``, no move type names like ``use_progress``. Checked on every move of seeded random games
(2-4 players, all move kinds the random player makes) and on moves the random player rarely makes."""

from __future__ import annotations

import random
import re

import pytest

from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.describe import describe
from assistant.wendake.generate import random_move
from assistant.wendake.setup import new_game

INTERNAL = re.compile(r"\[\d+, \d+\]|\b[HTL]\d{1,2}\b|\b[a-z]+_[a-z_]+\b|\brow 0\b")


def internal_forms(text: str) -> list[str]:
    return INTERNAL.findall(text)


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_no_move_text_shows_an_internal_form(players, seed):
    rng = random.Random(seed)
    st = new_game([f"P{i}" for i in range(players)], seed=seed)
    bad = []
    for _ in range(400):
        if st.phase == "over":
            break
        move = random_move(st, rng)
        after = st.copy()
        rules.apply(after, move)
        text = describe(st, move, after)
        if internal_forms(text):
            bad.append(text)
        st = after
    assert not bad, bad[:5]


def test_slots_lakes_and_territories_read_by_name():
    st = new_game(["Ann", "Bob"], seed=3)
    after = st.copy()
    rules.apply(after, M.Activate((0, 2)))
    text = describe(st, M.Activate((0, 2)), after)
    assert "row 1, column 3" in text and "[0, 2]" not in text
    assert describe(st, M.Canoe("L1"), st).endswith("puts a canoe on Lake Huron")
    step = M.Step("H1", "T01", "outpost", pa=0)
    assert describe(st, M.Move((step,)), st).endswith("moves: North-West Home to Pine Ridge as an outpost")
    text = describe(st, M.UseProgress("P1-01"), st)
    assert "use_progress" not in text and "uses the progress tile" in text
