"""Collection nodes: an eval file and its items."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..analysis.judgment import JudgeError
from ..basics.wording import entry_place
from ..checks.item import NOT_CHECKED, ItemChecks
from ..evalfiles.eval_file import EvalCase, EvalFileError, InvalidEntry, ValidEntry, load_eval_file
from ..evalfiles.eval_file import EvalFile as LoadedFile
from ..judging.verdict import EvalFailed
from ..reports.item_text import failure_lines
from .attempt import run_eval_entry
from .discovery import LLMJudgeWarning
from .item_checks import item_checks
from .pytest_internals import fixture_info, id_as_read_back, relocated_failure
from .state import EVAL_ITEM_KEY, ITEM_SETTINGS_KEY, STATE_KEY

FLAKY_MARK = "flaky_eval"
# per folder: each entry id and where it was first seen (file as shown, its line)
IDS_KEY = pytest.StashKey[dict[Path, dict[str, tuple[Path, int | None]]]]()
logger = logging.getLogger("pytest_llmjudge")


class EvalFile(pytest.File):
    """An eval file (JSON, JSON Lines, CSV or YAML); yields one item per entry, in file order."""

    def collect(self) -> Iterator[pytest.Item]:
        settings = self.config.stash[STATE_KEY].settings
        targets = settings.targets
        shown = Path(os.path.relpath(self.path, self.config.rootpath))
        try:
            loaded = _load(self.config, self.path, shown)
        except EvalFileError as exc:
            raise self.CollectError(str(exc)) from None
        for message, line in loaded.warnings:
            self._warn_at(message, line)
        self._warn_of_ids_used_elsewhere(loaded.entries, shown)
        target_names: list[str | None] = (
            [t.name for t in targets.targets] if targets is not None else [None]
        )
        shared: dict[str, Any] = {}  # the first item's fixtures, as pytest resolved them
        for found in loaded.entries:
            if isinstance(found, ValidEntry):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    marks, problem = _marks(found.entry)
                for warning in caught:  # unknown marks: point at the entry, not at us
                    shown_entry = entry_place(shown, found.line, found.name)
                    self._warn_at(f"{shown_entry}: {warning.message}", found.line, warning)
                if problem is None:
                    # a saved answer is replayed, never asked of a live target again
                    for target in [None] if found.entry.replayed else target_names:
                        item = EvalItem.from_parent(
                            self,
                            name=_item_name(found.name, target, len(target_names)),
                            callobj=run_eval_entry,
                            valid_entry=found,
                            target=target,
                            extra_marks=marks,
                            checks=item_checks(self.config, found),
                            **shared,
                        )
                        if not shared and (info := fixture_info(item)) is not None:
                            shared["fixtureinfo"] = info
                        yield item
                    continue
                place = entry_place(shown, found.line, found.name)
                skip = any(spec.name == "skip" for spec in found.entry.mark_specs())
                found = InvalidEntry(found.index, found.name, problem, found.line, place, skip)
            yield InvalidEvalItem.from_parent(self, name=found.name, invalid_entry=found)

    def _warn_of_ids_used_elsewhere(
        self, entries: list[ValidEntry | InvalidEntry], shown: Path
    ) -> None:
        """An id that another file of the same folder uses too: a warning at the entry."""
        folder_ids = self.config.stash.setdefault(IDS_KEY, {}).setdefault(self.path.parent, {})
        for found in entries:
            # a replayed answer (save_responses): each target's file holds the same ids,
            # which is how the comparison pairs its answers
            if not isinstance(found, ValidEntry) or "target" in found.entry.metadata:
                continue
            first = folder_ids.setdefault(found.entry.id, (shown, found.line))
            if first[0] != shown:
                elsewhere = f"{first[0]}:{first[1]}" if first[1] else str(first[0])
                self._warn_at(
                    f"{entry_place(shown, found.line, found.name)}: id '{found.entry.id}' is "
                    f"used in {elsewhere} too: people and reports tell entries apart by id; "
                    "give one of them another",
                    found.line,
                )

    def _warn_at(
        self, message: str, line: int | None, original: warnings.WarningMessage | None = None
    ) -> None:
        """A warning located at the eval file and entry line (not in the plugin's source)."""
        category = original.category if original is not None else LLMJudgeWarning
        warnings.warn_explicit(message, category, filename=str(self.path), lineno=line or 1)


def _load(config: pytest.Config, path: Path, shown: Path) -> LoadedFile:
    settings = config.stash[STATE_KEY].settings
    return load_eval_file(
        path,
        settings.dimensions,
        live=settings.targets is not None,
        shown_as=shown,
        max_input_chars=settings.max_input_chars,
        rootdir=config.rootpath,
    )


def timed_entry_names(config: pytest.Config, path: Path) -> set[str]:
    """The names of the items of an eval file that have a latency check no saved latency
    serves, as its collection names them without ``llmjudge_targets`` (for the xdist
    controller, which collects nothing: its workers do, and send it their items' node ids)."""
    return _entry_names(config, path, lambda entry: bool(item_checks(config, entry).unmeasured))


def referenced_entry_names(config: pytest.Config, path: Path) -> set[str]:
    """The names of the items of an eval file whose entry carries a reference (as above)."""
    return _entry_names(config, path, lambda found: found.entry.reference is not None)


def _entry_names(
    config: pytest.Config, path: Path, chosen: Callable[[ValidEntry], bool]
) -> set[str]:
    try:
        loaded = _load(config, path, Path(os.path.relpath(path, config.rootpath)))
    except EvalFileError:
        return set()  # its collection error comes from the workers
    names = set()
    for found in loaded.entries:
        if isinstance(found, ValidEntry) and chosen(found):
            with warnings.catch_warnings():  # the workers warn of its marks
                warnings.simplefilter("ignore")
                valid = _marks(found.entry)[1] is None  # else an invalid entry's item
            if valid:
                names.add(found.name)
    return names


def _item_name(entry_id: str, target: str | None, targets: int) -> str:
    """``ticket-001`` (stored answer or a single target), ``ticket-001[python]`` (A/B)."""
    return entry_id if target is None or targets == 1 else f"{entry_id}[{target}]"


def _marks(entry: EvalCase) -> tuple[list[pytest.MarkDecorator], str | None]:
    """The entry's pytest marks, or why they cannot be made."""
    marks = []
    for position, spec in enumerate(entry.mark_specs()):
        kwargs = spec.kwargs
        # In eval files "flaky" means a flaky eval; pytest-rerunfailures' own "flaky"
        # (rerun the test) would judge the same answer again instead.
        name = FLAKY_MARK if spec.name == "flaky" else spec.name
        if name == FLAKY_MARK and set(kwargs) - {"reason"}:
            return [], f"'marks.{position}': {_rerun_arguments(spec.name, kwargs)}"
        if spec.name == "xfail":
            # xfail means "expected to score below threshold", not "expected to crash":
            # a judge error must stay visible.
            kwargs.setdefault("raises", EvalFailed)
        try:
            marks.append(getattr(pytest.mark, name)(**kwargs))
        except pytest.fail.Exception as exc:  # an unknown mark under --strict-markers
            return [], f"'marks.{position}': {exc}"
        except (AttributeError, TypeError) as exc:
            return [], f"'marks.{position}': {exc}"
    return marks, None


def _rerun_arguments(name: str, kwargs: dict[str, Any]) -> str:
    """Why a ``flaky`` mark with pytest-rerunfailures' arguments is refused: taken as
    flaky_eval, a failing answer would become a non-gating xfail where a rerun was meant."""
    reruns = kwargs.get("reruns")
    flag = f"--reruns {reruns}" if isinstance(reruns, int) and reruns > 0 else "--reruns N"
    given = ", ".join(sorted(set(kwargs) - {"reason"}))
    return (
        f"{name} in an eval file is {FLAKY_MARK} (a noisy eval whose failure is xfail, not "
        f"gating) and takes no {given}: to rerun a failing eval, as pytest-rerunfailures' "
        f"flaky mark does, run pytest with {flag}"
    )


class EvalItem(pytest.Function):
    """One eval entry as a test that requests the judge fixtures.

    The items of one file share the fixtures pytest resolved for the first (the same body,
    place and marks when resolved: an entry's own marks are added after), as pytest's own
    parametrized items do (``pytest_internals.fixture_info``).
    """

    def __init__(
        self,
        *,
        valid_entry: ValidEntry,
        extra_marks: list[pytest.MarkDecorator],
        target: str | None = None,
        checks: ItemChecks = NOT_CHECKED,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        id_as_read_back(self)
        # its own list of fixture names: the shared resolution's list is one object, and a
        # conftest that appends a fixture to one item must not give it to the whole file
        self.fixturenames = list(self.fixturenames)
        self.stash[EVAL_ITEM_KEY] = True
        self.valid_entry = valid_entry  # the entry as read: its place, name and checks
        self.line = valid_entry.line  # kept when the entry goes (``done``)
        self.target = target  # the live bot whose answer this item judges, if any
        self.checks = checks  # its deterministic checks, run on its answer first
        for mark in extra_marks:
            self.add_marker(mark)

    @property
    def entry(self) -> EvalCase:
        """The entry, validated (what the ``eval_case`` fixture gives)."""
        return self.valid_entry.entry

    def done(self) -> None:
        """Its run is over, reruns included: what it read from its file (the validated
        entry, its checks, its resolved settings) is dropped, since pytest keeps its items
        to the end of the session and nothing reads them again (its row and reports hold
        what the session needs)."""
        del self.valid_entry
        self.checks = NOT_CHECKED
        if ITEM_SETTINGS_KEY in self.stash:
            del self.stash[ITEM_SETTINGS_KEY]

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.line - 1 if self.line else None
        # the domain is shown after the file in -v lines and as the failure heading
        return self.path, line, self.name

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> Any:
        if isinstance(excinfo.value, EvalFailed):
            return self._verdict_repr(excinfo)
        if isinstance(excinfo.value, JudgeError):
            return str(excinfo.value)  # no traceback of the plugin
        return super().repr_failure(excinfo)

    def _verdict_repr(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        """A failed verdict in the ``--tb`` style asked for, located at the entry in its file.

        pytest's own representation of the exception, its crash location the entry's file
        and line, its text the verdict in that style.
        """
        failed = excinfo.value
        assert isinstance(failed, EvalFailed)
        where, line = os.path.relpath(self.path), self.line or 1
        style = str(self.config.getoption("tbstyle", "auto"))
        lines = failure_lines(failed.row, failed.policy.confident, style, where, line, self.name)
        return relocated_failure(excinfo, where, line, failed.verdict, lines)


class InvalidEvalItem(pytest.Item):
    """An entry that could not be validated: an error that names it (nothing unmeasured is
    green), or a skip when the user marked it ``skip``."""

    def __init__(self, *, invalid_entry: InvalidEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        id_as_read_back(self)
        self.stash[EVAL_ITEM_KEY] = True
        self.invalid_entry = invalid_entry
        if invalid_entry.marked_skip:
            # A skip mark (not pytest.skip()) makes pytest report the eval file's location.
            self.add_marker(pytest.mark.skip(reason=f"marked skip (invalid: {self.message})"))

    @property
    def message(self) -> str:
        return f"{self.invalid_entry.place}: {self.invalid_entry.reason}"

    def setup(self) -> None:
        # pytrace=False: the reason alone, as a judge error reads (a setup error's report is
        # not made by repr_failure, so an exception of our own would bring pytest's traceback)
        pytest.fail(f"invalid eval entry: {self.message}", pytrace=False)

    def runtest(self) -> None:  # pragma: no cover - skipped or failed in setup
        raise AssertionError("an invalid entry is never run")

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.invalid_entry.line - 1 if self.invalid_entry.line else None
        return self.path, line, self.name
