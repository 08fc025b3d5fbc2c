"""The chat's parts on their own: undo checkpoints, prices, completion."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from kenning.chat.checkpoints import Checkpoints
from kenning.chat.input import ChatCompleter
from kenning.chat.status import Meter
from kenning.models.pricing import cost_text, price_for
from kenning.models.types import Usage


def test_undo_returns_each_file_to_before_the_turn(tmp_path: Path) -> None:
    edited, created = tmp_path / "a.txt", tmp_path / "b.txt"
    edited.write_text("v1")
    points = Checkpoints()
    points.begin_turn()
    points.record(edited)
    edited.write_text("v2")
    points.record(edited)  # a second write in the same turn keeps the first checkpoint
    edited.write_text("v3")
    points.record(created)
    created.write_text("new")
    points.begin_turn()  # a turn that edits nothing leaves the last edits undoable
    assert sorted(points.undo()) == [
        f"removed {created} (the turn created it)",
        f"restored {edited}",
    ]
    assert edited.read_text() == "v1" and not created.exists()
    assert points.undo() == []


def test_prices_and_the_meter() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=500_000)
    price = price_for("openai/gpt-4.1-mini-2025-04-14")
    assert price is not None and cost_text(usage, price) == "$0.4100"
    assert cost_text(usage, price_for("qwen3", local=True)) == "free (local)"
    assert cost_text(usage, price_for("mystery-model")) == "cost unknown"
    meter = Meter(price)
    meter.add(usage)
    assert meter.short() == "1,000,000 in / 100,000 out · $0.4100"


def test_completion_of_commands_and_paths(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / ".hidden").write_text("")
    done = ChatCompleter(["/undo", "/unknown-ish", "/help"], tmp_path)

    def names(text: str) -> list[str]:
        found = done.get_completions(Document(text), CompleteEvent(completion_requested=True))
        return [c.text for c in found]

    assert names("/un") == ["/undo", "/unknown-ish"]
    assert names("look at sr") == ["src/"]
    assert names("look at src/m") == ["main.py"]
    assert names("see @src/") == ["main.py"]
    assert names("x .h") == [".hidden"] and ".hidden" not in names("x ")
