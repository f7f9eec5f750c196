"""promptfoo's own unit tests for the assertion kinds this project shares, translated case by
case (promptfoo/promptfoo, test/assertions/<file>; the file is named above each group): the
same check on the same output reaches the same verdict here. A case promptfoo expects to throw
(a bad configuration) is an invalid check here (ValueError naming it). Cases that need an empty
output (an entry's response never is) or JavaScript internals are left out."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from pytest_llmjudge.checks.apply import apply_checks, python_verdict
from pytest_llmjudge.checks.parse import parse_checks, split_texts
from pytest_llmjudge.schema.items import CheckResult

CI = {"case": "insensitive"}


def check(spec: dict[str, Any], answer: str, rootdir: Path | None = None) -> CheckResult:
    (result,) = apply_checks(parse_checks([spec], rootdir), answer, {"id": "x"})
    return result


def verdicts(cases: list[tuple[dict[str, Any], str, bool]]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(("spec", "answer", "passes"), cases)


# --- contains.test.ts -------------------------------------------------------------------
A, L = "contains_any", "contains_all"


@verdicts(
    [
        ({"contains": "world"}, "hello world", True),
        ({"contains": "universe"}, "hello world", False),
        ({"not_contains": "universe"}, "hello world", True),
        ({"contains": "WORLD", **CI}, "hello world", True),
        ({"contains": "WoRlD", **CI}, "Hello WORLD", True),
        # numeric values, for contains and icontains
        ({"contains": 0}, "There are 0 errors", True),
        ({"contains": 0}, "no digits here", False),
        ({"contains": 0, **CI}, "There are 0 errors", True),
        ({"contains": 0, **CI}, "no digits here", False),
        ({"contains": math.inf}, "Infinity", True),
        ({"contains": -math.inf, **CI}, "-Infinity", True),
        # contains-any
        ({A: ["world", "universe"]}, "hello world", True),
        ({A: "world,universe"}, "hello world", True),
        ({A: '"hello, world",universe'}, "hello, world", True),
        (
            {A: '"hello, dear world", "goodbye, universe", simple'},
            "hello, dear world is here",
            True,
        ),
        ({A: '"hello, world"\t,foo'}, "zzz", False),
        ({A: '"hello, world"\t,\t"foo"'}, "foo", True),
        ({A: '"a""b",c'}, 'a"b', True),
        ({A: '"a""b",c'}, "b", False),
        ({A: r'"hello\"world,test", "another,test"'}, 'hello"world,test', True),
        ({A: '""'}, "test", True),
        ({A: '"test"'}, "test", True),
        ({A: r'"test\test"'}, r"test\test", True),
        ({A: r'"test\\test"'}, r"test\test", True),
        ({A: r'"hello\"world,test", "another,test"'}, "another,test", True),
        ({A: r'"hello\"world,test", "another,test"'}, "something completely different", False),
        # icontains-any
        ({A: r'"hello\"world,test", "another,test"', **CI}, "ANOTHER,TEST", True),
        ({A: '"hello, world",universe', **CI}, "HELLO, WORLD", True),
        ({A: ["WORLD", "UNIVERSE"], **CI}, "hello world", True),
        ({A: "WORLD,UNIVERSE", **CI}, "hello world", True),
        ({A: "HELLO,  WORLD  ,  UNIVERSE", **CI}, "hello", True),
        ({A: "  HELLO  ", **CI}, "hello", True),
        ({A: "HELLO  ,  WORLD", **CI}, "hello", True),
        ({A: "  HELLO  ,  ,  WORLD  ", **CI}, "hello", True),
        ({A: "HELLO,,,,WORLD", **CI}, "hello", True),
        # contains-all and icontains-all
        ({L: '"hello, world","foo"'}, "hello, world and foo", True),
        ({L: '"hello, world","bar"'}, "hello, world and foo", False),
        ({L: "hello"}, "hello world", True),
        ({L: r'"say \"hello\"", "another,phrase"'}, 'say "hello" and another,phrase here', True),
        ({L: r'"say \"hello\"", "missing,value"'}, 'say "hello" only', False),
        ({L: ["hello", "world"]}, "hello world", True),
        ({L: ["hello", "world", "universe"]}, "hello world", False),
        ({L: '"Hello, World","Foo"', **CI}, "HELLO, WORLD AND FOO", True),
        ({L: '""', **CI}, "hello", True),
        ({L: ["HeLLo", "WoRLD"], **CI}, "HELLO world", True),
        ({L: ["HELLO", "WORLD", "UNIVERSE"], **CI}, "hello world", False),
    ]
)
def test_contains(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"contains": None}, "must be a non-empty string or a number, got None"),
        ({"contains": math.nan}, "must be a non-empty string or a number, got nan"),
        ({A: '"test'}, "a quote is left open"),
        ({A: '"hello"world'}, "a comma must follow the quoted text 'hello'"),
        ({A: '"hello" world'}, "a comma must follow the quoted text 'hello'"),
        ({A: "  ,  ,  "}, "names no text"),
    ],
)
def test_contains_values_promptfoo_rejects_are_invalid(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"checks.0: {next(iter(spec))} .*{message}"):
        parse_checks([spec])


@pytest.mark.parametrize(
    ("written", "hint"),
    [
        ("not-word-count", "did you mean 'not_words'?"),
        ("character-count", "did you mean 'chars'?"),
        ("icontains-any", 'did you mean \'contains_any\' with "case": "insensitive"?'),
        ("not-icontains", 'did you mean \'not_contains\' with "case": "insensitive"?'),
        ("starts-with", "did you mean 'starts_with'?"),
        ("latency", "did you mean 'max_latency_ms'?"),
    ],
)
def test_a_promptfoo_name_gets_the_name_here(written: str, hint: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_checks([{written: 3}])
    assert f"unknown check '{written}' ({hint} known: " in str(raised.value)


def test_comma_separated_texts_are_split_as_promptfoo_splits_them() -> None:
    assert split_texts(",WORLD,,") == ["WORLD"]
    assert split_texts('"",WORLD') == ["", "WORLD"]
    assert split_texts('"a""b",c') == ['a"b', "c"]
    assert split_texts(r'"say \"hi\"", x\y') == ['say "hi"', r"x\y"]


# --- contains-multi.test.ts, icontains.test.ts, not-contains.test.ts ----------------------
OPTIONS = ["option1", "option2", "option3"]


@verdicts(
    [
        ({A: OPTIONS}, "This output contains option1", True),
        ({A: OPTIONS}, "This output does not contain any option", False),
        ({L: OPTIONS}, "This output contains option1, option2, and option3", True),
        ({L: OPTIONS}, "This output contains only option1 and option2", False),
        ({"contains": "expected output", **CI}, "EXPECTED OUTPUT", True),
        ({"contains": "expected output", **CI}, "Different output", False),
        ({"not_contains": "unexpected output", **CI}, "Expected output", True),
        ({"not_contains": "unexpected output", **CI}, "UNEXPECTED OUTPUT", False),
        ({A: OPTIONS, **CI}, "This output contains OPTION1", True),
        ({L: OPTIONS, **CI}, "This output contains OPTION1, option2, and opTiOn3", True),
        ({L: OPTIONS, **CI}, "This output contains only OPTION1 and option2", False),
        ({"not_contains": "unexpected content"}, "Expected output without the content", True),
        ({"not_contains": "unexpected content"}, "This contains unexpected content here", False),
        # not-contains-all / not-contains-any (index.test.ts's inverse forms)
        ({"not_contains_all": "option1,option3"}, "option1 only", True),
        ({"not_contains_all": "option1,option3"}, "option1 and option3", False),
        ({"not_contains_any": "option1,option3"}, "option2", True),
        ({"not_contains_any": "option1,option3"}, "option3", False),
    ]
)
def test_contains_multi_icontains_not_contains(
    spec: dict[str, Any], answer: str, passes: bool
) -> None:
    assert check(spec, answer).passed is passes


# --- equals.test.ts, not-equals.test.ts, starts-with.test.ts --------------------------------
@verdicts(
    [
        ({"equals": {"z": -0.0, "a": "expected"}}, '{"z":0,"a":"actual"}', False),
        ({"not_equals": {"foo": "bar"}}, "hello world", True),
        ({"equals": {"foo": "bar"}}, "hello world", False),
        ({"equals": {"foo": "bar"}}, '{"foo":"bar"}', True),
        ({"equals": {"foo": "bar"}}, '{"foo":"baz"}', False),
        ({"equals": "hello world"}, "hello world", True),
        ({"equals": "goodbye world"}, "hello world", False),
        ({"not_equals": "hello world"}, "hello world", False),
        ({"not_equals": "goodbye world"}, "hello world", True),
        ({"not_equals": "Unexpected output"}, "Expected output", True),
        ({"not_equals": "Unexpected output"}, "Unexpected output", False),
        ({"starts_with": "Expected"}, "Expected output", True),
        ({"starts_with": "Expected"}, "Different output", False),
        ({"not_starts_with": "Expected"}, "Different output", True),
        ({"not_starts_with": "Expected"}, "Expected output", False),
        # JSON equality is by value, and true is not 1
        ({"equals": {"a": [1, 2.0]}}, '{"a": [1.0, 2]}', True),
        ({"equals": {"a": True}}, '{"a": 1}', False),
        ({"equals": 42}, "42", True),
    ]
)
def test_equals_and_starts_with(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


def test_not_equals_says_what_it_got() -> None:
    result = check({"not_equals": "Unexpected output"}, "Unexpected output")
    assert (result.name, result.detail) == (
        'not_equals "Unexpected output"',
        'got "Unexpected output"',
    )


# --- regex.test.ts ----------------------------------------------------------------------
SSN = r"\d{3}-\d{2}-\d{4}"


@verdicts(
    [
        ({"regex": SSN}, "This output contains 123-45-6789", True),
        ({"regex": SSN}, "This output does not contain the pattern", False),
        ({"not_regex": SSN}, "This output does not contain the pattern", True),
        ({"not_regex": SSN}, "This output contains 123-45-6789", False),
        # what the regex package runs is what it accepts: named groups, Unicode properties
        ({"regex": r"(?<word>\p{L}+)-(?&word)"}, "état-ça", True),
    ]
)
def test_regex(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


def test_not_regex_says_what_matched() -> None:
    assert check({"not_regex": SSN}, "SSN 123-45-6789.").detail == 'matched "123-45-6789"'


# --- is-json.test.ts --------------------------------------------------------------------
GEO = {
    "required": ["latitude", "longitude"],
    "type": "object",
    "properties": {
        "latitude": {"type": "number", "minimum": -90, "maximum": 90},
        "longitude": {"type": "number", "minimum": -180, "maximum": 180},
    },
}
DATE = {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}}
EMAIL = {"type": "string", "format": "email"}


@verdicts(
    [
        ({"is_json": True}, '{"key":"value"}', True),
        ({"is_json": True}, "Not valid JSON", False),
        ({"is_json": GEO}, '{"latitude": 80.123, "longitude": -1}', True),
        ({"is_json": GEO}, '{"latitude": "high", "longitude": [-1]}', False),
        ({"json_schema": GEO}, '{"latitude": "high", "longitude": [-1]}', False),
        ({"is_json": DATE}, '{"date": "2021-08-29"}', True),
        ({"is_json": DATE}, '{"date": "not a date"}', False),
        ({"json_schema": EMAIL}, '"not-an-email"', False),
        ({"json_schema": EMAIL}, '"ann@example.com"', True),
        ({"not_is_json": True}, "Not valid JSON", True),
        ({"not_is_json": True}, '{"key":"value"}', False),
    ]
)
def test_is_json(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


def test_a_format_is_checked_and_named() -> None:
    assert check({"is_json": DATE}, '{"date": "not a date"}').detail == (
        "$.date: 'not a date' is not a 'date'"
    )


def test_a_format_that_cannot_be_checked_makes_the_check_invalid() -> None:
    with pytest.raises(ValueError, match=r"format 'x-custom' cannot be checked here \(is not a"):
        parse_checks([{"json_schema": {"type": "string", "format": "x-custom"}}])
    from jsonschema import Draft202012Validator

    if "date-time" not in Draft202012Validator.FORMAT_CHECKER.checkers:  # without the extras
        with pytest.raises(ValueError, match=r"pytest-llmjudge\[formats\]"):
            parse_checks([{"is_json": {"type": "string", "format": "date-time"}}])


# --- contains-json.test.ts --------------------------------------------------------------
NESTED = '{"key": "value", "key2": {"key3": "value2", "key4": ["value3", "value4"]}}'


@verdicts(
    [
        ({"contains_json": True}, f"this is some other stuff \n\n {NESTED} \n\n blah blah", True),
        ({"contains_json": True}, f"stuff \n\n {NESTED} another {NESTED}\n\n blah blah", True),
        ({"contains_json": True}, "Not valid JSON", False),
        (
            {"contains_json": GEO},
            'here is the answer\n\n```{"latitude": 80.123, "longitude": -1}```',
            True,
        ),
        (
            {"contains_json": GEO},
            'here is the answer\n\n```{"latitude": "medium", "longitude": -1}```',
            False,
        ),
        # a Markdown fence with a language, and braces in prose before it
        (
            {"contains_json": GEO},
            'Use {braces}:\n```json\n{"latitude": 1, "longitude": 2}\n```',
            True,
        ),
    ]
)
def test_contains_json(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


def test_contains_json_says_why_nothing_followed_the_schema() -> None:
    result = check({"contains_json": GEO}, 'here: {"latitude": "medium", "longitude": -1}')
    assert result.detail == (
        "no JSON found follows the schema ($.latitude: 'medium' is not of type 'number')"
    )


# --- characterCount.test.ts -------------------------------------------------------------
@verdicts(
    [
        ({"chars": 5}, "hello", True),
        ({"chars": 3}, "A\U0001f600B", True),
        ({"chars": 2}, "e\u0301", True),
        ({"chars": 7}, "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466", True),
        ({"chars": "3"}, "abc", True),
        ({"chars": {"min": 3, "max": 5}}, "abcd", True),
        ({"chars": {"min": 4}}, "abcd", True),
        ({"chars": {"max": 4}}, "abcd", True),
        ({"chars": {"min": 5, "max": 10}}, "abc", False),
        ({"not_chars": 4}, "abc", True),
        ({"not_chars": {"min": 2, "max": 4}}, "abc", False),
        ({"min_chars": 5}, "abc", False),
        ({"max_chars": 3}, "abc", True),
    ]
)
def test_character_count(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, "must be a whole number >= 0"),
        (math.inf, "must be a whole number >= 0"),
        (math.nan, "must be a whole number >= 0"),
        ({"min": -1}, "min must be a whole number >= 0, got -1"),
        ({"max": -math.inf}, "max must be a whole number >= 0"),
        ({"min": math.nan}, "min must be a whole number >= 0"),
        ({"min": 5, "max": 4}, r"min \(5\) is above max \(4\)"),
        ({}, "takes an object with 'min' and/or 'max'"),
    ],
)
def test_character_count_values_promptfoo_rejects_are_invalid(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"checks.0: chars {message}"):
        parse_checks([{"chars": value}])


# --- wordCount.test.ts ------------------------------------------------------------------
S5 = "This is a test sentence"
THREE = "Three word text"


@verdicts(
    [
        ({"words": 5}, S5, True),
        ({"words": "3"}, "Hello world test", True),
        ({"words": 10}, "Short text", False),
        ({"words": 4}, "Word   with    multiple     spaces", True),
        ({"words": 1}, "Hello", True),
        ({"words": {"min": 3, "max": 7}}, S5, True),
        ({"words": {"min": 5, "max": 10}}, S5, True),
        ({"words": {"min": 1, "max": 5}}, S5, True),
        ({"words": {"min": 10, "max": 20}}, "Too few words", False),
        ({"words": {"min": 1, "max": 3}}, "This has way too many words in it", False),
        ({"words": {"min": 3}}, S5, True),
        ({"words": {"min": 10}}, "Too short", False),
        ({"words": {"max": 10}}, "Short text here", True),
        ({"words": {"max": 3}}, "This text has too many words", False),
        ({"not_words": 10}, "Short text", True),
        ({"not_words": 2}, "Two words", False),
        ({"not_words": {"min": 1, "max": 5}}, THREE, False),
        ({"not_words": {"min": 2}}, THREE, False),
        ({"not_words": {"max": 5}}, THREE, False),
        ({"words": 7}, "First line\nSecond line here\nThird line", True),
        ({"words": 4}, "Word\tWith\tTabs\tHere", True),
        ({"min_words": 3}, THREE, True),
        ({"max_words": 2}, THREE, False),
    ]
)
def test_word_count(spec: dict[str, Any], answer: str, passes: bool) -> None:
    assert check(spec, answer).passed is passes


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "must be a whole number >= 0"),
        ({}, "takes an object with 'min' and/or 'max'"),
        ("invalid", "must be a whole number >= 0"),
        ({"min": 10, "max": 5}, r"min \(10\) is above max \(5\)"),
    ],
)
def test_word_count_values_promptfoo_rejects_are_invalid(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"checks.0: words {message}"):
        parse_checks([{"words": value}])


def test_a_failed_count_says_the_count_and_the_name_the_range() -> None:
    result = check({"not_words": {"min": 1, "max": 5}}, THREE)
    assert (result.name, result.detail) == ("not_words 1-5", "got 3")


# --- latency.test.ts --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("latency", "passes"), [(50.0, True), (1000.0, False), (0.0, True), (100.0, True)]
)
def test_latency(latency: float, passes: bool) -> None:
    specs = parse_checks([{"max_latency_ms": 100}])
    (result,) = apply_checks(specs, "Expected output", {}, latency)
    assert result.passed is passes and result.detail == f"took {latency:.0f} ms"


def test_latency_without_a_measured_latency_is_an_error_never_a_pass() -> None:
    (result,) = apply_checks(parse_checks([{"max_latency_ms": 100}]), "Expected output", {}, None)
    assert (result.passed, result.error) == (False, True)
    assert result.detail.startswith("no latency was measured")
    with pytest.raises(ValueError, match="max_latency_ms must be a whole number >= 0, got None"):
        parse_checks([{"max_latency_ms": None}])  # promptfoo: "must have a threshold"


# --- python.test.ts ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("returned", "threshold", "passes", "detail"),
    [
        (True, None, True, ""),
        (0.75, None, True, "score 0.75"),
        ("0.5", None, True, "score 0.5"),
        (False, None, False, "returned false"),
        (0, None, False, "score 0"),
        ({"pass": False, "score": 0, "reason": "Custom error"}, None, False, "Custom error"),
        (1, None, True, "score 1"),
        ({"pass": True, "score": 1, "reason": "Custom success"}, None, True, "Custom success"),
        (
            {"pass": True, "score": 0.4, "reason": "Foo bar"},
            0.5,
            False,
            "score 0.4 is below the threshold 0.5",
        ),
        ("True", None, True, ""),
        ("False", None, False, "returned false"),
        ("0", None, False, "score 0"),
        (0.5, None, True, "score 0.5"),
        ('{"pass": true, "score": 1, "reason": "Custom reason"}', None, True, "Custom reason"),
        ((False, "too long"), None, False, "too long"),
        (0.5, 0.5, True, "score 0.5"),
        (0.4, 0.5, False, "score 0.4 is below the threshold 0.5"),
    ],
)
def test_python_return_values(
    returned: Any, threshold: float | None, passes: bool, detail: str
) -> None:
    assert python_verdict(returned, threshold) == (passes, detail)


def test_python_file_references_and_get_assert(tmp_path: Path) -> None:
    (tmp_path / "assert_mod.py").write_text(
        "def get_assert(output, context):\n    return 0.75\n\n"
        "def custom_function(output, context):\n    return output == 'Expected output'\n\n"
        "def broken(output, context):\n    raise RuntimeError('Python error')\n"
    )
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "by_path.py").write_text("def get_assert(o, c):\n    return 'False'\n")
    assert check({"python": "assert_mod:custom_function"}, "Expected output", tmp_path).passed
    assert check({"python": "assert_mod"}, "x", tmp_path).detail == "score 0.75"
    assert (
        check({"python": "file://assert_mod.py:custom_function"}, "nope", tmp_path).passed is False
    )
    assert check({"python": "checks/by_path.py"}, "x", tmp_path).passed is False
    raised = check({"python": "assert_mod:broken"}, "x", tmp_path)
    assert (raised.error, raised.detail) == (
        True,
        "assert_mod:broken raised RuntimeError: Python error",
    )
    with pytest.raises(ValueError, match="'threshold' is a number, for python checks"):
        parse_checks([{"contains": "x", "threshold": 0.5}])


def test_a_python_return_promptfoo_does_not_read_is_a_check_error(tmp_path: Path) -> None:
    (tmp_path / "odd_mod.py").write_text("def get_assert(o, c):\n    return 'maybe'\n")
    result = check({"python": "odd_mod"}, "x", tmp_path)
    assert result.error and "must return a bool" in result.detail and "'maybe'" in result.detail


# --- refusal.test.ts: tests/unit/checks/test_refusal.py ------------------------------------


# --- answers a bot may send that no check may crash on -------------------------------------
DEEP = "Here it is: " + "[" * 20_000 + "]" * 20_000  # past every limit: 3.13 parses 3,000


@pytest.mark.parametrize(
    "spec",
    [{"is_json": True}, {"not_is_json": True}, {"contains_json": True}, {"equals": {"a": 1}}],
)
def test_json_nested_past_the_recursion_limit_is_a_check_error(spec: dict[str, Any]) -> None:
    answer = DEEP if "contains_json" in spec else DEEP.removeprefix("Here it is: ")
    result = check(spec, answer)
    assert result.error is True and result.passed is not True
    assert "nested too deeply" in result.detail


def test_starts_with_keeps_the_expected_texts_own_white_space() -> None:
    assert check({"starts_with": "Yes "}, "Yesterday it broke").passed is False
    assert check({"starts_with": "Yes "}, "  Yes you can").passed is True


def test_a_count_in_digits_of_another_script_makes_the_entry_invalid_with_a_reason() -> None:
    with pytest.raises(ValueError, match="max_words") as raised:
        parse_checks([{"max_words": "³"}], None)
    assert "int()" not in str(raised.value)
