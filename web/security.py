"""Sessions, CSRF tokens, login rate limits and response headers."""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from collections import deque
from pathlib import Path

from flask import Flask, Response, abort, request, session
from flask.sessions import SecureCookieSessionInterface

from controller.storage import atomic_write

#: Methods that never change anything; every other one needs the CSRF token.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"


def secret_key(data_dir: Path) -> bytes:
    """The key that signs session cookies: made once, kept in the data folder (mode 600)."""
    path = Path(data_dir) / "web-secret.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_bytes(48)
    atomic_write(path, key, mode=0o600)
    return key


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed cookie, marked Secure when served over https or when configured."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def check_csrf() -> None:
    """Refuse a state-changing request without this session's token (400)."""
    if request.method in SAFE_METHODS:
        return
    expected = session.get("csrf")
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    if not expected or not given or not hmac.compare_digest(str(expected), str(given)):
        abort(400, description="the form's security token is missing or out of date "
                               "(CSRF check): reload the page and try again")


class RateLimiter:
    """At most `limit` failures per `window` seconds per key (an address, a user name)."""

    def __init__(self, limit: int = 5, window: float = 300.0, clock=time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str) -> deque[float]:
        now = self.clock()
        times = self._failures.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def retry_after(self, *keys: str) -> int:
        """Seconds to wait before another attempt, 0 when one is allowed now."""
        with self._lock:
            wait = 0.0
            for key in keys:
                times = self._recent(key)
                if len(times) >= self.limit:
                    wait = max(wait, times[0] + self.window - self.clock())
            return int(wait) + 1 if wait > 0 else 0

    def failed(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._recent(key).append(self.clock())
            if len(self._failures) > 10_000:
                # Forget idle keys so a flood of names cannot grow memory without end.
                for k in [k for k, v in self._failures.items() if not v]:
                    del self._failures[k]

    def succeeded(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._failures.pop(key, None)


CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data: blob:; "
                           "style-src 'self'; script-src 'self'; connect-src 'self'; "
                           "frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


def add_headers(response: Response) -> Response:
    """Headers every page gets: no framing, no sniffing, scripts and styles only from here."""
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if request.endpoint != "static":
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def random_id() -> str:
    return os.urandom(12).hex()
