"""Responses with nothing else in them: only a refusal, only a pointer to support, only
pleasantries. A sentence is empty when it holds one of these and, their words taken out, has
no figure, address, path or label and at most two subject words the ticket did not use:
"Please contact support." is a pointer to support, "Contact support at help@shop.com and quote
the order number" says something, and so does a refusal with its reason."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .text import SPECIFIC, content_terms, normalise, same_subject, sentences

# The forms a refusal takes, whatever it refuses: "I can not assist", "we are not able to
# answer that", "I am afraid I must decline". What follows the verb tells a refusal from a
# rule: the request itself ("that", "with your order", nothing) is refused; a thing named ("We
# can not offer refunds after 30 days") is a rule, an answer; a reason ("because ...") is kept
# out of the match, so that it counts as something said.
_NOT = (
    r"(?:can ?not|could not|will not|unable to|forbidden from"
    r"|not (?:able|allowed|permitted|authori[sz]ed) to)"
)
_ACT = r"(?:help|assist|answer|provide|share|do|offer|comment)"
_REASON = r"\b(?:because|as|since|due|under|for|but|without|unless|until)\b"
# ... and a refusal that gives its reason says something: "for privacy reasons", "our policy"
_GIVEN_REASON = re.compile(
    r"\b(?:because|since|due to|under|unless|until|as (?:it|this|that|we|our|the|your|they)"
    r"|reasons?|polic\w+|law|legal\w*|rules?|regulations?|privacy|security|safety"
    r"|confidential\w*|terms)\b",
    re.IGNORECASE,
)
_REFUSED = (
    rf"(?: (?:you )?(?:with|that|this|it|anything)\b(?:(?!{_REASON})[^.!?;,:])*"
    rf"|(?=\s*(?:[.!?;,:]|{_REASON}|$)))"
)
REFUSAL = re.compile(
    rf"\b(?:i|we)(?: am| are)?(?: unfortunately| afraid)*(?: i| we)?(?: am| are)? {_NOT} "
    rf"{_ACT}\w*{_REFUSED}|\b(?:i|we) (?:must )?(?:refuse|decline)(?: to\b|{_REFUSED})"
    rf"|\brequest {_NOT} be \w+|\bas an ai\b",
    re.IGNORECASE,
)
# Support in general, which the reader is already talking to: "contact our support team",
# "check the FAQ", "reach out to customer service". (A named place, "the council", "reception",
# "your bank", tells the reader where to go, and "call us to book" how: answers.)
_SUPPORT = (
    r"(?:(?:our|the|a|your|customer|technical|relevant|appropriate|another|other|\s)+)?"
    r"(?:support|(?:customer )?service|care|help ?desk|help ?cent(?:re|er)|team|department|"
    r"faqs?|website|documentation|someone else)"
)
DEFLECTION = re.compile(
    r"\b(?:contact|call|e-?mail|speak to|talk to|get in touch with|reach(?: out to)?|see|check|"
    rf"ask|read|consult|refer to|visit)\b{_SUPPORT}\b",
    re.IGNORECASE,
)
# Thanks, apologies, understanding and greetings: polite, and no response alone.
COURTESY = re.compile(
    r"\b(?:thank|appreciat|sorry|apolog|understand)\w*(?: you)?"
    r"|\b(?:reaching out|getting in touch)\b"
    r"|^\W*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b(?: [A-Z]\w*)?"
    r"|\b(?:please note|regards|cheers|take care|best wishes)\b"
    # well-wishing: "Have a wonderful day!", "Wishing you a great weekend", "Hope you're well"
    r"|\b(?:have|enjoy|wishing you) an? (?:\w+ ){0,3}(?:day|week|weekend|evening|one)\b"
    r"|\b(?:we |i )?hope (?:you(?:'re| are) (?:well|having)|you have)\b",
    re.IGNORECASE,
)
_OWN_WORDS = 2  # subject words of its own a sentence may have and still say nothing


def empty_sentence(
    sentence: str, ticket_terms: set[str], classes: Iterable[re.Pattern[str]]
) -> bool:
    """A sentence that says nothing (see the module's text)."""
    hits = [m for c in classes for m in c.finditer(sentence)]
    if not hits:
        return False
    rest = sentence
    for match in hits:
        rest = rest.replace(match.group(0), " ")
    if SPECIFIC.search(rest) or (any(m.re is REFUSAL for m in hits) and _GIVEN_REASON.search(rest)):
        return False
    # neither the ticket's words nor the class's own ("billing questions ... the billing team")
    known = ticket_terms | {t for m in hits for t in content_terms(m.group(0))}
    own = [t for t in content_terms(rest) if not any(same_subject(t, k) for k in known)]
    return len(own) <= _OWN_WORDS


def empty_response(
    text: str, ticket: str, classes: Iterable[re.Pattern[str]]
) -> list[re.Match[str]] | None:
    """The class matches of a response whose every sentence is empty, else None."""
    patterns = tuple(classes)
    ticket_terms = content_terms(ticket)
    parts = sentences(normalise(text))
    if not parts or not all(empty_sentence(s, ticket_terms, patterns) for s in parts):
        return None
    return [m for s in parts for c in patterns for m in c.finditer(s)]
