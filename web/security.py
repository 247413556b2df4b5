"""The tablet app's safety: the PIN (stored hashed), unlocking, attempt limiting and CSRF tokens.

Viewing is open on the local network; every state-changing request needs an unlocked browser session (the PIN
was typed within ``UNLOCK_SECONDS``) and the session's CSRF token, sent as the ``X-CSRF-Token`` header (the
page's JavaScript) or a ``csrf_token`` form field.

The PIN file (JSON, ``tablewatch-web-pin/1``) holds the PIN's scrypt hash and salt, and the secret key that
signs the browser sessions, so unlocked tablets stay unlocked across server restarts. It is created at first
start (``tablewatch serve`` asks for a PIN, or makes one up and prints it) and written readable by its owner only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from pathlib import Path

from assistant.errors import UserError

FORMAT = "tablewatch-web-pin/1"
PIN_MIN, PIN_MAX = 4, 12
UNLOCK_SECONDS = 30 * 60
MAX_FAILURES = 5  # wrong PINs in a row before a lock-out
LOCKOUT_SECONDS = 60


def check_pin_format(pin: str) -> str:
    """The PIN if it is 4-12 digits; UserError otherwise."""
    pin = (pin or "").strip()
    if not (pin.isdigit() and PIN_MIN <= len(pin) <= PIN_MAX and pin.isascii()):
        raise UserError(f"the PIN must be {PIN_MIN} to {PIN_MAX} digits (0-9), e.g. 4821.")
    return pin


def _hash(pin: str, salt: bytes) -> str:
    return hashlib.scrypt(pin.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32).hex()


class PinStore:
    """The PIN file: set, check and the session secret. Thread-safe."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._data = self._read()

    def _read(self) -> dict | None:
        if not self.path.is_file():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, OSError):
            raise UserError(f"{self.path} is not a Tablewatch PIN file. Delete it and start again to set a new PIN.") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not {"salt", "hash", "secret"} <= set(data):
            raise UserError(f"{self.path} is not a Tablewatch PIN file. Delete it and start again to set a new PIN.")
        return data

    @property
    def is_set(self) -> bool:
        return self._data is not None

    def set_pin(self, pin: str) -> None:
        pin = check_pin_format(pin)
        salt = secrets.token_bytes(16)
        with self._lock:
            secret = (self._data or {}).get("secret") or secrets.token_hex(32)
            data = {"format": FORMAT, "salt": salt.hex(), "hash": _hash(pin, salt), "secret": secret}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.replace(tmp, self.path)
            self._data = data

    def verify(self, pin: str) -> bool:
        if self._data is None or not isinstance(pin, str):
            return False
        try:
            digest = _hash(pin.strip(), bytes.fromhex(self._data["salt"]))
        except ValueError:
            return False
        return hmac.compare_digest(digest, self._data["hash"])

    @property
    def secret(self) -> str:
        if self._data is None:
            raise UserError("no PIN is set yet; start the server with 'tablewatch serve' to set one.")
        return self._data["secret"]


class AttemptLimiter:
    """Locks PIN entry for a client address after MAX_FAILURES wrong PINs in a row."""

    def __init__(self, max_failures: int = MAX_FAILURES, lockout_s: float = LOCKOUT_SECONDS, clock=time.monotonic):
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.clock = clock
        self._fails: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def wait_left(self, who: str) -> float:
        """Seconds until ``who`` may try again (0 when allowed)."""
        with self._lock:
            n, since = self._fails.get(who, (0, 0.0))
            if n < self.max_failures:
                return 0.0
            left = since + self.lockout_s - self.clock()
            if left <= 0:
                del self._fails[who]
                return 0.0
            return left

    def failed(self, who: str) -> None:
        with self._lock:
            n, _ = self._fails.get(who, (0, 0.0))
            self._fails[who] = (n + 1, self.clock())

    def succeeded(self, who: str) -> None:
        with self._lock:
            self._fails.pop(who, None)


def csrf_token(session) -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def csrf_ok(session, sent: str | None) -> bool:
    token = session.get("csrf")
    return bool(token) and isinstance(sent, str) and hmac.compare_digest(token, sent)


def unlock(session) -> None:
    session["unlocked_until"] = time.time() + UNLOCK_SECONDS


def lock(session) -> None:
    session.pop("unlocked_until", None)


def is_unlocked(session) -> bool:
    return float(session.get("unlocked_until", 0)) > time.time()
