"""The Wendake board layouts, generated as data: the schematic map (2, 3, 4 players), mask board, village boards,
score-track pairs, and the colour-calibration card.

The map layouts come from the rules engine's topology in ``assistant/wendake/data/map.json``: each grid cell is a
``CELL_MM`` square, a territory or lake fills its cell, and its productive areas sit in a row inside it. Region ids
are the engine's: territory "T05", productive area "T05.pa0" (index into ``pas``), lake "L1". Every board has its
own marker ids (see MARKER_IDS and docs/layouts.md). The files in ``calibration/layouts/`` are written by
``python -m calibration.wendake_layouts``; a test checks they equal what this module generates.
"""

from __future__ import annotations

import json
from pathlib import Path

from calibration.layout import FORMAT, LAYOUTS_DIR, write_layouts

MAP_JSON = Path(__file__).resolve().parents[1] / "assistant" / "wendake" / "data" / "map.json"
DICTIONARY = "DICT_4X4_100"
CELL_MM = 100.0
MAP_MARGIN_MM = 50.0
MAP_MARKER_MM = 36.0  # 6 mm code cells; with its 6 mm quiet zone it fits the 50 mm margin
SMALL_MARKER_MM = 30.0
PA_MM = 26.0
PA_GAP_MM = 5.0

# First marker id of each board; a board uses ids from here upwards (at most 10).
MARKER_IDS = {
    "wendake-map-2p": 0,
    "wendake-map-3p": 10,
    "wendake-map-4p": 20,
    "wendake-mask": 30,
    "wendake-village-1": 40,
    "wendake-village-2": 44,
    "wendake-village-3": 48,
    "wendake-village-4": 52,
    "wendake-scores-a": 60,
    "wendake-scores-b": 66,
    "colour-card": 80,
}

SCHEMATIC_NOTE = (
    "SCHEMATIC: Tablewatch's own stand-in, not the retail artwork (W-NIT-6). Print it at 100% scale to play "
    "on it with real pieces; owners of the retail boards can trace their own layout instead (docs/calibration.md)."
)


def rect(x: float, y: float, w: float, h: float) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def marker(board: str, n: int, x: float, y: float, size: float) -> dict:
    return {"dictionary": DICTIONARY, "id": MARKER_IDS[board] + n, "centre": [x, y], "size": size, "rotation": 0}


def corner_markers(board: str, w: float, h: float, size: float, inset: float) -> list[dict]:
    return [
        marker(board, 0, inset, inset, size),
        marker(board, 1, w - inset, inset, size),
        marker(board, 2, w - inset, h - inset, size),
        marker(board, 3, inset, h - inset, size),
    ]


def base(board: str, title: str, w: float, h: float) -> dict:
    return {
        "format": FORMAT,
        "name": board,
        "title": title,
        "game": "wendake",
        "schematic": True,
        "notes": SCHEMATIC_NOTE,
        "size_mm": [w, h],
        "markers": [],
        "regions": [],
    }


# ---------------------------------------------------------------------------------------------------- map


def map_layout(players: int, topology: dict | None = None) -> dict:
    """The schematic map for 2, 3 or 4 players, from the engine's map.json."""
    if topology is None:
        topology = json.loads(MAP_JSON.read_text(encoding="utf-8"))
    m = topology["maps"][str(players)]
    rows = len(m["grid"])
    cols = len(m["grid"][0].split())
    board = f"wendake-map-{players}p"
    w = cols * CELL_MM + 2 * MAP_MARGIN_MM
    h = rows * CELL_MM + 2 * MAP_MARGIN_MM
    out = base(board, f"Wendake map for {players} players (SCHEMATIC)", w, h)
    inset = MAP_MARGIN_MM / 2
    markers = corner_markers(board, w, h, MAP_MARKER_MM, inset)
    # more markers along the long edges, so the map stays found when hands and pieces cover the corners
    mids = [MAP_MARGIN_MM + CELL_MM * k for k in range(2, cols - 1, 2)] if cols > 3 else [w / 2]
    n = 4
    for x in mids:
        markers.append(marker(board, n, x, inset, MAP_MARKER_MM))
        markers.append(marker(board, n + 1, x, h - inset, MAP_MARKER_MM))
        n += 2
    markers.append(marker(board, n, inset, h / 2, MAP_MARKER_MM))
    markers.append(marker(board, n + 1, w - inset, h / 2, MAP_MARKER_MM))
    out["markers"] = markers
    regions = []
    for tid, t in m["territories"].items():
        r, c = t["cell"]
        x0, y0 = MAP_MARGIN_MM + c * CELL_MM, MAP_MARGIN_MM + r * CELL_MM
        attrs = {"home": bool(t["home"]), "name": t["name"]}
        if "flag" in t:
            attrs["flag"] = t["flag"]
            attrs["flag_distance"] = t["flag_distance"]
        regions.append(
            {"id": tid, "kind": "territory", "label": t["name"], "polygon": rect(x0, y0, CELL_MM, CELL_MM), "attributes": attrs}
        )
        pas = t["pas"]
        row_w = len(pas) * PA_MM + (len(pas) - 1) * PA_GAP_MM
        for i, pa in enumerate(pas):
            px = x0 + (CELL_MM - row_w) / 2 + i * (PA_MM + PA_GAP_MM)
            py = y0 + CELL_MM - PA_MM - 8.0
            pa_attrs = {"pa": pa["kind"], "index": i}
            if pa["kind"] == "harvest":
                pa_attrs["crop"] = pa["crop"]
            label = pa["crop"] if pa["kind"] == "harvest" else "hunt"
            regions.append(
                {
                    "id": f"{tid}.pa{i}",
                    "kind": "productive_area",
                    "label": label,
                    "parent": tid,
                    "polygon": rect(px, py, PA_MM, PA_MM),
                    "attributes": pa_attrs,
                }
            )
    for lid, lake in m["lakes"].items():
        r, c = lake["cell"]
        x0, y0 = MAP_MARGIN_MM + c * CELL_MM, MAP_MARGIN_MM + r * CELL_MM
        regions.append(
            {
                "id": lid,
                "kind": "lake",
                "label": lake["name"],
                "polygon": rect(x0, y0, CELL_MM, CELL_MM),
                "attributes": {"name": lake["name"]},
            }
        )
    out["regions"] = regions
    out["adjacency"] = [list(b) for b in m["borders"]]
    return out


