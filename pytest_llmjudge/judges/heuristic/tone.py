"""Tone: the blatant only. Profanity, contempt for the reader, mockery and shouting each fail
an answer; every other answer, plain, terse, warm or formal, keeps the benefit of the doubt."""

from __future__ import annotations

import re

from .refusal import ACTION
from .text import normalise, profanity, sentences, sentiment, stem, stopwords, words

# A verdict on the reader: "you are so lazy", "what a silly question". The word is judged by
# the sentiment lexicon (strongly negative), not by a hand list; a state the reader is in
# ("you are frustrated", "you're worried") is empathy, not a verdict, so -ed words never count.
_VERDICT = re.compile(
    r"\byour? (?:\w+ )?(?:is|are) (?:so|being|just) (\w+)|\bwhat an? (\w+) question\b"
    # ... and a name called, last in its clause: "..., you idiot."
    r"|(?:^\W*|, )you(?: big)? (\w+)(?=\W*$|\s*[,.!?;])",
    re.IGNORECASE,
)
_COMPLAIN = r"(?:cry|complain|moan|whin)\w*"
CONTEMPT = re.compile(
    # talking down: the reader should know, or should have looked, or is a child
    r", (?:genius|mate|pal)\b|\brocket science\b|\bwhat did you expect\b|\bcan you read\?"
    r"|\b(?:like|you) (?:an? )?(?:\w+ )?(?:adult|child|baby)s?\W*$"
    # a suggestion made in sarcasm mid-sentence: "If it matters, maybe do not lose it."
    r"|\bmaybe do not\b"
    # sarcasm: "a hotel, not a palace"
    r"|\b(?:it|this|we) (?:is|are) an? (?:\w+ )?\w+, not (?:an?|your) (?:\w+ ){0,2}\w+\W*$"
    # a rule restated as its own reason ("Fees are fees"), or a matter closed
    r"|\b(\w{3,}?)s? (?:is|are) \1s?\b"
    # ... or as its own measure: "We open when we open", "It takes as long as it takes"
    r"|\b(\w{3,}) (?:when|what|as long as|however long) (?:\w+ ){1,2}\2\b"
    # blame and disowning: it is the reader's problem, never ours, and we never err
    r"|^\W*should have\b|\byour (?:own )?(?:problem|fault)\b|\bon you\W*$|\bnot us\W*$"
    r"|\bnot (?:\w+ ){0,2}?(?:my|our) (?:problem|fault|department|concern|issue|responsib\w*)\b"
    r"|\bnothing we can do(?: about it)?\W*$|\bnobody cares\b"
    r"|\bnot (?:lie|make mistakes)\b"
    # orders about the reader's own conduct and wits; the reader set against others
    r"|\b(?:(?:deal|live) with it|calm down|figure it out)\b"
    rf"|\bus\w* your (?:brain|eyes)\b|\bgrow up\b|\bstop (?:trying to|{_COMPLAIN})\b"
    rf"|\bgo (?:elsewhere|somewhere else|{_COMPLAIN})\b"
    r"|\beveryone(?: else)? manages\b|\b(?:some of us|even for you|(?:for|like) everyone else)\b",
    re.IGNORECASE,
)
# "to YOU": the reader singled out in capitals, in a text that does not shout throughout
_AT_YOU = re.compile(r"\bYOU(?:R|RSELF)?\b")
# Laughing at the reader or their problem, and a retort as a sentence of its own ("So?").
MOCKERY = re.compile(
    r"\b(?:lol|lmao|haha\w*)\b|^\W*(?:so|really|seriously|whatever|ugh|good riddance)\W*$"
    "|[\U0001f644\U0001f602\U0001f923]",  # eye roll, tears of joy, rolling on the floor
    re.IGNORECASE,
)
# ... and a sarcastic opening or an "obviously", in an answer without a figure, a step after a
# colon or an action of ours ("Maybe try restarting: hold the button for 10 seconds." suggests)
_SARCASM = re.compile(r"^\W*(?:maybe|(?:oh )?wow)\b|\bobviously\b", re.IGNORECASE)
_CODE = re.compile(r"[_;=*()`]")


def shouting(text: str) -> list[str]:
    """The words of shouted sentences: three capitalised words or more, two thirds of it, one
    a function word (acronyms never are: "DNS TTL"); code ("SELECT ... FROM") is not shouted."""
    shouted = []
    for sentence in sentences(text):
        tokens = [w for w in words(sentence) if w.isalpha()]
        capitals = [w for w in tokens if len(w) >= 2 and w.isupper()]
        small = [w for w in capitals if w.lower() in stopwords()]
        loud = len(capitals) >= 3 and 3 * len(capitals) >= 2 * len(tokens) and small
        if loud and not _CODE.search(sentence):
            shouted += capitals
    return shouted


def contempt(text: str) -> list[str]:
    """What in ``text`` looks down on the reader, sentence by sentence."""
    lexicon = sentiment()
    found = []
    for sentence in sentences(text):
        found += [m.group(0).strip() for m in CONTEMPT.finditer(sentence)]
        for match in _VERDICT.finditer(sentence):
            word = next(w for w in match.groups() if w).lower()
            question = match.group(2) is not None  # "what a silly question": any word not kind
            if (lexicon.get(word, 0.0) <= -1.5 and not word.endswith("ed")) or (
                question and lexicon.get(word, 0.0) <= 0
            ):
                found.append(match.group(0))
    return found


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
    parts = sentences(response)
    mocked = [m.group(0).strip() for s in parts for m in MOCKERY.finditer(s)]
    for i, sentence in enumerate(parts):  # a step in its sentence or the next: no sarcasm
        near = " ".join(parts[i : i + 2])
        if not (re.search(r"\d|:\s", near) or ACTION.search(near)):
            mocked += [m.group(0).strip() for m in _SARCASM.finditer(sentence)]
    for name, hits in (
        ("contempt", contempt(response) + singled_out),
        ("mockery", mocked),
        ("shouting", shouted),
    ):
        if hits:
            found.append((2, f'{name} ("{_listed(hits)}")'))
    return found


def _listed(hits: list[str], limit: int = 3) -> str:
    unique = list(dict.fromkeys(h if h.isupper() else h.lower() for h in hits))
    return ", ".join(unique[:limit]) + (", ..." if len(unique) > limit else "")
