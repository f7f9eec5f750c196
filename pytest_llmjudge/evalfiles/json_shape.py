"""Whether a JSON text is shaped like an eval file: cheaply, with the standard library only.

An eval file is a list of entries (objects) or an object with ``examples``. Files under the
eval folders that are neither (a metrics file, a fixture of another tool) are left alone; a
file that is broken JSON is treated as a broken eval file so that its error is shown.
"""

from __future__ import annotations

import json
import re

HOW_TO = (
    'an eval file is a list of entries ([{"id": ..., "ticket": ..., "response": ...}]) '
    'or an object with an "examples" list'
)


def eval_shaped(text: str) -> bool:
    """A list of objects (or an empty list, or a list with entries after a first element that
    is not one), an object with ``examples``, or broken JSON."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        # The first element decides (entries are objects), unless entries follow it: a file
        # whose first entry is wrong is a broken eval file, not some other tool's list.
        return stripped[1:].lstrip()[:1] in ("{", "]") or '"ticket"' in stripped
    if not stripped.startswith("{"):
        return not _is_json(stripped)  # a scalar is no eval file; broken text may be one
    try:
        data = json.loads(stripped)
    except ValueError:
        return True
    return isinstance(data, dict) and "examples" in data


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


SNIFFED_CHARS = 65536  # enough for the start of any eval file


def holds_evals(text: str, suffix: str) -> bool:
    """Whether a file outside the eval folders looks like an eval file of its format: entries
    with a ``ticket`` (a hint names it; ``package.json`` and fixtures of other tools do not)."""
    head = text[:SNIFFED_CHARS]
    if suffix == ".csv":
        first = head.split("\n", 1)[0].lower()
        return "ticket" in first and ("response" in first or "id" in first)
    if suffix in (".yaml", ".yml"):
        return "ticket:" in head and ("response:" in head or "id:" in head)
    if suffix == ".jsonl":
        return head.lstrip().startswith("{") and '"ticket"' in head
    return '"ticket"' in head and eval_shaped(text)


# The first characters of what this plugin writes: a results file starts with its "meta"
# (pydantic writes the fields in order), each trace line with the request's "nodeid".
_RESULTS_START = re.compile(r'\s*\{\s*"meta"\s*:\s*\{')
_TRACE_START = re.compile(r'\s*\{"nodeid":[^\n]*"dimension":')


def plugin_output(head: str) -> bool:
    """Whether a JSON or JSON Lines text is one this plugin writes (a results file, a trace):
    never an eval file, whichever folder it lies in, and never named in a hint."""
    return bool(_RESULTS_START.match(head) or _TRACE_START.match(head))


# A saved response (llmjudge_targets save_responses) ends with the target that gave it and the
# entry it answered: ``"target": "python", "source": "evals/a.json::t1"``.
_SAVED_RESPONSE = re.compile(r'"target": "[^"\n]*",\s*"source": "[^"\n]*::')


def saved_responses(head: str) -> bool:
    """Whether an eval-shaped text is a file of responses this plugin saved for replay: replayed
    when named or put in ``llmjudge_paths``, never suggested by a hint."""
    return bool(_SAVED_RESPONSE.search(head))
