"""Replies that say nothing: a refusal, a deflection, a shrug or only courtesy.

One signal, shared by the offline judge's relevance and the deterministic ``is_refusal``
check. A sentence is empty when it belongs to one of the classes below and, once the class's
words are taken out, says nothing of its own (no figure, address, path or quoted label, and at
most two subject words that the ticket did not already use). A reply is a refusal when every
sentence is empty and one of them refuses or deflects: "Sorry, I can't help with that.",
"Please contact support.", "We'll get back to you." - "Contact support at help@shop.com and
quote the order number" says something.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .text import SPECIFIC, content_terms, normalise, same_subject, sentences

# someone else to ask: a service, a person or a place ("the clinic", "your bank", "us")
_WHO = (
    r"(?:us|someone|(?:our|your|the|a|an) (?:\w+ ){0,2}?(?:support|customer (?:service|care)|"
    r"help ?desk|administrator|admin|department|team|specialist|bank|provider|vendor|agent|"
    r"office|branch|store|company|clinic|surgery|reception|helpline|cent(?:er|re)|staff|manager))"
)
_DOCS = (
    r"(?:our|the|your) (?:\w+ )?(?:documentation|docs|faqs?|help cent(?:er|re)|pages?|articles?|"
    r"knowledge ?base|manual|(?:hand|guide)?book|guide(?:lines)?|website|terms|polic(?:y|ies))"
)
REFUSAL = re.compile(
    r"\b(?:i|we) (?:am|are) (?:not able|unable|not allowed) to\b"
    r"|\b(?:i|we) (?:can|will) not (?:help|assist|answer|provide|share|discuss|do|give|advise)\b"
    r"|\bas an ai\b|\b(?:outside|beyond) (?:my|our|the) scope\b",
    re.IGNORECASE,
)
DEFLECTION = re.compile(
    rf"\b(?:contact|reach out to|call|e-?mail|ask|get in touch with|speak to|talk to) {_WHO}\b"
    rf"|\b(?:see|check|read|consult|refer to|visit|look at|review) {_DOCS}\b"
    r"|\b(?:we|someone|our team|a member of (?:our|the) team|an agent|they)"
    r"(?: will| may| might| should)? (?:get back to you|be in touch|contact you|call you|"
    r"reach out|look into (?:it|this)|follow up)\b"
    r"|\b(?:we are|i am) (?:looking into|investigating|aware of|working on) (?:it|this|the issue)\b"
    r"|\b(?:try|check) (?:again |back )?(?:later|soon)\b|\b(?:google|search online)\b"
    r"|\b(?:open|submit|file|raise) (?:a |an )?(?:support |new )?(?:ticket|request|case)\b",
    re.IGNORECASE,
)
# "It depends on many factors", "hard to say", "no idea": the answer's place, left empty.
SHRUG = re.compile(
    r"\bit (?:all )?depends\b|\b(?:can|may|will) (?:vary|differ)\b"
    r"|\b(?:many|various|several|multiple|different|a (?:number|variety|range) of) (?:\w+ )?"
    r"(?:factors|reasons|causes|things|possibilities)\b|\bhard to (?:say|tell)\b"
    r"|\b(?:not sure|no idea|no clue|do not know)\b|\bcould be (?:anything|many things)\b"
    r"|\bit(?:'s| is) complicated\b|\bevery (?:case|situation) is (?:different|unique)\b"
    r"|^\W*(?:maybe|perhaps|possibly)\b[^.!]*\?$",  # a guess put as a question
    re.IGNORECASE,
)
# Thanks, apologies, greetings, sign-offs, empathy and assurances: polite, and no answer alone.
COURTESY = re.compile(
    r"\b(?:thank\w*|appreciate\w*|grateful|sorry|apolog\w+|regret)\b"
    r"|^\W*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b"
    r"|\b(?:hope (?:this|that|it) helps|(?:happy|glad|here) to help|let (?:us|me) know"
    r"|have a (?:great|good|nice) \w+|regards|cheers)\b|\b(?:great|good) question\b"
    r"|\b(?:understand|frustrating|inconvenience|patience|important to us|rest assured|"
    r"satisfaction|priority|we value)\b"
    # the company praising itself: "we are proud of our service", "thank you for choosing us"
    r"|\b(?:we are (?:proud|delighted|thrilled|committed|dedicated)|we love|we pride ourselves|"
    r"we strive|our (?:commitment|mission)|choosing us|valued (?:customer|member)s?|"
    r"part of our (?:community|family))\b",
    re.IGNORECASE,
)
# "within 24 hours" promises a time, not an answer
_WAIT = re.compile(r"\b(?:\d+|a few) (?:working )?(?:hours?|days?|weeks?)\b", re.IGNORECASE)
_OWN_WORDS = 2  # subject words of its own a sentence of a class may have and still be empty


def empty_sentence(
    sentence: str, ticket_terms: set[str], classes: Iterable[re.Pattern[str]], own_words: int
) -> bool:
    """A sentence of one of the classes that says nothing beyond it (see the module's text):
    no figure, address or label, and at most ``own_words`` subject words of its own."""
    hits = [m for c in classes for m in c.finditer(sentence)]
    if not hits:
        return False
    rest = sentence
    for match in hits:
        rest = rest.replace(match.group(0), " ")
    if SPECIFIC.search(_WAIT.sub(" ", rest)):
        return False
    own = [t for t in content_terms(rest) if not any(same_subject(t, k) for k in ticket_terms)]
    return len(own) <= own_words


def empty_reply(
    text: str, ticket: str, classes: Iterable[re.Pattern[str]], own_words: int = _OWN_WORDS
) -> list[re.Match[str]] | None:
    """The class matches of a reply whose every sentence is empty, else None."""
    patterns = tuple(classes)
    ticket_terms = content_terms(ticket)
    parts = sentences(normalise(text))
    if not parts or not all(empty_sentence(s, ticket_terms, patterns, own_words) for s in parts):
        return None
    return [m for s in parts for c in patterns for m in c.finditer(s)]


def find_refusal(text: str, ticket: str = "") -> str | None:
    """A short description of the refusal or deflection a reply is, when it says nothing
    else (thanks and apologies aside), else None. Words of the ``ticket`` repeated in it do
    not count as saying something."""
    found = empty_reply(text, ticket, (REFUSAL, DEFLECTION, COURTESY))
    if found is None:
        return None
    for kind, pattern in (("a refusal", REFUSAL), ("a deflection", DEFLECTION)):
        match = next((m for m in found if m.re is pattern), None)
        if match is not None:
            return f'{kind} ("{match.group(0).strip()}")'
    return None
