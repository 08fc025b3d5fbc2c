"""The errors the Python API adds to Kenning's own.

Everything else the API raises is the error the CLI reports for the same
mistake (``MemoryWriteError``, ``JournalError``, ``SkillError``,
``ModelNotConfigured`` …); see the README section "Use Kenning from Python".
"""

from __future__ import annotations


class HomeClosedError(RuntimeError):
    """A ``Home`` (or an ``Agent`` on it) was used after ``close()``."""

    def __init__(self, root: object) -> None:
        super().__init__(
            f"the Kenning home at {root} was closed; open it again with "
            "Home.open(...) (or keep using it inside its `with` block)"
        )


class SessionNotFoundError(LookupError):
    """No archived session has the id that was asked for."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(
            f"no session {session_id!r} in the archive; home.sessions.list() shows the ids "
            "(the CLI: `kenning sessions list`)"
        )

    def __str__(self) -> str:  # LookupError would quote the whole message
        return str(self.args[0])
