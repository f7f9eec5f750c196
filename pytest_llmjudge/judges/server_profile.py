"""One picture of a judge server: what a session learns of it (the most choices a request
may ask, whether it returns logprobs, which JSON response format it takes, the
name of its token limit, its slots), learned once and read by every path that sends it a
request (scoring, grouping by item, pairwise, adaptive runs, the batch), so that a request
shape the server refused once is never sent again."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger("pytest_llmjudge")
_OPENAI_LIMIT = "max_completion_tokens"


@dataclass
class ServerProfile:
    """What one server (base URL + model) has shown this process; unknown until it has."""

    #: the most choices (``n``) one request may ask: a 400 said so, or the slots it announced
    max_choices: int | None = None
    #: the parallel slots it announced (llama.cpp's ``/props``); None: not asked yet, 0: silent
    slots: int | None = None
    #: False once it answered a logprobs request without them (scores by the written integer)
    logprobs: bool | None = None
    #: False once it refused a ``json_schema`` response format (``json_object`` from then on)
    json_schema: bool | None = None
    #: False once it refused ``json_object`` too (no response format from then on: the prompt
    #: asks for JSON, and the reply's JSON is read from prose or a code fence)
    json_object: bool | None = None
    #: True once it answered a request for n choices with fewer (it ignores ``n``)
    ignores_n: bool = False
    #: OpenAI's name for the completion-token limit, or the older one a server asked for
    limit_param: str = _OPENAI_LIMIT

    @property
    def json_format(self) -> str | None:
        """The response format a request asks for: ``json_schema`` until refused, then
        ``json_object`` until refused, then none (the prompt itself asks for JSON)."""
        if self.json_schema is not False:
            return "json_schema"
        return None if self.json_object is False else "json_object"

    def learn_format(self, sent: str, taken: bool) -> None:
        """The server took, or refused, the response format ``sent`` (kept for the session)."""
        if sent == "json_schema":
            self.json_schema = taken
        else:
            self.json_object = taken

    def learn_choices_cap(self, cap: int) -> None:
        """The server takes at most ``cap`` choices per request (never more than learned)."""
        self.max_choices = max(1, min(cap, self.max_choices or cap))

    def choices_for(self, wanted: int) -> int:
        """How many of ``wanted`` choices one request may ask."""
        if self.ignores_n:
            return 1
        return min(wanted, self.max_choices or wanted)

    def learn_logprobs(self, choices: list[Any], shown_url: str) -> None:
        """A reply's choices to a logprobs request: a server that answers without them cannot
        weight scores; said once, and scores are the written integers from then on."""
        if any(choice.logprobs and choice.logprobs.content for choice in choices):
            self.logprobs = True
            return
        self.no_logprobs(shown_url, "returned no logprobs")

    def no_logprobs(self, shown_url: str, how: str) -> None:
        """The server cannot weight scores (``how``: it answered without logprobs, or refused
        them): said once; scores are the written integers from then on."""
        if self.logprobs is not False:
            logger.warning(
                "the judge at %s %s: llmjudge_scoring=logprobs falls back to text scores for "
                "this session",
                shown_url,
                how,
            )
        self.logprobs = False

    def learned(self) -> dict[str, Any]:
        """What was learned, for the results (only what a reply showed; unknown is null)."""
        return {
            "choices_cap": self.max_choices,
            "slots": self.slots,  # 0: asked, it announced none (known: not asked again)
            "logprobs": self.logprobs,
            "json_schema": self.json_schema,
            "json_object": self.json_object,
            "ignores_n": self.ignores_n or None,
            # only once refused: OpenAI's name is what every server is asked first
            "limit_param": None if self.limit_param == _OPENAI_LIMIT else self.limit_param,
        }

    def adopt(self, learned: dict[str, Any]) -> None:
        """What other processes learned of this server (``learned()`` of xdist's workers,
        merged), where this one knows nothing yet: a shape they saw refused is not sent again."""
        if learned.get("choices_cap"):
            self.learn_choices_cap(learned["choices_cap"])
        self.slots = self.slots if self.slots is not None else learned.get("slots")
        for name in ("logprobs", "json_schema", "json_object"):
            if getattr(self, name) is None:
                setattr(self, name, learned.get(name))
        self.ignores_n = self.ignores_n or bool(learned.get("ignores_n"))
        self.limit_param = learned.get("limit_param") or self.limit_param


class ServerProfiles:
    """The profiles of one process's session, by (base URL, model): a judge built again (the
    pairwise engine after the items', the llmjudge fixture) starts from what is known."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], ServerProfile] = {}

    def of(self, base_url: str | None, model: str | None) -> ServerProfile:
        key = (base_url or "", model or "")
        return self._known.setdefault(key, ServerProfile())
