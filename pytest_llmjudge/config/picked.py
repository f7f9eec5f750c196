"""Every option's value by precedence (command line > environment > ini > default), and the
source it came from: what ``settings`` resolves the session's settings from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .options import OPTIONS, OptionSpec


class SettingsError(ValueError):
    """A configuration value is invalid; the message names its source."""


@dataclass(frozen=True)
class Picked:
    """Every option's parsed value and its source, and the folders paths are read from."""

    base_dir: Path  # where the session was invoked
    ini_dir: Path  # the rootdir, for paths from ini
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        cli: Mapping[str, Any],
        env: Mapping[str, str],
        ini: Mapping[str, Any],
        base_dir: Path,
        ini_dir: Path,
    ) -> Picked:
        picked = cls(base_dir, ini_dir)
        for spec in OPTIONS:
            picked.values[spec.dest], picked.sources[spec.dest] = pick(spec, cli, env, ini)
        return picked

    def folder(self, name: str) -> Path:
        """The folder an option's relative path is read from: the rootdir from ini, else the
        invocation."""
        return self.ini_dir if self.sources[name].startswith("ini") else self.base_dir

    def where(self, text: str, name: str) -> Path:
        """A path as given for option ``name``."""
        value = Path(text).expanduser()
        return value if value.is_absolute() else self.folder(name) / value

    def path(self, name: str) -> Path | None:
        """Option ``name``'s path (None when not given)."""
        return None if self.values[name] is None else self.where(self.values[name], name)

    def fail(self, name: str, problem: str) -> SettingsError:
        """The error of option ``name``, its source named."""
        return SettingsError(f"{self.sources[name]} {problem}")


def pick(
    spec: OptionSpec, cli: Mapping[str, Any], env: Mapping[str, str], ini: Mapping[str, Any]
) -> tuple[Any, str]:
    """Return (value, source) for one option, parsed and validated."""
    candidates: list[tuple[Any, str]] = []
    cli_value = cli.get(spec.dest)
    if isinstance(cli_value, list):  # a repeatable flag given several times
        cli_value = ",".join(cli_value)
    if cli_value is not None:  # (an ini key's value given with -o, for a per-name option)
        candidates.append((cli_value, spec.flag or f"-o {spec.ini}"))
    for name in spec.env:
        if env.get(name, "").strip():
            candidates.append((env[name], f"environment variable {name}"))
            break
    ini_value = ini.get(spec.ini) if spec.ini else None
    if ini_value not in (None, ""):
        candidates.append((ini_value, f"ini option {spec.ini}"))
    if not candidates:
        return spec.default, "default"
    if spec.merge is None:
        return _parsed(spec, *candidates[0]), candidates[0][1]
    # a per-name option: the lower sources' names stay, each source its own errors
    value = _parsed(spec, *candidates[-1])
    for raw, source in reversed(candidates[:-1]):
        value = spec.merge(value, _parsed(spec, raw, source))
    return value, " and ".join(source for _, source in reversed(candidates))


def _parsed(spec: OptionSpec, raw: Any, source: str) -> Any:
    if isinstance(raw, bool) and spec.is_flag:  # a switch given: the setting's on (or off)
        raw = "true" if raw else "false"
    try:
        return spec.parse(str(raw))
    except ValueError as exc:
        reason = str(exc)
        if "invalid literal" in reason or "could not convert" in reason:
            reason = f"must be a number, got {raw!r}"
        raise SettingsError(f"{source} {reason}") from None
