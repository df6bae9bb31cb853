"""One BLAS thread while a frame is read or a table is calibrated.

numpy's OpenBLAS starts a thread per core, and between the small matrix products the reader
makes (a face's 100 query descriptors by a profile's 384 templates, 48 numbers each) its
threads spin waiting for work. On one core (the bench pins itself to one, and the reading
budget is one core's) that spinning took more than half of a frame's CPU time: the default
profile's frames read in 229 ms CPU median with OpenBLAS's own threads against 98 ms with
one, on a machine loaded about 8 on 2 cores. Products this small gain nothing from a second
thread, so the reader and the calibration run theirs on one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TypeVar

from threadpoolctl import ThreadpoolController


@functools.cache
def _controller() -> ThreadpoolController:
    """The thread pools of the libraries loaded (numpy's BLAS), looked up once."""
    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager:
    """A context in which numpy's BLAS uses one thread (restored on leaving)."""
    return _controller().limit(limits=1, user_api="blas")


F = TypeVar("F", bound=Callable)


def on_one_blas_thread(fn: F) -> F:
    """`fn` run in `one_blas_thread` (the libraries are looked up at the first call, not at
    import)."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with one_blas_thread():
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]
