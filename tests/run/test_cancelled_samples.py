"""A sample a stop of the run cut short is counted as cancelled in the closing summary, never as an error."""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalError, read_eval_log, write_eval_log
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from bediscover_inspect.run.failures import failure_lines
from tests.helpers import run_eval, scripted_model


def test_cancelled_samples_are_not_errors(tmp_path):
    task = Task(dataset=[Sample(input=str(i), target="A", id=i) for i in range(4)], solver=generate(), scorer=match())
    [log] = run_eval(task, model=scripted_model(["A"] * 4), display="none", log_dir=str(tmp_path))
    full = read_eval_log(log.location)
    # as Inspect records them: two samples cut short by Ctrl-C, one that failed on a bad reply
    for sample, message in zip(full.samples, ["CancelledError()", "CancelledError()", "JSONDecodeError('x')"]):
        sample.error = EvalError(message=message, traceback="", traceback_ansi="")
    write_eval_log(full, log.location)
    assert failure_lines([log]) == [
        "bediscover run: 1 sample ended in error (not scored): JSONDecodeError — the server's reply is not valid "
        "JSON; e.g. JSONDecodeError('x')",
        "bediscover run: 2 samples cancelled while they waited for the model; re-running the command asks for them "
        "again, and for every sample not started",
    ]


def test_one_cancelled_sample_is_said_in_the_singular(tmp_path):
    task = Task(dataset=[Sample(input=str(i), target="A", id=i) for i in range(2)], solver=generate(), scorer=match())
    [log] = run_eval(task, model=scripted_model(["A"] * 2), display="none", log_dir=str(tmp_path))
    full = read_eval_log(log.location)
    full.samples[0].error = EvalError(message="CancelledError()", traceback="", traceback_ansi="")
    write_eval_log(full, log.location)
    assert failure_lines([log]) == [
        "bediscover run: 1 sample cancelled while it waited for the model; re-running the command asks for it again, "
        "and for every sample not started",
    ]
