"""Word lists the tone signals read: what is code, what names a problem or a technical
event, and which acronyms are also ordinary words. A support answer uses these words to
describe the system and its problem; the politeness data (requests) reads many of them as
hostile or as shouting.
"""

from __future__ import annotations

# Keywords written in capitals by convention (SQL, HTTP): code, not shouting.
CODE_WORDS = frozenset(
    """
    select from where and or not null set names update delete insert into values create drop
    alter table index explain analyze join on group by order limit grant revoke begin commit
    rollback vacuum show use database if exists primary key get post put patch head options
    to with as is valid validate constraint check header csv default column add outfile all in
    usage connect role login privileges schema tables for character collate convert charset
    run user copy env expose cmd entrypoint workdir arg
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# Words the sentiment lexicon scores negative that, in a support answer, name the problem
# rather than colour the tone: "the job fails with an error" is not a rude sentence.
PROBLEM_WORDS = frozenset(
    """
    error errors fail fails failed failing failure failures crash crashes crashed reject
    rejects rejected rejecting block blocked blocks kill killed kills lost lose missing miss
    broken problem problems issue issues wrong stuck delay delayed leak leaks expired denied
    deny denies lower no not stop stops stopped cut avoid interrupted fault bug bugs warning fatal
    drop dropped dropping slow exhausted low limit limits risk alert alerts critical fire
    fired trouble bad disable disabled lack lacks pain hard panic attack vulnerable cancel
    cancels cancelled canceled cancellation charged conflict conflicts conflicting abandoned
    worst worse poor missed lag lags lagging blaming pressure blind
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# Names of products, commands and technical events that the lexicon reads as threats
# ("kill", "ban", "spam", "eviction"): neutral in a sentence that instructs or names a
# system ("fail2ban bans repeat offenders"), not in a bare one ("you will be banned").
TECHNICAL_WORDS = frozenset(
    """
    evict evicted eviction evictions dump dumps dumped spam junk abort aborted aborts kill
    killing killer terminate terminated terminates destroy destroyed delete deleted purge
    prune force forced forcing ban banned bans offenders revoke revoked quarantine
    quarantined malware virus viruses phishing ransomware threat threats vulnerability
    vulnerabilities suspend suspended distrust lock locked locks deadlock deadlocks stale
    dead orphan orphaned corrupt corrupted damaged damage loss bounce bounced bounces poison
    hang hangs freeze freezes frozen defaced exploit exploits leaked leak breach infected
    infection spoof spoofed spoofing blocklist blacklist penalty expire expires expiring
    crashing wipe wiped erase erased reject lockout unauthorized forbidden invalid stolen
    theft steal abuse abused abuser abusers attacker attackers malicious fraud fraudulent fake
    compromise compromised hostile intruder unwanted suspicious scam isolation isolated ignore
    forbid forbids
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# Acronyms of computing that are also frequent words of ordinary text: in capitals they are
# the acronym (URL, API), not shouting.
ACRONYMS = frozenset(
    "url api cpu ram dns vpn ssl tls ssh aws faq pdf csv id ip it os".split()  # noqa: SIM905
)
# The docs are where a reader is sent, not a system an instruction acts on: "Read the docs."
# confronts.
DOCUMENT_WORDS = frozenset(("doc", "docs", "documentation", "readme", "manual", "markdown", "md"))
