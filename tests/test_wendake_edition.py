"""Edition data: provenance on every fact, the owner's override folder, and the schematic map's structure."""

import json
from collections import deque

import pytest

from assistant.errors import UserError
from assistant.wendake.edition import DATA_DIR, SOURCES, load_edition, provenance_report

ED = load_edition()


def test_no_unknown_fact_hidden(tmp_path):
    """Every object in the data files that carries a provenance uses one of the three sources."""
    def walk(node):
        if isinstance(node, dict):
            if "source" in node:
                assert node["source"] in SOURCES
                assert node.get("rule", "").startswith("W-"), node
                if node["source"] == "inferred":
                    assert node.get("reason")
                if node["source"] == "unknown":
                    assert "Check your own box" in node.get("note", "")
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    for f in DATA_DIR.glob("*.json"):
        if f.name != "demo_game.json":
            walk(json.loads(f.read_text()))


def test_known_facts_from_the_rulebook():
    """W-NIT-1: the 8 named basic tiles; W-EX-5: the L2 Military tile gives 2 + 2; W-EX-4: two spaces at 2 points."""
    names = {ED.tiles[t].name for t in ED.basic_tiles}
    assert {"Sacred Fire", "Trade", "Mask Ceremony", "Harvest", "Hunt + Move 1", "Tan Pelts + Move 1",
            "Fish + Military", "Move 3"} <= names and len(names) == 9
    assert ED.tiles["A1-01"].name == "Hunt + Move 1 + Trade"
    two = ED.progress["P2-01"]
    assert (two.name, two.economic, two.points) == ("Two steps", 2, 2)
    assert len(ED.progress) == 30 and len(ED.mask_cards) == 36 and len(ED.tribes) == 11
    assert {s.pattern: s.points for s in ED.mask_spaces.values()}[(2,)] == 2
    assert {s.pattern: s.points for s in ED.mask_spaces.values()}[(1, 1, 1)] == 2


def test_owner_override_folder(tmp_path):
    """An owner corrects a fact by copying a file into their folder and editing it."""
    doc = json.loads((DATA_DIR / "progress.json").read_text())
    doc["tiles"][0]["points"] = {"economic": 3, "category": 1, "source": "rulebook", "rule": "W-PRG-L1-1"}
    (tmp_path / "progress.json").write_text(json.dumps(doc))
    ed = load_edition(str(tmp_path))
    assert ed.progress["P1-01"].economic == 3 and ed.origin["progress"] == tmp_path / "progress.json"
    assert len(provenance_report(ed)) == len(provenance_report(ED)) - 1
    (tmp_path / "tiles.json").write_text("{broken")
    load_edition.cache_clear()
    with pytest.raises(UserError, match="not valid JSON"):
        load_edition(str(tmp_path))
    load_edition.cache_clear()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_schematic_map_structure(n):
    """W-SET-8, W-TERM-2, W-SOLO-10: each map has >= n Homes with 1 harvest + 1 hunt PA, every vegetable and
    hunt areas outside Homes, lakes, a river, a connected land graph, and flags with a near and far territory."""
    topo = ED.map_for(n)
    assert len(topo.homes) >= n
    for h in topo.homes:
        kinds = sorted(pa["kind"] for pa in topo.territories[h]["pas"])
        assert kinds == ["harvest", "hunt"]
    outside = [pa for t, d in topo.territories.items() if not d["home"] for pa in d["pas"]]
    assert {pa.get("crop") for pa in outside if pa["kind"] == "harvest"} == {"corn", "beans", "pumpkins"}
    assert any(pa["kind"] == "hunt" for pa in outside) and topo.lakes
    raw = ED.raw["map"]["maps"][str(n)]
    assert any(kind == "river" for *_, kind in raw["borders"])
    start = next(iter(topo.territories))
    seen, queue = {start}, deque([start])
    while queue:
        for nb in topo.neighbours[queue.popleft()]:
            if nb not in seen:
                seen.add(nb)
                queue.append(nb)
    assert seen == set(topo.territories)
    for flag in ("english", "french"):
        near, far = topo.flags[flag]["near"], topo.flags[flag]["far"]
        assert not topo.territories[near]["home"] and not topo.territories[far]["home"]
    hunts = lambda t: sum(pa["kind"] == "hunt" for pa in topo.territories[t]["pas"])  # noqa: E731
    assert hunts(topo.flags["english"]["far"]) == 2 and hunts(topo.flags["english"]["near"]) == 1


def test_solo_map_names_the_ghost_home():
    topo = ED.map_for(2)
    assert topo.solo_ghost_home in topo.homes
