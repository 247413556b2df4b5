"""Measured reliability: how often a reading of one region kind at one raw confidence is right, and the readings'
confidences made that probability.

Owns ``Reliability`` (its counts, its fit, its JSON file ``tablewatch.reliability/1``) and ``region_kinds`` (the
region kind of every reading key, from the layouts alone: vision knows no game). The counts are (region kind, raw
confidence bin, checked, correct), each reading counted under its region kind and under that kind refined by what
it read (``reading_kinds``: ``resource_space:beaver``, ``territory:empty``), which weighs it once it has
``MIN_READ_AS_CHECKED`` readings; they come from ``tablewatch eval reliability`` over rendered games (the base
one, ``models/weights/reliability.json``) and from adapt over a table's own harvested looks (a table profile's
``adapted/reliability.json``, which overrides the base one for each kind where it has ``MIN_OWN_CHECKED``
readings).

The fit, per kind: each bin's share of right readings, shrunk toward the kind's share (``BIN_PRIOR`` readings'
worth) and the kind's share toward the share over all kinds (``KIND_PRIOR``), so that a bin or a kind with few
readings does not swing; then made non-decreasing in the raw confidence over the bins with readings (pooled
adjacent violators: a reading vision is surer of is never less reliable); a bin with none lies on the line between
its neighbours with readings (beyond them: the kind's share, kept monotone). ``apply`` sets each reading's confidence to that probability where it
is lower than the raw one (by ``LOWER_MARGIN`` at least: a tile face read at 1.0 whose kind reads right 99.9 % of
the time keeps its 1.0): it never raises a confidence (the counts come from other tables than the one being
read; a kind the counts do not know keeps its raw confidence). A resource count at the bound
(``COUNT_BOUND_CONFIDENCE``: a lower bound, not a count) is neither counted nor changed. docs/tracker.md (Doubt)
tells how the tracker uses it.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json, write_atomic
from assistant.table.observation import CHANGED, COUNT_BOUND_CONFIDENCE, Observation, split_reading_key

FORMAT = "tablewatch.reliability/1"
BASE_PATH = Path(__file__).resolve().parent.parent / "models" / "weights" / "reliability.json"
FILE_NAME = "reliability.json"  # in a table profile's adaptation folder
TILE_KIND = "tile"  # the kind of every ``#tile`` reading (a printed tile's face), whatever region it lies in
CHANGE_KIND = "stack-change"  # a stack's change reading (``vision.stacks``): weighed by its own counts, none yet
# raw confidence bin edges; the last bin holds 1.0 too
EDGES = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
BIN_PRIOR = 20.0  # readings' worth of the kind's share in each bin's share
KIND_PRIOR = 50.0  # readings' worth of the share over all kinds in a kind's share
MIN_OWN_CHECKED = 200  # a table's own counts replace the base ones for a kind with at least this many readings
LOWER_MARGIN = 0.01  # a confidence is lowered only where its reliability lies at least this far below it
MIN_READ_AS_CHECKED = 100  # readings a kind refined by what was read needs before it is used instead of the kind


def bin_of(confidence: float) -> int:
    """The index of the bin that holds ``confidence`` (clamped to [0, 1])."""
    c = min(max(float(confidence), 0.0), 1.0)
    return min(bisect.bisect_right(EDGES, c) - 1, len(EDGES) - 2)


def counted(confidence: float) -> bool:
    """Whether a reading at this raw confidence is counted and changed (not a count at the bound)."""
    return confidence != COUNT_BOUND_CONFIDENCE


def region_kinds(layouts) -> dict[str, str]:
    """{"<board>/<region>": the layout's region kind} over ``layouts`` (layout dicts)."""
    return {f"{lay['name']}/{r['id']}": r["kind"] for lay in layouts for r in lay.get("regions", ())}


def kind_of(kinds: dict[str, str], key: str) -> str | None:
    """The region kind of reading ``key`` (``TILE_KIND`` for a ``#tile`` reading, ``CHANGE_KIND`` for a stack's
    ``#changed`` one); None for a region no layout has."""
    board, region, tile = split_reading_key(key)
    if tile:
        return TILE_KIND
    if key.endswith(CHANGED):
        return CHANGE_KIND
    return kinds.get(f"{board}/{region}")


def read_as(value) -> str | None:
    """What a piece count reads, for the refined kinds: ``empty``, the one piece class it holds (``beaver``,
    ``warrior_standing``), or ``mixed``; None for a tile face."""
    if not isinstance(value, tuple):
        return None
    classes = {k.split(":", 1)[0] for k, _ in value}
    return "empty" if not classes else classes.pop() if len(classes) == 1 else "mixed"


def reading_kinds(kinds: dict[str, str], key: str, value) -> tuple[str, ...]:
    """The kinds a reading counts under: its region kind, and that kind refined by what it reads
    (``"resource_space:beaver"``: a kind of region can read one piece class far worse than another); () for a
    region no layout has."""
    kind = kind_of(kinds, key)
    if kind is None:
        return ()
    what = read_as(value)
    return (kind,) if what is None else (kind, f"{kind}:{what}")


@dataclass
class Reliability:
    """Counts per region kind and raw confidence bin: {kind: [[checked, correct] per bin of ``EDGES``]}."""

    counts: dict[str, list[list[int]]] = field(default_factory=dict)
    source: str = ""
    _fit: dict | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------------------------------ counting

    def add_reading(self, kinds: dict[str, str], key: str, value, confidence: float, correct: bool) -> None:
        """Count one reading at ``key`` that read ``value`` under each of its ``reading_kinds``."""
        for kind in reading_kinds(kinds, key, value):
            self.add(kind, confidence, correct)

    def add(self, kind: str, confidence: float, correct: bool, n: int = 1) -> None:
        """Count ``n`` readings of ``kind`` at raw ``confidence``, right or not."""
        if not counted(confidence):
            return
        bins = self.counts.setdefault(kind, [[0, 0] for _ in range(len(EDGES) - 1)])
        b = bins[bin_of(confidence)]
        b[0] += n
        b[1] += n if correct else 0
        self._fit = None

    def checked(self, kind: str | None = None) -> int:
        """Readings counted of ``kind``, or of every region kind (refinements, which count them again, aside)."""
        return sum(b[0] for k in self._kinds(kind) for b in self.counts.get(k, ()))

    def correct(self, kind: str | None = None) -> int:
        return sum(b[1] for k in self._kinds(kind) for b in self.counts.get(k, ()))

    def _kinds(self, kind: str | None) -> list[str]:
        return [kind] if kind is not None else [k for k in self.counts if ":" not in k]

    # ------------------------------------------------------------------------------------------ the fit

    def fitted(self) -> dict[str, list[float]]:
        """{kind: the probability that a reading in each bin is right} (module docstring)."""
        if self._fit is None:
            total, right = self.checked(), self.correct()
            overall = (right + 1.0) / (total + 2.0)
            self._fit = {k: _fit_kind(bins, overall) for k, bins in self.counts.items()}
        return self._fit

    def probability(self, kind: str | None, confidence: float) -> float | None:
        """The measured probability that a reading of ``kind`` at raw ``confidence`` is right; None when the counts
        do not know the kind."""
        ps = self.fitted().get(kind) if kind is not None else None
        return None if ps is None else ps[bin_of(confidence)]

    def confidence(self, kind: str | None, confidence: float) -> float:
        """A reading's confidence after the measured reliability: never above the raw one."""
        if not counted(confidence):
            return confidence
        p = self.probability(kind, confidence)
        return confidence if p is None or p > confidence - LOWER_MARGIN else round(p, 4)

    def kind_for(self, kinds: dict[str, str], key: str, value) -> str | None:
        """The kind whose counts weigh a reading: refined by what it read where that has ``MIN_READ_AS_CHECKED``
        readings, else its region kind."""
        found = reading_kinds(kinds, key, value)
        for kind in found[::-1]:
            if self.checked(kind) >= (MIN_READ_AS_CHECKED if ":" in kind else 1):
                return kind
        return found[0] if found else None

    def apply(self, obs: Observation, kinds: dict[str, str]) -> Observation:
        """``obs`` with every reading's confidence made its measured reliability (``confidence``, under
        ``kind_for``); a tile face's runner-up margins shrink in the same ratio. ``kinds``: ``region_kinds`` of the
        boards read."""
        if not self.counts:
            return obs
        out, changed = {}, False
        for key, r in obs.readings.items():
            c = self.confidence(self.kind_for(kinds, key, r.value), r.confidence)
            if c != r.confidence:
                ratio = c / r.confidence if r.confidence > 0 else 0.0
                r = replace(r, confidence=c, others=tuple((v, round(m * ratio, 4)) for v, m in r.others))
                changed = True
            out[key] = r
        return replace(obs, readings=out) if changed else obs

    # ------------------------------------------------------------------------------------------ combining, files

    def overridden_by(self, own: "Reliability", min_checked: int = MIN_OWN_CHECKED) -> "Reliability":
        """These counts with ``own``'s (a table profile's) in their place for every kind where ``own`` has at least
        ``min_checked`` readings."""
        taken = sorted(k for k in own.counts if own.checked(k) >= min_checked)
        # a kind taken from the table drops the base's refinements of it that the table does not give too
        counts = {k: [list(b) for b in v] for k, v in self.counts.items()
                  if k.partition(":")[0] not in taken or k in taken}
        counts.update({k: [list(b) for b in own.counts[k]] for k in taken})
        source = self.source if not taken else f"{self.source or 'base'}; this table's own for {', '.join(taken)}"
        return Reliability(counts, source)

    def to_json(self) -> dict:
        by_kind = {}
        for k in sorted(self.counts):
            bins = [[EDGES[i], EDGES[i + 1], n, ok] for i, (n, ok) in enumerate(self.counts[k]) if n]
            by_kind[k] = {"bins": bins, "checked": self.checked(k), "correct": self.correct(k)}
        return {"format": FORMAT, "source": self.source, "by_kind": by_kind}

    @classmethod
    def from_json(cls, d, where: str = "the reliability file") -> "Reliability":
        """The counts of a ``tablewatch.reliability/1`` document; a one-line UserError naming ``where`` when it is
        not one."""
        fix = "Write it again with `tablewatch eval reliability --write` (or adapt the table again)."
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise UserError(f"{where} is not a reliability file (format {FORMAT!r} expected). {fix}")
        by_kind = d.get("by_kind")
        if not isinstance(by_kind, dict):
            raise UserError(f"{where}: \"by_kind\" must be an object of region kinds. {fix}")
        rel = cls(source=str(d.get("source", "")))
        for kind, entry in by_kind.items():
            bins = entry.get("bins") if isinstance(entry, dict) else None
            if not isinstance(bins, list):
                raise UserError(f"{where}: kind {kind!r} has no list of \"bins\". {fix}")
            for b in bins:
                if not (isinstance(b, list) and len(b) == 4 and all(_number(x) for x in b)
                        and 0 <= b[0] < b[1] <= 1 and 0 <= b[3] <= b[2]):
                    raise UserError(f"{where}: kind {kind!r} has a bin {json.dumps(b)[:60]} that is not "
                                    f"[lo, hi, checked, correct] with 0 <= lo < hi <= 1 and correct <= checked. {fix}")
                rel.add(kind, (b[0] + b[1]) / 2.0, True, int(b[3]))
                rel.add(kind, (b[0] + b[1]) / 2.0, False, int(b[2] - b[3]))
        return rel

    @classmethod
    def load(cls, path) -> "Reliability":
        path = Path(path)
        return cls.from_json(read_json(path), where=str(path))

    def save(self, path) -> None:
        """Write the file whole or not at all."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        d = self.to_json()
        kinds = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in d["by_kind"].items())
        write_atomic(path, f'{{"format": {json.dumps(d["format"])}, "source": {json.dumps(d["source"])},\n "by_kind": {{\n'
                           f"{kinds}\n }}\n}}\n")  # one line a kind


def for_profile(profile=None, base_path=None) -> Reliability:
    """The reliability to read a table with: the base one (``BASE_PATH``; none: no change) with the table profile's
    own (``profile.adapted_dir / FILE_NAME``) where it has enough readings."""
    path = Path(base_path) if base_path is not None else BASE_PATH
    rel = Reliability.load(path) if path.is_file() else Reliability(source="none")
    own = Path(profile.adapted_dir) / FILE_NAME if profile is not None else None
    if own is not None and own.is_file():
        rel = rel.overridden_by(Reliability.load(own))
    return rel


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _fit_kind(bins: list[list[int]], overall: float) -> list[float]:
    """One kind's probability per bin: shrunk shares made non-decreasing (module docstring)."""
    n = sum(b[0] for b in bins)
    ok = sum(b[1] for b in bins)
    kind = (ok + KIND_PRIOR * overall) / (n + KIND_PRIOR)
    seen = [i for i, b in enumerate(bins) if b[0]]
    if not seen:
        return [kind] * len(bins)
    fit = dict(zip(seen, _non_decreasing([(bins[i][1] + BIN_PRIOR * kind) / (bins[i][0] + BIN_PRIOR) for i in seen],
                                         [bins[i][0] + BIN_PRIOR for i in seen])))
    out = []
    for i in range(len(bins)):  # a bin with no readings: between its counted neighbours, beyond them the kind's share
        below = max((j for j in seen if j <= i), default=None)
        above = min((j for j in seen if j >= i), default=None)
        if below is None:
            out.append(min(kind, fit[above]))
        elif above is None:
            out.append(max(kind, fit[below]))
        elif above == below:
            out.append(fit[i])
        else:
            out.append(fit[below] + (fit[above] - fit[below]) * (i - below) / (above - below))
    return out


def _non_decreasing(values: list[float], weights: list[float]) -> list[float]:
    """The weighted least-squares non-decreasing fit of ``values`` (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [mean, weight, length]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    out: list[float] = []
    for v, _, n in blocks:
        out += [v] * int(n)
    return out
