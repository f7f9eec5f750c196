"""CI gating: flaky evals, unstable detection, adaptive runs, verdicts, gates, baselines,
CI reports."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

pytestmark = pytest.mark.usefixtures("judge_server")


def _ticket(i: int) -> str:
    return f"Deploy {i} is stuck"


def test_flaky_eval_below_threshold_does_not_fail_the_session(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester, [entry("noisy", "answer {{relevance=2}}", marks=["flaky"]), entry("solid")]
    )
    result = run(pytester, "evals/", "-rA", "--strict-markers", "-p", "no:randomly")
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*XFAIL evals/support.json::noisy - flaky eval below threshold (not gating): "
            "relevance 2.00 < 3.5 (1 run: 2)*",
            "*flaky evals below threshold (not gating): evals/support.json::noisy*",
        ]
    )
    results = read_results(pytester)
    assert by_id(results)["noisy"]["outcome"] == "flaky_failed"
    assert by_id(results)["noisy"]["flaky"] is True
    assert results["summary"]["flaky_failed"] == 1 and results["summary"]["flaky"] == 1


def test_strict_flaky_makes_flaky_evals_gate(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("noisy", "answer {{relevance=2}}", marks=["flaky"])])
    result = run(pytester, "evals/", "-o", "llmjudge_strict=flaky")
    result.assert_outcomes(failed=1)


def test_flaky_marker_selects_and_does_not_rerun(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester, [entry("noisy", "answer {{relevance=2}}", marks=["flaky"]), entry("solid")]
    )
    run(pytester, "evals/", "-m", "not flaky_eval").assert_outcomes(passed=1, deselected=1)
    outcomes = run(pytester, "evals/", "-m", "flaky_eval").parseoutcomes()
    assert "rerun" not in outcomes and outcomes["xfailed"] == 1


def test_flaky_eval_marker_in_a_hand_written_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
import pytest

@pytest.mark.flaky_eval
def test_refund(llmjudge):
    j = llmjudge.relevance("Where is my refund?", "Ask again later {{relevance=2}}")
    assert j.score >= 4, j.reasoning

@pytest.mark.flaky_eval
def test_crash_is_not_hidden(llmjudge):
    raise RuntimeError("a bug in the test")
""")
    result = run(pytester, "--strict-markers", "-rA")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_refund - flaky eval below threshold (not gating):*"])


def test_unstable_items_are_listed(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("wobbly", "answer {{relevance=4,3,4}}"), entry("steady")])
    result = run(pytester, "evals/", "--judge-runs=3")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "unstable (runs straddle the threshold; add runs or mark them flaky): "
            "evals/support.json::wobbly"
        ]
    )
    results = read_results(pytester)
    assert results["unstable"] == ["evals/support.json::wobbly"]
    assert by_id(results)["wobbly"]["relevance"]["unstable"] is True
    assert results["summary"]["unstable"] == 1


def test_adaptive_runs_go_where_the_verdict_is_uncertain(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            entry("uncertain", "answer {{relevance=4,3,4,4,4,4 tone=5}}"),
            entry("clear", "answer {{relevance=5 tone=5}}"),
        ],
    )
    result = run(
        pytester,
        "evals/",
        "--judge-runs=2..6",
        "--judge-no-cache",
    )
    result.assert_outcomes(passed=2)
    uncertain = [r for r in judge_server.requests if r.response.startswith("answer {{relevance=4")]
    # two runs, then two rounds of two extra runs: each round one request of two choices
    assert [r.n for r in uncertain if r.dimension == "relevance"] == [2, 2, 2]
    assert [r.n for r in uncertain if r.dimension == "tone"] == [2]
    assert judge_server.count() == 3 + 1 + 1 + 1
    assert judge_server.choices() == 6 + 2 + 2 + 2
    rows = by_id(read_results(pytester))
    assert rows["uncertain"]["relevance"]["extra_runs"] == 4
    assert len(rows["uncertain"]["relevance"]["runs"]) == 6
    assert rows["clear"]["relevance"]["extra_runs"] == 0


