"""The house client's failures, against a local server that misbehaves on purpose: each is
the right error, and the answer and socket of a failed call are freed when the call returns,
not left in a reference cycle for a later garbage collection (which may finalize the socket
before its answer closes it: "unclosed <ssl.SSLSocket>", a flaky failure in the house's tests)."""

from __future__ import annotations

import gc
import http.client
import json
import socket
import ssl
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from controller.outbox import HouseClient, HouseRefused, HouseUnreachable


@pytest.fixture
def server():
    """An HTTP server answering by path: /cut closes without an answer, /refuse 409 with a
    reason, /fail 503, /head a head."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            path = self.path.split("/api/tables/t1", 1)[-1]
            if path == "/cut":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            status, body = {"/refuse": (409, {"error": "a gap after seq 4", "seq": 4}),
                            "/fail": (503, {"error": "its database is down"}),
                            "/head": (200, {"head_seq": 7, "head": "ab"})}[path]
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def left_open(server: str) -> list[object]:
    """The answers and open client sockets alive now (gc.get_objects(): cycles not yet
    collected included, with the collector off). The test server's own side of a connection
    (its local port is the server's) is not the client's: its thread may still be closing it."""
    port = int(server.rsplit(":", 1)[1])

    def local_port(sock: socket.socket) -> int | None:
        try:
            return sock.getsockname()[1]
        except (OSError, IndexError, TypeError):
            return None

    return [o for o in gc.get_objects()
            if isinstance(o, http.client.HTTPResponse)
            or (isinstance(o, socket.socket) and o.fileno() != -1 and local_port(o) != port)]


@pytest.mark.parametrize("path, error, words", [
    ("/cut", HouseUnreachable, "cannot be reached"),
    ("/refuse", HouseRefused, "the house refused: a gap after seq 4"),
    ("/fail", HouseUnreachable, "failed: its database is down"),
])
def test_a_failed_call_is_its_error_and_leaves_nothing_open(server, path, error, words):
    client = HouseClient(server, "t1", "token")
    before = {id(o) for o in left_open(server)}
    gc.disable()
    try:
        with pytest.raises(error, match=words) as caught:
            client._call("GET", path)
        del caught
        left = [o for o in left_open(server) if id(o) not in before]
    finally:
        gc.enable()
    assert left == []


def test_an_answer_is_read(server):
    assert HouseClient(server, "t1", "token").head() == {"head_seq": 7, "head": "ab"}


def test_a_refusal_keeps_the_seq_the_house_holds(server):
    with pytest.raises(HouseRefused) as caught:
        HouseClient(server, "t1", "token")._call("GET", "/refuse")
    assert (caught.value.status, caught.value.seq) == (409, 4)


def test_a_connection_reset_before_the_tls_handshake_leaves_no_socket_open():
    """The house killed between the TCP connect and the TLS handshake: the wrap fails with
    the reset, and the TLS socket that took over the connection is closed (CPython 3.11's
    would stay open until a garbage collection)."""
    listener = socket.create_server(("127.0.0.1", 0))
    raw = socket.create_connection(listener.getsockname())
    client = HouseClient(f"https://127.0.0.1:{listener.getsockname()[1]}", "t1", "token")
    peer, _ = listener.accept()
    peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    peer.close()  # linger 0: a reset, not an orderly close
    gc.disable()
    try:
        with pytest.raises(OSError) as caught:  # the exception keeps the wrapping frame alive
            client.context.wrap_socket(raw, server_hostname="127.0.0.1")
        still_open = [o for o in gc.get_objects()
                      if isinstance(o, ssl.SSLSocket) and o.fileno() != -1]
        del caught
    finally:
        gc.enable()
        raw.close()
        listener.close()
    assert still_open == []
