"""Harvested looks made from a rendered game and its truth (``truth.json``: the true moves per table change), in
the harvest format (docs/adapt.md): for tests and measurements of ``tablewatch adapt`` where no live game
harvested any. The game's frames go through the ``Observer`` as in a replay; at the end of each table change the
boards read then give one look: their views as the readers saw them (``vision.boardviews.reader_views``: a
village board at 2 px/mm), its readings, and the game's
``expected_readings`` of the true state for the keys it read.

Owns ``record_looks``; the look folders are written by ``vision.harvest.write_look``, as in play.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from assistant.table import game as registry
from calibration import camera as cam
from calibration import layout as lay
from vision.boardviews import reader_views
from vision.harvest import write_look
from vision.observe import Observer
from vision.sources import FolderSource


def record_looks(
    game_folder,
    looks_dir,
    game_id: str | None = None,
    every: int = 1,
    limit: int | None = None,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
    progress=None,
) -> int:
    """Write the looks of a rendered game (a frame folder with ``session.json`` and ``truth.json``) under
    ``looks_dir``: one per ``every``-th legal table change (the set-up first), at most ``limit``; ``transform``
    changes each stored view (a colour cast). Returns how many were written."""
    folder = Path(game_folder)
    meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    game = registry.get(meta.get("game", "wendake"))
    ob = Observer(
        [lay.resolve(n) for n in meta["layouts"]], camera=cam.load(folder / meta["camera"]) if meta.get("camera") else None
    )
    state = game.state_from_json(meta["initial"])
    moves = [game.move_from_json(m) for m in truth["moves"]]
    steps = truth["steps"]
    ends = [steps[i + 1]["frame"] - 1 for i in range(len(steps) - 1)] + [10**9]
    gid = game_id or folder.name.replace("_", "-")
    source = FolderSource(folder)
    frames = iter(source)
    pending, states, written, image = None, {}, 0, None
    for i, st in enumerate(steps):
        for m in st["moves"]:
            game.apply(state, moves[m])
        while True:
            f = pending or next(frames, None)
            pending = None
            if f is None or f.index > ends[i]:
                pending = f
                break
            if f.image is not None:
                states = ob.process(f.index, f.t, f.image).boards
                image = f.image
        if progress is not None:
            progress(i + 1, len(steps))
        if st.get("injected") or i % every or (limit is not None and written >= limit):
            continue
        boards = [b for b, s in states.items() if s in ("read", "cached") and b in ob.views]
        if not boards:
            continue
        readings = {k: r for b in boards for k, r in ob.cache[b].items()}
        expected = game.expected_readings(state)
        views = {b: ((transform or (lambda im: im))(v), *scales) for b, (v, *scales) in reader_views(ob, image, boards).items()}
        keys = [k for k in expected if k in readings]
        write_look(
            Path(looks_dir),
            gid,
            i,
            "setup" if i == 0 else "explained",
            views,
            {k: expected[k] for k in keys},
            {k: (readings[k].value, readings[k].confidence) for k in keys},
            {k: game.region_kind(k) for k in keys},
        )
        written += 1
    source.close()
    return written
