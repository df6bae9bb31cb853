"""The dashboard under abuse: the event stream exactly once, the money page at scale, bad
input at the door, redirects, revocation, throttling, a broken disk."""

from __future__ import annotations

import threading
import time

from controller.games.base import Command
from tests.web.test_web_live import parse


class Stream:
    """An open /live/events response read chunk by chunk (the test client, unbuffered)."""

    def __init__(self, client, **headers):
        self.response = client.get("/live/events", headers=headers, buffered=False)
        assert self.response.status_code == 200, self.response.get_data(as_text=True)
        self.chunks = iter(self.response.response)
        self.text = ""

    def until(self, done, seconds: float = 30.0) -> list[dict]:
        """Read until `done(messages)` holds (or fail after `seconds`); the messages."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            messages = parse(self.text)
            if done(messages):
                return messages
            chunk = next(self.chunks)
            self.text += chunk.decode() if isinstance(chunk, bytes) else chunk
        raise AssertionError(f"the stream did not get there in {seconds} s: {self.text[-500:]}")

    def close(self):
        self.response.close()


def outcomes(messages: list[dict]) -> list[int]:
    return [int(m["id"]) for m in messages if m.get("event") == "outcome"]


def test_every_event_exactly_once_in_order_with_eight_writers(make_app, table, auth):
    """Issue 14, item 11: 8 writers, one stream: every outcome once, in order, and a stream
    resumed by Last-Event-ID gets exactly the rest."""
    app = make_app(table, SSE_MAX_SECONDS=60.0)
    auth.client = app.test_client()
    auth.setup()
    stream = Stream(auth.client)
    first = int(stream.until(lambda m: any(x.get("event") == "state" for x in m))[-1]["id"])

    def writer(w: int) -> None:
        for n in range(25):
            table.submit(Command("buy-in", {"player": "Sanzo", "amount": 1}, f"w{w}-{n}"))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    last = first + 200
    # Read while they write.
    messages = stream.until(lambda m: any(x.get("event") == "state" and int(x["id"]) >= last
                                          for x in m))
    stream.close()
    for t in threads:
        t.join()
    assert table.journal.last_seq() == last
    assert outcomes(messages) == list(range(first + 1, last + 1))
    states = [m for m in messages if m.get("event") == "state"]
    assert states[-1]["data"]["balances"]["Sanzo"] == 20 + 200
    # Each state follows the outcomes it includes.
    for m in states:
        assert int(m["id"]) == m["data"]["seq"]

    middle = first + 77
    resumed = Stream(auth.client, **{"Last-Event-ID": str(middle)})
    messages = resumed.until(lambda m: any(x.get("event") == "state" for x in m))
    resumed.close()
    assert outcomes(messages) == list(range(middle + 1, last + 1))
    assert messages[-1]["event"] == "state" and int(messages[-1]["id"]) == last
