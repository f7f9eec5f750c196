"""The session's notices: what the judge server made it do differently from what was asked
(a server that ignores n or takes fewer choices, returns no logprobs, cuts replies off,
queues requests), said once in the results' meta and every report."""

from __future__ import annotations

from ..config.settings import Settings
from ..judges.base import ServerFacts, Usage
from ..judging.planner import split_notice
from ..schema.results import JudgeIdentity


def session_notices(
    settings: Settings, identity: JudgeIdentity, usage: Usage, server: ServerFacts
) -> list[str]:
    """What the judge and its server made the session do differently from what was asked."""
    notices = settings.notices()
    if usage.short_replies:
        then = (
            "the runs it left out, and every later run, were asked one request each"
            if settings.sampling == "auto"
            else "the runs it left out are errors (use llmjudge_sampling=auto or calls)"
        )
        notices.append(
            f"the judge server answered {usage.short_replies} request(s) for several choices "
            f"with fewer (it ignores n): {then}"
        )
    if settings.batch and not settings.uses_llm:
        notices.append("llmjudge_batch needs an LLM judge: the heuristic judged in-process")
    if settings.scoring == "logprobs" and not settings.uses_llm:
        notices.append(
            "llmjudge_scoring=logprobs needs an LLM judge: the heuristic's scores are its own"
        )
    unweighted = usage.runs - usage.weighted
    if identity.scoring == "logprobs" and unweighted:
        causes = sorted(usage.unweighted.items(), key=lambda cause: -cause[1])
        notices.append(
            f"{unweighted} of {usage.runs} runs are scored by the integer the judge "
            "wrote, not by logprobs: " + "; ".join(f"{why} ({runs})" for why, runs in causes)
        )
    notices += _server_notices(settings, usage, server)
    return notices


def _server_notices(settings: Settings, usage: Usage, server: ServerFacts) -> list[str]:
    """What the judge server's limits did to the session: judging stopped, choices split,
    replies cut off, timeouts, the in-flight limit it kept."""
    notices = []
    if server.stopped:
        notices.append(f"{server.stopped}; no judge call was made after it")
    cap = server.choices_cap
    if cap and settings.sampling != "calls" and settings.runs > cap:
        notices.append(split_notice(cap, settings.runs))
    if usage.cut_off:
        notices.append(
            f"{usage.cut_off} judge repl{'ies were' if usage.cut_off != 1 else 'y was'} cut "
            f"off at llmjudge_max_tokens={settings.max_tokens} and asked again for a shorter one"
        )
    if usage.timeouts:
        notices.append(f"{usage.timeouts} judge request(s) timed out after {settings.timeout:g}s")
        if usage.requeued:
            notices[-1] += (
                f"; {usage.requeued} waited in a busy server's queue and were sent again once "
                "fewer requests were in flight"
            )
    if server.kept_in_flight:
        why = (
            f"it serves {server.server_slots} at once"
            if server.server_slots >= server.kept_in_flight
            else "with more, its replies slowed down or timed out"
        )
        notices.append(
            f"the judge server kept {server.kept_in_flight} "
            f"request{'s' * (server.kept_in_flight != 1)} in flight, not "
            f"--judge-concurrency={settings.concurrency}: {why}"
        )
    return notices
