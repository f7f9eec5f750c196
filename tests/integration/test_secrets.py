"""No secret reaches an artifact: terminal, logs, results, reports, JUnit, saved answers, cache."""

from __future__ import annotations

import os
import stat
from typing import Any

import pytest

from bot_server import BotServer
from helpers import API_KEY, run, write_evals
from judge_server import JudgeServer, Reply, directive_script

BOT_TOKEN = "tok-SECRET-4242-bot"
PASSWORD = "pw-SECRET-9191"


def test_no_secret_reaches_any_artifact(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def route(ticket: str, headers: dict[str, str], path: str) -> tuple[int, Any, dict[str, str]]:
        auth = headers.get("Authorization", "")
        if ticket == "echo":
            return 200, {"answer": f"Maven heap: set MAVEN_OPTS. Your header was {auth}"}, {}
        if ticket == "reason":
            return 500, {}, {"__reason__": f"failed for {auth}"}
        if ticket == "not json":
            return 200, f"oops {auth}".encode(), {}
        return 200, {"answer": {"nested": auth}}, {}  # not a string: the snippet shows it

    def judge(request: Any) -> Reply:
        if "echo" in request.ticket:
            return Reply(score=4, reasoning=f"The key {API_KEY} and {BOT_TOKEN} look fine.")
        return directive_script(request)

    judge_server.script = judge
    host = judge_server.url.split("//", 1)[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://judge:{PASSWORD}@{host}")
    monkeypatch.setenv("BOT_TOKEN", BOT_TOKEN)
    bot = BotServer(lambda ticket: (500, {}), route=route)
    write_evals(
        pytester,
        [{"id": t.replace(" ", "-"), "ticket": t} for t in ("echo", "reason", "not json", "odd")],
    )
    try:
        result = run(
            pytester,
            "evals/",
            "-o",
            f"llmjudge_targets=bot={bot.url} save_responses=saved\n"
            "headers = Authorization: Bearer ${BOT_TOKEN}",
            "-o",
            "llmjudge_max_retries=0",
            "--judge-report=report.md",
            "--junitxml=junit.xml",
            "-o",
            "llmjudge_cache=cache",
            "-o",
            "log_cli=true",
            "--log-cli-level=DEBUG",
            "-rA",
        )
    finally:
        bot.stop()
    assert len(bot.requests) == 4 and bot.requests[0]["headers"]["Authorization"].endswith(
        BOT_TOKEN
    )
    files = [p for p in pytester.path.rglob("*") if p.is_file() and "runpytest" not in str(p)]
    texts = {str(p): p.read_text(errors="replace") for p in files}
    texts["terminal"] = result.stdout.str() + result.stderr.str()
    for secret in (API_KEY, BOT_TOKEN, PASSWORD):
        leaks = [name for name, text in texts.items() if secret in text]
        assert leaks == [], f"{secret} in {leaks}"
    assert "***" in texts[str(pytester.path / "results" / "output.json")]
    assert any("cache" in name for name in texts)  # the cache was written, and checked
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE((pytester.path / "results" / "output.json").stat().st_mode)
    assert mode == 0o666 & ~umask


def test_credentials_in_a_target_url_stay_out_of_output(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    def route(ticket: str, headers: dict[str, str], path: str) -> tuple[int, Any, dict[str, str]]:
        return 502, {}, {"__reason__": f"upstream refused {headers.get('Authorization')}"}

    bot = BotServer(lambda ticket: (500, {}), route=route)
    write_evals(pytester, [{"id": "a", "ticket": "Ticket A"}])
    url = bot.url.replace("http://", f"http://botuser:{PASSWORD}@")
    try:
        result = run(
            pytester, "evals/", "-o", f"llmjudge_targets=bot={url}", "-o", "llmjudge_max_retries=0"
        )
    finally:
        bot.stop()
    result.assert_outcomes(errors=1)
    assert bot.requests[0]["headers"]["Authorization"].startswith("Basic ")
    text = result.stdout.str() + (pytester.path / "results" / "output.json").read_text()
    assert PASSWORD not in text and bot.requests[0]["headers"]["Authorization"][6:] not in text
    assert "upstream refused ***" in text
