"""Text the command line cannot keep, refused at the door; output that cannot fail.

Python decodes argv bytes that are not UTF-8 (``kenning search $'\\xff'``, or
a terminal set to Latin-1) to lone surrogates, which SQLite, git and the
files refuse with a traceback wherever the text is first written. Replacing
them would store the user's "café" as "caf\ufffd" without a word, so a text
argument that holds one is a usage error naming the byte, before the command
runs. Path arguments are left alone: a file name need not be UTF-8, and
Python opens it fine.

Output goes the other way: whatever is printed (a path that is not UTF-8, a
stored string) is written with ``backslashreplace``, so printing never crashes.
"""

from __future__ import annotations

import io
import sys
from typing import Any

import click

from kenning.wellformed import first_surrogate, repair


class WellFormedText(click.ParamType[str]):
    """click's text type, refusing what is not valid Unicode (bytes that were not UTF-8)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = click.STRING.convert(value, param, ctx)
        at = first_surrogate(text)
        if at >= 0:
            code = ord(text[at])
            # surrogateescape maps an undecodable byte 0xNN to U+DCNN.
            what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
            self.fail(
                f"{repair(text)!r} is not valid UTF-8 text ({what} at character {at + 1}). "
                "Kenning keeps text as UTF-8: set the terminal to UTF-8 (e.g. LANG=C.UTF-8) "
                "or type the argument again.",
                param,
                ctx,
            )
        return text

    def __repr__(self) -> str:
        return "WELL_FORMED_TEXT"


WELL_FORMED_TEXT = WellFormedText()


def guard(command: click.Command) -> click.Command:
    """``command`` and its subcommands with every text parameter checked (in place)."""
    for param in command.params:
        if isinstance(param.type, click.types.StringParamType):
            param.type = WELL_FORMED_TEXT
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            guard(sub)
    return command


def robust_output() -> None:
    """Make stdout and stderr write what they cannot encode as escapes instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