@pytest.mark.parametrize(
    ("scores", "undecided", "outcome"),
    [
        ("5,5,5", "fail", "passed"),
        ("2,2,2", "fail", "failed"),
        ("5,2,5", "fail", "failed"),
        ("5,2,5", "pass", "passed"),
        ("5,2,5", "xfail", "xfailed"),
    ],
)
def test_confident_verdict(
    pytester: pytest.Pytester, scores: str, undecided: str, outcome: str
) -> None:
    write_evals(pytester, [entry("case", f"answer {{{{relevance={scores}}}}}")])
    result = run(
        pytester,
        "evals/",
        "--judge-runs=3",
        "-o",
        "llmjudge_verdict=confident",
        "-o",
        f"llmjudge_verdict=confident undecided={undecided}",
    )
    result.assert_outcomes(**{outcome: 1})
    relevance = by_id(read_results(pytester))["case"]["relevance"]
    expected = {"5,5,5": "pass", "2,2,2": "fail", "5,2,5": "undecided"}[scores]
    assert relevance["decision"] == expected
    if scores == "5,2,5":
        # mean 4, s = 1.73: 4 ± 4.303 · 1.73 / √3 = [-0.30, 8.30] contains 3.5
        assert relevance["ci_low"] == pytest.approx(-0.3030, abs=1e-3)
        assert relevance["ci_high"] == pytest.approx(8.3030, abs=1e-3)
    if outcome == "failed" and expected == "undecided":
        result.stdout.fnmatch_lines(
            ["relevance 4.00 undecided: 95% CI -0.30-8.30 contains 3.5 (runs ?, ?, ?)"]
        )


def test_the_undecided_outcome_is_part_of_the_verdict_key_in_the_ini_file(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("case", "answer {{relevance=5,2,5}}")])
    pytester.makeini("[pytest]\nllmjudge_verdict = confident undecided=pass\n")
    result = run(pytester, "evals/", "--judge-runs=3")
    result.assert_outcomes(passed=1)
    assert by_id(read_results(pytester))["case"]["relevance"]["decision"] == "undecided"


def test_pass_rate_gate(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [entry(f"ok-{i}", ticket=_ticket(i)) for i in range(3)]
        + [entry("bad", "answer {{relevance=1}}")],
    )
    failing = run(pytester, "evals/", "-o", "llmjudge_gates=pass_rate=0.9")
    # 3 of 4: Wilson's interval 0.30-0.95 holds 0.9: undecided, counted by the estimate
    failing.stdout.fnmatch_lines(
        [
            "gate FAILED: pass rate 0.75 < 0.9 (3 of 4 judged items passed; 95% CI 0.30-0.95): "
            "undecided, counted as failed (undecided=point)"
        ]
    )
    gate = {g["name"]: g for g in read_results(pytester)["gates"]}["pass_rate"]
    assert (gate["passed"], gate["actual"], gate["decision"], gate["n"]) == (
        False, 0.75, "undecided", 4,
    )  # fmt: skip
    assert (gate["ci_low"], gate["ci_high"]) == pytest.approx((0.3006, 0.9544), abs=1e-4)
    passing = run(pytester, "evals/", "-o", "llmjudge_gates=pass_rate=0.7")
    passing.stdout.fnmatch_lines(
        ["gate passed: pass rate 0.75 >= 0.7*: undecided, counted as passed*"]
    )
    lenient = run(pytester, "evals/", "-o", "llmjudge_gates=pass_rate=0.9 undecided=pass")
    assert read_results(pytester)["gates"][1]["passed"] is True
    lenient.stdout.fnmatch_lines(["gate passed: pass rate 0.75 < 0.9 *(undecided=pass)"])
    strict = run(pytester, "evals/", "-o", "llmjudge_gates=pass_rate=0.7 undecided=fail")
    assert read_results(pytester)["gates"][1]["passed"] is False
    strict.stdout.fnmatch_lines(["gate FAILED: pass rate 0.75 >= 0.7 *(undecided=fail)"])


