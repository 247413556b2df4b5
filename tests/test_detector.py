"""Piece detector: heatmap decoding and NMS on hand-made tensors, region assignment, matching metrics, the
onnxruntime path on the committed model, and CLI errors. The training tests import torch only where it is
installed (the `train` extra); the rest never do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.apps.cli import main
from assistant.errors import UserError
from vision.detect import Detections, Piece, decode, model_path, nms_points, peaks

CARD = {"classes": ["a", "b", "c"], "colours": ["red", "blue"], "sides": ["colour", "grey"], "px_per_mm": 1.0, "stride": 4}


def heads(h=16, w=20):
    return (np.zeros((3, h, w), np.float32), np.zeros((4, h, w), np.float32), np.zeros((3, h, w), np.float32),
            np.zeros((3, h, w), np.float32))


def test_decode_places_a_peak_in_board_mm_with_offset_and_attributes():
    heat, reg, col, side = heads()
    heat[1, 5, 7] = 0.9
    heat[1, 5, 8] = 0.6  # a shoulder of the same peak: not a second piece
    reg[:, 5, 7] = [0.25, 0.5, np.log(12.0), np.log(20.0)]
    col[1, 5, 7] = 3.0
    side[2, 5, 7] = 2.0
    (p,) = decode(heat, reg, col, side, CARD, threshold=0.3)
    assert (p.cls, p.colour, p.side) == ("b", "blue", None)
    assert p.x_mm == pytest.approx((7.25 * 4 + 0.5) / 1.0)
    assert p.y_mm == pytest.approx((5.5 * 4 + 0.5) / 1.0)
    assert (p.w_mm, p.h_mm) == (pytest.approx(12.0), pytest.approx(20.0))
    assert p.score == pytest.approx(0.9)


def test_decode_threshold_and_class_agnostic_peaks():
    heat, reg, col, side = heads()
    heat[0, 2, 2] = 0.8
    heat[2, 2, 2] = 0.7  # same place, weaker class: one piece of class a
    heat[2, 10, 15] = 0.5
    heat[1, 12, 3] = 0.2  # below threshold
    got = decode(heat, reg, col, side, CARD, threshold=0.3)
    assert [(p.cls, round(p.score, 2)) for p in got] == [("a", 0.8), ("c", 0.5)]
    assert got[0].colour == "red" and got[0].side == "colour"  # argmax of zero logits: first entry


def test_decode_nms_in_mm_and_scale():
    heat, reg, col, side = heads()
    heat[0, 4, 4] = 0.9
    heat[0, 4, 6] = 0.8  # 8 input px = 4 mm at 2 px/mm: suppressed at 7 mm
    card = dict(CARD, px_per_mm=2.0)
    assert len(decode(heat, reg, col, side, card, nms_mm=7.0)) == 1
    assert len(decode(heat, reg, col, side, card, nms_mm=3.0)) == 2


def test_detections_hold_one_read_in_order_and_filter_into_new_ones():
    a, b, c = (Piece("woman", "red", "colour", 10, 20, 15, 15, 0.9), Piece("hunter", "red", "grey", 30, 40, 15, 15, 0.2),
               Piece("canoe", "none", None, 50, 60, 20, 10, 0.5, (0.1, 0.5)))
    d = Detections([a, b, c])
    assert len(d) == 3 and list(d) == [a, b, c] and d[1] is b and d[1:] == Detections([b, c])
    assert d.above(0.5) == Detections([a, c]) and d.filter(lambda p: p.side == "grey") == Detections([b])
    assert len(d) == 3 and not Detections() and d != [a, b, c]  # filters leave it as it is; only a Detections equals it
    assert d.to_json()[2] == {"class": "canoe", "colour": "none", "side": None, "xy_mm": [50, 60], "size_mm": [20, 10], "score": 0.5}


def test_peaks_and_nms_points():
    s = np.zeros((5, 5), np.float32)
    s[1, 1], s[3, 3], s[3, 4] = 0.5, 0.9, 0.4
    ys, xs = peaks(s, 0.3)
    assert list(zip(ys, xs)) == [(3, 3), (1, 1)]
    xy = np.array([[0, 0], [3, 0], [10, 0]], float)
    assert list(nms_points(xy, np.array([0.5, 0.9, 0.7]), 5.0)) == [1, 2]
    assert decode(*heads(), CARD) == Detections()
    with pytest.raises(ValueError):
        decode(np.zeros((4, 4)), *heads()[1:], CARD)


@pytest.fixture(scope="module")
def index():
    from calibration.layout import load_builtin
    from vision.assign import RegionIndex

    return RegionIndex(load_builtin("wendake-map-4p"))


def test_region_lookup(index):
    assert index.region_of(84.0, 129.0) == "H1.pa0"  # inside a productive area
    assert index.region_of(90.0, 133.0) == "H1.pa0"  # off-centre, still the occupant
    assert index.region_of(96.0, 120.0) == "H1"  # at the area's edge: a guard of the territory
    assert index.region_of(60.0, 60.0) == "H1"
    cx, cy = index.centres["L1"]
    assert index.region_of(cx, cy) == "L1"
    assert index.region_of(-50.0, -50.0) is None


def test_decisions_from_labels_and_detections(index):
    from vision.assign import covered, detected_decisions, label_decisions

    labels = [{"class": "woman", "colour": "red", "side": "colour", "region": "H1.pa0", "xy": [84, 129]},
              {"class": "warrior_standing", "colour": "red", "side": None, "region": "H1", "xy": [60, 60]},
              {"class": "warrior_standing", "colour": "red", "side": None, "region": "H1", "xy": [70, 60]},
              {"class": "warrior_standing", "colour": "blue", "side": None, "region": "H1", "xy": [60, 80]}]
    truth = label_decisions(index, labels, 1.0)
    assert truth["H1.pa0"] == ("woman", "red", "colour")
    assert truth["H1"] == ((("warrior_standing", "blue", ""), 1), (("warrior_standing", "red", ""), 2))
    assert truth["H1.pa1"] is None and truth["L1"] == ()
    dets = [Piece("woman", "red", "colour", 84, 129, 20, 20, 0.9), Piece("hunter", "red", "colour", 85, 128, 20, 20, 0.4),
            Piece("warrior_standing", "red", None, 60, 60, 10, 10, 0.8), Piece("warrior_standing", "red", None, 70, 60, 10, 10, 0.8),
            Piece("warrior_standing", "blue", None, 60, 80, 10, 10, 0.8)]
    got = detected_decisions(index, dets)
    assert got == truth
    dets[3] = Piece("warrior_standing", "blue", None, 70, 60, 10, 10, 0.8)
    assert detected_decisions(index, dets)["H1"] != truth["H1"]
    assert {"H1", "H1.pa0", "H1.pa1"} <= covered(index, ["H1"])
    assert "H1" in covered(index, ["H1.pa0"])


def test_a_disk_under_another_is_no_target_and_no_decision():
    """Stacked tribe disks on one score space: the camera sees the top one; the one under it comes from history."""
    from calibration.layout import load_builtin
    from models.detector.data import scene_targets
    from models.detector.metrics import gt_from_rect
    from vision.assign import RegionIndex, covered_labels, label_decisions

    idx = RegionIndex(load_builtin("wendake-scores-a"))
    x, y = idx.centres["upper.3"]
    disk = lambda colour, dx=0.0: {"class": "tribe_disk", "colour": colour, "side": None, "region": "upper.3",  # noqa: E731
                                   "xy": [2 * x + dx, 2 * y], "box": [0, 0, 30, 30]}
    rect = {"px_per_mm": 2.0, "pieces": [disk("red"), disk("blue", 1.0), disk("green", 40.0)]}
    assert covered_labels(rect["pieces"], 2.0) == {0}  # red lies under blue; green (20 mm off) is not under anything
    assert label_decisions(idx, rect["pieces"], 2.0)["upper.3"] == ((("tribe_disk", "blue", ""), 1), (("tribe_disk", "green", ""), 1))
    assert [g["colour"] for g in gt_from_rect(rect)] == ["blue", "green"]
    man = {"classes": ["tribe_disk"], "colours": ["red", "blue", "green"], "sides": ["colour"]}
    assert scene_targets(rect, 1.0, man)["colour"].tolist() == [1, 2]


def test_matching_tally():
    from models.detector.metrics import Tally

    t = Tally(["a", "b"], 8.0)
    gts = [{"class": "a", "colour": "red", "side": None, "x": 0, "y": 0}, {"class": "a", "colour": "red", "side": None, "x": 50, "y": 0},
           {"class": "b", "colour": "blue", "side": None, "x": 100, "y": 0, "ignore": True}]
    preds = [{"class": "a", "colour": "red", "side": None, "x": 5, "y": 0, "score": 0.9},
             {"class": "a", "colour": "red", "side": None, "x": 30, "y": 0, "score": 0.8},
             {"class": "b", "colour": "blue", "side": None, "x": 101, "y": 0, "score": 0.7}]
    t.add(preds, gts)
    tot = t.totals()
    assert (tot["tp"], tot["fp"], tot["fn"]) == (1, 1, 1)
    assert t.per_class() == [("a", 2, 0.5, 0.5)]


HAVE_MODEL = model_path("detector").exists()


@pytest.mark.skipif(not HAVE_MODEL, reason="no committed detector weights")
def test_onnx_runtime_on_fresh_scenes():
    import cv2

    from models.detector.metrics import Tally, gt_from_rect, preds_from_pieces
    from models.synth.writer import make_scene
    from vision.detect import Detector

    det = Detector("detector")
    x = det.prepare(np.zeros((100, 130, 3), np.uint8), det.px_per_mm)
    assert x.shape[2] % 8 == 0 and x.shape[3] % 8 == 0
    out = det.run(x)
    C = len(det.card["classes"])
    assert out["heat"].shape == (1, C, x.shape[2] // 4, x.shape[3] // 4)
    assert out["colour"].shape[1] == len(det.card["colours"]) + 1
    tally = Tally(det.card["classes"])
    for i in range(3):
        sc = make_scene(4242, i, 4, (1280, 960), 4.0)
        view = cv2.imdecode(np.frombuffer(sc["rect_jpeg"], np.uint8), cv2.IMREAD_COLOR)
        a = det.detect(view, 4.0)
        b = det.detect(view, 4.0)
        assert isinstance(a, Detections) and a.to_json() == b.to_json()  # deterministic
        tally.add(preds_from_pieces(a), gt_from_rect(sc["labels"]["rectified"]))
    tot = tally.totals()
    assert tot["recall"] > 0.6 and tot["precision"] > 0.6, tot


@pytest.mark.parametrize("args, words", [
    (["train", "--data", "/nonexistent/tw"], "not a folder"),
    (["train", "--data", ".", "--crop", "100"], "multiple of 8"),
    (["train", "--data", ".", "--steps", "0"], "--steps"),
    (["train", "--data", ".", "--device", "gpu"], "--device must be cpu or cuda"),
    (["train", "--data", ".", "--loader-workers", "-1"], "--loader-workers"),
    (["train", "--data", ".", "--minutes", "0"], "--minutes must be a positive"),
    (["train", "--data", ".", "--gpu-crops", "--loader-workers", "4"], "drop --loader-workers"),
    (["eval", "detector", "--n", "0"], "--n"),
    (["eval", "detector", "--players", "5"], "--players"),
    (["eval", "detector", "--model", "/nonexistent/x.onnx"], "not found"),
    (["eval", "scores", "--n", "1", "--model", "detector-int8", "--write"], "own card"),
    (["bench", "detector", "--runs", "0"], "--runs"),
])
def test_cli_errors(args, words, capsys):
    assert main(args) == 2
    assert words in capsys.readouterr().err


def test_train_needs_a_synth_folder(tmp_path, capsys):
    pytest.importorskip("torch")
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "w")]) == 2
    assert "manifest.json" in capsys.readouterr().err


@pytest.mark.slow
def test_training_is_reproducible_from_its_seed(tmp_path):
    """`tablewatch train` on the same synth folder with the same seed writes the same weights (2 threads, CPU)."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnx
    from onnx import numpy_helper

    from models.detector.train import train
    from models.synth.writer import generate

    data = tmp_path / "synth"
    data.mkdir()
    generate(14, 5, data, players=2, size=(640, 480), workers=1, progress=False)
    weights = []
    for run in ("a", "b"):
        train(data, tmp_path / run, steps=3, batch=4, crop=96, px_per_mm=1.0, seed=3, val_scenes=4, val_every=3, width=8, lr=3e-3)
        model = onnx.load(str(tmp_path / run / "detector.onnx"))
        weights.append({t.name: numpy_helper.to_array(t) for t in model.graph.initializer})
    assert weights[0].keys() == weights[1].keys()
    assert all(np.array_equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_crop_workers_draw_the_same_crops_for_any_number_of_workers():
    """`tablewatch train --loader-workers N`: the crops of step s come from a generator seeded (seed, s), so one
    worker and three give the same batches, in step order (a GPU run is then reproducible on a smaller machine)."""
    from models.detector import train as tr

    rng = np.random.default_rng(7)
    views = [rng.integers(0, 256, (120 + 8 * i, 150, 3), dtype=np.uint8) for i in range(4)]
    targets = [{"uv": np.array([[40.0 + i, 50.0], [90.0, 70.0]], np.float32), "cls": np.array([0, 1]), "colour": np.array([0, 2]),
                "side": np.array([2, 2]), "size": np.full((2, 2), 12.0, np.float32), "ignore": np.array([False, i == 2])}
               for i in range(4)]
    tr._LOADER.update(seed=5, train_idx=np.arange(4), batch=3, pick_p=np.full(4, 0.25), views=views, targets=targets, crop=64,
                      n_classes=2, valid_hw=[v.shape[:2] for v in views])
    runs = [list(tr._batches(5, workers, None)) for workers in (1, 3)]
    assert len(runs[0]) == len(runs[1]) == 5
    for a, b in zip(*runs):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(runs[0][0][0], runs[0][1][0])  # each step its own crops
    assert runs[0][0][0].dtype == np.uint8 and runs[0][0][1].dtype == np.float16


def test_input_scale_per_board_size():
    """A card may read small boards finer than the map (``small_boards``); the committed card reads all at one scale."""
    from vision.detect import Detector, input_scale

    card = {"px_per_mm": 1.0, "small_boards": {"max_area_mm2": 160000, "px_per_mm": 2.0}}
    assert input_scale(card, 700, 500) == 1.0  # the 4-player map
    assert input_scale(card, 400, 300) == 2.0  # a village board
    assert input_scale({"px_per_mm": 1.0}, 400, 300) == 1.0
    det = Detector()
    assert det.scale_for(400, 300) == det.scale_for(700, 500) == det.px_per_mm
    view = np.zeros((300 * 2, 400 * 2, 3), np.uint8)
    assert det.prepare(view, 2.0).shape[2:] == (304, 400)  # shrunk to the card's 1 px/mm, padded to a multiple of 8


def test_a_class_that_cannot_lie_in_its_region_takes_the_likeliest_that_can():
    """calibration/pieces/wendake.json: a tile slot holds action markers (and the Sacred Fire token), a lake holds
    canoes. A "standing warrior" on a tile slot is the action marker the detector scored second."""
    from calibration.layout import load_builtin
    from vision.assign import RegionIndex, fit_classes, region_pieces

    classes = ["warrior_standing", "action_marker", "canoe", "fire_token"]
    allowed = region_pieces("wendake")
    assert allowed["tile_slot"] == {"action_marker", "fire_token"} and allowed["lake"] == {"canoe"}
    village = RegionIndex(load_builtin("wendake-village-1"))
    x, y = village.centres["slot.4"]
    warrior = Piece("warrior_standing", "red", None, x, y, 10, 10, 0.7, (0.7, 0.4, 0.0, 0.1))
    fitted = fit_classes([warrior], village.region_of, village.kind, allowed, classes)
    assert fitted[0].cls == "action_marker" and fitted[0].score == 0.4 and fitted[0].colour == "red"
    board = RegionIndex(load_builtin("wendake-map-2p"))
    lx, ly = board.centres["L1"]
    canoe = Piece("canoe", "blue", None, lx, ly, 10, 10, 0.9, (0.0, 0.1, 0.9, 0.0))
    assert fit_classes([canoe], board.region_of, board.kind, allowed, classes)[0] == canoe  # a canoe may lie on a lake
    warrior_on_lake = Piece("warrior_standing", "blue", None, lx, ly, 10, 10, 0.6, (0.6, 0.0, 0.3, 0.0))
    assert fit_classes([warrior_on_lake], board.region_of, board.kind, allowed, classes)[0].cls == "canoe"
    assert fit_classes([warrior], village.region_of, village.kind, {}, classes)[0] == warrior  # a game without data


def test_a_detection_on_a_progress_space_is_dropped():
    """A progress space holds a bought progress tile and no piece (W-PRG-4; calibration/pieces/wendake.json lists
    the kind with no class): what the detector finds there is the tile's print, and it is dropped before it can
    count as a piece or colour the board's grey tokens. A piece beside it is kept."""
    from calibration.layout import load_builtin
    from vision.assign import RegionIndex, fit_classes, region_pieces

    classes = ["warrior_standing", "action_marker", "canoe", "fire_token"]
    allowed = region_pieces("wendake")
    assert allowed["progress_space"] == frozenset()
    village = RegionIndex(load_builtin("wendake-village-1"))
    on_tile = Piece("warrior_standing", "green", None, *village.centres["progress.2"], 10, 10, 0.8, (0.8, 0.1, 0.0, 0.0))
    marker = Piece("action_marker", "red", None, *village.centres["slot.4"], 10, 10, 0.9, (0.0, 0.9, 0.0, 0.1))
    assert fit_classes([on_tile, marker], village.region_of, village.kind, allowed, classes) == Detections([marker])


def test_score_calibration_is_measured_and_read_from_the_card(capsys):
    """``tablewatch eval scores`` prints the share of real pieces per score bin on fresh scenes; the committed card
    carries one (``score_calibration``, measured on 150 scenes) and the detector reads it between bin centres."""
    from vision.detect import Detector

    assert main(["eval", "scores", "--n", "2", "--seed", "7301", "--easy", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "share of detections that are real pieces" in out and "0.25-0.30" in out
    det = Detector("detector", threads=1)
    cal = det.card["score_calibration"]
    assert sum(cal["n"]) > 5000 and cal["command"].startswith("tablewatch eval scores")
    assert det.real_share(0.175) == pytest.approx(cal["real"][0])
    assert det.real_share(0.175) < det.real_share(0.275) < det.real_share(0.45) < 0.9


def test_a_fine_tune_starts_from_the_exported_detector():
    """`tablewatch train --init detector.onnx`: the net loaded from the export (BatchNorms folded into the convs)
    gives the export's outputs, and keeps giving them in training mode once its BatchNorms are frozen."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import json

    import onnxruntime as ort

    from models.detector.net import CentreNet
    from models.detector.train import freeze_batchnorm, init_from_onnx

    path = Path(__file__).resolve().parents[1] / "models" / "weights" / "detector.onnx"
    card = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    def net(width):
        return CentreNet(len(card["classes"]), len(card["colours"]) + 1, len(card["sides"]) + 1, width)

    model = net(card["width"])
    assert init_from_onnx(model, path, card)["train"] == card["train"]
    model.train()
    freeze_batchnorm(model)
    x = np.random.default_rng(0).uniform(0, 255, (1, 3, 96, 128)).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": x})
    with torch.no_grad():
        got = [o.numpy() for o in model(torch.from_numpy(x))]
    for g, w in zip(got, want):
        assert np.allclose(g, w, atol=2e-4), float(np.abs(g - w).max())
    with pytest.raises(UserError, match="width"):
        init_from_onnx(net(16), path, {**card, "width": 16})


def test_a_fine_tune_may_add_classes_and_colours_keeping_the_old_outputs():
    """`tablewatch train --init detector.onnx --data WENDAKE IWARI`: a run whose data add classes (a new game's
    pieces) and colours starts from the export with every old class, colour and side output where its name now is,
    the new ones fresh; data that drop one of the detector's classes is refused."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import json

    import onnxruntime as ort

    from models.detector.net import CentreNet
    from models.detector.train import init_from_onnx

    path = Path(__file__).resolve().parents[1] / "models" / "weights" / "detector.onnx"
    old = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    card = {**old, "classes": [*old["classes"], "new_piece_a", "new_piece_b"], "colours": [*old["colours"], "new_colour"]}
    model = CentreNet(len(card["classes"]), len(card["colours"]) + 1, len(card["sides"]) + 1, card["width"])
    assert init_from_onnx(model, path, card)["added"] == {"classes": ["new_piece_a", "new_piece_b"], "colours": ["new_colour"]}
    model.eval()
    x = np.random.default_rng(1).uniform(0, 255, (1, 3, 96, 128)).astype(np.float32)
    heat0, reg0, col0, side0 = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": x})
    with torch.no_grad():
        heat1, reg1, col1, side1 = (o.numpy() for o in model(torch.from_numpy(x)))
    n, k = len(old["classes"]), len(old["colours"])
    assert np.allclose(heat1[:, :n], heat0, atol=2e-4) and np.allclose(reg1, reg0, atol=2e-4)
    assert np.allclose(col1[:, :k], col0[:, :k], atol=2e-4) and np.allclose(col1[:, k + 1], col0[:, k], atol=2e-4)  # the unknown colour
    assert np.allclose(side1, side0, atol=2e-4)
    assert heat1.shape[1] == n + 2 and col1.shape[1] == k + 2
    with pytest.raises(UserError, match="keeps every class"):
        init_from_onnx(model, path, {**card, "classes": card["classes"][1:]})
