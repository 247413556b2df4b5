"""The map trace (``calibration.trace.trace_iwari``) at the smallest scale, 1 px/mm: band boxes with no pixel in
them and digits too small to print give nothing to read (they once crashed OpenCV), and the schematic art still
traces back to its map, a connection number going unread (and saying so) rather than misread."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.iwari.maps import builtin_map, map_from_json
from calibration import layout as L
from calibration import render, trace

MAPS = ["standard", "floating-lands", "glacial-mass", "long-road"]


@pytest.mark.parametrize("name", MAPS)
def test_a_map_traced_at_1_px_per_mm_gives_its_territories_and_connections(name):
    """Traced at 1 px/mm, every territory and every connection (the territories it joins, by land or water, its
    mountains) comes back, each band a box with pixels in it; a number may go unread, and then a problem says so.
    (Small spaces and paths are not all found at this scale: the command traces at 2 px/mm or more.)"""
    lay = L.load_builtin(f"iwari-{name}")
    result = trace.trace_iwari(render.render_board(lay, 1.0), 1.0, lay)
    m, want = map_from_json(result.map), builtin_map(name)
    assert m.territories == want.territories and m.special == want.special

    def joins(mp):
        return sorted((tuple(sorted(c.between)), c.by, c.mountain) for c in mp.connections)

    assert joins(m) == joins(want)
    printed = {c.id for c in want.connections}
    unread = [c.id for c in m.connections if c.id not in printed]
    assert all(any(f"called {cid!r}" in p for p in result.problems) for cid in unread), (unread, result.problems)
    assert all("was not read" in p for p in result.problems), result.problems
    for r in result.layout["regions"]:
        if r["kind"] == "connection":
            xs, ys = [p[0] for p in r["polygon"]], [p[1] for p in r["polygon"]]
            assert max(xs) - min(xs) >= 1.0 and max(ys) - min(ys) >= 1.0, r["id"]


def test_a_number_too_small_to_print_reads_as_none():
    assert trace.read_number(np.ones((5, 2), np.float32)) == (None, 0.0)
    assert trace.read_number(np.ones((4, 9), np.float32)) == (None, 0.0)
