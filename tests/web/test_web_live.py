"""Live: Server-Sent Events (state on connect, events, keepalive, Last-Event-ID) and the camera."""

from __future__ import annotations

import json
import re
import threading

import pytest

from controller.games.base import Command
from controller.games.observation import Observation, Seen
from controller.live import LiveTable
from web.camera import StillCamera

JPEG = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"


def parse(text: str) -> list[dict]:
    """The SSE messages of `text`: each {'event', 'id', 'data', 'comment'}."""
    out = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        msg: dict = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                msg["comment"] = line[1:].strip()
            elif line.startswith("data: "):
                msg["data"] = json.loads(line[6:])
            elif ": " in line:
                key, value = line.split(": ", 1)
                msg[key] = value
        out.append(msg)
    return out


def test_state_on_connect_with_the_seq_as_id(client, banker, table):
    messages = parse(client.get("/live/events").get_data(as_text=True))
    assert messages[0] == {"retry": "2000"}
    state = messages[1]
    assert state["event"] == "state"
    assert state["id"] == str(table.journal.last_seq())
    assert state["data"]["seats"] == ["Ginawa", "Sanzo", "Ujikeme"]
    # Nothing happened: keepalives until the stream ends (the browser then reconnects).
    assert any(m.get("comment") == "keepalive" for m in messages[2:])


def test_events_as_they_are_committed(make_app, table, auth):
    app = make_app(table, SSE_MAX_SECONDS=1.0)
    client = app.test_client()
    auth.client = client
    auth.setup()

    def later():
        assert app.extensions["feltbank.broadcaster"].listening(30)  # the stream is open
        table.submit(Command("buy-in", {"player": "Sanzo", "amount": 5}, "live-1"))

    thread = threading.Thread(target=later)
    thread.start()
    messages = parse(client.get("/live/events").get_data(as_text=True))
    thread.join()
    outcome = next(m for m in messages if m.get("event") == "outcome")
    assert outcome["data"]["id"] == "live-1"
    assert outcome["id"] == str(outcome["data"]["seq"])
    states = [m for m in messages if m.get("event") == "state"]
    assert states[-1]["data"]["balances"]["Sanzo"] == 25
    assert states[-1]["id"] == outcome["id"]


def test_reconnection_with_last_event_id_sends_what_was_missed(client, banker, table):
    seen = table.journal.last_seq()
    banker.command("buy-in", id="m1", player="Sanzo", amount=1)
    banker.command("buy-in", id="m2", player="Sanzo", amount=2)
    messages = parse(client.get("/live/events", headers={"Last-Event-ID": str(seen)})
                     .get_data(as_text=True))
    outcomes = [m for m in messages if m.get("event") == "outcome"]
    assert [m["data"]["id"] for m in outcomes] == ["m1", "m2"]
    assert [int(m["id"]) for m in outcomes] == [seen + 1, seen + 2]
    assert messages[len(outcomes) + 1]["event"] == "state"


def test_reconnection_from_before_the_window_reads_the_journal(client, banker, table):
    # The table's own earlier commands were never broadcast: they come from the journal.
    last = table.journal.last_seq()
    messages = parse(client.get("/live/events", headers={"Last-Event-ID": "1"})
                     .get_data(as_text=True))
    outcomes = [m for m in messages if m.get("event") == "outcome"]
    assert [int(m["id"]) for m in outcomes] == list(range(2, last + 1))
    assert outcomes[0]["data"]["kind"] == "join"
    assert messages[len(outcomes) + 1]["event"] == "state"
    # A Last-Event-ID from another journal (beyond this one's end): the state only.
    messages = parse(client.get("/live/events", headers={"Last-Event-ID": str(last + 50)})
                     .get_data(as_text=True))
    assert [m.get("event") for m in messages[1:2]] == ["state"]
    assert not any(m.get("event") == "outcome" for m in messages)


@pytest.mark.parametrize("bad", ["abc", "-3", "1e9"])
def test_a_bad_last_event_id_is_a_clear_400(client, banker, bad):
    response = client.get("/live/events", headers={"Last-Event-ID": bad})
    assert response.status_code == 400 and "Last-Event-ID" in response.json["error"]


def first_roll(labels=(("NORTH", 0.98), ("WATER", 0.52), ("FIRE", 0.97), ("BIRD", 0.95),
                        ("VOID", 0.99))) -> Observation:
    """What the camera saw: five dice in the rolling area; by default the Water die unsure."""
    return Observation(tuple(Seen(label, conf, (100.0 * i, 50.0)) for i, (label, conf)
                             in enumerate(labels)))