def test_mean_gate_fails_a_session_whose_items_all_pass(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry(f"ok-{i}", ticket=_ticket(i)) for i in range(3)])
    result = run(pytester, "evals/", "-o", "llmjudge_gates=mean.relevance=4.5 mean.tone=3")
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            # every item scored 4 on every run: an interval of width 0, decided
            "gate FAILED: mean relevance 4.00 < 4.5 (over 3 items; 95% CI 4.00-4.00): fail, "
            "short by 0.50",
            "gate passed: mean tone 4.00 >= 3 (over 3 items; 95% CI 4.00-4.00): pass",
        ]
    )
    assert read_results(pytester)["meta"]["exit_status"] == 1
    ok = run(pytester, "evals/", "-o", "llmjudge_gates=mean.relevance=4")
    assert ok.ret == pytest.ExitCode.OK


def test_fails_closed_when_nothing_was_judged(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [
            entry("a", marks=[{"name": "skip", "reason": "later"}]),
            {"id": "b", "response": "no ticket", "marks": ["skip"]},  # invalid, set aside
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(skipped=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate FAILED: no eval item was judged*"])


def _baseline(pytester: pytest.Pytester) -> str:
    rows = [
        {
            "nodeid": "evals/support.json::dropped",
            "id": "dropped",
            "relevance": {"score": 5.0, "std": 0.0, "runs": [5, 5, 5]},
        },
        {
            "nodeid": "evals/support.json::wobble",
            "id": "wobble",
            "relevance": {"score": 4.0, "std": 0.0, "runs": [4, 4, 4]},
        },
        {
            "nodeid": "evals/support.json::better",
            "id": "better",
            "relevance": {"score": 3.67, "std": 0.58, "runs": [4, 4, 3]},
        },
        {
            "nodeid": "evals/support.json::gone",
            "id": "gone",
            "relevance": {"score": 4.0, "std": 0.0, "runs": [4, 4, 4]},
        },
    ]
    (pytester.path / "main.json").write_text(json.dumps({"results": rows}))
    write_evals(
        pytester,
        [
            entry("dropped", "answer {{relevance=4}}", ticket=_ticket(1)),
            entry("wobble", "answer {{relevance=4,4,3}}", ticket=_ticket(2)),
            entry("better", "answer {{relevance=5}}", ticket=_ticket(3)),
            entry("fresh", "answer", ticket=_ticket(4)),
        ],
    )
    return "--judge-baseline=main.json"


def test_baseline_comparison(pytester: pytest.Pytester) -> None:
    option = _baseline(pytester)
    result = run(pytester, "evals/", "--judge-runs=3", option)
    result.assert_outcomes(passed=4)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "baseline main.json: 3 items compared: 1 regressed, 1 improved; 1 new, 1 removed, "
            "0 not in this run",
            "  relevance: no significant difference from the baseline (mean change +0.00, "
            "95% CI -2.98 to +2.98); this suite can detect drops of * or more (80% power)",
            # 5,5,5 -> 4,4,4 against the runs' pooled noise, Holm over the 3 items compared
            "  regressed: evals/support.json::dropped relevance 5.00 -> 4.00 (-1.00, p = 0.00*)",
        ]
    )
    baseline = read_results(pytester)["baseline"]
    assert (baseline["compared"], baseline["regressed"], baseline["improved"]) == (3, 1, 1)
    assert baseline["new"] == ["evals/support.json::fresh"]
    assert baseline["removed"] == ["evals/support.json::gone"]
    verdicts = {(c["nodeid"], c["dimension"]): c["verdict"] for c in baseline["changes"]}
    # 4,4,4 -> 4,4,3 is noise: not listed as a change
    assert ("evals/support.json::wobble", "relevance") not in verdicts
    assert baseline["suite"]["relevance"]["items"] == 3


def test_baseline_counts_items_and_tells_deselected_from_removed(
    pytester: pytest.Pytester,
) -> None:
    option = _baseline(pytester)
    two_dimensions = json.loads((pytester.path / "main.json").read_text())
    two_dimensions["results"][0]["tone"] = {"score": 5.0, "std": 0.0, "runs": [5, 5, 5]}
    (pytester.path / "main.json").write_text(json.dumps(two_dimensions))
    result = run(pytester, "evals/", "--judge-runs=3", option, "-k", "dropped or better")
    result.assert_outcomes(passed=2, deselected=2)
    # "dropped" fell on relevance and tone: one item, two dimensions; "wobble" was deselected
    # (not removed: its file was collected and still holds it); "gone" is no longer there.
    result.stdout.fnmatch_lines(
        [
            "baseline main.json: 2 items compared: 1 regressed (2 dimensions), 1 improved; "
            "0 new, 1 removed, 1 not in this run",
        ]
    )
    baseline = read_results(pytester)["baseline"]
    assert (baseline["regressed"], baseline["regressed_dimensions"]) == (1, 2)
    assert baseline["removed"] == ["evals/support.json::gone"]
    assert baseline["not_in_run"] == ["evals/support.json::wobble"]
    # another file's run does not call this file's items removed
    write_evals(pytester, [entry("other", "answer")], name="other.json")
    result = run(pytester, "evals/other.json", "--judge-runs=3", option)
    result.stdout.fnmatch_lines(
        [
            "baseline main.json: 0 items compared: 0 regressed, 0 improved; 1 new, 0 removed, "
            "4 not in this run"
        ]
    )


def test_fail_on_regression(pytester: pytest.Pytester) -> None:
    option = _baseline(pytester)
    result = run(pytester, "evals/", "--judge-runs=3", option, "-o", "llmjudge_gates=regression")
    # the gate decides over all items at the end: no item fails for it, the session does
    result.assert_outcomes(passed=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "gate FAILED: regression against the baseline: 1 regressed: "
            "evals/support.json::dropped relevance 5.00 -> 4.00 (p = 0.00*)",
        ]
    )
    gate = read_results(pytester)["gates"][-1]
    assert (gate["name"], gate["passed"], gate["decision"], gate["n"]) == (
        "regression", False, "fail", 3,
    )  # fmt: skip


