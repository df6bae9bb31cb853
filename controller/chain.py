"""The journal's hash chain: each entry carries the SHA-256 of the one before it.

An entry's hash is SHA-256 over the previous entry's hash and a canonical encoding of the
entry: its seq, command (id, kind, arguments), events, ledger legs, source and time, as JSON
with sorted keys and no spaces. Change one byte of an entry, or drop one, and every hash
after it differs: a printed short head (`short(head)`) later proves what the journal said.

The table (controller.journal) and the house (house.db) both compute it here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

#: The "previous hash" of the first entry.
GENESIS = "0" * 64
#: Hex digits of a head printed on slips and pages.
SHORT = 12


def canonical(value: Any) -> str:
    """The one text of a JSON value: keys sorted, no spaces, UTF-8 as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def body(seq: int, command_id: str, kind: str, args: Mapping, events: list,
         legs: Iterable[tuple[int, str, str, int]], source: str, at: str) -> dict:
    """An entry as the chain sees it (legs: (entry number, kind, account, amount))."""
    return {"seq": seq, "id": command_id, "kind": kind, "args": dict(args), "events": events,
            "legs": [list(leg) for leg in legs], "source": source, "at": at}


def link(previous: str, entry: Mapping) -> str:
    """The hash of `entry` (a body()) following an entry whose hash is `previous`."""
    return hashlib.sha256(f"{previous}\n{canonical(entry)}".encode()).hexdigest()


def short(head: str) -> str:
    """A head's short form, as printed."""
    return head[:SHORT]
