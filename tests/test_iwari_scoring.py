"""Iwari scoring (I-TENT, I-TOT, I-SETL, I-MAP, I-FEAT-6, I-END-4) and the built-in maps, through
``assistant.iwari.scoring`` and ``assistant.iwari.maps``. Spec §12's derived vectors I-EX-2, I-EX-3 and I-EX-7."""

from __future__ import annotations

import pytest

from assistant.errors import UserError
from assistant.iwari.maps import COLOURS, builtin_map, map_from_json, map_names, map_to_json
from assistant.iwari.scoring import score, tent_points, winner


def line_map(spaces: dict[str, str], paths=(), connections=(), special=None, road=()):
    """An inline map: territories from ``spaces`` (space -> territory), all tundra but the second (forest)."""
    territories = {}
    for t in spaces.values():
        territories.setdefault(t, {"colour": COLOURS[len(territories) % len(COLOURS)]})
    doc = {
        "territories": territories,
        "tent_spaces": spaces,
        "paths": [list(p) for p in paths],
        "connections": [dict(c) for c in connections],
        "road": list(road),
    }
    if special:
        doc["special"] = special
    return map_from_json(doc)


UV = line_map(
    {"u1": "U", "u2": "U", "u3": "U", "v1": "V", "v2": "V"},
    connections=[{"id": "1", "between": ["U", "V"], "by": "land", "mountain": False}],
)


# --- tents (I-TENT) --------------------------------------------------------------------------------------------


def test_i_ex_2_tent_scoring():
    """I-EX-2: A3 B2 C2 D1, T = 8: A 8, B and C 3 (A's count), D 2 (the next higher distinct count)."""
    assert tent_points({"A": 3, "B": 2, "C": 2, "D": 1}) == {"A": 8, "B": 3, "C": 3, "D": 2}


def test_i_ex_3_tie_at_the_top():
    """I-EX-3: A3 B3 C1, T = 7: A and B 7 each, C 3."""
    assert tent_points({"A": 3, "B": 3, "C": 1}) == {"A": 7, "B": 7, "C": 3}


def test_ties_below_the_top_get_the_full_amount_and_absent_tribes_nothing():
    """I-TENT-4: every tribe tied on a lower count scores the count just above; I-TENT-1: a count of 0 scores nothing."""
    assert tent_points({"A": 4, "B": 2, "C": 2, "D": 2, "E": 0}) == {"A": 10, "B": 4, "C": 4, "D": 4}
    assert tent_points({"A": 2}) == {"A": 2}
    assert tent_points({}) == {}


def test_tents_per_territory_and_half_journey_scores_tents_only():
    """I-HALF-2/3: at half journey only tents score, even with totems standing where a connection would score."""
    tents = {"u1": "A", "u2": "A", "u3": "B", "v1": "B"}
    totems = {"U": {"A": 1}, "V": {"A": 1}}
    half = score(UV, ["A", "B"], tents, totems, final=False)
    assert half.tents == {"U": {"A": 3, "B": 2}, "V": {"B": 1}}
    assert half.totems == {} and half.totals == {"A": 3, "B": 3}
    final = score(UV, ["A", "B"], tents, totems, final=True)
    assert final.totems == {"1": {"A": 2}} and final.totals == {"A": 5, "B": 3}


def test_feats_stack_and_count_at_half_journey_for_every_tribe():
    """I-FEAT-6: +1 per feat, stacking (2 feats: x3), at half journey too, multiplying every tribe's points there."""
    tents = {"u1": "A", "u2": "A", "u3": "B"}
    t = score(UV, ["A", "B"], tents, {}, feats={"U": 2}, final=False)
    assert t.tents["U"] == {"A": 9, "B": 6}


# --- totems over connections (I-TOT) ---------------------------------------------------------------------------


def test_i_ex_7_totem_connection_with_and_without_honour():
    """I-EX-7: u: A2 B1, v: A1; A scores 2 + 1 + 1 = 4 for u-v and B nothing; with an Honour feat on u-v, 8."""
    tents = {"u1": "A", "u2": "A", "v1": "A", "u3": "B"}
    totems = {"U": {"A": 2, "B": 1}, "V": {"A": 1}}
    plain = score(UV, ["A", "B"], tents, totems, final=True)
    assert plain.totems == {"1": {"A": 4}}
    honour = score(UV, ["A", "B"], tents, totems, feats={"connection:1": 1}, final=True)
    assert honour.totems == {"1": {"A": 8}}
    assert honour.totals["A"] - plain.totals["A"] == 4 and honour.totals["B"] == plain.totals["B"]


