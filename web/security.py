"""The tablet app's safety: the PIN (stored hashed), unlocking, attempt limiting and CSRF tokens.

Viewing is open on the local network; every state-changing request needs an unlocked browser session (the PIN
was typed within ``UNLOCK_SECONDS``, and no Lock or PIN change happened since) and the session's CSRF token, sent
as the ``X-CSRF-Token`` header (the page's JavaScript) or a ``csrf_token`` form field.

The PIN file (JSON, ``tablewatch-web-pin/1``) holds the PIN's scrypt hash and salt, the secret key that signs the
browser sessions, and the unlock version (``lock_version``): an unlock is good only while the version it was made
under is current, and Lock or a new PIN moves the version on, so every earlier unlock (a copied cookie too) ends
at once. Unlocked tablets stay unlocked across server restarts. The file is created at first start
(``tablewatch serve`` asks for a PIN, or makes one up) and written readable by its owner only. New PINs have
``PIN_MIN``-``PIN_MAX`` digits; a shorter PIN stored by an older version still opens.

PIN attempts are limited per device (``AttemptLimiter``, keyed by ``client_key``): each attempt is counted before
the PIN is checked, ``FREE_ATTEMPTS`` come at once, then each further one waits a delay that doubles from
``FIRST_DELAY_S`` up to ``MAX_DELAY_S``; a right PIN clears the count. Another device's guesses never delay this
one. docs/web.md says what that resists.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import threading
import time
from pathlib import Path

from assistant.errors import UserError

FORMAT = "tablewatch-web-pin/1"
PIN_MIN, PIN_MAX = 6, 12  # for new PINs; docs/web.md says why 6
UNLOCK_SECONDS = 30 * 60
FREE_ATTEMPTS = 5  # PIN attempts a device may make at once
FIRST_DELAY_S = 60  # then it waits this long before the next one, doubling each time
MAX_DELAY_S = 3600  # up to this
FORGET_S = 24 * 3600  # a device that made no attempt for this long starts afresh
MAX_FAILURES = FREE_ATTEMPTS  # the old name


def check_pin_format(pin: str) -> str:
    """The PIN if it is PIN_MIN-PIN_MAX digits; UserError otherwise."""
    pin = (pin or "").strip()
    if not (pin.isdigit() and PIN_MIN <= len(pin) <= PIN_MAX and pin.isascii()):
        raise UserError(f"the PIN must be {PIN_MIN} to {PIN_MAX} digits (0-9), e.g. 482193.")
    return pin


def client_key(addr: str | None) -> str:
    """Who a request comes from, for the PIN limiter and the stream caps: the IPv4 address, or an IPv6 address's
    /64 network (one device can use many addresses in its /64)."""
    try:
        ip = ipaddress.ip_address((addr or "").split("%")[0])
    except ValueError:
        return str(addr or "?")[:64]
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


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
        """Store a new PIN (PIN_MIN-PIN_MAX digits); every earlier unlock ends."""
        pin = check_pin_format(pin)
        salt = secrets.token_bytes(16)
        with self._lock:
            old = self._data or {}
            secret = old.get("secret") or secrets.token_hex(32)
            self._write({"format": FORMAT, "salt": salt.hex(), "hash": _hash(pin, salt), "secret": secret,
                         "lock_version": int(old.get("lock_version", 0)) + 1})

    def _write(self, data: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, self.path)
        self._data = data

    @property
    def lock_version(self) -> int:
        """The current unlock version: an unlock made under another one is void."""
        return int((self._data or {}).get("lock_version", 0))

    def lock_all(self) -> None:
        """End every unlock made so far, on every browser (the new version is stored, so it outlasts a restart)."""
        with self._lock:
            if self._data is not None:
                self._write({**self._data, "lock_version": self.lock_version + 1})

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
    """PIN attempts per device (``client_key``): ``take`` counts an attempt before the PIN is checked, atomically,
    so parallel requests cannot all slip through. ``free`` attempts come at once; after that each one waits
    ``first_delay_s``, doubling, at most ``max_delay_s``. ``succeeded`` (the right PIN) clears the count; a device
    quiet for ``forget_s`` starts afresh. A growing delay, not a lock: the owner's device is never held up by
    another device's guesses, and even a guessing device can try again later."""

    def __init__(self, free: int = FREE_ATTEMPTS, first_delay_s: float = FIRST_DELAY_S, max_delay_s: float = MAX_DELAY_S,
                 forget_s: float = FORGET_S, clock=time.monotonic, max_devices: int = 4096):
        self.free = free
        self.first_delay_s = first_delay_s
        self.max_delay_s = max_delay_s
        self.forget_s = forget_s
        self.clock = clock
        self.max_devices = max_devices
        self._seen: dict[str, tuple[int, float, float]] = {}  # who -> (attempts, next allowed at, last attempt at)
        self._lock = threading.Lock()

    def _state(self, who: str, now: float) -> tuple[int, float, float]:
        n, next_at, last = self._seen.get(who, (0, 0.0, now))
        if now - last > self.forget_s:
            return 0, 0.0, now
        return n, next_at, last

    def wait_left(self, who: str) -> float:
        """Seconds until ``who`` may try again (0 when allowed now)."""
        with self._lock:
            now = self.clock()
            return max(0.0, self._state(who, now)[1] - now)

    def take(self, who: str) -> float:
        """Count one attempt for ``who`` now and return 0; or, while ``who`` must wait, count nothing and return
        the seconds left."""
        with self._lock:
            now = self.clock()
            n, next_at, _ = self._state(who, now)
            if now < next_at:
                return next_at - now
            n += 1
            if n >= self.free:
                next_at = now + min(self.max_delay_s, self.first_delay_s * 2 ** min(n - self.free, 32))
            self._seen.pop(who, None)
            self._seen[who] = (n, next_at, now)
            while len(self._seen) > self.max_devices:  # the longest quiet device goes first
                del self._seen[next(iter(self._seen))]
            return 0.0

    def succeeded(self, who: str) -> None:
        with self._lock:
            self._seen.pop(who, None)


def csrf_token(session) -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def csrf_ok(session, sent: str | None) -> bool:
    token = session.get("csrf")
    return bool(token) and isinstance(sent, str) and hmac.compare_digest(token, sent)


def unlock(session, pins: PinStore) -> None:
    """Unlock this browser session for UNLOCK_SECONDS, under the PIN file's current unlock version."""
    session["unlocked_until"] = time.time() + UNLOCK_SECONDS
    session["lock_version"] = pins.lock_version


def lock(session, pins: PinStore) -> None:
    """Lock: from an unlocked session every unlock ends, on every browser (copies of this cookie too); from a
    locked one only this session's state is cleared, so a visitor cannot lock the owner out."""
    if is_unlocked(session, pins):
        pins.lock_all()
    session.pop("unlocked_until", None)
    session.pop("lock_version", None)


def is_unlocked(session, pins: PinStore) -> bool:
    try:
        return float(session.get("unlocked_until", 0)) > time.time() and session.get("lock_version") == pins.lock_version
    except (TypeError, ValueError):
        return False
