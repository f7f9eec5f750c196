"""pytest's non-public attributes the plugin reads: present in the running pytest (8 in CI's
sdist job, 9 in its main one), and a harmless fallback where one is missing."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import cast

import pytest

from pytest_llmjudge.session.pytest_internals import (
    crash_message,
    fixture_info,
    id_as_read_back,
    is_xdist_worker,
    log_handlers,
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
    id_as_read_back(cast(pytest.Item, SimpleNamespace()))  # a pytest without Node._id: no error


class _Id:
    """A structured node id whose parse reads brackets as parameters, as pytest 9.2's does
    (pytest builds a plugin item's id from its name whole)."""

    def __init__(self, text: str, params: bool = False) -> None:
        self.text, self.params = text, params

    @classmethod
    def parse(cls, text: str) -> _Id:
        return cls(text, "[" in text)

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Id) and (self.text, self.params) == (other.text, other.params)


def test_an_item_keeps_pytests_id_unless_parsing_it_gives_another() -> None:
    plain = SimpleNamespace(_id=_Id("evals/a.json::t0"))
    pytests = plain._id
    id_as_read_back(cast(pytest.Item, plain))
    assert plain._id is pytests  # no copy an item
    bracketed = SimpleNamespace(_id=_Id("evals/a.json::t0[python]"))
    id_as_read_back(cast(pytest.Item, bracketed))
    assert bracketed._id == _Id("evals/a.json::t0[python]", params=True)  # --lf finds it
