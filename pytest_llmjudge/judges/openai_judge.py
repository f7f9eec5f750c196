"""Judge through the ``openai`` SDK: OpenAI itself or any OpenAI-compatible server."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..basics.redaction import redact, safe_url
from ..basics.rubrics import NO_CONTEXT, Context, Dimension, build_messages, build_pair_messages
from .base import (
    FatalJudgeError,
    PairVote,
    RetryableJudgeError,
    RunResult,
    TooManyChoices,
    UnreachableJudgeError,
    Usage,
    said_tokens,
)
from .clients import Clients
from .http_errors import choices_cap, names_parameter, schema_unsupported, status_error
from .replies import (
    JSON_OBJECT,
    PAIR_RESPONSE_FORMAT,
    RESPONSE_FORMAT,
    group_response_format,
    parse_choice,
    parse_group_choice,
    parse_pair_choice,
    read_completion,
)
from .server_profile import ServerProfile
from .weighted import TOP_LOGPROBS

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion


class OpenAIJudge:
    """Structured output (``chat.completions.create`` with a strict JSON schema, the reply
    validated by ``JudgeReply``); ``json_object`` mode as a fallback, then no response format
    (the prompt asks for JSON) for a server that takes neither."""

    uses_llm = True

    def __init__(
        self,
        model: str,
        base_url: str | None,
        timeout: float,
        temperature: float | None,
        key_optional: bool,
        scoring: str = "text",
        max_tokens: int = 0,
        profile: ServerProfile | None = None,
        concurrency: int = 1,
    ) -> None:
        self.model = model
        self._scoring = scoring  # as configured; the profile says whether the server can
        self.base_url = base_url
        self.timeout = timeout
        self.temperature = temperature
        self.key_optional = key_optional
        self.max_tokens = max_tokens  # completion tokens per choice; 0: no limit sent
        #: what the session knows of the server, shared with every judge built for it
        self.profile = profile or ServerProfile()
        #: the connections of its clients: as many as requests in flight at most
        self._clients = Clients(base_url, timeout, concurrency, key_optional)

    @property
    def scoring(self) -> str:
        """text, or logprobs (until the server answered without them: then text)."""
        return "text" if self.profile.logprobs is False else self._scoring

    @property
    def max_choices(self) -> int | None:
        """The most choices the server takes per request, once learned (a 400, its slots)."""
        return self.profile.max_choices

    @property
    def key_given(self) -> bool:
        """Whether the user set OPENAI_API_KEY (a local server may take none)."""
        return bool(os.environ.get("OPENAI_API_KEY", "").strip())

    @property
    def shown_url(self) -> str:
        """The judge's base URL for messages, without credentials."""
        return safe_url(self.base_url or "https://api.openai.com/v1") or ""

    def client(self) -> AsyncOpenAI:
        """The client for requests other than judgments (batch files, ``GET /props``)."""
        return self._clients.first()

    async def server_slots(self) -> int | None:
        """The parallel slots a local server announces (llama.cpp's ``GET /props`` has
        ``total_slots``; OpenAI, vLLM and Ollama say nothing): None when it does not say."""
        from .reachability import announced_slots

        return await announced_slots(self)

    async def preflight(self, usage: Usage) -> str | None:
        """Whether this judge can serve the session (``reachability.preflight``)."""
        from .reachability import preflight

        return await preflight(self, usage)

    def unreachable(self, exc: Exception) -> str:
        """A connection error in one line, with the judge's URL (no credentials)."""
        cause = exc.__cause__ or exc
        return redact(
            f"cannot reach the judge at {self.shown_url}: {type(cause).__name__}: {cause}"
        )

    def _extra(self, n: int, parts: int = 1) -> dict[str, Any]:
        extra: dict[str, Any] = {"n": n} if n > 1 else {}
        if self.max_tokens:
            # per choice; a grouped reply holds a score and a reasoning per dimension
            extra[self.profile.limit_param] = self.max_tokens * parts
        if self.scoring == "logprobs":
            extra |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        if self.temperature is not None:
            extra["temperature"] = self.temperature
        return extra

    async def judge_once(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> RunResult:
        asked = await self.judge_choices(
            dimension, ticket, response, 1, usage=usage, context=context
        )
        first = asked[0]
        if isinstance(first, RetryableJudgeError):
            raise first
        return first

    async def judge_choices(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        n: int,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
        firm: bool = False,
    ) -> list[RunResult | RetryableJudgeError]:
        """Ask for ``n`` independent scores in one request (``n`` choices): the prompt is
        sent and billed once. A server that ignores ``n`` returns fewer; the caller decides.
        A server that takes fewer choices per request raises ``TooManyChoices`` (the most it
        takes is then ``max_choices``). A rejected choice is returned as its error; when every
        choice is rejected, the first error is raised. The request's tokens are on its first
        usable result. ``firm``: an earlier reply was cut off; ask for a shorter one."""
        messages = build_messages(dimension, ticket, response, context, firm=firm)
        usage = usage if usage is not None else Usage()
        schema, parts = _reply_format(dimension)
        completion = await self._create_fitting(messages, usage, n, schema, parts)
        replies = self.read_replies(dimension, completion, n)
        usage.cut_off += sum(isinstance(r, RetryableJudgeError) and r.cut_off for r in replies)
        if not any(isinstance(reply, RunResult) for reply in replies):
            raise next(reply for reply in replies if isinstance(reply, RetryableJudgeError))
        return replies

    def read_replies(
        self, dimension: Dimension, completion: ChatCompletion, n: int
    ) -> list[RunResult | RetryableJudgeError]:
        """Each choice of a completion (at most ``n``) as a validated score or why it cannot
        be used; the completion's tokens are on the first usable one."""
        choices = completion.choices[:n]
        if not choices:
            return [RetryableJudgeError("judge reply has no choices")]
        if self.scoring == "logprobs":  # a server without them: text scores from now on
            self.profile.learn_logprobs(choices, self.shown_url)
        weighted = self.scoring == "logprobs"
        names = tuple(part.name for part in dimension.parts)
        replies = [
            parse_group_choice(choice, names, weighted) if names else parse_choice(choice, weighted)
            for choice in choices
        ]
        usable = [(i, reply) for i, reply in enumerate(replies) if isinstance(reply, RunResult)]
        said = said_tokens(completion.usage)
        if usable:
            index, first = usable[0]
            prompt, completion_tokens = said or (0, 0)
            replies[index] = replace(
                first,
                prompt_tokens=prompt,
                completion_tokens=completion_tokens,
                tokens_unknown=said is None,
            )
        return replies

    def request_body(
        self, dimension: Dimension, ticket: str, response: str, n: int, context: Context
    ) -> dict[str, Any]:
        """The body of a chat completion request for ``n`` runs, as a batch line sends it."""
        schema, parts = _reply_format(dimension)
        return self._body(build_messages(dimension, ticket, response, context), n, schema, parts)

    def _body(
        self, messages: list[dict[str, str]], n: int, schema: dict[str, Any], parts: int
    ) -> dict[str, Any]:
        # The JSON schema is built once (``parse(response_format=JudgeReply)`` would rebuild
        # it on every call); the reply is validated by JudgeReply.
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        json_format = self.profile.json_format
        if json_format is not None:
            body["response_format"] = schema if json_format == "json_schema" else JSON_OBJECT
        return body | self._extra(n, parts)

    async def judge_pair(
        self,
        dimension: Dimension,
        ticket: str,
        first: str,
        second: str,
        n: int,
        *,
        usage: Usage,
        context: Context = NO_CONTEXT,
    ) -> list[PairVote | RetryableJudgeError]:
        """``n`` votes on which of two responses is better (``first`` shown as A), as the choices
        of one request; the request's tokens are on the first usable vote."""
        messages = build_pair_messages(dimension, ticket, first, second, context)
        completion = await self._create_fitting(messages, usage, n, PAIR_RESPONSE_FORMAT)
        votes = [parse_pair_choice(choice) for choice in completion.choices[:n]]
        usable = [i for i, vote in enumerate(votes) if isinstance(vote, PairVote)]
        if not usable:
            raise next(
                (v for v in votes if isinstance(v, RetryableJudgeError)),
                RetryableJudgeError("judge reply has no choices"),
            )
        first_vote = votes[usable[0]]
        assert isinstance(first_vote, PairVote)
        prompt, completion_tokens = said_tokens(completion.usage) or (0, 0)
        votes[usable[0]] = replace(
            first_vote, prompt_tokens=prompt, completion_tokens=completion_tokens
        )
        return votes

    def learn_choices_cap(self, cap: int) -> None:
        """The server takes at most ``cap`` choices per request (a 400 said so, or its slots):
        from now on the choices of a judgment are asked in requests of at most that many."""
        self.profile.learn_choices_cap(cap)

    async def _create_fitting(
        self,
        messages: list[dict[str, str]],
        usage: Usage,
        n: int,
        schema: dict[str, Any] = RESPONSE_FORMAT,
        parts: int = 1,
    ) -> ChatCompletion:
        """One request for ``n`` choices, adapted once to what the server turns down: the
        JSON schema (then ``json_object``, then none) and the name of the token limit; a 400
        saying that ``n`` is too many raises ``TooManyChoices`` with the most it takes.
        ``parts``: the dimensions each choice scores."""
        import openai

        try:
            while True:
                # what this request sends (another request may learn something meanwhile)
                sent = (self.profile.json_format, self.profile.limit_param, self.scoring)
                known = self.max_choices
                if n > 1 and known is not None and n > known:
                    # learned meanwhile (another request, another path): not sent again
                    raise TooManyChoices(known, f"the server takes at most {known} choices")
                try:
                    completion = await self._create(messages, usage, n, schema, parts)
                    if sent[0] is not None:
                        self.profile.learn_format(sent[0], taken=True)
                    return completion
                except openai.BadRequestError as exc:
                    self._adapt(exc, n, sent)  # learned: sent again without it
        except openai.APITimeoutError:
            raise RetryableJudgeError(
                f"timed out after {self.timeout:g}s", timed_out=True
            ) from None
        except openai.APIConnectionError as exc:
            raise UnreachableJudgeError(self.unreachable(exc)) from None
        except openai.APIStatusError as exc:
            raise status_error(exc, self.key_given) from None

    def _adapt(self, exc: Exception, n: int, sent: tuple[str | None, str, str]) -> None:
        """Learn what a 400 refused of a request sent with ``sent`` (its response format,
        the name of its token limit, its scoring), so that the next is sent without it; a
        400 saying that ``n`` is too many raises ``TooManyChoices`` with the most the server
        takes; any other is raised as it is."""
        json_format, limit, scoring = sent
        if json_format is not None and schema_unsupported(exc):
            self.profile.learn_format(json_format, taken=False)
        elif limit != "max_tokens" and self.max_tokens and names_parameter(exc, limit):
            self.profile.limit_param = "max_tokens"
        elif scoring == "logprobs" and names_parameter(exc, "logprobs"):
            self.profile.no_logprobs(self.shown_url, "refused logprobs")
        elif n > 1 and (cap := choices_cap(exc)) is not None and cap < n:
            self.learn_choices_cap(cap)
            raise TooManyChoices(cap, redact(str(exc))) from None
        elif self.temperature is not None and names_parameter(exc, "temperature"):
            # sent on every request: no item of the session can be judged with it
            fix = f"the judge refuses llmjudge_temperature={self.temperature:g}: leave it unset"
            said = f"{status_error(exc, self.key_given)} ({fix}, or set one this model takes)"
            raise FatalJudgeError(said, short="400 rejected: temperature") from None
        else:
            raise exc

    async def _create(
        self,
        messages: list[dict[str, str]],
        usage: Usage,
        n: int = 1,
        schema: dict[str, Any] = RESPONSE_FORMAT,
        parts: int = 1,
    ) -> ChatCompletion:
        # The SDK's documented ``post`` with the body as sent: ``chat.completions.create``
        # would walk the body against its parameter types first (a sixth of its CPU per
        # request) to send the same JSON. Retries and errors are the SDK's; the reply comes
        # back as bytes and is read into the SDK's ``ChatCompletion`` by ``read_completion``.
        with self._clients.lent() as client:
            usage.calls += 1  # counted as it goes out: a request that fails was still sent
            raw = await client.post(
                "/chat/completions",
                body=self._body(messages, n, schema, parts),
                cast_to=bytes,
                options={"security": {"bearer_auth": True}},
            )
        completion = read_completion(raw)
        usage.bill(completion.usage)  # billed even when the reply is then rejected
        if usage.exchanges is not None:
            reply = completion.choices[0].message.content if completion.choices else None
            usage.exchanges.append({"messages": messages, "reply": reply})
        return completion

    async def aclose(self) -> None:
        await self._clients.aclose()


def _reply_format(dimension: Dimension) -> tuple[dict[str, Any], int]:
    """The JSON schema of a reply on the dimension (a group's: one property per dimension)
    and how many dimensions it scores."""
    names = tuple(part.name for part in dimension.parts)
    return (group_response_format(names) if names else RESPONSE_FORMAT), len(names) or 1
