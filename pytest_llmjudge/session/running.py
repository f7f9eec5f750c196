"""The item pytest is running, for the plugin's function-scoped fixtures and an eval item's
body: they read it here instead of requesting ``request``.

pytest makes a new ``FixtureDef`` with a signature inspection each time a fixture that
requests ``request`` is set up, and one more for an item whose fixtures name it: six an eval
item (about 0.2 ms). The item is set by a wrapper of ``pytest_runtest_protocol`` around its
whole run (reruns included), the one time function-scoped fixtures are set up; a stack,
since an in-process pytester run nests a session inside a running item.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

_items: list[pytest.Item] = []


@contextmanager
def running(item: pytest.Item) -> Iterator[None]:
    _items.append(item)
    try:
        yield
    finally:
        _items.pop()


def running_item() -> pytest.Item:
    """The item being run (what ``request.node`` is to a function-scoped fixture)."""
    if not _items:  # a fixture set up outside pytest's run of an item: not pytest's way
        pytest.fail("the llmjudge fixtures are only available while a test runs", pytrace=False)
    return _items[-1]
