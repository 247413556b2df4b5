"""Wendake's edition data: every component fact, loaded from the JSON files in ``data/``.

No component fact lives in code. Each fact (or group of facts) carries its provenance:
``rulebook`` with the rule ID, ``inferred`` with the reason, or ``unknown`` with a note that the value is a
stand-in the owner of the box should check. An owner corrects facts by copying a data file into a folder,
editing it, and pointing ``TABLEWATCH_EDITION_DIR`` (or ``--edition``) at that folder: files found there
replace the bundled ones whole.

``provenance_report`` lists every fact that is not from the rulebook (``tablewatch wendake data --check``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json

DATA_DIR = Path(__file__).with_name("data")
FILES = ("components", "tiles", "progress", "turtles", "masks", "tribes", "map", "ghost")
SOURCES = ("rulebook", "inferred", "unknown")


@dataclass(frozen=True)
class ActionSpec:
    """One action printed on a tile face (W-ACT): its kind and, for Move, its number of steps."""

    kind: str
    n: int = 0


@dataclass(frozen=True)
class TileFace:
    id: str
    name: str
    level: int  # 0 basic, 1 or 2 advanced
    action: tuple[ActionSpec, ...]
    ritual: tuple[ActionSpec, ...]

    def face(self, side: str) -> tuple[ActionSpec, ...]:
        return self.action if side == "action" else self.ritual


@dataclass(frozen=True)
class ProgressTile:
    id: str
    level: int
    category: str  # military, ritual, mask, lowest, highest
    name: str
    rule: str
    economic: int  # E (W-PRG-2)
    points: int  # K (W-PRG-2)


@dataclass(frozen=True)
class MaskCard:
    id: str
    mask: str
    infected: bool
    oval: str
    ghost_line: int


@dataclass(frozen=True)
class MaskSpace:
    id: str
    pattern: tuple[int, ...]
    points: int


@dataclass(frozen=True)
class MapTopology:
    """One player count's map: territories with their productive areas, lakes, and passable borders."""

    players: int
    territories: dict  # id -> {"name", "home", "pas": [{"kind", "crop"?}], "flag"?, "flag_distance"?}
    lakes: tuple[str, ...]
    neighbours: dict  # territory id -> sorted tuple of territories reachable in one step (land borders only)
    flags: dict
    solo_ghost_home: str | None

    @property
    def homes(self) -> tuple[str, ...]:
        return tuple(t for t, d in self.territories.items() if d["home"])


class Edition:
    """All component data of one copy of Wendake, as loaded from the data files."""

    def __init__(self, raw: dict[str, dict], origin: dict[str, Path]):
        self.raw = raw
        self.origin = origin
        comp = raw["components"]
        self.per_player = {k: v for k, v in comp["per_player"].items() if isinstance(v, int)}
        self.start = comp["start"]
        self.cap = comp["track_cap"]["value"]
        self.years = comp["years"]["value"]
        self.activations = comp["activations_per_year"]["value"]
        self.by_count = {int(k): v for k, v in comp["by_player_count"].items() if k.isdigit()}
        self.display_size = comp["advanced_display"]["value"]
        self.colours = tuple(comp["colours"]["value"])
        self.min_players = comp["player_count"]["min"]
        self.max_players = comp["player_count"]["max"]
        self.track_start = comp["track_start"]["value"]

        tiles = raw["tiles"]
        self.tiles: dict[str, TileFace] = {}
        for t in tiles["basic"] + tiles["advanced"]["1"] + tiles["advanced"]["2"]:
            self.tiles[t["id"]] = TileFace(t["id"], t["name"], t["level"], _actions(t["action"]), _actions(t["ritual"]))
        self.basic_tiles = tuple(t["id"] for t in tiles["basic"])
        fires = [t for t in self.basic_tiles if any(a.kind == "sacred_fire" for a in self.tiles[t].action)]
        if len(fires) != 1:
            raise UserError("tiles.json: exactly one basic tile must carry the sacred_fire action (W-SET-9).")
        self.fire_tile = fires[0]
        self.advanced = {int(k): tuple(t["id"] for t in v) for k, v in tiles["advanced"].items()}

        prog = raw["progress"]
        self.progress = {
            t["id"]: ProgressTile(t["id"], t["level"], t["category"], t["name"], t["rule"],
                                  t["points"]["economic"], t["points"]["category"])
            for t in prog["tiles"]
        }
        self.progress_copies = prog["copies_per_tile"]["value"]
        self.prices = {int(k): v for k, v in prog["prices"].items() if k.isdigit()}

        turt = raw["turtles"]
        self.turtle_types = {t["id"]: t for t in turt["types"]}

        masks = raw["masks"]
        self.mask_cards = {c["id"]: MaskCard(c["id"], c["mask"], c["infected"], c["oval"], c["ghost_line"]) for c in masks["cards"]}
        self.mask_spaces = {s["id"]: MaskSpace(s["id"], tuple(sorted(s["pattern"], reverse=True)), s["points"]) for s in masks["spaces"]}

        self.tribes = {t["id"]: t for t in raw["tribes"]["tribes"]}
        self.back_side = raw["tribes"]["back_side"]["materials"]

        self.maps = {int(n): _topology(int(n), m) for n, m in raw["map"]["maps"].items()}

        ghost = raw["ghost"]  # W-SOLO, W-NIT-10
        self.ghost_sides = {g["id"]: g for g in ghost["sides"]}
        self.ghost_placeholder = bool(ghost.get("placeholder"))
        self.objectives = {o["id"]: o["text"] for o in ghost["objectives"]}
        self.objective_points = {k: v for k, v in ghost["objective_points"].items() if isinstance(v, int)}

    def swap_tokens(self, tribe: str | None) -> int:
        """The swap tokens a player of ``tribe`` starts with: the tribe card's own count where it gives one
        (Seneca: 2, W-TRB-8, tribes.json), else the colour set's (1, W-COMP-3, components.json)."""
        return (self.tribes.get(tribe) or {}).get("swap_tokens", {}).get("value", self.per_player["swap_tokens"])

    def map_for(self, players: int) -> MapTopology:
        try:
            return self.maps[players]
        except KeyError:
            raise UserError(f"map.json has no map for {players} players; it has maps for {sorted(self.maps)}.") from None


