"""How often the judge-corrected pass rate's 95% interval holds the true pass rate.

    python benchmarks/sim_corrected_rate.py                 # 2,000 suites a case, seed 62
    python benchmarks/sim_corrected_rate.py --suites 500 --seed 1

A synthetic suite: N items, each truly passing with probability π (the true pass rate); the
judge passes a truly passing item with probability Se and a truly failing one with 1 - Sp;
the first M items carry a human label, the truth. The plugin's own function
(``agreement.correct_rate``, as a session calls it) gives the raw rate with Wilson's interval
and the Rogan-Gladen rate with Lang and Reiczigel's interval, or nothing when the labels are
too few (fewer than 10 label passes or fails, or Se + Sp - 1 below 0.5 on them). Coverage is
counted over the suites it corrected, of π and of the suite's own share of truly passing
items; the raw interval's coverage of π shows what the correction is for.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_llmjudge.analysis.agreement import correct_rate


@dataclass(frozen=True)
class Case:
    items: int
    labelled: int
    rate: float  # π
    sensitivity: float
    specificity: float


CASES = (
    Case(items=200, labelled=60, rate=0.7, sensitivity=0.9, specificity=0.85),
    Case(items=100, labelled=40, rate=0.5, sensitivity=0.85, specificity=0.9),
    Case(items=300, labelled=100, rate=0.85, sensitivity=0.95, specificity=0.8),
    Case(items=60, labelled=60, rate=0.6, sensitivity=0.8, specificity=0.8),
)


def share(hits: int, total: int) -> str:
    if not total:
        return "n/a"
    rate = hits / total
    return f"{rate:.1%} ± {1.96 * math.sqrt(rate * (1 - rate) / total):.1%}"


def run(case: Case, suites: int, rng: random.Random) -> str:
    corrected = covered = covered_share = raw_covered = 0
    for _ in range(suites):
        truth = [rng.random() < case.rate for _ in range(case.items)]
        judge = [
            rng.random() < (case.sensitivity if true else 1 - case.specificity) for true in truth
        ]
        labelled = list(zip(judge[: case.labelled], truth[: case.labelled], strict=True))
        base: list[tuple[bool, bool | None]] = [
            (judged, true if i < case.labelled else None)
            for i, (judged, true) in enumerate(zip(judge, truth, strict=True))
        ]
        result = correct_rate(base, labelled, 3.5)
        raw_covered += result.raw_ci_low <= case.rate <= result.raw_ci_high
        if result.ci_low is None or result.ci_high is None:
            continue
        corrected += 1
        covered += result.ci_low <= case.rate <= result.ci_high
        covered_share += result.ci_low <= sum(truth) / case.items <= result.ci_high
    return (
        f"N={case.items} labelled={case.labelled} π={case.rate} Se={case.sensitivity} "
        f"Sp={case.specificity}: corrected in {corrected} of {suites} suites; corrected "
        f"interval holds π in {share(covered, corrected)}, the suite's own true share in "
        f"{share(covered_share, corrected)}; raw (Wilson) interval holds π in "
        f"{share(raw_covered, suites)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=62)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for case in CASES:
        print(run(case, args.suites, rng), flush=True)


if __name__ == "__main__":
    main()
