"""Backend for mapping a retail board: save the polygons traced on a rectified photo (``vision.locate.rectify_photo``).

The tablet app's editor shows the rectified photo (board seen from above at ``px_per_mm``), the owner traces
regions on it, and sends them back as pixel polygons. ``add_traced`` converts them to board millimetres,
merges them into the layout (a traced region replaces one with the same id), checks the result and saves it.
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json
from calibration.layout import validate


def px_to_mm(points, px_per_mm: float) -> list[list[float]]:
    """Rectified-image pixel coordinates to board mm (pixel i covers mm [i, i+1) / px_per_mm)."""
    return [[round((x + 0.5) / px_per_mm, 2), round((y + 0.5) / px_per_mm, 2)] for x, y in points]


def add_traced(layout: dict, traced: dict) -> dict:
    """A new layout with the traced regions (and adjacency, if given) merged in. ``traced`` is
    {"px_per_mm": k, "regions": [{"id", "kind", "polygon_px", "attributes"?, "parent"?, "label"?}], "adjacency"?}."""
    try:
        k = float(traced["px_per_mm"])
        new_regions = traced["regions"]
    except (KeyError, TypeError, ValueError):
        raise UserError('the traced file needs "px_per_mm" (the rectified image scale) and "regions" (a list).') from None
    out = json.loads(json.dumps(layout))
    by_id = {r["id"]: n for n, r in enumerate(out["regions"])}
    for t in new_regions:
        if "id" not in t or "kind" not in t or "polygon_px" not in t:
            raise UserError(f'each traced region needs "id", "kind" and "polygon_px"; got {sorted(t)}.')
        region = {"id": t["id"], "kind": t["kind"], "polygon": px_to_mm(t["polygon_px"], k)}
        for key in ("label", "parent", "attributes"):
            if key in t:
                region[key] = t[key]
        if region["id"] in by_id:
            out["regions"][by_id[region["id"]]] = region
        else:
            by_id[region["id"]] = len(out["regions"])
            out["regions"].append(region)
    # the placeholder "whole board" region goes once real regions exist
    if len(out["regions"]) > 1:
        out["regions"] = [r for r in out["regions"] if not (r["id"] == "board" and r["kind"] == "area")]
    if "adjacency" in traced:
        out["adjacency"] = traced["adjacency"]
    problems = validate(out)
    if problems:
        raise UserError("the traced regions do not make a valid layout:\n  - " + "\n  - ".join(problems))
    return out


def load_traced(path: str | Path) -> dict:
    path = Path(path)

    return read_json(path, missing=f"traced file {path} not found.")
