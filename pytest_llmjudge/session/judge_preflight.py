"""A judge that cannot serve the session is found before the first item, and said once.

No key for the openai provider, a refused key, a model or base URL the server does not know,
a server that cannot be reached: each would fail every item the same way. The session asks
the judge once (``JudgeEngine.check_judge``) and stops with one line, as a usage error does.
Dry runs, collect-only and heuristic sessions ask nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from ..basics.redaction import redact, safe_url
from ..config.settings import Settings
from .discovery import may_collect_evals
from .pytest_internals import is_xdist_controller, is_xdist_worker
from .state import STATE_KEY


def before_workers_start(session: pytest.Session) -> None:
    """The xdist controller asks the judge before its workers start (xdist starts them in its
    own ``pytest_sessionstart``, which runs last): a judge that cannot serve the session is
    said at once, not after every worker has started and collected."""
    if is_xdist_controller(session.config):
        check_judge_before_items(session)


def before_first_item(session: pytest.Session) -> None:
    """What an LLM judge is asked before the first item: whether it can serve the session
    (the xdist controller asked before its workers started), then, with ``llmjudge_batch``,
    the session's batch."""
    if not is_xdist_controller(session.config):
        check_judge_before_items(session)
    if session.config.stash[STATE_KEY].settings.batch:
        from .batch_judging import judge_in_batch

        judge_in_batch(session)


def check_judge_before_items(session: pytest.Session) -> None:
    """Raise ``pytest.UsageError`` (exit 4) when the judge cannot serve this session."""
    config = session.config
    state = config.stash[STATE_KEY]
    settings = state.settings
    if not settings.uses_llm or settings.dry_run or config.getoption("collectonly"):
        return
    if is_xdist_worker(config):
        return  # the controller asked already
    # The xdist controller collects nothing: eval arguments are what it knows.
    judging = may_collect_evals(config) if is_xdist_controller(config) else state.has_evals
    if not judging:
        return
    # asked on the session's loop, where the judge's client is made and kept
    problem = state.engine().on_loop(lambda executor: executor.server.check_judge())
    if problem is not None:
        where = f"model {settings.model} at {safe_url(settings.base_url) or OPENAI_URL}"
        raise pytest.UsageError(
            redact(f"pytest-llmjudge: the judge cannot serve this session ({where}): {problem}")
        )


def header_lines(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    """The session header: the judge's setup, then what the offline judge is (the first run
    without a key meets it) or the missing key's warning."""
    if not settings.uses_llm:
        from ..judges.heuristic import ABOUT

        return [settings.header(), f"llmjudge: {ABOUT}"]
    missing_key = missing_key_line(settings, environ)
    return [settings.header(), *([missing_key] if missing_key else [])]


def missing_key_line(settings: Settings, environ: Mapping[str, str]) -> str | None:
    """The header's warning when judging would stop before the first item for want of a key
    (said by --collect-only and --judge-dry-run too, which ask the judge nothing)."""
    if not settings.needs_api_key or environ.get("OPENAI_API_KEY", "").strip():
        return None
    return (
        "llmjudge: OPENAI_API_KEY is not set: judging would stop before the first item (set "
        "it, point OPENAI_BASE_URL at a compatible server, or use --judge-provider=heuristic)"
    )


OPENAI_URL = "https://api.openai.com/v1"
