"""Text in a ticket or response that speaks to the judge instead of the user: flagged, never
obeyed, never scored by itself."""

from __future__ import annotations

import re

_PATTERNS = [
    re.compile(p, re.IGNORECASE | re.MULTILINE)
    for p in (
        r"\b(ignore|disregard|forget)\b[^.\n]{0,30}\b(previous|prior|above|earlier|all)\b"
        r"[^.\n]{0,20}\b(instructions?|prompts?|rules|messages?)",
        r"\byou are (now )?(an? |the )?(judge|evaluator|grader|rater)\b",
        r"\b(rate|score|grade)\s+(this|the|my)\s+(response|answer|reply)\b[^.\n]{0,20}"
        r"\b([1-5]|five|highest|maximum|top)\b",
        r"\bgive\s+(this|it|me)\s+(a\s+)?(score|rating)\s+of\s+[1-5]\b",
        r'\{\s*"score"\s*:',
        r"^\s*(system|assistant|user)\s*:",
        r"<\|im_(start|end)\|>|\[/?INST\]|^#+\s*(system|instructions?)\b",
        r"<\s*/?\s*(ticket|response)\b[^>]*>",
    )
]
SNIPPET = 60
# Words one of which each pattern needs, lower-cased: an ASCII text without them is not
# searched with it (most texts hold none of these).
# Only ASCII text: under IGNORECASE, the dotless i (U+0131) matches "i", the long s
# (U+017F) "s".
_NEEDS = (
    ("ignore", "disregard", "forget"),
    ("you are",),
    ("rate", "score", "grade"),
    ("give",),
    ('"score"',),
    ("system", "assistant", "user"),
    ("<|im_", "inst]", "#"),
    ("<",),
)


def injection_snippets(*texts: str) -> list[str]:
    """The instruction-like passages found in these texts (each at most SNIPPET characters)."""
    found: list[str] = []
    for text in texts:
        lower = text.lower() if text.isascii() else None
        for pattern, needs in zip(_PATTERNS, _NEEDS, strict=True):
            if lower is not None and not any(word in lower for word in needs):
                continue
            for match in pattern.finditer(text):
                snippet = " ".join(match.group(0).split())[:SNIPPET]
                if snippet not in found:
                    found.append(snippet)
    return found
