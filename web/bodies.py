"""Reading request bodies: every JSON body goes through ``assistant.jsonfile.loads``.

``create_app`` sets ``app.request_class = Request``, so ``request.get_json()`` (with or without ``silent``) on
every route, here and in the blueprints, refuses a body that is not UTF-8, not JSON, holds ``NaN`` or a number
beyond a float, or nests deeper than ``jsonfile.MAX_DEPTH``, by raising ``UserError``: the app's error handler
answers 400 with that one line. Flask's own reader would let a body nested 100,000 deep end in a
``RecursionError`` and an HTTP 500, and would pass ``NaN`` and a 900-deep body on to the routes.
"""

from __future__ import annotations

import flask

from assistant import jsonfile


class Request(flask.Request):
    def get_json(self, force: bool = False, silent: bool = False, cache: bool = True):
        """A JSON body parsed by ``jsonfile.loads``: ``UserError`` (a 400) for a body that is not JSON, even with
        ``silent``; a body sent as another type is left to Flask (``silent``: None, else a 415)."""
        if not (force or self.is_json):
            return super().get_json(force=force, silent=silent, cache=cache)
        return jsonfile.loads(self.get_data(cache=cache), "the request body", "Send one JSON object, as the tablet page does.")
