"""How the long-running programs (``live``, ``hub``, ``publish``) are stopped: Ctrl-C, or SIGTERM from a service
manager or ``kill``, both ending the same clean way (the program's ``except KeyboardInterrupt`` path: servers
closed, sessions flushed, nothing acknowledged that was not written). SIGTERM is the one that always works: a shell
without job control starts a background program with SIGINT ignored, and such a program keeps it so."""

from __future__ import annotations

import signal
import threading


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def sigterm_to_interrupt() -> None:
    """Make SIGTERM end the program like Ctrl-C (only the main thread may set a handler; elsewhere nothing)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
