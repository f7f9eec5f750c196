"""Eval files written by Hypothesis, in all four formats, with what each entry should become.

A generated entry is a ``Planned``: its fields, whether it is valid, and for an invalid one a
pattern its reason must match. ``eval_folders`` draws a folder of files (one or more per
format) with mixes of valid and invalid entries and file-level traits (a byte order mark,
mixed newlines, YAML anchors); now and then one file is broken as a whole (a YAML tab, a
trailing comma, a CSV file separated by semicolons), which is a collection error.

The writers compute the line where each entry starts themselves (every line break, ``\\r\\n``,
``\\r`` or ``\\n``, counts once, as editors and Python's universal newlines count them), so the
plugin's answer is checked against an independent count.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import strategies as st

FORMATS = (".json", ".jsonl", ".csv", ".yaml")
MAX_INPUT_CHARS = 100_000  # the plugin's default llmjudge_max_input_chars
HUGE_SIZES = (MAX_INPUT_CHARS + 1, 150_000, 5_000_000)  # 150,000: over CSV's cell limit
WORDS = (
    "refund", "password", "reset", "invoice", "Maven", "heap", "OOM", "Jenkins", "VPN",
    "certificate", "expired", "billing", "set", "MAVEN_OPTS=-Xmx2g", "restart", "the", "your",
)  # fmt: skip
ABSENT = "zq-never-in-any-answer"  # a check that fails: no generated answer holds it


@dataclass
class Planned:
    """One entry as written, and what the plugin should make of it."""

    value: Any  # the entry (an object, or anything else for "entry must be an object")
    cause: str | None = None  # None: valid; else a regex its one-line reason must match
    outcome: str | None = None  # a checked-only entry's known outcome; None: judged
    error: bool = False  # an error item even without --judge-strict (over the input limit)
    raw_line: str | None = None  # JSONL/CSV: this text instead of the serialised entry
    kind: str = ""  # what was generated, for failure messages

    @property
    def valid(self) -> bool:
        return self.cause is None


@dataclass
class EvalFileSpec:
    name: str  # "a.json"
    entries: list[Planned]
    bom: bool = False
    newlines: list[str] = field(default_factory=list)  # the line break after each entry
    broken: str | None = None  # a file-level break: the collection error's expected text
    anchors: bool = False  # YAML: two more valid entries sharing values through an anchor
    indent: bool = False  # JSON: entries over several lines


@dataclass
class Written:
    """A file as written: its text, and the line each entry starts on."""

    name: str
    text: str
    lines: list[int]
    entries: list[Planned]
    broken: str | None


# -- field values -------------------------------------------------------------------------

# Any unicode but surrogates (not encodable as UTF-8); NUL, controls, RTL marks included.
unicode_text = st.text(st.characters(codec="utf-8"), max_size=40)


def _meaningful(text: str) -> bool:
    return bool(text.strip())


words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)
# A non-empty text: words people write, and unicode around them.
texts = st.builds(
    lambda w, u, pre: f"{u} {w}" if pre else f"{w} {u}", words, unicode_text, st.booleans()
)
# Characters a node id cannot hold (the plugin rejects them in an id).
ID_BREAKERS = ("::", "[", "]", "/", "\\", "\n", "\r", "\x00", "\x1e", "\x85", "\u2028", "\x07")


def usable_id(text: str) -> bool:
    """An id the plugin takes (in a node id, no space around it)."""
    return (
        bool(text.strip())
        and text == text.strip()
        and not any(b in text for b in ID_BREAKERS)
        and not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text)
    )


# Unicode an id may hold: no controls, line separators or node id breakers.
id_text = st.text(
    st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="/[]\\:"),
    max_size=12,
)
ids = st.one_of(
    st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
    st.builds(
        lambda a, u: f"{a}-{u}".strip(), st.from_regex(r"[a-z]{1,8}", fullmatch=True), id_text
    ),
    st.integers(0, 30).map(lambda n: f"#{n}"),  # the name the plugin gives an entry without id
).filter(usable_id)
blank = st.sampled_from(["", " ", "\t", "\u3000", "\x1c", " \n "])


def huge(size: int) -> str:
    """A stand-in for ``size`` x's (written out by ``write``: a plan prints short)."""
    return f"<huge:{size}>"


_HUGE = re.compile(r"<huge:(\d+)>")


def expanded(text: str) -> str:
    """The text as written: stand-ins for huge strings written out."""
    return _HUGE.sub(lambda m: "x" * int(m.group(1)), text)


DEEP = "<3,000 levels of nesting>"  # too deep to serialise (or print) as a value
DEEP_JSON = '{"k": [' * 1500 + '"leaf"' + "]}" * 1500


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


