"""pytest's non-public attributes the plugin reads: present in the running pytest (8 in CI's
sdist job, 9 in its main one), and a harmless fallback where one is missing."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest

from pytest_llmjudge.session.pytest_internals import (
    crash_message,
    fixture_info,
    is_xdist_worker,
    log_handlers,
    plain_fixtures,
    relocated_failure,
    terminal_stream,
    turn_off_xdist,
    uncaptured,
    xdist_worker_input,
    xdist_worker_output,
)


def test_the_running_pytest_has_what_the_plugin_reads(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest
) -> None:
    assert terminal_stream(pytestconfig) is not None
    assert fixture_info(request.node) is not None
    assert plain_fixtures(request.node, "_pytest.fixtures") is None  # `request`: pytest's
    assert log_handlers(pytestconfig)  # captured logs and report sections at least
    assert not isinstance(uncaptured(pytestconfig), contextlib.nullcontext)
    with uncaptured(pytestconfig):
        pass
    # under xdist (CI runs the suite with -n) this test runs on a worker
    assert is_xdist_worker(pytestconfig) == hasattr(pytestconfig, "workerinput")
    worker = xdist_worker_input(pytestconfig)
    assert worker is None or str(worker["workerid"]).startswith("gw")


def test_a_failure_is_shown_at_the_entry_it_belongs_to() -> None:
    try:
        raise AssertionError("relevance 2.00 < 3.5")
    except AssertionError:
        info = pytest.ExceptionInfo[BaseException].from_current()
    shown = relocated_failure(info, "evals/a.json", 7, "relevance 2.00 < 3.5", ["the table"])
    assert (shown.reprcrash.path, shown.reprcrash.lineno) == ("evals/a.json", 7)
    assert [entry.lines for entry in shown.reprtraceback.reprentries] == [["the table"]]


def test_each_reader_falls_back_where_an_attribute_is_missing() -> None:
    bare = cast(
        pytest.Config,
        SimpleNamespace(
            get_terminal_writer=lambda: object(),  # a writer without _file
            pluginmanager=SimpleNamespace(getplugin=lambda name: None, get_plugin=lambda n: None),
            option=SimpleNamespace(),  # no xdist options
            getoption=lambda name, default=None: default,
        ),
    )
    assert terminal_stream(bare) is None
    assert fixture_info(cast(pytest.Item, SimpleNamespace())) is None  # each item resolves its own
    assert isinstance(uncaptured(bare), contextlib.nullcontext)
    assert log_handlers(bare) == []
    assert xdist_worker_input(bare) is None and not is_xdist_worker(bare)
    turn_off_xdist(bare)  # nothing to turn off: no error
    assert xdist_worker_output(object()) is None
    assert crash_message(cast(pytest.TestReport, SimpleNamespace(longrepr="text"))) is None
    item = cast(pytest.Item, SimpleNamespace(config=bare, fixturenames=["a"]))
    assert plain_fixtures(item, __name__) is None  # no _fixtureinfo: pytest sets them up


def _value() -> int:
    return 1


def _doubled(value: int) -> int:
    return 2 * value


def _yielding() -> Iterator[int]:
    yield 1


def _item(config: pytest.Config, **funcs: tuple[Callable[..., Any], tuple[str, ...]]) -> Any:
    """An item as pytest holds its fixtures' resolution (``_fixtureinfo``)."""
    defs = {
        name: [SimpleNamespace(func=f, argnames=args, scope="function", params=None)]
        for name, (f, args) in funcs.items()
    }
    info = SimpleNamespace(name2fixturedefs=defs)
    return SimpleNamespace(config=config, fixturenames=list(funcs), _fixtureinfo=info)


def test_plain_fixtures_are_this_module_s_functions_that_pytest_would_only_call(
    pytestconfig: pytest.Config,
) -> None:
    value, doubled = (_value, ()), (_doubled, ("value",))
    found = plain_fixtures(_item(pytestconfig, doubled=doubled, value=value), __name__)
    assert found == {"doubled": doubled, "value": value}
    assert plain_fixtures(_item(pytestconfig, doubled=doubled, value=value), "elsewhere") is None
    assert plain_fixtures(_item(pytestconfig, doubled=doubled), __name__) is None  # not closed
    assert plain_fixtures(_item(pytestconfig, value=(_yielding, ())), __name__) is None
    with_request = _item(pytestconfig, value=(_value, ("request",)))
    assert plain_fixtures(with_request, __name__) is None
