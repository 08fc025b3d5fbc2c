"""Shared CLI plumbing: opening the home once, errors, JSON output."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from kenning.config import ConfigError, parse_assignments
from kenning.paths import InvalidProfileError

if TYPE_CHECKING:
    from kenning.home import Home


@dataclass
class CliState:
    profile: str | None
    assignments: list[str]
    _home: Home | None = field(default=None, repr=False)

    def home(self) -> Home:
        if self._home is None:
            # Imported here: the home brings its stores and the threat screen,
            # which `kenning --version` and `--help` never use.
            from kenning.home import Home

            try:
                overrides = parse_assignments(self.assignments)
                self._home = Home.open(profile=self.profile, overrides=overrides)
            except (ConfigError, InvalidProfileError) as exc:
                raise click.ClickException(str(exc)) from exc
        return self._home


pass_state = click.make_pass_decorator(CliState)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))
