"""Words, sentences and the two word tables the heuristic judge reads.

The tables ship with the package (``data/``): a sentiment lexicon (VADER, MIT licence) and
document frequencies of English words in conversation and forum text, so rare words can
count for more than common ones. Both load once, on first use, from package data: nothing
is downloaded.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

_DATA = "pytest_llmjudge.judges.heuristic"

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'\-./]*[A-Za-z0-9]|[A-Za-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# Pre-tokenised corpora write "do n't" and "i 'm"; people write "don't" and "I'm".
_SPLIT_CLITIC = re.compile(r"(\w) (n't|'s|'m|'re|'ll|'ve|'d)\b", re.IGNORECASE)

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't
    do does doesn't doing don't down during each few for from further had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too under until up very was wasn't we we'd we'll
    we're we've were weren't what what's when when's where where's which while who who's
    whom why why's will with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves just now get got yes yeah oh ok okay well really like one would
    also much many lot lots thing things something anything think know see go going make
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def normalise(text: str) -> str:
    """Join split clitics so tokenised corpora and ordinary text read alike."""
    return _SPLIT_CLITIC.sub(r"\1\2", text)


def words(text: str) -> list[str]:
    """Word tokens as written (case kept)."""
    return WORD.findall(text)


def sentences(text: str) -> list[str]:
    """Sentences, split at end punctuation and line breaks."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def stem(word: str) -> str:
    """A crude suffix stem, enough to match deploy/deploys/deployed."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> list[str]:
    """Lower-cased, stemmed words that carry content: no stopwords, no 1-2 letter words but
    for acronyms of two capitals ("TV", "VM", "PC"; not "IT" or "US", which are stopwords)."""
    return [stem(w) for w in _content_words(text)]


def written_forms(*texts: str) -> dict[str, str]:
    """Stem -> the word as first written in the texts ("invoic" -> "invoices"): a reason
    names words, not stems."""
    forms: dict[str, str] = {}
    for text in texts:
        for word in _content_words(text):
            forms.setdefault(stem(word), word)
    return forms


def _content_words(text: str) -> list[str]:
    # the possessive of a name is the name: "the NAS's disks", "Have I Been Pwned's search"
    cleaned = (_unpossessive(w.strip(".-/'")) for w in words(text))
    return [
        w.lower()
        for w in cleaned
        if (len(w) >= 3 or (len(w) == 2 and w.isupper() and w.isalpha()))
        and w.lower() not in STOPWORDS
    ]


def _unpossessive(word: str) -> str:
    """A name's or a support term's possessive is the word ("NAS's", "certificate's"). Other
    words keep theirs: stripping every possessive cost relevance 0.007 on the human ratings."""
    bare = word.removesuffix("'s")
    if bare != word and (word[:1].isupper() or stem(bare.lower()) in related_groups()):
        return bare
    return word


_COMPOUND = re.compile(r"[_\-./:]+")


def compound_parts(terms: list[str]) -> set[str]:
    """The words inside compound tokens (``err_cert_date_invalid``: ``cert``, ``date``...),
    so that an error code can be taken up by the words of its fix."""
    return {
        stem(part)
        for term in terms
        if _COMPOUND.search(term)
        for part in _COMPOUND.split(term)
        if len(part) >= 3 and part.isalpha() and part not in STOPWORDS
    }


_CAMEL = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")


def camel_parts(text: str) -> set[str]:
    """The words of identifiers in CamelCase: ``PersistentVolumeClaim`` is taken up by
    "volume" or "claim"."""
    found = {stem(w.lower()) for name in _CAMEL.findall(text) for w in _capitalised(name)}
    return {w for w in found if len(w) >= 3} - STOPWORDS


# A name of capitalised words: "Internet Explorer", "Google Cloud Platform"
_NAME_OF_WORDS = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b")


def initials(text: str) -> set[str]:
    """The initials of names: of identifiers of three or more words in CamelCase
    (``PersistentVolumeClaim`` is "pvc"; "od" of OneDrive names nothing) and of names of
    capitalised words ("Internet Explorer" is "ie")."""
    names = [_capitalised(name) for name in _CAMEL.findall(text)]
    found = {"".join(w[0] for w in parts).lower() for parts in names if len(parts) >= 3}
    found |= {"".join(w[0] for w in m.split()).lower() for m in _NAME_OF_WORDS.findall(text)}
    return found - STOPWORDS


def _capitalised(name: str) -> list[str]:
    return re.findall(r"[A-Z][a-z]+", name)


@dataclass(frozen=True)
class Rarity:
    """Inverse document frequency from a shipped table; unseen words count as rare."""

    documents: int
    frequency: dict[str, int]

    def idf(self, term: str) -> float:
        return math.log((self.documents + 1) / (self.frequency.get(term, 0) + 1))


@cache
def rarity() -> Rarity:
    text = resources.files(_DATA).joinpath("data/document_frequency.tsv").read_text("utf-8")
    lines = text.splitlines()
    documents = int(lines[0].split("\t")[1])  # "#documents\tN"
    frequency = {term: int(count) for term, count in (line.split("\t") for line in lines[1:])}
    return Rarity(documents, frequency)


_COMMON = 20  # development texts a word must appear in to be an ordinary word


def ordinary(word: str) -> bool:
    """A function word, or a word of at least ``_COMMON`` development texts (lower case)."""
    return word in STOPWORDS or rarity().frequency.get(stem(word), 0) >= _COMMON


@cache
def sentiment() -> dict[str, float]:
    """Word -> valence (-4..4) from the VADER lexicon."""
    text = resources.files(_DATA).joinpath("data/sentiment_lexicon.tsv").read_text("utf-8")
    return {word: float(value) for word, value in (line.split("\t") for line in text.splitlines())}


@cache
def related_groups() -> dict[str, frozenset[str]]:
    """Stemmed support term -> the terms related to it (``data/related_terms.txt``: one group
    per line; a term in several groups relates to all of their terms)."""
    text = resources.files(_DATA).joinpath("data/related_terms.txt").read_text("utf-8")
    related: dict[str, set[str]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        group = {stem(word.strip().lower()) for word in line.split(",") if word.strip()}
        for term in group:
            related.setdefault(term, set()).update(group - {term})
    return {term: frozenset(others) for term, others in related.items()}
