"""Families of the scene generator (models/synth/families.py, issue 34 §1): the familiar and foreign pools, held-out
families never drawn for training, the same seed giving the same scene, every family rendering (small images), a
foreign table shared by its games, and the ``--family`` / ``--table-seed`` options."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.apps.cli import main
from calibration.layout import load_builtin
from models.synth.art import draw_art
from models.synth.families import AXES, FAMILIES, HELD_OUT, draw_families, draw_look, pool
from models.synth.recording import RecordingOptions, render_game
from models.synth.writer import make_scene
from vision.locate import locate

SIZE = (240, 180)


def test_the_held_out_families_are_never_drawn_in_familiar_mode():
    for axis in ("art", "pieces", "light"):  # the issue: an art style + palette, a piece shape, a lighting family
        assert HELD_OUT[axis], axis
        assert not set(HELD_OUT[axis]) & set(pool(axis, "familiar"))
        assert set(pool(axis, "foreign")) == set(HELD_OUT[axis])
    rng = np.random.default_rng(0)
    familiar = [draw_families(rng, "familiar") for _ in range(400)]
    foreign = [draw_families(rng, "foreign") for _ in range(100)]
    for axis in AXES:
        drawn = {f[axis] for f in familiar}
        assert drawn == set(pool(axis, "familiar")), axis  # every familiar family is drawn, nothing else
        assert not drawn & set(HELD_OUT[axis])
        assert {f[axis] for f in foreign} <= set(pool(axis, "foreign"))
    with pytest.raises(ValueError):
        pool("art", "mixed")


def test_training_scenes_hold_no_foreign_family():
    for i in range(6):
        fam = make_scene(3, i, 2, SIZE, family="familiar")["labels"]["effects"]["look"]["families"]
        assert all(fam[a] not in HELD_OUT[a] for a in AXES)
        look = make_scene(3, i, 2, SIZE, family="randomised")["labels"]["effects"]["look"]
        assert look["families"]["art"] == look["families"]["pieces"] == "random"
        assert all(look["families"][a] in pool(a, "familiar") for a in AXES if a not in ("art", "pieces"))
        assert all(look["families"][a] not in HELD_OUT[a] for a in AXES)
        fam = make_scene(3, i, 2, SIZE, family="foreign")["labels"]["effects"]["look"]["families"]
        assert all(fam[a] in HELD_OUT[a] for a in AXES if HELD_OUT[a])


@pytest.mark.parametrize("family", ["familiar", "foreign"])
def test_same_seed_same_scene(family):
    a = make_scene(5, 3, 3, SIZE, family=family)
    b = make_scene(5, 3, 3, SIZE, family=family)
    assert a["labels"] == b["labels"] and a["jpeg"] == b["jpeg"] and a["view_jpegs"] == b["view_jpegs"]
    c = make_scene(5, 4, 3, SIZE, family=family)
    assert c["labels"]["effects"]["look"] != a["labels"]["effects"]["look"]
    classic = make_scene(5, 3, 3, SIZE)
    assert "look" not in classic["labels"]["effects"] and classic["labels"]["family"] is None
    # the position is the scene's, whatever the look: the same pieces on the same regions
    key = lambda sc: sorted((p["class"], p["colour"], p["region"] or "") for p in sc["labels"]["pieces"] if not p["extra"])
    assert key(a) == key(classic)


@pytest.mark.parametrize("axis, name", [(a, f) for a in AXES for f in dict.fromkeys(FAMILIES[a]["familiar"] + FAMILIES[a]["foreign"])])
def test_every_family_renders(axis, name):
    mode = "foreign" if name in HELD_OUT[axis] else "familiar"
    look = draw_look(np.random.default_rng([7, len(name)]), mode, {axis: name})
    assert look.families[axis] == name
    from models.synth import scene as S
    from models.synth import wendake as WK

    rng = np.random.default_rng(11)
    state, _, _ = WK.random_position(2, rng)
    main_board, boards = WK.table_for(state, rng)
    out = S.render(boards, main_board, rng, SIZE, 1.0, True, look=look)
    img = out["image"]
    assert img.shape == (SIZE[1], SIZE[0], 3) and img.dtype == np.uint8
    assert float(img.std()) > 8.0  # a picture, not a flat or black frame
    assert out["labels"]["effects"]["look"]["families"][axis] == name
    assert any(p["in_view"] for p in out["labels"]["pieces"])


def test_art_families_keep_the_layout_markers_and_differ_in_drawing():
    layout = load_builtin("wendake-village-1")
    arts = {}
    for name in dict.fromkeys(FAMILIES["art"]["familiar"] + FAMILIES["art"]["foreign"]):
        art = draw_art(layout, 2.0, name, 0)
        loc = locate(art, [layout])[0]
        assert loc.found and len(loc.markers_seen) == len(layout["markers"]), name
        arts[name] = art
    names = list(arts)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert float(np.abs(arts[a].astype(int) - arts[b].astype(int)).mean()) > 10, (a, b)
    assert not np.array_equal(draw_art(layout, 2.0, "painted", 0), draw_art(layout, 2.0, "painted", 1))  # printings differ


def test_random_art_printings_differ_in_palette_from_dark_to_light_and_keep_the_markers():
    layout = load_builtin("wendake-village-1")
    means = []
    for variant in range(8):
        art = draw_art(layout, 2.0, "random", variant)
        loc = locate(art, [layout])[0]
        assert loc.found and len(loc.markers_seen) == len(layout["markers"]), variant
        means.append(float(art.mean()))
    assert min(means) < 90 and max(means) > 150  # dark and light printings both drawn
    assert len({round(m) for m in means}) == len(means)


def test_piece_families_change_the_pieces_geometry():
    from models.synth.pieces import PLAYER_BGR, Piece, piece_points, piece_style, shape

    rng = np.random.default_rng(0)
    for cls in ("warrior_standing", "canoe", "tribe_disk", "action_marker", "corn", "beaver"):
        p = Piece(cls, "red", "b", 0.0, 0.0)
        extents = {name: np.ptp(piece_points(p, shape(p, PLAYER_BGR, piece_style(name, rng))), axis=0).round(2).tolist()
                   for name in dict.fromkeys(FAMILIES["pieces"]["familiar"] + FAMILIES["pieces"]["foreign"])}
        assert extents["classic"] == np.ptp(piece_points(p, shape(p, PLAYER_BGR)), axis=0).round(2).tolist()
        assert extents["pawn"] != extents["classic"], cls  # the held-out shape is another shape


def test_random_piece_styles_differ_and_never_take_the_held_out_shapes():
    from models.synth.pieces import piece_style

    rng = np.random.default_rng(5)
    styles = [piece_style("random", rng) for _ in range(40)]
    assert len({(s.meeple, s.disk, s.canoe, tuple(sorted(s.res.items()))) for s in styles}) == 40
    assert len({s.neutral["corn"] for s in styles}) == 40 and len({s.colours["red"] for s in styles}) == 40
    pawn = piece_style("pawn", rng)
    for s in styles:
        assert s.meeple[-1] != pawn.meeple[-1] and s.lying[0] != pawn.lying[0] and s.canoe[3] == 0.0
        assert s.marker[0] != pawn.marker[0] and s.faces != pawn.faces
        assert s.disk[1] < pawn.disk[1] and s.res["beaver"][2] < pawn.res["beaver"][2]  # no wooden beaver


def test_a_foreign_table_is_the_same_in_every_game(tmp_path):
    kw = {"size": (480, 270), "max_states": 1, "hand_rate": 0.0, "family": "foreign", "table_seed": 42}
    t1 = render_game(tmp_path / "g1", RecordingOptions(players=2, seed=1, **kw))
    t2 = render_game(tmp_path / "g2", RecordingOptions(players=2, seed=2, **kw))
    t3 = render_game(tmp_path / "g3", RecordingOptions(players=2, seed=1, **{**kw, "table_seed": 43}))
    assert t1["look"] == t2["look"] and t1["look"]["mode"] == "foreign"
    assert t3["look"] != t1["look"]
    assert all(t1["look"]["families"][a] in HELD_OUT[a] for a in AXES if HELD_OUT[a])
    # the classic games' cache key is unchanged by the options (rendered sets stay cached)
    assert "family" not in RecordingOptions().key() and "table_seed" not in RecordingOptions().key()
    assert RecordingOptions(**kw).key()["family"] == "foreign"


def test_cli_family_options(tmp_path, capsys):
    out = tmp_path / "set"
    assert main(["synth", "--n", "1", "--seed", "4", "--out", str(out), "--players", "2", "--size", "240x180", "--family", "foreign"]) == 0
    assert json.loads((out / "manifest.json").read_text())["family"] == "foreign"
    lab = json.loads((out / "scene_000000.json").read_text())
    assert lab["family"] == "foreign" and lab["effects"]["look"]["families"]["art"] in HELD_OUT["art"]
    assert main(["synth", "--n", "1", "--seed", "4", "--out", str(tmp_path / "default"), "--players", "2", "--size", "240x180"]) == 0
    assert json.loads((tmp_path / "default" / "manifest.json").read_text())["family"] == "familiar"  # training: familiar
    assert main(["e2e", "--table-seed", "3", "--out", str(tmp_path / "e2e"), "--games", "1", "--injected-games", "0"]) == 2
    err = capsys.readouterr().err
    assert "--family" in err and "Traceback" not in err
