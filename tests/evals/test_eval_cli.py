"""`kenning eval`: the report, --json, --compare and clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kenning.cli import cli
from kenning.cli.eval_cmd import EXIT_CHECKS_FAILED
from kenning.evals import report


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["eval", *args])
    return result.exit_code, result.output


def test_json_report_names_model_version_and_seeds(_hermetic_home: Path) -> None:
    code, out = invoke("fact-update", "--model", "reference", "--seed", "4", "--json")
    assert code == 0, out
    report = json.loads(out[out.index("{") :])
    assert report["model"] == "reference" and report["scripted_agent"] is True
    assert report["seeds"] == [4] and report["kenning_version"]
    (row,) = report["scenarios"]
    assert row["measures"] == "kenning+model" and row["passed"] == 1
    assert not _hermetic_home.exists()


def test_text_report_and_compare_show_a_difference(tmp_path: Path) -> None:
    code, text = invoke("1", "--model", "reference")
    assert code == 0, text
    assert "measures the model too" in text and "tokens in/out" in text
    paths = []
    for name, spec in (("good", "reference"), ("bad", "reference[ignores_memory]")):
        code, out = invoke("1", "--model", spec, "--json")
        assert code == 0, out
        path = tmp_path / f"{name}.json"
        path.write_text(out[out.index("{") :], encoding="utf-8")
        paths.append(str(path))
    code, out = invoke("--compare", *paths)
    assert code == 0, out
    line = next(line for line in out.splitlines() if "new_fact_adopted" in line)
    assert line.startswith(" *") and "yes" in line and "no" in line
    assert "reference[ignores_memory]" in out


def test_mistakes_are_one_clear_line(tmp_path: Path) -> None:
    code, out = invoke("nine", "--model", "reference")
    assert code == 2 and "no scenario 'nine'" in out
    code, out = invoke("1")
    assert code == 2 and "--model reference" in out
    code, out = invoke("1", "--model", "reference[sloppy]")
    assert code == 1 and "unknown flaw" in out
    code, out = invoke("1", "--model", "openai:gpt-4.1-mini")
    assert code == 1 and "OPENAI_API_KEY" in out
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    code, out = invoke("--compare", str(bad), str(bad))
    assert code == 2 and "not a `kenning eval --json` report" in out
    assert "Traceback" not in out


def test_any_other_model_string_goes_through_the_registry(reference: Any) -> None:
    """A user's own server: here the reference policy behind an OpenAI-compatible socket,
    reached as a bare model name at [model] base_url, as `kenning --set` would set it."""
    server = reference().server
    result = CliRunner().invoke(
        cli,
        ["--set", f"model.base_url={server.base_url}", "eval", "1", "-m", "my-model", "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert report["model"] == "my-model" and report["scripted_agent"] is False
    (row,) = report["scenarios"]
    assert row["passed"] == 1, row["runs"][0]["failed"]
    assert row["runs"][0]["requests"] == len(server.requests) > 0
    assert all(r.body["model"] == "my-model" for r in server.requests)


def test_strict_exits_3_when_a_check_fails_and_0_when_all_pass() -> None:
    code, out = invoke("1", "--model", "reference[ignores_memory]")
    assert code == 0 and "FAILED d_adopts_new" in out  # a report, like `kenning bench`
    result = CliRunner().invoke(
        cli, ["eval", "1", "--model", "reference[ignores_memory]", "--strict", "--json"]
    )
    assert result.exit_code == EXIT_CHECKS_FAILED == 3
    assert "check(s) failed: fact-update/b_uses_fact, fact-update/d_adopts_new" in result.stderr
    assert json.loads(result.stdout)["scenarios"][0]["passed"] == 0  # stdout stays the report
    code, out = invoke("1", "--model", "reference", "--strict")
    assert code == 0, out
    code, out = invoke("--compare", "a.json", "b.json", "--strict")
    assert code == 2


def test_failures_name_the_seed_when_there_are_repeats() -> None:
    runs = [{"seed": 0, "failed": ["a"]}, {"seed": 1, "failed": []}]
    assert report.failures({"scenarios": [{"scenario": "x", "runs": runs}]}) == ["x/a@0"]
    assert report.failures({"scenarios": [{"scenario": "x", "runs": runs[:1]}]}) == ["x/a"]
