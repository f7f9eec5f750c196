"""A run's cache entry composed without pydantic is the text ``CacheEntry`` writes, byte for
byte, checksum included; what the composition does not cover goes through the model as before
(the same text, or the same error)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import event, given, settings
from hypothesis import strategies as st

from pytest_llmjudge.judges import RunResult
from pytest_llmjudge.judging.cache_entries import (
    CacheEntry,
    _composed,
    _validated,
    entry_text,
    valid_entry,
)

TEXTS = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
KEYS = st.text("0123456789abcdef", min_size=64, max_size=64) | TEXTS
TOKENS = st.integers(min_value=-2, max_value=2**40)
WHOLE = st.integers(min_value=-1, max_value=7)
WEIGHTED = st.floats(min_value=0.5, max_value=5.5) | st.sampled_from([float("nan"), float("inf")])


@st.composite
def runs(draw: st.DrawFn) -> RunResult:
    weighted = draw(st.booleans())
    score: float = draw(WEIGHTED if weighted else WHOLE)
    text_score = draw(st.none() | WHOLE) if draw(st.booleans()) else (3 if weighted else None)
    return RunResult(
        score,
        draw(TEXTS),
        draw(TOKENS),
        draw(TOKENS),
        text_score=text_score,
        tokens_unknown=draw(st.booleans()),
        unweighted=draw(st.none() | TEXTS),
    )


def _outcome(make: Callable[[], str]) -> str:
    """The text made, or the kind of error it raised (the same kind either way)."""
    try:
        return make()
    except Exception as exc:
        return f"raised {type(exc).__name__}"


@settings(max_examples=400, deadline=None)
@given(key=KEYS, run=runs())
def test_the_composed_entry_is_the_models(key: str, run: RunResult) -> None:
    composed = _composed(key, run)
    event("composed" if composed is not None else "through the model")
    by_model = _outcome(lambda: _validated(key, run))
    assert _outcome(lambda: entry_text(key, run)) == by_model
    if composed is not None:
        assert composed == by_model
        read = valid_entry(key, composed, CacheEntry)  # sealed: read back as written
        assert read is not None and read.reasoning == run.reasoning and read.score == run.score


def test_a_judges_run_is_composed() -> None:
    """The runs the judges make (whole, weighted, tokens unknown, a cause) take the short way."""
    key = "ab" * 32
    for run in [
        RunResult(4, 'Polite, and it answers: "yes" — naïve \u2028 \x00', 512, 60),
        RunResult(3.4500000000000002, "weighted", 0, 0, text_score=3),
        RunResult(5, "certain", 1, 2, tokens_unknown=True, unweighted="no other digit"),
    ]:
        assert _composed(key, run) == _validated(key, run)
