"""The dashboard's production server: hypercorn (asyncio) in front, Flask in a bounded pool
of threads behind.

Idle connections cost no thread: hypercorn reads requests and writes responses on one event
loop, and closes a connection whose request head has not fully arrived within
`keep_alive` seconds (a half-sent request); a body must arrive within `body_seconds`. Flask
runs in `threads` threads only while it builds a response: a page is built whole, then sent
by the loop however slowly the client reads. The event streams (/live/events) are driven by
the loop itself (`EventFeed` never blocks): a thread only for the moment a batch is read from
the table. So the banker's commands and /healthz always find a free thread, whatever the
viewers and the network do.

    serve(app, "0.0.0.0", 8080, threads=16)        # until SIGTERM/SIGINT
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote_to_bytes

log = logging.getLogger("feltbank")

#: A response built in a thread is sent once it is whole, up to this size; beyond it, and for
#: streamed media (the camera's MJPEG), it is sent chunk by chunk as it comes.
BUFFER = 1024 * 1024
STREAMED = (b"multipart/x-mixed-replace", b"text/event-stream")
#: The WSGI environ key through which the event-stream view hands its feed to this server.
STREAM_KEY = "feltbank.stream"


class Dashboard:
    """An ASGI application running the Flask `app` in `threads` threads; event streams on the
    event loop."""

    def __init__(self, app, threads: int = 16, body_seconds: float = 10.0):
        self.app = app
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="feltbank-web")
        self.body_seconds = body_seconds
        self.max_body = (app.config.get("MAX_CONTENT_LENGTH") or 1 << 20) + 1

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    self.pool.shutdown(wait=False, cancel_futures=True)
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        try:
            body = await asyncio.wait_for(self._body(receive), self.body_seconds)
        except TimeoutError:
            return await _plain(send, 408, b"the request's body did not arrive in time")
        if body is None:
            return await _plain(send, 413, b"the request's body is too large")
        loop = asyncio.get_running_loop()
        holder: list = []
        environ = wsgi_environ(scope, body)
        environ[STREAM_KEY] = holder
        status, headers, chunks, rest = await loop.run_in_executor(self.pool, self._run, environ)
        if holder:
            # The view answered with the stream's headers only; the body is ours to send.
            headers = [(k, v) for k, v in headers if k != b"content-length"]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        try:
            for chunk in chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if holder:
                await self._events(holder[0], receive, send)
            elif rest is not None:
                while (chunk := await loop.run_in_executor(self.pool, next, rest, None)) \
                        is not None:
                    await send({"type": "http.response.body", "body": chunk,
                                "more_body": True})
        finally:
            if rest is not None and hasattr(rest, "close"):
                await loop.run_in_executor(self.pool, rest.close)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _body(self, receive) -> bytes | None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return bytes(body)
            body += message.get("body", b"")
            if len(body) > self.max_body:
                return None
            if not message.get("more_body"):
                return bytes(body)

    def _run(self, environ: dict):
        """In a thread: the Flask response's status, headers, what it has to send now, and
        an iterator of the rest (a stream), or None when it is whole."""
        started: dict = {}

        def start_response(status: str, headers: list, exc_info=None):
            started["status"] = int(status.split(" ", 1)[0])
            started["headers"] = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                                  for k, v in headers]

        body: Iterable[bytes] = self.app(environ, start_response)
        it = iter(body)
        streamed = any(k == b"content-type" and v.startswith(STREAMED)
                       for k, v in started.get("headers", ()))
        chunks, size = [], 0
        try:
            for chunk in it:
                chunks.append(chunk)
                size += len(chunk)
                if streamed or size >= BUFFER:
                    return started["status"], started["headers"], chunks, _closing(it, body)
        except BaseException:
            _close(body)
            raise
        _close(body)
        return started["status"], started["headers"], chunks, None

    async def _events(self, stream, receive, send) -> None:
        """Drive one event stream on the loop: wake on each outcome, read the batch in a
        thread, send it; a keepalive comment when nothing happens; end when the client goes
        or the stream's lifetime is over."""
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        gone = asyncio.Event()

        def waker() -> None:
            loop.call_soon_threadsafe(wake.set)

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            wake.set()

        watcher = asyncio.ensure_future(watch())
        stream.broadcaster.add_waker(waker)
        try:
            chunks = await loop.run_in_executor(self.pool, stream.feed.opening)
            await _send_text(send, chunks)
            end = loop.time() + stream.lifetime
            while not gone.is_set() and loop.time() < end:
                wake.clear()
                if not stream.feed.ready():
                    try:
                        await asyncio.wait_for(wake.wait(),
                                               min(stream.keepalive, end - loop.time()))
                    except TimeoutError:
                        await _send_text(send, [": keepalive\n\n"])
                        continue
                    if gone.is_set():
                        break
                chunks = await loop.run_in_executor(self.pool, stream.feed.news)
                await _send_text(send, chunks)
        finally:
            stream.broadcaster.remove_waker(waker)
            watcher.cancel()
            stream.release()


