"""The offline heuristic judge: each signal moves the score the way it should, the reasoning
names what moved it, and the plugin shows that reasoning."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers import read_results, run, write_evals

TICKET = "Kubernetes pod stuck in CrashLoopBackOff after the latest deploy."


def judged(
    pytester: pytest.Pytester, ticket: str, answers: dict[str, str]
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Each answer to the one ticket as an eval entry under its id, judged by the heuristic
    judge through the plugin: the run and the results rows by id."""
    entries = [{"id": id_, "ticket": ticket, "response": text} for id_, text in answers.items()]
    write_evals(pytester, entries)
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    items = {item["id"]: item for item in read_results(pytester)["results"]}
    return result, items


def test_the_plugin_shows_the_signals_in_the_failure_and_the_results(
    pytester: pytest.Pytester,
) -> None:
    answers = {
        "rude": "Obviously you broke it. RTFM, duh!!",
        "good": "Run kubectl logs <pod> --previous to see why the pod crashes after the deploy, "
        "then fix the probe or roll back.",
    }
    result, items = judged(pytester, TICKET, answers)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*tone reasoning*", '*[[]heuristic judge, no LLM[]] tone 1/5: *down: insult ("*']
    )
    assert "ticket terms taken up" not in json.dumps(items["rude"])  # named by its reading
    assert "takes up 0% of the ticket's terms" in items["rude"]["relevance"]["reasoning"]
    assert items["rude"]["relevance"]["score"] <= 3  # nothing of the ticket is taken up
    assert "concrete commands/settings" in items["good"]["relevance"]["reasoning"]
    assert read_results(pytester)["meta"]["llm"] is False


def test_nothing_to_act_on_and_laughter_cap_the_score_and_say_why(
    pytester: pytest.Pytester,
) -> None:
    answers = {
        "general": "Memory is a complex area in container orchestration. Results will vary.",
        "laughing": "Thanks for the details! lol, we will raise the limit in the deployment "
        "for you.",
        "plain": "The container's limit is below what it uses. Raise resources.limits.memory "
        "in the deployment.",
    }
    result, items = judged(
        pytester, "Pods are OOMKilled although the node has free memory", answers
    )
    result.assert_outcomes(passed=1, failed=2)
    shown = " ".join(line.strip() for line in result.stdout.lines)  # reasoning wraps
    assert "relevance 3/5: " in shown
    assert "at most 3: nothing to act on (no step, command, setting or figure)" in shown
    assert 'at most 3: it laughs at the problem ("lol")' in shown
    assert items["plain"]["outcome"] == "passed"
    general = items["general"]["relevance"]
    assert general["score"] == 3 and "nothing to act on" in general["reasoning"]
    laughing = items["laughing"]["tone"]
    assert laughing["score"] <= 3 and 'laughs at the problem ("lol")' in laughing["reasoning"]


def test_what_the_ticket_asks_and_disrespect_without_a_rude_word_show_in_the_results(
    pytester: pytest.Pytester,
) -> None:
    answers = {
        "yes": "Yes, in a different form: security groups per service and a web application "
        "firewall in front of public apps.",
        "praise": "Firewalls are the rockstars of the cloud, and we love them!",
        "sarcasm": "Firewalls in the cloud? Bold choice. Wow.",
    }
    result, items = judged(pytester, "Do we need a firewall if we are fully in the cloud?", answers)
    result.assert_outcomes(passed=1, failed=2)
    # a yes-or-no ticket answered "Yes, ..." needs no steps
    assert items["yes"]["outcome"] == "passed"
    assert "nothing to act on" not in items["yes"]["relevance"]["reasoning"]
    praise = items["praise"]["relevance"]
    assert praise["score"] == 2 and "at most 2: no answer" in praise["reasoning"]
    sarcasm = items["sarcasm"]["tone"]
    assert sarcasm["score"] <= 3
    assert (
        'dismissal or blame ("bold choice, wow., firewalls in the cloud?")' in sarcasm["reasoning"]
    )
    shown = " ".join(line.strip() for line in result.stdout.lines)  # reasoning wraps
    assert "says the problem has many causes, or thanks and praises" in shown


def test_steps_without_disrespect_pass_on_tone_and_the_floor_shows_in_the_results(
    pytester: pytest.Pytester,
) -> None:
    answers = {
        "steps": "Clicking means a disk is failing. Check the disk health in the storage "
        "manager, back up now, and replace the disk before the array degrades.",
        "jab": "Clicking means a disk is failing. Check the disk health in the storage "
        "manager and replace the disk before the array degrades, genius.",
    }
    result, items = judged(pytester, "Our NAS is making clicking noises", answers)
    result.assert_outcomes(passed=1, failed=1)
    steps = items["steps"]["tone"]
    assert items["steps"]["outcome"] == "passed" and steps["score"] == 4
    assert "at least 4: it gives steps and shows no sign of disrespect" in steps["reasoning"]
    jab = items["jab"]["tone"]
    assert jab["score"] <= 3 and "at least 4" not in jab["reasoning"]
    shown = " ".join(line.strip() for line in result.stdout.lines)  # reasoning wraps
    assert 'dismissal or blame (", genius")' in shown


def test_a_direct_yes_with_a_step_passes_a_yes_or_no_ticket_and_the_floor_shows(
    pytester: pytest.Pytester,
) -> None:
    how = "order it in the portal under Workplace > Ergonomics; it takes two weeks."
    answers = {
        "yes": f"Yes: {how}",
        "steps-only": how.capitalize(),
        "referral": "Yes, contact support and open a ticket.",
    }
    result, items = judged(pytester, "Can I get a standing desk?", answers)
    result.assert_outcomes(passed=1, failed=2)
    yes = items["yes"]["relevance"]
    assert items["yes"]["outcome"] == "passed" and yes["score"] == 4
    assert "at least 4: it answers the yes-or-no question and says how" in yes["reasoning"]
    for other in ("steps-only", "referral"):
        relevance = items[other]["relevance"]
        assert relevance["score"] <= 3 and "at least 4" not in relevance["reasoning"]