@pytest.fixture
def live_client(make_app, table, auth):
    """A banker's client of a table with the camera's door (LiveTable) and a still camera."""
    door = LiveTable(table)
    app = make_app(table, camera=StillCamera(JPEG), live=door, SSE_MAX_SECONDS=0.6)
    auth.client = app.test_client()
    auth.setup()
    auth.command("bet", player="Ginawa", bet="standard", amount=1)
    return auth, door


def test_a_waiting_reading_is_announced_without_an_id(live_client):
    auth, door = live_client

    def later():
        assert auth.client.application.extensions["feltbank.broadcaster"].listening(30)
        door.observe(first_roll())

    thread = threading.Thread(target=later)
    thread.start()
    messages = parse(auth.client.get("/live/events").get_data(as_text=True))
    thread.join()
    reading = next(m for m in messages if m.get("event") == "reading")
    assert reading["data"]["id"] == door.pending.id and "id" not in reading
    assert reading["data"]["reading"]["uncertain"] == [1]


def test_the_broadcaster_keeps_a_window_of_outcomes():
    from web.live import Broadcaster

    class Outcome:
        def __init__(self, seq):
            self.seq = seq

        def to_json(self):
            return {"seq": self.seq}

    b = Broadcaster(size=3)
    for seq in range(1, 6):
        b(Outcome(seq))
    assert [s for s, _ in b.since(3)] == [4, 5]
    assert b.since(5) == []
    assert b.since(1) is None  # 2 is gone: the stream sends the full state instead
    assert b.wait(4, 0.01) and not b.wait(5, 0.01)


# -- the camera --------------------------------------------------------------------------------


def test_no_camera_shows_the_no_camera_state(client, banker):
    page = client.get("/")
    assert 'id="no-camera"' in page.text and "enter each roll by hand" in page.text
    assert client.get("/camera/status").json == {"ok": False, "present": False,
                                                  "message": "no camera"}
    for path in ("/camera/snapshot.jpg", "/camera/stream.mjpg", "/camera/reading/x.jpg"):
        response = client.get(path)
        assert response.status_code == 404 and response.is_json, path


def test_camera_is_behind_the_login(make_app, table, auth):
    client = make_app(table, camera=StillCamera(JPEG)).test_client()
    auth.client = client
    auth.setup()
    auth.logout()
    for path in ("/camera/snapshot.jpg", "/camera/stream.mjpg", "/camera/reading/x.jpg",
                 "/camera/status", "/live/events"):
        assert client.get(path).status_code == 401, path


