"""Reading harvested looks again, as the observer reads the table, and the figures of how well they read.

``observer_for`` builds a ``vision.observe.Observer`` for the boards of a table's looks, with an adaptation or
without; ``read_looks`` reads each look's stored board views through it (``vision.boardviews.read_views``: the
same code as a camera frame, the detector at the scale it read the look at live, the tile reader and the counter
at theirs from the view's pixels: 2 px/mm village views, or a 1 px/mm view of a look harvested before they were
kept at 2 px/mm); ``Figures`` counts, over the keys the rules vouch for, the regions read right and wrong, per
region kind and per raw-confidence bin (the reliability the tracker weighs, docs/adapt.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from calibration import layout as lay
from models.adapt.looks import NOT_READ, HarvestedLook, agrees
from vision.boardviews import read_views
from vision.observe import Observer

# raw-confidence bins of the reliability file (``vision.reliability``): [lo, hi)
CONFIDENCE_EDGES = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0001)


def observer_for(looks: list[HarvestedLook], adapted_dir: Path | None = None, name: str = "table", threads: int = 2) -> Observer:
    """An observer for every board of ``looks``, reading with the adaptation in ``adapted_dir`` (None: without)."""
    boards = sorted({b for lk in looks for b in lk.boards})
    profile = SimpleNamespace(adapted_dir=Path(adapted_dir), name=name) if adapted_dir is not None else None
    return Observer([lay.resolve(b) for b in boards], threads=threads, profile=profile)


def read_looks(ob: Observer, looks: list[HarvestedLook], progress=None) -> list[dict]:
    """Each look's readings ({key: Reading}), its boards read from their stored views; ``progress(i, n)``."""
    out = []
    for i, lk in enumerate(looks):
        out.append(read_views(ob, lk.views()))
        if progress is not None:
            progress(i + 1, len(looks))
    return out


@dataclass
class Figures:
    """Regions checked and misread, by region kind ({kind: [checked, wrong]}), and the reliability counts
    ({kind: {bin index: [checked, right]}})."""

    regions: int = 0
    misread: int = 0
    by_kind: dict = field(default_factory=dict)
    bins: dict = field(default_factory=dict)

    @property
    def share(self) -> float | None:
        return None if not self.regions else 1.0 - self.misread / self.regions

    def json(self) -> dict:
        return {"regions": self.regions, "misread": self.misread, "share": None if self.share is None else round(self.share, 5)}

    def kind_share(self, kind: str) -> float | None:
        c, w = self.by_kind.get(kind, (0, 0))
        return None if not c else round(1.0 - w / c, 5)


def _bin(conf: float) -> int:
    return max(i for i, lo in enumerate(CONFIDENCE_EDGES[:-1]) if conf >= lo)


def figures(looks: list[HarvestedLook], readings: list[dict]) -> Figures:
    """How ``readings`` (one dict per look) agree with what the rules expect, over the boards each look holds."""
    f = Figures()
    for lk, got in zip(looks, readings):
        for key, want in lk.expected.items():
            if key.split("/", 1)[0] not in lk.boards:
                continue
            kind = lk.kinds.get(key, "count")
            r = got.get(key)
            ok = agrees(kind, NOT_READ if r is None else r.value, want)
            f.regions += 1
            f.misread += not ok
            c = f.by_kind.setdefault(kind, [0, 0])
            c[0] += 1
            c[1] += not ok
            if r is not None:
                b = f.bins.setdefault(kind, {}).setdefault(_bin(float(r.confidence)), [0, 0])
                b[0] += 1
                b[1] += ok
    return f


def reliability(f: Figures, source: str) -> dict:
    """The reliability file (``tablewatch.reliability/1``) of these figures."""
    by_kind = {}
    for kind, bins in sorted(f.bins.items()):
        rows = [[CONFIDENCE_EDGES[i], min(1.0, CONFIDENCE_EDGES[i + 1]), c, r] for i, (c, r) in sorted(bins.items())]
        by_kind[kind] = {"bins": rows, "checked": sum(c for c, _ in bins.values()), "correct": sum(r for _, r in bins.values())}
    return {"format": "tablewatch.reliability/1", "source": source, "by_kind": by_kind}
