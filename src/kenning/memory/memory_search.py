"""``memory_search``: find passages in the memory files (hot memory, journal, extra paths).

Returns chunks with their file path and line range, so the model can read
around a hit with ``memory_get``. The chunk index re-syncs changed files
(hand edits included) before each search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kenning.search.engine import SearchEngine

PREVIEW_CHARS = 1_200

SCHEMA: dict[str, Any] = {
    "name": "memory_search",
    "description": (
        "Search your memory files — MEMORY.md, USER.md, the daily journal (memory/*.md) and "
        "configured notes — for passages about a topic. Use it for things you noted on earlier "
        "days that are not in the memory shown at session start (only today's and yesterday's "
        "journal are). Returns file paths with line ranges; read more with memory_get. For "
        "what was said or done in past conversations, use session_search instead."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in any language."},
            "limit": {"type": "integer", "description": "How many passages (default 5, max 20)."},
        },
        "required": ["query"],
    },
}


@dataclass
class MemorySearch:
    engine: Callable[[], SearchEngine]

    def __call__(self, args: dict[str, Any]) -> dict[str, Any]:
        query = str(args.get("query") or "").strip()
        if not query:
            return {
                "success": False,
                "message": "query is empty.",
                "next_step": "Pass the words or question to look for.",
            }
        try:
            limit = min(max(int(args.get("limit") or 5), 1), 20)
        except (TypeError, ValueError):
            limit = 5
        result = self.engine().search(query, kinds=("chunk",), limit=limit)
        passages = []
        for hit in result.hits:
            text = hit.text or ""
            passage: dict[str, Any] = {
                "path": hit.path,
                "lines": f"{hit.line_start}-{hit.line_end}",
                "score": round(hit.score, 3),
                "text": text[:PREVIEW_CHARS],
            }
            if len(text) > PREVIEW_CHARS:
                passage["truncated"] = (
                    f"call memory_get with path={hit.path!r}, start_line={hit.line_start}"
                )
            passages.append(passage)
        response: dict[str, Any] = {"success": True, "mode": result.mode, "passages": passages}
        if result.notes:
            response["notes"] = result.notes
        if not passages:
            response["message"] = "No memory file mentions this."
            response["next_step"] = "Try session_search for past conversations."
        return response
