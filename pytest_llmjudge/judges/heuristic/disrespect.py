"""Disrespect without a rude word: insults, dismissal of the problem, blame of the asker,
sarcasm and shrugs. A person reads these phrases as rude in a support answer; the politeness
data (requests) does not teach them, so most were found in the support set's bad answers
(``benchmarks/data/support_answers.jsonl``).
"""

from __future__ import annotations

import re

from .signals import phrases
from .steps import QUOTED_LABEL

_INSULTS = (
    "rtfm", "google it", "not my problem", "figure it out", "your fault", "useless",
    "shut up", "duh", "whatever", "obviously you", "get a life", "grow up", "who the hell",
    "what the hell", "are you blind", "can't you read", "nonsense", "ridiculous", "pathetic",
    "garbage", "rookie", "careless", "sloppy", "incompetent", "clueless", "own mess",
    "your mess", "too lazy", "are lazy", "being lazy", "lazy teams", "lazy people",
    "lazy users",
)  # fmt: skip
# A term of the trade that holds an insult's word: "garbage collection"
_NOT_AN_INSULT = re.compile(r"\bgarbage[- ]collect\w*", re.IGNORECASE)
# Denying the asker their trade: "Developers who need ChatGPT shouldn't be developers."
_NOT_ONE_OF_THEM = re.compile(
    r"\b([a-z]{4,}?)s? who\b[^.?!]*\bshould(?:n't| not) be (?:an? )?\1s?\b", re.IGNORECASE
)
# Dismissing the problem, blaming the asker, sarcasm: a rude answer without a rude word.
_DISMISSAL = (
    "not our problem", "not my problem", "your problem", "your fault", "figure out",
    "that's on you", "that's on them", "deal with it", "live with it", "too bad",
    "nothing to do", "nothing we can do", "just ignore",
    "forget about it", "no big deal", "move on",
    "that's just how", "works on my machine", "not a bug", "figure it out", "by yourself",
    "you should have", "should've", "you broke", "stop complaining", "stop wasting",
    "wasting our time", "rules are rules", "people like you", "did you even", "maybe don't",
    "who even", "amateur", "overrated", "use something else", "happens to everyone",
    "happens every", "happens all the time", "happens to the best", "never work", "never works",
    "always slow", "be more careful", "been more careful", "pay them", "gl with",
    "whatever works", "no refunds", "live without", "don't make mistakes", "that's what you get",
    "before complaining", "instead of complaining", "hope they",
    "seriously?", "leaving already", "dumb idea", "do your job", "close the ticket",
    "on your team", "not that hard", "should know", "their problem", "team's problem",
    "someone else's problem", "common sense", "probably fine", "without thinking",
    "read your own", "buy a bigger", "don't overcomplicate", "moving on", "try harder",
    "do your homework", "everyone knows", "who cares", "bad idea", "real problems",
    "knows best", "is bloated", "doesn't matter", "don't matter", "nothing you can do",
    "sorts itself out", "isn't that", "rarely need", "is everywhere",
    "isn't for you", "aren't for you", "your thing", "would have saved",
    "part of life", "won't notice", "isn't a problem", "aren't a problem", "break sometimes",
    "breaks sometimes", "could tell you", "any beginner", "any first-year", "a smarter",
    "start fresh", "for everyone else", "always broken", "always like this", "always like that",
    "is like that", "are like that", "the real world", "cost of doing business", "bold choice",
    "give up and", "come and go", "get on with", "what's the problem", "what's the big deal",
    "play nice", "tell your people", "enjoy it", "like normal people", "you don't care", "a fad",
    "fire them", "like everyone else", "doesn't go down", "never goes down", "blaming us",
    "for a reason", "try reading", "always have problems", "waste my time", "wasting my time",
    "waste our time", "stop asking", "that's what happens", "fix your own", "every tutorial",
    "ever thought of", "isn't for work", "aren't for work", "has existed since",
    "have existed since", "maybe stop", "been around forever", "been around for years",
    "been around since", "you didn't read", "you never read", "you didn't bother",
    "was never a good idea", "surely you", "like everything else", "beginner mistake",
    "beginner's mistake", "newbie", "who knew", "unsurprisingly", "just part of",
)  # fmt: skip
# Advice to leave something alone or to someone else: dismissal in a bare sentence ("Scanners
# cry wolf. Ignore it.", "Tell them to upgrade.", "Make them use their phones."), an
# instruction beside what it is about ("a router that answers ICMP slowly; ignore it", "Tell
# them to deny the prompt, reset the password now").
_LEAVE_ALONE = ("ignore it", "ignore them", "tell them to", "make them")
# "If you can't respond here, ..." talks down; "if you can't open Settings, the admins are
# listed on ..." gives a way round something named in the product
_IF_YOU_CANT = re.compile(r"\b(if you can't)\b([^,.;!?]*)", re.IGNORECASE)
_NAMED = re.compile(r"\b[A-Z][a-z]+\b")
# "That's normal.", "Slow is fine.", "Accidents happen." and "Memory is cheap." shrug; "That
# is normal wear for a year of use" explains, "if a few minutes of downtime are fine" sets a
# condition and "unsubscribing is fine" allows.
_SHRUG = re.compile(
    r"\banyway\b|(?<!ing )\b(?:is|are) fine\b|\b(?:is|are|that's|it's) normal(?=\s*(?:[.,;!]|$))"
    r"|\b\w+s happen(?=\s*(?:[.;!]|$))|\b(?:is|are) cheap(?=\s*(?:[.;!]|$))",
    re.IGNORECASE,
)
_CONDITION_WORDS = r"if|when|unless|as long as"
_CONDITION = re.compile(rf"\b(?:{_CONDITION_WORDS})\b", re.IGNORECASE)
# "The network path is fine; something on port 443 isn't." and "The Wi-Fi link is fine, so the
# problem is after it" rule one thing out
_CONTRAST = re.compile(
    r"\b(?:but|isn't|is not|aren't|are not)\b|\bthe (?:problem|issue|fault) is (?!you)",
    re.IGNORECASE,
)
# "... so stale entries expire anyway" gives the purpose of a step and "..., and make the app
# retry connections anyway" adds one; "Merge anyway." shrugs
_PURPOSE = re.compile(rf"\b(?:{_CONDITION_WORDS}|so|in case)\b|^\s*and\b", re.IGNORECASE)
# "whatever the number of workspaces" and "whatever plan you were on" qualify; "Whatever.",
# "do whatever" and "use whatever DNS they get" shrug.
_WHATEVER_OF = re.compile(
    r"\bwhatever (?:the|its|their|your|our|kind|type|number|size|you do|happens)\b"
    r"|(?<!use )(?<!do )\bwhatever \w+ (?:you|they|we|it)\b",
    re.IGNORECASE,
)
# Talking down to the asker, blaming them or waving the ask away, each with an example. The
# tautology ("Random failures are random.") refers to its word as \1: no pattern before it may
# capture a group.
_DISRESPECT_PATTERNS = (
    # "That's on them" blames; "That's on their side" says where the fault is
    r"\bthat's on\b(?! (?:their|our|your|the|its) (?:side|end)\b)",
    r"\b(?:is|are) \w+ like that\b",  # "EKS is fiddly like that", "Wi-Fi is like that"
    # "Random failures are random.", "Private means private."
    r"(?:^|[.!?;]\s+)(\w{3,})(?: \w+){0,2} (?:is|are|means) (?:just )?\1(?=[.,;!]|$)",
    r"\b(?:share|play|behave)\b[^.,;]{0,30}\bnicely\b",  # "if your teams can't share nicely"
    r"\bwho \w+(?: \w+){0,3} like that\b",  # "Who names files like that?"
    r"\bwrite (?:faster|better|cleaner|smarter) \w+",  # "Maybe write better queries."
    r"\blike (?:a |an )?(?:grown-ups?|adults?|professionals?)\b",
    r"\b(?:check|read|look at)\b[^.!?]{0,40}\bproperly\b",  # "Check your statement properly"
    r",\s*(?:genius|einstein|sherlock)\b",
    r"(?:^|[.!?]\s+)google (?:it|for|['\"])",  # "Google 'share AMI'. Took me five seconds."
    r"\btook me (?:\w+ )?(?:seconds?|minutes?)\b",
    r"\b(?:get|buy|use) a real(?: [\w-]+){1,2}[.!]",  # "use a real login."
    r"(?:^|[.!?]\s+)just don't\b",
    r"\b(?:you|someone|they)\b[^.!?]{0,20}\bmessed up\b",  # "someone on your side messed up"
    # "Stop spamming the API and you won't get throttled" blames the asker's habit
    r"\bstop \w+ing\b[^.!?;]*\band (?:you|it|they) (?:won't|will not)\b",
    r"(?:^|[.!?]\s+)just [^.!?]*\b(?:it's|that's) fine\b",  # "Just use the default URL, it's fine."
    # "the pricing page, which nobody reads" jabs; "a slot that nobody reads" is a fact
    r",\s*which (?:nobody|no one) (?:reads|checks|looks at)\b",
    # "Test before you ship and you won't need to." calls the ask needless
    r"\band you (?:won't|will not) (?:need|have) to[.!]",
    r"\bstop \w+ing (?:so (?:many|much)|every|all those)\b",  # "Stop sending so many mails."
    r"\b(?:has|had) a reason(?=[.,;])",  # "The firewall has a reason, usually."
    r"(?:^|[.!?]\s+)(?:use|buy|get|try) [^.!?]{1,40}\bthen[.!]",  # "Use the laptop's mic then."
    # "It's shown before you confirm, if you look."; "if you look at the logs, ..." guides
    r",\s*if you (?:look|looked|read|bothered)(?=[.!])",
    # "Seats don't cancel themselves."
    r"(?:^|[.!?]\s+)\w+(?: \w+)? (?:don't|doesn't|won't) \w+ (?:themselves|itself)[.!]",
    # "Printers should have been isolated years ago."
    r"\bshould(?:'ve| have) been \w+ (?:years ago|long ago|from day one|from the start)\b",
    r"(?:^|\s)[A-Za-z][\w/]* 101(?=[.!,]|$)",  # "Caching is CI 101."
    r",\s*bold[.!]",  # "Renaming in production without a plan, bold."
    # a bare "Read the router's manual."
    r"(?:^|[.!?]\s+)read (?:the |their |its )?(?:[\w'-]+'s )?(?:manual|docs|documentation)[.!]",
    # "Regions aren't a buffet."
    r"\b(?:isn't|aren't|is not|are not) a (?:buffet|playground|toy|game|joke|charity)\b",
    r",\s*wow[.!]",  # "Admins without MFA in 2026, wow."
    r"\b(?:nobody|no one) \w+[^.!?]*\banymore\b",  # "Nobody runs mail servers anymore."
)
_DISRESPECT = re.compile("|".join(_DISRESPECT_PATTERNS), re.IGNORECASE)


