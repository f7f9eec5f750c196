"""What an answer gives the asker to act on: steps, commands, settings, paths, figures.

Shared by relevance (an answer with none of these may be no answer) and tone (an imperative
with a command or a path instructs; a bare one confronts).
"""

from __future__ import annotations

import re

from .text import ordinary, sentences, words

# An identifier of three or more capitalised parts ("PutLogEvents", "CrashLoopBackOff") is a
# setting, and so is a service's key or action ("aws:RequestedRegion", "s3:GetObject"); two
# capitalised parts ("GitHub", "SharePoint") are a product's name.
_TECHNICAL_TOKEN = re.compile(
    r"`[^`]+`|\S*[=_/\\]\S*|\S+-\S+|\b[a-z]+[A-Z]\w+|\b[A-Z]{3,}\b|\S*\d\S*"
    r"|\b(?:[A-Z]+[a-z0-9]+){3,}\b|\b[a-z0-9-]+:[A-Z]\w+"
)
_PLAIN = re.compile(r"[\d,.']*s?[.,;:!?]?|\W+")  # "1995", "10,000", "the 70s."
# The verbs that open a step of an answer ("Open Settings", "Run kubectl logs").
STEP_VERBS = (
    "add", "allow", "apply", "approve", "ask", "assign", "attach", "block", "bring", "build",
    "cache", "call", "change", "check", "choose", "clear", "click", "close", "compare", "compress",
    "configure", "confirm", "connect", "convert", "copy", "create", "deactivate", "declare",
    "decrease", "delete", "deploy", "disable", "disconnect", "download", "drop", "edit", "empty",
    "enable", "enrol", "enroll", "enter", "exclude", "export", "extend", "filter", "find", "fix",
    "flush", "follow", "forward", "free", "generate", "give", "go", "grant", "group", "handle",
    "hover", "import", "increase", "install", "keep", "limit", "list", "load", "lock", "log",
    "look", "lower", "make", "mark", "merge", "modify", "mount", "move", "open", "order",
    "paginate", "patch", "pause", "pick", "pin", "plug", "point", "prefer", "press", "print",
    "profile", "protect", "prune", "put", "quarantine", "raise", "read", "reboot", "rebuild",
    "reconnect", "redirect", "reduce", "register", "reinstall", "reload", "remove", "rename",
    "renew", "repair", "replace", "replay", "reply", "report", "request", "rerun", "resend",
    "reserve", "reset", "resize", "restart", "restore", "restrict", "resume", "retry", "revoke",
    "roll", "rotate", "route", "run", "save", "schedule", "select", "send", "serve", "set",
    "share", "ship", "show", "sign", "split", "start", "stop", "store", "submit", "switch", "take",
    "tap", "tell", "test", "track", "trim", "trust", "try", "turn", "unblock", "unlock", "unplug",
    "update", "upgrade", "upload", "use", "verify", "wipe", "write",
)  # fmt: skip
STEP_VERB_SET = frozenset(STEP_VERBS)
# A step opens a sentence or a clause: "If it does not, add it by hand", "..., then restart",
# "..., or take the snapshot right before", "Never enable macros". "Sign-in issues ..." opens
# with a noun.
_CONNECTIVE = r"(?:then|and|or|but|first|also|finally|otherwise|don't|do not|never)\s+"
_CLAUSE_START = re.compile(
    rf"(?:(?:^|[,;:])\s*(?:{_CONNECTIVE})?|\b{_CONNECTIVE})([A-Za-z]+)(?!-)", re.IGNORECASE
)
# Tokens that look technical and are words: an acronym ("VPN") or a hyphenated word
# ("read-only"). A hyphenated word of ordinary words ("ever-changing") is not something to
# act on, nor is any token the ticket already names.
_WORDLIKE = re.compile(r"([A-Z]{3,}|[A-Za-z]+(?:-[A-Za-z]+)+)[.,;:!]?")
_TRAILING = ".,;:!?'\")"
# A step verb that is a noun of a statement: "Open rates are...", "Test results show...",
# "... and trust is everything", "Update reliability varies".
_NOUN_OF_A_STATEMENT = re.compile(
    r"\w+(?: \w+)? (?:is|are|was|were|show|shows|vary|varies|depend|depends|differ|differs"
    r"|can|may|might|will)\b",
    re.IGNORECASE,
)
# "Check back next week" asks the asker to wait, "move on" to give up, and "cards come and
# go" is an idiom: not steps.
_NOT_A_STEP = re.compile(r"\b(?:check|come) back\b|\bmove on\b|\bcome and go\b", re.IGNORECASE)
# A label quoted from a screen or a message: 'Run untagged jobs', "Forgot password".
QUOTED_LABEL = re.compile(r"['\"\u2018\u201c][A-Z][^'\"\u2019\u201d]{2,}['\"\u2019\u201d]")


