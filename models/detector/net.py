"""The detector net: a tiny anchor-free centre-point network (stride 4) with class-heatmap, offset/size and
attribute heads. The number of classes, colours and sides comes from the data manifest, not from this file."""

from __future__ import annotations

import torch
from torch import nn

STRIDE = 4
MULTIPLE = 8  # input height and width must be multiples of this


def cbr(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CentreNet(nn.Module):
    """Input: (N, 3, H, W) float BGR 0..255. Outputs heat (sigmoid), reg (offset x, y in 0..1; log w, h mm),
    colour and side logits, all at stride 4."""

    def __init__(self, n_classes: int, n_colours: int, n_sides: int, width: int = 32):
        super().__init__()
        w = width
        self.stem = nn.Sequential(cbr(3, w // 2, 2), cbr(w // 2, w, 2), cbr(w, w))           # stride 4
        # stride 8, dilated: a standing warrior's head leans up to ~15 mm off its base in the rectified view, so the
        # centre cell must see ~100 mm of context
        self.down = nn.Sequential(cbr(w, 2 * w, 2), cbr(2 * w, 2 * w, dilation=2), cbr(2 * w, 2 * w, dilation=4), cbr(2 * w, 2 * w))
        self.lat = nn.Conv2d(2 * w, w, 1)
        self.fuse = cbr(w, w)
        self.n_classes, self.n_colours, self.n_sides = n_classes, n_colours, n_sides
        self.head = nn.Conv2d(w, n_classes + 4 + n_colours + n_sides, 1)
        with torch.no_grad():
            self.head.bias[:n_classes].fill_(-2.19)  # prior 0.1 on the heatmap

    def forward(self, x: torch.Tensor):
        x = x * (1.0 / 255.0) - 0.5
        s4 = self.stem(x)
        s8 = self.down(s4)
        up = nn.functional.interpolate(self.lat(s8), scale_factor=2.0, mode="nearest")
        f = self.fuse(s4 + up)
        o = self.head(f)
        c, k = self.n_classes, self.n_colours
        heat = torch.sigmoid(o[:, :c])
        off = torch.sigmoid(o[:, c:c + 2])
        size = o[:, c + 2:c + 4]
        return heat, torch.cat([off, size], 1), o[:, c + 4:c + 4 + k], o[:, c + 4 + k:]


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
