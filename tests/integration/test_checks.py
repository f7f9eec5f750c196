"""Deterministic checks beside the judge: each kind passes and fails, a failed check spares the
judge (the server's count shows it), checks add up from the ini, a file's defaults and the
entry, bad checks are invalid entries, and every report shows them."""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

import pytest

from bot_server import BotServer
from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

pytestmark = pytest.mark.usefixtures("judge_server")

OK = "Check the spam folder and request a new reset link. {{relevance=5 tone=5}}"
SCHEMA = {"type": "object", "required": ["action"], "properties": {"action": {"type": "string"}}}

# (check, an answer that passes it, one that fails it, the failure's detail)
KINDS: list[tuple[dict[str, Any], str, str, str]] = [
    ({"contains": "reset link"}, OK, "Check the spam folder.", 'not found: "reset link"'),
    ({"contains": "RESET LINK", "case": "insensitive"}, OK, "Check spam.", "not found*"),
    ({"not_contains": ["as an AI", "sorry"]}, OK, "Sorry, as an AI I cannot.", 'found "as an AI"'),
    ({"contains_any": ["spam", "junk"]}, OK, "Request a new link.", "none found"),
    ({"contains_all": ["spam", "link"]}, OK, "Check spam.", 'not found: "link"'),
    ({"equals": "Yes."}, "Yes.", "No.", 'got "No."'),
    ({"starts_with": "Check"}, OK, "Hello! Check spam.", 'got "Hello! Check spam."'),
    ({"regex": r"reset\s+link"}, OK, "Check spam.", "no match"),
    ({"not_regex": r"(?i)as an ai"}, OK, "As an AI, no.", 'matched "As an AI"'),
    ({"min_words": 5}, OK, "Check spam.", "got 2"),
    ({"max_words": 5}, "Check spam.", OK, "got 12"),
    ({"max_chars": 20}, "Check spam.", OK, "got *"),
    ({"is_json": True}, '{"a": 1}', "not json", "not JSON (Expecting value at line 1, column 1)"),
    (
        {"json_schema": SCHEMA},
        '{"action": "reset"}',
        '{"action": 3}',
        "$.action: 3 is not of type*",
    ),
    ({"not_equals": "No."}, "Yes.", "No.", 'got "No."'),
    ({"not_starts_with": "Sorry"}, OK, "Sorry, no.", 'got "Sorry, no."'),
    ({"not_is_json": True}, OK, '{"a": 1}', "is JSON"),
    ({"not_contains_all": "spam, link"}, "Check spam.", OK, "found every one"),
    ({"words": {"min": 2, "max": 5}}, "Check spam.", OK, "got 12"),
    ({"not_chars": {"max": 20}}, OK, "Check spam.", "got 11"),
    ({"contains_json": SCHEMA}, 'Done:\n```json\n{"action": "reset"}\n```', "Done.", "no JSON*"),
    ({"is_refusal": True}, "Sorry, I can't help with that.", OK, "no refusal found"),
]