def _closing(it: Iterator, body) -> Iterator:
    try:
        yield from it
    finally:
        _close(body)


def _close(body) -> None:
    if hasattr(body, "close"):
        body.close()


async def _send_text(send, chunks: list[str]) -> None:
    if chunks:
        await send({"type": "http.response.body", "body": "".join(chunks).encode(),
                    "more_body": True})


async def _plain(send, status: int, text: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": text, "more_body": False})


def wsgi_environ(scope: dict, body: bytes) -> dict:
    """The WSGI environ (PEP 3333) of an ASGI HTTP request."""
    import io

    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    raw = scope.get("raw_path") or scope["path"].encode()
    path = unquote_to_bytes(raw.split(b"?", 1)[0]).decode("latin-1")
    root = scope.get("root_path", "")
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root,
        "PATH_INFO": path[len(root):] if root and path.startswith(root) else path,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "CONTENT_LENGTH": str(len(body)),
    }
    for name, value in scope.get("headers", ()):
        key = name.decode("latin-1").upper().replace("-", "_")
        text = value.decode("latin-1")
        if key == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = text
        elif key == "CONTENT_LENGTH":
            continue
        else:
            key = f"HTTP_{key}"
            environ[key] = f"{environ[key]},{text}" if key in environ else text
    return environ


def hypercorn_config(host: str, port: int, tls: tuple[str, str] | None = None,
                     keep_alive: float = 5.0):
    """hypercorn's settings: one process, idle and half-sent requests closed after
    `keep_alive` seconds, request heads of at most 16 KiB."""
    from hypercorn.config import Config

    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.keep_alive_timeout = keep_alive
    config.read_timeout = 60
    config.graceful_timeout = 5
    config.h11_max_incomplete_size = 16 * 1024
    config.include_server_header = False
    config.accesslog = None
    config.errorlog = log
    if tls:
        config.certfile, config.keyfile = tls
    return config


def serve(app, host: str, port: int, threads: int = 16,
          tls: tuple[str, str] | None = None) -> None:
    """Serve `app` until SIGTERM or SIGINT."""
    from hypercorn.asyncio import serve as hypercorn_serve

    async def main() -> None:
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, done.set)
        log.info("dashboard on %s:%d (hypercorn, %d threads for pages; event streams and "
                 "idle connections on the event loop)", host, port, threads)
        await hypercorn_serve(Dashboard(app, threads), hypercorn_config(host, port, tls),
                              shutdown_trigger=done.wait)

    asyncio.run(main())


class ServerThread:
    """`app` served on 127.0.0.1 in a thread of this process, for tests and benchmarks:
    `with ServerThread(app) as server: server.url`."""

    def __init__(self, app, threads: int = 16, keep_alive: float = 5.0, host: str = "127.0.0.1"):
        import threading

        self.app, self.threads, self.keep_alive, self.host = app, threads, keep_alive, host
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feltbank-server", daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done: asyncio.Event | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        import socket

        from hypercorn.asyncio import serve as hypercorn_serve

        with socket.socket() as s:
            s.bind((self.host, 0))
            self.port = s.getsockname()[1]

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._done = asyncio.Event()
            config = hypercorn_config(self.host, self.port, keep_alive=self.keep_alive)
            self._loop.call_soon(self._ready.set)
            await hypercorn_serve(Dashboard(self.app, self.threads), config,
                                  shutdown_trigger=self._done.wait)

        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self._error = exc
            self._ready.set()

    def __enter__(self) -> ServerThread:
        import socket
        import time

        self._thread.start()
        self._ready.wait(30)
        deadline = time.monotonic() + 30
        while self._error is None:
            try:
                socket.create_connection((self.host, self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start listening") from None
                time.sleep(0.05)
        if self._error is not None:
            raise RuntimeError(f"the server did not start: {self._error}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._done is not None:
            self._loop.call_soon_threadsafe(self._done.set)
        self._thread.join(30)
