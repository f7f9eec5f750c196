"""``python -m pytest_llmjudge schema``: print the JSON Schema of the results file."""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    if argv[:1] != ["schema"] or len(argv) != 1:
        print("usage: python -m pytest_llmjudge schema", file=sys.stderr)
        return 2
    from .schema import json_schema

    print(json.dumps(json_schema(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