# -- entries ------------------------------------------------------------------------------


@st.composite
def valid_entry(draw: st.DrawFn, entry_id: str) -> Planned:
    ticket, response = draw(texts), draw(texts)
    entry: dict[str, Any] = {"id": entry_id, "ticket": ticket, "response": response}
    outcome = None
    if draw(st.booleans()):  # checked only: an outcome known in advance
        passes = draw(st.booleans())
        word = response.split()[0] if passes else ABSENT
        entry.update(judge=False, checks=[{"contains": word}])
        outcome = "passed" if passes else "failed"
    extras = draw(
        st.sets(st.sampled_from(["metadata", "runs", "thresholds", "marks", "extra", "unicode"]))
    )
    if "metadata" in extras:
        entry["metadata"] = {
            "team": draw(unicode_text),
            "nested": _nested(draw(st.integers(0, 20))),
        }
    if "runs" in extras:
        entry["runs"] = draw(st.integers(1, 3))
    if "thresholds" in extras:
        entry["thresholds"] = {"relevance": draw(st.sampled_from([1, 2, 3.5, 5]))}
    if "marks" in extras:
        entry["marks"] = ["slow"]  # registered in the generated folder's ini
    if "extra" in extras:
        entry["notes"] = draw(unicode_text)  # an unknown field: a warning, still valid
    if "unicode" in extras:
        entry["metadata"] = {draw(unicode_text): draw(unicode_text)}
    return Planned(entry, outcome=outcome, kind="valid" + ("" if outcome is None else "-checked"))


def _field_name(field_: str) -> str:
    return re.escape(f"'{field_}'")


@st.composite
def invalid_entry(draw: st.DrawFn, entry_id: str, fmt: str, earlier_ids: list[str]) -> Planned:
    """An entry with one thing wrong, and the pattern its reason must match."""
    base = draw(valid_entry(entry_id))
    entry = dict(base.value)
    entry.pop("judge", None), entry.pop("checks", None)
    kinds = ["missing", "blank", "huge", "bad id", "runs", "threshold", "deep"]
    if fmt != ".csv":  # types and shapes CSV cannot express
        kinds += ["wrong type", "not an object", "marks", "checks"]
    if fmt in (".jsonl", ".csv"):
        kinds += ["unreadable line"]
    reusable = [i for i in earlier_ids if usable_id(i)]
    if reusable:
        kinds += ["duplicate"]
    kind = draw(st.sampled_from(kinds))
    cause: str
    error = False
    raw_line = None
    if kind == "missing":
        name = draw(st.sampled_from(["id", "ticket", "response"]))
        del entry[name]
        cause = f"Missing {_field_name(name)} field"
    elif kind == "blank":
        name = draw(st.sampled_from(["id", "ticket", "response"]))
        entry[name] = draw(blank)
        if fmt == ".csv":  # an empty cell is an absent field
            cause = f"Missing {_field_name(name)} field|{_field_name(name)} must be a non-empty"
        else:
            cause = f"{_field_name(name)} must be a non-empty string|Missing {_field_name(name)}"
        if name == "id":
            cause += "|'id' .* cannot be part of a pytest node id|leading or trailing spaces"
    elif kind == "huge":
        name = draw(st.sampled_from(["ticket", "response"]))
        # 5 MB of YAML takes PyYAML (pure Python) many seconds: JSON, JSONL and CSV carry it
        sizes = HUGE_SIZES[:2] if fmt == ".yaml" else HUGE_SIZES
        entry[name] = huge(draw(st.sampled_from(sizes)))
        cause = r"ticket \+ response are [\d,]+ characters, over llmjudge_max_input_chars"
        error = True
    elif kind == "bad id":
        breaker = draw(st.sampled_from(ID_BREAKERS))
        entry["id"] = f"{entry_id}{breaker}x"
        cause = "'id' .* cannot be part of a pytest node id"
    elif kind == "runs":
        value = draw(st.sampled_from([0, 101, -1, "three", 10**200]))
        entry["runs"] = value
        cause = "'runs' must be"
    elif kind == "threshold":
        value = draw(st.sampled_from([0, 6, 9.5, "high"]))
        entry["thresholds"] = {"relevance": value}
        cause = "'thresholds.relevance' must be"
    elif kind == "deep":
        depth = draw(st.sampled_from([51, 120] if fmt in (".yaml", ".csv") else [51, 120, 3000]))
        if fmt == ".csv":  # metadata cells are text: nest inside the checks' JSON instead
            entry["checks"] = [{"equals": _nested(depth)}]
            cause = "'checks' is nested more than 50 levels deep|nested too deeply"
        else:  # 3,000 levels: too deep for Python's parser; written as text (DEEP)
            entry["metadata"] = {"deep": _nested(depth) if depth < 1000 else DEEP}
            cause = "'metadata' is nested (more than 50 levels deep|too deeply to read)"
    elif kind == "wrong type":
        name = draw(st.sampled_from(["id", "ticket", "response"]))
        value = draw(st.sampled_from([7, 2.5, True, ["a"], {"a": 1}]))
        entry[name] = value
        cause = f"{_field_name(name)} must be a string, got \\w+"
    elif kind == "not an object":
        entry = draw(st.sampled_from(["just text", 3, ["a", "list"], None, True]))
        cause = "entry must be an object, got \\w+"
    elif kind == "marks":
        entry["marks"] = draw(st.sampled_from(["slow", ["__class__"], ["usefixtures"], [3]]))
        cause = "'marks"
    elif kind == "checks":
        entry["checks"] = draw(st.sampled_from([[{"containz": "x"}], "contains", [{"regex": "("}]]))
        cause = "'?checks"
    elif kind == "duplicate":
        entry["id"] = draw(st.sampled_from(reusable))
        cause = "Duplicate id"
    else:  # an unreadable line or row
        if fmt == ".jsonl":
            raw_line = draw(
                st.sampled_from(['{"id": "x", "ticket": ', '{"id": "x",}', "{'id': 1}"])
            )
            cause = "not JSON"
        else:
            raw_line = "surplus"  # the CSV writer adds cells beyond the header
            cause = r"\d+ cell\(s\) more than the header has"
    return Planned(entry, cause=cause, error=error, raw_line=raw_line, kind=kind)


