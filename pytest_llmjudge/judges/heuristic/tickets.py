"""What a ticket asks: a support question or chit-chat, a fix, an explanation, a choice or a
yes or no. The relevance ceilings ask it before they hold an answer to having steps.
"""

from __future__ import annotations

import re

from .text import content_terms, normalise, related_groups

# Words of the support-term groups that are everyday words too ("a Teams call", CI "needs",
# "admin rights"): alone they say nothing of a ticket's topic.
_EVERYDAY = frozenset(
    """
    need right explain call review request word team sound claim sign fan state away record
    listen character action language white space map full paid meet attempt former send job
    office twice blank public library plan election join mistake audience size step power card
    """.split()  # noqa: SIM905 - a word list reads better as text
)

# A ticket that asks for an explanation, not a fix: "Why...?", "How is the price calculated?",
# "How does the trial work?" ("How do I..." asks for steps).
_ASKS_TO_EXPLAIN = re.compile(r"\bwhy\b|\bhow (?:is|are|does|was|were)\b", re.IGNORECASE)

# A ticket that asks to choose ("...on the server or in the browser?") or asks yes or no, and a
# reply that answers it ("Yes, in a different form: ...", "They can, but ...").
_ASKS_TO_CHOOSE = re.compile(r"\bor\b[^?]*\?", re.IGNORECASE)
_YES_NO_QUESTION = re.compile(
    r"\W*(?:do|does|should|is|are|can|could|will|would)\b[^?]*\?\s*$", re.IGNORECASE
)
_YES_OR_NO = re.compile(
    r"\W*(?:yes|no|(?:not|only) (?:directly|yet|on|in|with|for|by|at|if|when|through)"
    r"|(?:you|they|we|it) (?:can|can't|cannot|do|don't|does|doesn't|should|shouldn't|need))\b",
    re.IGNORECASE,
)

# "How do I change my Teams background?": asking how to do something is a support request
_HOW_DO_I = re.compile(r"\W*how (?:do|can|should) (?:i|we)\b", re.IGNORECASE)

# An error code or status quoted in a ticket: UPDATE_ROLLBACK_FAILED, ERR_SSL_PROTOCOL_ERROR.
_ERROR_CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def last_message(ticket: str) -> str:
    return normalise(ticket).strip().split("\n")[-1]


def is_support_ticket(message: str) -> bool:
    """A message that names a support term, quotes an error code or asks how to do something:
    not chit-chat."""
    named = any(_support_term(term) for term in content_terms(message))
    return named or bool(_ERROR_CODE.search(message) or _HOW_DO_I.match(message))


def asks_to_explain(message: str) -> bool:
    return bool(_ASKS_TO_EXPLAIN.search(message))


def asks_to_choose(message: str) -> bool:
    return bool(_ASKS_TO_CHOOSE.search(message))


def answers_yes_or_no(message: str, reply: str) -> bool:
    """A yes-or-no question ("Do we need a firewall...?") and a reply that starts "Yes", "No" or
    with what the asker can or need do ("You can, but ...", "You don't need to")."""
    return bool(_YES_NO_QUESTION.match(message) and _YES_OR_NO.match(reply))


def _support_term(term: str) -> bool:
    groups = related_groups()
    # the stem of "invoices" is "invoic", of "invoice" "invoice"
    return any(form in groups and form not in _EVERYDAY for form in (term, f"{term}e"))
