"""Live bots ("targets"): where to send a ticket and how to read the response.

A target is a name and an HTTP endpoint. The request body is a JSON template whose string
values may contain ``{ticket}``; the response is read from the JSON the bot returns by a
dotted path (``answer``, ``choices.0.message.content``). Header values may name environment
variables (``Authorization: Bearer ${BOT_TOKEN}``): they are expanded when a request is made
and never written anywhere.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..basics.redaction import register_secret, register_url
from ..basics.rubrics import Turn

DEFAULT_BODY = '{"message": "{ticket}"}'
DEFAULT_FIELD = "answer"
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class TargetError(Exception):
    """A target could not give a response; retrying will not help."""


class RetryableTargetError(TargetError):
    """A transient failure (connection refused, timeout, HTTP 5xx/429)."""


@dataclass(frozen=True)
class Target:
    name: str
    url: str | None  # None: the response comes from a llmjudge_response override


@dataclass(frozen=True)
class TargetConfig:
    targets: tuple[Target, ...]
    body: str = DEFAULT_BODY
    field: str = DEFAULT_FIELD
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float = 30.0

    def get(self, name: str) -> Target:
        return next(t for t in self.targets if t.name == name)


def parse_targets(text: str) -> tuple[Target, ...]:
    """``python=http://localhost:8000/chat dotnet=http://localhost:5000/chat`` (or names only)."""
    targets: list[Target] = []
    for part in text.replace(",", " ").split():
        name, sep, url = part.partition("=")
        if not _NAME.match(name):
            raise ValueError(f"target names are letters, digits, '.', '_' or '-', got {name!r}")
        if sep and not url.startswith(("http://", "https://")):
            raise ValueError(f"target {name}: URL must start with http:// or https://, got {url!r}")
        if any(t.name == name for t in targets):
            raise ValueError(f"target {name} is given twice")
        register_url(url)
        targets.append(Target(name, url or None))
    return tuple(targets)


# The settings of the targets table beside the targets themselves; no target has these names.
TABLE_SETTINGS = (
    *("body", "headers", "field", "timeout"),
    *("pairwise", "tie_tolerance", "save_responses"),
)
_WHOLE_LINE = re.compile(r"^\s*(body|headers)\s*=\s*(.*)$")  # values with spaces in them


@dataclass(frozen=True)
class TargetTable:
    """``llmjudge_targets``: the live bots, how to ask them and how to compare them."""

    config: TargetConfig
    pairwise: bool = False  # the responses also compared side by side, in both orders
    tie_tolerance: float = 0.01  # combined scores closer than this are a tie
    save_responses: str | None = None  # folder for the responses as static eval files

    def __bool__(self) -> bool:
        return bool(self.config.targets)


def parse_target_table(text: str) -> TargetTable:
    """Lines of ``name=URL`` (several a line), ``name`` (answered by a ``llmjudge_response``
    override), and the table's settings: ``body = {"message": "{ticket}"}``,
    ``headers = Authorization: Bearer ${BOT_TOKEN}``, ``field=answer timeout=30 pairwise=true
    tie_tolerance=0.01 save_responses=DIR``."""
    found, targets = _table_parts(text)
    body = found.get("body", DEFAULT_BODY)
    validate_body_template(body)

    switch = found.get("pairwise", "false").strip().lower()
    if switch not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        raise ValueError(f"pairwise must be true or false, got {switch!r}")

    config = TargetConfig(
        targets=parse_targets(" ".join(targets)),
        body=body,
        field=found.get("field", DEFAULT_FIELD) or DEFAULT_FIELD,
        headers=parse_headers(found.get("headers", "")),
        timeout=_number(found, "timeout", 30.0, positive=True),
    )
    if not config.targets and found:
        raise ValueError(f"names no target (name=URL), only {', '.join(found)}")
    return TargetTable(
        config,
        pairwise=switch in ("true", "1", "yes", "on"),
        tie_tolerance=_number(found, "tie_tolerance", 0.01, positive=False),
        save_responses=found.get("save_responses") or None,
    )


