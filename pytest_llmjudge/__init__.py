"""pytest-llmjudge: LLM evaluation data as ordinary pytest tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .dataset import EvalCase
    from .facade import ItemJudge
    from .judgment import JudgeError, Judgment

__all__ = ["EvalCase", "ItemJudge", "JudgeError", "Judgment", "__version__"]

_LAZY = {
    "EvalCase": "dataset",
    "JudgeError": "judgment",
    "Judgment": "judgment",
    "ItemJudge": "facade",
}


def __getattr__(name: str) -> Any:
    # Public types load on first use, so that installing the plugin costs no import time.
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
