"""Keep secrets out of everything a person, a CI log or a file can read.

The secrets the plugin knows: the API key (environment), credentials in URLs (base URL,
target URLs) and the values of ``${VAR}`` references expanded into target headers. They are
registered as they become known, in this process (an xdist worker registers its own), and
``redact`` replaces each with ``***``; key-shaped tokens are replaced too.
"""

from __future__ import annotations

import base64
import logging
import os
import re
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

SECRET_ENV_VARS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")
_KEY_PATTERN = re.compile(r"(sk-[A-Za-z0-9_\-*]{6,}|(?:Bearer|Basic)\s+[^\s\"',;]+)")
MIN_SECRET = 4  # shorter values would redact ordinary words
# The process's known secret values: a registry rather than a message bus, since every text
# the plugin emits must pass through redact() and cannot all be handed the settings.
_known: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a secret value (too-short values are ignored)."""
    if value and len(value.strip()) >= MIN_SECRET:
        _known.add(value.strip())


def register_url(url: str | None) -> None:
    """Remember the credentials of a URL (``user:password@host``)."""
    if not url:
        return
    parts = urlsplit(url)
    if parts.password:
        register_secret(parts.password)
        register_secret(unquote(parts.password))
    if parts.username and parts.password:
        pair = f"{unquote(parts.username)}:{unquote(parts.password)}"
        register_secret(f"{parts.username}:{parts.password}")
        register_secret(base64.b64encode(pair.encode()).decode())  # as Basic auth sends it


def redact(text: str) -> str:
    """Replace known secret values and key-shaped tokens with ``***``."""
    for name in SECRET_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if len(value) >= MIN_SECRET:
            text = text.replace(value, "***")
    for value in sorted(_known, key=len, reverse=True):  # longest first: no partial leftovers
        text = text.replace(value, "***")
    # each match holds one of these words: a text without them (most, such as a run's
    # reasoning) is not searched
    if "sk-" in text or "Bearer" in text or "Basic" in text:
        return _KEY_PATTERN.sub("***", text)
    return text


def redact_values(value: Any) -> Any:
    """JSON data with every string in it redacted (an entry's free-form metadata)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_values(item) for item in value]
    return value


def safe_url(url: str | None) -> str | None:
    """A URL without credentials (``user:password@``) or query string, for output."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class RedactingFilter(logging.Filter):
    """Redacts every log record that passes (the plugin's and third-party loggers' alike)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


# A log record of a problem the item's own report states: kept in log files (llmjudge_log_dir),
# left out of pytest's captured logs, where it would repeat the report.
SHOWN_IN_REPORT = {"llmjudge_shown_in_report": True}


class NotTwiceFilter(logging.Filter):
    """On pytest's log handlers: drops the records an item's report already says."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "llmjudge_shown_in_report", False)
