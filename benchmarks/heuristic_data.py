"""The development rows in ../shared/data/judge-dev/, shared by the fitting and agreement scripts.

Relevance rows: a Topical-Chat conversation's last turns as the ticket, a system's reply as the
response, mean human coherence (1-3) as the label. Tone rows: a Wikipedia talk-page request as
the response (no ticket), its z-scored human politeness as the label.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "judge-dev"
LAST_TURNS = 2  # how much of the conversation becomes the ticket


@dataclass(frozen=True)
class Row:
    id: str
    ticket: str
    response: str
    human: float
    group: str  # rows of one conversation stay on one side of a split


def conversation_ticket(source: str) -> str:
    turns = [t.strip() for t in source.strip().split("\n") if t.strip()]
    return "\n".join(turns[-LAST_TURNS:])


def relevance_rows(data: Path = DATA) -> list[Row]:
    rows = json.loads((data / "topical_chat_coherence.json").read_text(encoding="utf-8"))
    conversations: dict[str, int] = {}
    out = []
    for index, row in enumerate(rows):
        group = conversations.setdefault(row["source"], len(conversations))
        out.append(
            Row(
                id=f"chat-{index:03d}",
                ticket=conversation_ticket(row["source"]),
                response=row["system_output"].strip(),
                human=float(row["scores"]["coherence"]),
                group=f"conversation-{group}",
            )
        )
    return out


def tone_rows(data: Path = DATA) -> list[Row]:
    with (data / "politeness_wikipedia.csv").open(encoding="utf-8", newline="") as handle:
        return [
            Row(
                id=f"wiki-{row['Id']}",
                ticket="",
                response=row["Request"].strip(),
                human=float(row["Normalized Score"]),
                group=row["Id"],
            )
            for row in csv.DictReader(handle)
        ]


def halves(rows: list[Row]) -> tuple[list[Row], list[Row]]:
    """A fixed two-way split by group (conversation or request), for cross-validation."""
    first = [r for r in rows if hash_group(r.group) % 2 == 0]
    second = [r for r in rows if hash_group(r.group) % 2 == 1]
    return first, second


def hash_group(group: str) -> int:
    # A stable hash: Python's own is salted per process.
    return sum((i + 1) * ord(c) for i, c in enumerate(group))
