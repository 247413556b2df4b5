"""``tablewatch adapt``: learning a table from its harvested looks (models.adapt, docs/adapt.md).

The looks are those of a short rendered game (``models.adapt.record``: the observer's own views and readings at
each table change, the rules' values of the true state), stored as a table profile's harvest; a warm
white-balance cast on every stored view stands for a table the base models have not seen.
"""

from __future__ import annotations

import json
import shutil

import pytest

from assistant.apps.cli import main
from assistant.table.profile import open_profile
from models.adapt.looks import cast, load_looks, split
from models.adapt.record import record_looks
from models.adapt.run import adapt, decide, rollback
from models.adapt.views import Figures, figures, observer_for, read_looks

WARM = (0.45, 0.8, 1.6)  # a strong warm cast: the base counter misses fish and miscounts beavers under it


@pytest.fixture(scope="module")
def game_looks(tmp_path_factory):
    """The looks of a rendered 2-player game of 8 table changes (9 looks: the set-up and each change)."""
    from models.synth.recording import RecordingOptions, render_game

    root = tmp_path_factory.mktemp("adapt")
    render_game(root / "game", RecordingOptions(players=2, seed=3, hand_rate=0.0, max_states=8))
    record_looks(root / "game", root / "looks")
    return root / "looks"


def profile_with(tmp_path, looks_dir, gains=None, name="table"):
    """A table profile under ``tmp_path`` holding a copy of the looks, each view under the cast ``gains``."""
    import cv2

    prof = open_profile(tmp_path / "data", name)
    shutil.rmtree(prof.looks_dir)
    shutil.copytree(looks_dir, prof.looks_dir)
    if gains is not None:
        for jpg in prof.looks_dir.glob("*/*.jpg"):
            cv2.imwrite(str(jpg), cast(cv2.imread(str(jpg)), gains), [cv2.IMWRITE_JPEG_QUALITY, 95])
    return prof


