"""Tone signals: the politeness strategies people notice, measured in a response.

Most follow Danescu-Niculescu-Mizil et al. (2013), "A computational approach to
politeness": gratitude, deference, greetings, apologies, "please" and where it stands,
indirect and counterfactual requests, hedges, direct questions and starts, second-person
openings; then sentiment, profanity, shouting, slang and length. Hedges are polite in a
request ("could you perhaps...") and weak in an answer ("maybe it is the network?"), so
they are counted apart.
"""

from __future__ import annotations

import math
import re

from .disrespect import dismissals, insults, without_sarcasm
from .signals import Signals, phrases, starts_with
from .steps import STEP_VERB_SET, STEP_VERBS, opens_a_step, technical_tokens
from .text import (
    STOPWORDS,
    content_terms,
    normalise,
    ordinary,
    related_groups,
    sentences,
    sentiment,
    words,
)
from .tone_words import ACRONYMS, CODE_WORDS, DOCUMENT_WORDS, PROBLEM_WORDS, TECHNICAL_WORDS

_GRATITUDE = ("thank", "thanks", "thank you", "appreciate", "appreciated", "grateful")
_DEFERENCE = (
    "great work", "good work", "nice work", "great job", "good job", "nice job", "well done",
    "impressed", "impressive", "excellent", "good point", "great point", "kudos", "brilliant",
    "awesome work", "fantastic",
)  # fmt: skip
_GREETING = ("hi", "hello", "hey", "dear", "greetings", "good morning", "good afternoon")
_APOLOGY = ("sorry", "apologize", "apologise", "apologies", "excuse me", "pardon", "forgive")
_COUNTERFACTUAL = (
    "could you", "would you", "would it be", "might you", "would you mind", "could i",
    "would it", "i was wondering", "i wonder", "would be great", "would appreciate",
)  # fmt: skip
_INDICATIVE = ("can you", "will you", "can't you", "won't you", "cant you", "wont you")
_HEDGES = (
    "perhaps", "maybe", "i think", "i believe", "i suggest", "possibly",
    "might", "seems", "i guess", "i'm not sure", "not sure", "probably", "somewhat",
)  # fmt: skip
_FACTUALITY = (
    "in fact", "actually", "the point is", "the reality is", "the truth is", "obviously",
    "clearly", "of course", "really",
)  # fmt: skip
_DIRECT_QUESTION = ("what", "why", "who", "how", "where", "huh", "seriously")
_DIRECT_START = ("so", "then", "and", "but", "or", "well")
_CONFRONTING = (
    "quit", "learn", "shut", "try reading", "calm down", "grow up", "figure", "deal with",
    "live with", "go learn", "go read",
)  # fmt: skip
# Imperatives that instruct in an answer ("Go to Settings > Email", "Stop the wuauserv
# service") and confront in a bare sentence ("Read the docs.", "Stop asking.").
_INSTRUCTING = (
    "read", "look", "go", "get", "leave", "mind", "answer", "explain", "tell me", "give me",
    "don't", "do not",
)  # fmt: skip
# "Look in spam" and "Look for the error" send the reader somewhere; "Look, ..." confronts.
_LOOK_IN = re.compile(r"\W*look (?:in|inside|under|for)\b", re.IGNORECASE)
# ... and these instruct only with a command, setting or path ("Stop the wuauserv service,
# rename C:\\Windows\\SoftwareDistribution"); with a plain object they confront.
_INSTRUCTING_WITH_CODE = ("stop", "wait")
_PROFANITY = re.compile(
    r"\b(fuck\w*|shit\w*|damn\w*|hell|bitch\w*|crap\w*|ass|asshole\w*|bastard\w*|wtf|stfu|"
    r"piss\w*|dick\w*|bullshit|idiot\w*|moron\w*|stupid\w*|dumb\w*|retard\w*|"
    r"whaddafuck)\b",
    re.IGNORECASE,
)
_SLANG = (
    "lol", "dude", "gonna", "wanna", "btw", "haha", "bro", "lmao", "omg", "kinda", "ya",
    "nope", "yep", "tbh", "u", "ur", "pls", "plz", "thx", "cuz", "dunno", "gotta", "ain't",
    "yo", "meh", "cranky", "super easy", "no worries", "gl", "oof", "yikes", "yolo", "lmfao",
    "rofl", "idk", "ngl", "smh", "hahaha", "ya know", "wing it", "nuke", "sucks", "a pain",
    "classic", "smth", "oops",
)  # fmt: skip
_SLANG_WORDS = frozenset(w for w in _SLANG if " " not in w)
# Laughing at the asker's problem ("outage credits lol") is overly casual at best.
_LAUGHTER = frozenset(("lol", "lmao", "lmfao", "rofl", "haha", "hahaha"))
# "restore from backup i guess": "I" in lower case is chat, not an answer's register
_LOWER_I = re.compile(r"(?<![\w'./-])i(?=\s+\w)(?![\w'-])")
_EMOTICON = re.compile(r"(?<!\S)[:;]-?[()DPp](?!\w)|[\U0001F300-\U0001FAFF\u2600-\u27BF]")
# "You know, it's..." fills; "companies you know" does not.
_YOU_KNOW = re.compile(r"(?:^|(?<=[,.!?]) ?)you know(?=\s*(?:[,.!?]|$))", re.IGNORECASE)
_FILLER = (
    "basically", "literally", "honestly", "kind of", "sort of",
    "as a matter of fact", "at the end of the day", "needless to say", "it is important to note",
    "it's worth noting", "in today's world", "when you think about it",
)  # fmt: skip
_WHY = re.compile(r"\bwhy\b", re.IGNORECASE)
_WE = re.compile(r"\b(we|us|our|let's)\b", re.IGNORECASE)
_YOU = re.compile(r"\b(you|your|yours|yourself|u|ur)\b", re.IGNORECASE)


