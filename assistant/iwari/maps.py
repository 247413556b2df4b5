"""The Iwari map: territories and their colours, tent spaces, paths, numbered connections, the road (I-COMP-4).

Owns the map model (``IwariMap``), the built-in maps (``data/maps/*.json``: schematic stand-ins, since the real
maps' geometry is not in the text, I-NIT-6), and the checks of a map given as JSON (an inline map in a table file,
or an owner's own map file): every problem is a ``UserError`` naming the field, e.g.
``map.paths[3]: tent space 'S99' is not on the map``.

A map file or inline map is a JSON object::

    {"territories": {"T01": {"colour": "tundra"}, ...},   # colour: one of COLOURS; optional "cell": [row, col]
     "tent_spaces": {"S01": "T01", ...},                   # tent space -> its territory
     "paths": [["S01", "S02"], ...],                       # paths between tent spaces (I-SETL-1)
     "connections": [{"id": "1", "between": ["T01", "T02"], "by": "land", "mountain": false,
                      "ends": ["S03", "S05"]}, ...],       # "ends" optional: the tent spaces the connection
                                                           # touches, used only where connections act as paths
     "road": ["S07", ...],                                 # optional: The Long Road's tent spaces (I-MAP-3)
     "special": "long-road",                               # optional: floating-lands | glacial-mass | long-road
     "name": ..., "title": ..., "provenance": {"source": ..., "rule": ..., "note": ...}}   # optional

How a connection joins tent spaces where connections act as paths (Floating Lands, I-MAP-1, I-SETL-3): it joins
its two ``ends`` when the map gives them; a connection without ends joins every tent space of one territory to
every tent space of the other (the text says only that connections act as paths; which spaces a printed
connection touches is map geometry the text does not give, I-NIT-6). A mountain still joins: mountains stop totem
scoring only (I-TOT-1). Road spaces are tent spaces of their territories too: a tent on the road counts for its
territory and, at the end, for the road (I-MAP-3).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import loads, read_json

COLOURS = ("tundra", "forest", "glaciers", "coast", "desert")  # I-COMP-1: the card colours are the terrains
SPECIALS = ("floating-lands", "glacial-mass", "long-road")  # I-MAP-1..3
BY = ("land", "water")  # I-COMP-4
SOURCES = ("rulebook", "inferred", "unknown")
MAPS_DIR = Path(__file__).with_name("data") / "maps"
ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,16}$")  # ids become layout region ids (S01, totem.T01)
_KEYS = {"name", "title", "about", "special", "provenance", "territories", "tent_spaces", "paths", "connections", "road"}


@dataclass(frozen=True)
class Connection:
    """One numbered connection between two territories (I-TOT-1); mountains are never scored."""

    id: str
    between: tuple[str, str]
    by: str
    mountain: bool
    ends: tuple[str, str] | None = None  # the tent spaces it touches, where connections act as paths (I-MAP-1)


@dataclass(frozen=True)
class IwariMap:
    """One map: territories (id -> colour), tent spaces (id -> territory), paths, connections, the road."""

    name: str
    title: str
    territories: dict[str, str]
    tent_spaces: dict[str, str]
    paths: tuple[tuple[str, str], ...]
    connections: tuple[Connection, ...]
    road: tuple[str, ...] = ()
    special: str | None = None
    provenance: dict = field(default_factory=lambda: {"source": "unknown", "rule": "I-NIT-6", "note": "an inline map"})
    cells: dict[str, tuple[int, int]] = field(default_factory=dict)  # territory -> (row, column) on the schematic

    def spaces_of(self, territory: str) -> tuple[str, ...]:
        """The tent spaces of ``territory``, sorted."""
        return self._spaces_by_territory.get(territory, ())

    def neighbours(self, space: str) -> tuple[str, ...]:
        """The tent spaces joined to ``space`` by a path (and by a connection on Floating Lands, I-MAP-1), sorted."""
        return self._adjacency.get(space, ())

    def connection(self, cid: str) -> Connection:
        """The connection numbered ``cid``; ``KeyError`` if there is none."""
        for c in self.connections:
            if c.id == cid:
                return c
        raise KeyError(cid)

    @cached_property
    def _spaces_by_territory(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {t: [] for t in self.territories}
        for s, t in self.tent_spaces.items():
            out[t].append(s)
        return {t: tuple(sorted(v)) for t, v in out.items()}

    @cached_property
    def _adjacency(self) -> dict[str, tuple[str, ...]]:
        adj: dict[str, set[str]] = {s: set() for s in self.tent_spaces}
        pairs = list(self.paths)
        if self.special == "floating-lands":
            for c in self.connections:
                if c.ends:
                    pairs.append(c.ends)
                else:
                    u, v = c.between
                    pairs.extend((a, b) for a in self.spaces_of(u) for b in self.spaces_of(v))
        for a, b in pairs:
            adj[a].add(b)
            adj[b].add(a)
        return {s: tuple(sorted(v)) for s, v in adj.items()}


def map_names() -> list[str]:
    """The built-in maps' names, sorted."""
    return sorted(p.stem for p in MAPS_DIR.glob("*.json"))