def test_baseline_errors_stop_the_session_at_once(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--judge-baseline=missing.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--judge-baseline *missing.json: file not found*"])


def test_regression_without_a_baseline_is_said_and_not_checked(pytester: pytest.Pytester) -> None:
    # the first run on main has no baseline yet: the gate says so and the run goes on
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nllmjudge_gates = "regression"\n')
    write_evals(pytester, [entry("a", "answer {{relevance=5}}")])
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["note: regression: not checked (no baseline)"])
    assert read_results(pytester)["meta"]["notices"] == ["regression: not checked (no baseline)"]
    assert run(pytester, "evals/", "--collect-only").ret == pytest.ExitCode.OK
    # a job that must compare says so: then a missing baseline stops it at start
    strict = run(pytester, "evals/", "-o", "llmjudge_strict=baseline")
    assert strict.ret == pytest.ExitCode.USAGE_ERROR
    strict.stderr.fnmatch_lines(
        ["*llmjudge_strict (baseline): the regression gate has no baseline to compare with*"]
    )
    # with a baseline, nothing is said of it
    run(pytester, "evals/", "--judge-output=main.json")
    strict_compare = ("--judge-baseline=main.json", "-o", "llmjudge_strict=baseline")
    compared = run(pytester, "evals/", *strict_compare)
    assert compared.ret == pytest.ExitCode.OK
    assert "not checked" not in compared.stdout.str()