def is_request(sentence: str) -> bool:
    """Whether a sentence asks the reader for something: a modal request, "please", or a
    question put to "you"."""
    if phrases(sentence, (*_COUNTERFACTUAL, *_INDICATIVE, "please")):
        return True
    return sentence.rstrip().endswith("?") and bool(_YOU.search(sentence))


def tone_signals(response: str) -> Signals:
    """The measured tone signals of a response, with the words that triggered each."""
    text = normalise(response)
    tokens = words(text)
    sents = sentences(text) or [text]
    signals = Signals()
    signals.add("gratitude", phrases(text, _GRATITUDE), cap=2)
    sincere = without_sarcasm(text)  # "...? Brilliant planning." praises nothing
    signals.add("deference", phrases(sincere, _DEFERENCE), cap=2)
    signals.add("greeting", starts_with(sents[:1], _GREETING), cap=1)
    signals.add("apology", phrases(text, _APOLOGY), cap=2)
    please = phrases(text, ("please",))
    please_first = starts_with(sents, ("please",))
    signals.add("please", please[len(please_first) :], cap=2)
    signals.add("please at the start", please_first, cap=1)
    signals.add("indirect (by the way)", phrases(text, ("by the way", "btw")), cap=1)
    signals.add("counterfactual request", phrases(text, _COUNTERFACTUAL), cap=2)
    signals.add("indicative request", phrases(text, _INDICATIVE), cap=2)
    request_hedges: list[str] = []
    answer_hedges: list[str] = []
    for sentence in sents:
        found = phrases(sentence, _HEDGES)
        (request_hedges if is_request(sentence) else answer_hedges).extend(found)
    signals.add("hedge in a request", request_hedges, cap=3)
    # One hedge is honest caution ("the key probably changes"); more is vagueness.
    signals.add("hedges in an answer", answer_hedges[1:], cap=4)
    # "Run mtr to see where packets really get lost" is a step; "Obviously your DNS is
    # broken." lectures
    emphatic = [hit for s in sents if not opens_a_step(s) for hit in phrases(s, _FACTUALITY)]
    signals.add("emphatic factuality", emphatic, cap=3)
    questions = [s for s in sents if s.rstrip().endswith("?")]
    signals.add("direct question", starts_with(questions, _DIRECT_QUESTION), cap=2)
    signals.add("questions", questions, cap=3)
    signals.add("why", [w for q in questions for w in _WHY.findall(q)], cap=2)
    signals.add("direct start", starts_with(sents[:1], _DIRECT_START), cap=1)
    # "You broke it" points at the reader; "Your token expired; ..." and "You added four
    # seats on the 12th" name what happened
    opening = starts_with(sents[:1], ("you", "your"))
    pointing = [w for w in opening if not names_a_system(sents[0], strict=w.lower() == "you")]
    signals.add("starts with you", pointing, cap=1)
    signals.add("starts with I", starts_with(sents[:1], ("i", "my")), cap=1)
    instructing = [s for s in sents if instructs(s)]
    bare = [s for s in sents if s not in instructing]
    # "Stop it, empty its data directory and start it again" is a procedure, not an order
    plain = [s for s in sents if " > " not in s and not technical_tokens(s) and not _steps(s)]
    confronting = (
        starts_with(sents, _CONFRONTING)
        + starts_with([s for s in bare if not _LOOK_IN.match(s)], _INSTRUCTING)
        + starts_with(plain, _INSTRUCTING_WITH_CODE)
    )
    signals.add("confronting imperative", confronting, cap=2)
    dismissal = dismissals(text, bare)
    signals.add("dismissal or blame", dismissal, cap=3)
    signals.add("you-words", _YOU.findall(text), cap=6)
    signals.add("we-words", _WE.findall(text), cap=3)
    lexicon = sentiment()
    instructed = {w.lower() for s in instructing for w in words(s)}
    technical = instructed & TECHNICAL_WORDS
    # "Restrict recursion", "Block port 53": a step's verb is no threat ("Restore" stays warm)
    harsh_steps = {w for w in instructed & STEP_VERB_SET if lexicon.get(w, 0.0) < 0}
    # "lol" in an answer is counted as slang, not as warmth; in a request it may be friendly
    casual = {w.lower() for s in sents if not is_request(s) for w in words(s)} & _SLANG_WORDS
    neutral = technical | harsh_steps | casual
    valences = [
        (w, 0.0 if _neutral(w) or w.lower() in neutral else lexicon.get(w.lower(), 0.0))
        for w in words(sincere)
    ]
    negative = [w for w, v in valences if v <= -1.0]
    positive = [w for w, v in valences if v >= 1.0]
    signals.add("negative words", negative, value=_bounded(-sum(v for _, v in valences if v < 0)))
    signals.add("positive words", positive, value=_bounded(sum(v for _, v in valences if v > 0)))
    signals.add("profanity", _PROFANITY.findall(text), cap=3)
    signals.add("insult", insults(text), cap=3)
    # keywords of code (SELECT, WHERE) in capitals beside a command or setting: not shouting
    code = {w for s in instructing for w in words(s) if w.lower() in CODE_WORDS}
    shouting = [
        w for w in tokens if w.isalpha() and w.isupper() and _common_word(w) and w not in code
    ]
    signals.add("shouting", shouting if len(shouting) >= 2 else [], cap=4)
    signals.add("exclamations", re.findall(r"!+", text), cap=4)
    signals.add("repeated ?!", re.findall(r"[?!]{2,}", text), cap=2)
    # Slang can be friendly in a request ("btw, could you...") and is unprofessional in an
    # answer: counted apart, as hedges are.
    in_request: list[str] = []
    in_answer: list[str] = []
    for sentence in sents:
        found = phrases(sentence, _SLANG) + _EMOTICON.findall(sentence)
        if is_request(sentence):
            in_request.extend(found)
        else:
            in_answer.extend(found + _LOWER_I.findall(sentence))
    signals.add("slang", in_request, cap=4)
    signals.add("slang in an answer", in_answer, cap=4)
    signals.add("filler", phrases(text, _FILLER) + _YOU_KNOW.findall(text), cap=4)
    # "kubectl describe pod ..." opens with a command, "just restart it" with a casual word
    casual_start = tokens and tokens[0].islower() and ordinary(tokens[0])
    signals.add("lower-case start", [tokens[0]] if casual_start else [], cap=1)
    signals.add("words", [], value=math.log1p(len(tokens)), shown=f"{len(tokens)} words")
    return signals