def _table_parts(text: str) -> tuple[dict[str, str], list[str]]:
    """The table's settings by name, and its ``name=URL`` (or ``name``) words."""
    found: dict[str, str] = {}
    targets: list[str] = []
    for line in text.splitlines():
        whole = _WHOLE_LINE.match(line)
        if whole:
            found[whole.group(1)] = whole.group(2).strip()
            continue
        for part in re.sub(r"\s*=\s*", "=", line).split():
            name, _, value = part.partition("=")
            if name in TABLE_SETTINGS:
                found[name] = value
            else:
                targets.append(part)
    return found, targets


def _number(found: dict[str, str], name: str, default: float, positive: bool) -> float:
    """A number setting of the table (its default when not given); ValueError naming it."""
    if name not in found:
        return default
    try:
        value = float(found[name])
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(
            f"{name} must be a number {'> 0' if positive else '>= 0'}, got {found[name]!r}"
        )
    return value


def parse_headers(text: str) -> tuple[tuple[str, str], ...]:
    """``Authorization: Bearer ${BOT_TOKEN}; X-Team: support`` -> pairs (not expanded)."""
    headers = []
    for part in text.split(";"):
        if not part.strip():
            continue
        name, sep, value = part.partition(":")
        if not sep or not name.strip():
            raise ValueError(f"headers look like 'Name: value; Other: value', got {part.strip()!r}")
        headers.append((name.strip(), value.strip()))
    return tuple(headers)


def validate_body_template(template: str) -> None:
    """The template must be JSON; ``{ticket}`` goes inside a string value, ``"{messages}"``
    is a whole value (replaced by the conversation as a JSON list)."""
    try:
        json.loads(template)
    except json.JSONDecodeError as exc:
        raise ValueError(f"body template is not JSON: {exc.msg} at column {exc.colno}") from None
    if "{ticket}" not in template and '"{messages}"' not in template:
        raise ValueError('body template has neither a {ticket} nor a "{messages}" placeholder')


def render_body(template: str, ticket: str, conversation: Sequence[Turn] = ()) -> bytes:
    """The request body: the template with {ticket} replaced inside its string values, and a
    value "{messages}" replaced by the earlier turns and the ticket as role/content objects."""
    messages = [{"role": t.role, "content": t.content} for t in conversation]
    messages.append({"role": "user", "content": ticket})

    def fill(value: Any) -> Any:
        if value == "{messages}":
            return messages
        if isinstance(value, str):
            return value.replace("{ticket}", ticket)
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    return json.dumps(fill(json.loads(template))).encode()


_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Only ${NAME} is a reference: a bare "$" in a header value stays as it is.
_BRACED_ONLY = r"""
    \$(?:
        \{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}
        | (?P<escaped>(?!)) | (?P<named>(?!)) | (?P<invalid>(?!))
    )
"""


class _EnvReference(string.Template):
    # typeshed types the compiled pattern; a subclass gives the text, which Template compiles.
    pattern = _BRACED_ONLY  # type: ignore[assignment]


def expand_headers(headers: tuple[tuple[str, str], ...], env: Mapping[str, str]) -> dict[str, str]:
    """Header values with ``${VAR}`` replaced from ``env``; TargetError names a missing one."""
    present = {name: value for name, value in env.items() if value}
    for _, value in headers:  # every value read into a header is a secret from now on
        for name in _REFERENCE.findall(value):
            register_secret(present.get(name))
    try:
        return {name: _EnvReference(value).substitute(present) for name, value in headers}
    except KeyError as exc:
        raise TargetError(
            f"header needs environment variable {exc.args[0]}, which is not set"
        ) from None


def extract(data: Any, path: str) -> str:
    """The response at a dotted path; list indices are numbers (``choices.0.message.content``)."""
    value = data
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise TargetError(f"reply has no field '{path}' (missing '{part}'; {_has(value)})")
    if not isinstance(value, str) or not value.strip():
        raise TargetError(f"reply field '{path}' is not a non-empty string: {value!r:.60}")
    return value


def _has(value: Any) -> str:
    """What the reply had where a field was missing, so the user can fix the field path."""
    if isinstance(value, dict):
        keys = ", ".join(repr(key) for key in list(value)[:12])
        more = f" and {len(value) - 12} more" if len(value) > 12 else ""
        return f"its keys there: {keys}{more}" if value else "an empty object there"
    if isinstance(value, list):
        return f"a list of {len(value)} there"
    return f"a {type(value).__name__} there, not an object"
