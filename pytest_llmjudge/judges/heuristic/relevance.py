"""Relevance: what needs no understanding of meaning. Empty or placeholder text, and a
response that is only a refusal, only a pointer to support or only pleasantries, each fail;
every other response passes, whatever words it uses (word overlap with the ticket is no
evidence)."""

from __future__ import annotations

import re

from .refusal import COURTESY, DEFLECTION, REFUSAL, empty_response
from .text import normalise

# Text left where a response should be, told by its form, not by its words: only the words of a
# template ("TODO: write reply", "Answer goes here", "N/A", "-"), a template slot ("{{response}}",
# "[insert answer]", "<answer>"), lorem ipsum, or an error message ("Error 500: ...").
_TEMPLATE = (
    r"(?:[a-z]|todo|tb[dc]|x+|n/?a|nan|null|undefined|placeholder|answer|reply|response|here|"
    # a status where the response should be ("Answer pending", "Draft", "N/A - see above")
    r"goes|pending|draft|see above|no (?:reply|response|answer)(?: yet)?)"
)
PLACEHOLDER = re.compile(
    rf"\W*(?:{_TEMPLATE}\b\W*)*|.*\blorem ipsum\b.*|\W*(?:\{{\{{.*\}}\}}|\[[^\]]*\]|<[^>]*>)\W*"
    # an error's name as programs write it ("TypeError", "Internal Server Error", "ERROR 500",
    # "error: ..."), never a customer's word ("Permission error: allow access under ...")
    r"|\W*(?-i:(?:[A-Z]\w* ){0,2}[A-Z]?\w*(?:Error|ERROR)|error|exception)"
    r"(?: \d+)?(?:\s*:.{0,80})?\W*",
    re.IGNORECASE | re.DOTALL,
)
# A template's slot left unfilled among a response's words ("Hi {first_name},", "{{resolution}}"),
# a slot's name in capitals in square brackets ("[CUSTOMER_NAME]", "[INSERT ANSWER]"; not in
# angle brackets, where "<LOCK_ID>" is a command's argument), a template's own slot in square
# brackets in any case ("[Name]", "[Reply]"; "[your name]" is a step of iOS's Settings), a
# program's notice where the response should be ("Response unavailable"),
# or a draft's marker at its start ("TODO: ...", "PLACEHOLDER - ..."): the response was never
# written. Braces that are code are no slot: an expression (GitHub's "${{ ... }}", Jinja's
# "{{ user.name }}"), quoted, in a path ("/users/{user_id}"), or shown after a colon ("Use
# double braces: {{name}} ...").
_SLOT_BRACES = r"""(?<![${/'"`:])(?<!: )(?:\{\{ ?[a-z]+(?:_[a-z]+)* ?\}\}|\{[a-z]+(?:_[a-z]+)+\})"""
# the slot in capitals and the draft's marker, each joined to the braces by its own "|" (so
# the size script counts every alternative)
_MARKED = r"|\[[A-Z][A-Z_ ]{2,}\]|^\W*(?:TODO|TB[DC]|FIXME|PLACEHOLDER)\b"
_MARKED += (
    r"|(?i:\[(?:(?:customer|agent|first|last) )?(?:name|reply|response|answer|agent|topic"
    r"|signature)\]|\b(?:response|reply|answer) (?:unavailable|not available)\b)"
)
# A slot's shape among a response's words, whatever its name; a slot the reader fills in a
# command has none of these shapes ("<LOCK_ID>", "XXL", "%d/%m/%Y", "[skip ci]", "[your name]").
_NOTE = r"(?:insert|paste|copy|fill in|to ?do|tb[dc]|fixme|placeholder)\b"
# what a slot holds, named last in it: "[cancellation policy]", "[phone number]", "<return steps>"
# (one word alone only when no log format or config section uses it: "[link]", not "[date]"; and
# not the reader's own value in a command: "<your email address>")
_WHAT = (
    r"(?:policy|paragraph|text|details|info|information|steps|instructions|explanation|link|url"
    r"|number|amount|date|time|price|address|email)"
)
_SLOT_PATTERNS = (
    # a run of blanks where a value should be: "Answer: ___", "Cost = ???", "£XX.XX", "XX/XX"
    r"(?<![\w?])_{3,}(?!\w)|(?:^|(?<=[\s:=($£€]))\?{2,}(?=[\s.,;)]|$)",
    r"[$£€] ?X+(?:\.X+)?\b|\bXX?[/:.]XX(?:[/:.]X{2,4})?\b",
    # a note to the writer in brackets: "[lost property answer]", "[Insert refund policy]",
    # "<insert answer here>", "(answer to follow)"; not a link's text ("[answer](https://...)")
    rf"(?i:\[(?:{_NOTE}[^\]\n]*|[^\]\n]*\b(?:answer|reply|response)\b"
    rf"(?: (?:re|here|goes here|to follow)\b[^\]\n]*)?|to be \w+|(?!your )[^\]\n]* {_WHAT}"
    r"|policy|paragraph|explanation|link|url|instructions)\](?!\())",
    rf"(?i:<(?:insert|paste|fill in|(?:your )?(?:answer|reply|response))\b[^<>=/\n]*>"
    rf"|<(?!your )[^<>=/\n]* {_WHAT}>)",
    rf"(?i:\((?:{_NOTE}[^)\n]*|(?:answer|reply|response) (?:here|goes here|to (?:follow|come"
    r"|be \w+)|pending)\b[^)\n]*)\))",
    # a slot after a greeting ("Dear %s,", "Hi {customer},", "Hi ${first_name}"), a slot on a
    # line of its own ("{resolution}"), a label with only a marker for its value ("Reply: TBD")
    r"(?i:\b(?:hi|hello|dear|hey) (?:%s|\$?\{\{? ?\w+ ?\}?\}|<\w+>))",
    r"(?m:^\s*\{\{? ?[a-z_]+ ?\}?\}\s*$)",
    r"(?m:[:=]\s*(?:TBD|TBC|TODO|FIXME)\W*$)",
)
_SLOT = re.compile("|".join([_SLOT_BRACES + r"""(?![}'"`])""" + _MARKED, *_SLOT_PATTERNS]))
# A short response of a few words that ends in a marker ("Price list TBC", "Reply TBD")
_SHORT_MARKED = re.compile(r"\W*(?:\w+\W+){0,3}(?:TBD|TBC|TODO|FIXME)\W*")
# ... or a note to the writer alone ("Insert gardening advice here.")
_NOTE_ALONE = re.compile(
    r"\W*(?:insert|paste|add|write|put) (?:\w+ ){0,4}(?:here|below|answer|reply|response)\W*", re.I
)
# A direct response that opens with yes or no, or gives a figure: "Sorry, no.", "Thanks, yes."
_DIRECT = re.compile(r"(?:^|.*[.!?,]\s)\W*(?:(?:yes|no|not|of course|only)\b|\d)", re.IGNORECASE)
_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KINDS = {"a refusal": REFUSAL, "a pointer to support": DEFLECTION, "pleasantries": COURTESY}


