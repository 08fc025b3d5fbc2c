"""The chat's input line: multi-line text, history, completion, and a quiet terminal.

Enter sends; Alt-Enter (or Esc then Enter) starts a new line, and a pasted
block keeps its line breaks (bracketed paste) without sending. Tab completes
slash commands at the start of the line and paths anywhere else (the word
under the cursor, relative to the chat's working directory).
"""

from __future__ import annotations

import contextlib
import sys
import termios
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


class ChatCompleter(Completer):
    def __init__(self, commands: Sequence[str], cwd: Path) -> None:
        self.commands = sorted(commands)
        self.cwd = cwd

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name in self.commands:
                if name.startswith(before):
                    yield Completion(name, start_position=-len(before))
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        yield from self._paths(word.removeprefix("@"))

    def _paths(self, word: str) -> Iterator[Completion]:
        head, _, stem = word.rpartition("/")
        base = Path(head or ".").expanduser()
        folder = base if base.is_absolute() else self.cwd / base
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        for entry in entries:
            name = entry.name
            if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")):
                continue
            shown = name + ("/" if entry.is_dir() else "")
            yield Completion(shown, start_position=-len(stem), display=shown)


def _bindings() -> KeyBindings:
    keys = KeyBindings()

    @keys.add("enter")
    def _send(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @keys.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return keys


def chat_prompt(history_file: Path, commands: Sequence[str], cwd: Path) -> PromptSession[str]:
    try:
        history_file.parent.mkdir(parents=True, exist_ok=True)
        history: History = FileHistory(str(history_file))
    except OSError:
        history = InMemoryHistory()
    return PromptSession(
        history=history,
        multiline=True,  # Enter is bound to send; Alt-Enter and pastes add lines
        key_bindings=_bindings(),
        completer=ChatCompleter(commands, cwd),
        complete_while_typing=False,
        prompt_continuation="  ",
    )


@contextlib.contextmanager
def quiet_terminal() -> Iterator[None]:
    """No echo of what is typed while a turn runs (prompts set their own mode).

    The terminal's own echo of Ctrl-C (``^C``) and of keys typed ahead lands
    in the middle of the live rendering, whose cursor bookkeeping then puts
    the answer's first lines on the screen twice; and without ``NOFLSH`` the
    Ctrl-C would also discard output still on its way to the screen (half a
    redraw). So: no echo, no flush, while the turn owns the screen.
    """
    try:
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        yield  # not a terminal: nothing echoes
        return
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    quiet[3] |= termios.NOFLSH
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, saved)