def ceiling(response: str, signals: Signals) -> tuple[int, str] | None:
    """The most a response's tone may score whatever else it does, and why: an answer that
    laughs at the problem is "overly casual" at best (rubric 3), however warm its words. A
    text that also asks for something is a request, where a "lol" may be friendly."""
    laughing = [w for w in signals.by_name["slang in an answer"].evidence if w.lower() in _LAUGHTER]
    if laughing and not any(is_request(s) for s in sentences(normalise(response))):
        return 3, f'at most 3: it laughs at the problem ("{laughing[0].lower()}")'
    return None


# What makes an answer talk down, shrug, joke, lecture or shout. An answer of steps with none
# of these is "professional, clear, direct" (rubric 4-5), however a word or an imperative of
# it reads to the politeness data, which learned from requests.
_UNPROFESSIONAL = (
    "insult", "dismissal or blame", "profanity", "slang", "slang in an answer", "filler",
    "shouting", "exclamations", "repeated ?!", "emphatic factuality", "questions",
    "starts with you", "lower-case start",
)  # fmt: skip


def floor(response: str, signals: Signals) -> tuple[int, str] | None:
    """The least a response's tone scores whatever its words, and why: an answer that gives
    steps in most of its sentences (or names what they act on) and shows no sign of
    disrespect is at least "mostly professional" (rubric 4). Not a request: there "please"
    and hedges decide."""
    sents = sentences(normalise(response))
    if not sents or any(is_request(s) for s in sents):
        return None
    if any(signals[name] for name in _UNPROFESSIONAL) or _negative_about_you(response, signals):
        return None
    steps = [s for s in sents if opens_a_step(s)]
    if not steps or 2 * sum(s in steps or instructs(s) for s in sents) < len(sents):
        return None
    # "Stop using and charging it now, ... Bring it to the IT desk" is a procedure; "Stop
    # clicking on shady sites." and "Go learn it." are orders
    orders = signals["confronting imperative"]
    if orders and (len(steps) < 2 or starts_with(sents, _CONFRONTING)):
        return None
    return 4, "at least 4: it gives steps and shows no sign of disrespect"


