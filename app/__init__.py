"""The composition root: the one place that builds a running table from its configuration.

    root = Feltbank(config)                 # only the configuration: no file, thread, device
    with root:                              # start(): table, live table, devices, camera,
        app = root.app()                    # supervisor; the dashboard, handed its services
        root.health()                       # one report of every part

`feltbank run` only parses its arguments, makes this object and hands its dashboard to a web
server; tests make the same object with doubles (a pin factory, a printer, no camera).
"""

from app.root import Feltbank, open_table

__all__ = ["Feltbank", "open_table"]
