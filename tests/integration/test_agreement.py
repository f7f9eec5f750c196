"""Agreement of the judge with human labels: figures checked against values worked by hand."""

from __future__ import annotations

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

# judge:  5 4 3 2 1  (relevance, scripted)      labels: 5 3 4 2 1
# Spearman: d = 0, 1, -1, 0, 0 -> 1 - 6 * 2 / (5 * (25 - 1)) = 0.9
# Quadratic kappa: observed disagreement 2 * (1/16) = 0.125; expected, every marginal 1 of 5:
# 0.2 * sum((i - j)^2) / 16 = 0.2 * 100 / 16 = 1.25 -> 1 - 0.125 / 1.25 = 0.9
SCORES, LABELS = (5, 4, 3, 2, 1), (5, 3, 4, 2, 1)


@pytest.fixture
def labelled(pytester: pytest.Pytester, judge_server: JudgeServer) -> pytest.Pytester:
    write_evals(
        pytester,
        [
            entry(
                f"e{i}",
                f"answer {{{{relevance={score} tone=4}}}}",
                ticket=f"ticket {i}",
                expected={"relevance": label, "tone": 4},
            )
            for i, (score, label) in enumerate(zip(SCORES, LABELS, strict=True))
        ],
    )
    return pytester


def test_agreement_in_results_terminal_and_report(labelled: pytest.Pytester) -> None:
    result = run(
        labelled,
        "evals/",
        "--judge-report=report.md",
        "-o",
        "llmjudge_label_margin=0.5",
        "-v",
        "-rA",
    )
    result.stdout.fnmatch_lines(
        [
            # scored 4 against a label of 3: shown on its -v line, still a pass
            "evals/support.json::e1 PASSED (relevance 4.00 (label 3), tone 4.00)*",
            # pytest's short summary keeps its shape: word, node id
            "PASSED evals/support.json::e1",
            "agreement with human labels:",
            "  relevance: n=5 spearman 0.90 kappa 0.90 exact 0.60 within one 1.00 bias +0.00 "
            "(no bias)",
            "  tone: n=5 spearman n/a kappa n/a exact 1.00 within one 1.00 bias +0.00 (no bias)",
            "judged far from their human label (not a verdict): evals/support.json::e1, "
            "evals/support.json::e2",
        ]
    )
    results = read_results(labelled)
    relevance = results["labels"]["relevance"]
    assert (relevance["n"], relevance["spearman"], relevance["kappa"]) == (5, 0.9, 0.9)
    assert (relevance["exact"], relevance["within_one"], relevance["bias"]) == (0.6, 1.0, 0.0)
    assert [d["nodeid"] for d in relevance["disagreements"]] == [
        "evals/support.json::e1",
        "evals/support.json::e2",
    ]
    rows = by_id(results)
    assert rows["e1"]["label_disagreement"] and not rows["e0"]["label_disagreement"]
    assert rows["e1"]["expected"] == {"relevance": 3.0, "tone": 4.0}
    report = (labelled.path / "report.md").read_text()
    assert "| relevance | 5 | 0.90 | 0.90 | 0.60 | 1.00 | +0.00 |" in report


def test_min_agreement_gate(labelled: pytest.Pytester) -> None:
    passing = run(labelled, "evals/", "-o", "llmjudge_gates=kappa=0.85 pass_rate=0")
    passing.stdout.no_fnmatch_line("gate FAILED: relevance kappa*")
    failing = run(labelled, "evals/", "-o", "llmjudge_gates=spearman=0.95")
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    # five labels: Spearman's interval holds 0.95, undecided, counted by the estimate
    failing.stdout.fnmatch_lines(
        [
            "gate FAILED: relevance spearman with human labels 0.90 < 0.95 (5 labels; about 23 "
            "labels needed for ±0.1; 95% CI -0.17-1.00): undecided, counted as failed "
            "(undecided=point)"
        ]
    )


def test_labels_off_the_1_to_5_scale_are_rejected(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a", expected={"relevance": 7})])
    result = run(pytester, "evals/", "-rs")
    result.stdout.fnmatch_lines(
        ["*support.json:* (*): 'expected.relevance' must be between 1 and 5, got 7*"]
    )