# Hyphenated words of plain English: no command or setting goes by these names.
_PLAIN_COMPOUNDS = frozenset(
    """
    trade-off trade-offs follow-up follow-ups built-in well-known up-to-date long-term
    short-term real-time day-to-day one-off one-size-fits-all state-of-the-art so-called
    how-to know-how case-by-case step-by-step self-explanatory
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def technical_tokens(text: str) -> list[str]:
    """Commands, settings, paths and identifiers: what a concrete fix is made of.

    Plain numbers ("1995", "10,000", "60's"), lone punctuation and hyphenated words of plain
    English ("trade-offs") are not: chit-chat is full of them.
    """
    return [
        t
        for t in _TECHNICAL_TOKEN.findall(text)
        if not _PLAIN.fullmatch(t) and t.lower().rstrip(_TRAILING) not in _PLAIN_COMPOUNDS
    ]


ORDER_WORDS = 5  # words the sentences with steps need between them to be a procedure


def gives_something_to_act_on(response: str, ticket: str = "") -> bool:
    """Steps (a step verb opening a sentence or a clause, more than a lone order of a few
    words), a command, setting or path that the ticket does not already name, a menu path,
    a figure or a quoted label: what a support answer gives the asker to act on."""
    asked = _asked(ticket)
    sents = sentences(response)
    if _concrete(response, asked) or any(_opens_with_a_command(s) for s in sents):
        return True
    if " > " in response or _figures(response, asked):
        return True
    if QUOTED_LABEL.search(response):
        return True
    steps = [s for s in sents if opens_a_step(_NOT_A_STEP.sub("", s))]
    # a lone order of a few words ("Fix it.", "Use passwords.") is not a procedure
    return sum(len(words(step)) for step in steps) >= ORDER_WORDS


def _opens_with_a_command(sentence: str) -> bool:
    """ "kubeadm certs check-expiration": a lower-case word no dictionary has, with a flag,
    path or setting among its arguments ("emojis r hard" has none)."""
    tokens = words(sentence)
    command = len(tokens) >= 2 and tokens[0].islower() and not ordinary(tokens[0])
    return command and bool(technical_tokens(sentence))


def concrete_tokens(response: str, ticket: str = "") -> list[str]:
    """The answer's own commands, settings and paths: its technical tokens other than those
    the ticket already names ("ASP.NET", "VPN" are its topic), acronyms of everyday words and
    hyphenated words of ordinary or the ticket's words ("ever-changing", "account-level")."""
    return _concrete(response, _asked(ticket))


def _concrete(response: str, asked: set[str]) -> list[str]:
    found = []
    for token in technical_tokens(response):
        if token.lower().rstrip(_TRAILING) in asked:
            continue
        word = _WORDLIKE.fullmatch(token)
        if word is None or not _of_known_words(word.group(1), asked):
            found.append(token)
    return found


def _asked(ticket: str) -> set[str]:
    """The ticket's words and tokens, also in the singular ("auto-replies": "auto-reply")."""
    tokens = [*words(ticket), *technical_tokens(ticket)]
    asked = {t.lower().rstrip(_TRAILING).removesuffix("'s") for t in tokens}
    singular = {f"{t[:-3]}y" for t in asked if t.endswith("ies")}
    return asked | singular | {t[:-1] for t in asked if t.endswith("s")}


def _of_known_words(compound: str, asked: set[str]) -> bool:
    """A hyphenated word made of ordinary words ("ever-changing", "long-running"), or of one of
    the ticket's own and other plain words ("cross-zone" on a ticket about zones)."""
    parts = compound.lower().split("-")
    if len(parts) < 2:
        return False
    if any(part in asked or f"{part}s" in asked for part in parts) and compound[1:].islower():
        return True  # "account-level" on a ticket about an account
    return all(ordinary(part) for part in parts)


def _figures(response: str, asked: set[str]) -> bool:
    """A figure of the answer's own: "raise it to 300", not the "2" of the ticket's "HTTP/2"."""
    return any(
        re.search(r"\d", token) and token.lower().strip(_TRAILING) not in asked
        for token in response.split()
    )


def opens_a_step(sentence: str) -> bool:
    """A verb of ``STEP_VERBS`` opens the sentence or one of its clauses."""
    return any(
        m.group(1).lower() in STEP_VERB_SET and not _NOUN_OF_A_STATEMENT.match(sentence, m.start(1))
        for m in _CLAUSE_START.finditer(sentence)
    )