# ------------------------------------------------------------------------------------------ mask board


def mask_layout() -> dict:
    """Ceremony spaces (3 rows of 3), restore area, deck and discard, turn-order track (4), year track (1-7),
    and the 9 turtle stacks (levels 3/4/5 x women/hunters/canoes)."""
    board = "wendake-mask"
    w, h = 500.0, 300.0
    out = base(board, "Wendake ceremonial mask board (SCHEMATIC)", w, h)
    out["markers"] = corner_markers(board, w, h, MAP_MARKER_MM, 25.0)
    out["markers"] += [marker(board, 4, w / 2, 25.0, MAP_MARKER_MM), marker(board, 5, w / 2, h - 25.0, MAP_MARKER_MM)]
    regions = []
    for row in range(3):
        for col in range(3):
            k = row * 3 + col
            regions.append(
                {
                    "id": f"ceremony.{k}",
                    "kind": "ceremony_space",
                    "label": f"ceremony {k + 1}",
                    "polygon": rect(60 + col * 46, 60 + row * 46, 40, 40),
                    "attributes": {"index": k},
                }
            )
    regions.append({"id": "restore", "kind": "restore_area", "label": "restore area", "polygon": rect(60, 205, 132, 45)})
    regions.append(
        {
            "id": "deck",
            "kind": "card_space",
            "label": "mask deck",
            "polygon": rect(210, 60, 50, 72),
            "attributes": {"name": "deck"},
        }
    )
    regions.append(
        {
            "id": "discard",
            "kind": "card_space",
            "label": "discard",
            "polygon": rect(270, 60, 50, 72),
            "attributes": {"name": "discard"},
        }
    )
    for i in range(4):
        regions.append(
            {
                "id": f"turn_order.{i + 1}",
                "kind": "turn_order_space",
                "label": f"order {i + 1}",
                "polygon": rect(210 + i * 29, 150, 25, 25),
                "attributes": {"index": i + 1},
            }
        )
    for i in range(7):
        regions.append(
            {
                "id": f"year.{i + 1}",
                "kind": "year_space",
                "label": f"year {i + 1}",
                "polygon": rect(210 + i * 29, 195, 25, 25),
                "attributes": {"index": i + 1},
            }
        )
    for li, level in enumerate((3, 4, 5)):
        for ci, category in enumerate(("women", "hunters", "canoes")):
            regions.append(
                {
                    "id": f"turtle.{category}.{level}",
                    "kind": "turtle_stack",
                    "label": f"{category} {level}",
                    "polygon": rect(345 + ci * 38, 60 + li * 38, 34, 34),
                    "attributes": {"name": category, "value": level},
                }
            )
    out["regions"] = regions
    return out


# --------------------------------------------------------------------------------------- village board


RESOURCES = ("leather", "fish", "corn", "beans", "pumpkins", "beavers")


