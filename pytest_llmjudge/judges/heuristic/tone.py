"""Tone: the blatant only. Profanity, contempt for the reader, mockery and shouting each fail
an answer; every other answer, plain, terse, warm or formal, keeps the benefit of the doubt.
"""

from __future__ import annotations

import re

from .text import STOPWORDS, normalise, profanity, sentences, words

# Words that judge the reader or what they wrote: named at the reader ("you're clueless",
# "your lazy question") or as a verdict ("What a silly question.").
_INSULTS = (
    r"(?:clueless|incompetent|lazy|pathetic|ignorant|hopeless|silly|ridiculous|dumb|idiot\w*|"
    r"fool\w*|moron\w*|stupid|amateur\w*|sloppy)"
)
CONTEMPT = re.compile(
    rf"\b(?:you|you're|your|yours|what an?|how|so|such an?)\s+(?:\w+\s+){{0,2}}{_INSULTS}\b"
    rf"|\b{_INSULTS} (?:question|request|mistake|users?|people|customers?)\b"
    r"|,\s*(?:genius|einstein|sherlock|sweetheart|princess)\b"  # a mocking name for the reader
    # talking down: the answer is obvious, the reader did not look or cannot read
    r"|\b(?:obviously|clearly|evidently) (?:you|your)\b|\brtfm\b|\bduh\b"
    r"|\b(?:did|do|have|can't) you (?:even|actually|ever|really|not) (?:read|try|look|check|"
    r"bother|think|understand|see)\b|\bcan(?:'t)? you (?:not )?(?:read|see|count|spell)\?"
    r"|\b(?:as|like) (?:i|we)(?: have)? (?:already|clearly) (?:said|told you|explained|stated)\b"
    r"|\b(?:i|we)(?: have)? already (?:told|explained) (?:you|this)\b"
    r"|\blearn (?:to|how to) (?:read|use|google|search|type)\b|\bgoogle it\b"
    r"|\b(?:even a|any) (?:child|kid|toddler|monkey|five-year-old)\b"
    r"|\brocket science\b|\bcommon sense\b|\buse your (?:brain|head|eyes)\b"
    r"|\b(?:everyone|everybody) else (?:\w+ )?(?:manages|copes|can|does|gets|understands)\b"
    r"|\blike (?:everyone|everybody) else\b"
    # it is the reader's fault, never ours
    r"|\b(?:your|you're) (?:own )?fault\b|\bthat's on you\b"
    r"|\byou (?:probably|must have|obviously|clearly) (?:misread|misunderstood|mistyped|"
    r"messed up|broke)\b"
    r"|\byou should (?:have|'ve) (?:known|read|checked|listened|thought)\b"
    r"|(?:^|[.!?]\s+)should(?:'ve| have)\b"  # a verdict without a subject
    r"|\b(?:doesn't|don't|does not|do not|never) (?:make (?:mistakes|errors)|lie|"
    r"get (?:it|things|this) wrong)\b"
    # waving the reader away
    r"|\b(?:not|isn't|is not|aren't|are not) (?:my|our) (?:problem|fault|job|concern|"
    r"responsibility|department|business)\b|\bnothing to do with (?:us|me)\b|\bnot (?:us|me)[.!]"
    r"|\b(?:we're|we are|i'm|i am) not (?:here to|your)\b"
    r"|\bfigure (?:it|this|that) out\b|\b(?:deal|live) with it\b|\bget over it\b"
    r"|\b(?:toughen|grow|man|lighten) up\b|\bcalm down\b|\bget a grip\b"
    r"|\byou(?:'ll| will)? just have to\b|\bjoin the queue\b"
    r"|\b(?:stop|quit) (?:asking|complaining|whining|bothering|wasting|nagging)\b"
    r"|\bwast(?:e|ing) (?:my|our) time\b|\bwhat did you expect\b|\bhow hard (?:can|is) it\b"
    r"|\bgood luck with that\b|\bnice try\b|\bpay attention\b|^\W*whatever\W*$",
    re.IGNORECASE,
)
# "to YOU": the reader singled out in capitals, in a text that does not shout throughout
_AT_YOU = re.compile(r"\bYOU(?:R|'RE|RSELF)?\b")
# Laughing at the reader or their problem.
MOCKERY = re.compile(
    r"\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*)\b|\byeah,? right\b|\b(?:seriously|really)\?"
    "|\U0001f644|\U0001f602|\U0001f923|\U0001f606",  # eye roll, tears of joy, rolling, grin
    re.IGNORECASE,
)
_CODE = re.compile(r"[_;=*()`]")
# Short function words, in capitals only when a sentence is shouted ("YOU DO NOT HAVE TO").
_SMALL_WORDS = frozenset("is it to do no of in on be my me so or at an we if us up".split())  # noqa: SIM905


def shouting(text: str) -> list[str]:
    """The words of shouted sentences: three capitalised words or more, two thirds of the
    sentence, one of them a function word (acronyms never are: "DNS TTL", "PIN"). Code is
    not shouted: a sentence with ``_ ; = * ( )`` is SQL or a command ("SELECT ... FROM")."""
    shouted = []
    for sentence in sentences(text):
        tokens = [w for w in words(sentence) if w.isalpha()]
        capitals = [w for w in tokens if len(w) >= 2 and w.isupper()]
        small = [w for w in capitals if w.lower() in STOPWORDS or w.lower() in _SMALL_WORDS]
        loud = len(capitals) >= 3 and 3 * len(capitals) >= 2 * len(tokens) and small
        if loud and not _CODE.search(sentence):
            shouted += capitals
    return shouted


def tone_signals(response: str) -> list[tuple[int, str]]:
    """Each failing signal as (the most the tone may score, what was found)."""
    response = normalise(response)
    found: list[tuple[int, str]] = []
    swearing = profanity()
    swore = [w for w in words(response) if w.lower() in swearing]
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
