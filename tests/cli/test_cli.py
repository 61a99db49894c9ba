"""``bediscover run`` / ``report``: task resolution, arguments, and kill -9 then resume scores each sample once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bediscover_inspect.cli import TaskNotAvailable, UsageError, build_tasks, main, parse_kv, resolve_task

from .slow_runner import run_here

RUNNER = Path(__file__).with_name("slow_runner.py")
REPO = Path(__file__).resolve().parents[2]


def test_unknown_task_is_a_clear_error(capsys):
    with pytest.raises(TaskNotAvailable, match="choose from discourse_markers"):
        resolve_task("summarisation")
    assert main(["run", "--model", "mockllm/model", "--tasks", "summarisation", "--log-dir", "unused"]) == 2
    assert "unknown task 'summarisation'" in capsys.readouterr().err


def test_parse_kv_reads_json_and_booleans():
    assert parse_kv(["a=1", "b=true", "c=x,y", "d=[1, 2]", "e=nips-abs"], "-T") == {
        "a": 1,
        "b": True,
        "c": "x,y",
        "d": [1, 2],
        "e": "nips-abs",
    }
    with pytest.raises(UsageError, match="-M expects key=value"):
        parse_kv(["novalue"], "-M")


def _one_line_error(capsys, command: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"bediscover {command}: error: "), err
    return err


def test_report_missing_log_dir_is_one_line_exit_2(tmp_path, capsys):
    assert main(["report", "--log-dir", str(tmp_path / "nonexistent"), "--out", str(tmp_path / "o")]) == 2
    assert "log directory not found" in _one_line_error(capsys, "report")
    (tmp_path / "file").write_text("x")
    assert main(["report", "--log-dir", str(tmp_path / "file"), "--out", str(tmp_path / "o")]) == 2
    assert "not a directory" in _one_line_error(capsys, "report")
    (tmp_path / "logs").mkdir()
    assert main(["report", "--log-dir", str(tmp_path / "logs"), "--out", str(tmp_path / "file")]) == 2
    assert "--out is not a directory" in _one_line_error(capsys, "report")
    assert main(["report", "--log-dir", str(tmp_path / "logs"), "--tasks", "summarisation"]) == 2
    assert "unknown task(s) summarisation" in _one_line_error(capsys, "report")


@pytest.mark.slow
def test_report_missing_log_dir_console_script_has_no_traceback(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bediscover_inspect.cli",
            "report",
            "--log-dir",
            str(tmp_path / "nonexistent"),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"bediscover report: error: log directory not found: {tmp_path / 'nonexistent'}"
    ]


def test_run_user_errors_are_one_line_exit_2(tmp_path, capsys):
    base = [
        "run",
        "--model",
        "mockllm/model",
        "--tasks",
        "sentence_ordering",
        "--seeds",
        "0",
        "--reasoning",
        "off",
        "--limit",
        "1",
        "--log-dir",
        str(tmp_path / "logs"),
        "--display",
        "none",
    ]
    assert main(base + ["-M", "novalue"]) == 2
    assert "-M expects key=value" in _one_line_error(capsys, "run")
    assert main(base + ["-T", "no_such_arg=1"]) == 2
    assert "no_such_arg" in _one_line_error(capsys, "run")
    assert main(base[:2] + ["nosuchprovider/model"] + base[3:] + ["-T", "dataset=nips-abs"]) == 2
    assert "nosuchprovider" in _one_line_error(capsys, "run")


def test_a_log_dir_that_cannot_be_created_is_one_line_exit_2(tmp_path, capsys):
    (tmp_path / "file").write_text("not a directory")
    argv = ["run", "--model", "mockllm/model", "--tasks", "sentence_ordering", "--seeds", "0", "--reasoning", "off"]
    argv += ["--limit", "1", "-T", "dataset=nips-abs", "--display", "none"]
    assert main([*argv, "--log-dir", str(tmp_path / "file" / "logs")]) == 2
    message = _one_line_error(capsys, "run")
    assert f"--log-dir {tmp_path / 'file' / 'logs'} cannot be used: Not a directory" in message


def test_run_options_given_as_task_arguments_or_for_unknown_tasks_are_refused(tmp_path, capsys):
    base = [
        "run",
        "--model",
        "mockllm/model",
        "--tasks",
        "discourse_markers",
        "--seeds",
        "0",
        "--reasoning",
        "off",
        "--log-dir",
        str(tmp_path / "logs"),
        "--display",
        "none",
    ]
    assert main(base + ["-T", "reasoning=maybe"]) == 2
    assert _one_line_error(capsys, "run").endswith(
        "-T reasoning: the reasoning mode is set by --reasoning off|on|both\n"
    )
    assert main(base + ["-T", "nosuchtask.dataset=x"]) == 2
    assert "-T nosuchtask.dataset: unknown task 'nosuchtask'; the tasks are: " in _one_line_error(capsys, "run")
    for limit in ("0", "-1"):
        with pytest.raises(SystemExit) as exit_info:
            main(base + ["--limit", limit])
        assert exit_info.value.code == 2
        assert f"expected a whole number >= 1, got '{limit}'" in capsys.readouterr().err


@pytest.mark.slow
def test_second_ctrl_c_leaves_at_once(tmp_path):
    """Two SIGINTs in quick succession: the process is gone within seconds, exit 130, the resume hint said."""
    log_dir, counter = tmp_path / "logs", tmp_path / "first.txt"
    proc = _run(log_dir, counter, answered=2)
    _held(proc, counter, 2)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.05)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    output = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 130, output[-3000:]
    assert "re-run the same command to resume" in output


def test_one_task_per_seed_and_mode_seed_in_generate_config():
    tasks = build_tasks(
        ["sentence_ordering"],
        [0, 42],
        [False, True],
        "paper",
        {"sentence_ordering.dataset": "nips-abs"},
        model="vllm/Qwen/Qwen3-8B",
    )
    assert [(t.config.seed, t.config.temperature) for t in tasks] == [(0, 0.7), (42, 0.7), (0, 0.6), (42, 0.6)]


def test_build_tasks_reads_the_preset_family_from_the_model():
    # the tasks are built before the eval starts: build_tasks resolves presets=auto from --model itself
    [so, dp] = build_tasks(
        ["sentence_ordering", "dialogue_parsing"],
        [0],
        [True],
        "paper",
        {"sentence_ordering.dataset": "nips-abs", "dialogue_parsing.dataset": "stac"},
        model="openai/gpt-5-mini",
        reasoning_effort="high",
    )
    assert (so.config.max_tokens, so.config.verbosity, so.config.temperature) == (8192, "low", None)
    assert (dp.config.max_tokens, dp.config.verbosity) == (32768, "low")
    assert dp.metadata["generation"]["family"] == "gpt-5-mini-high"
    assert dp.metadata["parameters"]["presets"] == "gpt-5-mini-high"
    [r1] = build_tasks(
        ["dialogue_parsing"], [0], [True], "paper", {"dataset": "stac"}, model="together/deepseek-ai/DeepSeek-R1-0528"
    )
    assert (r1.config.max_tokens, r1.config.temperature) == (16384, None)
    # a -T presets given by the user is kept
    [none] = build_tasks(
        ["sentence_ordering"],
        [0],
        [True],
        "paper",
        {"dataset": "nips-abs", "presets": "none"},
        model="vllm/Qwen/Qwen3-8B",
    )
    assert (none.config.max_tokens, none.config.temperature, none.config.seed) == (None, None, 0)


def _argv(log_dir: Path) -> list[str]:
    """``bediscover run`` of 2 tasks x 2 seeds, 4 samples each, one eval and one sample at a time, with the offline
    ``slowmock/model``."""
    argv = ["run", "--model", "slowmock/model", "--tasks", "sentence_ordering", "discourse_markers"]
    argv += ["--seeds", "0", "1", "--reasoning", "off", "--limit", "4", "--log-dir", str(log_dir)]
    return argv + [
        "--max-tasks",
        "1",
        "--max-samples",
        "1",
        "--display",
        "none",
        "-T",
        "sentence_ordering.dataset=nips-abs",
    ]


def _run(log_dir: Path, counter: Path, answered: int) -> subprocess.Popen:
    """:func:`_argv` in a process of its own (in its own session, for the signals): the first ``answered`` model
    calls answered at once, the next ones held (``$BEDISCOVER_TEST_ANSWERED``) until the test stops the run."""
    env = os.environ | {"BEDISCOVER_TEST_COUNTER": str(counter), "BEDISCOVER_TEST_ANSWERED": str(answered)}
    return subprocess.Popen(
        [sys.executable, str(RUNNER), *_argv(log_dir)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _held(proc: subprocess.Popen, counter: Path, answered: int) -> None:
    """Wait until ``proc`` (:func:`_run`) has answered ``answered`` calls and asked one more, which it holds."""
    deadline = time.monotonic() + 240
    while _generations(counter) <= answered and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()[0].decode()[-2000:]  # still running: stop it part-way


def _rerun(log_dir: Path, counter: Path) -> tuple[int, str]:
    """:func:`_argv` again without delay, in this process (a re-run needs no process of its own)."""
    return run_here(_argv(log_dir), counter)


def _generations(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


@pytest.mark.slow
def test_sigkill_then_rerun_scores_every_sample_exactly_once(tmp_path):
    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _run(log_dir, first, answered=6)
    _held(proc, first, 6)  # the first eval finished, the second under way
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _generations(first) == 7

    code, output = _rerun(log_dir, second)
    assert code == 0, output[-3000:]
    # finished evals are skipped on resume: at most the 16 - 4 samples not in the first (finished) eval re-run
    assert _generations(second) <= 16 - 4

    scored: Counter[tuple[str, int, str]] = Counter()
    for info in list_eval_logs(str(log_dir)):
        log = read_eval_log(info)
        if log.status != "success":
            continue
        for sample in log.samples or []:
            assert sample.scores, sample.id
            scored[(log.eval.task, log.plan.config.seed, str(sample.id))] += 1
    evals = {(task, seed) for task, seed, _ in scored}
    assert {(task.rsplit("/", 1)[-1], seed) for task, seed in evals} == {
        (t, s) for t in ("sentence_ordering", "discourse_markers") for s in (0, 1)
    }
    assert len(scored) == 16 and set(scored.values()) == {1}

    # and the report reads these logs: 2 seeds per task, nothing missing
    out = tmp_path / "report"
    assert main(["report", "--log-dir", str(log_dir), "--out", str(out), "--no-plots"]) == 0
    # the killed run's log is superseded, not a warning; every task carries the BeDiscovER marker
    assert (out / "warnings.txt").read_text() == ""
    assert "| 0 1 | 4/4 |" in (out / "sentence_ordering.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_exits_130_with_the_resume_hint_and_a_rerun_finishes(tmp_path, signum):
    """SIGINT (or SIGTERM, as a scheduler sends) part-way through 2 tasks × 2 seeds: exit 130 (not 0), the resume
    hint on stderr; re-running the same command then finishes every eval with exit 0, asking again at most the one
    sample that was waiting for the model (one sample at a time)."""
    log_dir, first, second = tmp_path / "logs", tmp_path / "first.txt", tmp_path / "second.txt"
    proc = _run(log_dir, first, answered=6)
    _held(proc, first, 6)
    os.killpg(proc.pid, signum)
    output = proc.communicate(timeout=120)[0].decode()
    assert proc.returncode == 130, output[-3000:]
    assert "interrupted (re-run the same command to resume" in output
    assert "evals complete" in output and not output.rstrip().endswith("evals complete in " + str(log_dir))
    code, output = _rerun(log_dir, second)
    assert code == 0, output[-3000:]
    assert f"bediscover run: 4/4 evals complete in {log_dir}" in output
    assert 16 <= _generations(first) + _generations(second) <= 16 + 1


def test_vllm_without_server_or_package_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    import importlib.util

    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    if importlib.util.find_spec("vllm") is not None:  # pragma: no cover - CI has no vllm
        pytest.fail("this test needs a machine without the vllm package")
    code = main(
        [
            "run",
            "--model",
            "vllm/Qwen/Qwen3-8B",
            "--tasks",
            "discourse_markers",
            "--seeds",
            "0",
            "--reasoning",
            "off",
            "--log-dir",
            str(tmp_path / "logs"),
            "-T",
            "dataset=otherwise",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "VLLM_BASE_URL" in err[0] and "pip install 'bediscover-inspect[vllm]'" in err[0]
    assert "resume" not in err[0] and not (tmp_path / "logs").exists()


def test_provider_errors_lose_their_console_markup(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(
        [
            "run",
            "--model",
            "openai/gpt-5-mini",
            "--tasks",
            "discourse_markers",
            "--seeds",
            "0",
            "--reasoning",
            "on",
            "--log-dir",
            str(tmp_path / "logs"),
            "-T",
            "dataset=otherwise",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "OPENAI_API_KEY" in err and "[bold]" not in err and "[/" not in err, err
    # Inspect's "ERROR: …\n\nNo … defined" as one sentence-joined line, "error" said once
    assert "bediscover run: error: Unable to initialise OpenAI client. No OPENAI_API_KEY" in err, err
    assert "ERROR:" not in err, err


def test_a_missing_gguf_file_is_one_line_exit_2(tmp_path, capsys):
    missing = tmp_path / "missing.gguf"
    run = ["run", "--model", f"gguf/{missing}", "--tasks", "discourse_markers", "--seeds", "0", "--reasoning", "off"]
    assert main([*run, "--log-dir", str(tmp_path / "logs"), "-T", "dataset=otherwise"]) == 2
    message = _one_line_error(capsys, "run")
    assert f"GGUF model file not found: '{missing}'" in message and "smollm2-135m" in message, message
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_inspect_eval_with_a_missing_gguf_file_prints_the_message_without_a_traceback(tmp_path):
    missing = tmp_path / "missing.gguf"
    proc = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "evals/discourse_markers.py", "--model", f"gguf/{missing}"]
        + ["-T", "dataset=otherwise", "--limit", "1", "--display", "plain", "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in output, output[-3000:]
    # Inspect's display wraps the message at the terminal's width, inside the path too
    assert "".join(output.split()).startswith("".join(f"GGUF model file not found: '{missing}'".split())), output


def test_generate_flags_override_table_7_presets(tmp_path):
    log_dir = tmp_path / "logs"
    code = main(
        [
            "run",
            "--model",
            "mockllm/Qwen3-8B",
            "--tasks",
            "sentence_ordering",
            "--seeds",
            "1",
            "--reasoning",
            "on",
            "--limit",
            "1",
            "--max-tokens",
            "77",
            "--top-p",
            "0.5",
            "-T",
            "dataset=nips-abs",
            "--log-dir",
            str(log_dir),
            "--display",
            "none",
        ]
    )
    assert code == 0
    [info] = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    config = log.plan.config
    # Qwen3 reasoning=on preset is max_tokens 4096, temperature 0.6, top_p 0.95 (Table 7): the flags win, the rest
    # stays
    assert (config.max_tokens, config.top_p, config.temperature, config.seed) == (77, 0.5, 0.6, 1)
    assert log.eval.metadata["generation"]["sent"] == {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95}


@pytest.mark.parametrize(("flags", "expected"), [([], False), (["--score-display"], True)])
def test_live_scores_are_off_unless_asked_for(tmp_path, flags, expected):
    """bediscover run leaves Inspect's live scores off by default (the eval's config says so); --score-display
    turns them on; the final scores are computed either way."""
    log_dir = tmp_path / "logs"
    args = ["run", "--model", "mockllm/model", "--tasks", "sentence_ordering", "--seeds", "0", "--reasoning", "off"]
    args += ["--limit", "1", "-T", "dataset=nips-abs", "--log-dir", str(log_dir), "--display", "none", *flags]
    assert main(args) == 0
    [info] = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    assert log.eval.config.score_display is expected
    assert log.results is not None and log.results.scores[0].metrics["pmr"].value in (0.0, 1.0)


def test_run_takes_a_tasks_eval_file_for_its_name():
    """``--tasks`` also takes the eval file ``inspect eval`` takes (relative, absolute, with ``@task``)."""
    from bediscover_inspect.cli import build_parser
    from bediscover_inspect.tasks import task_name_of
    from tests.conftest import REPO_ROOT

    absolute = str(REPO_ROOT / "evals" / "sentence_ordering.py")
    args = build_parser().parse_args(
        ["run", "--model", "mockllm/model", "--tasks", absolute, "evals/dialogue_parsing.py"]
    )
    assert args.tasks == ["sentence_ordering", "dialogue_parsing"]
    assert task_name_of("evals/temporal_reasoning.py@temporal_reasoning") == "temporal_reasoning"
    # not a task's file: kept as given, so the run names it as unknown
    assert task_name_of("evals/sentence_ordering.py@other") == "evals/sentence_ordering.py@other"
    assert task_name_of("my_eval.py") == "my_eval.py"
