"""Choosing the memory provider, and calling it so it can never break a turn.

Built-in memory (hot memory in the prompt, the journal, the archive and its
tools) is always there and always first; at most one external provider is
added, named by ``[memory] provider``: a built-in one (``BUILTIN``) or one a
plugin registers through ``register_memory_providers``.

The provider runs on a thread of its own with its own event loop
(``_Runner``): async methods run there, plain ones in a daemon thread each.
So a provider may hold a connection across turns (the agent's loop may be a
new one per ``asyncio.run``), and a provider that hangs costs a thread, not
the agent. Every call is time-boxed with ``time.monotonic`` deadlines (the
event loops' clock):

- ``recall`` (prefetch) waits at most ``provider_timeout_s``; a timeout, an
  exception or a wrong return type becomes a notice and the turn goes on
  without the block. While an abandoned prefetch is still running, the next
  one is skipped at once rather than queued behind it.
- every other hook is queued and runs in the background, one at a time in
  the order called, each within ``provider_sync_timeout_s``; failures are
  logged and handed to the next turn as notices (``take_notices``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kenning.providers.base import (
    DEFAULT_MAX_CHARS,
    MemoryProvider,
    MemoryWrite,
    ProviderError,
    ProviderFactory,
    ProviderSetup,
    Recall,
    fence,
)

if TYPE_CHECKING:
    from kenning.config import MemoryConfig
    from kenning.models.types import ChatMessage

log = logging.getLogger(__name__)

BUILTIN_NAME = "builtin"  # Kenning's own memory: always active, named for listings


def _team(setup: ProviderSetup) -> MemoryProvider:
    from kenning.providers.team import TeamMemory  # the MCP client loads only when chosen

    return TeamMemory(setup)


# External providers that ship with Kenning, by the name ``[memory] provider`` uses.
BUILTIN: dict[str, ProviderFactory] = {"team": _team}


def available(plugin_factories: Mapping[str, ProviderFactory] | None = None) -> list[str]:
    """Every name ``[memory] provider`` accepts: the built-ins, then the plugins'."""
    extra = _plugin_factories() if plugin_factories is None else plugin_factories
    return [*BUILTIN, *sorted(extra)]


def _plugin_factories() -> dict[str, ProviderFactory]:
    from kenning import plugins

    return plugins.registry().accepted("memory_providers", [BUILTIN_NAME, *BUILTIN])


def from_config(
    cfg: MemoryConfig,
    *,
    home_root: Path | None = None,
    plugin_factories: Mapping[str, ProviderFactory] | None = None,
) -> ProviderManager | None:
    """The manager for the configured provider; None when only built-in memory is used.

    Raises ProviderError for an unknown name (listing the valid ones) or a
    provider that refuses its options; a plugin's crash says whose it was.
    """
    name = cfg.provider.strip()
    if not name or name == BUILTIN_NAME:
        return None
    factories = {
        **BUILTIN,
        **(_plugin_factories() if plugin_factories is None else plugin_factories),
    }
    factory = factories.get(name)
    if factory is None:
        known = ", ".join(available(plugin_factories)) or "none"
        raise ProviderError(
            f"unknown [memory] provider {name!r}; use one of: {known} (more come from "
            "installed plugins: see `kenning plugins`), or leave provider empty for "
            "Kenning's built-in memory only."
        )
    setup = ProviderSetup(name, dict(cfg.provider_options), home_root)
    try:
        provider = factory(setup)
    except ProviderError:
        raise
    except Exception as exc:  # a plugin's bug: say whose, and how to get going again
        raise ProviderError(
            f"the memory provider {name!r} failed to start ({type(exc).__name__}: {exc}). "
            'Fix its [memory.provider_options] or set [memory] provider = "".'
        ) from exc
    if not isinstance(provider, MemoryProvider):
        raise ProviderError(
            f"the memory provider {name!r} made a {type(provider).__name__}, not a "
            "kenning.providers.MemoryProvider; its plugin needs fixing."
        )
    return ProviderManager(
        provider,
        label=name,
        prefetch_timeout_s=cfg.provider_timeout_s,
        sync_timeout_s=cfg.provider_sync_timeout_s,
        max_chars=cfg.provider_max_chars,
    )


class _Runner:
    """A daemon thread running an event loop for one provider."""

    def __init__(self, label: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._run, name=f"kenning-memory-provider-{label}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, job: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(job, self.loop)

    def stop(self, timeout: float) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()


async def _invoke(
    fn: Callable[..., Any], *args: Any, ended: threading.Event | None = None, **kwargs: Any
) -> Any:
    """Run a provider method on the provider loop: async directly, plain in a daemon thread.

    Not ``asyncio.to_thread``: its pool's threads are joined at exit, so one
    hung provider call would hold up the process's exit forever. ``ended`` is
    set when the work no longer holds the provider: for a plain method when
    its thread returns (which may be long after the caller stopped waiting),
    for an async one at once, since a deadline cancels it and async calls
    can run side by side.
    """
    if inspect.iscoroutinefunction(fn):
        if ended is not None:
            ended.set()
        return await fn(*args, **kwargs)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def work() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the caller, who reports it
            error = exc
        finally:
            if ended is not None:
                ended.set()
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=work, name="kenning-memory-provider-call", daemon=True).start()
    result = await done
    if inspect.isawaitable(result):
        return await result
    return result


