"""The line that shows a turn is alive: a spinner, the step, the time, the tokens.

``⠹ running shell · 4.2 s · 3,120 in / 210 out`` while the agent works; it
is transient (erased when the turn's text or a prompt needs the screen) and
comes back for the next step, so the screen keeps only what was said and done.
The step names: waiting for the model, running TOOL, compacting, reviewing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.console import Console, RenderableType
from rich.live import Live
from rich.spinner import Spinner

from kenning.models.pricing import Price, cost_text
from kenning.models.types import Usage


@dataclass
class Meter:
    """Tokens and cost of this chat, across sessions switched within it."""

    price: Price | None = None
    usage: Usage = field(default_factory=Usage)
    turns: int = 0

    def add(self, usage: Usage) -> None:
        self.usage = self.usage + usage

    def short(self) -> str:
        u = self.usage
        return f"{u.input_tokens:,} in / {u.output_tokens:,} out · {cost_text(u, self.price)}"

    def report(self) -> str:
        u = self.usage
        lines = [
            f"input tokens   {u.input_tokens:>12,}",
            f"  cached       {u.cache_read_tokens:>12,}",
            f"output tokens  {u.output_tokens:>12,}",
            f"turns          {self.turns:>12,}",
            f"cost           {cost_text(u, self.price):>12}",
        ]
        if self.price is None:
            lines.append("(this model is not in Kenning's price table: see the provider's bill)")
        return "\n".join(lines)


class _Line:
    def __init__(self, status: TurnStatus) -> None:
        self.status = status
        self.spinner = Spinner("dots", style="cyan")

    def __rich__(self) -> RenderableType:
        self.spinner.update(text=self.status.text())
        return self.spinner


class TurnStatus:
    def __init__(self, console: Console, meter: Meter) -> None:
        self.console = console
        self.meter = meter
        self.step = ""
        self.started = time.monotonic()
        self._live: Live | None = None

    def text(self) -> str:
        elapsed = time.monotonic() - self.started
        return f"{self.step} · {elapsed:.1f} s · {self.meter.short()}"

    def begin(self) -> None:
        self.started = time.monotonic()

    def show(self, step: str) -> None:
        """Show (or update) the line at ``step``."""
        self.step = step
        if self._live is None and self.console.is_terminal:
            self._live = Live(
                _Line(self), console=self.console, refresh_per_second=10, transient=True
            )
            self._live.start()

    def hide(self) -> None:
        """Erase the line (text is about to stream, or the user is asked something)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