def test_totem_ties_share_and_majority_must_hold_in_both_territories():
    """I-TOT-2: tied tribes all hold the majority; a tribe holding it in one territory only scores nothing."""
    tents = {"u1": "A", "u2": "B", "v1": "A", "v2": "B"}
    both = score(UV, ["A", "B"], tents, {"U": {"A": 1, "B": 1}, "V": {"A": 1, "B": 1}}, final=True)
    assert both.totems == {"1": {"A": 4, "B": 4}}
    one = score(UV, ["A", "B"], tents, {"U": {"A": 1}, "V": {"B": 1}}, final=True)
    assert one.totems == {}


def test_a_tribe_with_no_totem_never_holds_the_majority():
    """I-TOT-2 (engine): zero totems in a territory is never the majority, even when nobody has any there."""
    t = score(UV, ["A", "B"], {"u1": "A", "v1": "A"}, {"U": {"A": 1, "B": 0}, "V": {"A": 0, "B": 0}}, final=True)
    assert t.totems == {}


def test_mountains_are_not_scored():
    """I-TOT-1: a connection covered by mountains never scores."""
    m = line_map({"u1": "U", "v1": "V"}, connections=[{"id": "4", "between": ["U", "V"], "by": "water", "mountain": True}])
    t = score(m, ["A"], {"u1": "A", "v1": "A"}, {"U": {"A": 1}, "V": {"A": 1}}, final=True)
    assert t.totems == {} and t.totals == {"A": 2}


def test_glacial_mass_twin_connections_score_twice():
    """I-MAP-2: connections 1 and 11 join the same territories; they are two connections, so the pair scores twice."""
    m = builtin_map("glacial-mass")
    c1, c11 = m.connection("1"), m.connection("11")
    assert set(c1.between) == set(c11.between) and not c1.mountain and not c11.mountain
    u, v = c1.between
    tents = {m.spaces_of(u)[0]: "A", m.spaces_of(v)[0]: "A"}
    t = score(m, ["A", "B"], tents, {u: {"A": 1}, v: {"A": 1}}, final=True)
    assert t.totems == {"1": {"A": 2}, "11": {"A": 2}}


# --- settlements (I-SETL) --------------------------------------------------------------------------------------

CHAIN = line_map(
    {"a": "U", "b": "U", "c": "U", "d": "V", "e": "V", "f": "V"},
    paths=[("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f")],
)


def test_settlement_of_three_scores_nothing_four_scores_four():
    """I-SETL-1/2: 4 or more joined tents of one tribe score 1 each; 3 score nothing."""
    three = score(CHAIN, ["A"], {"a": "A", "b": "A", "c": "A"}, {}, final=True)
    assert three.settlements == {} and three.totals == {"A": 3}
    four = score(CHAIN, ["A"], {"a": "A", "b": "A", "c": "A", "d": "A"}, {}, final=True)
    assert four.settlements == {"A": [4]}
    assert four.settlement_spaces == {"A": [["a", "b", "c", "d"]]}


def test_settlement_crosses_territory_borders_and_another_tribe_breaks_it():
    """I-SETL-1: a settlement may cross borders (c-d joins U and V); another tribe's tent interrupts it."""
    crossing = score(CHAIN, ["A", "B"], {"b": "A", "c": "A", "d": "A", "e": "A"}, {}, final=True)
    assert crossing.settlements == {"A": [4]}
    broken = score(CHAIN, ["A", "B"], {"a": "A", "b": "A", "c": "B", "d": "A", "e": "A", "f": "A"}, {}, final=True)
    assert broken.settlements == {}
    half = score(CHAIN, ["A"], {"b": "A", "c": "A", "d": "A", "e": "A"}, {}, final=False)
    assert half.settlements == {}  # I-HALF-3


def test_two_settlements_of_one_tribe_score_each():
    m = line_map({f"s{i}": "U" for i in range(9)}, paths=[(f"s{i}", f"s{i + 1}") for i in range(8) if i != 3])
    t = score(m, ["A"], {f"s{i}": "A" for i in range(9)}, {}, final=True)
    assert t.settlements == {"A": [5, 4]}


ISLANDS = {"a": "U", "b": "U", "c": "V", "d": "V"}
BRIDGE = {"id": "1", "between": ["U", "V"], "by": "water", "mountain": True, "ends": ["b", "c"]}


def test_floating_lands_connections_act_as_paths():
    """I-MAP-1, I-SETL-3: on Floating Lands a connection joins its ends for settlements (a mountain too: it only stops
    totem scoring); on another map the same tents are two groups of 2."""
    tents = {s: "A" for s in ISLANDS}
    paths = [("a", "b"), ("c", "d")]
    floating = line_map(ISLANDS, paths, [BRIDGE], special="floating-lands")
    plain = line_map(ISLANDS, paths, [BRIDGE])
    assert score(floating, ["A"], tents, {}, final=True).settlements == {"A": [4]}
    assert score(plain, ["A"], tents, {}, final=True).settlements == {}
    assert floating.neighbours("b") == ("a", "c") and plain.neighbours("b") == ("a",)


