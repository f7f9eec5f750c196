"""Words, sentences and the tables the offline judge reads, shipped as data (``data/README.md``:
VADER's lexicon, better-profanity's list, stop-words), loaded once on first use."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'\-./@]*[A-Za-z0-9]|[A-Za-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# A system's own terms: a path or menu path, an identifier, code or a camelCase name
# ("Settings > Billing", "MAX_CONNECTIONS", "`kubectl get pods`", "iCloud").
SYSTEM_TERMS = r"\w/\w|\s>\s|\u2192|\b\w+_\w+\b|`|\b[a-z]+[A-Z]\w*"
# Something only a response that says something has: a figure, an address, a quoted label or
# a system's own term ("support@shop.com", "'Card settings'").
SPECIFIC = re.compile(rf"\d|@|https?://|[\"'][^\"']{{2,40}}[\"']|{SYSTEM_TERMS}")
_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
# Contractions written out, so that a pattern names one form: "we'll" is "we will".
# ("it's" is "it is"; other words' "'s" is a possessive, "the shop's")
_CONTRACTION = re.compile(r"\b(\w+?)n't\b|'(re|m|ll|ve|d)\b|\b(it|that)'s\b", re.IGNORECASE)
_FULL = {"re": " are", "m": " am", "ll": " will", "ve": " have", "d": " would"}


def normalise(text: str) -> str:
    """Plain quotes for typographic ones, contractions written out ("don\u2019t" is "do not")."""
    return _CONTRACTION.sub(_written_out, text.translate(_TYPOGRAPHIC))


def _written_out(match: re.Match[str]) -> str:
    if match.group(3) is not None:
        return match.group(3) + " is"
    if match.group(1) is None:
        return _FULL[match.group(2).lower()]
    return {"ca": "can", "wo": "will"}.get(match.group(1).lower(), match.group(1)) + " not"


def words(text: str) -> list[str]:
    """Word tokens as written."""
    return WORD.findall(text)


def sentences(text: str) -> list[str]:
    """Sentences, split at end punctuation and line breaks."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def stem(word: str) -> str:
    """A crude suffix stem: declined ~ decline, charges ~ charge, refunds ~ refund."""
    word = word.lower().removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            # a doubled last letter before -ing or -ed is the suffix's: banned ~ ban, shipping ~
            # ship (but install)
            doubled = suffix[-1] in "gd" and word[-1] == word[-2] and word[-1] not in "lsz"
            return word[:-1] if doubled else word
    return word


def content_terms(text: str) -> set[str]:
    """Stems of the words that can name a subject: not a function word, or an acronym ("HR")."""
    found = set()
    for word in words(text):
        bare = word.strip(".-/'").removesuffix("'s")
        if "'" in bare:
            continue  # don't, we're, I'll
        if (len(bare) >= 3 and bare.lower() not in stopwords()) or (
            len(bare) >= 2 and bare.isupper() and bare.isalpha()
        ):
            found.add(stem(bare))
    return found


def same_subject(one: str, other: str) -> bool:
    """One word family: equal stems, the same first five letters (deliver ~ delivery), or one
    of four letters or more starting the other (card ~ cards, pass ~ password)."""
    if one == other:
        return True
    if len(one) >= 5 and len(other) >= 5 and one[:5] == other[:5]:
        return True
    short, long_ = sorted((one, other), key=len)
    return len(short) >= 4 and long_.startswith(short)


def data(name: str) -> str:
    """A file of ``data/`` (its README says where each comes from)."""
    return (resources.files("pytest_llmjudge.judges.heuristic") / "data" / name).read_text("utf-8")


@cache
def sentiment() -> dict[str, float]:
    """Word -> valence (-4..4) from the VADER lexicon."""
    rows = (line.split("\t") for line in data("sentiment_lexicon.tsv").splitlines())
    return {w: float(v) for w, v in rows}


@cache
def stopwords() -> frozenset[str]:
    """English function words and the words any text uses whatever it is about."""
    return frozenset(line.strip() for line in data("stopwords_english.txt").splitlines())


@cache
def listed_profanity() -> frozenset[str]:
    """Every word of the profanity list: an insult when said of the reader ("you dummy")."""
    return frozenset(line.strip().lower() for line in data("profanity_wordlist.txt").splitlines())


@cache
def profanity() -> frozenset[str]:
    """Swear words and slurs: words both sources mark (the profanity list, and strongly negative
    in the lexicon), so that ordinary words the list holds ("strip", "knob") are not swearing;
    with a few the lexicon lacks (``UNRATED``) and the list's compounds of them all."""
    listed, lexicon = listed_profanity(), sentiment()
    marked = {w for w in listed if lexicon.get(w, 0.0) <= -1.5 and not w.startswith(TOPIC_WORDS)}
    marked |= UNRATED
    # ... and the list's compounds of such a word ("shithole", "fucking", "dumbasses")
    roots = tuple(marked)
    return frozenset(marked | {w for w in listed if w.startswith(roots) or w.endswith(roots)})


def masked_profanity(text: str) -> list[str]:
    """Swear words written with symbols for letters ("f**k", "sh*t", "f***ing")."""
    return [
        token
        for token in _MASKED.findall(text)
        if any(_shape(token).fullmatch(w) for w in profanity())
    ]


_MASKED = re.compile(r"\b[A-Za-z][A-Za-z*#]*[*#][A-Za-z*#]*")


def _shape(token: str) -> re.Pattern[str]:
    return re.compile(re.escape(token.lower()).replace(r"\*", ".").replace("\\#", "."))


# Beginnings of strongly negative words of both sources that name a topic a customer may ask
# about (a process is killed, a screw is screwed in, a crime is reported), not abuse of the reader.
TOPIC_WORDS = ("kill", "murder", "rap", "heroin", "molest", "screw", "suck", "masochist")
# Swearing one source lacks: British words, abbreviations, a form of a listed word
UNRATED = {"arse", "arsed", "bollocks", "bugger", "tosser", "ffs", "stfu", "crappy"}
