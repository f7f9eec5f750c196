"""pytest-llmjudge: LLM evaluation data as ordinary pytest tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis.judgment import JudgeError, Judgment
    from .evalfiles.eval_file import EvalCase
    from .judging.item_judge import ItemJudge

__all__ = ["EvalCase", "ItemJudge", "JudgeError", "Judgment", "__version__"]

# Public names load on first use, so that installing the plugin costs no import time.
_LAZY = {
    "EvalCase": "evalfiles.eval_file",
    "JudgeError": "analysis.judgment",
    "Judgment": "analysis.judgment",
    "ItemJudge": "judging.item_judge",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from .basics.version import plugin_version

        return plugin_version()
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
