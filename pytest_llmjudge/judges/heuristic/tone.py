"""Tone: the blatant only. Profanity, contempt for the reader, mockery and shouting each fail
an answer; every other answer, plain, terse, warm or formal, keeps the benefit of the doubt.
"""

from __future__ import annotations

import re

from .text import normalise, profanity, sentences, stem, stopwords, words

# Words that judge the reader or what they wrote: said of the reader ("you are clueless",
# "your lazy question") or as a verdict ("What a silly question.").
_INSULTS = r"(?:clueless|incompetent|lazy|pathetic|ignorant|silly|dumb|idiot\w*|fool\w*)"
CONTEMPT = re.compile(
    rf"\b(?:you|your|what an?|how|so)\s+(?:\w+\s+){{0,2}}{_INSULTS}\b"
    r"|,\s*(?:genius|einstein|sherlock)\b"  # a mocking name for the reader
    # talking down: the answer is obvious, the reader did not look or cannot read
    r"|\bobviously you\b|\brtfm\b|\bduh\b|\bcan you (?:not )?read\?"
    r"|\b(?:did|do) you (?:even|ever|not) (?:read|try|look|check)\b"
    r"|\b(?:i|we) already (?:said|told)\b"
    r"|\brocket science\b|\bcommon sense\b"
    r"|\beveryone else (?:manages|copes|gets it)\b|\blike everyone else\b"
    # it is the reader's fault, never ours
    r"|\byour (?:own )?fault\b|\bon you[.!]|(?:^|[.!?]\s+)should have\b"
    r"|\byou (?:probably|must have) (?:misread|misunderstood|messed up|broke)\b"
    r"|\b(?:not|never) (?:make mistakes|lie|get it wrong)\b"
    # waving the reader away
    r"|\bnot (?:my|our) (?:problem|fault|job|responsibility)\b|\bnothing to do with us\b"
    r"|\bnot us[.!]|\b(?:we are|i am) not (?:here to|your)\b|\bfigure (?:it|this) out\b"
    r"|\b(?:deal|live) with it\b|\b(?:toughen|grow) up\b|\bcalm down\b|\bjust have to\b"
    r"|\bjoin the queue\b|\bstop (?:asking|complaining|whining)\b|\bwast\w+ (?:my|our) time\b"
    r"|\bgood luck with that\b|^\W*whatever\W*$",
    re.IGNORECASE,
)
# "to YOU": the reader singled out in capitals, in a text that does not shout throughout
_AT_YOU = re.compile(r"\bYOU(?:R|RSELF)?\b")
# Laughing at the reader or their problem.
MOCKERY = re.compile(
    r"\b(?:lol|lmao|rofl|haha\w*)\b|\byeah,? right\b|\bseriously\?"
    "|\U0001f644|\U0001f602|\U0001f923",  # eye roll, tears of joy, rolling on the floor
    re.IGNORECASE,
)
_CODE = re.compile(r"[_;=*()`]")


def shouting(text: str) -> list[str]:
    """The words of shouted sentences: three capitalised words or more, two thirds of the
    sentence, one of them a function word (acronyms never are: "DNS TTL", "PIN"). Code is
    not shouted: a sentence with ``_ ; = * ( )`` is SQL or a command ("SELECT ... FROM")."""
    shouted = []
    for sentence in sentences(text):
        tokens = [w for w in words(sentence) if w.isalpha()]
        capitals = [w for w in tokens if len(w) >= 2 and w.isupper()]
        small = [w for w in capitals if w.lower() in stopwords()]
        loud = len(capitals) >= 3 and 3 * len(capitals) >= 2 * len(tokens) and small
        if loud and not _CODE.search(sentence):
            shouted += capitals
    return shouted


def tone_signals(response: str) -> list[tuple[int, str]]:
    """Each failing signal as (the most the tone may score, what was found)."""
    response = normalise(response)
    found: list[tuple[int, str]] = []
    swearing = profanity()
    swore = [w for w in words(response) if w.lower() in swearing or stem(w) in swearing]
    if swore:
        found.append((1, f'profanity ("{_listed(swore)}")'))
    shouted = shouting(response)
    singled_out: list[str] = [] if shouted else _AT_YOU.findall(response)
    signals: tuple[tuple[str, re.Pattern[str] | None, list[str]], ...] = (
        ("contempt", CONTEMPT, singled_out),
        ("mockery", MOCKERY, []),
        ("shouting", None, shouted),
    )
    for name, pattern, extra in signals:
        hits = [m.group(0).strip() for m in pattern.finditer(response)] if pattern else []
        if hits + extra:
            found.append((2, f'{name} ("{_listed(hits + extra)}")'))
    return found


def _listed(hits: list[str], limit: int = 3) -> str:
    unique = list(dict.fromkeys(h if h.isupper() else h.lower() for h in hits))
    return ", ".join(unique[:limit]) + (", ..." if len(unique) > limit else "")
