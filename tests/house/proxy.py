"""A TCP proxy that can cut a table off from the house: while cut, it drops every connection."""

from __future__ import annotations

import socket
import threading


class Proxy:
    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.cut = threading.Event()
        self.dropped = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def set_cut(self, cut: bool) -> None:
        if cut:
            self.cut.set()
            with self._lock:  # connections in flight are cut too
                for s in list(self._open):
                    _close(s)
        else:
            self.cut.clear()

    def close(self) -> None:
        _close(self._server)
        self.set_cut(True)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if self.cut.is_set():
                self.dropped += 1
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                _close(s)
                with self._lock:
                    self._open.discard(s)


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()
