"""A judge that cannot serve the session is found before the first item and said once (exit 4,
one line naming the URL and model); one that fails later stops judging once, and the items
not judged because of it say so in one line."""

from __future__ import annotations

import pytest

from helpers import API_KEY, entry, read_results, run, run_subprocess, write_evals
from judge_server import JudgeServer

THREE = [entry(f"e{i}", f"answer {i}", ticket=f"ticket {i}") for i in range(3)]


def _said_once(result: pytest.RunResult, text: str) -> None:
    # pytest's short summary repeats each error's first line (in full on CI): that is pytest's
    everything = result.stdout.str().split("short test summary info")[0] + result.stderr.str()
    assert everything.count(text) == 1, everything


def test_a_model_the_server_does_not_know_stops_the_session_before_any_item(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.models = {"gpt-4o-mini"}
    write_evals(pytester, THREE)
    result = run(pytester, "evals/", "--judge-model=gpt-4o-mni")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    line = (
        f"ERROR: pytest-llmjudge: the judge cannot serve this session (model gpt-4o-mni at "
        f"{judge_server.url}): 404 not found: The model `gpt-4o-mni` does not exist or you do "
        "not have access to it. (the model or the base URL does not exist)"
    )
    result.stderr.fnmatch_lines([line])
    _said_once(result, "does not exist or you do not have access")
    result.assert_outcomes()  # no item ran
    assert "= llmjudge =" not in result.stdout.str()
    assert not (pytester.path / "results").exists()  # nothing was judged: nothing to keep
    # the lookup found no such model; one chat request of one token confirmed it
    assert judge_server.lookups == ["gpt-4o-mni"]
    assert judge_server.count() == 1
    assert judge_server.requests[0].body["max_tokens"] == 1


def test_a_served_model_is_looked_up_once_and_costs_no_judge_call(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.models = {"gpt-4o-mini"}
    write_evals(pytester, THREE)
    result = run(pytester, "evals/", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert judge_server.lookups == ["gpt-4o-mini"]
    assert judge_server.count() == 6 == read_results(pytester)["meta"]["calls"]


def test_without_a_models_endpoint_one_chat_request_decides_and_is_counted(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.models_endpoint = False  # as vLLM and llama.cpp answer GET /v1/models/x
    write_evals(pytester, THREE)
    result = run(pytester, "evals/", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    meta = read_results(pytester)["meta"]
    # every request the server received is in the results, the check among them
    assert judge_server.count() == 7 == meta["calls"]
    assert meta["unattributed_calls"] == 1
    assert meta["tokens"]["total"] == 7 * 100 + 6 * 20 + 20


def test_a_refused_key_stops_the_session_and_is_never_shown(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.api_key = "sk-the-right-one-0000"
    write_evals(pytester, THREE)
    result = run(pytester, "evals/")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-llmjudge: the judge cannot serve this session (model gpt-4o-mini at "
            "http://127.0.0.1:*/v1): 401 authentication failed: Incorrect API key provided. "
            "(the API key was refused: check OPENAI_API_KEY)"
        ]
    )
    assert API_KEY not in result.stdout.str() + result.stderr.str()
    assert judge_server.count() == 0  # the lookup was refused: no chat request


def test_a_server_that_wants_a_key_when_none_was_given_asks_for_one(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_server.api_key = "sk-the-right-one-0000"
    monkeypatch.delenv("OPENAI_API_KEY")  # a base URL alone: a local server may take no key
    write_evals(pytester, THREE)
    result = run(pytester, "evals/")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*401 authentication failed*(no API key was given and this server wants one: set *"]
    )
    assert "was refused" not in result.stderr.str()


def test_a_model_the_key_may_not_use(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    judge_server.forbidden_models = {"gpt-4o-mini"}
    write_evals(pytester, THREE)
    result = run(pytester, "evals/")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*: 403 permission denied: You have no access to model *"])


def test_an_unreachable_base_url(pytester: pytest.Pytester, dead_port: int) -> None:
    write_evals(pytester, THREE)
    url = f"http://127.0.0.1:{dead_port}/v1"
    result = run(pytester, "evals/", "--judge-provider=openai", f"--judge-provider={url}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: *(model gpt-4o-mini at {url}): cannot reach the judge at {url}: Connect*"]
    )


def test_no_key_is_said_by_the_header_and_stops_a_run_at_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_evals(pytester, THREE)
    header = "llmjudge: OPENAI_API_KEY is not set: judging would stop before the first item*"
    collected = run(pytester, "evals/", "--judge-provider=openai", "--collect-only")
    assert collected.ret == pytest.ExitCode.OK
    collected.stdout.fnmatch_lines([header])
    dry = run(pytester, "evals/", "--judge-provider=openai", "--judge-dry-run")
    dry.stdout.fnmatch_lines([header, "*judge calls: 6*"])
    result = run(pytester, "evals/", "--judge-provider=openai")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-llmjudge: the judge cannot serve this session (model gpt-4o-mini at "
            "https://api.openai.com/v1): OPENAI_API_KEY is not set: set it, point "
            "OPENAI_BASE_URL at an OpenAI-compatible server, or run with "
            "--judge-provider=heuristic"
        ]
    )
    _said_once(result, "OPENAI_API_KEY is not set: set it")
    # a local server takes any key: no warning
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    local = run(pytester, "evals/", "--judge-provider=openai", "--collect-only")
    assert "OPENAI_API_KEY is not set" not in local.stdout.str()


def test_dry_runs_and_the_heuristic_ask_the_judge_nothing(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.models = set()  # a lookup or a chat request would be refused
    write_evals(pytester, THREE)
    dry = run(pytester, "evals/", "--judge-dry-run")
    assert dry.ret == pytest.ExitCode.OK
    heuristic = run(pytester, "evals/", "--judge-provider=heuristic")
    assert heuristic.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert judge_server.lookups == [] and judge_server.count() == 0


def test_under_xdist_the_controller_asks_once(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.models = {"gpt-4o-mini"}
    write_evals(pytester, THREE)
    result = run_subprocess(pytester, "evals/", "-n", "2", "--judge-model=gpt-4o-mni")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    _said_once(result, "does not exist or you do not have access")
    assert judge_server.lookups == ["gpt-4o-mni"]
    # said before xdist started a worker (not after each had started and collected)
    assert "workers" not in result.stdout.str() + result.stderr.str()
    served = run_subprocess(pytester, "evals/", "-n", "2", "-p", "no:cacheprovider")
    served.assert_outcomes(passed=3)
    assert judge_server.lookups == ["gpt-4o-mni", "gpt-4o-mini"]


def test_a_session_wide_error_later_stops_judging_once(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # the server knows the model at start, then answers the second item with a 404
    write_evals(
        pytester,
        [
            entry("a", "answer a", ticket="ticket a"),
            entry("b", "answer b {{fail=404x9}}", ticket="ticket b"),
            entry("c", "answer c", ticket="ticket c"),
            entry("d", "answer d", ticket="ticket d"),
        ],
    )
    result = run(pytester, "evals/", "--judge-concurrency=1", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=3)
    text = result.stdout.str()
    _said_once(result, "404 not found: scripted 404 (the model or the base URL does not exist)")
    stopped = "not judged: judging stopped at evals/support.json::b (404 not found)"
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of c _*",
            f"judge error: relevance, tone: {stopped}",
            "*_ ERROR at setup of d _*",
            f"judge error: relevance, tone: {stopped}",
        ]
    )
    assert "Captured log" not in text  # the report said it: not again among the logs
    results = read_results(pytester)
    errors = {e["id"]: e["reason"] for e in results["errors"]}
    assert errors["d"] == f"relevance, tone: {stopped}"
    assert results["meta"]["notices"] == [
        "judging stopped at evals/support.json::b (404 not found); no judge call was made after it"
    ]
    assert "404 not found: scripted 404" in errors["b"]  # the whole message, where it happened
    # a's two requests and b's first; nothing was sent after it
    assert judge_server.count() == 3 == results["meta"]["calls"]
