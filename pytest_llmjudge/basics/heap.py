"""The garbage collector around an eval session.

Start-up leaves a large heap that lives until the process ends: pytest and its plugins,
the openai SDK (thousands of pydantic classes), the collected items. Python's full
collections walk all of it, each time: during judging, in pytest's collection at
unconfigure, and at interpreter exit (0.1-0.3 s on a 50-item run). ``gc.freeze`` sets the
objects alive now aside from those walks; the objects made later are collected as usual.
"""

from __future__ import annotations

import atexit
import gc

_exit_hook: list[bool] = []  # registered once per process (pytester runs many sessions)
_settled: list[bool] = []  # this session set objects aside


def settle() -> None:
    """Set aside every object alive now; until ``release``, a collection skips them."""
    gc.freeze()
    _settled[:] = [True]


def settle_again() -> None:
    """Collect the garbage among the objects made since the last ``settle`` (a walk of them
    alone), then set the rest aside. Items keep what they made (results rows, pytest's
    reports): without this, the collector walks all of it again and again as it grows (1.7 s
    in a run of 10,000 items)."""
    gc.collect()
    settle()


def release() -> None:
    """Give the objects back to the collector (a caller that runs pytest in-process again,
    such as pytester, collects as usual), and set everything aside at exit: the interpreter
    frees memory either way, and does not walk the heap first. Nothing when nothing was set
    aside."""
    if not _settled:
        return
    _settled.clear()
    gc.unfreeze()
    if not _exit_hook:
        _exit_hook.append(True)
        atexit.register(gc.freeze)
