"""``bediscover run`` against a server that misbehaves: every run ends, prints no traceback, counts its failures,
and keeps each sample once in its logs."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bediscover_inspect.cli import main
from bediscover_inspect.evallogs.results import measures_by_group

from .conftest import MODEL, SMALL_RUN, RunResult, bediscover_run, finish, free_port, read_results, run_against


def assert_each_sample_once(result, n: int = 4) -> None:
    assert len(result.samples) == n, result.samples
    assert set(result.samples.values()) == {1}, result.samples


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "error_type"),
    [("malformed", "JSONDecodeError"), ("empty_choices", "IndexError"), ("non_utf8", "UnicodeDecodeError")],
)
def test_a_bad_reply_is_that_samples_counted_error(fault_server, tmp_path, kind, error_type):
    # requests 1-4 ask the four samples, 2 and 4 are bad; the two re-asks are requests 5 and 6, 6 is bad again:
    # one sample ends in error, three are scored, six requests in all
    server = fault_server("--bad", kind, "--every", "2")
    result = run_against(server, tmp_path / "logs", "--fail-on-error", "3", "--retry-on-error", "1")
    assert result.code == 0, result.text
    assert "Traceback" not in result.text
    assert_each_sample_once(result)
    assert len(result.errors) == 1 and all(m.startswith(error_type) for m in result.errors.values())
    assert sum(result.retries.values()) == 2
    assert len(server.requests()) == 6
    errors = [line for line in result.ours() if "ended in error" in line]
    assert len(errors) == 1 and errors[0].startswith(
        f"bediscover run: 1 sample ended in error (not scored): {error_type}"
    )
    assert "bediscover run: 2 samples re-asked after an error (1 answered on a retry)" in result.ours()
    assert result.ours()[-1] == f"bediscover run: 1/1 evals complete in {tmp_path / 'logs'}"


@pytest.mark.slow
def test_a_broken_gateway_ends_the_run_over_budget_with_the_resume_hint(fault_server, tmp_path):
    # an HTML page with status 200 for every request: each call is retried once (--max-retries 1), each sample
    # re-asked once (--retry-on-error 1), the eval fails over its budget and is not re-run (--retry-attempts 0)
    server = fault_server("--bad", "html200")
    log_dir = tmp_path / "logs"
    result = run_against(server, log_dir, "--max-retries", "1", "--retry-on-error", "1", "--retry-attempts", "0")
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert_each_sample_once(result)
    assert len(result.errors) == 4 and result.statuses == ["error"]
    assert len(server.requests()) == 4 * 2 * 2
    ours = result.ours()
    assert ours[0].startswith("bediscover run: 4 samples ended in error (not scored): OpenAIResponseError"), ours
    # the example is the last attempt's error, as the server's reply reads, not tenacity's RetryError around it
    assert ours[0].endswith(
        "; e.g. server_error: Unexpected non-ChatCompletion response: '<html><body><h1>502 Bad Gateway</h1></body>"
        "</html>'"
    ), ours
    assert ours[-1] == (
        f"bediscover run: 0/1 evals complete in {log_dir}; 1 unfinished (re-run the same command to resume: "
        "finished evals are skipped and finished samples kept)"
    )


@pytest.mark.slow
def test_a_prompt_over_the_servers_context_is_one_console_line_and_the_servers_words(fault_server, tmp_path):
    # every request answered HTTP 400 "maximum context length": 2 samples x 2 attempts, each a sample error that
    # Inspect shows with the whole request; the console shows the first, in one line, the log keeps all (two
    # samples: each error's traceback costs Inspect CPU to render for the log)
    server = fault_server("--bad", "http400")
    # in a process of its own: Inspect's console handler writes to the stderr of the process it was set up in
    log_dir = tmp_path / "logs"
    result = finish(
        bediscover_run(log_dir, *SMALL_RUN, "--limit", "2", "--retry-attempts", "0", env=server.env), log_dir
    )
    assert result.code == 1 and "Traceback" not in result.text, result.text
    assert_each_sample_once(result, 2)
    assert len(server.requests()) == 2 * 2
    assert len(result.errors) == 2 and all("maximum context length is 512" in m for m in result.errors.values())
    shown = [line for line in result.lines if "Sample error" in line]
    assert len(shown) == 1, result.text
    said = "This model's maximum context length is 512 tokens."
    assert '"messages"' not in result.text and said in " ".join(result.text.split()), result.text
    assert result.ours()[0].startswith(
        "bediscover run: 2 samples ended in error (not scored): BadRequestError — the server refused the request "
        f"(HTTP 400: a prompt longer than its context window, an option it does not take); e.g. HTTP 400: {said}"
    ), result.ours()


@pytest.mark.slow
def test_a_slow_server_is_abandoned_after_the_attempt_timeout(fault_server, tmp_path):
    # the server answers after 60 s; an attempt is abandoned after 1 s (the shortest --attempt-timeout) and retried
    # once, then the sample errs; every sample of the eval in error fails it, though the count 5 is above its 4
    # samples
    server = fault_server("--bad", "slow", "--slow-seconds", "60")
    result = run_against(
        server,
        tmp_path / "logs",
        *("--attempt-timeout", "1", "--max-retries", "1", "--retry-on-error", "0", "--fail-on-error", "5"),
        *("--retry-attempts", "0"),
    )
    assert result.code == 1, result.text
    assert result.statuses == ["error"]
    assert "Warning" not in result.text  # the count is given to Inspect as the type it declares
    assert result.ours()[-1].startswith(f"bediscover run: 0/1 evals complete in {tmp_path / 'logs'}; 1 unfinished")
    assert "Traceback" not in result.text
    assert_each_sample_once(result)
    assert len(result.errors) == 4
    asked = Counter(request["prompt"] for request in server.requests())
    assert len(asked) == 4 and set(asked.values()) <= {1, 2}  # a retry cut off before it reached the server: 1
    assert any(
        line.startswith("bediscover run: 4 samples ended in error (not scored): AttemptTimeoutError")
        for line in result.ours()
    )


@pytest.mark.slow
def test_a_server_slower_than_the_client_timeout_is_asked_once_per_attempt(fault_server, tmp_path):
    # the server answers after 30 s, the OpenAI client gives up after 1 s: with Inspect's one retry each sample is
    # asked twice (the client's own retries would make it six), then ends in error; the eval fails its budget.
    # Two samples: each timed-out call's traceback costs Inspect about 0.5 s of CPU to render for the log
    server = fault_server("--bad", "slow", "--slow-seconds", "30")
    log_dir = tmp_path / "logs"
    result = run_against(
        server,
        log_dir,
        *("--limit", "2", "-M", "client_timeout=1", "--max-retries", "1", "--retry-on-error", "0"),
        *("--retry-attempts", "0"),
    )
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert_each_sample_once(result, 2)
    assert len(result.errors) == 2
    asked = Counter(request["prompt"] for request in server.requests())
    assert len(asked) == 2 and set(asked.values()) == {2}
    ours = result.ours()
    assert ours[0].startswith("bediscover run: 2 samples ended in error (not scored): APITimeoutError"), ours
    assert ours[-1] == (
        f"bediscover run: 0/1 evals complete in {log_dir}; 1 unfinished (re-run the same command to resume: "
        "finished evals are skipped and finished samples kept)"
    )


@pytest.mark.slow
@pytest.mark.parametrize("variable", ["VLLM_BASE_URL", "FAULT_BASE_URL"])
def test_an_unreachable_server_stops_the_run_before_it_starts(tmp_path, monkeypatch, capsys, variable):
    url = f"http://127.0.0.1:{free_port()}/v1"
    model = "vllm/some-model" if variable == "VLLM_BASE_URL" else MODEL
    # a data root without Otherwise: building the task would warn that it is absent; the server is asked first
    root = tmp_path / "data"
    (root / "dm").mkdir(parents=True)
    (root / "dm" / "just").symlink_to(Path(os.environ["BEDISCOVER_DATA_DIR"]) / "dm" / "just")
    for key, value in {variable: url, "FAULT_API_KEY": "test", "BEDISCOVER_DATA_DIR": str(root)}.items():
        monkeypatch.setenv(key, value)
    code, out, err = bediscover(capsys, "run", "--model", model, "--log-dir", str(tmp_path / "logs"), *SMALL_RUN)
    assert code == 2
    # only the plan's one line (printed before the first call) on stdout; the error is the one line on stderr
    assert [line for line in out.splitlines() if not line.startswith("bediscover run: plan: ")] == []
    assert err.splitlines() == [
        f"bediscover run: error: the model server at {url} (from {variable}) does not answer: Connection refused; "
        f"start it or fix {variable}"
    ]
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_a_second_run_on_a_log_dir_in_use_stops_at_once(fault_server, tmp_path, monkeypatch):
    # the first run in this process, with the console script's command line (the lock records it); the second,
    # in a process of its own, started once the first holds the lock. Replies held until the second run has
    # ended, so the first one still holds the lock whatever the machine's load
    release = tmp_path / "release"
    server = fault_server("--bad", "slow", "--slow-seconds", "200", "--release", str(release))
    log_dir = tmp_path / "logs"
    lock = log_dir / ".bediscover-run.lock"
    second: list[RunResult] = []

    def run_second() -> None:
        try:
            deadline = time.monotonic() + 120
            while not (lock.exists() and lock.read_text()):  # the first run holds the lock once it checked the server
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)
            proc = bediscover_run(log_dir, *SMALL_RUN, env=server.env)
            out, _ = proc.communicate(timeout=240)
            second.append(RunResult(proc.returncode, out.splitlines()))
        finally:
            release.touch()

    monkeypatch.setattr(sys, "argv", ["bediscover", "run", "--model", MODEL, "--log-dir", str(log_dir), *SMALL_RUN])
    thread = threading.Thread(target=run_second)
    thread.start()
    result = run_against(server, log_dir)
    thread.join()
    assert len(second) == 1, "the first run did not take the lock within 120 s"
    assert second[0].code == 2
    assert len(second[0].ours()) == 1
    assert re.fullmatch(
        rf"bediscover run: error: {re.escape(str(log_dir))} is in use by process {os.getpid()} on \S+ "
        r"\(`bediscover run --model .*`, started [0-9: -]+\); wait for it to end, or stop it and re-run to resume",
        second[0].ours()[0],
    ), second[0].lines
    assert result.code == 0, result.text
    assert_each_sample_once(result)
    assert len(server.requests()) == 4  # the second run asked nothing


@pytest.mark.slow
def test_a_killed_runs_lock_does_not_stay(fault_server, tmp_path):
    server = fault_server("--bad", "slow", "--slow-seconds", "60")
    log_dir = tmp_path / "logs"
    first = bediscover_run(log_dir, *SMALL_RUN, env=server.env)
    deadline = time.monotonic() + 120
    while len(server.requests()) < 4:  # all four samples asked: the run holds the lock
        assert time.monotonic() < deadline and first.poll() is None
        time.sleep(0.1)
    first.kill()
    first.communicate(timeout=60)
    fast = fault_server()
    result = run_against(fast, log_dir)
    assert result.code == 0, result.text
    assert_each_sample_once(result)
    assert len(fast.requests()) == 4


@pytest.mark.slow
def test_the_console_script_imports_nothing_before_it_can_answer_ctrl_c():
    # every module imported before console_main runs is a window in which Ctrl-C prints a traceback
    code = "import sys; before = set(sys.modules); import bediscover_inspect.entry; print(sorted(set(sys.modules) - before))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert (
        proc.stdout.strip()
        == "['__future__', 'bediscover_inspect', 'bediscover_inspect.entry', 'bediscover_inspect.run', "
        "'bediscover_inspect.run.interrupts']"
    )


@pytest.mark.slow
@pytest.mark.parametrize("delay", [1.5, 3.0])
def test_ctrl_c_during_start_up_prints_one_line_and_the_resume_hint(fault_server, tmp_path, delay):
    # replies take 5 s, so on a fast machine the signal still lands before the run can end (in start-up or at the
    # first calls)
    server = fault_server("--bad", "slow", "--slow-seconds", "5")
    log_dir = tmp_path / "logs"
    proc = bediscover_run(log_dir, *SMALL_RUN, env=server.env)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    result = read_results(proc.returncode, out, log_dir)
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert result.code == 130, out
    assert result.ours()[-1].startswith("bediscover run: ") and result.ours()[-1].endswith(
        "(re-run the same command to resume: finished evals are skipped and finished samples kept)"
    ), out
    assert set(result.samples.values()) <= {1}


@pytest.mark.slow
def test_a_server_that_goes_down_mid_run_stops_the_run_early(fault_server, tmp_path):
    # twelve samples two at a time, answers after 1 s; the server exits after its fourth request. The run stops
    # after five calls in a row that cannot connect, not after every remaining sample's retries; the re-run
    # against a new server asks only the samples not finished
    log_dir = tmp_path / "logs"
    server = fault_server("--bad", "slow", "--slow-seconds", "1", "--max-requests", "4")
    args = ["--limit", "12", "--max-connections", "2", "--retry-attempts", "0"]
    proc = bediscover_run(log_dir, *SMALL_RUN, *args, env=server.env)
    result = finish(proc, log_dir)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert re.fullmatch(
        r"bediscover run: stopped after \d+ model calls in a row could not connect: the model server at "
        r"http://127\.0\.0\.1:\d+/v1 \(from FAULT_BASE_URL\) does not answer: Connection refused; start it, then "
        r"re-run the same command to resume: finished samples are kept",
        result.ours()[-1],
    ), result.ours()
    finished = {key for key, _ in result.samples.items() if key not in result.errors}
    assert 2 <= len(finished) <= 6 and set(result.samples.values()) == {1}, result.samples
    asked = {request["prompt"] for request in server.requests()}

    again = fault_server()
    resumed = run_against(again, log_dir, *args[:4])
    assert resumed.code == 0, resumed.text
    assert_each_sample_once(resumed, 12)
    assert not resumed.errors
    assert len(again.requests()) == 12 - len(finished)
    assert len(asked) >= len(finished)


def token_counts(log_dir: Path) -> tuple[list, float]:
    """The per-sample ``output_tokens`` of the one log in ``log_dir`` (sorted, ``None`` first) and its mean."""
    (info,) = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    values = [sample.scores["discourse_marker_scorer"].value["output_tokens"] for sample in log.samples]
    return sorted(values, key=lambda v: (v is not None, v or 0)), measures_by_group(log)["output_tokens"]["all"]


def bediscover(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``bediscover ARGS`` in this process (the report and compare commands need no process of their own): the
    exit code, stdout and stderr."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_a_reply_without_usage_is_reported_as_not_measured(fault_server, tmp_path):
    # requests 2 and 4 carry no `usage`: two samples answered, their token counts not reported by the provider;
    # the two others report 2 completion tokens each, so the mean is 2 (it would be 1 with the missing ones as 0)
    server = fault_server("--bad", "no_usage", "--every", "2")
    result = run_against(server, tmp_path / "logs")
    assert result.code == 0, result.text
    assert_each_sample_once(result)
    assert not result.errors and len(server.requests()) == 4
    assert token_counts(tmp_path / "logs") == ([None, None, 2.0, 2.0], 2.0)
    assert (
        "bediscover run: 2 samples without token usage (not reported by the provider): left out of output_tokens "
        "and reasoning_tokens"
    ) in result.ours()


@pytest.mark.slow
def test_token_measures_without_usage_are_not_reported_in_report_and_compare(fault_server, tmp_path, capsys):
    # run A: no reply carries `usage`; run B: every reply does. The report says A's token cells were not
    # reported (never 0); compare states the unmeasured token counts and still gives its verdict
    no_usage, usage = tmp_path / "no-usage", tmp_path / "usage"
    result = run_against(fault_server("--bad", "no_usage"), no_usage)
    with_usage = run_against(fault_server(), usage)
    assert result.code == 0, result.text
    values, mean = token_counts(no_usage)
    assert values == [None] * 4 and math.isnan(mean)
    assert with_usage.code == 0, with_usage.text

    report = bediscover(capsys, "report", "--log-dir", str(no_usage), "--out", str(tmp_path / "report"), "--no-plots")
    assert report[0] == 0, report
    table = pd.read_csv(tmp_path / "report" / "discourse_markers.csv")
    assert set(table["output_tokens"]) == set(table["reasoning_tokens"]) == {"not reported by the provider"}
    assert (
        "- token counts not reported by the provider: discourse_markers, model "
        "openai-api/fault/fault-model, reasoning off"
    ) in (tmp_path / "report" / "report.md").read_text()

    both = bediscover(capsys, "compare", "--baseline", str(no_usage), "--candidate", str(no_usage), "--allow-untested")
    one = bediscover(capsys, "compare", "--baseline", str(no_usage), "--candidate", str(usage), "--allow-untested")
    assert both[0] == 0 and one[0] == 0, (both, one)
    assert "output_tokens, reasoning_tokens not reported by the provider on both sides (baseline 4 of 4 " in both[1]
    assert (
        "output_tokens, reasoning_tokens not reported by the provider on the baseline side only (baseline 4 of 4 "
        "samples): not measured there, not compared"
    ) in one[1]


FULL_DISK_SCRIPT = r"""
set -u
mount -t tmpfs -o size=2m tmpfs "$FULL" || exit 97
"$PYTHON" -m bediscover_inspect.entry run "$@" --log-dir "$FULL/logs" > "$OUT/first.txt" 2>&1 &
run=$!
while [ "$(wc -l < "$REQUESTS")" -lt "$FILL_AFTER" ] && kill -0 $run 2>/dev/null; do sleep 0.1; done
dd if=/dev/zero of="$FULL/fill" bs=64k 2>/dev/null
wait $run; echo $? > "$OUT/first.code"
wc -l < "$REQUESTS" > "$OUT/first.requests"
cp -r "$FULL/logs" "$OUT/logs"
"""
"""Run, fill the 2 MB tmpfs holding the log directory once the server has ``$FILL_AFTER`` requests, copy the log
directory the stopped run left to ``$OUT``; in a mount namespace of its own (``unshare``), so no privilege is needed
and the tmpfs goes with it."""


@pytest.mark.slow
def test_a_full_disk_stops_the_run_with_one_line_and_the_re_run_completes_it(fault_server, tmp_path):
    # 24 samples two at a time, answers after 1 s; the disk fills after 6 requests. The run stops at the first
    # failed write (not after ten eval retries) with one line; after freeing space the same command completes
    # the eval with every sample once (answered at once). Samples answered but not yet written when the disk
    # filled are asked again. The re-run is made in this process on the log directory the stopped run left,
    # copied out of the full disk (its mount goes with the first run's namespace)
    release = tmp_path / "release"
    server = fault_server("--bad", "slow", "--slow-seconds", "1", "--release", str(release))
    out, full = tmp_path / "out", tmp_path / "full"
    out.mkdir()
    full.mkdir()
    env = {**os.environ, **server.env, "FULL": str(full), "OUT": str(out), "PYTHON": sys.executable}
    env |= {"REQUESTS": str(server.requests_file), "FILL_AFTER": "6"}
    args = ["--model", MODEL, *SMALL_RUN[:-4], "--limit", "24", "--max-connections", "2", "--display", "plain"]
    proc = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", FULL_DISK_SCRIPT, "sh", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = (out / "first.txt").read_text()
    assert (out / "first.code").read_text().strip() == "1", first
    assert "Traceback" not in first
    assert [line for line in first.splitlines() if line.startswith("bediscover ")][-1] == (
        f"bediscover run: stopped: the disk holding {full / 'logs'} is full (No space left on device); free "
        "space, then re-run the same command to resume: samples answered since the log was last written are "
        "asked again"
    )
    assert int((out / "first.requests").read_text()) < 24
    release.touch()  # the server's replies at once from here on
    second = run_against(server, out / "logs", "--limit", "24", "--max-connections", "2")
    assert second.code == 0, second.text
    assert_each_sample_once(second, 24)
    # the stopped run's log holds its header only (no sample was written); it stays beside the complete one
    assert not second.errors and second.statuses == ["success"]  # the resume replaced the interrupted log
    assert len(server.requests()) >= 24
