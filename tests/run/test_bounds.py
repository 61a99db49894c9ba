"""``bediscover run``'s bounds at their edges: ``--timeout`` bounds a call over all its attempts, a server's
``Retry-After`` is waited for (or stops the run when it is longer than the bound), a ``--fail-on-error`` count above
an eval's samples, repeated ``--seeds``, ``--shard 1/1``'s lock, a reply cut half-way, the seed in the metadata."""

from __future__ import annotations

import argparse
import email.utils
import re
from types import SimpleNamespace

import pytest
from inspect_ai.analysis import evals_df
from inspect_ai.log import list_eval_logs, read_eval_log
from tenacity import RetryCallState

from bediscover_inspect.cli import build_tasks, main
from bediscover_inspect.run.calls import RetryAfterTooLong, RetryAfterWait, retry_after_seconds
from bediscover_inspect.run.guard import LOCK_NAME, lock_of
from bediscover_inspect.run.options import cap_error_counts
from bediscover_inspect.workers import Part

from .conftest import SMALL_RUN, bediscover_run, finish, run_against

RESUME = "re-run the same command to resume: finished evals are skipped and finished samples kept"


@pytest.mark.slow
def test_timeout_bounds_a_call_over_all_its_attempts(fault_server, tmp_path):
    # the server answers after 30 s; --timeout 3 ends the call (its first attempt cancelled) after 3 s (long enough
    # for the request to reach the server on a loaded machine)
    server = fault_server("--bad", "slow", "--slow-seconds", "30")
    log_dir = tmp_path / "logs"
    result = run_against(
        server, log_dir, "--limit", "1", "--timeout", "3", "--retry-on-error", "0", "--retry-attempts", "0"
    )
    assert result.code == 1, result.text
    [message] = result.errors.values()
    assert message.startswith("CallTimeout('no reply within --timeout 3 s over all attempts of the call')")
    assert len(server.requests()) == 1
    [sample] = read_eval_log(list_eval_logs(str(log_dir))[0]).samples
    assert 3 <= sample.total_time < 12
    assert result.ours()[0].startswith(
        "bediscover run: 1 sample ended in error (not scored): CallTimeout — no reply within --timeout"
    )


@pytest.mark.slow
def test_a_servers_retry_after_is_waited_for(fault_server, tmp_path):
    # the first request gets HTTP 429 with Retry-After: 1; the retry comes 1 s later (the back-off without a
    # Retry-After, QUICK_BACKOFF: at most 0.2 s)
    server = fault_server("--bad", "http429", "--first", "1", "--retry-after", "1")
    result = run_against(server, tmp_path / "logs", "--limit", "1")
    assert result.code == 0, result.text
    first, second = server.requests()
    assert (first["kind"], second["kind"]) == ("http429", "ok")
    assert second["prompt"] == first["prompt"]
    assert 1 <= second["time"] - first["time"] < 5


@pytest.mark.slow
def test_a_retry_after_beyond_the_timeout_stops_the_run_with_one_line(fault_server, tmp_path):
    # in a process of its own: the run is stopped as by a Ctrl-C
    server = fault_server("--bad", "http429", "--retry-after", "120")
    log_dir = tmp_path / "logs"
    result = finish(bediscover_run(log_dir, *SMALL_RUN, "--timeout", "20", env=server.env), log_dir)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert len(server.requests()) <= 8  # each sample asked once (a second time at most), no back-off retries
    stopped = re.fullmatch(
        r"bediscover run: stopped: the server asked to wait 120 s before a retry \(Retry-After\), more than the "
        r"(\d+) s left of --timeout 20; re-run the same command after that wait \(or with a longer --timeout\) "
        r"to resume: finished samples are kept",
        result.ours()[-1],
    )
    assert stopped, result.ours()
    assert 1 <= int(stopped.group(1)) <= 20  # what is left when the 429 arrives: less on a loaded machine


@pytest.mark.slow
def test_a_reply_cut_half_way_is_called_so(fault_server, tmp_path):
    server = fault_server("--bad", "cut")
    log_dir = tmp_path / "logs"
    result = run_against(
        server, log_dir, "--limit", "2", *("--max-retries", "0", "--retry-on-error", "0", "--retry-attempts", "0")
    )
    assert result.code == 1, result.text
    assert len(server.requests()) == 2
    assert "could not be reached" not in result.text
    assert result.ours()[0] == (
        "bediscover run: 2 samples ended in error (not scored): RemoteProtocolError — the server's reply was cut off "
        "before its end (the connection closed mid-reply), on every retry; e.g. RemoteProtocolError: peer closed "
        "connection without sending complete message body (incomplete chunked read)"
    )


