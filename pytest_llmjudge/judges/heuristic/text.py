"""Words, sentences and the two tables the offline judge reads, shipped as data with their
licences (``data/README.md``): a sentiment lexicon (VADER) and a profanity list
(better-profanity). Both load once, on first use, from package data: nothing is downloaded.
"""

from __future__ import annotations

import itertools
import re
from functools import cache
from importlib import resources

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'\-./@]*[A-Za-z0-9]|[A-Za-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# Something only an answer that says something has: a figure, an address, a path or menu
# path, a quoted label, an identifier or a command ("Settings > Billing", "support@shop.com",
# "'Card settings'", "MAX_CONNECTIONS", "kubectl get pods").
SPECIFIC = re.compile(
    r"\d|@|https?://|\w/\w|\s>\s|→|[\"'][^\"']{2,40}[\"']|\b\w+_\w+\b|`|\b[a-z]+[A-Z]\w*"
)

# Words that carry no subject: function words, and the words any support reply uses
# whatever it is about. Words of one or two letters are dropped as well, bar acronyms.
STOPWORDS = frozenset(
    """
    about above after again against also although among another anything because been
    before being below between both cannot could does doing done down during each either
    every from further have having here into itself just more most much must need needs
    only other over please same should since some something still such than thank thanks
    that their them then there these they thing things this those though through under
    until very want were what whatever when where whether which while will with within
    without would your yours yourself hello dear sorry really know like make sure help
    able the and for you can how why not are was has had but our get got any all its may
    too out off yes now who did let via per his her him she yet nor own
    """.split()  # noqa: SIM905 - a word list reads better as text
)


_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalise(text: str) -> str:
    """Typographic quotes as plain ones ("don\u2019t" is "don't"), so the patterns need one form."""
    return text.translate(_TYPOGRAPHIC)


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
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> set[str]:
    """The stems of the words that can name a subject: three letters or more and not a
    function word (nor a contraction), or an acronym ("HR", "PIN", "TV")."""
    found = set()
    for word in words(text):
        bare = word.strip(".-/'").removesuffix("'s")
        if "'" in bare:
            continue  # don't, we're, I'll
        if (len(bare) >= 3 and bare.lower() not in STOPWORDS) or (
            len(bare) >= 2 and bare.isupper() and bare.isalpha()
        ):
            found.add(stem(bare))
    return found


def same_subject(one: str, other: str) -> bool:
    """Two stems of one word family: equal, or sharing their first five letters (deliver ~
    delivery, subscri(be) ~ subscription), or one of four letters or more starting the other
    (card ~ cards, pass ~ password)."""
    if one == other:
        return True
    if len(one) >= 5 and len(other) >= 5 and one[:5] == other[:5]:
        return True
    short, long_ = sorted((one, other), key=len)
    return len(short) >= 4 and long_.startswith(short)


def shared_terms(ticket: str, response: str) -> list[str]:
    """The ticket's subject words that the response takes up, itself or in another form:
    also written together or apart ("log in" ~ "login", "Wi-Fi" ~ "wifi") or by initials
    ("horizontal pod autoscaler" ~ "HPA")."""
    answered = content_terms(response) | _other_forms(response)
    asked = content_terms(ticket) | _other_forms(ticket)
    return sorted(t for t in asked if any(same_subject(t, a) for a in answered))


def _other_forms(text: str) -> set[str]:
    """Words written together or without hyphens, and the initials of two to four words."""
    tokens = [w.lower() for w in words(text)]
    joined = {a + b for a, b in itertools.pairwise(tokens) if len(a + b) >= 5}
    joined |= {t.replace("-", "") for t in tokens if "-" in t}
    initials = {
        "".join(w[0] for w in tokens[i : i + n])
        for n in (2, 3, 4)
        for i in range(len(tokens) - n + 1)
        if all(len(w) >= 3 and w not in STOPWORDS for w in tokens[i : i + n])
    }
    return {stem(w) for w in joined} | initials


def _data(name: str) -> str:
    return (
        resources.files("pytest_llmjudge.judges.heuristic")
        .joinpath(f"data/{name}")
        .read_text("utf-8")
    )


@cache
def sentiment() -> dict[str, float]:
    """Word -> valence (-4..4) from the VADER lexicon."""
    return {
        w: float(v)
        for w, v in (line.split("\t") for line in _data("sentiment_lexicon.tsv").splitlines())
    }


@cache
def profanity() -> frozenset[str]:
    """Swear words and slurs: the words that both maintained sources mark, the profanity
    list and the sentiment lexicon (strongly negative), so that ordinary words the list also
    holds ("strip", "knob", "breast") are not read as swearing."""
    listed = {line.strip().lower() for line in _data("profanity_wordlist.txt").splitlines()}
    lexicon = sentiment()
    return frozenset(w for w in listed if lexicon.get(w, 0.0) <= -1.5) - TOPIC_WORDS


# Strongly negative words of both sources that name a topic a customer may ask about (a
# process is killed, a screw is screwed in), not abuse of the reader.
TOPIC_WORDS = frozenset(
    "kill murder rape raped raping rapist raper heroin molest screwed suck sucked masochist".split()  # noqa: SIM905
)