class ProviderManager:
    """The one external provider of a session, time-boxed; see the module docstring."""

    def __init__(
        self,
        provider: MemoryProvider,
        *,
        label: str | None = None,
        prefetch_timeout_s: float = 2.0,
        sync_timeout_s: float = 10.0,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        self.provider = provider
        self.label = label or provider.name
        self.prefetch_timeout_s = prefetch_timeout_s
        self.sync_timeout_s = sync_timeout_s
        self.max_chars = max_chars
        self._runner: _Runner | None = None
        self._order: asyncio.Lock | None = None  # made on the provider loop
        self._pending: set[concurrent.futures.Future[Any]] = set()
        self._prefetch_ended: threading.Event | None = None  # unset while one runs
        self._notices: list[str] = []
        self._lock = threading.Lock()
        self._closed = False

    @property
    def names(self) -> tuple[str, ...]:
        """The memories in use, in order: the built-in first, always."""
        return (BUILTIN_NAME, self.label)

    def _loop(self) -> _Runner:
        with self._lock:  # the memory tool reaches here from a worker thread
            if self._runner is None:
                self._runner = _Runner(self.label)
            return self._runner

    # -- prefetch ---------------------------------------------------------------------------

    async def recall(self, query: str) -> Recall:
        """The fenced block for ``query`` within the deadline, or a notice saying why not."""
        if self._closed:
            return Recall()
        started = time.monotonic()
        busy = self._prefetch_ended
        if busy is not None and not busy.is_set():
            return Recall(
                notice=f"memory provider {self.label!r} is still busy with an earlier request; "
                "this turn goes on without its recalled context."
            )
        ended = self._prefetch_ended = threading.Event()
        future = self._loop().submit(_invoke(self.provider.prefetch, query, ended=ended))
        limit = self.prefetch_timeout_s
        try:
            found = await asyncio.wait_for(asyncio.wrap_future(future), limit)
        except TimeoutError:
            log.warning("memory provider %s: prefetch took over %.3g s", self.label, limit)
            return Recall(
                notice=f"memory provider {self.label!r} did not answer within {limit:g} s "
                "([memory] provider_timeout_s); this turn goes on without its recalled "
                "context.",
                seconds=time.monotonic() - started,
            )
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            log.warning("memory provider %s: prefetch failed: %s", self.label, exc)
            log.debug("memory provider %s: prefetch failed", self.label, exc_info=True)
            why = str(exc) if isinstance(exc, ProviderError) else f"{type(exc).__name__}: {exc}"
            return Recall(
                notice=f"memory provider {self.label!r} failed ({why}); "
                "this turn goes on without its recalled context.",
                seconds=time.monotonic() - started,
            )
        seconds = time.monotonic() - started
        if found is not None and not isinstance(found, str):
            return Recall(
                notice=f"memory provider {self.label!r} returned a {type(found).__name__} "
                "instead of text; it was ignored.",
                seconds=seconds,
            )
        block = fence(found, source=self.provider.name, max_chars=self.max_chars) if found else None
        return Recall(block, seconds=seconds)

    # -- background hooks -------------------------------------------------------------------

    def turn_started(self, turn: int, message: str) -> None:
        self._background("on_turn_start", self.provider.on_turn_start, turn, message)

    def turn_synced(self, user: str, assistant: str) -> None:
        self._background("sync_turn", self.provider.sync_turn, user, assistant)

    def pre_compress(self, messages: Sequence[ChatMessage]) -> None:
        self._background("on_pre_compress", self.provider.on_pre_compress, list(messages))

    def memory_written(self, write: MemoryWrite) -> None:
        """Safe from any thread: the memory tool runs in a worker thread."""
        self._background("on_memory_write", self.provider.on_memory_write, write)

    def delegated(self, task: str, result: str, *, child_session_id: str) -> None:
        self._background(
            "on_delegation",
            self.provider.on_delegation,
            task,
            result,
            child_session_id=child_session_id,
        )

    def _background(self, hook: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        if self._closed:
            return
        future = self._loop().submit(self._in_order(hook, fn, *args, **kwargs))
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._finished)

    def _finished(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)

    async def _in_order(self, hook: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        if self._order is None:
            self._order = asyncio.Lock()  # FIFO: hooks run in the order they were called
        async with self._order:
            limit = self.sync_timeout_s
            try:
                await asyncio.wait_for(_invoke(fn, *args, **kwargs), limit)
            except TimeoutError:
                self._note(
                    f"memory provider {self.label!r}: {hook} did not finish within {limit:g} s "
                    "([memory] provider_sync_timeout_s) and was abandoned."
                )
            except Exception as exc:
                log.debug("memory provider %s: %s failed", self.label, hook, exc_info=True)
                self._note(
                    f"memory provider {self.label!r}: {hook} failed ({type(exc).__name__}: {exc})."
                )

    def _note(self, text: str) -> None:
        log.warning("%s", text)
        with self._lock:
            self._notices.append(text)

    def take_notices(self) -> list[str]:
        """Background failures since the last call, for the user to see."""
        with self._lock:
            taken, self._notices = self._notices, []
        return taken

    def drain(self, timeout: float | None = None) -> bool:
        """Wait (blocking) until the queued hooks ran; False if some were still running."""
        with self._lock:
            pending = list(self._pending)
        if not pending:
            return True
        _, running = concurrent.futures.wait(pending, timeout=timeout)
        return not running

    # -- the end ----------------------------------------------------------------------------

    async def end_session(self, reason: str) -> None:
        """``on_session_end``, then ``close``, then the provider's thread stops.

        Each queued hook is bounded by its deadline, so waiting one deadline
        per queued hook (and one more) lets all of them finish or be
        abandoned; whatever still runs then is left behind (daemon threads).
        """
        if self._closed:
            return
        self._background("on_session_end", self.provider.on_session_end, reason)
        self._background("close", self.provider.close)
        self._closed = True
        with self._lock:
            queued = len(self._pending)
        limit = self.sync_timeout_s * (queued + 1)
        await asyncio.to_thread(self.drain, limit)
        runner, self._runner = self._runner, None
        if runner is not None:
            await asyncio.to_thread(runner.stop, limit)
