"""The ``Game`` interface every game package implements, and the registry that finds them: ``games.get("wendake")``.

In the spirit of OpenSpiel: the game (rules, set-up, JSON forms) is kept apart from its state (an object the game
alone understands) and from its observer (what a perfect camera reads off a table in that state). The table core
(``assistant/table/``) knows games only through this interface; a game lives in one package,
``assistant/<name>/``, whose module ``game`` holds ``GAME``, an object with the members below.

Contract (``state`` and ``move`` are the game's own objects):

- identity: ``name`` (registry key, ``"wendake"``), ``title``, ``player_counts``; ``player_name(state, player)``
  (the name of the player at seat ``player``: a move's player in the tracker's events) and ``year(state)`` (the
  stage of play a move is logged under, from 1: Wendake's year, Iwari's round);
- state: ``new_state(players, seed=None, **options)``, ``state_to_json`` / ``state_from_json`` (a round trip gives
  an equal state), ``copy(state)``, ``is_over(state)``, ``invariant_errors(state)`` (the game's invariants as
  one-line texts; empty when the state is possible);
- moves: ``move_to_json`` / ``move_from_json`` (``InvalidMoveError`` for a move that is not well typed),
  ``check(state, move)`` (the list of broken rules, each with its rule ID; raises only ``MoveError``),
  ``apply(state, move)`` (plays the move on ``state`` in place, as python-chess's ``push``, and returns it;
  ``IllegalMoveError`` when the move breaks a rule; nothing else),
  ``legal_moves(state)`` (lazy), ``random_move(state, rng)`` (a seeded random player) and
  ``describe(before, move, after)`` (the move in a player's words);
- scoring: ``results(state)`` (the game's result as JSON: the final result once ``is_over``, else each player's
  standing if the game ended now; ``"final"`` (bool), ``"winners"`` (names), ``"tie_break"`` (a line or None),
  ``"players"`` (one object per player in seat order with ``"name"`` and ``"total"``) and the game's own keys);
- hidden information: ``conceal(state)`` (a state with every hidden thing unknown, as at a real table) and
  ``apply_edit(state, edit)`` (name a hidden thing, an edit stored with the moves);
- observer: ``expected_readings(state)`` (``{key: Pieces}``, the ``assistant.table.observation`` keys) and
  ``region_kind(key)`` (one of ``REGION_KINDS``: how a camera reads that region).
- referee: ``referee(state)``: the go-between for the moves the game makes itself (Wendake's solo Ghost), with
  ``announce(tracker)``, ``feed(tracker, observation)`` -> events and ``forget()``; None when nobody plays itself;
- tablet: ``snapshot(initial, moves, edits, state)`` (the game's part of the session's snapshot for the line of
  ``moves`` with ``edits`` {move index: [edit]} from ``initial`` to ``state``; its ``moves`` list has one entry
  per move, ``seq`` None, and may give each a ``round_label``, the move log's short tag for its ``year`` in the
  game's own unit: Iwari's "R3"; without one the tablet shows "Y3"), ``alert_words(state, alert)``
  (``{"rules", "message", "fix", "fix_lines", "boards"}``: an alert, ``{"kind", "rule", "message", "fix", "put_back"}``, in the players' words) and
  ``tablet_moves(state, action, payload)`` (the moves, as JSON, a tap on the tablet enters; ``UserError`` when
  it does not fit);
- set-up: ``setup_options()`` (the choices the set-up wizard offers: ``player_counts``, ``colours``, ``boards``
  {role: (layout prefix, default)}, ``required_board`` and the game's own) and ``parse_setup(body)`` (the wizard's
  form checked: ``new_state`` options, ``players`` and ``seed`` among them; ``UserError`` for bad input) and
  ``setup_record(state)`` (the set-up as the game log keeps it beside the initial state: ``players``, the names
  in seat order, and what else a reader of the log needs);
- explainer: ``explainer(tracker, edition=None)``, the game's side of the tracker's search (``Explainer``): one
  object per tracker, which may read the tracker's accepted line and looks;
- move log: ``movelog``, what a camera can tell of a line of moves (``MoveLog``): the yardstick of the e2e figures
  (``tablewatch e2e``), a recognised log against the true one turn by turn.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Iterable, Protocol, runtime_checkable

import assistant
from assistant.errors import UserError

# The game the set-up wizard and the programs start when none is named: the product's first game.
DEFAULT_GAME = "wendake"

# How a camera reads a region: every piece counted; a pile (some pieces may hide the others, so a reading of
# fewer agrees); a stack whose top alone shows; a printed tile's face.
REGION_KINDS = ("count", "pile", "top-of-stack", "tile-face")


@runtime_checkable
class Game(Protocol):
    """What the table core needs of a game (module docstring)."""

    name: str
    title: str
    player_counts: tuple[int, ...]

    def player_name(self, state, player: int) -> str: ...
    def year(self, state) -> int: ...
    def new_state(self, players: list[str], seed: int | None = None, **options) -> Any: ...
    def state_to_json(self, state) -> dict: ...
    def state_from_json(self, doc: dict) -> Any: ...
    def copy(self, state) -> Any: ...
    def is_over(self, state) -> bool: ...
    def invariant_errors(self, state) -> list[str]: ...
    def move_to_json(self, move) -> dict: ...
    def move_from_json(self, doc: dict) -> Any: ...
    def check(self, state, move) -> list: ...
    def apply(self, state, move) -> Any: ...
    def legal_moves(self, state) -> Iterable: ...
    def random_move(self, state, rng) -> Any: ...
    def describe(self, before, move, after) -> str: ...
    def results(self, state) -> dict: ...
    def conceal(self, state) -> Any: ...
    def apply_edit(self, state, edit: dict) -> None: ...
    def expected_readings(self, state) -> dict: ...
    def region_kind(self, key: str) -> str: ...
    def referee(self, state) -> Any: ...
    def snapshot(self, initial, moves: list, edits: dict, state) -> dict: ...
    def alert_words(self, state, alert: dict) -> dict: ...  # alert: kind, rule, message, fix, put_back, candidates
    def tablet_moves(self, state, action: str, payload: dict) -> list[dict]: ...
    def setup_options(self) -> dict: ...
    def parse_setup(self, body: dict) -> dict: ...
    def setup_record(self, state) -> dict: ...
    def explainer(self, tracker, edition=None) -> Explainer: ...

    movelog: MoveLog


class MoveLog(Protocol):
    """What a camera can tell of a move log (``Game.movelog``)."""

    def turns(self, initial, moves: list, edits: dict | None = None) -> list:
        """``moves`` (with the hidden-information ``edits`` {move index: [edit, ...]}, as the tracker keeps them)
        from the state ``initial``, cut into the game's physical turns, one value per turn: what a camera can tell
        of it, compared with ``==`` (two turns that differ only in what no camera sees are equal). ``initial``
        None: a recording without its start; a game that needs the table to tell raises ``ValueError``."""
        ...


class Explainer(Protocol):
    """What the tracker (``assistant.table.tracker``) asks of a game while it explains looks, one contract a member.
    ``state`` and ``move`` are the game's own objects, ``items`` a look (``assistant.table.evidence.Look``), ``exp``
    expected readings, ``node`` a scored line (``assistant.table.evidence.Node``)."""

    ed: Any  # the game's edition data (the tracker's ``ed``)
    lookalikes: dict  # what it learnt of the accepted moves; emptied when the tracker rebuilds its line
    phases: tuple  # the search keeps the best lines of each phase, in this order
    pref_cost: float  # the cost of one preference step beside the readings' confidences (``Node.key``)
    tile_evidence_cap: float  # a weak read costs how far the expected value fits behind it, at most this
    score_alert_confidence: float  # a score reading this sure that disagrees is a score alert, not doubt of a line
    stubborn_steady_only: bool  # sure disagreements the moves do not touch let them in only if the last look read them so

    # a re-read past look's one sure reading one piece off may be noise
    def near_miscount(self, key: str, error, value, expected) -> bool: ...
    # the readings off a position (its expected readings exp), (key, value, conf), are a turn under way no move shows
    def turn_in_progress(self, diffs: list, exp: dict) -> bool: ...

    # the inverse model
    # (move, rank, edit or None): the moves that may explain the look's differences
    def candidates(self, node, items) -> list: ...
    def shows_nothing(self, move) -> bool: ...  # what a camera can tell of a move: nothing on the table yet
    def illegal_guess(self, node, items): ...  # (move, violation, player): the illegal move a difference looks like, or None
    def fill_hidden(self, state, move) -> tuple: ...  # (move, edit or None): a move entered by hand fitted to hidden things
    def note_purchases(self, state, move) -> None: ...  # learn from an accepted move before it is played
    # the key of the one sure reading that is a piece placed unseen, or None
    def missed_marker(self, node, items, before: dict, base): ...
    # the game's moves, as the tracker plays them
    def readings(self, readings: dict) -> dict: ...  # an observation's readings as weighed (derived readings added)
    def apply(self, state, move, validate: bool = True) -> None: ...  # play a move in place
    def apply_edit(self, state, edit: dict) -> None: ...  # make a hidden-information edit in place
    def play_checked(self, state, move) -> None: ...  # play a move entered by hand; the game's IllegalMoveError if illegal
    def child(self, state, move, edit): ...  # a copy with ``edit`` made and ``move`` played; None when illegal
    def follow(self, state, moves): ...  # a copy with ``moves`` played; None when one is illegal
    # (player, start, end, score change) per run of one player's moves
    def player_runs(self, states: list, moves: list) -> Iterable: ...
    def put_back(self, key: str, expected, seen) -> dict: ...  # one difference as an alert shows it
    # the evidence hooks
    def is_score(self, key: str) -> bool: ...  # a score reading: weighed apart, never rejects a move
    def differs(self, key: str, value, expected) -> bool: ...  # a reading disagrees as its region is read
    def counted(self, key: str) -> bool: ...  # a count a counter reads (loose and steady counts apply)
    # a count read too loosely to tell one piece more or less
    def loose(self, key: str, value, conf: float, base: dict) -> bool: ...
    # what a disagreeing reading weighs
    def weight(self, key: str, value, conf: float, exp: dict, items, base: dict) -> float: ...
    def discounted(self, items) -> bool: ...  # the look reads a place ``weight`` may cap below its confidence
    def in_flux(self, state): ...  # the prefix of the keys an open action may change (not learned as misreadings), or None
    def score_cost(self, state, items, exp: dict) -> tuple: ...  # (score disagreement, spaces off, the other readings)
    def score_sig(self, node, items) -> frozenset: ...  # the score readings that disagree with ``node``
    def check_scores(self, items) -> list: ...  # the score alerts of the accepted position, raised and cleared on the tracker
    # the shape of the search
    def open_actions(self, state) -> int: ...  # obligations still open, counted as given up in a line's rank
    def skip_cost(self, state, move) -> int: ...  # preference steps ``move`` costs by giving obligations up
    def skipped(self, state, move) -> int: ...  # obligations ``move`` gives up
    def turn_open(self, state) -> bool: ...  # a line that explains the look goes on from ``state``
    def may_go_on(self, state) -> bool: ...  # a line that does not explain the look yet may add moves from ``state``
    def owed_unseen(self, move) -> bool: ...  # owed though a camera may not see it: a depth of them is not stale
    def phase(self, state) -> str: ...  # the phase of ``state``, one of ``phases``
    def point_of_turn(self, state) -> tuple: ...  # who plays and how far the turn went: the search keeps a few of each
    def signature(self, node) -> tuple: ...  # what makes two lines' positions the same for the search
    def visible(self, node) -> tuple: ...  # what a line shows on the table: lines alike here need no confirmation
    def hidden(self, node) -> tuple: ...  # what differs between positions that look the same: kept as alternatives


_REGISTRY: dict[str, Game] = {}


def _discover() -> None:
    """Import ``assistant.<pkg>.game`` for every subpackage that has one and register its ``GAME``."""
    if _REGISTRY:
        return
    for info in pkgutil.iter_modules(assistant.__path__):
        if not info.ispkg or info.name in ("table", "apps"):
            continue
        try:
            module = importlib.import_module(f"assistant.{info.name}.game")
        except ModuleNotFoundError as exc:
            if exc.name != f"assistant.{info.name}.game":
                raise
            continue
        game = module.GAME
        _REGISTRY[game.name] = game


def names() -> list[str]:
    """The registered games' names, sorted (the set-up's default, ``DEFAULT_GAME``, is not first by name)."""
    _discover()
    return sorted(_REGISTRY)


def get(name: str) -> Game:
    """The game called ``name``; a ``UserError`` naming the known games otherwise."""
    _discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UserError(f"no game called {name!r}; the games are: {', '.join(sorted(_REGISTRY)) or 'none'}.") from None
