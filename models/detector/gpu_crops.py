"""Training crops drawn on the training device (``tablewatch train --gpu-crops``): every training view uploaded once
into one flat uint8 tensor, and each step's batch of augmented crops sampled from it by bilinear gathering, with
their centre-point targets built by tensor operations, so a GPU is not starved by a CPU crop loader.

The geometry is ``data.random_crop``'s (random place, quarter turns, flips, ±8 % scale; the same affine map, pixel
for pixel, as ``cv2.warpAffine`` with a black border) and the targets are ``data.gaussian_targets``' (σ = 1 cell
Gaussians, weight 0 near ignored pieces, one positive row per piece). The light is ``random_crop``'s (contrast,
brightness, white-balance drift, noise) widened for a table never seen: a colour-temperature cast, a gamma and a
light gradient across the crop. Each step's crops come from a torch generator seeded (seed, step)."""

from __future__ import annotations

import math

import numpy as np
import torch

from models.detector.data import STRIDE

RAD = 3  # cells: ceil(3σ) for σ = 1, as gaussian_targets


class GpuCrops:
    """The training views and their labels on ``device``; ``draw(step)`` gives one step's batch."""

    def __init__(self, views: list, targets: list[dict], train_idx, pick_p, crop: int, n_classes: int, device: str,
                 seed: int, batch: int):
        self.crop, self.n_classes, self.device, self.seed, self.batch = crop, n_classes, device, seed, batch
        idx = [int(i) for i in train_idx]
        sizes = [int(np.prod(views[i].shape)) for i in idx]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.flat = torch.empty(int(sum(sizes)), dtype=torch.uint8, device=device)
        for off, n, i in zip(offsets, sizes, idx):
            self.flat[int(off):int(off) + n] = torch.from_numpy(np.array(views[i]).reshape(-1)).to(device)
        self.offset = torch.as_tensor(offsets, device=device)
        self.hw = torch.as_tensor([views[i].shape[:2] for i in idx], dtype=torch.float32, device=device)
        pmax = max(1, max(len(targets[i]["cls"]) for i in idx))
        lab = np.zeros((len(idx), pmax, 9), np.float32)  # u, v, class, colour, side, w, h, ignore, present
        for j, i in enumerate(idx):
            t = targets[i]
            k = len(t["cls"])
            lab[j, :k, :2], lab[j, :k, 2], lab[j, :k, 3], lab[j, :k, 4] = t["uv"], t["cls"], t["colour"], t["side"]
            lab[j, :k, 5:7], lab[j, :k, 7], lab[j, :k, 8] = t["size"], t["ignore"], 1.0
        self.labels = torch.as_tensor(lab, device=device)
        self.pick_p = torch.as_tensor(np.asarray(pick_p, np.float64), dtype=torch.float64, device=device)

    def draw(self, step: int):
        """(images (B, 3, crop, crop) float 0..255, heat (B, C, h, w), weight (B, h, w), positives (N, 10): batch,
        cell y, cell x, offset x, y, log w, log h, class, colour, side), all on the device."""
        g = torch.Generator(device=self.device)
        g.manual_seed(int(self.seed) * 1_000_003 + int(step))
        B, dev = self.batch, self.device
        u = lambda *shape: torch.rand(*shape, generator=g, device=dev)  # noqa: E731
        vi = torch.multinomial(self.pick_p, B, replacement=True, generator=g)
        s = 0.92 + 0.16 * u(B)
        k = torch.randint(0, 4, (B,), generator=g, device=dev)
        flip = u(B) < 0.5
        H, W = self.hw[vi, 0], self.hw[vi, 1]

        def centre(extent):  # a board narrower than the crop (a score track) sits anywhere inside it
            lo, hi = self.crop / 2 / s - 20, extent - self.crop / 2 / s + 20
            return torch.minimum(lo, hi) + u(B) * (hi - lo).abs()

        cx, cy = centre(W), centre(H)
        img, labels = self.render(vi, s, k, flip, cx, cy)
        heat, weight, pos = self.targets(labels)
        return self.light(img, g), heat, weight, pos

    def render(self, vi, s, k, flip, cx, cy):
        """The crops of views ``vi`` (indices into the training views) at scale ``s``, ``k`` quarter turns, ``flip``,
        centred on source pixel (cx, cy): (images (B, 3, crop, crop) float, labels moved into the crop (B, P, 9))."""
        crop, dev = self.crop, self.device
        ang = k.to(torch.float32) * (math.pi / 2)
        a, b = s * torch.cos(ang), s * torch.sin(ang)  # cv2.getRotationMatrix2D: [[a, b], [-b, a]]
        half = crop / 2
        ys, xs = torch.meshgrid(torch.arange(crop, device=dev, dtype=torch.float32),
                                torch.arange(crop, device=dev, dtype=torch.float32), indexing="ij")
        dx = torch.where(flip[:, None, None], (crop - 1) - xs, xs) - half  # undo the flip, then the translation
        dy = ys[None].expand_as(dx) - half
        inv = 1.0 / (s * s)
        A, Bm = a[:, None, None], b[:, None, None]
        sx = inv[:, None, None] * (A * dx - Bm * dy) + cx[:, None, None]
        sy = inv[:, None, None] * (Bm * dx + A * dy) + cy[:, None, None]
        img = self._bilinear(vi, sx, sy)
        lab = self.labels[vi].clone()
        u0, v0 = lab[..., 0] - cx[:, None], lab[..., 1] - cy[:, None]
        nu = a[:, None] * u0 + b[:, None] * v0 + half
        nv = -b[:, None] * u0 + a[:, None] * v0 + half
        nu = torch.where(flip[:, None], (crop - 1) - nu, nu)
        inside = (nu > -0.5) & (nv > -0.5) & (nu < crop - 0.5) & (nv < crop - 0.5)
        lab[..., 0], lab[..., 1] = nu, nv
        lab[..., 8] = lab[..., 8] * inside
        return img, lab

    def _bilinear(self, vi, sx, sy):
        """Bilinear samples of the flat views at float source pixels (sx, sy), 0 outside the view (B, 3, h, w)."""
        H, W = self.hw[vi, 0].long()[:, None, None], self.hw[vi, 1].long()[:, None, None]
        base = self.offset[vi][:, None, None]
        x0, y0 = torch.floor(sx), torch.floor(sy)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        x0, y0 = x0.long(), y0.long()
        out = 0
        for ox, oy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            x, y = x0 + ox, y0 + oy
            ok = (x >= 0) & (y >= 0) & (x < W) & (y < H)
            at = base + (y.clamp(min=0) * W + x.clamp(min=0)) * 3
            at = torch.where(ok, at, torch.zeros_like(at))
            px = self.flat[at[..., None] + torch.arange(3, device=self.device)].to(torch.float32)
            out = out + w * px * ok[..., None]
        return out.permute(0, 3, 1, 2).contiguous()

    def light(self, img, g):
        """Contrast, brightness, white balance, a colour-temperature cast, a gamma, a light gradient and noise."""
        B, dev = img.shape[0], self.device
        u = lambda *shape: torch.rand(*shape, generator=g, device=dev)  # noqa: E731
        o = (img - 128.0) * (0.75 + 0.5 * u(B, 1, 1, 1)) + 128.0 + (70 * u(B, 1, 1, 1) - 35)
        o = o * (0.9 + 0.2 * u(B, 3, 1, 1))  # white-balance drift, per channel
        t = 0.2 * u(B) - 0.1  # warm (+) or cool (-): red up and blue down, or the reverse (BGR order), by up to 10 %
        o = o * torch.stack([1 - t, torch.ones_like(t), 1 + t], 1)[:, :, None, None]
        theta = 2 * math.pi * u(B)
        ramp = (torch.cos(theta)[:, None, None] * torch.linspace(-0.5, 0.5, self.crop, device=dev)[None, None, :]
                + torch.sin(theta)[:, None, None] * torch.linspace(-0.5, 0.5, self.crop, device=dev)[None, :, None])
        grad = (0.4 * u(B, 3, 1, 1) - 0.2) * (u(B, 1, 1, 1) < 0.5)  # half the crops: a side lit in another colour
        o = o * (1 + grad * ramp[:, None])
        o = o.clamp(0, 255)
        gamma = torch.exp(0.35 * (2 * u(B, 1, 1, 1) - 1))
        o = 255.0 * (o / 255.0) ** gamma
        sigma = (1 + 5 * u(B, 1, 1, 1)) * (u(B, 1, 1, 1) < 0.5)
        o = o + sigma * torch.randn(o.shape, generator=g, device=dev)
        return o.clamp(0, 255)

    def targets(self, lab):
        """``data.gaussian_targets`` for a batch of labels already in crop pixels (B, P, 9)."""
        B, P = lab.shape[:2]
        h = w = self.crop // STRIDE
        cx, cy = lab[..., 0] / STRIDE, lab[..., 1] / STRIDE
        ix, iy = torch.floor(cx), torch.floor(cy)
        present = (lab[..., 8] > 0) & (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        ignored = present & (lab[..., 7] > 0)
        positive = present & ~ignored
        grid = torch.arange(w, device=self.device, dtype=torch.float32)
        ddx, ddy = grid[None, None] - ix[..., None], grid[None, None] - iy[..., None]  # (B, P, w)
        wx, wy = ddx.abs() <= RAD, ddy.abs() <= RAD
        gx, gy = torch.exp(-ddx ** 2 / 2) * wx, torch.exp(-ddy ** 2 / 2) * wy
        g = gy[..., :, None] * gx[..., None, :] * positive[..., None, None]  # (B, P, h, w)
        cls = lab[..., 2].long()
        heat = torch.zeros(B, self.n_classes, h, w, device=self.device)
        heat.scatter_reduce_(1, cls[..., None, None].expand(B, P, h, w), g, reduce="amax", include_self=True)
        window = (wy[..., :, None] & wx[..., None, :]) & ignored[..., None, None]
        weight = torch.where(window.any(1), 0.0, 1.0)
        weight = torch.maximum(weight, heat.amax(1))
        b, p = torch.nonzero(positive, as_tuple=True)
        pos = torch.stack([b.to(torch.float32), iy[b, p], ix[b, p], cx[b, p] - ix[b, p], cy[b, p] - iy[b, p],
                           torch.log(lab[b, p, 5]), torch.log(lab[b, p, 6]), lab[b, p, 2], lab[b, p, 3], lab[b, p, 4]], 1)
        return heat, weight, pos
