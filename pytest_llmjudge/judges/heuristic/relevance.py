"""Relevance: the blatant only. An empty or placeholder answer, one that only refuses,
deflects, shrugs or is polite, and one with nothing related to the ticket's subject each fail;
every other answer keeps the benefit of the doubt.
"""

from __future__ import annotations

import re

from .refusal import COURTESY, DEFLECTION, REFUSAL, SHRUG, empty_reply, empty_sentence
from .text import content_terms, normalise, sentences, shared_terms
from .tone import CONTEMPT, MOCKERY

# Text left where an answer should be: "TODO", "N/A", "lorem ipsum", "[insert answer]",
# "{{response}}", "<answer>".
PLACEHOLDER = re.compile(
    r"\W*(?:todo|tbd|n/?a|none|null|placeholder|test|x+)?\W*|.*\blorem ipsum\b.*"
    r"|\W*\{\{.*\}\}\W*|\W*\[[^\]]*\]\W*|\W*<[^>]*>\W*"  # {{answer}}, [answer], <answer>
    r"|\W*(?:no|empty) (?:reply|response|answer)\W*|\W*insert \w+ here\W*",
    re.IGNORECASE | re.DOTALL,
)
# An answer that takes up nothing of the ticket fails only when it says enough to be about
# something else: a terse answer in other words ("Twelve. See Time off in the HR portal." to
# "How many vacation days do I have left?") keeps the benefit of the doubt.
_OFF_TOPIC_WORDS = 5
# ... and so does a direct answer to a yes-or-no question: "We do. Delivery takes 4-6 days."
_DIRECT = re.compile(
    r"(?:^|.*[.!?,:;]\s)\W*(?:yes|no|sure|of course|not yet|"
    r"(?:we|you|it|they) (?:do|can|are|is|will)(?: not)?\W*(?:$|[.,;:!]))",
    re.IGNORECASE,
)
# ... and so does an answer in a system's own terms (a command, path, menu path, identifier,
# file name, acronym of three letters or more): "The HPA cannot read metrics. Install
# metrics-server." may answer "autoscaler never scales up" in words this judge cannot relate.
_TECHNICAL = re.compile(
    r"\w/\w|\s>\s|\b\w+_\w+\b|`|\b[a-z]+[A-Z]\w*|(?:^|\s)--?\w|\b\w+\.[a-z]{2,4}\b|\b[A-Z]{3,}\d*\b"
)
_YES_NO_QUESTION = re.compile(
    r"(?:^|[.!?]\s+)(?:do|does|can|could|is|are|will)\b[^.!?]*\?",
    re.IGNORECASE,
)
_PRAISE_WORDS = 3  # words of its own a sentence of thanks and praise may have and say nothing
_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KINDS = (
    ("a refusal", REFUSAL),
    ("a deflection", DEFLECTION),
    ("a shrug", SHRUG),
    ("contempt", CONTEMPT),
    ("mockery", MOCKERY),
    ("courtesy", COURTESY),
)


def relevance_signal(ticket: str, response: str) -> tuple[int, str] | None:
    """The failing signal, as (score, what was found), or None: no clear evidence."""
    ticket, response = normalise(ticket), normalise(response)
    if PLACEHOLDER.fullmatch(response.strip()):
        shown = response.strip()[:40]
        return 1, f'empty or placeholder text ("{shown}")' if shown else "empty text"
    if _keyboard_mash(response):
        return 1, f'empty or placeholder text ("{response.strip()[:40]}")'
    classes = [pattern for _, pattern in _KINDS]
    found = empty_reply(response, ticket, classes)
    shared = shared_terms(ticket, response)
    if found is None and not shared:
        # a reply of thanks and praise that does not touch the ticket says nothing, even with
        # a few words of its own ("We are proud of our friendly drivers and great service.")
        found = empty_reply(response, ticket, [COURTESY], own_words=_PRAISE_WORDS)
    if found is not None:
        named = [
            f'{kind} ("{match.group(0).strip()}")'
            for kind, pattern in _KINDS
            for match in [next((m for m in found if m.re is pattern), None)]
            if match is not None
        ]
        return 2, "nothing but " + " and ".join(named[:2])
    # thanks and greetings around an answer add no words of a subject of its own
    said = [s for s in sentences(response) if not empty_sentence(s, set(), [COURTESY], 1)]
    ticket_terms, own = content_terms(ticket), content_terms(COURTESY.sub(" ", " ".join(said)))
    direct = _YES_NO_QUESTION.search(ticket) and _DIRECT.match(response)
    unrelated = not (shared or direct or _TECHNICAL.search(response))
    if len(ticket_terms) >= 2 and len(own) >= _OFF_TOPIC_WORDS and unrelated:
        return (
            2,
            f"nothing related to the ticket's subject (none of its {len(ticket_terms)} subject "
            "words, nor another form of one)",
        )
    return None


def _keyboard_mash(text: str) -> bool:
    """One "word" typed along one row of the keyboard ("asdfgh", "qwerty"), or without a vowel."""
    token = text.strip(" .!?\n").lower()
    if len(token) < 4 or not token.isalpha():
        return False
    return any(set(token) <= set(row) for row in _KEYBOARD_ROWS) or not set(token) & set("aeiouy")
