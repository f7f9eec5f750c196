"""Eval files as JSON Lines, CSV and YAML: the same items, node ids, validation, skips and
strictness as JSON, with messages that name the line or row."""

from __future__ import annotations

import os
import textwrap

import pytest

from helpers import by_id, read_results, run, run_subprocess
from judge_server import JudgeServer

ANSWER = "Raise the heap: set MAVEN_OPTS=-Xmx2g."


def _write(pytester: pytest.Pytester, name: str, text: str) -> None:
    path = pytester.path / "evals" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def test_jsonl_entries_name_their_line(pytester: pytest.Pytester) -> None:
    _write(
        pytester,
        "support.jsonl",
        f"""
        {{"id": "ok", "ticket": "Maven OOM in Jenkins", "response": "{ANSWER}"}}
        {{"id": "broken", "ticket": "x",

        {{"id": "no-ticket", "response": "r"}}
        """,
    )
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(passed=1, errors=2)  # invalid entries: red (issue 56)
    result.stdout.fnmatch_lines(
        [
            "*evals/support.jsonl:2 (#1): not JSON (Expecting property name enclosed in double*",
            "*evals/support.jsonl:4 (no-ticket): Missing 'ticket' field*",
        ]
    )
    results = read_results(pytester)
    assert by_id(results)["ok"]["nodeid"] == "evals/support.jsonl::ok"
    assert by_id(results)["ok"]["line"] == 1
    assert [(s["id"], s["line"]) for s in results["skipped"]] == [("#1", 2), ("no-ticket", 4)]
    assert [(s["id"], s["line"]) for s in results["invalid"]] == [("#1", 2), ("no-ticket", 4)]


def test_csv_columns_map_to_the_entry_fields(pytester: pytest.Pytester) -> None:
    _write(
        pytester,
        "tickets.csv",
        f"""
        id,ticket,response,thresholds.relevance,expected.tone,marks,metadata.area,notes
        ok,Maven OOM in Jenkins,"{ANSWER}",2,4,,ci,x
        weak,Maven OOM in Jenkins,"whatever lol",4.5,,xfail;slow,ci,
        bad,Maven OOM in Jenkins,"{ANSWER}",high,,,,
        ,Maven OOM in Jenkins,,,,,,
        """,
    )
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow evals\n")
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(passed=1, xfailed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*column 'notes' ignored (use metadata.notes to keep it)*",
            "*evals/tickets.csv:4 (bad): 'thresholds.relevance' must be a number, got str*",
            "*evals/tickets.csv:5 (#3): Missing 'id' field*",
        ]
    )
    rows = by_id(read_results(pytester))
    assert rows["ok"]["nodeid"] == "evals/tickets.csv::ok" and rows["ok"]["line"] == 2
    assert rows["ok"]["relevance"]["threshold"] == 2
    assert rows["ok"]["expected"] == {"tone": 4} and rows["ok"]["metadata"] == {"area": "ci"}
    assert rows["weak"]["outcome"] == "xfailed" and rows["weak"]["relevance"]["threshold"] == 4.5


def test_csv_carries_reference_and_conversation_and_names_every_unknown_column(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    turns = '[{""role"": ""user"", ""content"": ""I booked the 9:15.""}, ' + (
        '{""role"": ""assistant"", ""content"": ""Noted.""}]'
    )
    _write(
        pytester,
        "ferry.csv",
        f"""
        id,ticket,response,reference,conversation,notes,owner
        right,How long is it?,"45 minutes. {{{{correctness=5}}}}",It takes 45 minutes.,"{turns}",a,b
        wrong,How long is it?,"Two hours. {{{{correctness=1}}}}",It takes 45 minutes.,,,
        bad,How long?,"45 minutes.",,[not json,,
        """,
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, failed=1, errors=1)  # the invalid entry is red
    result.stdout.fnmatch_lines(
        [
            "*columns 'notes', 'owner' ignored (use metadata.notes, metadata.owner to keep them)*",
            "*evals/ferry.csv:4 (#2): 'conversation' is not JSON*",
        ]
    )
    rows = by_id(read_results(pytester))
    assert rows["right"]["reference"] == "It takes 45 minutes."
    assert [t["role"] for t in rows["right"]["conversation"]] == ["user", "assistant"]
    assert rows["wrong"]["correctness"]["score"] == 1
    sent = [r for r in judge_server.requests if r.dimension == "correctness"]
    assert {r.block("reference") for r in sent} == {"It takes 45 minutes."}
    assert any("I booked the 9:15." in (r.block("conversation") or "") for r in sent)


def test_a_csv_without_a_ticket_column_is_a_collection_error(pytester: pytest.Pytester) -> None:
    _write(pytester, "notes.csv", "id,question\na,b\n")
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "evals/notes.csv: the header row has no 'ticket' column: read with commas as "
            "separators, it holds 'id', 'question' (the columns: id, ticket, response, *"
        ]
    )