# Praise after a question is sarcasm: "A NAS without backups? Brilliant planning.", "Designing
# tables without keys? Impressive." ("Is it connected? Good." checks).
_SARCASTIC_PRAISE = re.compile(
    r"(?<=\?)\s+(?:(?:brilliant|great|nice|smart|genius|excellent|good|clever|impressive) \w+"
    r"|brilliant|genius|impressive)[.!]",
    re.IGNORECASE,
)
# A one-word verdict as a sentence: "Use your work laptop for work. Simple."; a grudging
# "Fine, ..." to open a reply; "Shocking, I know.", "Upgrading without reading the notes, I
# see." and "Should have been unique from the start." (no subject: a verdict on the asker).
_CURT = re.compile(
    r"(?:^|(?<=[.!?]) )"
    r"(?:simple|easy|obviously|problem solved|wow|not hard|come on|basic stuff)[.!]"
    r"|^\W*fine(?=[,.!])|\b(?:shocking|surprising|amazing|crazy|wild), I know[.!]"
    r"|,\s*I see(?=[.!])|(?:^|(?<=[.!?]) )should(?:'ve| have)\b",
    re.IGNORECASE,
)
# A reply that opens by echoing the problem as a question without a verb: "Forty minutes?",
# "Restarting pods one by one?" (incredulity); "Does it happen on every node?" asks.
_ECHO = re.compile(
    r"^\W*(?!(?:what|why|how|when|where|which|who|is|are|do|does|did|can|could|have|has)\b)"
    r"[\w' -]{1,40}\?(?=\s+\S)",
    re.IGNORECASE,
)


