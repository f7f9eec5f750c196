"""Relevance: the blatant only. An empty or placeholder answer, one that only refuses,
deflects, shrugs, is polite or says the ticket back, and one with nothing related to the
ticket's subject each fail; every other answer keeps the benefit of the doubt."""

from __future__ import annotations

import re

from .refusal import ACTION, COURTESY, KINDS, UNSURE, empty_reply, empty_sentence, said_back
from .text import SYSTEM_TERMS, content_terms, normalise, sentences, sentiment, shared_terms
from .tone import CONTEMPT, MOCKERY

# Text left where an answer should be, told by its form, not by its words: only the words of a
# template ("TODO: write reply", "Answer goes here", "N/A", "-"), a template slot ("{{response}}",
# "[insert answer]", "<answer>"), lorem ipsum, or an error message ("Error 500: ...").
_TEMPLATE = (
    r"(?:[a-z]|todo|tb[dc]|x+|n/?a|nan|null|undefined|placeholder|answer|reply|response|here|"
    # a status where the answer should be ("Answer pending", "Draft", "N/A - see above")
    r"goes|pending|draft|see above|no (?:reply|response|answer))"
)
PLACEHOLDER = re.compile(
    rf"\W*(?:{_TEMPLATE}\b\W*)*|.*\blorem ipsum\b.*|\W*(?:\{{\{{.*\}}\}}|\[[^\]]*\]|<[^>]*>)\W*"
    # an error's name as programs write it ("TypeError", "Internal Server Error", "ERROR 500",
    # "error: ..."), never a customer's word ("Permission error: allow access under ...")
    r"|\W*(?-i:(?:[A-Z]\w* ){0,2}[A-Z]?\w*(?:Error|ERROR)|error|exception)"
    r"(?: \d+)?(?:\s*:.{0,80})?\W*",
    re.IGNORECASE | re.DOTALL,
)
# A template's slot left unfilled among an answer's words ("Hi {first_name},", "{{resolution}}"),
# a slot's name in capitals in square brackets ("[CUSTOMER_NAME]", "[INSERT ANSWER]"; not in
# angle brackets, where "<LOCK_ID>" is a command's argument),
# or a draft's marker at its start ("TODO: ...", "PLACEHOLDER - ..."): the answer was never
# written. Braces that are code are no slot: an expression (GitHub's "${{ ... }}", Jinja's
# "{{ user.name }}"), quoted, in a path ("/users/{user_id}"), or shown after a colon ("Use
# double braces: {{name}} ...").
_SLOT_BRACES = r"""(?<![${/'"`:])(?<!: )(?:\{\{ ?[a-z]+(?:_[a-z]+)* ?\}\}|\{[a-z]+(?:_[a-z]+)+\})"""
# the slot in capitals and the draft's marker, each joined to the braces by its own "|" (so
# the size script counts every alternative)
_MARKED = r"|\[[A-Z][A-Z_ ]{2,}\]|^\W*(?:TODO|TB[DC]|FIXME|PLACEHOLDER)\b"
_SLOT = re.compile(_SLOT_BRACES + r"""(?![}'"`])""" + _MARKED)
# An answer that takes up nothing of the ticket fails only when it says enough to be about
# something else: a terse answer in other words ("Twelve. See Time off in the HR portal." to
# "How many vacation days do I have left?") keeps the benefit of the doubt.
_OFF_TOPIC_WORDS = 5
# ... and so does a direct answer to a closed question (yes or no, how much, how long, when):
# "We do. Delivery takes 4-6 days.", "Only at check-in.", "£1.20 a minute."
_CLOSED_QUESTION = re.compile(
    r"^\W*(?:(?:do|does|can|is|are|will)\b[^.!?]*[?!]*$|how (?:much|many|long|often)\b|when\b)",
    re.IGNORECASE,
)
_DIRECT = re.compile(
    r"(?:^|.*[.!?,]\s)\W*(?:(?:yes|no|not|of course|only)\b|\d"
    r"|\w+ (?:do|can|are|is|will)(?: not)?\W*(?:$|[.,;!]))",
    re.IGNORECASE,
)
# ... and so does an answer in a system's own terms (a command, path, menu path, identifier,
# file name, acronym of three letters or more): "The HPA cannot read metrics. Install
# metrics-server." may answer "autoscaler never scales up" in words this judge cannot relate.
_TECHNICAL = re.compile(rf"{SYSTEM_TERMS}|\s--?\w|\b\w+\.[a-z]{{2,4}}\b|\b[A-Z]{{3,}}\d*\b")
_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KINDS = {**KINDS, "contempt": CONTEMPT, "mockery": MOCKERY, "courtesy": COURTESY}