def test_an_empty_file_is_said_to_be_empty(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "evals"
    folder.mkdir()
    for name in ("blank.json", "blank.yaml", "blank.csv"):
        (folder / name).write_text("\n \n")  # an editor's new file: nothing but white space
    (folder / "comment.yaml").write_text("# entries to come\n")  # YAML with nothing but notes
    (folder / "marker.yml").write_text("---\n")
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(errors=5)
    names = ("blank.csv", "blank.json", "blank.yaml", "comment.yaml", "marker.yml")
    result.stdout.fnmatch_lines(
        [f"evals/{name}: the file is empty: *" for name in names], consecutive=False
    )
    assert "NoneType" not in result.stdout.str() and "Expecting value" not in result.stdout.str()


def test_a_csv_separated_by_semicolons_is_named_as_such(pytester: pytest.Pytester) -> None:
    _write(pytester, "excel.csv", "id;ticket;response\na;T;R\n")
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "evals/excel.csv: the header row has no 'ticket' column: read with commas as "
            "separators, it holds 'id;ticket;response'; the file seems separated by semicolons "
            "(id, ticket, response): save it with commas as separators"
        ]
    )


def test_a_trailing_comma_is_named_where_it_is(pytester: pytest.Pytester) -> None:
    _write(
        pytester,
        "support.json",
        f"""
        [
          {{"id": "a", "ticket": "Maven OOM in Jenkins", "response": "{ANSWER}"}},
        ]
        """,
    )
    _write(pytester, "more.jsonl", '{"id": "b", "ticket": "t", "response": "r",}\n')
    result = run(
        pytester, "evals/", "--judge-provider=heuristic", "--continue-on-collection-errors"
    )
    result.assert_outcomes(errors=2)  # the file that cannot be read, and the invalid entry
    result.stdout.fnmatch_lines(
        [
            # the parser itself says "line 3, column 1: Expecting value"
            "evals/support.json: invalid JSON: a trailing comma after the last entry at line 2, "
            "column 102; JSON allows none there: remove it",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*more.jsonl:1 (#0): not JSON: a trailing comma after the last key of an object at "
            "column 43; JSON allows none there: remove it*"
        ]
    )


def test_a_byte_order_mark_is_not_content(pytester: pytest.Pytester) -> None:
    bom = "\ufeff"
    folder = pytester.path / "evals"
    folder.mkdir()
    entry = '{"id": "%s", "ticket": "Maven OOM in Jenkins", "response": "%s"}'
    (folder / "excel.csv").write_text(f"{bom}id,ticket,response\nb,Maven OOM,{ANSWER}\n")
    (folder / "notepad.json").write_text(f"{bom}[{entry % ('a', ANSWER)}]")
    (folder / "lines.jsonl").write_text(f"{bom}{entry % ('c', ANSWER)}\n")
    result = run(pytester, "evals/", "--judge-provider=heuristic", "-v")
    result.stdout.fnmatch_lines(
        ["evals/excel.csv::b *", "evals/lines.jsonl::c *", "evals/notepad.json::a *"]
    )
    assert result.parseoutcomes().get("errors", 0) == 0


YAML = f"""
defaults:
  thresholds: {{relevance: 2}}
examples:
  - id: ok
    ticket: Maven OOM in Jenkins
    response: "{ANSWER}"

  - id: 7
    ticket: t
    response: r
"""


def test_yaml_files_read_like_json(pytester: pytest.Pytester) -> None:
    pytest.importorskip("yaml")
    _write(pytester, "support.yaml", YAML)
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*evals/support.yaml:* (#1): 'id' must be a string, got int*"])
    rows = by_id(read_results(pytester))
    assert rows["ok"]["line"] == 4 and rows["ok"]["relevance"]["threshold"] == 2
    _write(pytester, "support.yaml", "- id: [unclosed\n")
    broken = run(pytester, "evals/", "--judge-provider=heuristic")
    broken.stdout.fnmatch_lines(["*evals/support.yaml: invalid YAML at line 2*"])


def test_yaml_without_pyyaml_says_what_to_install(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(pytester, "support.yml", YAML)
    # an interpreter where "import yaml" fails, as where PyYAML is not installed
    blocker = pytester.path / "no_yaml" / "yaml"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('No module named yaml')\n")
    paths = [str(blocker.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    result = run_subprocess(pytester, "evals/", "--judge-provider=heuristic", "-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        # ("?" for the brackets: fnmatch reads [..] as a character class)
        ["*evals/support.yml: YAML eval files need PyYAML: pip install 'pytest-llmjudge?yaml?'*"]
    )


def test_a_file_that_cannot_be_read_is_not_counted_as_an_eval_item(
    pytester: pytest.Pytester,
) -> None:
    """A typo in one file (its collection error, counted among the errors as pytest counts
    it): the summary and the HTML report count the items apart from that file."""
    _write(
        pytester, "good.csv", f"id,ticket,response\na,Maven OOM,{ANSWER}\nb,Maven OOM 2,{ANSWER}\n"
    )
    _write(pytester, "typo.json", '[{"id": "c",]')
    args = ("evals/", "--continue-on-collection-errors", "--judge-report=r.html")
    result = run(pytester, *args)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["2 eval items: 2 passed; 1 eval file could not be read; judge:*"])
    assert read_results(pytester)["summary"]["errors"] == 1  # as pytest counts it
    html = (pytester.path / "r.html").read_text()
    assert "FAILED: 1 error" in html
    card = '<div class="label">items</div><div class="value">2</div>'
    assert f'{card}<div class="sub">2 passed; 1 eval file could not be read</div>' in html
    alone = run(pytester, "evals/typo.json")
    alone.stdout.fnmatch_lines(["0 eval items: none run; 1 eval file could not be read; judge:*"])
