"""What the tablet shows about learning the owner's table: the learning status, the set-up check and the adapt offer.

It reads the tablet hooks a program sets in the app's config (docs/web.md, *Hooks for the pipeline*):
``TABLE_PROFILE`` (an ``assistant.table.profile.TableProfile``: its ``status()`` and ``card()``), ``ADAPT_NOW``
(``callable() -> one line``: start an adapt in the background) and ``BOARD_JPEG`` (``callable(board, regions) ->
JPEG bytes | None``: the board image of one board with those regions marked). ``view`` turns them, and the
session's set-up check (its ``SetupCheck`` event), into the page's ``learning`` entry that
``templates/parts/learning.html`` renders (inside the live ``scoreboard`` part)::

    {"profile": name | None, "state": "idle" | "learning" | "done" | "failed", "text": one line,
     "progress": 0..1 | None, "percent": 0..100 | None, "card_text": the adapted card's line | None,
     "setup_check": None | {"ok", "text", "lines": [one line per kind that reads badly], "offer_adapt",
                            "pictures": [{"board", "regions": [region ids]}], "game_id"},
     "can_adapt": ADAPT_NOW is set, "board_crops": BOARD_JPEG is set, "problem": why the status cannot be read | None,
     "guard": the adaptation guard's line when it dropped the adaptation for this game | None}

``view`` is None when there is nothing to show (no profile, no set-up check). A status file that cannot be read is
one line on the page, never an error. ``watch_key`` changes whenever the status or the card file does, so the live
stream re-renders (web.hub's ``watch``) when the adapt runner writes them, without an event.
"""

from __future__ import annotations

import math
import re
from urllib.parse import urlencode

from assistant.errors import UserError
from assistant.table.observation import split_reading_key

STATES = ("idle", "learning", "done", "failed")
MAX_PICTURES = 4  # boards pictured in one panel or alert
MAX_REGIONS = 64  # regions marked on one board picture
_BOARD = re.compile(r"^[A-Za-z0-9_.+-]{1,120}$")
_REGION = re.compile(r"^[A-Za-z0-9_.:+-]{1,80}$")


def one_line(value, limit: int = 300) -> str:
    """``value`` as one line of at most ``limit`` characters ("" for None)."""
    text = " ".join(str(value).split()) if value is not None else ""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def check_board(name) -> str:
    """A board (layout) name the picture route accepts; else a one-line UserError."""
    if not isinstance(name, str) or not _BOARD.match(name):
        raise UserError("name the board as its layout is named (letters, digits, '.', '_', '+', '-'), e.g. ?board=wendake-village-1.")
    return name


def check_regions(values) -> list[str]:
    """Region ids the picture route accepts (at most MAX_REGIONS, no repeats); else a one-line UserError."""
    out: list[str] = []
    for v in values:
        if not isinstance(v, str) or not _REGION.match(v):
            raise UserError(f"region {one_line(v, 40)!r} is not a region id (letters, digits, '.', '_', ':', '+', '-'), e.g. ?region=T05.pa1.")
        if v not in out:
            out.append(v)
    if len(out) > MAX_REGIONS:
        raise UserError(f"mark at most {MAX_REGIONS} regions on one board picture.")
    return out


def board_src(picture: dict, stamp=None) -> str:
    """The URL of one board's board image with its regions marked (``/board.jpg?board=...``, web.learn_routes)."""
    query = [("board", picture["board"])] + [("region", r) for r in picture.get("regions") or []]
    if stamp is not None:
        query.append(("v", str(stamp)))
    return "/board.jpg?" + urlencode(query)


# ---- the set-up check ----------------------------------------------------------------------------------------
def _add(pics: dict[str, list[str]], board, region) -> None:
    if not isinstance(board, str) or not _BOARD.match(board):
        return
    regions = pics.setdefault(board, [])
    if isinstance(region, str) and _REGION.match(region) and region not in regions and len(regions) < MAX_REGIONS:
        regions.append(region)


def pictures(*sources) -> list[dict]:
    """The boards (and regions on them) named anywhere in ``sources``: a board name, a list of names, a dict
    {board: [regions]}, dicts with ``board`` and ``region``/``regions``, or reading keys (``"board/region"``)
    under ``key``/``keys``; nested lists and ``boards``/``examples``/``kinds``/``problems``/``bad``/``misread``
    entries are searched. At most MAX_PICTURES boards."""
    pics: dict[str, list[str]] = {}

    def walk(x, depth: int = 0) -> None:
        if depth > 6 or x is None:
            return
        if isinstance(x, str):
            if "/" in x:
                board, region, _ = split_reading_key(x) if x.count("/") == 1 else (None, None, False)
                _add(pics, board, region)
            else:
                _add(pics, x, None)
        elif isinstance(x, (list, tuple)):
            for item in x[:200]:
                walk(item, depth + 1)
        elif isinstance(x, dict):
            if isinstance(x.get("board"), str):
                _add(pics, x["board"], None)
                regs = x.get("regions") if isinstance(x.get("regions"), list) else [x.get("region")]
                for r in regs[:MAX_REGIONS]:
                    _add(pics, x["board"], r)
            for k in ("key", "keys"):
                walk(x.get(k), depth + 1)
            for k in ("boards", "examples", "kinds", "problems", "bad", "misread"):
                v = x.get(k)
                if k == "boards" and isinstance(v, dict):
                    for board, regs in list(v.items())[:MAX_PICTURES * 4]:
                        _add(pics, board, None)
                        for r in (regs if isinstance(regs, list) else [])[:MAX_REGIONS]:
                            _add(pics, board, r)
                elif k == "kinds" and isinstance(v, dict):
                    walk(list(v.values()), depth + 1)
                else:
                    walk(v, depth + 1)

    for s in sources:
        walk(s)
    return [{"board": b, "regions": r} for b, r in list(pics.items())[:MAX_PICTURES]]


