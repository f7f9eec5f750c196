"""Every suite gate's estimate, interval and decision; the regression gate's suite test and
what a suite could detect; clusters named by entries (CSV too); one count of judged items;
intervals that rest on cached runs say so."""

from __future__ import annotations

import json

import pytest

from helpers import by_id, entry, read_results, run, write_evals

pytestmark = pytest.mark.usefixtures("judge_server")


def _ticket(i: int) -> str:
    return f"Deploy {i} is stuck"


def _compared(
    pytester: pytest.Pytester, before: dict[str, object], runs: list[str], count: int
) -> pytest.RunResult:
    """A baseline of ``count`` rows scored ``before``, and this run's items scored ``runs`` in
    turn, compared under the regression gate."""
    rows = [
        {"nodeid": f"evals/support.json::e{i}", "id": f"e{i}", "relevance": before}
        for i in range(count)
    ]
    (pytester.path / "main.json").write_text(json.dumps({"results": rows}))
    write_evals(
        pytester,
        [
            entry(f"e{i}", f"answer {{{{relevance={runs[i % len(runs)]}}}}}", ticket=_ticket(i))
            for i in range(count)
        ],
    )
    return run(
        pytester, "evals/", "--judge-runs=3", "--judge-baseline=main.json",
        "-o", "llmjudge_gates=regression",
    )  # fmt: skip


def test_a_small_drop_on_every_item_fails_the_regression_gate_by_the_suite_test(
    pytester: pytest.Pytester,
) -> None:
    """No item's drop is significant alone (Holm), their mean is: the suite test fails."""
    after = ["4,4,3", "4,4,4"]  # -0.67 and -0.33: a mean drop of 0.5
    before = {"score": 13 / 3, "std": 0.5774, "runs": [4, 5, 4]}
    result = _compared(pytester, before, after, 12)
    result.assert_outcomes(passed=12)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "gate FAILED: regression against the baseline: suite mean dropped: relevance -0.50*",
            "  relevance: worse than the baseline by 0.50 (95% CI -0.61 to -0.39; p = * for a "
            "drop): a regression",
        ]
    )
    baseline = read_results(pytester)["baseline"]
    suite = baseline["suite"]["relevance"]
    assert suite["regressed"] is True and suite["p_drop"] < 0.0125
    assert suite["detectable"] is not None and 0 < suite["detectable"] < 0.5
    assert baseline["regressed"] == 0  # no item alone


def test_no_change_says_what_the_suite_could_have_detected(pytester: pytest.Pytester) -> None:
    before = {"score": 4.0, "std": 1.0, "runs": [3, 4, 5]}
    result = _compared(pytester, before, ["3,4,5", "4,4,4", "4,5,4", "3,4,4"], 10)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "gate passed: no significant regression against the baseline (relevance +0.00)",
            # differences 0, 0, +1/3, -1/3, ...: SE 0.0703 over 10 items; t(0.975, 9) = 2.262,
            # t(0.8, 9) = 0.883: (2.262 + 0.883) x 0.0703 = 0.22 (Miller Eq. 10 with t)
            "  relevance: no significant difference from the baseline (mean change +0.00, "
            "95% CI -0.16 to +0.16); this suite can detect drops of 0.22 or more (80% power)",
        ]
    )
    gate = read_results(pytester)["gates"][-1]
    assert (gate["name"], gate["passed"], gate["decision"]) == ("regression", True, "pass")


def test_clusters_from_a_csv_widen_the_suite_interval(pytester: pytest.Pytester) -> None:
    """Entries of one cluster moving together: the clustered interval is wider than the
    naive one would be, with clusters - 1 degrees of freedom."""
    lines = ["id,ticket,response,cluster"]
    scores = {"a": "5", "b": "3"}
    for i in range(8):
        cluster = "ab"[i // 4]
        lines.append(f"e{i},{_ticket(i)},answer {{{{relevance={scores[cluster]}}}}},{cluster}")
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "tickets.csv").write_text("\n".join(lines) + "\n")
    result = run(pytester, "evals/", "-o", "llmjudge_gates=mean.relevance=3.5")
    rows = by_id(read_results(pytester))
    assert rows["e0"]["cluster"] == "a" and rows["e7"]["cluster"] == "b"
    gate = {g["name"]: g for g in read_results(pytester)["gates"]}["mean.relevance"]
    # two clusters, residual sums +4 and -4: SE^2 = 2/1 * 32 / 64 = 1; t(0.975, 1) = 12.71
    assert (gate["actual"], gate["clusters"], gate["n"]) == (4.0, 2, 8)
    assert (gate["ci_low"], gate["ci_high"]) == pytest.approx((4 - 12.7062, 4 + 12.7062), abs=1e-3)
    assert gate["decision"] == "undecided" and gate["passed"] is True  # by its estimate
    result.stdout.fnmatch_lines(
        ["gate passed: mean relevance 4.00 >= 3.5 (over 8 items in 2 clusters; 95% CI *"]
    )


def test_one_count_of_judged_items_and_cached_runs_said(pytester: pytest.Pytester) -> None:
    """Passed, failed, xfailed (flaky) and skipped items: the summary, the judged gate, the
    pass rate and the means all count the same 3 judged items; a rerun from the cache says
    its intervals rest on earlier judgments."""
    write_evals(
        pytester,
        [
            entry("ok", ticket=_ticket(1)),
            entry("ok2", ticket=_ticket(2)),
            entry("low", "answer {{relevance=2}}", ticket=_ticket(3)),
            entry("noisy", "answer {{relevance=2}}", ticket=_ticket(4), marks=["flaky"]),
            entry("later", ticket=_ticket(5), marks=[{"name": "skip", "reason": "later"}]),
        ],
    )
    gates_option = "llmjudge_gates=pass_rate=0.5 mean.relevance=3"
    run(pytester, "evals/", "--judge-runs=2", "-o", gates_option)
    results = read_results(pytester)
    gates = {g["name"]: g for g in results["gates"]}
    counts = (
        results["summary"]["judged"], gates["judged"]["n"], gates["pass_rate"]["n"],
        gates["mean.relevance"]["n"],
    )  # fmt: skip
    assert counts == (3, 3, 3, 3)
    assert gates["mean.relevance"]["note"] is None  # judged afresh
    again = run(pytester, "evals/", "--judge-runs=2", "-o", gates_option)
    note = {g["name"]: g for g in read_results(pytester)["gates"]}["mean.relevance"]["note"]
    assert note is not None and note.startswith("12 of 12 runs read from the cache")
    again.stdout.fnmatch_lines(["*12 of 12 runs read from the cache*between sessions*"])