def village_layout(player: int) -> dict:
    """One player's village (action) board: 3x3 tile slots, Long House, 4 sage spaces along the left edge,
    resource places and progress-tile places."""
    board = f"wendake-village-{player}"
    w, h = 400.0, 300.0
    out = base(board, f"Wendake village board, player {player} (SCHEMATIC)", w, h)
    out["markers"] = corner_markers(board, w, h, SMALL_MARKER_MM, 22.0)
    regions = []
    for i in range(4):
        regions.append(
            {
                "id": f"sage.{i + 1}",
                "kind": "sage_space",
                "label": f"sage {i + 1}",
                "polygon": rect(12, 55 + i * 45, 32, 32),
                "attributes": {"index": i + 1},
            }
        )
    for row in range(3):
        for col in range(3):
            k = row * 3 + col
            regions.append(
                {
                    "id": f"slot.{k}",
                    "kind": "tile_slot",
                    "label": f"slot {k + 1}",
                    "polygon": rect(55 + col * 62, 45 + row * 62, 58, 58),
                    "attributes": {"index": k},
                }
            )
    regions.append({"id": "long_house", "kind": "long_house", "label": "Long House", "polygon": rect(250, 45, 135, 80)})
    for i in range(6):
        r, c = divmod(i, 3)
        regions.append(
            {
                "id": f"progress.{i + 1}",
                "kind": "progress_space",
                "label": f"progress {i + 1}",
                "polygon": rect(250 + c * 46, 135 + r * 46, 42, 42),
                "attributes": {"index": i + 1},
            }
        )
    for i, name in enumerate(RESOURCES):
        regions.append(
            {
                "id": f"resource.{name}",
                "kind": "resource_space",
                "label": name,
                "polygon": rect(55 + i * 50, 240, 46, 46),
                "attributes": {"name": name},
            }
        )
    out["regions"] = regions
    return out


# ----------------------------------------------------------------------------------------- score tracks


SCORE_SPACE_MM = 18.0


def scores_layout(pair: str) -> dict:
    """One score-track pair: two tracks ('upper' and 'lower') with spaces 0..25 each."""
    board = f"wendake-scores-{pair}"
    margin = 45.0
    w = 26 * SCORE_SPACE_MM + 2 * margin
    h = 2 * margin + 2 * SCORE_SPACE_MM + 6.0
    out = base(board, f"Wendake score-track pair {pair.upper()} (SCHEMATIC)", w, h)
    out["markers"] = corner_markers(board, w, h, SMALL_MARKER_MM, 22.0)
    out["markers"] += [marker(board, 4, w / 2, 22.0, SMALL_MARKER_MM), marker(board, 5, w / 2, h - 22.0, SMALL_MARKER_MM)]
    regions = []
    for t, track in enumerate(("upper", "lower")):
        y = margin + t * (SCORE_SPACE_MM + 6.0)
        for v in range(26):
            regions.append(
                {
                    "id": f"{track}.{v}",
                    "kind": "score_space",
                    "label": str(v),
                    "polygon": rect(margin + v * SCORE_SPACE_MM, y, SCORE_SPACE_MM, SCORE_SPACE_MM),
                    "attributes": {"track": track, "value": v},
                }
            )
    out["regions"] = regions
    return out


# ------------------------------------------------------------------------------------------ colour card


def colour_card_layout() -> dict:
    """An A5 card with 4 markers and 5 numbered spots (Iwari has 5 tribe colours, Wendake 4): one piece of each
    player colour stands on a spot while ``tablewatch calibrate colours`` learns the table's light."""
    board = "colour-card"
    w, h = 210.0, 148.0
    out = {
        "format": FORMAT,
        "name": board,
        "title": "Colour calibration card",
        "game": "any",
        "schematic": True,
        "notes": "Put one piece of each player colour on the numbered spots, then run: tablewatch calibrate colours PHOTO",
        "size_mm": [w, h],
        "markers": corner_markers(board, w, h, SMALL_MARKER_MM, 25.0),
        "regions": [],
    }
    corners = [(50 + (i % 2) * 80, 30 + (i // 2) * 60) for i in range(4)]
    for i, (x, y) in enumerate([*corners, (90, 60)]):  # the fifth in the middle, 50 mm from each corner spot
        out["regions"].append(
            {
                "id": f"spot.{i + 1}",
                "kind": "colour_spot",
                "label": str(i + 1),
                "polygon": rect(x, y, 30, 30),
                "attributes": {"index": i + 1},
            }
        )
    return out


def all_layouts() -> dict[str, dict]:
    topology = json.loads(MAP_JSON.read_text(encoding="utf-8"))
    out = {f"wendake-map-{n}p": map_layout(n, topology) for n in (2, 3, 4)}
    out["wendake-mask"] = mask_layout()
    for p in (1, 2, 3, 4):
        out[f"wendake-village-{p}"] = village_layout(p)
    for pair in ("a", "b"):
        out[f"wendake-scores-{pair}"] = scores_layout(pair)
    out["colour-card"] = colour_card_layout()
    return out


def write_all(folder: Path = LAYOUTS_DIR) -> list[Path]:
    return write_layouts(all_layouts(), folder)


if __name__ == "__main__":
    for p in write_all():
        print(p)