@st.composite
def eval_file(draw: st.DrawFn, fmt: str, stem: str) -> EvalFileSpec:
    count = draw(st.integers(1, 8))
    entries: list[Planned] = []
    # ids the entries so far have, valid or not: the first entry with an id owns it, a later
    # one is a duplicate (a duplicate reuses one of these)
    used: list[str] = []
    for _ in range(count):
        entry_id = draw(ids.filter(lambda s: s not in used))
        if draw(st.integers(0, 2)) == 0:
            planned = draw(invalid_entry(entry_id, fmt, used))
        else:
            planned = draw(valid_entry(entry_id))
        value = planned.value
        # an unreadable line or row has no id the plugin could see
        readable = isinstance(value, dict) and planned.raw_line is None
        if readable and isinstance(value.get("id"), str) and value["id"] not in used:
            used.append(value["id"])
        entries.append(planned)
    newline = (
        st.sampled_from(["\n", "\r\n", "\r"]) if fmt != ".csv" else st.sampled_from(["\r\n", "\n"])
    )
    spec = EvalFileSpec(
        name=f"{stem}{fmt}",
        entries=entries,
        bom=draw(st.booleans()),
        newlines=[draw(newline) for _ in entries],
        anchors=fmt == ".yaml" and draw(st.booleans()),
        indent=fmt == ".json" and draw(st.booleans()),
    )
    return spec


@st.composite
def eval_folders(draw: st.DrawFn) -> list[EvalFileSpec]:
    """One to four eval files (formats drawn), sometimes one broken as a whole."""
    formats = draw(st.lists(st.sampled_from(FORMATS), min_size=1, max_size=4))
    files = [draw(eval_file(fmt, f"f{n}")) for n, fmt in enumerate(formats)]
    if draw(st.integers(0, 9)) == 0:
        victim = draw(st.sampled_from(files))
        victim.broken = draw(st.sampled_from(_BREAKS[victim.name.rsplit(".", 1)[1]]))
    return files


# How a whole file gets broken, by format, and what its one-line error says.
_BREAKS = {
    "json": ["trailing comma", "truncated"],
    "jsonl": ["binary"],
    "csv": ["semicolons", "binary"],
    "yaml": ["tab", "unclosed"],
}
BREAK_MESSAGES = {
    "trailing comma": "invalid JSON: a trailing comma after the last entry",
    "truncated": "invalid JSON at line",
    "binary": "not UTF-8 text",
    "semicolons": "the file seems separated by semicolons",
    "tab": "invalid YAML at line",
    "unclosed": "invalid YAML",
}


# -- writers ------------------------------------------------------------------------------


def _lines_before(text: str) -> int:
    """The 1-based line at the end of ``text``: every kind of line break counts once."""
    return text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1


