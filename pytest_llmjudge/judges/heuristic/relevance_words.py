"""Phrase lists the relevance signals read: evasion, referral elsewhere, vague "many factors"
wording, filler, chit-chat talk and stock replies. Most were found in the support set's bad
answers (``benchmarks/data/support_answers.jsonl``); each is what an answer says instead of
answering.
"""

from __future__ import annotations

import re

EVASIVE = (
    "i don't know", "i dont know", "i do not know", "no idea", "not sure", "i'm not sure",
    "i am not sure", "can't help", "cannot help", "contact support", "contact your administrator",
    "reach out to support", "open a ticket", "try again later", "it depends", "hard to say",
    "i have no clue", "who knows", "no clue", "not sure why", "many reasons", "lots of reasons",
    "many factors", "a lot of things", "complex topic", "hard to debug", "can be unpredictable",
    "can be tricky", "is tricky", "are tricky", "are complicated", "is complicated",
    "can be slow", "can be strange", "are strange",
)  # fmt: skip
# Sending the asker elsewhere, or asking them to wait, instead of answering.
REFERRAL = (
    "contact support", "contact your", "contact the", "try contacting", "reach out to",
    "check with", "ask your", "ask someone", "ask a colleague", "refer to", "help center",
    "help centre", "help desk", "open a ticket", "be patient", "try later", "try again later",
    "fix itself", "sort itself out", "a question for", "maybe ask", "should ask", "ask their",
    "ask the community", "community forum", "consult", "review our", "reviewing your",
    "appropriate team", "relevant policies", "change management", "what can be done",
    "check back",
)  # fmt: skip
# Saying that the problem has many causes instead of naming one: "Session behaviour is
# influenced by numerous factors", "Performance can vary depending on workload".
# Without a step, a command or a setting, the first kind is no answer; the second ("it
# depends on the plan") only beside a referral.
VAGUE = re.compile(
    r"\b(?:many|multiple|various|numerous|several|a number of|a variety of|a range of|lots of"
    r"|a lot of|a combination of|a mix of|a multitude of|an interplay of) (?:[\w-]+ ){0,4}"
    r"(?:factors|reasons|considerations|things|variables|causes|conditions|aspects|sources)\b"
    r"|\b(?:influenced|shaped|affected|determined) by (?:a (?:variety|range|number|mix"
    r"|combination) of|multiple|many|various|several|numerous)\b(?: [\w-]+){0,3}"
    r"|\bunique to each\b|\bas appropriate\b|\bin (?:its|their) own way\b|\ba construct\b"
    # "depends on the recipient's environment", "...on your usage patterns"
    r"|\bdepend(?:s|ing)? (?:up)?on (?:your|the|each|their)(?: [\w'-]+){0,3}? (?:environment"
    r"|setup|configuration|situation|needs|requirements|organi[sz]ation|use case|circumstances"
    r"|architecture|tooling|practices|usage patterns|platform|context|account type)s?\b"
    r"|\b(?:var(?:y|ies)|differs?) (?:by|between|across|from)\b"  # "options vary by meeting type"
    r"|\bdepend(?:s|ing)? on (?:various|many|several|numerous|multiple|a (?:variety|range|number)"
    r" of)(?: [\w-]+){1,3}",  # "depends on various app interactions"
    re.IGNORECASE,
)
# "Read cert-manager's docs.": a referral, as "refer to the documentation" is
READ_THE_DOCS = re.compile(
    r"\bread (?:the |their |its |[\w'-]+'s )?(?:docs|documentation|manual)\b", re.IGNORECASE
)
HEDGED = re.compile(
    r"\b(?:can|may) (?:vary|change|differ|be complex|be risky)\b|\bdepend(?:s|ing)? on\b",
    re.IGNORECASE,
)
# Words that fill an answer without answering: thanks, empathy, praise of the product.
FILLER = (
    "thank you", "thanks for", "we appreciate", "we truly", "we really", "we value",
    "we understand", "we hope", "we are so", "we're so", "we are always", "we are delighted",
    "we are thrilled", "great question", "your satisfaction", "valued customer",
    "it's worth noting",
    "it is important to note", "it's important to note", "at the end of the day",
    "in today's world", "is a journey", "we care", "care deeply", "means a lot",
    "your experience", "your patience", "your feedback", "your continued", "reaching out",
    "we believe", "we are proud", "we are committed", "committed to", "hope this message",
    "we're excited", "we are excited", "we're so excited", "we're always", "we find that",
    "at the heart of", "our mission", "unsung heroes", "we salute", "sharing is caring",
    "a wonderful thing", "bring teams together", "deeply appreciate", "so important these days",
    "great to hear", "cheering you on", "means everything", "your trust", "trust is everything",
    "is all about", "rockstars", "superstars",
)  # fmt: skip
# Talk rather than an answer: a question (a fair reply to an unclear ticket), "I...",
# or a reaction ("yeah", "wow"): chit-chat is made of these.
TALK = re.compile(
    r"^\W*(?:yeah|yep|oh|wow|haha|lol|that's|thats|i agree|agreed|true|cool|nice|hello|"
    r"hi|hey|really|interesting|well|nope|right)\b|\b(?:i|i'm|im|i've|i'd|"
    r"i'll|my|me|mine)\b",
    re.IGNORECASE,
)
STOCK = (
    "i think it's interesting", "that's interesting", "that's cool", "that is cool",
    "i think so", "me too", "i agree", "good question", "that's a good question",
    "sounds good", "i see", "interesting",
)  # fmt: skip
