"""Generated settings: any values a person writes in the ``llmjudge_*`` ini keys (several at
once, plausible or not) resolve to settings or to one line that names the key and what it
takes; never another exception (which pytest would show as a traceback before any item).
A session with them ends in verdicts or in one usage line.

``LLMJUDGE_SETTINGS_PROFILE=settings-hunt`` (5,000 random examples of the first test, and
``LLMJUDGE_SESSION_EXAMPLES`` sessions of the second) looks further than CI's derandomized 300
and 25."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pytest_llmjudge.config.options import OPTIONS
from pytest_llmjudge.config.settings import SettingsError, resolve_settings

from helpers import QUIET, entry, write_evals

settings.register_profile("settings", max_examples=300, derandomize=True, database=None)
settings.register_profile("settings-hunt", max_examples=5000, database=None)

KEYS = sorted(spec.ini for spec in OPTIONS if spec.ini)
# pieces of the values the keys take, and of what people get wrong
PIECES = st.sampled_from(
    [
        "true", "false", "0", "1", "3", "3..5", "5..3", "0..2", "2.5", "-1", "1e309", "nan",
        "inf", "relevance=4", "tone=3.5", "relevance=x", "calls=10", "usd=0.5", "usd=-1",
        "item", "dimension", "logprobs", "text", "auto", "choices", "calls", "batch",
        "entries", "mean", "median", "pass_rate=0.9", "mean.relevance=4", "spearman=0.6",
        "win_rate.v2=0.5", "regression", "v1=http://127.0.0.1:9/a", "pairwise=true",
        "http://user:pw@127.0.0.1:9/v1", "heuristic", "ollama", "gpt-4o-mini", "results/out.json",
        "report.html", "=", "..", "a=b=c", ",", "", " ",
    ]
)  # fmt: skip
VALUES = st.one_of(
    st.lists(PIECES, min_size=1, max_size=4).map(" ".join),
    st.lists(PIECES, min_size=1, max_size=3).map(",".join),
    st.text(max_size=20),
)


@settings(settings.get_profile(os.environ.get("LLMJUDGE_SETTINGS_PROFILE", "settings")))
@given(ini=st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5))
def test_any_ini_values_resolve_or_fail_in_one_line(
    ini: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.getbasetemp()
    try:
        resolved = resolve_settings({}, {}, ini, base_dir=folder, ini_dir=folder)
    except SettingsError as exc:
        message = str(exc)
        assert message and "\n" not in message
        assert "llmjudge_" in message, message  # it names the key to change
        return
    assert resolved.runs >= 1 and resolved.concurrency >= 1


# an ini file holds one line per key: what iniconfig reads back as written
LINE_VALUES = VALUES.filter(
    lambda v: v == v.strip() and v.isprintable() and "#" not in v and ";" not in v
)
TRACEBACK = re.compile(r"Traceback|INTERNALERROR|/_pytest/|/pluggy/|\.py:\d+: in ")


@pytest.mark.timeout(600)
@settings(
    settings.get_profile(os.environ.get("LLMJUDGE_SETTINGS_PROFILE", "settings")),
    max_examples=int(os.environ.get("LLMJUDGE_SESSION_EXAMPLES", "25")),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(ini=st.dictionaries(st.sampled_from(KEYS), LINE_VALUES, max_size=4))
def test_a_session_with_any_ini_values_ends_in_verdicts_or_one_usage_line(
    pytester: pytest.Pytester, ini: dict[str, str]
) -> None:
    lines = "".join(f"{key} = {value}\n" for key, value in ini.items())
    pytester.makeini(f"[pytest]\n{lines}")
    write_evals(pytester, [entry("a"), entry("b", ticket="t2")])
    result = pytester.runpytest_inprocess(*QUIET, "-p", "no:cacheprovider", "evals/")
    output = result.stdout.lines + result.stderr.lines
    event(f"exit {int(result.ret)}")
    assert not [line for line in output if TRACEBACK.search(line)], "\n".join(output)
    if result.ret == pytest.ExitCode.USAGE_ERROR:
        errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
        assert len(errors) == 1 and "llmjudge" in errors[0], "\n".join(output)
    else:
        assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), "\n".join(output)
