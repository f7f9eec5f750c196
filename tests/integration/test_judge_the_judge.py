"""The judge against its labels, through whole sessions: agreement gates on intervals with
their label budgets, the judge-corrected pass rate, k-of-N verdicts and the planner."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import pytest

from helpers import by_id, entry, read_results, run, write_evals


def _labelled(pytester: pytest.Pytester, pairs: Sequence[tuple[str, int | None]]) -> None:
    """One entry per (relevance directive, relevance label or None); tone 4, unlabelled."""
    write_evals(
        pytester,
        [
            entry(
                f"e{i:02d}",
                f"answer {i} {{{{relevance={scores} tone=4}}}}",
                ticket=f"ticket {i}",
                **({} if label is None else {"expected": {"relevance": label}}),
            )
            for i, (scores, label) in enumerate(pairs)
        ],
    )


# judge 5 4 3 2 1 5 4 3 2 1 against labels 5 3 4 2 1 5 3 4 2 1: kappa 0.9 from 10 labels,
# wide enough to hold 0.85 (undecided) and all above 0.5 (pass)
TEN = [(str(s), label) for s, label in zip((5, 4, 3, 2, 1) * 2, (5, 3, 4, 2, 1) * 2, strict=True)]


@pytest.mark.usefixtures("judge_server")
@pytest.mark.parametrize(("undecided", "status"), [("point", 0), ("fail", 1), ("pass", 0)])
def test_agreement_gates_decide_on_their_interval_with_the_undecided_word(
    pytester: pytest.Pytester, undecided: str, status: int
) -> None:
    _labelled(pytester, TEN)
    asked = f"llmjudge_gates=kappa=0.85 spearman=0.5 undecided={undecided}"
    result = run(pytester, "evals/", "-o", asked, "-o", "llmjudge_thresholds=relevance=1")
    assert result.ret == status
    results = read_results(pytester)
    gates = {gate["name"]: gate for gate in results["gates"]}
    kappa = gates["kappa.relevance"]
    interval = results["labels"]["relevance"]["kappa_ci"]
    assert (kappa["decision"], kappa["actual"], kappa["n"]) == ("undecided", 0.9, 10)
    assert (kappa["ci_low"], kappa["ci_high"]) == (interval["ci_low"], interval["ci_high"])
    assert kappa["ci_low"] < 0.85 < kappa["ci_high"]
    assert kappa["passed"] is (undecided != "fail")
    assert gates["spearman.relevance"]["decision"] == "pass"  # its whole interval above 0.5
    needed = interval["labels_for_0_1"]
    assert needed > 10
    result.stdout.fnmatch_lines(
        [
            f"*relevance kappa with human labels 0.90 >= 0.85 (10 labels; about {needed} labels "
            f"needed for ±0.1; 95% CI *): undecided, counted as *",
        ]
    )


@pytest.mark.usefixtures("judge_server")
def test_every_agreement_line_says_its_interval_labels_and_budget(
    pytester: pytest.Pytester,
) -> None:
    _labelled(pytester, TEN)
    result = run(pytester, "evals/", "--judge-report=report.md")
    labels = read_results(pytester)["labels"]["relevance"]
    spearman, kappa = labels["spearman_ci"], labels["kappa_ci"]
    lines = [
        f"  relevance spearman 0.90, 95% CI {spearman['ci_low']:.2f}-{spearman['ci_high']:.2f} "
        f"from 10 labels; about {spearman['labels_for_0_1']} labels needed for ±0.1",
        f"  relevance kappa 0.90, 95% CI {kappa['ci_low']:.2f}-{kappa['ci_high']:.2f} from 10 "
        f"labels; about {kappa['labels_for_0_1']} labels needed for ±0.1",
    ]
    # Se 1/2 (label 4 judged 3), Sp 2/3 (label 3 judged 4): too few labels and too weak
    lines.append(
        "  relevance pass rate (>= 3.5) 0.40 (95% CI 0.17-0.69, 10 items); too few labels to "
        "correct (4 label passes, 6 label fails, sensitivity + specificity - 1 = 0.17; needs 10 "
        "of each and sensitivity + specificity - 1 >= 0.5)"
    )
    result.stdout.fnmatch_lines(lines)
    report = (pytester.path / "report.md").read_text()
    assert all(f"- {line.strip()}" in report for line in lines)
    assert labels["pass_rate"]["corrected"] is None


@pytest.mark.usefixtures("judge_server")
def test_the_corrected_pass_rate_needs_ten_labels_of_each_class(pytester: pytest.Pytester) -> None:
    # 12 label passes (label 5): the judge passes 11 (score 5), fails 1 (score 2); 12 label
    # fails (label 1): the judge fails 11 (score 1), passes 1 (score 4); 10 unlabelled, all
    # scored 5. Se = Sp = 11/12; unlabelled: (1 + 11/12 - 1) / (10/12) = 1.1 -> 1;
    # the suite: (12 label passes + 10 * 1) / 34 = 0.6471; raw: (11 + 1 + 10) / 34 = 0.6471
    pairs: list[tuple[str, int | None]] = []
    pairs += [("5", 5)] * 11 + [("2", 5), ("1", 1)] + [("1", 1)] * 10 + [("4", 1)]
    pairs += [("5", None)] * 10
    _labelled(pytester, pairs)
    result = run(pytester, "evals/")
    rate = read_results(pytester)["labels"]["relevance"]["pass_rate"]
    assert (rate["label_passes"], rate["label_fails"], rate["n"]) == (12, 12, 34)
    assert (rate["sensitivity"], rate["specificity"]) == (0.9167, 0.9167)
    assert (rate["raw"], rate["corrected"]) == (0.6471, 0.6471)
    assert rate["ci_low"] < 0.6471 < rate["ci_high"]
    result.stdout.fnmatch_lines(
        [
            "  relevance pass rate (>= 3.5) 0.65 (95% CI *, 34 items), judge-corrected 0.65 "
            "(95% CI *; sensitivity 0.92, specificity 0.92 from 12 label passes, 12 label fails)",
        ]
    )
    # three label fails fewer (nine): too few to correct
    _labelled(pytester, pairs[:13] + pairs[16:])
    run(pytester, "evals/")
    fewer = read_results(pytester)["labels"]["relevance"]["pass_rate"]
    assert (fewer["label_fails"], fewer["corrected"], fewer["ci_low"]) == (9, None, None)


@pytest.mark.usefixtures("judge_server")
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_k_of_n_passes_an_item_when_k_runs_pass(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    write_evals(
        pytester,
        [
            entry("two", "a {{relevance=4,4,2 tone=4}}", ticket="t1"),
            entry("one", "b {{relevance=4,2,2 tone=4}}", ticket="t2"),
        ],
    )
    rule = ("-o", "llmjudge_verdict=k_of_n k=2", "--judge-runs=3")
    result = run(pytester, "evals/", *rule, "-v", *workers)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*PASSED (relevance 3.33 (2/3 runs passed), tone 4.00 (3/3 runs passed))*"]
    )
    result.stdout.fnmatch_lines(
        ["*relevance 2.67: 1/3 runs passed, 2 needed at 3.5 (runs 4, 2, 2)*"]
    )
    results = read_results(pytester)
    rows = by_id(results)
    assert results["meta"]["verdict"] == "k_of_n k=2"
    assert [rows[i]["outcome"] for i in ("two", "one")] == ["passed", "failed"]
    relevance = rows["two"]["relevance"]
    assert (relevance["runs_passed"], relevance["runs_needed"], relevance["decision"]) == (
        2,
        2,
        "pass",
    )
    # the mean rule fails the same runs (3.33 < 3.5): the rule is what decided
    assert run(pytester, "evals/", "--judge-runs=3", "-p", "no:cacheprovider").ret == 1
    assert by_id(read_results(pytester))["two"]["outcome"] == "failed"


@pytest.mark.usefixtures("judge_server")
def test_k_of_n_counts_the_runs_judged_adaptive_ones_too(pytester: pytest.Pytester) -> None:
    # runs 2, 4 straddle 3.5: two more are judged (4, 2): 2 of the 4 judged pass, k = 2
    # (the mean, 3.0, would fail it)
    write_evals(pytester, [entry("a", "a {{relevance=2,4,4,2 tone=4}}")])
    result = run(pytester, "evals/", "-o", "llmjudge_verdict=k_of_n k=2", "--judge-runs=2..4", "-v")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*::a PASSED (relevance 3.00 (2/4 runs passed)*"])
    relevance = by_id(read_results(pytester))["a"]["relevance"]
    assert (relevance["runs"], relevance["runs_passed"], relevance["runs_needed"]) == (
        [2, 4, 4, 2],
        2,
        2,
    )
    assert relevance["extra_runs"] == 2


def test_k_above_the_runs_is_refused_at_start(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "-o", "llmjudge_verdict=k_of_n k=4", "--judge-runs=3..6")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*k_of_n: k is more than the runs every item gets*"])
    missing = run(pytester, "evals/", "-o", "llmjudge_verdict=k_of_n")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*k_of_n needs k=K*"])


@pytest.mark.usefixtures("judge_server")
def test_the_planner_answers_from_a_results_file(pytester: pytest.Pytester) -> None:
    # relevance runs: (4, 4, 2), (4, 4, 4), (2, 2, 2), (5, 5, 5); tone 4 throughout.
    # σ² pooled: (2 * 1.3333 + 0 + 0 + 0) / 8 = 0.3333; means 3.3333, 4, 2, 5: s² = 1.5833;
    # ω² = s² - σ²/3 = 1.4722; d = 0.5, K = 3: 7.848880 * (1.4722 + 0.2222) / 0.25 = 53.2 -> 54;
    # K = 1: 7.848880 * (1.4722 + 0.6667) / 0.25 = 67.2 -> 68; K = 2: (1.4722 + 0.3333): 56.7
    # -> 57; K = 6: (1.4722 + 0.1111): 49.7 -> 50; unlimited: 7.848880 * 1.4722 / 0.25 = 46.2 -> 47
    write_evals(
        pytester,
        [
            entry(f"e{i}", f"a{i} {{{{relevance={runs} tone=4}}}}", ticket=f"t{i}")
            for i, runs in enumerate(("4,4,2", "4,4,4", "2,2,2", "5,5,5"))
        ],
    )
    run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_thresholds=relevance=1")
    planned = pytester.run(
        sys.executable, "-m", "pytest_llmjudge", "plan", "results/output.json", "--drop", "0.5"
    )
    assert planned.ret == 0
    planned.stdout.fnmatch_lines(
        [
            "relevance: 4 entries x 3 runs; σ² = 0.3333 (between runs, pooled, 8 df); "
            "s² = 1.5833 (entries' means); ω² = 1.4722 (*)",
            "  needs 54 entries at 3 runs (have 4: add 50); 68 at 1 run, 57 at 2 runs, "
            "50 at 6 runs; with unlimited runs 47",
            "  more entries buy more: the judge's noise 2·σ²/K = 0.2222 is at or below "
            "ω² = 1.4722 (runs beyond 3 cut at most 7 of 54 entries)",
            "tone: *",
            "  nothing varies here*",
        ]
    )
    missing = pytester.run(sys.executable, "-m", "pytest_llmjudge", "plan", "nothing.json")
    assert missing.ret == 2
    missing.stderr.fnmatch_lines(["error: nothing.json: file not found"])
    assert json.loads((pytester.path / "results/output.json").read_text())["meta"]["runs"] == 3
