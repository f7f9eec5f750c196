"""Whether an OpenAI-compatible judge can serve a session, asked once before the first item;
the parallel slots a local server announces."""

from __future__ import annotations

from typing import Any, Protocol

from .base import FatalJudgeError, Usage
from .http_errors import status_error


class ServedJudge(Protocol):
    """What the preflight needs of an OpenAI-compatible judge (``openai_judge.OpenAIJudge``)."""

    model: str
    timeout: float
    base_url: str | None

    @property
    def key_given(self) -> bool: ...

    def client(self) -> Any: ...

    def unreachable(self, exc: Exception) -> str: ...


LOOKUP_TIMEOUT = 10.0  # seconds for the model lookup before the first item


async def preflight(judge: ServedJudge, usage: Usage) -> str | None:
    """Whether this judge can serve the session, asked once before the first item.

    The model is looked up (``GET /models/{model}``: no tokens). Where the server has no
    such endpoint or knows the model under another name (Ollama's ``llama3.1:latest``),
    one chat request of one token decides (counted in ``usage``). Returns the problem in
    one line: no key, a refused key (401/403), no such model or base URL (404), no
    connection; None otherwise. A slow, busy or picky server is left to the items.
    """
    import openai

    try:
        client = judge.client()
    except FatalJudgeError as exc:
        return str(exc)
    try:
        await client.models.retrieve(judge.model, timeout=min(judge.timeout, LOOKUP_TIMEOUT))
        return None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        return str(status_error(exc, judge.key_given))
    except openai.APITimeoutError:
        return None
    except openai.APIConnectionError as exc:
        return judge.unreachable(exc)
    except openai.APIStatusError:
        pass  # not this endpoint, or not this name: the chat endpoint decides
    usage.calls += 1  # a request the server sees and may bill: counted like the others
    try:
        completion = await client.chat.completions.create(
            model=judge.model,
            messages=[{"role": "user", "content": "Reply with OK."}],
            max_tokens=1,
        )
    except openai.APITimeoutError:
        return None
    except openai.APIConnectionError as exc:
        return judge.unreachable(exc)
    except openai.APIStatusError as exc:
        error = status_error(exc, judge.key_given)
        return str(error) if isinstance(error, FatalJudgeError) else None
    usage.bill(completion.usage)
    return None


async def announced_slots(judge: ServedJudge) -> int | None:
    """The parallel slots a local server announces (llama.cpp's ``GET /props`` has
    ``total_slots``; OpenAI, vLLM and Ollama say nothing): None when it does not say.
    Asked through the judge's own client: its connections, no second TLS set-up."""
    if judge.base_url is None:
        return None
    import httpx2
    import openai

    root = judge.base_url.rstrip("/").removesuffix("/v1")
    try:
        client = judge.client()
        reply = await client.get(
            f"{root}/props", cast_to=httpx2.Response, options={"timeout": min(judge.timeout, 5.0)}
        )
        slots = reply.json().get("total_slots")
    except (FatalJudgeError, openai.APIError, ValueError, AttributeError):
        return None  # no key, no such endpoint, or not JSON: the server keeps it to itself
    valid = type(slots) is int and slots > 0
    return slots if valid else None
