"""One ``tablewatch adapt`` of a table profile, and its rollback (docs/adapt.md).

``adapt``: the profile's harvested looks are split (``looks.split``: the newest games held out whole when the looks
come from two games or more, else every 4th look); the others give
the labels (the rules' values) for the detector's table head, the counter's recalibration and the gallery
crops, fitted from the base models' outputs; the held-out looks are then read with the current weights (the
profile's adaptation in use, or none) and with the new ones, through the observer's own reading code; the
owner's tile crops are left out of the new ones when the held-out tile faces read worse with them. The new
adaptation is swapped in only when it misreads fewer held-out regions and no region kind reads worse by more than
``KIND_MARGIN`` (``kind_worse``): the one in use moves to ``adapted.prev/``. ``adapted/card.json`` gives the figures, ``adapted/reliability.json`` the held-out right and
wrong counts per region kind and raw-confidence bin after adapting.

``rollback``: ``adapted.prev/`` and ``adapted/`` change places (with no ``adapted.prev/``, the adaptation is set
aside there and the table is read with the base models again).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from assistant.errors import UserError
from assistant.jsonfile import write_atomic
from models.adapt import counter_head, detector_head, galleries
from models.adapt.looks import TILE_KIND, HarvestedLook, games_of, load_looks, split
from models.adapt.views import Figures, figures, observer_for, read_looks, reliability
from vision.detect import decode
from vision.observe import ADAPTED_CARD, COUNTER_HEAD, DETECTOR_HEAD, TILE_ADDITIONS, TOKEN_ADDITIONS

CARD_FORMAT = "tablewatch.adapted/1"
NEW_DIR = "adapted.new"  # the candidate, before the check decides
# shares of the progress bar: learning from the looks, fitting, reading the held-out looks twice
PHASES = (
    ("collecting labels", 0.45),
    ("fitting", 0.05),
    ("reading held-out looks (current)", 0.25),
    ("reading held-out looks (new)", 0.25),
)

Progress = Callable[[float, str], None]
# A region kind reads worse when the new adaptation misreads more of its held-out regions than the weights in use by
# more than this many regions or this share of them, whichever is more: a total that improves may hide a kind that
# got worse (foreign table 102: counted regions 80.2 % -> 78.0 % on game 2 while the rest gained; docs/adapt.md).
KIND_MARGIN = (2, 0.005)
KIND_WORDS = {"count": "counted regions", "pile": "piles", "top-of-stack": "stacks", "tile-face": "tile faces"}


def _phase(progress: Progress | None, k: int):
    """``progress(i, n)`` for phase ``k`` as a share of the whole run."""
    start = sum(w for _, w in PHASES[:k])
    name, w = PHASES[k]
    return None if progress is None else (lambda i, n: progress(start + w * i / max(1, n), name))


def collect(looks: list[HarvestedLook], ob, progress=None) -> dict:
    """The labelled samples of ``looks`` for every part fitted, from the base models in the observer ``ob``
    (read without adaptation)."""
    det, counter, tokens = ob.detector, ob.counter, ob.tokens
    head = detector_head.HeadSamples()
    counts: tuple[list, list] = ([], [])
    tiles, faces = galleries.Crops(), galleries.Crops()
    for i, lk in enumerate(looks):
        for board, (_, r) in sorted(lk.boards.items()):
            layout, reader = ob.layouts[board], ob.readers[board]
            view = lk.view(board)
            out, r_in = det.outputs(view, r)
            detector_head.add_board(head, out, r_in, det.card, reader, board, lk.expected, lk.kinds)
            if counter is not None:
                lp, lab = counter_head.board_samples(counter, view, r, layout, lk.expected)
                counts[0].extend(lp)
                counts[1].extend(lab)
            galleries.add_tiles(tiles, view, r, layout, lk.expected)
            if tokens is not None:
                dets = decode(
                    out["heat"][0],
                    out["reg"][0],
                    out["colour"][0],
                    out["side"][0],
                    det.card,
                    ob.threshold,
                    float(det.card.get("nms_mm", 7.0)),
                    r_in,
                )
                galleries.add_tokens(faces, tokens, view, r, board, dets, reader.region_of, lk.expected)
        if progress is not None:
            progress(i + 1, len(looks))
    return {"head": head, "counts": counts, "tiles": tiles, "tokens": faces}


def write_candidate(folder: Path, samples: dict, ob) -> dict:
    """Fit every part on ``samples`` and write the adaptation files into ``folder`` (emptied first); returns what
    was fitted, in numbers."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    hs = samples["head"]
    detector_head.fit_head(hs, ob.detector.card).save(folder / DETECTOR_HEAD)
    fitted = {"detector": {"peaks": len(hs), "regions": hs.regions, "regions_unmatched": hs.skipped}}
    if ob.counter is not None:
        ch = counter_head.fit_count_head(*samples["counts"], ob.counter.max_count + 1)
        if ch is not None:
            ch.save(folder / COUNTER_HEAD)
        fitted["counter"] = {"crops": len(samples["counts"][1])}
    labels, vectors = samples["tiles"].chosen()
    if labels:
        np.savez_compressed(folder / TILE_ADDITIONS, labels=np.array(labels), vectors=vectors.astype(np.float16))
    fitted["tiles"] = {"crops": len(labels), "labels": len(set(labels))}
    labels, faces = samples["tokens"].chosen()
    if labels:
        np.savez_compressed(folder / TOKEN_ADDITIONS, labels=np.array(labels), templates=faces.astype(np.float16))
    fitted["tokens"] = {"faces": len(labels)}
    (folder / ADAPTED_CARD).write_text(json.dumps({"format": CARD_FORMAT, "candidate": True}), encoding="utf-8")
    return fitted


