"""What the index holds, whatever stores it: a message's documents and the vectors' identity.

A message is indexed as its document (``message_docs``: ``body`` = the
message, ``ctx`` = the message it replies to) and embedded as the passage
"previous + current"; every storage backend keeps its rows in step with the
archive by these rules, and search ranks what they hold.

The vectors' identity (embedder name, dims, version, passage recipe) is
stored with them; vectors of another identity are never mixed in: the
storage's ``vectors.check_identity`` reports the mismatch and
``vectors.reset`` clears them so everything is re-embedded (the embedding
cache makes that cheap when the texts are unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kenning.embed.base import Embedder
from kenning.storage.text import doc_text

# What a message is embedded as (see ``message_docs``): the message it replies to, then
# itself. Bumping this re-embeds every archive lazily (``vectors.claim_identity``).
PASSAGE_RECIPE = "reply-context v2"
TOOL_CALLS_CHARS = 500  # what an assistant's tool calls add to its searchable text


class IndexIdentityError(RuntimeError):
    """The stored vectors came from another embedder; the message says how to rebuild."""


@dataclass(frozen=True)
class IndexIdentity:
    embedder: str
    dims: int
    passage: str = PASSAGE_RECIPE

    @classmethod
    def of(cls, embedder: Embedder) -> IndexIdentity:
        ident = embedder.identity
        return cls(embedder=ident.key(), dims=ident.dims)

    def describe(self) -> str:
        return f"{self.embedder} ({self.dims} dims, passages {self.passage!r})"


def identity_problem(stored: IndexIdentity | None, current: IndexIdentity) -> str | None:
    """None when vectors of ``stored`` identity may be used (and added to) by an embedder of
    ``current`` identity (none stored yet, the same, or an older passage recipe of the same
    model, which re-embeds as it goes); else why not and what to do, for every backend."""
    if stored is None or stored == current or recipe_changed(stored, current):
        return None
    return (
        f"the stored vectors were built with {stored.describe()}, but the configured "
        f"embedder is {current.describe()}; run `kenning index rebuild` to re-embed"
    )


def recipe_changed(stored: IndexIdentity | None, current: IndexIdentity) -> bool:
    return (
        stored is not None
        and (stored.embedder, stored.dims) == (current.embedder, current.dims)
        and stored.passage != current.passage
    )


def indexable(rows: list[Any]) -> list[Any]:
    """The rows worth a place in the index: those with text or tool calls.

    A row with neither (a tool that printed nothing, a call recorded before its
    content) matches nothing a user asks and, embedded, would come back from
    vector search as a blank hit; it is never indexed, by any backend.
    """
    return [r for r in rows if _content(r["content"] or "", r["tool_calls"]).strip()]


def _content(content: str, tool_calls: str | None) -> str:
    if not tool_calls:
        return content
    return f"{content} {tool_calls[:TOOL_CALLS_CHARS]}".strip()


def message_docs(row: Any) -> tuple[str, str | None]:
    """(the message's document, the document of the message it replies to, if any).

    A message is a reply when the one before it has another voice (another
    speaker, or another role): "Yes! It was amazing" needs the question it
    answers. Consecutive messages in one voice are separate statements — a
    list of facts, a user correcting themselves — and each is embedded alone,
    so one never borrows the other's meaning (measured on Letta's fact sets,
    where "prev+current" put the fact *after* the answer first).
    """
    body = doc_text(row["speaker"], row["role"], _content(row["content"], row["tool_calls"]))
    if row["p_role"] is None:
        return body, None
    if (row["p_speaker"] or row["p_role"]) == (row["speaker"] or row["role"]):
        return body, None
    prev = doc_text(
        row["p_speaker"], row["p_role"], _content(row["p_content"], row["p_tool_calls"])
    )
    return body, prev
