"""Iwari scoring: tents (I-TENT), totems over connections (I-TOT), settlements (I-SETL), the road (I-MAP-3),
feat factors (I-FEAT-6) and the winner (I-END-4).

``score`` is one scoring event: the half journey (tents only, I-HALF-2/3) or the end of the journey (tents,
totems, settlements and, on The Long Road, the road; I-END-3). The engine readings of the spec are used where the
text is silent: tied tribes all get their rank's full amount (I-TENT-4); a connection scores all totems of both
its territories for every tribe holding the totem majority in both, a tribe with no totem never holding it (I-TOT-2);
feats stack (+1 each) and count at half journey too, and the factor belongs to the place, so it multiplies every
tribe's points there (I-FEAT-6); settlements are connected components of ≥ 4 tents of one tribe over the map's
paths (``IwariMap.neighbours``: connections count too on Floating Lands, I-MAP-1), never multiplied by feats
(I-SETL-3); the road scores at the end only, with factor 1 (I-MAP-3). The 2-player third tribe is a tribe like the
others here: it takes part in majorities and ties; ``winner`` leaves it out (I-2P-4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.errors import UserError
from assistant.iwari.maps import IwariMap

SETTLEMENT_MIN = 4  # I-SETL-1
CONNECTION_FEAT = "connection:"  # a feat key naming a connection (I-FEAT-6), else the key is a territory


def tent_points(counts: dict[str, int]) -> dict[str, int]:
    """One territory's tent points at factor 1 (I-TENT-1..4): the leaders score every tent there, each other tribe
    present the count of the next higher distinct count; tribes with no tent score nothing."""
    present = {t: n for t, n in counts.items() if n > 0}
    total = sum(present.values())
    ranks = sorted(set(present.values()), reverse=True)
    above = {c: (total if i == 0 else ranks[i - 1]) for i, c in enumerate(ranks)}
    return {t: above[n] for t, n in present.items()}


def totem_holders(stack: dict[str, int]) -> set[str]:
    """The tribes with the totem majority of one territory (I-TERM-5): every tribe tied for the most, none with 0."""
    best = max(stack.values(), default=0)
    return {t for t, n in stack.items() if n == best and n > 0}


def feat_factor(feats: dict[str, int], key: str) -> int:
    """The scoring factor of a territory id or ``connection:<id>``: 1 plus its feats (I-FEAT-6)."""
    return 1 + feats.get(key, 0)


def settlements_of(m: IwariMap, tents: dict[str, str], tribe: str) -> list[list[str]]:
    """``tribe``'s settlements (I-SETL-1): its tents' connected components of ≥ 4 over paths, each sorted, largest first."""
    own = {s for s, t in tents.items() if t == tribe}
    seen: set[str] = set()
    found = []
    for start in sorted(own):
        if start in seen:
            continue
        seen.add(start)
        stack, part = [start], []
        while stack:
            s = stack.pop()
            part.append(s)
            for n in m.neighbours(s):
                if n in own and n not in seen:
                    seen.add(n)
                    stack.append(n)
        if len(part) >= SETTLEMENT_MIN:
            found.append(sorted(part))
    return sorted(found, key=lambda p: (-len(p), p))


@dataclass
class Tally:
    """One scoring event's points, per place and per tribe (the factor of each place already applied)."""

    tribes: tuple[str, ...]
    final: bool
    tents: dict[str, dict[str, int]]  # territory id -> tribe -> points
    totems: dict[str, dict[str, int]]  # connection id -> tribe -> points (final only)
    settlements: dict[str, list[int]]  # tribe -> sizes of its scoring settlements (final only)
    road: dict[str, int]  # tribe -> points for The Long Road (final only)
    totals: dict[str, int]  # tribe -> this scoring's points
    settlement_spaces: dict[str, list[list[str]]] = field(default_factory=dict)  # tribe -> each settlement's spaces

    def to_json(self) -> dict:
        """The tally as JSON (connection ids and territory ids as keys)."""
        return {
            "scoring": "final" if self.final else "half",
            "tribes": list(self.tribes),
            "tents": self.tents,
            "totems": self.totems,
            "settlements": self.settlements,
            "settlement_spaces": self.settlement_spaces,
            "road": self.road,
            "totals": self.totals,
        }