def builtin_map(name: str) -> IwariMap:
    """The built-in map ``name``; ``UserError`` naming the choices for an unknown name."""
    path = MAPS_DIR / f"{name}.json"
    if not isinstance(name, str) or not ID_RE.match(name) or not path.is_file():
        raise UserError(
            f"map: no built-in map called {name!r}. Built-in maps: {', '.join(map_names())}; "
            "or give an inline map (an object) or a map file ending in .json."
        )
    return map_from_json(read_json(path), field=f"map {name!r} ({path.name})", name=name)


def load_map_file(path: str | Path, field: str = "map") -> IwariMap:
    """An owner's own map from a JSON file (the inline form above), checked."""
    path = Path(path)
    read_json(path, missing=f"{field}: map file {path} not found. Check the path.")  # missing, a folder, not JSON
    where = f"{field} ({path})"
    return map_from_json(loads_unique(path.read_bytes(), str(path), prefix=where), field=where)


class _Object(dict):
    """A JSON object that remembers the keys it was given more than once."""

    def __init__(self, pairs):
        super().__init__(pairs)
        seen: set[str] = set()
        self.twice = [k for k, _ in pairs if k in seen or seen.add(k)]


def _twice(value, path: str):
    """The first (path, key) given twice in one object of ``value``, or None."""
    if isinstance(value, _Object) and value.twice:
        return path, value.twice[0]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = _twice(v, f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}" if path else k)
        if found:
            return found
    return None


def loads_unique(data: str | bytes, source: str, prefix: str = "", why: dict[str, str] | None = None):
    """Parse JSON text read from ``source`` as ``jsonfile.loads`` does, and refuse a key given twice in one object (a
    duplicate id, two tents on one space): ``UserError`` naming the field, with ``why[path]`` where given."""
    loads(data, source)  # every JSON error reported the one way
    text = data.decode("utf-8-sig") if isinstance(data, (bytes, bytearray)) else data
    doc = json.loads(text, object_pairs_hook=_Object)
    found = _twice(doc, prefix)
    if found:
        path, key = found
        raise UserError(f"{path + '.' if path else ''}{key}: given twice; {(why or {}).get(path, 'give each key once')}.")
    return doc


def _fail(field: str, what: str) -> UserError:
    return UserError(f"{field}: {what}")


