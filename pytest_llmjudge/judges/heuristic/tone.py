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

from .signals import Signals, phrases, starts_with
from .text import normalise, sentences, sentiment, words

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
    "stop", "quit", "leave", "read", "look", "learn", "don't", "do not", "go", "get",
    "shut", "mind", "answer", "explain", "tell me", "give me", "try reading", "calm down",
)  # fmt: skip
_PROFANITY = re.compile(
    r"\b(fuck\w*|shit\w*|damn\w*|hell|bitch\w*|crap\w*|ass|asshole\w*|bastard\w*|wtf|stfu|"
    r"piss\w*|dick\w*|bullshit|idiot\w*|moron\w*|stupid\w*|dumb\w*|retard\w*|"
    r"whaddafuck)\b",
    re.IGNORECASE,
)
_INSULTS = (
    "rtfm", "google it", "not my problem", "figure it out", "your fault", "useless",
    "shut up", "duh", "whatever", "obviously you", "get a life", "grow up", "who the hell",
    "what the hell", "are you blind", "can't you read", "nonsense", "ridiculous", "pathetic",
)  # fmt: skip
_SLANG = (
    "lol", "dude", "gonna", "wanna", "btw", "haha", "bro", "lmao", "omg", "kinda", "ya",
    "nope", "yep", "tbh", "u", "ur", "pls", "plz", "thx", "cuz", "dunno", "gotta", "ain't",
    "yo", "meh", "cranky", "super easy", "no worries",
)  # fmt: skip
_EMOTICON = re.compile(r"(?<!\S)[:;]-?[()DPp](?!\w)|[\U0001F300-\U0001FAFF\u2600-\u27BF]")
_FILLER = (
    "basically", "literally", "honestly", "kind of", "sort of", "you know",
    "as a matter of fact", "at the end of the day", "needless to say", "it is important to note",
    "it's worth noting", "in today's world", "when you think about it",
)  # fmt: skip
# Words the sentiment lexicon scores negative that, in a support answer, name the problem
# rather than colour the tone: "the job fails with an error" is not a rude sentence.
_PROBLEM_WORDS = frozenset(
    """
    error errors fail fails failed failing failure failures crash crashes crashed reject
    rejects rejected rejecting block blocked blocks kill killed kills lost lose missing miss
    broken problem problems issue issues wrong stuck delay delayed leak leaks expired denied
    deny lower no not stop stops stopped cut avoid interrupted fault bug bugs warning fatal
    drop dropped dropping slow exhausted low limit limits risk alert alerts critical fire
    fired trouble bad disable disabled lack lacks pain hard panic attack vulnerable
    """.split()  # noqa: SIM905 - a word list reads better as text
)
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
    signals.add("deference", phrases(text, _DEFERENCE), cap=2)
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
    signals.add("emphatic factuality", phrases(text, _FACTUALITY), cap=3)
    questions = [s for s in sents if s.rstrip().endswith("?")]
    signals.add("direct question", starts_with(questions, _DIRECT_QUESTION), cap=2)
    signals.add("questions", questions, cap=3)
    signals.add("why", [w for q in questions for w in _WHY.findall(q)], cap=2)
    signals.add("direct start", starts_with(sents[:1], _DIRECT_START), cap=1)
    signals.add("starts with you", starts_with(sents[:1], ("you", "your")), cap=1)
    signals.add("starts with I", starts_with(sents[:1], ("i", "my")), cap=1)
    signals.add("confronting imperative", starts_with(sents, _CONFRONTING), cap=2)
    signals.add("you-words", _YOU.findall(text), cap=6)
    signals.add("we-words", _WE.findall(text), cap=3)
    lexicon = sentiment()
    valences = [
        (w, 0.0 if w.lower() in _PROBLEM_WORDS else lexicon.get(w.lower(), 0.0)) for w in tokens
    ]
    negative = [w for w, v in valences if v <= -1.0]
    positive = [w for w, v in valences if v >= 1.0]
    signals.add("negative words", negative, value=_bounded(-sum(v for _, v in valences if v < 0)))
    signals.add("positive words", positive, value=_bounded(sum(v for _, v in valences if v > 0)))
    signals.add("profanity", _PROFANITY.findall(text), cap=3)
    signals.add("insult", phrases(text, _INSULTS), cap=3)
    shouting = [w for w in tokens if len(w) >= 3 and w.isalpha() and w.isupper()]
    signals.add("shouting", shouting if len(shouting) >= 2 else [], cap=4)
    signals.add("exclamations", re.findall(r"!+", text), cap=4)
    signals.add("repeated ?!", re.findall(r"[?!]{2,}", text), cap=2)
    signals.add("slang", phrases(text, _SLANG) + _EMOTICON.findall(text), cap=4)
    signals.add("filler", phrases(text, _FILLER), cap=4)
    signals.add("lower-case start", [tokens[0]] if tokens and tokens[0].islower() else [], cap=1)
    signals.add("words", [], value=math.log1p(len(tokens)), shown=f"{len(tokens)} words")
    return signals


def _bounded(x: float) -> float:
    """Diminishing returns: the fifth strong word adds less than the first."""
    return math.log1p(x)