def as_games(looks_dir, dest, sizes):
    """The looks of ``looks_dir`` in name order as consecutive games "a", "b", ... of ``sizes`` looks each, game
    by game a day later (their meta.json's ``game`` and ``made``, and their folder names, changed)."""
    dest.mkdir(parents=True, exist_ok=True)
    src = sorted(p for p in looks_dir.iterdir() if (p / "meta.json").is_file())
    games = [g for g, n in zip("abcdefgh", sizes) for _ in range(n)]
    for i, (folder, game) in enumerate(zip(src, games)):
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        meta.update(game=game, made=f"2026-01-{10 + ord(game) - ord('a')}T10:00:{i:02d}+0000")
        out = dest / f"{game}-{i:04d}"
        shutil.copytree(folder, out)
        (out / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def warm_adapted(game_looks, tmp_path_factory):
    """A warm-cast table adapted once: (profile, adapt's result)."""
    prof = profile_with(tmp_path_factory.mktemp("warm"), game_looks, WARM)
    return prof, adapt(prof)


def test_the_held_out_looks_are_every_fourth_by_name(game_looks):
    looks = load_looks(game_looks)
    learn, held = split(looks)
    assert len(looks) == 9
    assert [lk.name for lk in held] == [looks[3].name, looks[7].name]
    assert not {lk.name for lk in held} & {lk.name for lk in learn}
    assert split(looks[:3]) == (looks[:3], looks[:3])  # too few to spare one: checked on the looks it learned from


def test_with_two_games_or_more_the_newest_games_are_held_out_whole(game_looks, tmp_path):
    two = load_looks(as_games(game_looks, tmp_path / "two", (6, 3)))
    learn, held = split(two)
    assert {lk.game for lk in held} == {"b"} and len(held) == 3 and {lk.game for lk in learn} == {"a"}
    three = load_looks(as_games(game_looks, tmp_path / "three", (6, 2, 1)))
    learn, held = split(three)  # game c alone is 1 look of 9: under a quarter, so game b goes with it
    assert {lk.game for lk in held} == {"b", "c"} and {lk.game for lk in learn} == {"a"}
    big = load_looks(as_games(game_looks, tmp_path / "big", (2, 7)))
    learn, held = split(big)  # the oldest game is never held out, however small
    assert {lk.game for lk in held} == {"b"} and len(learn) == 2


def test_adapt_checks_a_new_adaptation_on_a_game_it_never_learned_from(game_looks, tmp_path):
    prof = profile_with(tmp_path, as_games(game_looks, tmp_path / "games", (5, 3)), WARM)
    card = adapt(prof)["card"]
    assert card["held_out"] == 3 and card["looks"] == 8
    assert card["held_out_by"] == "game" and card["held_out_games"] == ["b"]


def test_a_region_kind_that_reads_worse_keeps_the_weights_in_use_though_the_total_improves():
    before = Figures(100, 10, {"count": [50, 2], "top-of-stack": [50, 8]})
    worse = Figures(100, 6, {"count": [50, 6], "top-of-stack": [50, 0]})
    swap, kinds, text = decide(before, worse)
    assert not swap and [k["kind"] for k in kinds] == ["count"] and kinds[0]["more_misread"] == 4
    assert text.startswith(
        "kept the current weights: the new ones read your table's counted regions worse (96.0 % → 88.0 % of 50"
    )
    within = Figures(100, 4, {"count": [50, 4], "top-of-stack": [50, 0]})  # 2 more misread: within the margin
    assert decide(before, within)[:2] == (True, [])
    assert decide(before, Figures(100, 10, {"count": [50, 2], "top-of-stack": [50, 8]}))[0] is False


def test_adapting_a_colour_shifted_table_reads_its_held_out_looks_better_and_swaps_in(warm_adapted):
    prof, res = warm_adapted
    card = res["card"]
    assert res["swapped"]
    assert card["after"]["misread"] < card["before"]["misread"]
    assert card["held_out"] == 2 and card["looks"] == 9
    assert card["before"]["regions"] == card["after"]["regions"] > 0
    assert res["text"] == card["text"] and card["text"].startswith("read ") and "of your table's regions" in card["text"]
    assert prof.card() == card
    assert (prof.adapted_dir / "detector_head.npz").is_file() and (prof.adapted_dir / "counter_head.npz").is_file()
    assert not prof.previous_dir.exists()  # nothing was in use before
    rel = json.loads((prof.adapted_dir / "reliability.json").read_text(encoding="utf-8"))
    assert rel["format"] == "tablewatch.reliability/1"
    assert sum(k["checked"] for k in rel["by_kind"].values()) == card["after"]["regions"]
    assert sum(k["checked"] - k["correct"] for k in rel["by_kind"].values()) == card["after"]["misread"]
    for kind in rel["by_kind"].values():
        assert all(0 <= lo < hi <= 1 and 0 <= right <= n for lo, hi, n, right in kind["bins"])


def test_the_observer_reads_with_a_profiles_adaptation_and_as_before_without_one(warm_adapted, tmp_path):
    prof, res = warm_adapted
    looks = load_looks(prof.looks_dir)
    _, held = split(looks)
    plain = read_looks(observer_for(looks), held)
    never = open_profile(tmp_path, "never-adapted")
    from calibration import layout as lay
    from vision.observe import Observer

    boards = sorted({b for lk in looks for b in lk.boards})
    ob = Observer([lay.resolve(b) for b in boards], profile=never)
    assert ob.adaptation is None
    assert read_looks(ob, held) == plain
    adapted = Observer([lay.resolve(b) for b in boards], profile=prof)
    assert adapted.adaptation is not None and adapted.detector.head is not None
    got = figures(held, read_looks(adapted, held))
    assert got.misread == res["card"]["after"]["misread"] < figures(held, plain).misread


def test_a_broken_adaptation_is_left_out_with_a_note(warm_adapted, tmp_path):
    prof, _ = warm_adapted
    broken = open_profile(tmp_path, "broken")
    shutil.copytree(prof.adapted_dir, broken.adapted_dir)
    (broken.adapted_dir / "detector_head.npz").write_bytes(b"not a head")
    from calibration import layout as lay
    from vision.observe import Observer

    ob = Observer([lay.resolve("wendake-village-1")], profile=broken)
    assert ob.adaptation is None and ob.detector.head is None
    assert any("adaptation is not used" in n and "--rollback" in n for n in ob.notes)


def test_an_adapt_that_reads_no_better_keeps_the_weights_in_use(game_looks, tmp_path):
    prof = profile_with(tmp_path, game_looks, WARM)
    first = adapt(prof)
    assert first["swapped"]
    head = (prof.adapted_dir / "detector_head.npz").read_bytes()
    again = adapt(prof)  # the same looks fit the same adaptation: it reads them no better than the one in use
    assert not again["swapped"]
    assert again["text"].startswith("kept the current weights")
    assert (prof.adapted_dir / "detector_head.npz").read_bytes() == head
    assert prof.card() == first["card"] and not prof.previous_dir.exists()
    assert not (prof.root / "adapted.new").exists()


def test_rollback_restores_the_previous_adaptation(game_looks, tmp_path, capsys):
    prof = profile_with(tmp_path, game_looks, WARM)
    adapt(prof)
    card = prof.card()
    assert main(["adapt", "--profile", str(prof.root), "--rollback"]) == 0
    assert prof.card() is None and json.loads((prof.previous_dir / "card.json").read_text(encoding="utf-8")) == card
    assert "base models" in capsys.readouterr().out
    assert rollback(prof).startswith(f"{prof.name}: the previous adaptation is back")
    assert prof.card() == card


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    empty = open_profile(tmp_path, "empty")

    def one_line(argv, words):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err and "Traceback" not in err, (argv, err)

    one_line(["adapt", "--data-dir", str(tmp_path)], "say which table to adapt")
    one_line(["adapt", "--data-dir", str(tmp_path), "--table", "nope"], "no table profile 'nope'")
    one_line(["adapt", "--data-dir", str(tmp_path), "--table", "Bad Name"], "is not usable")
    one_line(["adapt", "--profile", str(tmp_path / "missing")], "is not a table profile folder")
    one_line(["adapt", "--profile", str(empty.root)], "has no harvested looks")
    one_line(["adapt", "--profile", str(empty.root), "--rollback"], "has no adaptation to roll back")
    (empty.looks_dir / "g-0000").mkdir()
    (empty.looks_dir / "g-0000" / "meta.json").write_text("{not json", encoding="utf-8")
    one_line(["adapt", "--profile", str(empty.root)], "cannot be read")


def as_old_looks(looks_dir, dest):
    """The looks as harvested before village views were kept at 2 px/mm: every view at the detector's 1 px/mm (a
    2 px/mm view shrunk by 2, the detector's own INTER_AREA), no ``read_px_per_mm`` in meta.json."""
    import cv2

    shutil.copytree(looks_dir, dest)
    for meta_path in dest.glob("*/meta.json"):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        for board, d in meta["boards"].items():
            if d["px_per_mm"] != 1.0:
                jpg = meta_path.parent / d["file"]
                img = cv2.imread(str(jpg))
                f = 1.0 / d["px_per_mm"]
                small = cv2.resize(img, (round(img.shape[1] * f), round(img.shape[0] * f)), interpolation=cv2.INTER_AREA)
                cv2.imwrite(str(jpg), small, [cv2.IMWRITE_JPEG_QUALITY, 95])
            meta["boards"][board] = {"file": d["file"], "px_per_mm": 1.0}
        meta_path.write_text(json.dumps(meta), encoding="utf-8")
    return dest


def test_village_views_are_kept_at_2_px_per_mm_and_old_1_px_per_mm_looks_still_read(game_looks, tmp_path):
    looks = load_looks(game_looks)
    lk = next(lk for lk in looks if {"wendake-village-1", "wendake-map-2p"} <= set(lk.boards))
    assert lk.boards["wendake-village-1"][1] == 2.0 and lk.read_scales["wendake-village-1"] == 1.0
    assert lk.view("wendake-village-1").shape == (600, 800, 3)
    assert lk.boards["wendake-map-2p"][1] == lk.read_scales["wendake-map-2p"] == 1.0
    new = figures(looks, read_looks(observer_for(looks), looks))
    old_looks = load_looks(as_old_looks(game_looks, tmp_path / "old"))
    old_lk = next(o for o in old_looks if o.name == lk.name)
    assert old_lk.boards["wendake-village-1"][1] == old_lk.read_scales["wendake-village-1"] == 1.0
    old = figures(old_looks, read_looks(observer_for(old_looks), old_looks))
    assert old.regions == new.regions > 1000 and old.misread <= 5 and new.misread <= 5
