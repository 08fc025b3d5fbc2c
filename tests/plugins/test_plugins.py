"""Plugins through entry points, with real packages built and installed for the session.

``example_plugin`` registers one of everything; ``broken_plugin`` carries an
entry point whose module does not exist, a hook that raises, a misspelt hook
and a model prefix that clashes with a built-in. Each is built by pip with the
environment's setuptools (no build isolation, no index: no network) into a
folder of its own that the tests put on the path, so ``importlib.metadata``
finds their dist-info and entry points exactly as for an installed package;
pytest removes the folders with its temporary directories.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import kenning
from kenning import Agent, Home, plugins
from kenning.archive.importers import ImportFormatError, read_source
from kenning.config import EmbeddingConfig
from kenning.embed import EmbedderError, from_config
from kenning.home import Home as RuntimeHome
from kenning.runtime.factory import build_tools, plugin_tool

HERE = Path(__file__).resolve().parent
SRC = Path(kenning.__file__).resolve().parents[1]


def _install(package: str, tmp: pytest.TempPathFactory) -> Path:
    source = tmp.mktemp("src") / package
    shutil.copytree(HERE / package, source)  # the build writes build/ and egg-info beside it
    site = tmp.mktemp(f"site-{package}")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return site


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _install("example_plugin", tmp_path_factory)


@pytest.fixture(scope="session")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _install("broken_plugin", tmp_path_factory)


def kenning_cli(
    *args: str, sites: list[Path], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(str(p) for p in [SRC, *sites])
    return subprocess.run(
        [sys.executable, "-m", "kenning", *args],
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Sites put on this process's path; the registry and plugin modules are forgotten after."""
    sites: list[Path] = []
    plugins.reset()
    yield sites
    plugins.reset()
    for name in [m for m in sys.modules if m.startswith(("kenning_example", "kenning_broken"))]:
        monkeypatch.delitem(sys.modules, name)


def use_sites(monkeypatch: pytest.MonkeyPatch, *sites: Path) -> None:
    for site in sites:
        monkeypatch.syspath_prepend(str(site))  # also invalidates importlib's caches
    plugins.reset()


def test_kenning_plugins_lists_the_plugin_and_what_it_registered(example_site: Path) -> None:
    done = kenning_cli("plugins", "--json", sites=[example_site])
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["failures"] == []
    [example] = listed["plugins"]
    assert example["name"] == "example" and example["ok"] is True
    assert example["distribution"] == "kenning-example-plugin"
    assert example["version"] == "0.1.0"
    assert example["entry_point"] == "kenning_example_plugin"
    assert example["registered"] == {
        "models": ["example"],
        "tools": ["shout"],
        "embedders": ["example-embedder"],
        "importers": ["example"],
        "memory_providers": ["example-memory"],
        "commands": ["example-hello"],
    }
    text = kenning_cli("plugins", sites=[example_site])
    assert "kenning-example-plugin 0.1.0" in text.stdout and "tools: shout" in text.stdout


def test_no_plugins_is_said_plainly() -> None:
    done = kenning_cli("plugins", sites=[])
    assert done.returncode == 0 and "No plugins installed" in done.stdout