@pytest.mark.parametrize(
    ("check", "passing", "failing", "detail"), KINDS, ids=[next(iter(k[0])) for k in KINDS]
)
def test_each_check_kind_passes_and_fails(
    pytester: pytest.Pytester, check: dict[str, Any], passing: str, failing: str, detail: str
) -> None:
    write_evals(
        pytester,
        [
            entry("good", passing, checks=[check], judge=False),
            entry("bad", failing, ticket="other", checks=[check], judge=False),
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, failed=1)
    rows = by_id(read_results(pytester))
    (good,), (bad,) = rows["good"]["checks"], rows["bad"]["checks"]
    assert good["passed"] is True and bad["passed"] is False
    assert bad["kind"] == next(iter(check)) and bad["expected"] == check[next(iter(check))]
    result.stdout.fnmatch_lines([f"check failed: {bad['name']}: {detail}"])


def test_a_python_check_gets_the_answer_and_the_entry(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        mychecks="""
        def no_apology(answer, entry):
            return "sorry" not in answer.lower(), f"entry {entry['id']} apologises"

        def broken(answer, entry):
            raise KeyError("boom")
        """
    )
    write_evals(
        pytester,
        [
            entry("fine", OK, checks=[{"python": "mychecks:no_apology"}], judge=False),
            entry("sorry", "Sorry!", ticket="t2", checks=[{"python": "mychecks:no_apology"}]),
            entry("raises", OK, ticket="t3", checks=[{"python": "mychecks:broken"}]),
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["check failed: python mychecks:no_apology: entry sorry apologises"]
    )
    result.stdout.fnmatch_lines(
        ["check error: python mychecks:broken: mychecks:broken raised KeyError: 'boom'"]
    )


def test_a_python_check_that_fails_in_its_item_after_runs_ahead_counts_them(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    """A user's python check runs in its own item, after the built-in checks let the item's
    runs start ahead: when it then fails, the item is not judged, and the session's counts
    still say every request that was made (the runs ahead are cached for the next run)."""
    pytester.makepyfile(mychecks="def never(answer, entry):\n    return False, 'refused'\n")
    write_evals(
        pytester,
        [
            entry("passes", OK),
            entry("refused", OK, ticket="t2", checks=[{"python": "mychecks:never"}]),
        ],
    )
    result = run(pytester, "evals/", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    results = read_results(pytester)
    refused = by_id(results)["refused"]
    assert refused["judged"] is False and refused["relevance"] is None
    assert refused["checks"][0]["passed"] is False
    assert results["meta"]["calls"] == judge_server.count()  # the runs ahead among them


def test_a_failed_check_spares_the_judge_unless_always(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            entry("passes", OK, checks=[{"contains": "reset link"}]),
            entry(
                "fails", "Check spam. {{relevance=5}}", ticket="t2", checks=[{"contains": "link"}]
            ),
            entry("unchecked", "Whatever {{relevance=5}}", ticket="t3"),
        ],
    )
    first = run(pytester, "evals/", "-p", "no:cacheprovider")
    first.assert_outcomes(passed=2, failed=1)
    # two items judged on two dimensions; the failed check's item made no request
    assert judge_server.count() == 4
    assert {r.response for r in judge_server.requests} == {OK, "Whatever {{relevance=5}}"}
    rows = by_id(read_results(pytester))
    assert rows["fails"]["judged"] is False and rows["fails"]["relevance"] is None
    assert rows["fails"]["usage"]["calls"] == 0
    judge_server.reset()
    always = run(pytester, "evals/", "-p", "no:cacheprovider", "-o", "llmjudge_checks_mode=always")
    always.assert_outcomes(passed=2, failed=1)
    assert judge_server.count() == 6  # judged too: its scores are in the report
    rows = by_id(read_results(pytester))
    assert rows["fails"]["judged"] is True and rows["fails"]["relevance"]["score"] == 5
    always.stdout.fnmatch_lines(['check failed: contains "link": not found: "link"'])


def test_checks_add_up_from_the_ini_the_file_defaults_and_the_entry(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini(
        '[pytest]\nllmjudge_checks = [{"not_contains": "as an AI", "name": "no AI talk"}]\n'
    )
    write_evals(
        pytester,
        {
            "defaults": {"checks": [{"max_words": 30}]},
            "examples": [entry("one", OK, checks=[{"contains": "spam"}], judge=False)],
        },
    )
    run(pytester, "evals/").assert_outcomes(passed=1)
    (row,) = read_results(pytester)["results"]
    assert [c["name"] for c in row["checks"]] == ["no AI talk", "max_words 30", 'contains "spam"']
    bad = run(pytester, "evals/", "-o", 'llmjudge_checks=[{"maxwords": 3}]')
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(
        [
            "*ini option llmjudge_checks: checks.0: unknown check 'maxwords' "
            "(did you mean 'max_words'?*"
        ]
    )


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (
            {"containz": "x"},
            "checks.0: unknown check 'containz' (did you mean 'contains'? known: *",
        ),
        ({"regex": "(unclosed"}, "checks.0: regex '(unclosed' is not a valid regex: missing ) *"),
        (
            {"json_schema": {"type": "nothing"}},
            "checks.0: json_schema is not a valid JSON Schema (type: 'nothing' is not valid *",
        ),
        (
            {"python": "no_such_module:f"},
            "checks.0: python check 'no_such_module:f' cannot be used: No module named *",
        ),
        ({"max_words": "ten"}, "checks.0: max_words must be a whole number >= 0, got 'ten'"),
        (
            {"json_schema": {"type": "string", "format": "x-custom"}},
            "checks.0: json_schema schema: format 'x-custom' cannot be checked here *",
        ),
        ({"contains": "x", "max_words": 3}, "checks.0: a check has exactly one kind *"),
    ],
    ids=["unknown", "regex", "schema", "python", "count", "format", "two-kinds"],
)
def test_a_bad_check_makes_an_invalid_entry_naming_it(
    pytester: pytest.Pytester, check: dict[str, Any], message: str
) -> None:
    write_evals(pytester, [entry("fine"), entry("bad", checks=[check])])
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, errors=1)  # a check that cannot work: red, by name
    result.stdout.fnmatch_lines([f"*evals/support.json:* (*): {message}"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_catastrophic_regex_is_a_check_error_in_bounded_time(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("slow", "a" * 60 + "b", checks=[{"regex": "(a|aa)+$"}])])
    started = time.monotonic()
    result = run(pytester, "evals/")
    elapsed = time.monotonic() - started
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ['*check error: regex "(a|aa)+$": the regex took over 1 s on a 61-character answer*']
    )
    assert elapsed < 60  # without the limit this pattern runs for hours: a hang, not a number


def test_checks_in_csv_and_yaml(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "evals"
    folder.mkdir()
    checks = json.dumps([{"contains": "link"}]).replace('"', '""')
    (folder / "tickets.csv").write_text(
        "id,ticket,response,checks,judge\n"
        f'a,Reset email,"Request a new link.","{checks}",false\n'
        f'b,Reset email,"Check spam.","{checks}",false\n'
    )
    pytest.importorskip("yaml")
    (folder / "more.yaml").write_text(
        textwrap.dedent(
            """
            - id: c
              ticket: Reset email
              response: Request a new link.
              judge: false
              checks:
                - contains_any: [link, token]
                - max_words: 10
            """
        )
    )
    run(pytester, "evals/").assert_outcomes(passed=2, failed=1)
    rows = by_id(read_results(pytester))
    assert rows["b"]["checks"][0]["passed"] is False
    assert [c["kind"] for c in rows["c"]["checks"]] == ["contains_any", "max_words"]


@pytest.fixture
def slow_bot() -> Iterator[BotServer]:
    def reply(ticket: str) -> tuple[int, Any]:
        if "slow" in ticket:
            time.sleep(0.4)
        return 200, {"answer": f"Answer to {ticket} {{{{relevance=5 tone=5}}}}"}

    bot = BotServer(reply)
    yield bot
    bot.stop()


def test_a_targets_latency_is_checked(pytester: pytest.Pytester, slow_bot: BotServer) -> None:
    write_evals(
        pytester,
        [
            {"id": "fast", "ticket": "fast ticket", "checks": [{"max_latency_ms": 300}]},
            {"id": "slow", "ticket": "slow ticket", "checks": [{"max_latency_ms": 300}]},
        ],
    )
    result = run(pytester, "evals/", "-o", f"llmjudge_targets=bot={slow_bot.url}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["check failed: max_latency_ms 300: took * ms"])
    rows = by_id(read_results(pytester))
    took = float(rows["slow"]["checks"][0]["detail"].split()[1])
    assert took >= 400  # the bot's own time, as it slept
    # a stored answer has no latency: never a silent pass, but an error of its item, said
    # once before the items too
    write_evals(
        pytester,
        [entry(f"stored{i}", checks=[{"max_latency_ms": 300}], judge=False) for i in (1, 2)],
    )
    stored = run(pytester, "evals/")
    stored.assert_outcomes(errors=2)
    stored.stdout.fnmatch_lines(
        [
            "llmjudge: 2 items have a latency check (max_latency_ms) but this session has no "
            "live target (llmjudge_targets): a stored answer has no latency, so those items are "
            "errors",
            "*check error: max_latency_ms 300: no latency was measured: a stored answer has none*",
        ]
    )
    assert stored.stdout.str().count("have a latency check") == 1
    rows = read_results(pytester)["results"]
    assert [r["checks"][0]["error"] for r in rows] == [True, True]


def test_saved_responses_replay_their_latency_checks(
    pytester: pytest.Pytester, slow_bot: BotServer
) -> None:
    """save_responses keeps each answer's measured latency: a replay (plain and under xdist)
    checks that latency and ends as the live run did; a file saved without one (an earlier
    version) stays an error that says why."""
    timed = [{"max_latency_ms": 300}]
    tickets = [("fast", "fast ticket"), ("slow", "slow ticket")]
    write_evals(pytester, [{"id": i, "ticket": t, "checks": timed} for i, t in tickets])
    target = f"llmjudge_targets=bot={slow_bot.url}\nsave_responses=saved"
    run(pytester, "evals/", "-o", target).assert_outcomes(passed=1, failed=1)
    live = {r["id"]: r["checks"] for r in read_results(pytester)["results"]}
    saved = json.loads((pytester.path / "saved/bot.json").read_text())
    took = {e["id"]: e["metadata"]["latency_ms"] for e in saved}
    assert took["slow"] >= 400 > took["fast"]  # what the bot took, as it slept
    for option in (("-p", "no:xdist"), ("-n", "2")):
        replay = run(pytester, "saved/bot.json", *option)
        replay.assert_outcomes(passed=1, failed=1)
        assert "latency check" not in replay.stdout.str()  # measured when saved: no notice
        rows = {r["id"]: r["checks"] for r in read_results(pytester)["results"]}
        assert rows == live  # "took N ms", the same N
    for e in saved:
        del e["metadata"]["latency_ms"]
    (pytester.path / "saved/bot.json").write_text(json.dumps(saved))
    older = run(pytester, "saved/bot.json")
    older.assert_outcomes(errors=2)
    older.stdout.fnmatch_lines(["llmjudge: 2 items have a latency check*", "*no latency was*"])


def _latency_suite(pytester: pytest.Pytester) -> None:
    timed = [{"max_latency_ms": 300}]
    write_evals(
        pytester,
        [entry(f"stored{i}", checks=timed, judge=False) for i in (1, 2)]
        + [
            entry("plain", checks=[{"contains": "heap"}], judge=False),
            {"id": "broken", "response": "no ticket", "checks": timed},  # invalid: no item
        ],
    )
    write_evals(
        pytester,
        {"defaults": {"checks": timed}, "examples": [entry("by-default", judge=False)]},
        name="defaults.json",
    )
    write_evals(
        pytester,
        [entry("untimed", checks=[{"contains": "heap"}], judge=False)],
        name="untimed.json",
    )


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ((), "llmjudge: 3 items have a latency check"),
        (
            ("-o", 'llmjudge_checks=[{"max_latency_ms": 300}]'),
            "llmjudge: 5 items have a latency check",
        ),
    ],
    ids=["entries", "ini"],
)
def test_a_latency_check_without_target_is_said_once_before_the_items_under_xdist(
    pytester: pytest.Pytester, option: tuple[str, ...], said: str
) -> None:
    _latency_suite(pytester)
    plain = run(pytester, "evals/", "-v", *option)
    notice = [line for line in plain.outlines if "have a latency check" in line]
    assert len(notice) == 1 and notice[0].startswith(said)
    # the xdist controller collects nothing; it says the same, once, before the first item
    distributed = run(pytester, "evals/", "-v", "-n", "2", *option)
    distributed.assert_outcomes(**plain.parseoutcomes())
    lines = distributed.outlines
    assert [line for line in lines if "have a latency check" in line] == notice
    first_item = next(i for i, line in enumerate(lines) if line.startswith("[gw"))
    assert lines.index(notice[0]) < first_item


def test_a_latency_check_with_a_live_target_is_not_said_under_xdist(
    pytester: pytest.Pytester, slow_bot: BotServer
) -> None:
    write_evals(
        pytester,
        [
            {"id": f"t{i}", "ticket": "fast ticket", "checks": [{"max_latency_ms": 5000}]}
            for i in (1, 2)
        ],
    )
    result = run(pytester, "evals/", "-n", "2", "-o", f"llmjudge_targets=bot={slow_bot.url}")
    result.assert_outcomes(passed=2)
    assert "latency check" not in result.stdout.str()


def test_checks_reach_junit_markdown_html_baseline_and_the_dry_run(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("item", OK, checks=[{"contains": "reset link"}])])
    run(pytester, "evals/", "--judge-output=base.json").assert_outcomes(passed=1)
    write_evals(pytester, [entry("item", "Check spam.", checks=[{"contains": "reset link"}])])
    args = ("--judge-baseline=base.json", "--judge-report=r.md", "--judge-report=r.html")
    result = run(pytester, "evals/", "--junitxml=j.xml", *args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 1 item compared: 1 regressed*",
            '  regressed: evals/support.json::item check: contains "reset link" 1.00 -> 0.00*',
        ]
    )
    junit = (pytester.path / "j.xml").read_text()
    assert 'name="llmjudge.check.contains &quot;reset link&quot;" value="failed"' in junit
    assert (
        '❌ contains "reset link": not found: "reset link"' in (pytester.path / "r.md").read_text()
    )
    html = (pytester.path / "r.html").read_text()
    assert '<small class="fail">contains &quot;reset link&quot;</small>' in html
    assert "not judged: its checks decided it" in html
    # the dry run estimates no request for an item whose stored answer fails its checks
    dry = run(pytester, "evals/", "--judge-dry-run")
    dry.stdout.fnmatch_lines(["*judge calls: 0*"])