def test_snapshot_and_mjpeg_stream(make_app, table, auth):
    camera = StillCamera(JPEG)
    client = make_app(table, camera=camera, MJPEG_MAX_SECONDS=0.2, MJPEG_FPS=20).test_client()
    auth.client = client
    auth.setup()
    snap = client.get("/camera/snapshot.jpg")
    assert snap.status_code == 200 and snap.mimetype == "image/jpeg" and snap.data == JPEG
    stream = client.get("/camera/stream.mjpg")
    assert stream.mimetype == "multipart/x-mixed-replace"
    body = stream.get_data()
    assert body.startswith(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ")
    assert JPEG in body
    page = client.get("/")
    assert 'id="camera-img"' in page.text and 'data-stream="/camera/stream.mjpg"' in page.text


def test_mjpeg_streams_are_limited(make_app, table, auth):
    client = make_app(table, camera=StillCamera(JPEG), MJPEG_STREAMS=1).test_client()
    auth.client = client
    auth.setup()
    slots = client.application.extensions["feltbank.camera_slots"]
    assert slots.acquire(blocking=False)  # someone is watching
    try:
        response = client.get("/camera/stream.mjpg")
        assert response.status_code == 503 and "too many" in response.json["error"]
    finally:
        slots.release()


def row_of(html: str, row: str) -> str:
    """The confirmation row `row` (a die's name, or i + an object's index), its class included."""
    match = re.search(r'<div class="die-row([^"]*)" data-row="' + row + r'"(.*?)</div>', html, re.S)
    assert match, row
    return match.group(0)


def test_the_waiting_reading_shows_each_die_and_flags_the_unsure_one(live_client, table):
    auth, door = live_client
    door.observe(first_roll(), extra={"frame_jpeg": JPEG, "crops": [JPEG, b"", JPEG]})
    html = auth.client.get("/table/panel").text
    assert f'data-pending="{door.pending.id}"' in html
    north = row_of(html, "i0")
    assert 'data-face="NORTH" aria-pressed="true"' in north and "uncertain" not in north
    water = row_of(html, "i1")
    assert "uncertain" in water and "52%" in water and 'data-face="EAST"' in water
    assert f"/camera/reading/{door.pending.id}.jpg" in html
    assert auth.client.get(f"/camera/reading/{door.pending.id}.jpg").data == JPEG
    assert auth.client.get(f"/camera/reading/{door.pending.id}/0.jpg").data == JPEG
    assert auth.client.get(f"/camera/reading/{door.pending.id}/1.jpg").status_code == 404
    assert auth.client.get(f"/camera/reading/{door.pending.id}/9.jpg").status_code == 404
    assert auth.client.get("/camera/reading/nope.jpg").status_code == 404


def test_the_banker_corrects_one_die_and_confirms(live_client, table):
    auth, door = live_client
    door.observe(first_roll())
    headers = {"X-CSRF-Token": auth.token}
    before = len(table.journal)
    # Confirming as read is refused: the Water die is unsure. Nothing changes.
    response = auth.client.post("/api/live/confirm", headers=headers,
                                json={"pending": door.pending.id})
    assert response.status_code == 422
    assert "tap the face of die #2 (read WATER at 52%)" in response.json["error"]
    assert len(table.journal) == before
    response = auth.client.post("/api/live/confirm", headers=headers,
                                json={"pending": door.pending.id, "corrections": {"1": "EAST"}})
    assert response.status_code == 200, response.json
    assert table.state.showing == ("NORTH", "EAST", "FIRE", "BIRD", "VOID")
    assert door.pending is None
    assert table.journal.records(after=before).__next__().source == "camera, corrected by boss"


def test_a_correction_is_on_the_record_in_every_export(live_client, table, tmp_path):
    """The camera's reading and the banker's change reach the CSV, the hand history and the
    house report; a replay of that history still ends at the same balances."""
    import csv
    import io

    from controller.printqueue import house_report_data

    auth, door = live_client
    door.observe(first_roll(), extra={"frame_jpeg": JPEG})
    seq = table.journal.last_seq() + 1
    auth.client.post("/api/live/confirm", headers={"X-CSRF-Token": auth.token},
                     json={"pending": door.pending.id, "corrections": {"1": "EAST"}})
    rows = list(csv.DictReader(io.StringIO(auth.client.get("/money/journal.csv").text)))
    (row,) = [r for r in rows if r["seq"] == str(seq)][:1]
    assert row["camera read"].split()[:2] == ["NORTH:0.98", "WATER:0.52"]
    assert row["banker changed"] == "boss: #2 WATER->EAST"
    lines = [json.loads(x) for x in auth.client.get("/money/journal.jsonl").text.splitlines()]
    reading = next(x["reading"] for x in lines if "reading" in x)
    assert reading["corrections"] == [{"index": 1, "read": "WATER", "banker": "EAST",
                                       "changed": True}] and reading["confirmed_by"] == "boss"
    assert auth.client.get(f"/money/reading/{seq}.jpg").data == JPEG
    report = house_report_data(table)
    assert report["corrections"] == 1 and report["overrides"] == [
        {"seq": seq, "die": 2, "read": "WATER", "banker": "EAST", "who": "boss"}]
    from controller.history import balances, replay

    history = tmp_path / "session.jsonl"
    history.write_text(auth.client.get("/money/journal.jsonl").text)
    assert balances(replay(history)) == balances(table.state)


def test_the_banker_rejects_a_reading(live_client, table):
    auth, door = live_client
    door.observe(first_roll())
    pending = door.pending.id
    headers = {"X-CSRF-Token": auth.token}
    assert auth.client.post("/api/live/reject", headers=headers,
                            json={"pending": pending}).status_code == 200
    assert door.pending is None
    again = auth.client.post("/api/live/reject", headers=headers, json={"pending": pending})
    assert again.status_code == 422 and "no read roll is waiting" in again.json["error"]


@pytest.mark.parametrize("body,words", [
    ({}, "name the reading"),
    ({"pending": 5}, "name the reading"),
    ({"pending": "x", "corrections": ["EAST"]}, "corrections are"),
    ({"pending": "x", "corrections": {"one": "EAST"}}, "corrections are"),
    ({"pending": "x", "corrections": {"1": 5}}, "corrections are"),
])
def test_malformed_confirmations_are_clear_400s(live_client, table, body, words):
    auth, door = live_client
    door.observe(first_roll())
    response = auth.client.post("/api/live/confirm", headers={"X-CSRF-Token": auth.token},
                                json=body)
    assert response.status_code == 400 and words in response.json["error"]
    assert door.pending is not None


def test_confirming_a_stale_or_impossible_reading_says_why(live_client, table):
    auth, door = live_client
    door.observe(first_roll())
    headers = {"X-CSRF-Token": auth.token}
    stale = auth.client.post("/api/live/confirm", headers=headers, json={"pending": "old"})
    assert stale.status_code == 422 and "no longer the one waiting" in stale.json["error"]
    bad = auth.client.post("/api/live/confirm", headers=headers,
                           json={"pending": door.pending.id, "corrections": {"9": "EAST"}})
    assert bad.status_code == 422 and "no object 9" in bad.json["error"]


def test_without_a_camera_pipeline_the_reading_endpoints_are_404(client, banker):
    response = client.post("/api/live/confirm", headers={"X-CSRF-Token": banker.token},
                           json={"pending": "x"})
    assert response.status_code == 404 and "by hand" in response.json["error"]


def test_the_viewer_cannot_confirm_a_reading(make_app, table, auth):
    door = LiveTable(table)
    client = make_app(table, live=door).test_client()
    auth.client = client
    auth.setup()
    auth.command("bet", player="Ginawa", bet="standard", amount=1)
    door.observe(first_roll())
    auth.add_viewer()
    auth.logout()
    auth.login("screen", "viewer-pass-1")
    html = client.get("/table/panel").text
    assert 'id="confirm"' not in html
    response = client.post("/api/live/confirm", headers={"X-CSRF-Token": auth.token},
                           json={"pending": door.pending.id, "corrections": {"1": "EAST"}})
    assert response.status_code == 403 and door.pending is not None


def test_a_broken_camera_does_not_break_the_page(make_app, table, auth):
    class Broken:
        def latest_jpeg(self):
            raise OSError("unplugged")

        def status(self):
            raise OSError("unplugged")

    client = make_app(table, camera=Broken()).test_client()
    auth.client = client
    auth.setup()
    page = client.get("/")
    assert page.status_code == 200 and "camera error: unplugged" in page.text


def test_the_camera_loop_index_is_not_taken_for_a_frame(live_client):
    # controller.camera_loop hands the frame's index as extra["frame"]: no image to show.
    auth, door = live_client
    door.observe(first_roll(), extra={"frame": 17, "crops": "nonsense"})
    html = auth.client.get("/table/panel").text
    assert "reading-frame" not in html and '<img class="crop"' not in html
    assert 'canvas class="crop" width="56" height="56" data-center="0.0,50.0"' in html
    assert auth.client.get(f"/camera/reading/{door.pending.id}.jpg").status_code == 404
    assert auth.client.get(f"/camera/reading/{door.pending.id}/0.jpg").status_code == 404


def test_loop_camera_encodes_each_frame_once_and_reports_its_status():
    from controller.camera_loop import CameraStatus
    from web.camera import LoopCamera, camera_status

    class Frame:
        def __init__(self, image):
            self.image = image

    class Loop:
        last_frame = None
        status = CameraStatus(camera="ok", table="settled", last_frame_at=None)

    encoded = []

    def encode(image):
        encoded.append(image)
        return f"jpeg:{image}".encode()

    loop = Loop()
    cam = LoopCamera(loop, encode)
    assert cam.latest_jpeg() is None
    loop.last_frame = Frame("a")
    assert cam.latest_jpeg() == b"jpeg:a" and cam.latest_jpeg() == b"jpeg:a"
    loop.last_frame = Frame("b")
    assert cam.latest_jpeg() == b"jpeg:b"
    assert encoded == ["a", "b"]
    status = camera_status(cam)
    assert status["ok"] is True and status["present"] is True and status["table"] == "settled"
    loop.status = CameraStatus(camera="unavailable", reason="no /dev/video0")
    assert camera_status(cam)["ok"] is False
    assert camera_status(cam)["message"] == "no /dev/video0"
