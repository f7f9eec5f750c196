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

_I = r"(?:i|we)(?:'m| am|'re| are)?"
# someone else to ask: a service, a person or a place ("the clinic", "your bank", "us")
_WHO = (
    r"(?:us|someone|(?:our |your |the |a |an )(?:\w+ ){0,2}?(?:support|customer (?:service|care)|"
    r"help ?desk|service desk|administrator|admin|department|team|specialist|expert|bank|"
    r"provider|vendor|manufacturer|professional|technician|agent|representative|office|branch|"
    r"store|shop|company|clinic|surgery|practice|reception|helpline|hotline|centre|center|"
    r"staff|manager|doctor|school))"
)
_DOCS = (
    r"(?:our |the |your )?(?:\w+ )?(?:documentation|docs|faqs?|help (?:center|centre)|pages?|"
    r"articles?|knowledge ?base|manual|(?:hand|guide)book|guide|guidelines|website|web ?site|"
    r"terms|polic(?:y|ies)|leaflet|brochure|intranet)"
)
REFUSAL = re.compile(
    rf"\b{_I} (?:not able|unable|not allowed|not permitted) to\b"
    r"|\b(?:i|we) (?:can't|cannot|can not|won't|will not) (?:help|assist|answer|"
    r"provide|share|discuss|do|give|tell|support|advise|comment|look)\b"
    r"|\bas an ai\b|\b(?:outside|beyond) (?:my|our|the) (?:scope|remit)\b"
    r"|\bnot (?:something|anything) (?:i|we) can\b",
    re.IGNORECASE,
)
DEFLECTION = re.compile(
    rf"\b(?:contact|reach out to|call|e-?mail|ask|get in touch with|speak (?:to|with)|talk to|"
    rf"message|write to) {_WHO}\b"
    rf"|\b(?:see|check|read|consult|refer to|visit|look (?:at|through)|review|search) {_DOCS}\b"
    r"|\b(?:we|someone|somebody|our team|a member of (?:our|the) team|an agent|they)"
    r"(?:'ll| will| may| might| should| shall)? (?:get back to you|be in touch|contact you|"
    r"call you|reach out|look into (?:it|this)|follow up)\b"
    rf"|\b{_I} (?:looking into|investigating|aware of|working on) "
    r"(?:it|this|the (?:issue|problem))\b"
    r"|\b(?:try|check) (?:again |back )?(?:later|soon|another time)\b"
    r"|\b(?:google|search (?:online|the web|for it))\b"
    r"|\b(?:open|submit|file|raise|create|log) (?:a |an )?(?:support |new )?"
    r"(?:ticket|request|case)\b",
    re.IGNORECASE,
)
# "It depends on many factors", "hard to say", "no idea": the answer's place, left empty.
SHRUG = re.compile(
    r"\bit (?:all )?depends\b|\b(?:can|may|will|might) (?:vary|differ)\b"
    r"|\b(?:many|various|several|multiple|numerous|different|a (?:number|variety|range|host) of) "
    r"(?:\w+ )?(?:factors|reasons|causes|things|variables|possibilities|considerations)\b"
    r"|\bhard to (?:say|tell|know)\b|\b(?:not sure|no idea|no clue|don't know)\b"
    r"|\bcould be (?:anything|many things|a lot of things)\b|\bit(?:'s| is) complicated\b"
    r"|\bevery (?:case|situation|setup|customer) is (?:different|unique)\b"
    r"|^\W*(?:maybe|perhaps|possibly)\b[^.!]*\?$",  # a guess put as a question
    re.IGNORECASE,
)
# Thanks, apologies, greetings, sign-offs, empathy and assurances: polite, and no answer alone.
COURTESY = re.compile(
    r"\b(?:thanks?|thank you|appreciated?|grateful|sorry|apologi[sz]e|apologies|regret)\b"
    r"|^\W*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b"
    r"|\b(?:hope (?:this|that|it) helps|happy to help|glad to help|here to help|let (?:us|me) know"
    r"|have a (?:great|good|nice) \w+|(?:best|kind) regards|cheers)\b"
    r"|\b(?:great|good|excellent|interesting) question\b"
    r"|\b(?:understand|frustrating|inconvenience|patience|important to us|rest assured|"
    r"satisfaction|priority|committed to|we value)\b"
    # the company praising itself: "we're proud of our service", "thank you for choosing us"
    r"|\b(?:we(?:'re| are) (?:proud|delighted|thrilled|passionate|dedicated)|we love|"
    r"we pride ourselves|we strive|our (?:commitment|mission|passion)|for choosing us|"
    r"valued (?:customer|member)s?|part of our (?:community|family))\b",
    re.IGNORECASE,
)
# "within 24 hours" promises a time, not an answer
_WAIT = re.compile(
    r"\b(?:\d+|a few|one|two|three) (?:business |working )?(?:hours?|days?|weeks?|minutes?)\b", re.I
)
_OWN_WORDS = 2  # subject words of its own a sentence of a class may have and still be empty


def empty_sentence(
    sentence: str, ticket_terms: set[str], classes: Iterable[re.Pattern[str]]
) -> bool:
    """A sentence of one of the classes that says nothing beyond it (see the module's text)."""
    hits = [m for c in classes for m in c.finditer(sentence)]
    if not hits:
        return False
    rest = sentence
    for match in hits:
        rest = rest.replace(match.group(0), " ")
    if SPECIFIC.search(_WAIT.sub(" ", rest)):
        return False
    own = [t for t in content_terms(rest) if not any(same_subject(t, k) for k in ticket_terms)]
    return len(own) <= _OWN_WORDS


def empty_reply(
    text: str, ticket: str, classes: Iterable[re.Pattern[str]]
) -> list[re.Match[str]] | None:
    """The class matches of a reply whose every sentence is empty, else None."""
    patterns = tuple(classes)
    ticket_terms = content_terms(ticket)
    parts = sentences(normalise(text))
    if not parts or not all(empty_sentence(s, ticket_terms, patterns) for s in parts):
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
