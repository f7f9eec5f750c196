"""Keep API keys out of everything a person or a CI log can read."""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

SECRET_ENV_VARS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")
_KEY_PATTERN = re.compile(r"(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+)")


def redact(text: str) -> str:
    """Replace known secret values and key-shaped tokens with ``***``."""
    for name in SECRET_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if len(value) >= 4:
            text = text.replace(value, "***")
    return _KEY_PATTERN.sub("***", text)


def safe_url(url: str | None) -> str | None:
    """A URL without credentials (``user:password@``) or query string, for output."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