def insults(text: str) -> list[str]:
    """Insults of the asker: "rtfm", "pathetic", "... shouldn't be developers"."""
    found = phrases(_NOT_AN_INSULT.sub("", _WHATEVER_OF.sub("", text)), _INSULTS)
    return found + [m.group(0) for m in _NOT_ONE_OF_THEM.finditer(text)]


def without_sarcasm(text: str) -> str:
    """The text without its sarcastic praise, whose words praise nothing."""
    return _SARCASTIC_PRAISE.sub("", text)


def dismissals(text: str, bare_sentences: list[str]) -> list[str]:
    """Dismissal, blame and sarcasm; "ignore it" only in a sentence that instructs nothing
    else (``bare_sentences``). A label quoted from a screen ('Edit anyway') says nothing."""
    text = QUOTED_LABEL.sub("", text)
    # "do you make them by hand?" asks; "Make them use their phones." dismisses
    advice = [s for s in bare_sentences if not s.rstrip().endswith("?")]
    leave_alone = [hit for s in advice for hit in phrases(s, _LEAVE_ALONE)]
    unable = [m[1] for m in _IF_YOU_CANT.finditer(text) if not _NAMED.search(m[2])]
    found = phrases(text, _DISMISSAL) + [m.group(0) for m in _DISRESPECT.finditer(text)]
    found += [hit.strip() for hit in _CURT.findall(text) + _SARCASTIC_PRAISE.findall(text)]
    found += [hit.strip() for hit in _ECHO.findall(text) if len(hit.split()) <= 5]
    return found + leave_alone + unable + _shrugs(text)


def _shrugs(text: str) -> list[str]:
    """ "... is fine", a closing "that's normal" or "anyway" in a clause that sets no condition
    (for "anyway", no purpose either: "so stale entries expire anyway")."""
    found = []
    for match in _SHRUG.finditer(text):
        clause = re.split(r"[.,;!?]", text[: match.start()])[-1]
        allowed = _PURPOSE if match.group(0).lower() == "anyway" else _CONDITION
        rest = re.split(r"[.!?]", text[match.end() :])[0]
        if not allowed.search(clause) and not _CONTRAST.search(rest):
            found.append(match.group(0))
    return found
