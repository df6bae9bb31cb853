"""`feltbank bench live`: the demo table's camera timed from the dice settling to the screen,
on the running table the composition root (`app.Feltbank`) makes."""

from __future__ import annotations

from pathlib import Path

from controller.cli.common import add_mode_option
from controller.table import Table


def register_bench(bench_subparsers) -> None:
    """`feltbank bench live`: from the dice settling to the read roll on the event stream."""
    p = bench_subparsers.add_parser(
        "live", help="settled dice to the read roll on the dashboard's event stream; idle CPU",
        description="Throws the demo table's dice again and again and times each reading: "
                    "from the dice coming to rest, and from the settle detector's verdict, to "
                    "the moment the dashboard's event stream (the broadcaster its SSE handler "
                    "waits on) has the read roll. Then measures the CPU an idle table uses.")
    p.add_argument("--throws", type=int, default=10, help="throws to time (default 10)")
    p.add_argument("--settle", type=float, default=2.0,
                   help="camera.settle_seconds (default 2.0)")
    p.add_argument("--fps", type=float, default=10.0, help="camera.fps (default 10)")
    p.add_argument("--idle", type=float, default=10.0, help="seconds of idle table measured")
    add_mode_option(p, "game mode of the table; the demo table throws its dice")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=bench_live)


def bench_live(args) -> int:
    import random
    import statistics
    import tempfile
    import time

    from app import Feltbank
    from app.camera import DemoThrower
    from controller.cli.common import print_json
    from controller.config import load_config
    from controller.games.play import to_a_throw
    from controller.journal import Journal

    with tempfile.TemporaryDirectory() as tmp:
        config_file = Path(tmp) / "feltbank.toml"
        journal = Path(tmp) / "journal.sqlite3"
        config_file.write_text(f'[table]\nmode = "{args.mode}"\n'
                               f'[journal]\npath = "{journal}"\n'
                               f'[camera]\nsource = "demo"\nsettle_seconds = {args.settle}\n'
                               f'fps = {args.fps}\n[live]\nconfirm = "banker"\n'
                               '[gpio]\nfactory = "mock"\n[printer]\nconnection = "none"\n')
        config = load_config(config_file)
        table = Table(Journal(journal))
        # The mode's own way to where the dice are thrown (a bet before the first roll...).
        for cmd in to_a_throw(args.mode, players=3)[0]:
            table.submit(cmd)
        # The running table as `feltbank run` makes it (the composition root), on mock pins.
        root = Feltbank(config, table=table)
        try:
            root.start()
            rig, live = root.camera, root.live
            if rig is None:
                raise SystemExit(f"bench: {root.camera_error or 'no camera'}")
            now = table.snapshot()
            if rig.demo is None or now.engine.demo_throw(now.state, random.Random(0)) is None:
                raise SystemExit(f"bench: the demo table cannot throw {now.engine.title}'s "
                                 "dice; modes it throws: " + ", ".join(demo_modes()))
            throw = DemoThrower(table, rig.demo, seed=1)  # the same throws on every run
            stream = root.app(DATA_DIR=Path(tmp)).extensions["feltbank.broadcaster"]
            from_rest, from_settled = [], []
            for _ in range(args.throws):
                version = stream.pending_version
                throw()
                if not stream.wait(stream.last, 60.0, version):
                    raise SystemExit("bench: no reading in 60 s")
                arrived = time.monotonic()
                from_rest.append(arrived - rig.demo.rested_at)
                from_settled.append(arrived - rig.loop.status.settled_at)
                live.reject()  # the same first roll is thrown again
            time.sleep(args.settle + 0.5)  # the table settles into idleness
            cpu0, wall0 = time.process_time(), time.monotonic()
            time.sleep(args.idle)
            idle_cpu = (time.process_time() - cpu0) / (time.monotonic() - wall0)
            frames = rig.loop.status.frames
        finally:
            root.stop()
            table.journal.close()

    def ms(values, q):
        return round(1000 * statistics.quantiles(values, n=20)[18] if q == 95 and len(
            values) > 1 else 1000 * statistics.median(values), 1)

    figures = {
        "throws": args.throws, "settle_seconds": args.settle, "fps": args.fps,
        "settled_to_stream_ms": {"median": ms(from_settled, 50), "p95": ms(from_settled, 95)},
        "rest_to_stream_ms": {"median": ms(from_rest, 50), "p95": ms(from_rest, 95)},
        "idle_cpu_percent_of_one_core": round(100 * idle_cpu, 1),
        "frames": frames,
    }
    if args.json:
        print_json(figures)
    else:
        s, r = figures["settled_to_stream_ms"], figures["rest_to_stream_ms"]
        print(f"settled verdict -> read roll on the event stream: median {s['median']} ms, "
              f"p95 {s['p95']} ms ({args.throws} throws)")
        print(f"dice at rest -> read roll on the event stream: median {r['median']} ms, "
              f"p95 {r['p95']} ms (includes the {args.settle:g} s still window)")
        print(f"idle table at {args.fps:g} fps: {figures['idle_cpu_percent_of_one_core']}% "
              "of one core")
    return 0


def demo_modes() -> list[str]:
    """The modes whose dice or cards the demo table throws or deals (every mode whose
    equipment the camera reads, once brought to a throw)."""
    import random

    from app.readers import reader_kind
    from controller.errors import ConfigError
    from controller.games.play import to_a_throw
    from controller.modes import modes

    out = []
    for name, mode in modes().items():
        try:
            reader_kind(mode.equipment)
        except ConfigError:
            continue
        try:
            _, state = to_a_throw(name, players=3)
        except Exception:  # noqa: BLE001 - a mode that cannot be brought to a throw
            continue
        if mode.engine.demo_throw(state, random.Random(0)) is not None:
            out.append(name)
    return out