def write(spec: EvalFileSpec) -> tuple[bytes, Written]:
    fmt = spec.name.rsplit(".", 1)[1]
    text, lines = {"json": _json, "jsonl": _jsonl, "csv": _csv, "yaml": _yaml}[fmt](spec)
    entries = list(spec.entries)
    if spec.anchors:
        entries += [Planned({"id": f"anchored-{s}"}, kind="anchored") for s in "ab"]
    text = expanded(text)
    data = ("\ufeff" if spec.bom else "").encode() + text.encode("utf-8")
    broken = None
    if spec.broken:
        data, broken = _break(spec.broken, fmt, text), BREAK_MESSAGES[spec.broken]
    return data, Written(spec.name, text, lines, entries, broken)


def _break(how: str, fmt: str, text: str) -> bytes:
    if how == "trailing comma":
        return (text.rstrip().removesuffix("]").rstrip() + ",\n]").encode()
    if how == "truncated":
        return text[: len(text) // 2].encode() + b'{"id": '
    if how == "binary":
        return b"\xff\xfe\x00garbage" + text.encode()
    if how == "semicolons":
        return b"id;ticket;response\nx;Where is my refund?;It was sent.\n"
    if how == "tab":
        return b"- id: a\n\tticket: t\n"
    return b"- id: [unclosed\n"


def _json(spec: EvalFileSpec) -> tuple[str, list[int]]:
    out, lines = "[\n", []
    for n, (planned, newline) in enumerate(zip(spec.entries, spec.newlines, strict=True)):
        lines.append(_lines_before(out))
        out += _dumps(planned.value, ensure_ascii=n % 2 == 0, indent=2 if spec.indent else None)
        out += ("," if n < len(spec.entries) - 1 else "") + newline
    return out + "]\n", lines


def _dumps(value: Any, ensure_ascii: bool, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).replace(
        json.dumps(DEEP), DEEP_JSON
    )


def _jsonl(spec: EvalFileSpec) -> tuple[str, list[int]]:
    out, lines = "", []
    for n, (planned, newline) in enumerate(zip(spec.entries, spec.newlines, strict=True)):
        lines.append(_lines_before(out))
        out += planned.raw_line or _dumps(planned.value, ensure_ascii=n % 2 == 1)
        out += newline
        if n == 0:
            out += newline  # a blank line between entries is not an entry
    return out, lines


CSV_HEADER = ["id", "ticket", "response", "runs", "thresholds.relevance", "marks", "checks",
              "judge", "metadata.team", "notes"]  # fmt: skip


def _cell(entry: dict[str, Any], column: str) -> str:
    section, _, key = column.partition(".")
    value = entry.get(section, {}).get(key) if key else entry.get(column)
    if value is None:
        return ""
    if column == "checks":
        return json.dumps(value)
    if column == "marks":
        return ";".join(value)
    if column == "judge":
        return "false" if value is False else "true"
    return str(value)


def _csv(spec: EvalFileSpec) -> tuple[str, list[int]]:
    def row(cells: list[str], newline: str) -> str:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerow(cells)
        return buffer.getvalue().removesuffix("\r\n") + newline

    out, lines = row(CSV_HEADER, "\n"), []
    for planned, newline in zip(spec.entries, spec.newlines, strict=True):
        lines.append(_lines_before(out))
        cells = [_cell(planned.value, column) for column in CSV_HEADER]
        if planned.raw_line == "surplus":
            cells += ["one", "two"]
        out += row(cells, newline)
    return out, lines


def _yaml(spec: EvalFileSpec) -> tuple[str, list[int]]:
    out, lines = "", []
    for n, (planned, newline) in enumerate(zip(spec.entries, spec.newlines, strict=True)):
        lines.append(_lines_before(out))
        chunk = yaml.safe_dump([planned.value], allow_unicode=n % 2 == 0, width=2**16)
        out += chunk.replace("\n", newline)
    if spec.anchors:
        for suffix, body in (("a", "&shared Where is my refund?"), ("b", "*shared")):
            lines.append(_lines_before(out))
            out += (
                f"- id: anchored-{suffix}\n  ticket: {body}\n"
                "  response: Your refund was sent on Monday.\n  metadata: {team: billing}\n"
            )
    return out, lines


def yaml_round_trips(spec: EvalFileSpec) -> bool:
    """Whether PyYAML reads back what it wrote (else the plan would be wrong, not the plugin)."""
    if not spec.name.endswith(".yaml"):
        return True
    for planned in spec.entries:
        chunk = yaml.safe_dump([planned.value], allow_unicode=True, width=2**16)
        try:
            if yaml.safe_load(chunk) != [planned.value]:
                return False
        except (yaml.YAMLError, RecursionError):
            return False
    return True
