"""Dreaming's dry run for the candidates page, computed off the request path.

A dry run weighs every recent statement against the others: seconds on a big
archive, far past what a page may take. So one background thread per server
runs it, and the page shows what is there: the result for what memory, the
journal, the archive and the recall log hold now; or, while that is being
computed, how long it has been at it and the last result from before the
change. One thread means one run at a time, so the same fingerprint is never
weighed twice at once; a change during a run is picked up when it ends.

The thread opens its own ``Home`` on the same root and configuration for each
run: its own SQLite connections, so it neither shares the pages' connection
across threads nor holds the pages' one-at-a-time lock for seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kenning.home import Home

Key = tuple[object, ...]


@dataclass(frozen=True)
class Outcome:
    """One finished run: what it found (or why it failed) for the inputs it read."""

    key: Key
    found: object | None
    error: str | None
    took_s: float


@dataclass(frozen=True)
class State:
    """What the page can show now."""

    fresh: Outcome | None  # finished for the current inputs
    stale: Outcome | None  # the last one finished, for inputs that have changed since
    running_s: float | None  # how long ago the current inputs were first asked for


class DreamWorker:
    """One background thread running ``compute(home)`` for the newest wanted inputs."""

    def __init__(self, home: Home, compute: Callable[[Home], object]) -> None:
        self._root = home.root
        self._config = home.config
        self._compute = compute
        self._cond = threading.Condition()
        self._wanted: Key | None = None
        self._wanted_at = 0.0  # monotonic: when these inputs were first asked for
        self._last: Outcome | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False

    def want(self, key: Key) -> State:
        """Ask for a result for ``key`` (at once if there is none) and say what is there now."""
        with self._cond:
            last = self._last
            if last is not None and last.key == key:
                return State(last, None, None)
            if self._wanted != key:
                self._wanted, self._wanted_at = key, time.monotonic()
                self._cond.notify_all()
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(
                    target=self._loop, name="kenning-ui-dreams", daemon=True
                )
                self._thread.start()
            # Counted from the ask: a run for older inputs may still be finishing first.
            return State(None, last, time.monotonic() - self._wanted_at)

    def stop(self, timeout: float = 30.0) -> None:
        """End the thread after the run under way, if any."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or self._due() is not None)
                key = self._due()
                if self._stopping or key is None:
                    return
            began = time.monotonic()
            found, error = self._run()
            with self._cond:
                self._last = Outcome(key, found, error, time.monotonic() - began)
                self._cond.notify_all()

    def _due(self) -> Key | None:
        wanted = self._wanted
        if wanted is None or (self._last is not None and self._last.key == wanted):
            return None
        return wanted

    def _run(self) -> tuple[object | None, str | None]:
        home = Home(self._root, self._config)
        try:
            return self._compute(home), None
        except Exception as exc:  # shown on the page, as the page would have said it
            return None, f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
        finally:
            home.close()
