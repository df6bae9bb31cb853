"""The browser tests' server (tests.web.support.serve_app) lets no response body go
unclosed when a client resets its connection: werkzeug's development server skips the
body's close() then (see `ClosedWhenDropped`), which made a browser test fail now and then
on a ResourceWarning for the favicon's file."""

from __future__ import annotations

import gc
import socket
import struct
import sys
import threading
import time

from flask import Flask

from tests.web.support import serve_app

RESETS = 30
WAIT_SECONDS = 60.0


def _request_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    """The request threads started since `before` (other tests' servers in this worker may
    still hold theirs: a page's event stream)."""
    return [t for t in threading.enumerate() if "process_request" in t.name and t not in before]


def test_a_static_file_whose_client_resets_the_connection_is_closed(tmp_path, monkeypatch):
    static = tmp_path / "static"
    static.mkdir()
    (static / "icon.svg").write_bytes(b"<svg/>" * 50)
    app = Flask(__name__, static_folder=str(static))
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    before = set(threading.enumerate())
    url, stop = serve_app(app, tmp_path)
    port = int(url.rsplit(":", 1)[1])
    try:
        for _ in range(RESETS):
            # The request, then more bytes the server drains after answering; the client
            # reads the answer's first bytes and resets the connection (SO_LINGER 0).
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(b"GET /static/icon.svg HTTP/1.1\r\nHost: t\r\n\r\n" + b"more" * 10)
                assert s.recv(12).startswith(b"HTTP/1.1 200")
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        deadline = time.monotonic() + WAIT_SECONDS
        while (left := _request_threads(before)) and time.monotonic() < deadline:
            left[0].join(timeout=1.0)
        assert not _request_threads(before), "the server still handles a reset connection"
    finally:
        stop()
    gc.collect()
    assert [repr(u.exc_value) for u in unraisable] == []
