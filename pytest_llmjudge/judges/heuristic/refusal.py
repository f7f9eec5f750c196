"""Replies that say nothing: a refusal, a deflection, a shrug or courtesy (one signal, for the
judge's relevance and the ``is_refusal`` check). A sentence is empty when it is of one of these
classes and, the class's words taken out, has no figure, address, path or label and at most
two subject words the ticket did not use: "Please contact support." is a deflection, "Contact
support at help@shop.com and quote the order number" says something."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .text import SPECIFIC, content_terms, normalise, same_subject, sentences, sentiment, words

# Someone or somewhere else: "our support team", "a member of staff", "the help centre", "the
# university website". (A page of the product, "the billing page", is a place to act.)
_ELSEWHERE = (
    r"(?:us|someone|support|service|desk|team|department|staff|office|reception|person|"
    r"website|portal|doc\w*|faqs?|cent(?:re|er)|manual|\w*book|guide|terms|counter|"
    # a profession or a role: "the pharmacist", "a veterinarian", "my supervisor"
    r"\w+(?:ist|ian|ant|visor|ager|ative|is[eo]r))"
)
# The forms a refusal takes, whatever it refuses: "I can not assist", "we are not permitted to
# share that", "I am afraid I must decline", "this request can not be fulfilled". What follows
# the verb tells a refusal from a rule: the request itself ("that", "with your order", nothing)
# is refused; a thing named ("We can not offer refunds after 30 days") is a rule, an answer.
_NOT = (
    r"(?:can ?not|could not|will not|unable to|forbidden from"
    r"|not (?:able|allowed|permitted|authori[sz]ed) to)"
)
_ACT = r"(?:help|assist|answer|provide|share|do|offer|comment)"
# (the topic of a refusal, "with card payments", is no answer: it is part of the match)
_REFUSED = r"(?: (?:you )?(?:with|that|this|it|anything)\b[^.!?;]*|(?=\s*(?:[.!?;,:]|but\b|$)))"
REFUSAL = re.compile(
    rf"\b(?:i|we)(?: am| are)?(?: unfortunately| afraid)*(?: i| we)?(?: am| are)? {_NOT} "
    rf"{_ACT}\w*{_REFUSED}|\b(?:i|we) (?:must )?(?:refuse|decline)(?: to\b|{_REFUSED})"
    rf"|\brequest {_NOT} be \w+|\bnot possible (?:for (?:me|us) )?to {_ACT}\b"
    r"|\bhas been blocked\b|\bas an ai\b",
    re.IGNORECASE,
)
# Someone else to ask or somewhere else to look, or a promise to answer later.
DEFLECTION = re.compile(
    r"\b(?:contact|call|e-?mail|speak to|reach(?: out to)?|see|check|ask|"
    rf"read|consult|refer to|visit)(?: \w+){{0,3}}? {_ELSEWHERE}\b|\bcontact\b"
    # someone else decides: "determined by the event organiser"
    rf"|\b(?:determined|handled) by (?:\w+ ){{0,2}}{_ELSEWHERE}\b"
    rf"|\b(?:another|the appropriate) {_ELSEWHERE}\b|\bavailable online\b"
    r"|\b(?:get back to you|be in touch|in due course|eventually|let you know"
    r"|pass\w* (?:it|this) on|(?:look\w* into|working on) (?:it|this))\b"
    r"|\btry (?:again )?later\b",
    re.IGNORECASE,
)
# "It depends on many factors", "no idea", "nothing we can do": the answer's place, left empty.
# Not knowing: no direct "No" or "Yes" makes an answer of "No idea."
UNSURE = r"\b(?:hard to say|not sure|no idea|do not know)\b"
SHRUG = re.compile(
    r"\bdepends? on\b"
    r"|\b(?:vary|varies|differ)\w*(?: by \w+(?: to \w+)?)?"
    r"|\b(?:many|various|numerous|a (?:number|variety|range) of) (?:\w+ )?"
    r"(?:factors|reasons|causes|variables|circumstances|elements|considerations)\b"
    rf"|{UNSURE}"
    # resignation: it is normal, it happens, it is final, nothing to be done, no big deal
    r"|\bhow (?:it|things) \w+\W*$|\blike that\W*$|\bhappen\w*"
    r"|\b(?:normal|final|sometimes|big deal)\b",
    re.IGNORECASE,
)
# Thanks, apologies, understanding and greetings: polite, and no answer alone. (Praise and
# generalities are the learned signal's to weigh: ``learned.py``.)
COURTESY = re.compile(
    r"\b(?:thank|appreciat|sorry|apolog|understand)\w*(?: you)?"
    r"|\b(?:reaching out|getting in touch)\b"
    r"|^\W*(?:hi|hello|dear)\b(?: [A-Z]\w*)?|\b(?:please note|regards)\b",
    re.IGNORECASE,
)
# What we do or did for the reader: "I have added ...", "we will reprint them" (not "we will be",
# nor "we will not")
ACTION = re.compile(r"\b(?:i|we) (?:will|have) (?!be\b|been\b|not\b)\w+", re.IGNORECASE)
# Classes of a sentence that says nothing, as the reasoning names them (and courtesy)
KINDS = {"a refusal": REFUSAL, "a deflection": DEFLECTION, "a shrug": SHRUG}
# "within 24 hours" promises a time, not an answer
_WAIT = re.compile(r"\b\d+ (?:hours?|days?)\b", re.IGNORECASE)
_OWN_WORDS = 2  # subject words of its own a sentence of a class may have and still be empty


def empty_sentence(
    sentence: str, ticket_terms: set[str], classes: Iterable[re.Pattern[str]], own_words: int
) -> bool:
    """A sentence that says nothing (see the module's text; ``own_words`` at most)."""
    hits = [m for c in classes for m in c.finditer(sentence)]
    rest = sentence
    for match in hits:
        rest = rest.replace(match.group(0), " ")
    # "within 24 hours" is a deflection's promise of time; elsewhere a figure is an answer
    promised = any(m.re is DEFLECTION for m in hits)
    if SPECIFIC.search(_WAIT.sub(" ", rest) if promised else rest):
        return False
    # neither the ticket's words nor the class's own ("billing questions ... the billing team")
    known = ticket_terms | {t for m in hits for t in content_terms(m.group(0))}
    own = [t for t in content_terms(rest) if not any(same_subject(t, k) for k in known)]
    return bool(hits) and len(own) <= own_words


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


def said_back(ticket: str, response: str) -> bool:
    """Filler: two sentences or more, each courtesy, kindness or the ticket said back."""
    asked, parts = content_terms(ticket), sentences(response)
    given = [w for w in words(ticket) if SPECIFIC.search(w)]  # its figures said back are no news
    return len(parts) >= 2 and all(_nothing_new(s, asked, given) for s in parts)


def _nothing_new(sentence: str, asked: set[str], given: list[str]) -> bool:
    """No figure, label, name or action of ours but the ticket's, and one word (three beside a
    warm one: "We love your order!") neither the ticket nor courtesy holds."""
    names = [w for w in words(sentence)[1:] if w[0].isupper() and not content_terms(w) <= asked]
    rest = " ".join(w for w in sentence.split() if w.strip(".,;:!?()") not in given)
    if SPECIFIC.search(rest) or ACTION.search(sentence) or names:
        return False
    new = [t for t in content_terms(COURTESY.sub(" ", sentence)) if sentiment().get(t, 0) < 1]
    new = [t for t in new if not any(same_subject(t, a) for a in asked)]
    warm = any(sentiment().get(w.lower(), 0.0) >= 1.5 for w in words(sentence))
    return len(new) <= (3 if warm else 1)


def refusal_in(text: str) -> str | None:
    """The first refusal a reply holds, whatever else it says (promptfoo's is-refusal)."""
    for sentence in sentences(text):  # quoted as written, not as normalised
        if REFUSAL.search(normalise(sentence)):
            shown = sentence if len(sentence) <= 80 else sentence[:77] + "..."
            return f'a refusal ("{shown}")'
    return None


def find_refusal(text: str, ticket: str = "") -> str | None:
    """The refusal or deflection a reply is when it says nothing else (thanks aside), or None."""
    found = empty_reply(text, ticket, (REFUSAL, DEFLECTION, COURTESY))
    if found is None:
        return None
    for kind, pattern in (("a refusal", REFUSAL), ("a deflection", DEFLECTION)):
        match = next((m for m in found if m.re is pattern), None)
        if match is not None:
            return f'{kind} ("{match.group(0).strip()}")'
    return None
