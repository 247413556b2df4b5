"""expected_readings: what a perfect camera reads for real engine states (assistant/wendake/observer.py)."""

from collections import Counter

import pytest

from assistant.table.observation import Reading, split_key, split_reading_key
from assistant.wendake.generate import play_random_game
from assistant.wendake.observer import (
    PROGRESS_REGION,
    expected_readings,
    progress_readings,
    progress_tile_key,
    score_reading_agrees,
    score_stacks,
)


def _states(players, seed, every=37):
    out = []

    def on_move(state, move):
        if len(out) < 40 and on_move.k % every == 0:
            out.append(state.copy())
        on_move.k += 1

    on_move.k = 0
    final, _ = play_random_game(["Ann", "Bob", "Cy", "Di"][:players], seed=seed, on_move=on_move)
    return out + [final]


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_conservation_of_natives(players, seed):
    """Each player owns 7 of each native: map + Long House, with Home stacks counted from the engine (a stack shows
    as one piece, so the stack size comes from the state, as the tracker does)."""
    for state in _states(players, seed):
        exp = expected_readings(state)
        for p, pl in enumerate(state.players):
            c = pl.colour
            seen = Counter()
            for key, value in exp.items():
                board, region, tile = split_reading_key(key)
                if tile or not isinstance(value, tuple):
                    continue
                for piece, n in value:
                    cls, colour, side = split_key(piece)
                    if colour != c:
                        continue
                    if board.startswith("wendake-map") and ".pa" in region and cls in ("woman", "hunter"):
                        tid, i = region.split(".pa")
                        n = state.territories[tid].pas[int(i)].count  # the stack behind the one visible piece
                    if cls in ("warrior_standing", "warrior_lying"):
                        seen["warrior"] += n
                    elif cls in ("woman", "hunter"):
                        seen[cls] += n
            assert seen == {"warrior": 7, "woman": 7, "hunter": 7}, (p, seen)


def test_keys_match_layouts_and_renderer_conventions():
    from calibration.layout import load_builtin

    state = _states(4, 5)[-1]
    exp = expected_readings(state)
    boards = {split_reading_key(k)[0] for k in exp}
    assert boards == {"wendake-map-4p", "wendake-mask", "wendake-scores-a", "wendake-scores-b"} | {f"wendake-village-{i}" for i in range(1, 5)}
    for board in boards:
        ids = {r["id"] for r in load_builtin(board)["regions"]}
        for key in exp:
            b, region, _ = split_reading_key(key)
            if b == board:  # the progress spaces are read together, as one set (``progress_readings``)
                assert region in ids or (region == PROGRESS_REGION and "progress.1" in ids), key
    # every map region is read; score spaces: exactly one top disk per occupied space
    map_ids = {r["id"] for r in load_builtin("wendake-map-4p")["regions"]}
    assert {split_reading_key(k)[1] for k in exp if k.startswith("wendake-map-4p/")} == map_ids
    occupied = [k for k, v in exp.items() if k.startswith("wendake-scores") and v]
    assert all(len(exp[k]) == 1 and exp[k][0][1] == 1 for k in occupied)
    assert 8 <= len(occupied) * 1 <= 16


def test_score_ambiguity_rule():
    state = _states(3, 7)[-1]
    for board in ("wendake-scores-a", "wendake-scores-b"):
        for rid, stack in score_stacks(state, board).items():
            colours = {state.players[p].colour for p in stack}
            v = expected_readings(state)[f"{board}/{rid}"]
            assert score_reading_agrees(v, colours)
            for p in stack:  # any disk of the stack may be the one on top at a real table
                assert score_reading_agrees(((f"tribe_disk:{state.players[p].colour}", 1),), colours)
            assert score_reading_agrees((), colours) == (not stack)
    assert not score_reading_agrees((("tribe_disk:red", 1),), {"blue"})


def test_mirrors_synthetic_renderer():
    """The synth renderer's labelled regions give the same pieces per region as expected_readings."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("cv2")
    from models.synth.wendake import table_for

    state = _states(3, 9)[-2]
    assert any(p.progress for p in state.players) and any(p.progress_used for p in state.players)
    _, boards = table_for(state, np.random.default_rng(0), extras=False, progress_tiles=True)
    exp = expected_readings(state)
    for spec in boards:  # the bought tiles drawn on the progress spaces, as a set by level and side
        drawn = Counter(progress_tile_key(f"{t['tile']}:{t['side']}") for t in spec.tiles if t["slot"].startswith("progress."))
        if spec.name.startswith("wendake-village"):
            assert dict(exp[f"{spec.name}/{PROGRESS_REGION}"]) == dict(drawn), spec.name
    for spec in boards:
        per_region = {}
        for piece in spec.pieces:
            if piece.region is None or piece.cls in ("swap_token",):
                continue
            key = f"{piece.cls}:{piece.colour}" + (f":{piece.side}" if piece.side else "")
            per_region.setdefault(f"{spec.name}/{piece.region}", Counter())[key] += 1
        for key, counts in per_region.items():
            value = exp[key]
            if key.startswith("wendake-scores"):
                assert score_reading_agrees(value, {split_key(k)[1] for k in counts})
            else:
                assert dict(value) == dict(counts), key
        for key, value in exp.items():  # a region the renderer leaves empty reads empty
            if not key.startswith(spec.name + "/") or "#tile" in key or key.endswith("/" + PROGRESS_REGION):
                continue
            if key not in per_region:
                assert value == (), key


def test_the_progress_spaces_are_read_as_one_set_of_tiles_by_level_and_side():
    """No text says which progress space a bought tile takes (W-PRG-4), so the reads of a village's spaces count as
    a set: the same tiles on other spaces agree. Face down (used this year, W-PRG-3) is another side. Its
    confidence is the least level-and-side margin of the spaces; a village with a space not read gets none."""
    state = _states(3, 9)[-2]
    p = next(i for i, pl in enumerate(state.players) if pl.progress_used)
    pl, vb = state.players[p], f"wendake-village-{p + 1}"
    reads = {f"{vb}/progress.{k}#tile": Reading(None, 0.9) for k in range(1, 7)}
    for k, tile in zip((6, 2, 4, 5, 1, 3), pl.progress):  # any spaces, any order
        reads[f"{vb}/progress.{k}#tile"] = Reading(tile[:2] + ":back" if tile in pl.progress_used else tile + ":front", 0.8)
    got = progress_readings(reads)
    assert got[f"{vb}/{PROGRESS_REGION}"] == Reading(expected_readings(state)[f"{vb}/{PROGRESS_REGION}"], 0.8)
    # a name read weakly, between two tiles of its own level, is still sure of the level and the side
    first = next(k for k in range(1, 7) if reads[f"{vb}/progress.{k}#tile"].value)
    value = reads[f"{vb}/progress.{first}#tile"].value
    reads[f"{vb}/progress.{first}#tile"] = Reading(value, 0.05, ((value[:2] + "-99:" + value.split(":")[1], 0.05), (None, 0.4)))
    assert progress_readings(reads)[f"{vb}/{PROGRESS_REGION}"].confidence == 0.4
    del reads[f"{vb}/progress.{first}#tile"]
    assert progress_readings(reads) == {}
    assert progress_tile_key("P2-04:front") == "progress_tile:P2:front" and progress_tile_key("P3:back") == "progress_tile:P3:back"
    assert progress_tile_key("P2-04", face_down=True) == "progress_tile:P2:back" and progress_tile_key(None) is None
