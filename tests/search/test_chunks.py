"""The memory-file chunk index: chunking, incremental sync, hand edits, decay."""

from __future__ import annotations

import itertools
import os
import time

from kenning.archive.store import Archive
from kenning.home import Home
from kenning.search import chunks
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.testing import FakeEmbedder
from kenning.tokens import estimate_tokens


def test_lines_are_costed_by_the_one_token_counter() -> None:
    # "abcd" * 10 is one 40-letter word: 7 tokens, not 10 (four characters a token).
    assert chunks.estimate_tokens is estimate_tokens
    assert chunks.estimate_tokens("abcd" * 10) == 7
    assert chunks.estimate_tokens("部署到生产环境") == 7
    assert chunks.estimate_tokens("deploy 部署") == 1 + 2


def test_chunks_cut_on_lines_with_overlap() -> None:
    lines = [f"line {i} " + "word " * 15 for i in range(100)]  # ~21 tokens a line
    got = chunks.chunk_lines(lines, tokens=400, overlap=80)
    assert got[0].line_start == 1 and got[-1].line_end == 100
    for a, b in itertools.pairwise(got):
        assert b.line_start <= a.line_end  # overlap
        assert a.line_end - b.line_start + 1 <= 5  # ~80 tokens, not more
        assert b.line_start > a.line_start  # progress
    assert all(chunks.estimate_tokens(c.text) <= 420 for c in got)
    one_huge = chunks.chunk_lines(["x" * 10_000], tokens=400)
    assert len(one_huge) == 1


def test_sync_is_incremental_and_follows_hand_edits(home: Home, archive: Archive) -> None:
    layout = home.layout
    layout.memories_dir.mkdir(parents=True)
    layout.journal_dir.mkdir(parents=True)
    layout.memory_file.write_text("Prefers tea over coffee\n")
    layout.user_file.write_text("Name: Ada\n")
    (layout.journal_dir / "2026-01-02.md").write_text("Fixed the flaky kiwi test\n")
    first = chunks.sync(archive.storage, layout)
    assert (first.files_indexed, first.chunks_written) == (3, 3)
    again = chunks.sync(archive.storage, layout)
    assert again == chunks.ChunkSync(0, 0, 0)
    # A touch without a change re-hashes but does not re-chunk.
    os.utime(layout.user_file, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    assert chunks.sync(archive.storage, layout).chunks_written == 0
    # A hand edit is picked up by the next search.
    layout.memory_file.write_text("Prefers green tea; coffee makes them jittery\n")
    engine = SearchEngine(archive, FakeEmbedder(), layout=layout)
    hit = engine.search("jittery coffee").hits[0]
    assert hit.kind == "chunk" and "jittery" in (hit.text or "")
    assert not [h for h in engine.search("tea over coffee").hits if "over" in (h.text or "")]
    # A deleted file loses its chunks, FTS rows and vectors.
    (layout.journal_dir / "2026-01-02.md").unlink()
    assert chunks.sync(archive.storage, layout).files_removed == 1
    assert not engine.search("flaky kiwi").hits
    n_chunks = (
        archive.storage.connection().execute("SELECT count(*) FROM memory_chunks").fetchone()[0]
    )
    n_vectors = (
        archive.storage.connection().execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
    )
    assert n_chunks == n_vectors == 2


def test_extra_paths_and_relative_names(home: Home, archive: Archive, tmp_path: object) -> None:
    layout = home.layout
    (layout.root / "notes").mkdir(parents=True)
    (layout.root / "notes" / "a.md").write_text("alpha notes\n")
    (layout.root / "notes" / "b.md").write_text("beta notes\n")
    found = chunks.memory_files(layout, ["notes/*.md"])
    assert sorted(found) == ["notes/a.md", "notes/b.md"]


def test_memory_files_never_decay_journal_does(home: Home, archive: Archive) -> None:
    layout = home.layout
    layout.memories_dir.mkdir(parents=True)
    layout.journal_dir.mkdir(parents=True)
    layout.memory_file.write_text("the router password rotates quarterly\n")
    (layout.journal_dir / "2020-01-01.md").write_text("the router password rotates quarterly\n")
    engine = SearchEngine(archive, FakeEmbedder(), layout=layout, params=RankParams())
    hits = engine.search("router password").hits
    assert [h.path for h in hits] == ["memories/MEMORY.md", "memory/2020-01-01.md"]
    assert hits[1].score < hits[0].score


def test_linked_memory_files_are_not_indexed(home: Home, tmp_path: os.PathLike[str]) -> None:
    outside = os.path.join(tmp_path, "secrets.txt")
    with open(outside, "w") as f:
        f.write("root:x:0:0:root:/root:/bin/bash\n")
    layout = home.layout
    layout.memories_dir.mkdir(parents=True)
    layout.memory_file.symlink_to(outside)
    layout.user_file.write_text("Prefers tea over coffee\n")
    found = chunks.memory_files(layout, ())
    assert set(found) == {"memories/USER.md"}
    # an extra path the user configured may still be a link: that is their choice
    assert outside in {str(p) for p, _ in chunks.memory_files(layout, (outside,)).values()}
