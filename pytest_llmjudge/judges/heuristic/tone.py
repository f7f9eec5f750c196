"""Tone: the blatant only. Profanity, contempt for the reader, mockery and shouting each fail
an answer; every other answer, plain, terse, warm or formal, keeps the benefit of the doubt.
"""

from __future__ import annotations

import re

from .text import STOPWORDS, normalise, profanity, words

# Words that judge the reader or what they wrote: named at the reader ("you're clueless",
# "your lazy question") or as a verdict ("What a silly question.").
_INSULTS = (
    r"(?:clueless|incompetent|lazy|pathetic|ignorant|hopeless|silly|ridiculous|dumb|idiot\w*|"
    r"fool\w*|moron\w*|stupid|amateur\w*|sloppy)"
)
CONTEMPT = re.compile(
    rf"\b(?:you|you're|your|yours|what an?|how|so|such an?)\s+(?:\w+\s+){{0,2}}{_INSULTS}\b"
    rf"|\b{_INSULTS} (?:question|request|mistake|users?|people|customers?)\b"
    # talking down: the answer is obvious, the reader did not look, it is their fault
    r"|\b(?:obviously|clearly|evidently) (?:you|your)\b|\brtfm\b|\bduh\b"
    r"|\b(?:did|do|have|can't) you (?:even|actually|ever|really|not) (?:read|try|look|check|"
    r"bother|think|understand|see)\b"
    r"|\b(?:as|like) (?:i|we)(?: have)? (?:already|clearly) (?:said|told you|explained|stated)\b"
    r"|\b(?:i|we)(?: have)? already (?:told|explained) (?:you|this)\b"
    r"|\blearn (?:to|how to) (?:read|use|google|search|type)\b|\bgoogle it\b"
    r"|\b(?:even a|any) (?:child|kid|toddler|monkey|five-year-old)\b"
    r"|\bnot (?:rocket science|that hard|hard)\b|\bcommon sense\b|\buse your (?:brain|head|eyes)\b"
    # waving the reader away
    r"|\bfigure (?:it|this|that) out\b|\bdeal with it\b|\bget over it\b|\blive with it\b"
    r"|\bnot (?:my|our) (?:problem|fault|job|concern)\b|\b(?:your|you're) (?:own )?fault\b"
    r"|\byou should (?:have|'ve) (?:known|read|checked|listened|thought)\b"
    r"|\b(?:stop|quit) (?:asking|complaining|whining|bothering|wasting|nagging)\b"
    r"|\bwast(?:e|ing) (?:my|our) time\b|\bwhat did you expect\b|\bhow hard (?:can|is) it\b"
    r"|\bgood luck with that\b|\bnice try\b|\bpay attention\b|^\W*whatever\W*$",
    re.IGNORECASE,
)
# Laughing at the reader or their problem.
MOCKERY = re.compile(
    r"\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*)\b|\byeah,? right\b|\b(?:seriously|really)\?"
    "|\U0001f644|\U0001f602|\U0001f923|\U0001f606",  # eye roll, tears of joy, rolling, grin
    re.IGNORECASE,
)
# Short function words, in capitals only when a sentence is shouted ("YOU DO NOT HAVE TO").
_SMALL_WORDS = frozenset("is it to do no of in on be my me so or at an we if".split())  # noqa: SIM905


def shouting(text: str) -> list[str]:
    """Words in capitals that shout: three or more, two of them function words (acronyms
    never are: "DNS", "PIN", "HR"), or capitals for half of a text of four capital words."""
    tokens = [w for w in words(text) if w.isalpha()]
    capitals = [w for w in tokens if len(w) >= 2 and w.isupper()]
    small = [w for w in capitals if w.lower() in STOPWORDS or w.lower() in _SMALL_WORDS]
    if (len(capitals) >= 3 and len(small) >= 2) or (
        len(capitals) >= 4 and 2 * len(capitals) >= len(tokens)
    ):
        return capitals
    return []


def tone_signals(response: str) -> list[tuple[int, str]]:
    """Each failing signal as (the most the tone may score, what was found)."""
    response = normalise(response)
    found: list[tuple[int, str]] = []
    swearing = profanity()
    swore = [w for w in words(response) if w.lower() in swearing]
    if swore:
        found.append((1, f'profanity ("{_listed(swore)}")'))
    for score, name, pattern in ((2, "contempt", CONTEMPT), (2, "mockery", MOCKERY)):
        hits = [m.group(0).strip() for m in pattern.finditer(response)]
        if hits:
            found.append((score, f'{name} ("{_listed(hits)}")'))
    shouted = shouting(response)
    if shouted:
        found.append((2, f'shouting ("{_listed(shouted)}")'))
    return found


def _listed(hits: list[str], limit: int = 3) -> str:
    unique = list(dict.fromkeys(h.lower() for h in hits))
    return ", ".join(unique[:limit]) + (", ..." if len(unique) > limit else "")