def _negative_about_you(response: str, signals: Signals) -> bool:
    """A negative word in a clause about the reader: "before you waste my time" speaks of the
    asker, "mesh points work where you can't run cables" of the office."""
    negative = {w.lower() for w in signals.by_name["negative words"].evidence}
    clauses = re.split(r"[.,;:!?]", response)
    return any(_YOU.search(c) and negative & {w.lower() for w in words(c)} for c in clauses)


def instructs(sentence: str) -> bool:
    """Whether a sentence carries an instruction's object: a command, setting, path or
    identifier, a menu path (``Settings > Security``), or a support term (``token``, ``DNS``)
    that is not itself a word of threat (``ban`` alone does not make a sentence technical)."""
    return names_a_system(sentence)


def names_a_system(sentence: str, strict: bool = False) -> bool:
    """A command, setting, path or menu path in the sentence, or a support term (two with
    ``strict``: "You added four seats on the 12th" names the account, "You broke it" does
    not). The docs are where a reader is sent, not a system: "Read the docs." confronts."""
    if " > " in sentence or technical_tokens(sentence):
        return True
    groups = related_groups()
    terms = {
        t
        for t in content_terms(sentence)
        if t in groups and t not in TECHNICAL_WORDS and t not in DOCUMENT_WORDS
    }
    return len(terms) >= (2 if strict else 1)


def _steps(sentence: str) -> bool:
    """More than one step in a sentence: a verb of a step after its first word."""
    return bool(phrases(" ".join(words(sentence)[1:]), STEP_VERBS))


def _neutral(word: str) -> bool:
    """Words whose lexicon valence says nothing of an answer's tone: a problem's name ("error",
    "attacks") and an acronym ("PO", "DMARC")."""
    lowered = word.lower()
    return (
        lowered in PROBLEM_WORDS
        or lowered.removesuffix("s") in PROBLEM_WORDS
        or (word.isupper() and len(word) > 1 and not _common_word(word))
    )


def _common_word(word: str) -> bool:
    """An ordinary English word (``READ``, ``NEVER``), not an acronym (``SPF``, ``DKIM``):
    written in capitals, the first is shouting and the second is not."""
    lowered = word.lower()
    if len(lowered) < 2 or (len(lowered) < 3 and lowered not in STOPWORDS):
        return False
    if lowered in ACRONYMS:
        return False
    return ordinary(lowered)


def _bounded(x: float) -> float:
    """Diminishing returns: the fifth strong word adds less than the first."""
    return math.log1p(x)
