"""Tone: profanity, an insult aimed at the reader and shouting each fail a response; every other
response, plain, terse, warm, formal or blunt, passes. The word lists are vendored lexicons
(``data/README.md``); the project's own, below, are phrases of contempt said to the reader, a
few names for a fool and swear words the lexicons lack, and words for how the reader feels
(never an insult)."""

from __future__ import annotations

import re

from .text import (
    listed_profanity,
    masked_profanity,
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
# how much of it: "you are so ...", "you are clearly a ...", "you are being ..."
_DEGREE = (
    r"(?:so|such|just|being|really|clearly|obviously|completely|totally|utterly|an?|complete"
    r"|total|absolute|a bit|bit|quite|pretty|rather|very|incredibly|seriously|truly|too)"
)
_AT_READER = re.compile(
    r"(?:^\W*|, |\b(?:thanks|thank you|oh|ok|okay|yes|no)\W* )you"
    r"(?: big| little| absolute| complete| total)? (\w+)(?=\W*$|\s*[,.!?;])"
    rf"|\byou are (?:{_DEGREE} )*(\w+)(?=\W*$|\s*[,.!?;])|\byou are (?:{_DEGREE} )+(\w+)"
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
_INSULT_STRESSED = -1.1  # ... when "so", "just", "being" stress it ("you are being impatient")
_INSULT_ALONE = -2.0  # ... and a word said alone ("Pathetic.", not "No.")
_CODE = re.compile(r"[_;=*()`]")
# How the reader feels or is: said with them, never an insult ("you are so upset", "if you are
# very ill"), as -ed words are
_STATES = {"upset", "sad", "anxious", "nervous", "ill", "sick", "lonely", "unhappy", "angry"}
_STATES |= {"furious", "heartbroken", "distraught", "miserable", "desperate", "hurt", "unsure"}
_STATES |= {"uncomfortable", "alone", "stuck", "vulnerable", "mad", "livid", "afraid", "unwell"}
# Names for a fool that neither lexicon holds, said of the reader as the words above are
_UNRATED_INSULTS = {"muppet", "numpty", "dumbo", "dimwit", "nitwit", "halfwit", "twit", "plonker"}
_UNRATED_INSULTS |= {"pillock", "prat", "doofus", "bozo"}
# Condescension aimed at the reader in words no lexicon rates as insults ("Did you even read
# the error?", "..., genius."): a hand-written list of general phrases of contempt, of no
# one domain, matched in a sentence after contractions are written out ("can't" is "can not").
# Each is said to the reader, never of a thing, so a blunt or terse response stays clear of it.
_CONTEMPT_PATTERNS = (
    r"\b(?:did|have) you (?:actually|really) (?:read|look|check|try|open|think)\b",
    r"\b(?:did|have|were|are) you even\b|\bdo you even (?:know|understand|read|listen|care)\b",
    r"\bdo you (?:even |actually |really )?(?:understand|know|realise|realize|get)\b.*\bat all\?",
    r"\b(?:can not|cannot) you (?:read|see|count)\?|\bcan you not (?:read|see|count)\?",
    r"\byou (?:clearly|obviously) (?:can not|did not|do not|have not|never)"
    r" (?:even )?(?:read|look|check|listen|understand|follow|bother|pay attention)\b",
    r"\byou (?:clearly|obviously) (?:ignored|missed|skipped|forgot|overlooked)\b",
    r"\bwhat (?:kind|sort) of (?:person|people|owner|parent|adult|human) (?:\w+s|would|does|can)\b",
    r"\banyone who\b[^.?!]{0,30}\b(?:read|look|check|bother)\w*\b[^.?!]{0,30}\bwould "
    r"(?:know|have known)\b|\beven an? (?:\w+ )?\w+ (?:knows|would know)\b",
    r"\bnot (?:a )?(?:miracle workers?|mind readers?)\b"
    r"|\b(?:can not|cannot) believe (?:i|we) (?:have|need) to\b",
    r"^\W*be (?:sensible|reasonable|realistic)\b",
    r"\bnobody wants (?:your|to deal)\b",
    # a rhetorical question: "Maybe read the manual?", "Did you think it would fit?", "Have you
    # tried not ...?", "Do you think we just ...?" (none in over 5,000 correct dev responses); a
    # hedge or a suggestion is no contempt ("Maybe it is the cable?", "Maybe try the app?")
    r"^\W*maybe (?:just )?(?:read|learn|stop|keep|plan|think|pay attention|remember|do not|hire"
    r"|use your|stick to|grow up|open your eyes)\b[^?]*\?\W*$",
    r"\bdid you (?:really |honestly |seriously )(?:think|expect)\b|\bdid you think (?:it|that|this"
    r"|we|they|you) (?:would|was|were)\b",
    r"\bhave you (?:even )?tried (?:not|actually|using your (?:brain|eyes|head)|thinking)\b",
    r"\bdo you (?:really |honestly |seriously )?think (?:we|i)\b(?! (?:could|might))",
    r"\byou can not even (?:read|count|spell|follow)\b",
    r"\bare you (?:really |seriously |honestly |always |actually )?(?:this|that) \w+\?",
    r"\b(?:are you|you are|you seem) (?:\w+ )?(?:allergic to|incapable of)\b|\byou people\b",
    # a trait the lexicons do not rate, said of the reader ("you are a bit slow", "are you thick?")
    rf"\b(?:you are|are you) (?:{_DEGREE} )*(?:slow|dense|thick|daft|dim|brainless|dramatic"
    r"|unreasonable|clumsy|inept|immature|silly)(?=\W*$|\s*[,.!?;]|\s+(?:and|or|to|at|for)\b)",
    r"\b(?:what|such|that is|this is) an? (?:\w+ )?(?:stupid|silly|dumb|ridiculous|pointless)"
    r" question\b|\bwhat part of\b.*\b(?:do|did) you not (?:understand|get)\b",
    r"\beven you (?:can|could|should)\b|\bare you (?:kidding|joking)"
    r"\b|\bare you serious\?|\byou had one job\b|\bbless your (?:little )?heart\b",
    r"\b(?:explain|say|spell) (?:it|this|that) (?:out )?(?:very )?slowly\b|\bspell it out for "
    r"you\b|\bi do not have time for (?:this|you)\b|\bwaste of (?:my|our) time\b",
    r"\bengage your brain\b|\byour (?:little|tiny|small) (?:brain|mind|head)\b|\bget your act "
    r"together\b|\bhow do you (?:even )?function\b|\b(?:this|that) is basic\W*$",
    r"\b(?:half a|a single) brain\b|\bus(?:e|ing) your (?:brain|head|eyes)\b|\bget a clue\b",
    r"(?:^\W*|\b(?:maybe|just|go|try to|please|you (?:need|should|ought) to) )learn (?:how )?to "
    r"(?:read|count|spell|plan|listen|follow|order|book|google|think|pay attention)\b",
    r"\blike (?:an? (?:grown-?up|adult|normal person|toddler|child|baby|caveman)|everyone else)"
    r"(?=\W*$|\s*[,.!?;]|\s+(?:and|or|for|then|does|did)\b)",
    r"\bliterally (?:says|tells you|written|the first thing)\b|^\W*obviously\b",
    r"^\W*grow up\b|\bfor once(?: in your life)?\W*$",
    # said to the reader by a name for them: "..., genius.", "Sweetie, ...", "Genius."
    r"(?:, |^\W*)(?:genius|einstein|sherlock|snowflake|sweetie|sweetheart|darling|princess|kiddo"
    r"|champ|buttercup)\W*$|^\W*(?:sweetie|sweetheart|darling|princess|kiddo),",
    r"\bdo you need (?:a picture|me to draw)\b|\bdo i (?:have|need) to (?:draw|spell it out)\b",
    r"(?:^\W*|[,;:] |\b(?:just|so|and|now|please) )(?:stop|quit) (?:whining|whinging|moaning"
    r"|complaining|nagging)\b",
    r"\bclueless\b|\bnot (?:exactly )?(?:rocket science|brain surgery)\b",
    r"(?:^\W*|\b(?:is|just|basic|use (?:some|your)) )common sense\b",
    r"\bhow hard (?:is it|can it be)\b|\bis (?:that|it) (?:really )?(?:so|that) hard\b",
    r"\bis (?:that|this|it|reading|counting) too (?:hard|difficult|complicated|much) for you\?"
    r"|\bhow many times (?:do|must|have|will) (?:i|we)\b",
    r"\b(?:could|can not|cannot) be bothered to\b|\bif you (?:had )?(?:even )?bothered to\b",
    r"\byou (?:should|ought to) (?:have known|know) better\b|\breading is (?:hard|difficult)\b",
    r"\bwhat (?:did|do) you expect\b|\bwhat were you thinking\b|\bnobody cares\b",
    r"\b(?:even a (?:child|toddler|monkey)|any (?:idiot|fool|monkey)) (?:could|can|would)\b",
    r"\b(?:figure|work|sort) (?:it|this|that)(?: one)? out (?:yourself|for yourself|on your own)\b"
    r"|\b(?:just )?google it\b|\bi am not your (?:mum|mom|mother|babysitter|nanny|servant)\b",
    r"\bnot (?:my|our) problem\b|(?<!if )\b(?:that|this|it) is (?:all |entirely )?your "
    r"(?:own )?(?:problem|fault)\b|^\W*(?:deal with it|tough luck|too bad)\W*$",
    r"^\W*seriously\?",
)
_CONTEMPT = re.compile("|".join(_CONTEMPT_PATTERNS), re.IGNORECASE)
# A word of scorn as a sentence of its own after what was said ("Typical.", "Genius."; first, a
# terse response may be "Simple." or "Classic.")
_SCORN = re.compile(
    r"^\W*(?:typical|seriously|shocking|unbelievable|incredible|priceless|classic|duh|honestly"
    r"|please|adorable|simple)(?:\.|\?|\.\.\.)?\s*$",
    re.IGNORECASE,
)


def insults(text: str) -> list[str]:
    """The words in ``text`` said of the reader that a lexicon holds as insults, and the
    phrases of contempt said to the reader."""
    found = []
    for i, sentence in enumerate(sentences(text)):
        for match in _AT_READER.finditer(sentence):
            word = next(w for w in match.groups() if w)
            stressed = match.group(3) or (match.group(2) and match.group(0).count(" ") > 2)
            valence = _INSULT_STRESSED if stressed else _INSULT
            if _insult(word, valence) and not _EMPATHY.search(sentence[: match.start()]):
                found.append(match.group(0).strip(" ,"))
        # a word alone after what was said ("Pathetic."); first, it may be a verdict ("Scam.")
        alone = _ALONE.match(sentence) if i else None
        if alone and _insult(alone.group(1), _INSULT_ALONE):
            found.append(alone.group(1))
        found += [m.group(0).strip(" ,.!?") for m in _CONTEMPT.finditer(sentence)]
        found += [m.group(0).strip(" .?") for m in _SCORN.finditer(sentence) if i]
    return found


def _insult(word: str, valence: float) -> bool:
    word = word.lower()
    if word.endswith(("ed", "ly", "ing")) or word in _STATES:
        return False
    rated = sentiment().get(word, 0.0) <= valence
    return rated or word in listed_profanity() or word in _UNRATED_INSULTS


def shouting(text: str) -> list[str]:
    """The words of a shouted response or sentence: three capitalised words or more, two thirds of
    its words, one a function word (acronyms never are: "DNS TTL"); code ("SELECT ... FROM") is
    not shouted. Read as written ("DON'T" is one capitalised word, "OPEN PORT 80!!!! THAT'S
    ALL!!" one shouted response)."""
    shouted = []
    for part in [text, *sentences(text)]:
        tokens = [w for w in words(part) if w.replace("'", "").isalpha()]
        capitals = [w for w in tokens if len(w) >= 2 and w.isupper()]
        small = [w for w in capitals if w.lower() in stopwords()]
        loud = len(capitals) >= 3 and 3 * len(capitals) >= 2 * len(tokens) and small
        if loud and not _CODE.search(part):
            shouted += capitals
    return shouted


# A compound of the two commonest swear words that no list holds ("shitshow", "clusterfuck"),
# and swearing whose words are a topic's elsewhere ("screw you", "this sucks", not "it sucks
# water in")
_SWEAR_PART = re.compile(r"^(?:fuck|shit)(?!ake)|(?:fuck|shit)$", re.IGNORECASE)
_SWEARING = re.compile(r"\bscrew you\b|\b(?:this|that|it) (?:really )?sucks\b(?!\s+\w)", re.I)


def tone_signals(response: str) -> list[tuple[int, str]]:
    """Each failing signal as (the most the tone may score, what was found)."""
    written, response = response, normalise(response)
    found: list[tuple[int, str]] = []
    swearing = profanity()
    swore = [
        w
        for w in words(response)
        if w.lower() in swearing or stem(w) in swearing or _SWEAR_PART.search(w)
    ]
    swore += masked_profanity(response) + _SWEARING.findall(response)
    if swore:
        found.append((1, f'profanity ("{_listed(swore)}")'))
    for name, hits in (("an insult", insults(response)), ("shouting", shouting(written))):
        if hits:
            found.append((2, f'{name} ("{_listed(hits)}")'))
    return found


def _listed(hits: list[str], limit: int = 3) -> str:
    unique = list(dict.fromkeys(h if h.isupper() else h.lower() for h in hits))
    return ", ".join(unique[:limit]) + (", ..." if len(unique) > limit else "")
