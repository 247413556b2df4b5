"""`tablewatch train --gpu-crops`: the crops made on the training device are the CPU loader's crops (the same affine
map as cv2.warpAffine, the same Gaussian targets, ignore weights and positives), checked here on the CPU build of
torch; and a short run with them trains and exports."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
cv2 = pytest.importorskip("cv2")

from models.detector.data import gaussian_targets, transform  # noqa: E402
from models.detector.gpu_crops import GpuCrops  # noqa: E402


def _views():
    rng = np.random.default_rng(3)
    views = [rng.integers(0, 256, (150 + 16 * i, 170 + 8 * i, 3), dtype=np.uint8) for i in range(3)]
    targets = [{"uv": np.array([[40.0 + 5 * i, 50.0], [90.0, 70.5], [60.0, 61.0], [100.0, 30.0 + i]], np.float32),
                "cls": np.array([0, 1, 0, 2]), "colour": np.array([0, 2, 1, 3]), "side": np.array([2, 1, 0, 2]),
                "size": np.array([[12.0, 10.0], [8.0, 9.0], [20.0, 14.0], [11.0, 11.0]], np.float32),
                "ignore": np.array([False, i == 1, False, False])} for i in range(3)]
    return views, targets


def _cv2_crop(view, s, k, flip, cx, cy, crop):
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), k * 90.0, s)
    M[:, 2] += np.array([crop / 2 - cx, crop / 2 - cy])
    if flip:
        M = np.array([[-1, 0, crop - 1], [0, 1, 0]], np.float64) @ np.vstack([M, [0, 0, 1]])
    img = cv2.warpAffine(view, M, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    return img, M.astype(np.float32)


@pytest.mark.parametrize("s,k,flip,cx,cy", [(1.0, 0, False, 80.0, 75.0), (1.07, 1, True, 95.5, 60.25), (0.93, 3, False, 40.0, 140.0),
                                            (1.0, 2, True, 20.0, 30.0)])
def test_a_crop_on_the_device_is_the_cpu_loaders_crop(s, k, flip, cx, cy):
    views, targets = _views()
    crop = 64
    gpu = GpuCrops(views, targets, np.arange(3), np.full(3, 1 / 3), crop, 3, "cpu", seed=0, batch=1)
    for vi in range(3):
        img, lab = gpu.render(torch.tensor([vi]), torch.tensor([s]), torch.tensor([k]), torch.tensor([flip]),
                              torch.tensor([cx]), torch.tensor([cy]))
        want, M = _cv2_crop(views[vi], s, k, flip, cx, cy, crop)
        got = img[0].permute(1, 2, 0).numpy()
        assert np.abs(got - want.astype(np.float32)).max() <= 1.01  # cv2 rounds its bilinear weights to 1/32
        heat, weight, pos = gpu.targets(lab)
        t = transform(targets[vi], M, (crop, crop))
        want_heat, want_w, want_pos = gaussian_targets(t, (crop, crop), 3)
        np.testing.assert_allclose(heat[0].numpy(), want_heat, atol=1e-4)
        np.testing.assert_allclose(weight[0].numpy(), want_w, atol=1e-4)
        got_pos = pos.numpy()[:, 1:]
        order = lambda a: a[np.lexsort(a.T[::-1])]  # noqa: E731
        np.testing.assert_allclose(order(got_pos), order(want_pos), atol=1e-4)


def test_a_batch_is_seeded_by_step_and_its_light_stays_in_range():
    views, targets = _views()
    gpu = GpuCrops(views, targets, np.arange(3), np.array([0.5, 0.25, 0.25]), 64, 3, "cpu", seed=4, batch=6)
    a, b, c = gpu.draw(1), gpu.draw(1), gpu.draw(2)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a[0], c[0])
    img, heat, weight, pos = a
    assert img.shape == (6, 3, 64, 64) and heat.shape == (6, 3, 16, 16) and weight.shape == (6, 16, 16)
    assert float(img.min()) >= 0 and float(img.max()) <= 255
    assert pos.shape[1] == 10 and torch.all(pos[:, 0] < 6)
    assert math.isclose(float(heat.max()), 1.0, abs_tol=1e-6)


@pytest.mark.slow
def test_a_time_budgeted_run_with_device_crops_trains_and_exports(tmp_path):
    """`tablewatch train --gpu-crops --minutes M` (here on the CPU): the step count is set from the first steps' pace
    and written in the card."""
    pytest.importorskip("onnx")
    from models.detector import train as tr
    from models.synth.writer import generate

    data = tmp_path / "synth"
    data.mkdir()
    generate(14, 5, data, players=2, size=(640, 480), workers=1, progress=False)
    card = tr.train(data, tmp_path / "w", steps=tr.PROBE_STEPS + 30, batch=2, crop=64, px_per_mm=1.0, seed=3, val_scenes=4,
                    val_every=1000, width=8, lr=3e-3, gpu_crops=True, minutes=0.05)
    assert card["train"]["gpu_crops"] is True
    assert tr.PROBE_STEPS < card["train"]["steps"] <= tr.PROBE_STEPS + 30
    assert (tmp_path / "w" / "detector.onnx").is_file()