def relevance_signal(ticket: str, response: str) -> tuple[int, str] | None:
    """The failing signal, as (score, what was found), or None: no clear evidence."""
    ticket, response = normalise(ticket), normalise(response)
    blank = PLACEHOLDER.fullmatch(response.strip()) or _SLOT.search(response)
    if blank or _keyboard_mash(response):
        shown = response.strip()[:40]
        return 1, f'empty or placeholder text ("{shown}")' if shown else "empty text"
    said = _nothing_said(ticket, response)
    if said is not None:
        return 2, said
    if said_back(ticket, response) and not spared(ticket, response):
        return 2, "nothing new: courtesy, kindness and the ticket's words, a word more at most"
    # thanks and greetings around an answer add no words of a subject of its own
    kept = [s for s in sentences(response) if not empty_sentence(s, set(), [COURTESY], 1)]
    ticket_terms, own = content_terms(ticket), content_terms(COURTESY.sub(" ", " ".join(kept)))
    own = {t for t in own if sentiment().get(t, 0.0) < 1}  # kind words name no subject
    direct = answers_closed(ticket, response)
    # (and so does one that says what was or will be done for the reader: "I have added special
    # assistance to your booking" may name none of the ticket's words)
    unrelated = not (
        shared_terms(ticket, response)
        or direct
        or _TECHNICAL.search(response)
        or ACTION.search(response)
    )
    if len(ticket_terms) >= 2 and len(own) >= _OFF_TOPIC_WORDS and unrelated:
        return (
            2,
            f"nothing related to the ticket's subject (none of its {len(ticket_terms)} subject "
            "words, nor another form of one)",
        )
    return None


def _nothing_said(ticket: str, response: str) -> str | None:
    """What a reply is when every sentence is empty (of ``_KINDS``), else None."""
    found = empty_reply(response, ticket, _KINDS.values())
    if found is None:
        return None
    named = [
        f'{kind} ("{match.group(0).strip()}")'
        for kind, pattern in _KINDS.items()
        for match in [next((m for m in found if m.re is pattern), None)]
        if match is not None
    ]
    # "Yes, that is normal while charging." to "Is it normal ...?" answers; "No idea." does not
    shrug = bool(named) and named[0].startswith("a shrug")
    if shrug and answers_closed(ticket, response) and not re.search(UNSURE, response, re.I):
        return None
    if named[0].startswith("courtesy"):
        # kindness is an answer to kindness ("Thanks, it works now!"), and to a closed
        # question a direct answer ("Yes, you are welcome to.") or one courtesy may be one
        thanked = empty_reply(ticket, "", [COURTESY]) is not None
        if thanked or _DIRECT.match(response) or len(found) < 2:
            return None
    return "nothing but " + " and ".join(named[:2])


def spared(ticket: str, response: str) -> bool:
    """What the rules know to be an answer: a direct one to a closed question, kind thanks."""
    return answers_closed(ticket, response) or empty_reply(ticket, "", [COURTESY]) is not None


# whether the ticket asks a closed question (yes or no, how much, how long, when)
def asks_closed(ticket: str) -> bool:
    return any(_CLOSED_QUESTION.match(s) for s in sentences(ticket))


def answers_closed(ticket: str, response: str) -> bool:
    """A direct answer ("Yes, ...", "No, ...", a figure) to a closed question of the ticket."""
    return asks_closed(ticket) and bool(_DIRECT.match(response))


def _keyboard_mash(text: str) -> bool:
    """One "word" typed along one row of the keyboard ("asdfgh", "qwerty"), or without a vowel."""
    token = text.strip(" .!?\n").lower()
    if len(token) < 4 or not token.isalpha():
        return False
    return any(set(token) <= set(row) for row in _KEYBOARD_ROWS) or not set(token) & set("aeiouy")
