"""The minimal examples Hypothesis found (tests/property/), one regression test each: what a
file held, and the one line it must now give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_llmjudge.basics.wording import entry_place
from pytest_llmjudge.evalfiles.eval_file import InvalidEntry, ValidEntry, parse_eval_text

DIMS = ("relevance", "tone")


def _reasons(text: str, name: str) -> list[tuple[int | None, str, str]]:
    loaded = parse_eval_text(text, Path(name), DIMS, max_input_chars=100_000)
    return [
        (e.line, e.name, e.reason if isinstance(e, InvalidEntry) else "valid")
        for e in loaded.entries
    ]


def test_the_place_is_file_line_and_name() -> None:
    assert entry_place("evals/a.csv", 5, "ticket-1") == "evals/a.csv:5 (ticket-1)"
    assert entry_place("evals/a.csv", None, "#0") == "evals/a.csv (#0)"


def test_a_csv_cell_over_the_csv_modules_limit_is_an_over_long_entry() -> None:
    text = f"id,ticket,response\na,Where is my refund?,{'x' * 150_000}\nb,t,r\n"
    (first, second) = _reasons(text, "f.csv")
    assert first[:2] == (2, "a") and "150,019 characters, over" in first[2]
    assert second == (3, "b", "valid")


@pytest.mark.parametrize("blank", ["\x1c", "\x1f", " \x1d "])
def test_text_python_counts_as_blank_is_not_a_ticket(blank: str) -> None:
    text = json.dumps([{"id": "a", "ticket": blank, "response": "r"}])
    assert _reasons(text, "f.json") == [(1, "a", "'ticket' must be a non-empty string")]


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029", "\x1e", "\x0c"])
def test_a_jsonl_line_is_cut_only_at_line_breaks(separator: str) -> None:
    entry = {"id": "a", "ticket": f"t{separator}t", "response": "r"}
    text = json.dumps(entry, ensure_ascii=False) + "\n" + json.dumps({**entry, "id": "b"})
    assert [(line, name) for line, name, _ in _reasons(text, "f.jsonl")] == [(1, "a"), (2, "b")]


def test_an_id_belongs_to_its_first_entry_even_an_invalid_one() -> None:
    text = json.dumps([{"id": "a", "ticket": "t"}, {"id": "a", "ticket": "t", "response": "r"}])
    reasons = _reasons(text, "f.json")
    assert reasons[0][1:] == ("a", "Missing 'response' field")
    assert reasons[1][1:] == ("a#1", "Duplicate id 'a' (already used by the entry at line 1)")


def test_a_valid_id_that_looks_like_a_generated_name_keeps_items_apart() -> None:
    text = json.dumps(
        [{"ticket": "t", "response": "r"}, {"id": "#0", "ticket": "t", "response": "r"}]
    )
    loaded = parse_eval_text(text, Path("f.json"), DIMS)
    names = [e.name for e in loaded.entries]
    assert names == ["#0", "#0#1"] and isinstance(loaded.entries[1], ValidEntry)


DEPTH = 20_000  # past the parser's limit on every Python (3.13 parses 3,000 levels)


def test_jsonl_nested_too_deep_or_with_huge_numbers_names_the_field() -> None:
    deep = '{"id": "a", "ticket": "t", "response": "r", "metadata": ' + "[" * DEPTH + "]" * DEPTH
    huge = '{"id": "b", "ticket": "t", "response": "r", "runs": ' + "9" * 5000 + "}"
    reasons = _reasons(deep + "}\n" + huge + "\n", "f.jsonl")
    assert reasons[0] == (1, "#0", "'metadata' is nested too deeply to read")
    assert reasons[1] == (2, "b", "'runs' must be a sensible number, got one with 5000 digits")


@pytest.mark.parametrize(("char", "code"), [("\x1e", "001E"), ("\x85", "0085"), ("\u2028", "2028")])
def test_ids_with_control_characters_or_line_separators_are_refused(char: str, code: str) -> None:
    text = json.dumps([{"id": f"a{char}b", "ticket": "t", "response": "r"}])
    (only,) = _reasons(text, "f.json")
    assert only[2].endswith(f"it contains the control character U+{code}")


def test_metadata_nested_past_the_limit_is_an_invalid_entry() -> None:
    nested: object = "leaf"
    for _ in range(60):
        nested = [nested]
    text = json.dumps([{"id": "a", "ticket": "t", "response": "r", "metadata": {"x": nested}}])
    assert _reasons(text, "f.json") == [(1, "a", "'metadata' is nested more than 50 levels deep")]


def test_a_junit_property_name_quoting_a_control_character_stays_xml() -> None:
    from xml.etree import ElementTree

    from pytest_llmjudge.reports.item_text import _xml_safe

    name = _xml_safe('contains "\x1a\x00ok"')
    assert name == 'contains "#x1A#x00ok"'
    quoted = name.replace('"', "&quot;")  # as pytest writes an attribute
    ElementTree.fromstring(f'<property name="{quoted}" />')  # parses: no raw \x1a left


DEEP_ENTRY = (
    '{"id": "d", "ticket": "t", "response": "r", "metadata": ' + "[" * DEPTH + "]" * DEPTH + "}"
)


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        (",\n]", "a trailing comma after the last entry at line 3"),
        ("\n]\n]", "invalid JSON at line 5, column 1: Extra data"),
        ("", "Unexpected end of the file"),
    ],
)
def test_a_file_too_deep_for_the_parser_is_still_checked_as_json(tail: str, message: str) -> None:
    from pytest_llmjudge.evalfiles.eval_file import EvalFileError

    text = '[\n{"id": "a", "ticket": "t", "response": "r"},\n' + DEEP_ENTRY + tail
    with pytest.raises(EvalFileError, match=message):
        parse_eval_text(text, Path("f.json"), DIMS)


def test_a_list_whose_first_entry_is_wrong_is_still_an_eval_file() -> None:
    from pytest_llmjudge.evalfiles.json_shape import eval_shaped

    assert eval_shaped('["just text", {"id": "a", "ticket": "t", "response": "r"}]')
    assert eval_shaped('["just text", {"id": "a", "ticket": "t", "response": "r"},\n]')
    assert not eval_shaped('["a", "b"]')  # some other tool's list