def relevance_signal(ticket: str, response: str) -> tuple[int, str] | None:
    """The failing signal, as (score, what was found), or None: no clear evidence."""
    ticket, response = normalise(ticket), normalise(response)
    text = response.strip()
    blank = PLACEHOLDER.fullmatch(text) or _SLOT.search(response)
    blank = blank or _SHORT_MARKED.fullmatch(text) or _NOTE_ALONE.fullmatch(text)
    if blank or _keyboard_mash(response):
        shown = response.strip()[:40]
        return 1, f'empty or placeholder text ("{shown}")' if shown else "empty text"
    said = _nothing_said(ticket, response)
    return None if said is None else (2, said)


def _nothing_said(ticket: str, response: str) -> str | None:
    """What a response is when every sentence is empty (of ``_KINDS``), else None."""
    found = empty_response(response, ticket, _KINDS.values())
    if found is None:
        return None
    named = [
        f'{kind} ("{match.group(0).strip()}")'
        for kind, pattern in _KINDS.items()
        for match in [next((m for m in found if m.re is pattern), None)]
        if match is not None
    ]
    if found[0].re is COURTESY and all(m.re is COURTESY for m in found):
        # kindness answers kindness ("Thanks, it works now!"), and one courtesy or a yes or no
        # may be the whole response ("Sorry, no.")
        thanked = empty_response(ticket, "", [COURTESY]) is not None
        if thanked or _DIRECT.match(response) or len(found) < 2:
            return None
    return "nothing but " + " and ".join(named[:2])


def _keyboard_mash(text: str) -> bool:
    """One "word" typed along one row of the keyboard ("asdfgh", "qwerty"), or without a vowel."""
    token = text.strip(" .!?\n").lower()
    if len(token) < 4 or not token.isalpha():
        return False
    return any(set(token) <= set(row) for row in _KEYBOARD_ROWS) or not set(token) & set("aeiouy")
