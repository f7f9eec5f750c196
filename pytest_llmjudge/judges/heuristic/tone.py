"""Tone: profanity, an insult aimed at the reader and shouting each fail an answer; every other
answer, plain, terse, warm, formal or blunt, passes. Both word lists are vendored lexicons
(``data/README.md``), not lists of this project's; the phrases of contempt below are."""

from __future__ import annotations

import re

from .text import (
    listed_profanity,
    normalise,
    profanity,
    sentences,
    sentiment,
    stem,
    stopwords,
    words,
)

# A word said of the reader: "you idiot", "you are so stupid", "you are pathetic", "what a dumb
# question", "are you blind?", "your spelling is just terrible", "..., moron.", or said as a
# sentence of its own ("Pathetic."). The word is an insult when a lexicon holds it: the
# profanity list, or strongly negative in the sentiment lexicon (-1.5 or less; -2 or less for a
# word alone). A state the reader is in ("you are frustrated") is empathy, never an insult, so
# -ed words never count, nor adverbs (", sadly."), nor -ing forms ("you are missing").
_AT_READER = re.compile(
    r"(?:^\W*|, |\b(?:thanks|thank you|oh|ok|okay|yes|no)\W* )you"
    r"(?: big| little| absolute| complete| total)? (\w+)(?=\W*$|\s*[,.!?;])"
    r"|\byou are (?:(?:so|such|just|being|really|an?|complete|total|absolute) )*(\w+)"
    r"(?=\W*$|\s*[,.!?;])|\byou are (?:so|such|just|being|really|an?) (\w+)"
    r"|\bare you (?:\w+ )?(\w+)\?|\bwhat an? (\w+) question\b"
    r"|\byour (?:\w+ )?(?:is|are) (?:so|just|really) (\w+)|, (\w+)\W*$",
    re.IGNORECASE,
)
# "I understand why you are upset", "sorry that you are unhappy": said with the reader
_EMPATHY = re.compile(
    r"\b(?:why|that|if|when|understand|know|see|sorry|hear|feel|sense)\W*$", re.IGNORECASE
)
_ALONE = re.compile(r"^\W*(\w+)\W*$")
_INSULT = -1.5  # the lexicon's valence (-4..4) at or below which a word said of the reader is one
_INSULT_ALONE = -2.0  # ... and a word said alone ("Pathetic.", not "No.")
_CODE = re.compile(r"[_;=*()`]")
# Condescension aimed at the reader in words no lexicon rates as insults ("Did you even read
# the error?", "..., genius."): a short hand-written list of general phrases of contempt, of no
# one domain, matched in a sentence after contractions are written out ("can't" is "can not").
# Each is said to the reader, never of a thing, so a blunt or terse answer stays clear of it.
_CONTEMPT_PATTERNS = (
    r"\bdid you (?:even|actually|really) (?:read|look|check|try|open|think)\b",
    r"\b(?:can not|cannot) you (?:read|see|count)\?|\bcan you not (?:read|see|count)\?",
    r"\b(?:half a|a single) brain\b|\buse your (?:brain|head|eyes)\b|\bget a clue\b",
    r"\b(?:maybe|just|go|try to|you need to) learn (?:how )?to (?:read|count|spell)\b",
    r"\blike an? grown-?up\b|^\W*grow up\b|\bfor once(?: in your life)?\W*$",
    r", (?:genius|einstein|sherlock|snowflake)\W*$",
    r"\bdo you need (?:a picture|me to draw)\b|\bdo i (?:have|need) to (?:draw|spell it out)\b",
    r"^\W*(?:just |so )?(?:stop|quit) (?:whining|whinging|moaning|complaining)\b",
    r"\bclueless\b|\bnot (?:exactly )?(?:rocket science|brain surgery)\b",
    r"(?:^\W*|\b(?:is|just|basic|use (?:some|your)) )common sense\b",
    r"\bhow hard (?:is it|can it be)\b|\bis (?:that|it) (?:really )?(?:so|that) hard\b",
    r"\b(?:could|can not|cannot) be bothered to\b|\bif you (?:had )?(?:even )?bothered to\b",
    r"\byou (?:should|ought to) (?:have known|know) better\b|\breading is (?:hard|difficult)\b",
)
_CONTEMPT = re.compile("|".join(_CONTEMPT_PATTERNS), re.IGNORECASE)


def insults(text: str) -> list[str]:
    """The words in ``text`` said of the reader that a lexicon holds as insults, and the
    phrases of contempt said to the reader."""
    found = []
    for i, sentence in enumerate(sentences(text)):
        for match in _AT_READER.finditer(sentence):
            word = next(w for w in match.groups() if w)
            if _insult(word, _INSULT) and not _EMPATHY.search(sentence[: match.start()]):
                found.append(match.group(0).strip(" ,"))
        # a word alone after what was said ("Pathetic."); first, it may be a verdict ("Scam.")
        alone = _ALONE.match(sentence) if i else None
        if alone and _insult(alone.group(1), _INSULT_ALONE):
            found.append(alone.group(1))
        found += [m.group(0).strip(" ,.!?") for m in _CONTEMPT.finditer(sentence)]
    return found


def _insult(word: str, valence: float) -> bool:
    word = word.lower()
    if word.endswith(("ed", "ly", "ing")):
        return False
    return sentiment().get(word, 0.0) <= valence or word in listed_profanity()


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


def tone_signals(response: str) -> list[tuple[int, str]]:
    """Each failing signal as (the most the tone may score, what was found)."""
    response = normalise(response)
    found: list[tuple[int, str]] = []
    swearing = profanity()
    swore = [w for w in words(response) if w.lower() in swearing or stem(w) in swearing]
    if swore:
        found.append((1, f'profanity ("{_listed(swore)}")'))
    for name, hits in (("an insult", insults(response)), ("shouting", shouting(response))):
        if hits:
            found.append((2, f'{name} ("{_listed(hits)}")'))
    return found


def _listed(hits: list[str], limit: int = 3) -> str:
    unique = list(dict.fromkeys(h if h.isupper() else h.lower() for h in hits))
    return ", ".join(unique[:limit]) + (", ..." if len(unique) > limit else "")