def _keys(value) -> list:
    """Reading keys (``"board/region"``) in a list: a ``SetupCheck``'s ``regions``."""
    return [k for k in value if isinstance(k, str) and "/" in k] if isinstance(value, list) else []


def _bad_kinds(d: dict) -> list[dict]:
    """What reads badly, worst first: the ``problems`` (``SetupCheck``), ``bad`` or ``misread`` entries, else the
    ``kinds`` entries that say so."""
    for key in ("problems", "bad", "misread"):
        if isinstance(d.get(key), list):
            return [x for x in d[key] if isinstance(x, dict)]
    kinds = d.get("kinds")
    items = list(kinds.items()) if isinstance(kinds, dict) else [(None, k) for k in kinds] if isinstance(kinds, list) else []
    out = []
    for name, k in items:
        if isinstance(k, dict) and (k.get("bad") or k.get("ok") is False or k.get("reads_badly")):
            out.append({"kind": name, **k})
    return out


def setup_check(d) -> dict | None:
    """The page's set-up check from a ``SetupCheck`` event's JSON (None when ``d`` is not one)."""
    if not isinstance(d, dict):
        return None
    if isinstance(d.get("payload"), dict):  # an event as the log stores it: {"seq", "kind", "payload"}
        d = d["payload"]
    bad = _bad_kinds(d)
    ok = d["ok"] if isinstance(d.get("ok"), bool) else not bad
    text = one_line(d.get("text") or d.get("message") or d.get("line"))
    lines = [one_line(x.get("text") or x.get("line") or x.get("message")) for x in bad]
    lines = [x for x in lines if x and x not in text][:6]  # the first problem's line starts the text
    if not text:
        text = lines.pop(0) if lines else ("Every kind of place reads well." if ok else "Some places read badly.")
    return {"ok": ok, "text": text, "lines": lines, "offer_adapt": bool(d.get("offer_adapt", not ok)),
            "pictures": [] if ok else pictures(bad, _keys(d.get("regions")), {k: d.get(k) for k in ("board", "region", "boards")}),
            "game_id": next((d[k] for k in ("game_id", "game") if isinstance(d.get(k), str)), None)}


# ---- the learning status -------------------------------------------------------------------------------------
def _progress(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return min(1.0, max(0.0, float(value)))


def _read(what, fn):
    """(``fn()``, None) or (None, a one-line problem) for a profile file that cannot be read."""
    try:
        return fn(), None
    except (UserError, OSError, ValueError, TypeError) as exc:
        return None, one_line(f"the table profile's {what} cannot be read: {exc}")


def view(config, setup_event=None, game_id=None) -> dict | None:
    """The page's ``learning`` entry (module docstring) from the app's config and the session's set-up check
    (``setup_event``: its SetupCheck JSON, or None); without one, the status's ``setup_check`` unless it names
    another game than ``game_id`` (``game_id`` or ``game``)."""
    prof = config.get("TABLE_PROFILE")
    status, problem = ({}, None) if prof is None else _read("status", prof.status)
    if not isinstance(status, dict):
        status, problem = {}, problem or "the table profile's status is not a JSON object; the adapt runner rewrites it."
    state = status.get("state") if status.get("state") in STATES else "idle"
    card = status.get("card") if isinstance(status.get("card"), dict) else None
    if card is None and prof is not None and state in ("idle", "done"):
        card, trouble = _read("card", prof.card)
        problem = problem or trouble
    card_text = one_line(card.get("text")) if isinstance(card, dict) and card.get("text") else None
    check = setup_check(setup_event)  # the session's own: exactly this game's
    if check is None:  # the status's, unless it names another game
        check = setup_check(status.get("setup_check"))
        if check is not None and check["game_id"] and game_id and check["game_id"] != game_id:
            check = None
    if prof is None and check is None:
        return None
    progress = _progress(status.get("progress")) if state == "learning" else None
    guard = status.get("guard") if isinstance(status.get("guard"), dict) else {}
    guard_text = one_line(guard.get("text")) if guard.get("dropped") and guard.get("text") else None
    if guard_text and game_id and guard.get("game_id") and guard["game_id"] != game_id:
        guard_text = None  # another game's verdict: each game is checked anew
    return {"profile": getattr(prof, "name", None), "state": state, "text": one_line(status.get("text")),
            "progress": progress, "percent": None if progress is None else round(100 * progress),
            "card_text": card_text, "setup_check": check, "can_adapt": callable(config.get("ADAPT_NOW")),
            "board_crops": callable(config.get("BOARD_JPEG")), "problem": problem,
            "guard": guard_text}


def watch_key(config) -> tuple:
    """Changes whenever what ``view`` reads from files or hooks may have: the status and card files' times and
    sizes, and which hooks are set."""
    prof = config.get("TABLE_PROFILE")
    stamps: list = [id(prof), callable(config.get("ADAPT_NOW")), callable(config.get("BOARD_JPEG"))]
    for name in ("status_path", "adapted_dir"):
        path = getattr(prof, name, None)
        if path is None:
            continue
        path = path / "card.json" if name == "adapted_dir" else path
        try:
            st = path.stat()
            stamps.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append(None)
    return tuple(stamps)