def test_a_check_that_shares_its_name_with_another_still_regresses(
    pytester: pytest.Pytester,
) -> None:
    # the ini's check and the entry's have one name: each is compared with its own past
    same_name = ("-o", 'llmjudge_checks=[{"contains": "reset", "name": "x"}]')
    checks = [{"contains": "link", "name": "x"}]
    write_evals(pytester, [entry("item", "Use the reset link.", checks=checks)])
    run(pytester, "evals/", "--judge-output=base.json", *same_name).assert_outcomes(passed=1)
    write_evals(pytester, [entry("item", "Use the link.", checks=checks)])
    result = run(pytester, "evals/", "--judge-baseline=base.json", *same_name)
    result.stdout.fnmatch_lines(["baseline base.json: 1 item compared: 1 regressed*"])


def test_checks_of_one_name_have_junit_properties_of_their_own(pytester: pytest.Pytester) -> None:
    """The ini's check and the entry's share a name: each has its own property, by its place
    (``x``, ``x (2)``, or the next number no check is named), the same in every run; one
    failing is not hidden by the other."""
    same_name = ("-o", 'llmjudge_checks=[{"contains": "reset", "name": "x"}]')
    checks = [{"contains": "link", "name": "x"}, {"max_words": 99, "name": "x (2)"}]
    write_evals(pytester, [entry("item", "Use the link.", checks=checks)])
    result = run(pytester, "evals/", "--junitxml=j.xml", *same_name)
    result.assert_outcomes(failed=1)
    suite = ElementTree.parse(pytester.path / "j.xml").getroot()
    found = [(p.get("name", ""), p.get("value")) for p in suite.iter("property")]
    states = [(name, value) for name, value in found if not name.endswith(".detail")]
    assert [s for s in states if s[0].startswith("llmjudge.check.")] == [
        ("llmjudge.check.x", "failed"),
        ("llmjudge.check.x (3)", "passed"),  # "x (2)" is a check's own name
        ("llmjudge.check.x (2)", "passed"),
    ]
    names = [name for name, _ in found]
    assert len(names) == len(set(names))


