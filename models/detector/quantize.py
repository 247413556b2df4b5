"""int8 variant of the detector: onnxruntime static quantisation (QDQ, per-channel int8 weights, uint8
activations) calibrated on rectified views from the training folder. Writes ``detector-int8.onnx`` beside the
fp32 file; it shares ``detector.json``. Needs the ``onnx`` package (training side only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.detector.data import load_views


def quantize(fp32: Path, data: Path | list[Path], scales: dict, n_calib: int = 24) -> Path:
    """``scales``: the card's input scales (``px_per_mm`` and ``small_boards``), so calibration sees the views
    at the scales the net reads them at; ``data``: the training folder(s), calibrated on views spread over each."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    folders = data if isinstance(data, (list, tuple)) else [data]
    calib = []
    for folder in folders:
        views, rects, _, _ = load_views(folder, scales)
        idx = np.linspace(0, len(rects) - 1, max(1, n_calib // len(folders))).astype(int)  # spread over scenes and boards
        calib += [views[i] for i in idx]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = []
            for view in calib:
                v = np.asarray(view, np.float32)
                H, W = (-(-v.shape[0] // 8) * 8, -(-v.shape[1] // 8) * 8)
                pad = np.zeros((H, W, 3), np.float32)
                pad[:v.shape[0], :v.shape[1]] = v
                self.items.append({"image": pad.transpose(2, 0, 1)[None].copy()})
            self.it = iter(self.items)

        def get_next(self):
            return next(self.it, None)

    out = fp32.with_name(fp32.stem + "-int8.onnx")
    quantize_static(str(fp32), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    return out