def _ident(value, field: str, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _fail(field, f"a {what} id must be a string such as 'S01', got {value!r}.")
    value = str(value)
    if not ID_RE.match(value):
        raise _fail(field, f"{what} id {value!r}: use 1 to 16 letters, digits, '-' or '_' (it becomes a layout region id).")
    return value


def _object(value, field: str, what: str) -> dict:
    if not isinstance(value, dict):
        raise _fail(field, f"must be an object ({what}), got {type(value).__name__}.")
    return value


def _list(value, field: str, what: str) -> list:
    if not isinstance(value, list):
        raise _fail(field, f"must be a list ({what}), got {type(value).__name__}.")
    return value


def _space(value, field: str, spaces: dict) -> str:
    if not isinstance(value, str) or value not in spaces:
        raise _fail(field, f"tent space {value!r} is not on the map; tent spaces are listed in tent_spaces.")
    return value


def _territory(value, field: str, territories: dict) -> str:
    if not isinstance(value, str) or value not in territories:
        raise _fail(field, f"territory {value!r} is not on the map; territories are {', '.join(sorted(territories))}.")
    return value


def _territories(doc, field: str) -> tuple[dict[str, str], dict[str, tuple[int, int]]]:
    terr = _object(doc, field, 'territory id -> {"colour": ...}')
    if not terr:
        raise _fail(field, "a map needs at least one territory.")
    colours, cells = {}, {}
    for tid, t in terr.items():
        f = f"{field}.{tid}"
        _ident(tid, f, "territory")
        t = _object(t, f, f'{{"colour": one of {", ".join(COLOURS)}}}')
        unknown = set(t) - {"colour", "cell", "name"}
        if unknown:
            raise _fail(f, f"unknown key {sorted(unknown)[0]!r}; a territory has 'colour' and optionally 'cell', 'name'.")
        if t.get("colour") not in COLOURS:
            raise _fail(f"{f}.colour", f"{t.get('colour')!r} is not an Iwari colour; use one of {', '.join(COLOURS)} (I-COMP-1).")
        colours[tid] = t["colour"]
        if "cell" in t:
            cell = t["cell"]
            if not (isinstance(cell, list) and len(cell) == 2 and all(type(x) is int and x >= 0 for x in cell)):
                raise _fail(f"{f}.cell", f"must be [row, column], two whole numbers ≥ 0, got {cell!r}.")
            cells[tid] = (cell[0], cell[1])
    return colours, cells


def _tent_spaces(doc, field: str, territories: dict) -> dict[str, str]:
    spaces = _object(doc, field, "tent space id -> territory id")
    out = {}
    for sid, tid in spaces.items():
        _ident(sid, f"{field}.{sid}", "tent space")
        if tid is None or tid == "":
            raise _fail(f"{field}.{sid}", "a tent space in no territory; give the territory it lies in (I-COMP-4).")
        out[sid] = _territory(tid, f"{field}.{sid}", territories)
    empty = sorted(t for t in territories if t not in set(out.values()))
    if empty:
        raise _fail(field, f"territory {empty[0]} has no tent space; every territory holds tent spaces (I-COMP-4, I-TURN-4).")
    return out


def _paths(doc, field: str, spaces: dict) -> tuple[tuple[str, str], ...]:
    out, seen = [], set()
    for i, p in enumerate(_list(doc, field, "[[space, space], ...]")):
        f = f"{field}[{i}]"
        if not (isinstance(p, list) and len(p) == 2):
            raise _fail(f, f"a path is [space, space], got {p!r}.")
        a, b = _space(p[0], f, spaces), _space(p[1], f, spaces)
        if a == b:
            raise _fail(f, f"a path joins two different tent spaces, got {a!r} twice.")
        key = frozenset((a, b))
        if key in seen:
            raise _fail(f, f"the path {a}-{b} is given twice.")
        seen.add(key)
        out.append((a, b))
    return tuple(out)


def _connections(doc, field: str, territories: dict, spaces: dict) -> tuple[Connection, ...]:
    out, ids = [], set()
    for i, c in enumerate(_list(doc, field, "[{id, between, by, mountain}, ...]")):
        f = f"{field}[{i}]"
        c = _object(c, f, '{"id": "1", "between": [t, t], "by": "land" | "water", "mountain": false}')
        unknown = set(c) - {"id", "between", "by", "mountain", "ends"}
        if unknown:
            raise _fail(f, f"unknown key {sorted(unknown)[0]!r}; a connection has id, between, by, mountain and optionally ends.")
        if "id" not in c:
            raise _fail(f"{f}.id", "missing: give the number printed on the map.")
        cid = _ident(c["id"], f"{f}.id", "connection")
        if cid in ids:
            raise _fail(f"{f}.id", f"connection {cid} is given twice; each printed number names one connection.")
        ids.add(cid)
        between = c.get("between")
        if not (isinstance(between, list) and len(between) == 2):
            raise _fail(f"{f}.between", f"must be [territory, territory], got {between!r}.")
        u, v = (_territory(t, f"{f}.between", territories) for t in between)
        if u == v:
            raise _fail(f"{f}.between", f"a connection joins two different territories, got {u!r} twice (I-TOT-1).")
        if c.get("by") not in BY:
            raise _fail(f"{f}.by", f'must be "land" or "water" (I-COMP-4), got {c.get("by")!r}.')
        mountain = c.get("mountain", False)
        if not isinstance(mountain, bool):
            raise _fail(f"{f}.mountain", f"must be true or false, got {mountain!r}.")
        ends = None
        if c.get("ends") is not None:
            e = c["ends"]
            if not (isinstance(e, list) and len(e) == 2):
                raise _fail(f"{f}.ends", f"must be [space in {u}, space in {v}], got {e!r}.")
            ends = (_space(e[0], f"{f}.ends", spaces), _space(e[1], f"{f}.ends", spaces))
            if (spaces[ends[0]], spaces[ends[1]]) != (u, v):
                raise _fail(f"{f}.ends", f"the first end must lie in {u} and the second in {v}, as in 'between'.")
        out.append(Connection(cid, (u, v), c["by"], mountain, ends))
    return tuple(out)


def _provenance(doc, field: str) -> dict:
    if doc is None:
        return {"source": "unknown", "rule": "I-NIT-6", "note": "a map given by the owner"}
    prov = _object(doc, field, '{"source": ..., "note": ...}')
    if prov.get("source") not in SOURCES:
        raise _fail(f"{field}.source", f"must be one of {', '.join(SOURCES)}, got {prov.get('source')!r}.")
    return prov


def map_from_json(doc, field: str = "map", name: str = "inline") -> IwariMap:
    """The map described by ``doc`` (the form in the module docstring), checked; ``UserError`` naming the field."""
    doc = _object(doc, field, "territories, tent_spaces, paths, connections")
    unknown = set(doc) - _KEYS
    if unknown:
        raise _fail(field, f"unknown key {sorted(unknown)[0]!r}; a map has {', '.join(sorted(_KEYS))}.")
    for key in ("territories", "tent_spaces", "paths", "connections"):
        if key not in doc:
            raise _fail(f"{field}.{key}", "missing; a map has territories, tent_spaces, paths and connections (I-COMP-4).")
    territories, cells = _territories(doc["territories"], f"{field}.territories")
    spaces = _tent_spaces(doc["tent_spaces"], f"{field}.tent_spaces", territories)
    paths = _paths(doc["paths"], f"{field}.paths", spaces)
    connections = _connections(doc["connections"], f"{field}.connections", territories, spaces)
    road = tuple(
        _space(s, f"{field}.road[{i}]", spaces) for i, s in enumerate(_list(doc.get("road", []), f"{field}.road", "tent spaces"))
    )
    if len(set(road)) != len(road):
        raise _fail(f"{field}.road", "a tent space is given twice.")
    special = doc.get("special")
    if special is not None and special not in SPECIALS:
        raise _fail(f"{field}.special", f"must be one of {', '.join(SPECIALS)} or absent, got {special!r}.")
    if special == "long-road" and not road:
        raise _fail(f"{field}.road", "The Long Road needs its road: list the tent spaces on it (I-MAP-3).")
    title = doc.get("title", name)
    if not isinstance(title, str):
        raise _fail(f"{field}.title", "must be a string.")
    return IwariMap(
        name=doc.get("name", name) if isinstance(doc.get("name", name), str) else name,
        title=title,
        territories=territories,
        tent_spaces=spaces,
        paths=paths,
        connections=connections,
        road=road,
        special=special,
        provenance=_provenance(doc.get("provenance"), f"{field}.provenance"),
        cells=cells,
    )


def map_to_json(m: IwariMap) -> dict:
    """The JSON form of ``m`` (``map_from_json`` reads it back to an equal map)."""
    territories = {t: {"colour": c, **({"cell": list(m.cells[t])} if t in m.cells else {})} for t, c in m.territories.items()}
    connections = [
        {"id": c.id, "between": list(c.between), "by": c.by, "mountain": c.mountain, **({"ends": list(c.ends)} if c.ends else {})}
        for c in m.connections
    ]
    doc = {
        "name": m.name,
        "title": m.title,
        "special": m.special,
        "provenance": m.provenance,
        "territories": territories,
        "tent_spaces": dict(m.tent_spaces),
        "paths": [list(p) for p in m.paths],
        "connections": connections,
        "road": list(m.road),
    }
    if m.special is None:
        del doc["special"]
    return doc