def test_the_ab_comparison_counts_each_targets_checks(pytester: pytest.Pytester) -> None:
    good = BotServer(lambda t: (200, {"answer": "Request a new reset link. {{relevance=5}}"}))
    bad = BotServer(lambda t: (200, {"answer": "Check spam. {{relevance=5}}"}))
    try:
        write_evals(
            pytester,
            [
                {"id": f"t{i}", "ticket": f"Ticket {i}", "checks": [{"contains": "link"}]}
                for i in (1, 2)
            ],
        )
        result = run(pytester, "evals/", "-o", f"llmjudge_targets=good={good.url} bad={bad.url}")
    finally:
        good.stop()
        bad.stop()
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["  good: *; checks passed 2/2", "  bad: *; checks passed 0/2"])
    overall = read_results(pytester)["comparison"]["overall"]
    assert (overall["bad"]["checks_passed"], overall["bad"]["checks"]) == (0, 2)


def test_promptfoo_values_carry_over(pytester: pytest.Pytester) -> None:
    """Values as promptfoo's assertions write them mean the same in an eval file: a
    comma-separated string of texts, a number, a JSON value to equal, a word range, a module
    whose get_assert returns a score (and one under its threshold)."""
    pytester.makepyfile(
        scored="def get_assert(output, context):\n    return {'pass': True, 'score': 0.4}\n"
    )
    checks = [
        {"contains_any": '"reset link", "new link"'},
        {"contains": 5},
        {"words": {"min": 3, "max": 20}},
        {"python": "scored"},
    ]
    write_evals(
        pytester,
        [
            entry("carried", "Request a new link within 5 minutes.", checks=checks, judge=False),
            entry(
                "json", '{"action": "reset"}', checks=[{"equals": {"action": "reset"}}], judge=False
            ),
            entry("low", OK, checks=[{"python": "scored", "threshold": 0.5}], judge=False),
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["check failed: python scored: score 0.4 is below the threshold 0.5"]
    )
    rows = by_id(read_results(pytester))
    assert [c["passed"] for c in rows["carried"]["checks"]] == [True] * 4
    assert rows["carried"]["checks"][0]["name"] == 'contains_any "reset link, new link"'