def _ini_gates(pytester: pytest.Pytester, ini_file: str, gates: str) -> None:
    if ini_file == "pytest.ini":
        pytester.makeini(f"[pytest]\nllmjudge_gates = {gates}\n")
    else:
        pytester.makepyprojecttoml(f'[tool.pytest.ini_options]\nllmjudge_gates = "{gates}"\n')


@pytest.mark.parametrize("ini_file", ["pyproject.toml", "pytest.ini"])
def test_command_line_gates_add_to_the_ini_files(pytester: pytest.Pytester, ini_file: str) -> None:
    option = _baseline(pytester)
    gates = "regression mean.relevance=3"
    _ini_gates(pytester, ini_file, gates)
    # the workflow's -o names one gate: the ini's regression and mean gates still gate
    result = run(pytester, "evals/", "--judge-runs=3", option, "-o", "llmjudge_gates=pass_rate=0.5")
    result.assert_outcomes(passed=4)  # the regression gate fails the session, not the item
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["gate FAILED: regression against the baseline: *evals/support.json::dropped relevance*"]
    )
    gates_run = {g["name"]: g["required"] for g in read_results(pytester)["gates"]}
    assert gates_run == {"judged": 1, "pass_rate": 0.5, "mean.relevance": 3, "regression": 0}
    # the ini's undecided word is kept when -o does not say it (4 of 4 passed: Wilson's lower
    # bound 0.51 is under 0.9, undecided; the estimate 1.0 alone would pass)
    _ini_gates(pytester, ini_file, "pass_rate=0.9 undecided=fail")
    kept = run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_gates=mean.relevance=3")
    pass_rate = {g["name"]: g for g in read_results(pytester)["gates"]}["pass_rate"]
    assert pass_rate["decision"] == "undecided" and not pass_rate["passed"], kept.stdout.str()
    assert kept.ret == pytest.ExitCode.TESTS_FAILED
    _ini_gates(pytester, ini_file, gates)
    # a gate named on both: the command line's bar
    higher = ("-o", "llmjudge_gates=mean.relevance=4.5")
    raised = run(pytester, "evals/", "--judge-runs=3", option, *higher)
    raised.stdout.fnmatch_lines(["gate FAILED: mean relevance *< 4.5*"])
    assert {g["name"]: g["required"] for g in read_results(pytester)["gates"]} == {
        "judged": 1,
        "mean.relevance": 4.5,
        "regression": 0.0,
    }


def test_a_threshold_flag_changes_its_dimension_only(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        "[tool.pytest.ini_options]\n"
        'llmjudge_thresholds = "relevance=3 tone=2.5 correctness=2"\n'
        'llmjudge_dimensions = "correctness"\n'
    )
    scripted = "answer {{relevance=3 tone=3}}"
    write_evals(pytester, [entry("a", scripted, reference="Raise the heap.")])
    result = run(pytester, "evals/", "--judge-threshold", "relevance=4")
    result.stdout.fnmatch_lines(["*thresholds: relevance>=4 tone>=2.5 correctness>=2 *"])
    assert read_results(pytester)["meta"]["thresholds"] == {
        "relevance": 4,
        "tone": 2.5,
        "correctness": 2,
    }
    result.assert_outcomes(failed=1)  # relevance 3 < 4; tone 3 passes its ini's 2.5