def test_floating_lands_connection_without_ends_joins_every_space_of_both():
    """maps.py's documented choice: a connection with no ends joins every tent space of one territory to the other's."""
    no_ends = {k: v for k, v in BRIDGE.items() if k != "ends"}
    m = line_map(ISLANDS, [], [no_ends], special="floating-lands")
    assert m.neighbours("a") == ("c", "d") and m.neighbours("c") == ("a", "b")


def test_builtin_floating_lands_settlement_over_a_connection():
    m = builtin_map("floating-lands")
    c = next(c for c in m.connections if c.ends)
    u_side = m.spaces_of(c.between[0])
    i = u_side.index(c.ends[0])
    near = [s for s in u_side[max(0, i - 1) : i + 1]] + [c.ends[1]]
    near += [n for n in m.neighbours(c.ends[1]) if n not in near][:1]
    assert len(near) == 4
    t = score(m, ["A"], {s: "A" for s in near}, {}, final=True)
    assert t.settlements == {"A": [4]}


# --- The Long Road (I-MAP-3) -----------------------------------------------------------------------------------


def test_long_road_scored_as_a_territory_at_the_end_only():
    """I-MAP-3: the road's tents are scored with I-TENT at the end, not at half journey."""
    m = line_map({"a": "U", "b": "U", "c": "V", "d": "V"}, special="long-road", road=["a", "b", "c"])
    tents = {"a": "A", "b": "A", "c": "B", "d": "B"}
    final = score(m, ["A", "B"], tents, {}, final=True)
    assert final.road == {"A": 3, "B": 2}
    assert final.totals == {"A": 2 + 3, "B": 2 + 2}  # U: A 2; V: B 2; plus the road
    assert score(m, ["A", "B"], tents, {}, final=False).road == {}


def test_builtin_long_road_has_a_road_of_joined_tent_spaces():
    m = builtin_map("long-road")
    assert m.special == "long-road" and len(m.road) >= 6
    assert all(b in m.neighbours(a) for a, b in zip(m.road, m.road[1:]))
    assert len({m.tent_spaces[s] for s in m.road}) >= 4


# --- the winner (I-END-4) --------------------------------------------------------------------------------------


def test_winner_most_points():
    assert winner({"A": 30, "B": 28}, {}, ["A", "B"]) == (["A"], "A has the most points (30); no tie.")


def test_winner_tie_broken_by_unused_pieces():
    """I-END-4: tied on points, the most unused pieces (tents + totems) wins."""
    winners, why = winner({"A": 30, "B": 30, "C": 12}, {"A": 5, "B": 7, "C": 20}, ["A", "B", "C"])
    assert winners == ["B"] and "I-END-4" in why and "A 5, B 7" in why


def test_winner_still_tied_share_the_win():
    """I-NIT-12 (engine): tied on points and on unused pieces, every one of them wins."""
    winners, why = winner({"A": 30, "B": 30}, {"A": 5, "B": 5}, ["A", "B"])
    assert winners == ["A", "B"] and "I-NIT-12" in why


def test_third_tribe_takes_part_but_never_wins():
    """I-2P-4: the 2-player third tribe is in every majority but is not eligible to win."""
    tents = {"u1": "N", "u2": "N", "u3": "A", "v1": "B"}
    t = score(UV, ["A", "B", "N"], tents, {}, final=False)
    assert t.tents["U"] == {"N": 3, "A": 2}
    winners, _ = winner(t.totals, {}, ["A", "B"])
    assert winners == ["A"]


# --- the maps --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard", "floating-lands", "glacial-mass", "long-road"])
def test_builtin_maps_are_playable_schematics_with_provenance(name):
    """I-NIT-6: the geometry is not in the text; each built-in map says so, and is a plausible Iwari map."""
    assert name in map_names()
    m = builtin_map(name)
    assert m.provenance["source"] == "unknown" and m.provenance["rule"] == "I-NIT-6" and "not in the text" in m.provenance["note"]
    assert set(m.territories.values()) == set(COLOURS)
    assert 10 <= len(m.territories) <= 15
    assert all(3 <= len(m.spaces_of(t)) <= 6 for t in m.territories)
    assert {c.by for c in m.connections} == {"land", "water"} and any(c.mountain for c in m.connections)
    assert sorted(int(c.id) for c in m.connections) == list(range(1, len(m.connections) + 1))
    crossing = [p for p in m.paths if m.tent_spaces[p[0]] != m.tent_spaces[p[1]]]
    assert (len(crossing) == 0) == (name == "floating-lands")  # islands: only connections cross (I-MAP-1)
    assert map_from_json(map_to_json(m), name=name) == m
    assert (m.special or "standard") == name


def test_unknown_builtin_map_names_the_choices():
    with pytest.raises(
        UserError, match="map: no built-in map called 'atlantis'.*floating-lands, glacial-mass, long-road, standard"
    ):
        builtin_map("atlantis")