def _check_feats(m: IwariMap, feats: dict[str, int]) -> None:
    ids = {c.id for c in m.connections}
    for key, n in feats.items():
        where = key[len(CONNECTION_FEAT) :] if key.startswith(CONNECTION_FEAT) else key
        if (where not in ids) if key.startswith(CONNECTION_FEAT) else (key not in m.territories):
            raise UserError(
                f"feats.{key}: no such territory or connection on the map (a key is a territory id or 'connection:<id>')."
            )
        if type(n) is not int or n < 0:
            raise UserError(f"feats.{key}: a feat count is a whole number ≥ 0, got {n!r}.")


def score(
    m: IwariMap,
    tribes,
    tents: dict[str, str],
    totems: dict[str, dict[str, int]],
    feats: dict[str, int] | None = None,
    final: bool = False,
) -> Tally:
    """One scoring: tents only at half journey (``final=False``, I-HALF-2/3); tents, totems, settlements and the
    road at the end (I-END-3). ``tents`` {space: tribe}, ``totems`` {territory: {tribe: count}}, ``feats``
    {territory or ``connection:<id>``: count}. Assumes tents and totems name the map's places and ``tribes``."""
    tribes = tuple(tribes)
    feats = dict(feats or {})
    _check_feats(m, feats)
    per_territory: dict[str, dict[str, int]] = {}
    for space, tribe in tents.items():
        counts = per_territory.setdefault(m.tent_spaces[space], {})
        counts[tribe] = counts.get(tribe, 0) + 1
    tent_pts = {}
    for territory in sorted(per_territory):
        k = feat_factor(feats, territory)
        tent_pts[territory] = {t: p * k for t, p in tent_points(per_territory[territory]).items()}
    totem_pts: dict[str, dict[str, int]] = {}
    settlements: dict[str, list[int]] = {}
    spaces: dict[str, list[list[str]]] = {}
    road: dict[str, int] = {}
    if final:
        for c in m.connections:
            if c.mountain:  # I-TOT-1
                continue
            u, v = (totems.get(t, {}) for t in c.between)
            holders = totem_holders(u) & totem_holders(v)
            if holders:
                worth = (sum(u.values()) + sum(v.values())) * feat_factor(feats, CONNECTION_FEAT + c.id)
                totem_pts[c.id] = {t: worth for t in sorted(holders)}
        for tribe in tribes:
            found = settlements_of(m, tents, tribe)
            if found:
                spaces[tribe] = found
                settlements[tribe] = [len(p) for p in found]
        if m.special == "long-road":
            on_road: dict[str, int] = {}
            for s in m.road:
                if s in tents:
                    on_road[tents[s]] = on_road.get(tents[s], 0) + 1
            road = tent_points(on_road)
    totals = {t: 0 for t in tribes}
    for part in (*tent_pts.values(), *totem_pts.values(), road):
        for t, p in part.items():
            totals[t] += p
    for t, sizes in settlements.items():
        totals[t] += sum(sizes)
    return Tally(tribes, final, tent_pts, totem_pts, settlements, road, totals, spaces)


def winner(totals: dict[str, int], unused: dict[str, int], eligible) -> tuple[list[str], str]:
    """The winners among ``eligible`` tribes (I-END-4): the most points; tied, the most unused pieces (tents + totems
    in supply); still tied, every one of them wins (I-NIT-12, the text gives no further tie-break). Returns the
    winners and one line explaining how the tie (if any) was broken. The 2-player third tribe is not eligible (I-2P-4)."""
    pool = [t for t in totals if t in set(eligible)]
    if not pool:
        return [], "no tribe can win."
    best = max(totals[t] for t in pool)
    tied = [t for t in pool if totals[t] == best]
    if len(tied) == 1:
        return tied, f"{tied[0]} has the most points ({best}); no tie."
    names = " and ".join(tied)
    pieces = ", ".join(f"{t} {unused.get(t, 0)}" for t in tied)
    most = max(unused.get(t, 0) for t in tied)
    still = [t for t in tied if unused.get(t, 0) == most]
    if len(still) == 1:
        return still, (
            f"{names} tie on {best} points; {still[0]} has the most unused pieces, tents and totems ({pieces}), "
            "and wins (I-END-4)."
        )
    return still, (
        f"{names} tie on {best} points; {' and '.join(still)} are still tied on unused pieces ({pieces}); the "
        "text gives no further tie-break, so they share the win (I-NIT-12)."
    )
