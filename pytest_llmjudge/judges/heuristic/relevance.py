"""Relevance signals: does the response take up what the ticket is about and asks?

Overlap is weighted by rarity (a shared "kubernetes" says more than a shared "time"):
how much of the ticket, and of its last message, the response takes up. Beside it: how
much specific content the response carries at all, evasive replies and stock phrases,
the share of function words, repetition, and concrete commands or settings.
"""

from __future__ import annotations

import itertools
import math

from .relevance_words import (
    EVASIVE,
    FILLER,
    HEDGED,
    READ_THE_DOCS,
    REFERRAL,
    STOCK,
    TALK,
    VAGUE,
)
from .signals import Signals, phrases
from .steps import concrete_tokens, gives_something_to_act_on, opens_a_step, technical_tokens
from .text import (
    STOPWORDS,
    Rarity,
    camel_parts,
    compound_parts,
    content_terms,
    initials,
    normalise,
    rarity,
    related_groups,
    sentences,
    words,
    written_forms,
)
from .tickets import (
    answers_yes_or_no,
    asks_to_choose,
    asks_to_explain,
    is_support_ticket,
    last_message,
)


def matches(term: str, others: set[str]) -> bool:
    """Same stem or singular (pods ~ pod), a shared prefix of 5+ letters (deploy ~ deployment,
    expired ~ expiry), or one word of 4+ letters starting the other (shar(ed) ~ share, file ~
    fileserver)."""
    if term in others or _undoubled(term) in others:
        return True  # "logg(ed)" ~ "log"
    single = term.removesuffix("s")
    if single in related_groups() and (f"{single}s" in others or single in others):
        return True  # "pods" ~ "pod": the stem keeps the "s" of short words; support terms only
    if len(term) >= 5 and any(len(o) >= 5 and o[:5] == term[:5] for o in others):
        return True
    return len(term) >= 4 and any(
        len(o) >= 4 and (o.startswith(term) or term.startswith(o)) for o in others
    )


def _undoubled(term: str) -> str:
    """The stem without the doubled consonant a suffix left: logg(ed) -> log, dropp -> drop
    ("install" and "pass" end in a double letter of their own)."""
    doubled = len(term) > 3 and term[-1] == term[-2] and term[-1] not in "aeiouls"
    return term[:-1] if doubled else term


# A ticket's word taken up by a related word ("email" by "spam folder") counts for less than
# the word itself: the answer may be about something next to it.
RELATED_WEIGHT = 0.75


def related_hit(term: str, others: set[str]) -> str | None:
    """A word of the answer related to the ticket's ``term`` (shipped support-term groups):
    the same stem, its plural ("urls": short words keep their "s"), or another form of it (a
    shared start of 6+ letters that leaves at most 2 letters of the shorter word: deployment ~
    deploying, not serverless ~ serveralive)."""
    groups = related_groups()
    for near in sorted(next((groups[form] for form in _forms(term) if form in groups), ())):
        for other in sorted(others):
            if other in (f"{near}s", *_forms(near)) or _same_word(near, other):
                return other
    return None


def _forms(term: str) -> tuple[str, ...]:
    """A stem and the form it has in the other number: "vulnerabiliti" (of "vulnerabilities")
    and "vulnerability", "query" and "queri"."""
    if term.endswith("i"):
        return term, f"{term[:-1]}y"
    return (term, f"{term[:-1]}i") if term.endswith("y") else (term,)


def _same_word(one: str, other: str) -> bool:
    shorter = min(len(one), len(other))
    pairs = enumerate(zip(one, other, strict=False))  # up to the shorter word
    shared = next((i for i, (a, b) in pairs if a != b), shorter)
    return shared >= 6 and shared >= shorter - 2


def _weighted_share(terms: list[str], others: set[str], table: Rarity) -> tuple[float, list[str]]:
    """How much of ``terms`` (by rarity) ``others`` take up, itself or by a related word; and
    the words taken up (``email~spam`` for a related one). A word of the answer takes up one
    word of the ticket by relation ("restart" is not the whole of "pod in CrashLoopBackOff")."""
    unique = list(dict.fromkeys(terms))
    total = sum(table.idf(t) for t in unique)
    taken, shared = 0.0, []
    unused = set(others)
    for term in unique:
        if matches(term, others):
            taken += table.idf(term)
            shared.append(term)
        elif (near := related_hit(term, unused)) is not None:
            unused.discard(near)
            taken += RELATED_WEIGHT * table.idf(term)
            shared.append(f"{term}~{near}")
    return (taken / total if total else 0.0), shared