def test_run_with_the_plugin_model_calls_the_plugin_tool(
    example_site: Path, tmp_path: Path
) -> None:
    done = kenning_cli(
        "run", "--model", "example:echo", "--cwd", str(tmp_path), "hello there",
        sites=[example_site],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the tool said: HELLO THERE" in done.stdout


def test_public_agent_takes_a_plugin_model_and_validates_the_tool_arguments(
    example_site: Path, in_process: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_sites(monkeypatch, example_site)
    with Home.open() as home:
        ran = Agent(model="example:echo", home=home, cwd=tmp_path).run("quiet words")
        assert ran.output == "the tool said: QUIET WORDS"
        bad = Agent(model="example:bad-args", home=home, cwd=tmp_path).run("x").output
        assert "invalid arguments for shout: times must be an integer, got 'lots'" in bad
        assert "times: integer (optional, default 1)" in bad  # what the tool expects
        boom = Agent(model="example:boom", home=home, cwd=tmp_path).run("x").output
        assert "shout failed with ValueError: 99 times is too loud" in boom
        talk = tmp_path / "talk.txt"
        talk.write_text("user: hi\nassistant: hello\n", encoding="utf-8")
        assert home.sessions.import_file("example", talk).sessions_imported == 1
    spec = next(s for s in build_tools(Home.open().runtime).specs() if s.name == "shout")
    assert spec.description == "Say the text in capitals."
    assert spec.parameters["properties"]["times"] == {
        "type": "integer", "description": "How many times to say it (at most 5).", "default": 1,
    }  # fmt: skip
    assert spec.parameters["required"] == ["text"]


def test_plugin_embedder_and_importer_index_and_search(example_site: Path, tmp_path: Path) -> None:
    talk = tmp_path / "talk.txt"
    talk.write_text("user: the deploy key lives in vault\nassistant: noted\n", encoding="utf-8")
    env = {"KENNING_EMBEDDING__PROVIDER": "example-embedder"}
    imported = kenning_cli(
        "sessions", "import", "example", str(talk), "--json", sites=[example_site], env=env
    )
    assert imported.returncode == 0, imported.stderr
    report = json.loads(imported.stdout)
    assert report["format"] == "example"
    assert report["sessions_imported"] == 1 and report["messages_imported"] == 2
    again = kenning_cli(
        "sessions", "import", "example", str(talk), "--json", sites=[example_site], env=env
    )
    assert json.loads(again.stdout)["sessions_skipped"] == 1  # keyed like every importer
    found = kenning_cli("search", "--json", "deploy key", sites=[example_site], env=env)
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    assert result["mode"] == "hybrid"
    assert result["hits"][0]["content"] == "the deploy key lives in vault"
    status = kenning_cli("index", "status", sites=[example_site], env=env)
    assert "example/bag-of-words" in status.stdout


def test_unknown_import_format_lists_the_plugin_formats(example_site: Path, tmp_path: Path) -> None:
    talk = tmp_path / "talk.txt"
    talk.write_text("user: hi\n", encoding="utf-8")
    done = kenning_cli("sessions", "import", "exampel", str(talk), sites=[example_site])
    assert done.returncode == 2
    assert "'exampel' is not one of" in done.stderr and "'example'" in done.stderr


def test_plugin_command_runs_and_is_in_the_help(example_site: Path) -> None:
    done = kenning_cli("example-hello", "bob", sites=[example_site])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello bob, from the example plugin\n"
    assert "example-hello" in kenning_cli("--help", sites=[example_site]).stdout


def test_a_broken_plugin_is_reported_and_skipped_while_the_rest_works(
    example_site: Path, broken_site: Path, tmp_path: Path
) -> None:
    both = [example_site, broken_site]
    done = kenning_cli("plugins", "--json", sites=both)
    assert done.returncode == 0, done.stderr
    listed = {p["name"]: p for p in json.loads(done.stdout)["plugins"]}
    assert sorted(json.loads(done.stdout)["failures"]) == ["broken", "missing"]
    assert listed["example"]["ok"] is True
    missing = listed["missing"]
    assert missing["distribution"] == "kenning-broken-plugin"
    assert "cannot import kenning_no_such_module (ModuleNotFoundError" in missing["errors"][0]
    broken = listed["broken"]
    assert broken["registered"]["tools"] == []  # the hook raised: nothing of it is kept
    assert any(
        "register_tools raised RuntimeError: broken on purpose" in e for e in broken["errors"]
    )
    assert any("register_modles is not a Kenning hook" in e for e in broken["errors"])
    assert broken["clashes"] == [
        "model 'openai' is already a built-in, which is kept; the plugin's is not used"
    ]
    assert "kenning: warning: plugin broken: register_tools raised" in done.stderr
    ran = kenning_cli("run", "--model", "example:echo", "--cwd", str(tmp_path), "hi", sites=both)
    assert ran.returncode == 0, ran.stderr
    assert "the tool said: HI" in ran.stdout
    assert "plugin missing: cannot import kenning_no_such_module" in ran.stderr


def test_plugins_load_only_when_something_needs_them(broken_site: Path) -> None:
    probe = "import sys, kenning; print('kenning.plugins' in sys.modules)"
    path = os.pathsep.join([str(SRC), str(broken_site)])
    imported = subprocess.run(
        [sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": path},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert imported.stdout.strip() == "False"
    shown = kenning_cli("memory", "show", sites=[broken_site])  # built-in command and model
    assert shown.returncode == 0 and "plugin" not in shown.stderr


def _plugin_module(tmp_path: Path, name: str, code: str) -> importlib.metadata.EntryPoint:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return importlib.metadata.EntryPoint(name, name, plugins.GROUP)


def test_a_built_in_tool_name_is_kept_and_the_clash_recorded(
    tmp_path: Path, in_process: list[Path], monkeypatch: pytest.MonkeyPatch, home: RuntimeHome
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = _plugin_module(
        tmp_path,
        "kenning_example_clash",
        '''
        def read_file(path: str) -> str:
            """Not the real read_file."""
            return "fake"

        def register_tools(register):
            register(read_file)
        ''',
    )
    found = plugins.load([ep])
    monkeypatch.setattr(plugins, "_loaded", found)
    tools = build_tools(home)
    kept = tools.get("read_file")
    assert kept is not None and "Not the real" not in kept.description
    assert found.plugins[0].clashes == [
        "tool 'read_file' is already a built-in, which is kept; the plugin's is not used"
    ]
    build_tools(home)  # asked again: said once
    assert len(found.plugins[0].clashes) == 1


def test_between_plugins_the_first_keeps_a_name_and_bad_registrations_are_errors(
    tmp_path: Path, in_process: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    first = _plugin_module(
        tmp_path, "kenning_example_a", "def register_models(register):\n    register('dup', len)\n"
    )
    second = _plugin_module(
        tmp_path,
        "kenning_example_b",
        """
        def untyped(x):
            "No annotation."

        def register_models(register):
            register('dup', len)

        def register_tools(register):
            register(untyped)

        def register_embedders(register):
            register('has space', len)
        """,
    )
    found = plugins.load([first, second])
    assert found.plugins[1].registered["tools"] == ["untyped"]  # a tool is built by its user
    assert found.built("tools", (), plugin_tool) == {}
    assert found.built("tools", (), plugin_tool) == {}  # refused once, said once
    a, b = found.plugins
    assert a.registered["models"] == ["dup"] and a.ok
    assert b.clashes == [
        "model 'dup' is already registered by the plugin 'kenning_example_a'; "
        "the plugin's is not used"
    ]
    assert b.registered["tools"] == [] and b.registered["embedders"] == []
    assert any("parameter 'x' needs a type annotation" in e for e in b.errors)
    assert any("embedder 'has space' is not a usable name" in e for e in b.errors)


def test_a_failing_plugin_importer_or_embedder_is_an_error_naming_it(
    tmp_path: Path, in_process: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = _plugin_module(
        tmp_path,
        "kenning_example_faulty",
        """
        def register_importers(register):
            def parse(path):
                raise KeyError("role")
            register("faulty", parse)
            register("wrong", lambda path: {"not": "a ParsedImport"})

        def register_embedders(register):
            def factory(config):
                raise OSError("no model file")
            register("faulty", factory)
        """,
    )
    monkeypatch.setattr(plugins, "_loaded", plugins.load([ep]))
    source = tmp_path / "talk.txt"
    source.write_text("user: hi\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="the plugin importer 'faulty' failed: KeyError"):
        read_source("faulty", source)
    with pytest.raises(ImportFormatError, match="'wrong' returned dict, not a ParsedImport"):
        read_source("wrong", source)
    with pytest.raises(EmbedderError, match="'faulty' failed to start: OSError: no model file"):
        from_config(EmbeddingConfig(provider="faulty"))


def test_a_plugin_memory_provider_is_chosen_by_config_and_hears_the_turn(
    example_site: Path, tmp_path: Path
) -> None:
    log = tmp_path / "provider.jsonl"
    options = f'{{facts = ["The deploy runs on bastion-7", "Lunch is at noon"], log = "{log}"}}'
    env = {
        "KENNING_MEMORY__PROVIDER": "example-memory",
        "KENNING_MEMORY__PROVIDER_OPTIONS": options,
    }
    done = kenning_cli(
        "run", "--model", "example:echo", "--cwd", str(tmp_path), "how does the deploy run",
        sites=[example_site], env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the echo model shouts its user message back: the recalled block rode on it
    shouted = done.stdout
    assert "<MEMORY-CONTEXT>" in shouted and "THE DEPLOY RUNS ON BASTION-7" in shouted
    assert "LUNCH" not in shouted and shouted.rstrip().endswith("HOW DOES THE DEPLOY RUN")
    heard = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [entry[0] for entry in heard] == ["sync_turn", "on_session_end"]
    assert heard[0][1] == "how does the deploy run" and heard[1] == ["on_session_end", "final"]


def test_an_unknown_memory_provider_is_a_clear_error_listing_the_plugin_ones(
    example_site: Path, tmp_path: Path
) -> None:
    env = {"KENNING_MEMORY__PROVIDER": "example-memroy"}
    done = kenning_cli(
        "run", "--model", "example:echo", "--cwd", str(tmp_path), "hi",
        sites=[example_site], env=env,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "unknown [memory] provider 'example-memroy'; use one of: team, example-memory" in (
        done.stderr
    )


def test_a_plugin_memory_provider_cannot_take_a_built_in_name_and_must_be_callable(
    tmp_path: Path, in_process: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kenning.providers import available

    monkeypatch.syspath_prepend(str(tmp_path))
    ep = _plugin_module(
        tmp_path,
        "kenning_example_memories",
        """
        def register_memory_providers(register):
            register("team", lambda setup: None)
            register("notes", lambda setup: None)
        """,
    )
    odd = _plugin_module(
        tmp_path,
        "kenning_example_odd_memory",
        "def register_memory_providers(register):\n    register('odd', object())\n",
    )
    found = plugins.load([ep, odd])
    monkeypatch.setattr(plugins, "_loaded", found)
    assert available() == ["team", "notes"]
    first, second = found.plugins
    assert first.clashes == [
        "memory provider 'team' is already a built-in, which is kept; the plugin's is not used"
    ]
    assert second.registered["memory_providers"] == []
    assert any(
        "the memory provider factory must be callable, not object" in e for e in second.errors
    )