def test_retry_after_is_read_as_seconds_or_an_http_date():
    def reply(value):
        return SimpleNamespace(response=SimpleNamespace(headers={"retry-after": value}))

    assert retry_after_seconds(reply("120")) == 120
    assert retry_after_seconds(reply("1.5")) == 1.5
    now = 1_700_000_000.0
    assert retry_after_seconds(reply(email.utils.formatdate(now + 30, usegmt=True)), now=now) == 30
    assert retry_after_seconds(reply(email.utils.formatdate(now - 30, usegmt=True)), now=now) == 0
    for bad in ("soon", "-5", "inf", ""):
        assert retry_after_seconds(reply(bad)) is None
    assert retry_after_seconds(ValueError("no reply")) is None


def test_the_wait_before_a_retry_is_the_servers_within_what_is_left():
    class Limited(Exception):
        response = SimpleNamespace(headers={"Retry-After": "50"})

    stopped = []
    wait = RetryAfterWait(lambda state: 4.0, timeout=60, stop=stopped.append)

    def state(exc, since):
        rs = RetryCallState(None, None, (), {})  # type: ignore[arg-type]
        rs.set_exception((type(exc), exc, None))
        rs.outcome_timestamp = rs.start_time + since
        return rs

    assert wait(state(Limited(), since=5)) == 50  # 55 s left: the server's 50
    assert wait(state(ValueError("x"), since=5)) == 4.0  # no header: the back-off
    with pytest.raises(RetryAfterTooLong, match="wait 50 s before a retry .*, more than the 15 s left of --timeout 60"):
        wait(state(Limited(), since=45))
    assert len(stopped) == 1


def test_a_fail_on_error_count_above_an_evals_samples_is_its_sample_count():
    tasks = build_tasks(["discourse_markers"], [0], [False], "paper", {"dataset": "just-manual", "presets": "none"})
    options = {"fail_on_error": 5, "retry_attempts": 1}
    assert cap_error_counts(tasks, options, limit=1) == {"fail_on_error": None, "retry_attempts": 1}
    assert tasks[0].fail_on_error == 1.0
    cap_error_counts(tasks, options, limit=None)
    assert tasks[0].fail_on_error == 5  # 90 samples: the count stands
    fraction = {"fail_on_error": 0.1}
    assert cap_error_counts(tasks, fraction, limit=1) == fraction
    assert cap_error_counts(tasks, {"fail_on_error": True}, limit=1) == {"fail_on_error": True}


def test_repeated_seeds_are_one_line_exit_2(tmp_path, capsys):
    argv = ["run", "--model", "mockllm/model", "--tasks", "discourse_markers", "--seeds", "0", "1", "0"]
    assert main([*argv, "--log-dir", str(tmp_path / "logs")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "bediscover run: error: --seeds: 0 given more than once; give each seed once"
    ]
    assert not (tmp_path / "logs").exists()


def test_a_negative_seed_is_one_line_exit_2(tmp_path, capsys):
    argv = ["run", "--model", "mockllm/model", "--tasks", "discourse_markers", "--seeds", "0", "-1"]
    assert main([*argv, "--log-dir", str(tmp_path / "logs")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "bediscover run: error: --seeds: -1 is negative; a seed is a whole number >= 0 (the paper's: 0 1 42)"
    ]
    assert not (tmp_path / "logs").exists()


def test_shard_1_of_1_takes_the_lock_of_the_whole_run():
    whole = lock_of(argparse.Namespace(shard=None, worker=None))
    assert whole == LOCK_NAME
    assert lock_of(argparse.Namespace(shard=Part(1, 1), worker=None)) == whole
    assert lock_of(argparse.Namespace(shard=Part(2, 3), worker=None)) == ".bediscover-run-shard-2-of-3.lock"


def test_the_seed_is_in_the_evals_metadata(tmp_path, capsys):
    log_dir = tmp_path / "logs"
    argv = ["run", "--model", "mockllm/model", "--tasks", "discourse_markers", "--seeds", "42", "--reasoning", "off"]
    assert main([*argv, "--limit", "1", "--display", "none", "--log-dir", str(log_dir)]) == 0
    frame = evals_df(str(log_dir))
    assert [meta["seed"] for meta in frame["metadata"].map(_json)] == [42]


def _json(value):
    import json

    return value if isinstance(value, dict) else json.loads(value)