def _repeated_trigrams(tokens: list[str]) -> list[str]:
    trigrams = [" ".join(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
    seen: set[str] = set()
    repeated = []
    for gram in trigrams:
        if gram in seen:
            repeated.append(gram)
        seen.add(gram)
    return repeated


def relevance_signals(ticket: str, response: str) -> Signals:
    """The measured relevance signals of a response to its ticket."""
    ticket, response = normalise(ticket), normalise(response)
    table = rarity()
    ticket_terms, response_terms = content_terms(ticket), content_terms(response)
    signals = Signals()
    # an answer's identifier stands for its initials only: "ServerAliveInterval" is no server
    answered = set(response_terms) | compound_parts(response_terms) | initials(response)
    # the parts in a fixed order: the reasoning names them in that order, in every process
    parts = compound_parts(ticket_terms) | camel_parts(ticket) | initials(ticket)
    recall, covered = _weighted_share([*ticket_terms, *sorted(parts)], answered, table)
    shown = _share(recall, covered, written_forms(ticket, response))
    signals.add("ticket terms taken up", covered, value=recall, shown=shown)
    message = last_message(ticket)
    last_recall, last_covered = _weighted_share(content_terms(message), answered, table)
    signals.add(
        "last message taken up",
        last_covered,
        value=last_recall,
        shown=f"takes up {last_recall:.0%} of the ticket's last message by weight",
        part_of=None if "\n" in ticket.strip() else "ticket terms taken up",
    )
    substance = sum(table.idf(t) for t in set(response_terms))
    signals.add(
        "substance",
        [],
        value=math.log1p(substance),
        shown=f"{len(set(response_terms))} distinct content words",
    )
    evasive = phrases(response, EVASIVE)
    referral = phrases(response, REFERRAL) + READ_THE_DOCS.findall(response)
    tokens = [w.lower() for w in words(response)]
    signals.add("evasive", (evasive + referral) if len(set(response_terms)) < 8 else [], cap=2)
    new_terms = set(response_terms) - set(ticket_terms)
    no_answer = _no_answer(ticket, response, recall, new_terms, evasive, referral)
    signals.add("no answer", [], value=float(no_answer), shown=_NO_ANSWER_SHOWN)
    signals.add("stock phrases", phrases(response, STOCK), cap=3)
    function_words = sum(1 for w in tokens if w in STOPWORDS) / max(1, len(tokens))
    signals.add(
        "function-word share",
        [],
        value=function_words,
        shown=(
            f"{'dense' if function_words < 0.5 else 'padded'} wording "
            f"({function_words:.0%} function words)"
        ),
    )
    doubled = [f"{a} {b}" for a, b in itertools.pairwise(tokens) if a == b]
    signals.add("repetition", _repeated_trigrams(tokens) + doubled, cap=4)
    concrete = technical_tokens(response)
    signals.add("concrete commands/settings", concrete, value=math.log1p(len(concrete)))
    return signals


def _share(recall: float, covered: list[str], forms: dict[str, str]) -> str:
    named = ["~".join(forms.get(term, term) for term in hit.split("~")) for hit in covered]
    shown = ", ".join(named[:5]) + (", ..." if len(named) > 5 else "")
    return f"takes up {recall:.0%} of the ticket's terms by weight" + (
        f" ({shown})" if covered else ""
    )


_NO_ANSWER_SHOWN = (
    "no answer: it only sends the asker elsewhere, asks them to wait, says the problem has"
    " many causes, or thanks and praises"
)


def _no_answer(
    ticket: str,
    response: str,
    recall: float,
    new_terms: set[str],
    evasive: list[str],
    referral: list[str],
) -> bool:
    """An answer with nothing in it but a referral, a request to wait, a shrug, "it depends on
    many factors", or thanks and empathy: few words of its own beyond the ticket's, or no
    step, command or setting."""
    if referral and len(new_terms) < 7:
        return True
    if evasive and len(new_terms) < 3:  # "I have no clue, sorry." (a shrug with more is
        return True  # left to the fitted "evasive" signal: chit-chat is full of them)
    sents = sentences(response)
    steps = [s for s in sents if opens_a_step(s)]
    exclaimed = all(s.endswith("!") for s in sents)
    if exclaimed and not steps and is_support_ticket(last_message(ticket)):
        return True  # "Pricing is such a fascinating topic...!", "Azure is a world-class...!"
    if concrete_tokens(VAGUE.sub("", response), ticket):
        return False  # not "platform-level" of "many platform-level factors"
    if (VAGUE.search(response) and not steps) or (HEDGED.search(response) and referral):
        return True  # "it depends on many factors; consult the documentation"
    if not phrases(response, FILLER):
        return False
    # thanks, empathy or praise: an answer only if it also gives a step, or is on topic
    return recall < 0.25 or not steps


def nothing_to_act_on(ticket: str, response: str) -> bool:
    """A statement about a support ticket's topic with nothing to act on: "Memory is a complex
    area. Results will vary.", "Old versions aren't a problem." Only where the ticket names a
    support term or quotes an error code (chit-chat replies have no steps either) and asks for
    a fix (not why, how it works, which of two, or yes or no answered "Yes, ..."), and the
    reply is not talk: a question back, "I think..." or "yeah"."""
    message = last_message(ticket)
    text = normalise(response)
    if not is_support_ticket(message) or asks_to_explain(message):
        return False  # chit-chat has no steps either; for "why?" a cause is the answer
    if asks_to_choose(message) or answers_yes_or_no(message, text):
        return False  # "server or browser?": "On the server for...", "Do we need...?": "Yes, ..."
    if "?" in text or TALK.search(text):
        return False
    return not gives_something_to_act_on(text, ticket)


# Adjectives of age and size that any two texts may share: a "new access card" takes up
# nothing of "new queue messages".
_COMMON_ADJECTIVES = frozenset(("new", "old", "big", "small"))


def ceiling(ticket: str, response: str, signals: Signals) -> tuple[int, str] | None:
    """The most a response may score whatever else it does, and why.

    A reply that takes up none of a ticket's content words, neither itself nor by a related
    support term, can be partially relevant at best (rubric 3): in chit-chat that costs
    little (replies there often bring new topics), in a support answer it is the off-topic
    reply. So is a statement on the ticket's topic that gives no step, command, setting or
    figure: it misses the key aspect, a way out of the problem. A reply that only refers the
    asker elsewhere, asks them to wait, says the problem has many causes, or only thanks and
    praises does not solve the problem (rubric 2).
    """
    if signals["no answer"]:
        return 2, f"at most 2: {_NO_ANSWER_SHOWN}"
    taken_up = signals.by_name["ticket terms taken up"].evidence
    # "Do we need a penetration test?" - "Yes, once a year...": the reply takes up the question
    answered = answers_yes_or_no(last_message(ticket), normalise(response))
    shares_nothing = all(term in _COMMON_ADJECTIVES for term in taken_up)
    if shares_nothing and not answered and content_terms(normalise(ticket)):
        return 3, "at most 3: it takes up none of the ticket's terms, nor a related one"
    if nothing_to_act_on(ticket, response):
        return 3, "at most 3: nothing to act on (no step, command, setting or figure)"
    return None


def floor(ticket: str, response: str, signals: Signals) -> tuple[int, str] | None:
    """The least a response scores: a direct yes or no to a yes-or-no ticket, with a step,
    command or setting, answers it ("Can I get a standing desk?" - "Yes: request it under
    Facilities > Furniture"), whatever words it shares. Not a referral or a shrug ("Yes,
    contact support")."""
    if signals["no answer"] or signals["evasive"]:
        return None
    text = normalise(response)
    if answers_yes_or_no(last_message(ticket), text) and gives_something_to_act_on(text, ticket):
        return 4, "at least 4: it answers the yes-or-no question and says how"
    return None
