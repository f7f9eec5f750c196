"""Judge providers behind one protocol: an OpenAI-compatible client and an offline heuristic."""

from __future__ import annotations

from ..config.settings import Settings
from .base import (
    ChoicesJudge,
    FatalJudgeError,
    Judge,
    JudgeCallError,
    RejectedRequestError,
    RetryableJudgeError,
    RunResult,
    TooManyChoices,
    UnreachableJudgeError,
    Usage,
)
from .server_profile import ServerProfile, ServerProfiles

__all__ = [
    "ChoicesJudge",
    "FatalJudgeError",
    "Judge",
    "JudgeCallError",
    "RejectedRequestError",
    "RetryableJudgeError",
    "RunResult",
    "ServerProfile",
    "ServerProfiles",
    "TooManyChoices",
    "UnreachableJudgeError",
    "Usage",
    "make_judge",
]


def make_judge(settings: Settings, profiles: ServerProfiles | None = None) -> Judge:
    """The provider the settings name; the SDK is imported only for an LLM provider.
    ``profiles``: what the session knows of its servers, shared by every judge it builds."""
    if not settings.uses_llm:
        from .heuristic import HeuristicJudge

        return HeuristicJudge()
    from .openai_judge import OpenAIJudge

    return OpenAIJudge(
        model=settings.model or "",
        base_url=settings.base_url,
        timeout=settings.timeout,
        temperature=settings.temperature,
        key_optional=not settings.needs_api_key,
        scoring=settings.scoring,
        max_tokens=settings.max_tokens,
        profile=profiles.of(settings.base_url, settings.model) if profiles else None,
        concurrency=settings.concurrency,
    )