def test_junit_properties(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a", "answer {{relevance=4,5}}")])
    run(pytester, "evals/", "--judge-runs=2", "--junitxml=junit.xml")
    case = ET.parse(pytester.path / "junit.xml").getroot().find(".//testcase")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["llmjudge.relevance.score"] == "4.5"
    assert props["llmjudge.relevance.runs"] in ("4,5", "5,4")
    assert props["llmjudge.relevance.threshold"] == "3.5"
    assert props["llmjudge.tone.std"] == "0.0"
    assert props["llmjudge.tone.decision"] == "pass"


def test_markdown_report_and_step_summary(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = pytester.path / "step_summary.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    write_evals(
        pytester,
        [
            entry("fine", ticket=_ticket(1)),
            entry("bad", "answer {{relevance=1}}", ticket=_ticket(2)),
        ],
    )
    run(pytester, "evals/", "--judge-report=reports/evals.md", "-o", "llmjudge_gates=pass_rate=0.9")
    report = (pytester.path / "reports/evals.md").read_text()
    assert "## LLM judge evals" in report
    assert "| 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 50% |" in report
    assert "| pass_rate | ❌ pass rate 0.50 < 0.9" in report
    rows = [line for line in report.splitlines() if line.startswith("| `evals/")]
    assert rows[0].startswith("| `evals/support.json::bad` | failed |")  # failures first
    assert "relevance: scripted relevance 1" in rows[0]
    assert rows[1].startswith("| `evals/support.json::fine` | passed |")
    summary = step.read_text()
    assert summary.startswith("earlier step\n## LLM judge evals")
    assert "### Items" not in summary


def test_github_annotations(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write_evals(
        pytester,
        [
            entry("fine", ticket=_ticket(1)),
            entry("bad", "answer {{relevance=1}}", ticket=_ticket(2)),
            entry("down", "answer {{fail=401x9}}", ticket=_ticket(3)),
        ],
    )
    result = run(pytester, "evals/")
    result.stdout.fnmatch_lines(
        [
            "::error file=evals/support.json,line=7,title=llmjudge failed%3A bad::"
            "relevance 1.00 < 3.5 (1 run: 1)",
            # relevance's or tone's request, whichever the server refused first
            "::error file=evals/support.json,line=12,title=llmjudge error%3A down::"
            "*: judge call failed: 401 authentication failed*",
        ]
    )
    result.stdout.no_fnmatch_line("*title=llmjudge*fine*")


def test_gates_and_reports_see_every_item_once_under_xdist(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [entry(f"ok-{i}", ticket=_ticket(i)) for i in range(9)]
        + [entry("bad", "answer {{relevance=1}}", ticket=_ticket(99))],
    )
    result = run(
        pytester,
        "evals/",
        "-n",
        "2",
        "-o",
        "llmjudge_gates=pass_rate=0.95",
        "--judge-report=report.md",
    )
    result.stdout.fnmatch_lines(["gate FAILED: pass rate 0.90 < 0.95 (9 of 10 judged items*"])
    report = (pytester.path / "report.md").read_text()
    rows = [line for line in report.splitlines() if line.startswith("| `evals/")]
    assert len(rows) == 10 and len(set(rows)) == 10


def test_a_baseline_from_another_judge_is_not_compared(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_evals(pytester, [entry("a", "answer {{relevance=5}}"), entry("b", ticket="t2")])
    run(pytester, "evals/", "--judge-output=main.json").assert_outcomes(passed=2)
    main = read_results(pytester, "main.json")
    assert main["meta"]["judge"]["provider"] == "openai" and main["meta"]["judge"]["llm"]
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_PROVIDER"):  # a fork: no secret
        monkeypatch.delenv(name)
    write_evals(pytester, [entry("a", "lol whatever!!"), entry("b", ticket="t2")])
    result = run(
        pytester, "evals/", "--judge-baseline=main.json", "-o", "llmjudge_gates=regression"
    )
    result.stdout.fnmatch_lines(
        [
            "baseline main.json not compared: another judge made it (provider openai != "
            "heuristic; model gpt-4o-mini != None; base_url_host 127.0.0.1 != None*); "
            "no regression gate"
        ]
    )
    assert "regressed" not in result.stdout.str()
    baseline = read_results(pytester)["baseline"]
    assert baseline["comparable"] is False and baseline["changes"] == []
    strict = run(pytester, "evals/", "--judge-baseline=main.json", "-o", "llmjudge_strict=baseline")
    assert strict.ret == pytest.ExitCode.USAGE_ERROR
    strict.stderr.fnmatch_lines(["*strict baseline: *main.json was judged by another*"])