def _actions(items: list[dict]) -> tuple[ActionSpec, ...]:
    return tuple(ActionSpec(a["kind"], a.get("n", 0)) for a in items)


def _topology(n: int, m: dict) -> MapTopology:
    neighbours: dict[str, set] = {t: set() for t in m["territories"]}
    for a, b, kind in m["borders"]:
        if kind == "land" and a in neighbours and b in neighbours:
            neighbours[a].add(b)
            neighbours[b].add(a)
    # sorted tuples, not sets: iteration order must not depend on the interpreter's hash seed
    return MapTopology(n, m["territories"], tuple(m["lakes"]), {k: tuple(sorted(v)) for k, v in neighbours.items()},
                       m["flags"], m.get("solo_ghost_home"))


def _read(path: Path) -> dict:
    return read_json(path)


@lru_cache(maxsize=8)
def load_edition(override_dir: str | None = None) -> Edition:
    """Load the bundled data, with any file in ``override_dir`` (or $TABLEWATCH_EDITION_DIR) replacing its twin."""
    override_dir = override_dir or os.environ.get("TABLEWATCH_EDITION_DIR") or None
    raw, origin = {}, {}
    for name in FILES:
        path = DATA_DIR / f"{name}.json"
        if override_dir:
            if not Path(override_dir).is_dir():
                raise UserError(f"edition folder {override_dir} does not exist; create it or unset TABLEWATCH_EDITION_DIR.")
            candidate = Path(override_dir) / f"{name}.json"
            if candidate.exists():
                path = candidate
        raw[name] = _read(path)
        origin[name] = path
    try:
        return Edition(raw, origin)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"edition data is incomplete or malformed ({type(exc).__name__}: {exc}); compare your files with the bundled ones in {DATA_DIR}.") from None


def provenance_report(edition: Edition) -> list[dict]:
    """Every fact (or group of facts) whose source is not the rulebook, with where it is and why."""
    found: list[dict] = []

    def walk(node, path: str, file: str):
        if isinstance(node, dict):
            prov = None
            if node.get("source") in SOURCES:
                prov = node
            for key, value in node.items():
                if key.endswith("provenance") and isinstance(value, dict) and value.get("source") in SOURCES:
                    src = value
                    if src["source"] != "rulebook":
                        field = key[: -len("provenance")].rstrip("_")
                        where = ".".join(p for p in (path, field) if p) or "(whole file)"
                        found.append(_entry(file, where, src, node))
                elif isinstance(value, (dict, list)):
                    walk(value, f"{path}.{key}" if path else key, file)
            if prov is not None and prov["source"] != "rulebook":
                found.append(_entry(file, path, prov, node))
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]", file)

    for name in FILES:
        walk(edition.raw[name], "", name)
    return found


def _entry(file: str, path: str, prov: dict, node: dict) -> dict:
    label = node.get("id") or node.get("name")
    entry = {"file": f"{file}.json", "where": path + (f" ({label})" if label else ""), "source": prov["source"], "rule": prov.get("rule")}
    entry["why"] = prov.get("reason") or prov.get("note") or ""
    if "value" in node:
        entry["value"] = node["value"]
    return entry
