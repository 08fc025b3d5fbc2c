"""``kenning sessions …``: the archive of past sessions."""

from __future__ import annotations

import click


@click.group()
def sessions() -> None:
    """The archive: every session and message, imported or lived."""