def _wrong(f: Figures, kind: str) -> int:
    return f.by_kind.get(kind, [0, 0])[1]


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def kind_worse(before: Figures, after: Figures) -> list[dict]:
    """The region kinds that read worse after than before by more than ``KIND_MARGIN``, the worst first:
    [{"kind", "before", "after" (shares), "checked", "more_misread"}]."""
    out = []
    for kind in sorted(set(before.by_kind) | set(after.by_kind)):
        checked = after.by_kind.get(kind, [0, 0])[0] or before.by_kind.get(kind, [0, 0])[0]
        more = _wrong(after, kind) - _wrong(before, kind)
        if more > max(KIND_MARGIN[0], KIND_MARGIN[1] * checked):
            out.append(
                {
                    "kind": kind,
                    "before": before.kind_share(kind),
                    "after": after.kind_share(kind),
                    "checked": checked,
                    "more_misread": more,
                }
            )
    return sorted(out, key=lambda w: (-w["more_misread"] / max(1, w["checked"]), w["kind"]))


def _kind_words(kind: str) -> str:
    return KIND_WORDS.get(kind, kind)


def decide(before: Figures, after: Figures) -> tuple[bool, list[dict], str]:
    """Whether the new adaptation (read as ``after``) replaces the weights in use (``before``): it must misread
    fewer held-out regions and no region kind worse (``kind_worse``). (swap, the kinds that read worse, the line
    saying why the weights in use are kept: "" when swapped)."""
    worse = kind_worse(before, after)
    if after.misread < before.misread and not worse:
        return True, worse, ""
    if worse and after.misread < before.misread:
        w = worse[0]
        return (
            False,
            worse,
            (
                f"kept the current weights: the new ones read your table's {_kind_words(w['kind'])} worse "
                f"({_pct(w['before'])} → {_pct(w['after'])} of {w['checked']} held-out), though "
                f"{_pct(before.share)} → {_pct(after.share)} of all its regions"
            ),
        )
    return (
        False,
        worse,
        (
            f"kept the current weights: the new ones read {_pct(after.share)} of your table's held-out "
            f"regions, the current ones {_pct(before.share)}"
        ),
    )


def card(
    looks: int,
    held_out: int,
    before: Figures,
    after: Figures,
    fitted: dict,
    made: str,
    held_games: list[str] | None = None,
    worse: list[dict] | None = None,
) -> dict:
    kinds = sorted(set(before.by_kind) | set(after.by_kind))
    return {
        "format": CARD_FORMAT,
        "made": made,
        "looks": looks,
        "held_out": held_out,
        "held_out_by": "game" if held_games else "look",
        "held_out_games": held_games or [],
        "worse_kinds": worse or [],
        "before": before.json(),
        "after": after.json(),
        "by_kind": {
            k: {"before": before.kind_share(k), "after": after.kind_share(k), "checked": after.by_kind.get(k, [0])[0]}
            for k in kinds
        },
        "fitted": fitted,
        "text": f"read {_pct(before.share)} → {_pct(after.share)} of your table's regions",
    }


