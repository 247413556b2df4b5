"""The tablet's routes for learning the owner's table: start an adapt, and the board image of one board.

``POST /api/adapt`` (the PIN and CSRF token, as every change: web.app's guard) calls the ``ADAPT_NOW`` hook (no
arguments, returns one line; it starts the adapt in the background) and answers ``{"ok", "message"}``; without the
hook it is a 404 that says this program cannot adapt. ``one_board_jpeg`` answers ``GET /board.jpg?board=B&region=R
&region=...`` (web.app's board image route with a ``board``): the board image of board B alone with regions R
marked, from the ``BOARD_JPEG`` hook (``callable(board, regions) -> JPEG bytes | None``); with no picture of that
board yet a 404 in one line. Bad input is a 400 in one line (web.learning's checks); a hook that fails is a 503 in
one line, never a 500. What the page shows about learning is in web.learning.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from assistant.errors import UserError
from web.learning import check_board, check_regions, one_line

bp = Blueprint("learn", __name__)


def _tw():
    return current_app.extensions["tablewatch"]


@bp.post("/api/adapt")
def api_adapt():
    hook = current_app.config.get("ADAPT_NOW")
    if not callable(hook):
        return jsonify(error="This program cannot adapt to the table; run 'tablewatch adapt' on the computer that runs 'tablewatch live'."), 404
    try:
        message = hook()
    except UserError:
        raise
    except Exception as exc:  # the hook is the program's (live); its failure is one line, never a 500
        current_app.logger.warning("ADAPT_NOW failed: %r", exc)
        return jsonify(error=one_line(f"The adapt could not start: {exc}. Try again later; the game goes on.")), 503
    _tw().hub.refresh()  # the learning status changes with it
    return jsonify(ok=True, message=one_line(message) or "Learning your table.")


def one_board_jpeg(hook) -> Response:
    """The board image of the board named in the request (``?board=B&region=R...``) from ``hook`` (BOARD_JPEG)."""
    board = check_board(request.args.get("board"))
    regions = check_regions(request.args.getlist("region"))
    try:
        data = hook(board, regions)
    except UserError:
        raise
    except Exception as exc:  # the hook is the program's (live, demo): one line, never a 500
        current_app.logger.warning("BOARD_JPEG failed: %r", exc)
        return Response(one_line(f"The picture of {board} could not be drawn: {exc}"), status=503, mimetype="text/plain")
    if not data:
        return Response(f"No picture of {board} yet: the camera has not read it on a settled table.", status=404, mimetype="text/plain")
    resp = Response(bytes(data), mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp
