"""Every use of pytest's (and xdist's) non-public attributes, each with a fallback.

pytest documents none of these; each function says what it reads and what happens when a
release no longer has it: the plugin then does a little less, never breaks. Tested on
pytest 8 and 9 (tests/unit/session/test_pytest_internals.py runs in both CI jobs).
"""

from __future__ import annotations

import contextlib
import logging
from typing import IO, Any

import pytest

# pytest's logging plugin: captured logs, the report sections, --log-file and live logs
LOG_HANDLER_ATTRIBUTES = ("caplog_handler", "report_handler", "log_file_handler", "log_cli_handler")


def terminal_stream(config: pytest.Config) -> IO[str] | None:
    """The stream under pytest's terminal writer (``TerminalWriter._file``): the terminal
    itself while stdout is captured. None when the attribute is gone: no status in place."""
    stream = getattr(config.get_terminal_writer(), "_file", None)
    return stream if stream is not None and hasattr(stream, "isatty") else None


def uncaptured(config: pytest.Config) -> contextlib.AbstractContextManager[None]:
    """Step out of the running item's capture, as pytest's live logging does
    (``CaptureManager.global_and_fixture_disabled``); a no-op where that is missing."""
    capture = config.pluginmanager.getplugin("capturemanager")
    disabled = getattr(capture, "global_and_fixture_disabled", None)
    return disabled() if callable(disabled) else contextlib.nullcontext()


def log_handlers(config: pytest.Config) -> list[logging.Handler]:
    """The logging plugin's handlers that exist in this session (none without the plugin)."""
    plugin = config.pluginmanager.get_plugin("logging-plugin")
    found = (getattr(plugin, name, None) for name in LOG_HANDLER_ATTRIBUTES)
    return [handler for handler in found if isinstance(handler, logging.Handler)]


def unknown_ini_keys(config: pytest.Config) -> set[str]:
    """The keys of the ini file that no plugin registered (``Config._get_unknown_ini_keys``,
    pytest 6 to 9); empty where that is gone (pytest still warns of them itself)."""
    unknown = getattr(config, "_get_unknown_ini_keys", None)
    try:
        return {str(key) for key in unknown()} if callable(unknown) else set()
    except Exception:  # a changed internal must not stop the session
        return set()


def ini_file_value(config: pytest.Config, key: str) -> str | None:
    """The ini file's own value of ``key`` where ``-o`` overrides it (pytest 9 keeps only the
    override): the file read again with ``_pytest.config.findpaths.load_config_dict_from_file``.
    None without a file, without the key, or where that function is gone (then the override
    stands alone, as pytest has it)."""
    if config.inipath is None:
        return None
    try:
        from _pytest.config.findpaths import load_config_dict_from_file

        found = load_config_dict_from_file(config.inipath) or {}
    except Exception:  # a changed internal must not stop the session
        return None
    value = getattr(found.get(key), "value", found.get(key))  # pytest 9: a ConfigValue
    if isinstance(value, list):
        return " ".join(str(part) for part in value)
    return None if value is None else str(value)


def fixture_info(item: pytest.Item) -> object | None:
    """What pytest resolved of a test's fixtures (``Function._fixtureinfo``), to be given to
    the next item of the same body and place (``Function``'s own ``fixtureinfo`` argument, as
    pytest's parametrization shares it) instead of resolved again. None where the attribute
    is gone: each item resolves its own."""
    return getattr(item, "_fixtureinfo", None)


def id_as_read_back(item: pytest.Item) -> None:
    """Make the item's structured id (``Node._id``, a ``NodeId`` since pytest 9.2) the one
    pytest parses from its string: it builds a plugin item's id from its name whole, so a
    name with brackets (``t0[python]``) or ``::`` would never equal the ids --lf, --ff and
    --nf read back from the cache. A no-op where ``_id`` or its ``parse`` is missing, and
    where the parsed id equals pytest's (a plain name: pytest's shares its file's path, a
    parsed one would keep a copy per item)."""
    node_id = getattr(item, "_id", None)
    parse = getattr(type(node_id), "parse", None)
    if callable(parse) and (parsed := parse(str(node_id))) != node_id:
        item._id = parsed


def report_log_handler(config: pytest.Config) -> logging.Handler | None:
    """The handler whose records become a report's "Captured log" sections
    (``LoggingPlugin.report_handler``); None without it."""
    plugin = config.pluginmanager.get_plugin("logging-plugin")
    handler = getattr(plugin, "report_handler", None)
    return handler if isinstance(handler, logging.Handler) else None


def relocated_failure(
    excinfo: pytest.ExceptionInfo[BaseException],
    path: str,
    line: int,
    message: str,
    lines: list[str],
) -> Any:
    """pytest's own representation of a failure (``getrepr``, which also travels from xdist
    workers) with its crash location moved to ``path:line`` and its traceback entries
    replaced by ``lines``. Without ``reprcrash``/``reprentries`` the text alone is returned."""
    shown = excinfo.getrepr(style="value")
    crash = getattr(shown, "reprcrash", None)
    entries = getattr(getattr(shown, "reprtraceback", None), "reprentries", None)
    if crash is None or entries is None:
        return "\n".join(lines) or message
    crash.path, crash.lineno, crash.message = path, line, message
    for entry in entries:
        entry.lines = lines
    return shown


def crash_message(report: pytest.TestReport) -> str | None:
    """The one-line cause pytest keeps of a failure (``longrepr.reprcrash.message``)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    return message if isinstance(message, str) else None


def xdist_worker_input(config: pytest.Config) -> dict[str, Any] | None:
    """What xdist gave this worker (``config.workerinput``); None on the controller or
    without xdist."""
    worker = getattr(config, "workerinput", None)
    return worker if isinstance(worker, dict) else None


def is_xdist_worker(config: pytest.Config) -> bool:
    return xdist_worker_input(config) is not None


def is_xdist_controller(config: pytest.Config) -> bool:
    """Whether this process hands items to xdist workers (xdist's ``dsession`` plugin): it
    collects nothing itself, so it cannot see which items will run."""
    return bool(config.pluginmanager.has_plugin("dsession"))


def xdist_worker_output(holder: Any) -> dict[str, Any] | None:
    """The dict a worker sends back at its end (``config.workeroutput`` on the worker,
    ``node.workeroutput`` on the controller)."""
    output = getattr(holder, "workeroutput", None)
    return output if isinstance(output, dict) else None


def xdist_worker_id(node: Any) -> str | None:
    """The id (``gw0``) of an xdist worker's node on the controller (``report.node`` of a
    worker's report); None for anything else."""
    worker = getattr(getattr(node, "gateway", None), "id", None)
    return worker if isinstance(worker, str) else None


def turn_off_xdist(config: pytest.Config) -> None:
    """No workers for this session (``-n``/``--dist`` read back from ``config.option``)."""
    if hasattr(config.option, "dist"):
        config.option.dist = "no"
    if hasattr(config.option, "tx"):
        config.option.tx = []


def writes_test_properties(config: pytest.Config) -> bool:
    """Whether a report that carries tests' ``user_properties`` is written: ``--junitxml``
    (its option's ``xmlpath``) or pytest-json-report's ``--json-report``; items' properties
    are made only for them. Where pytest's name is gone: made, as before."""
    return bool(
        getattr(config.option, "xmlpath", True) or getattr(config.option, "json_report", None)
    )


def writes_html_report(config: pytest.Config) -> bool:
    """Whether pytest-html writes a report (``--html``, its option's ``htmlpath``)."""
    return bool(getattr(config.option, "htmlpath", None))


def sugar_reports(config: pytest.Config) -> bool:
    """Whether pytest-sugar's reporter stands in for pytest's terminal reporter (it writes
    its own -v lines, without asking ``pytest_report_teststatus``)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    return type(reporter).__module__.split(".")[0] == "pytest_sugar"


def shows_passing_sections(config: pytest.Config) -> bool:
    """Whether something will show a passing item's report sections: pytest's ``-rP``/``-rA``
    (``reportchars``), or a report written by pytest-html (``--html``) or pytest-reportlog
    (``--report-log``). Where pytest's name is gone: made, as before."""
    chars = getattr(config.option, "reportchars", None)
    if not isinstance(chars, str) or "P" in chars or "A" in chars:
        return True
    return writes_html_report(config) or bool(getattr(config.option, "report_log", None))


def repetition(item: pytest.Item) -> int:
    """Which repetition of its test ``item`` is under pytest-repeat's ``--count`` (its
    parameter ``__pytest_repeat_step_number``, counted from 0); 0 without it."""
    callspec = getattr(item, "callspec", None)
    params = getattr(callspec, "params", None) or {}
    step = params.get("__pytest_repeat_step_number", 0)
    return step if isinstance(step, int) else 0