def _write_json(path: Path, doc: dict) -> None:
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False))


def adapt(profile, progress: Progress | None = None, threads: int = 2) -> dict:
    """Adapt the readers to ``profile``'s table (see the module doc). Returns {"swapped": bool, "card": the new
    card (or the one that was not swapped in), "text": one line}. UserError when there is nothing to learn from."""
    looks = load_looks(profile.looks_dir)
    if not looks:
        raise UserError(
            f"the table profile {profile.name} has no harvested looks in {profile.looks_dir}: play a game "
            "with `tablewatch live` first (it keeps the looks it is sure of), then adapt."
        )
    learn, held = split(looks)
    base = observer_for(looks, None, profile.name, threads)
    samples = collect(learn, base, _phase(progress, 0))
    if progress is not None:
        progress(PHASES[0][1], PHASES[1][0])
    new_dir = profile.root / NEW_DIR
    fitted = write_candidate(new_dir, samples, base)
    current = profile.adapted_dir if (profile.adapted_dir / ADAPTED_CARD).is_file() else None
    before = figures(held, read_looks(observer_for(looks, current, profile.name, threads), held, _phase(progress, 2)))
    after = figures(held, read_looks(observer_for(looks, new_dir, profile.name, threads), held, _phase(progress, 3)))
    if (new_dir / TILE_ADDITIONS).is_file() and _wrong(after, TILE_KIND) > _wrong(before, TILE_KIND):
        (new_dir / TILE_ADDITIONS).unlink()  # the owner's slot crops read the tile faces worse: left out
        fitted["tiles"]["kept"] = False
        after = figures(held, read_looks(observer_for(looks, new_dir, profile.name, threads), held))
    made = datetime.now(timezone.utc).isoformat(timespec="seconds")
    held_games = games_of(held) if len(games_of(looks)) > 1 else None
    swapped, worse, kept = decide(before, after)
    doc = card(len(looks), len(held) if held is not learn else 0, before, after, fitted, made, held_games, worse)
    if swapped:
        _write_json(new_dir / ADAPTED_CARD, doc)
        _write_json(
            new_dir / "reliability.json",
            reliability(after, f"tablewatch adapt {profile.name}, {len(held)} held-out looks, {made}"),
        )
        if profile.previous_dir.exists():
            shutil.rmtree(profile.previous_dir)
        if profile.adapted_dir.exists():
            os.replace(profile.adapted_dir, profile.previous_dir)
        os.replace(new_dir, profile.adapted_dir)
        text = doc["text"]
    else:
        shutil.rmtree(new_dir)
        text = kept
    if progress is not None:
        progress(1.0, "done")
    return {"swapped": swapped, "card": doc, "text": text}


def rollback(profile) -> str:
    """Put the previous adaptation back (see the module doc); one line saying what happened."""
    prev, cur = profile.previous_dir, profile.adapted_dir
    if not (prev / ADAPTED_CARD).is_file():
        if not (cur / ADAPTED_CARD).is_file():
            raise UserError(f"the table profile {profile.name} has no adaptation to roll back: run `tablewatch adapt` first.")
        if prev.exists():
            shutil.rmtree(prev)
        os.replace(cur, prev)
        return f"{profile.name}: the adaptation is set aside (in {prev.name}/); the table is read with the base models."
    tmp = profile.root / "adapted.swap"
    if tmp.exists():
        shutil.rmtree(tmp)
    if cur.exists():
        os.replace(cur, tmp)
    os.replace(prev, cur)
    if tmp.exists():
        os.replace(tmp, prev)
    text = (json.loads((cur / ADAPTED_CARD).read_text(encoding="utf-8")) or {}).get("text", "")
    return f"{profile.name}: the previous adaptation is back ({text}); the one it replaced is in {prev.name}/."
