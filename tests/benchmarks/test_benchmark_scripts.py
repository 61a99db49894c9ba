"""Smoke tests of the benchmarks: the model server answers every task validly and queues beyond its slots, and each
script runs at a tiny size and writes its result (no timing checks)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import model_input

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture()
def bench_modules(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import model_server

    return model_server


def _first_messages(task, n: int = 40) -> list[list[dict[str, str]]]:
    """The messages the model gets for the first ``n`` samples of a built task, in OpenAI chat format."""
    return [
        [{"role": m.role, "content": m.text} for m in model_input(task, sample)] for sample in list(task.dataset)[:n]
    ]


def _listed(system: str, after: str) -> set[str]:
    """The labels a system prompt lists in brackets after ``after`` (or after ``## Labels:``)."""
    if after == "## Labels:":
        return {label.strip(" .\n") for label in system.split("## Labels:")[1].split(",")}
    return {label.strip() for label in system.split(after)[1].split("[")[1].split("]")[0].split(",")}


def test_server_answers_every_task_validly(bench_modules):
    """On real prompts of each task: a label the prompt lists, a JSON dict with the instruction's keys, a
    permutation of the prompt's ``<s n>`` markers, ``LABEL(x,1)`` relations of the dataset's set."""
    from bediscover_inspect.dialogue_parsing.task import dialogue_parsing
    from bediscover_inspect.discourse_markers.task import discourse_markers
    from bediscover_inspect.discourse_relations.task import discourse_relations
    from bediscover_inspect.sentence_ordering.task import sentence_ordering
    from bediscover_inspect.temporal_reasoning.task import temporal_reasoning

    answer = bench_modules.answer
    seen = {}
    for messages in _first_messages(discourse_markers(dataset="all")) + _first_messages(
        discourse_markers(dataset="otherwise")
    ):
        reply = answer(messages, reasoning_tokens=32)
        labels = _listed(messages[0]["content"], "labels:")
        assert reply.task == "discourse_markers" and any(label in reply.text for label in labels), reply
        assert 0 <= reply.reasoning_tokens <= 64 and reply.answer_tokens >= 1
        seen["dm"] = True
    for dataset in ("tbd", "tot-arithmetic"):
        for messages in _first_messages(temporal_reasoning(dataset=dataset)):
            reply = answer(messages)
            assert reply.task == "temporal_reasoning"
            if dataset == "tbd":
                assert any(label in reply.text for label in _listed(messages[0]["content"], "labels:"))
            else:
                template = re.search(r"\{[^{}]*\}", messages[1]["content"])
                keys = set(re.findall(r"\"(\w+)\"\s*:", template.group(0))) if template else {"unordered_list"}
                assert set(json.loads(reply.text)) == (keys or {"answer"}), (messages[1]["content"], reply.text)
    for messages in _first_messages(discourse_relations(dataset="deu.pdtb.pcc,eng.rst.oll")):
        reply = answer(messages)
        assert reply.task == "discourse_relations"
        assert any(label in reply.text for label in _listed(messages[0]["content"], "## Labels:"))
    for messages in _first_messages(sentence_ordering(dataset="nips-abs")):
        reply = answer(messages)
        markers = set(re.findall(r"<s (\d+)>", messages[1]["content"]))
        assert reply.task == "sentence_ordering" and set(re.findall(r"<s (\d+)>", reply.text)) == markers
        assert len(re.findall(r"<s \d+>", reply.text)) == len(markers)
    for dataset in ("stac", "msdc"):
        for messages in _first_messages(dialogue_parsing(dataset=dataset)):
            reply = answer(messages)
            relations = re.findall(r"(\w+)\((\d+),(\d+)\)", reply.text)
            labels = set(messages[0]["content"].split("relations: [")[1].split("]")[0].split(", "))
            assert reply.task == "dialogue_parsing" and relations, reply
            assert all(label in labels and int(x) < int(y) == 1 for label, x, y in relations), reply
    # a pure function of the messages: a replay gets the same answer
    assert answer(messages) == answer(messages)
    assert seen


def test_server_speaks_openai_and_queues_beyond_its_slots(bench_modules, tmp_path):
    """Five calls at once on two slots: every answer is a chat completion with reasoning tokens in its usage, at
    most two run at once, and the server's latency sum is the latency model's."""
    server = bench_modules
    latency = server.Latency(0.2, 0.001)
    replies = []
    with server.serve(2, latency, reasoning_tokens=8, work=tmp_path) as served:
        assert served.env["BENCH_BASE_URL"].startswith("http://127.0.0.1:")

        def call() -> None:
            body = json.dumps(
                {
                    "model": server.MODEL_NAME,
                    "messages": [
                        {"role": "system", "content": "The assistant identifies the **temporal relation** …"},
                        {"role": "user", "content": "Quesiton: What is the temporal relation?"},
                    ],
                }
            ).encode()
            request = urllib.request.Request(
                f"{served.base_url}/chat/completions",
                data=body,
                headers={"Content-Type": "application/json", "Authorization": "Bearer bench"},
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                replies.append(json.loads(response.read()))

        threads = [threading.Thread(target=call) for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        stats = served.stats()
    assert len(replies) == 5
    for reply in replies:
        usage = reply["usage"]
        assert reply["object"] == "chat.completion" and reply["choices"][0]["message"]["content"]
        assert usage["completion_tokens"] >= usage["completion_tokens_details"]["reasoning_tokens"] >= 0
    tokens = sum(r["usage"]["completion_tokens"] for r in replies)
    assert stats["requests"] == 5 and stats["max_in_flight"] == 2
    assert stats["latency_sum_s"] == pytest.approx(5 * latency.fixed_s + latency.per_token_s * tokens)


def test_ideal_wall_takes_the_longest_chain(bench_modules, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    from served import ideal_wall

    independent = ideal_wall({"a": [1.0], "b": [1.0], "c": [2.0]}, slots=2)
    assert independent["ideal_s"] == independent["per_slot_s"] == 2.0
    chained = ideal_wall({"long": [1.0] * 10, "short": [1.0]}, slots=4)
    assert chained["per_slot_s"] == 2.75 and chained["ideal_s"] == chained["longest_chain_s"] == 10.0


@pytest.mark.slow
def test_run_all_quick(tmp_path):
    """``run_all.py --quick``: data loading, the overhead rounds on dialogue parsing (multi-call replay), the
    served benchmark on sentence ordering with the whole-suite run and the report, growth at a run size and a
    grown size; every result file written."""
    env = dict(
        os.environ, BEDISCOVER_BENCH_RESULTS=str(tmp_path / "results"), BEDISCOVER_BENCH_WORK=str(tmp_path / "work")
    )
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run_all.py"), "--quick"], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = tmp_path / "results"
    for name in ("data_loading", "overhead", "served"):
        data = json.loads((results / f"{name}.json").read_text())
        code = data["machine"]["code"]
        assert code["package_dir"].endswith("bediscover_inspect") and len(code["commit"]) == 40
    [task] = json.loads((results / "overhead.json").read_text())["tasks"]
    assert task["task"] == "dialogue_parsing" and task["samples"] == 2
    assert task["runs"]["ours"][0]["samples"] == task["runs"]["bare"][0]["samples"] == 2
    [block] = json.loads((results / "served.json").read_text())["slots"]
    [task] = block["tasks"]
    ours, bare = task["runs"]["ours"][0], task["runs"]["bare"][0]
    assert ours["calls"] == bare["calls"] == ours["samples"] == 3
    assert ours["server_latency_sum_s"] == pytest.approx(task["ideal"]["sum_s"])
    [suite] = block["suites"]  # the whole suite with live scores off (bediscover run's default)
    assert suite["score_display"] is False and suite["calls"] == 3 and suite["report"]["returncode"] == 0
    growth = json.loads((results / "growth.json").read_text())
    assert [(row["samples"], row["synthetic"]) for row in growth["sizes"]] == [(10, False), (20, True)]
    for row in growth["sizes"]:  # every call of a run answered; run (real rows), report and compare measured
        assert row["log_mb"] > 0 and row.get("calls", row["samples"]) == row["samples"]
        names = ("report", "compare") if row["synthetic"] else ("run", "report", "compare")
        assert all(row[name]["wall_s"] > 0 and row[name]["peak_rss_mb"] > 0 for name in names)
    # the grown log holds twice the samples; the run has one size, so no line is fitted to it
    assert growth["sizes"][1]["log_mb"] > growth["sizes"][0]["log_mb"]
    assert set(growth["projection"]) == {"report", "compare", "log_mb"}
    assert re.search(r"\| 43,716 \(projected\) \| – \| – \| – / -?\d+ \| -?\d+ \| – / -?\d+ \| -?\d+ \|", proc.stdout)
    # one live-metrics pass over the quick run's own log, for the installed code and for this checkout's src/
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "metrics_pass.py"),
            str(tmp_path / "work" / "served" / "slots2" / "logs_sentence_ordering_ours_0"),
            "sentence_ordering",
            "--src",
            str(BENCH.parent / "src"),
            "--repeats",
            "1",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    passes = json.loads((results / "metrics_pass.json").read_text())
    assert [run["tree"] for run in passes["runs"]] == ["installed", str(BENCH.parent / "src")]
    for run in passes["runs"]:
        assert [row["samples"] for row in run["rows"]] == [1, 1, 3]  # 10 %, 50 %, 100 % of 3 samples
        assert all(row["entries"] > 0 and row["pass_ms"] > 0 for row in run["rows"])


def test_server_shapes_reasoning_replies_and_bills_a_cut_off_the_budget(bench_modules):
    ms = bench_modules
    assert ms.parse_shapes("length=0.33,reasoning_only=0.1") == {"length": 0.33, "reasoning_only": 0.1}
    for bad in ("lenght=0.1", "length=1.5", "length=0.6,reasoning_only=0.6"):
        with pytest.raises(ValueError, match="--shapes"):
            ms.parse_shapes(bad)
    reply = ms.Reply("discourse_relations", "The answer is contrast.", 6, 0)
    message, finish, tokens, reasoning = ms.shaped(reply, "length", 300)
    assert (finish, tokens, reasoning) == ("length", 300, 0)
    assert message["content"].startswith("Weighing the options, contrast looks right, but")
    message, finish, tokens, _ = ms.shaped(reply, "reasoning_length", None)
    assert (message["content"], finish, tokens) == ("", "length", ms.DEFAULT_BUDGET)
    message, finish, _, _ = ms.shaped(reply, "reasoning_only", 300)
    assert message["content"] == "" and message["reasoning_content"].endswith(reply.text) and finish == "stop"
    assert ms.shaped(reply, "unclosed_think", 300)[0]["content"].startswith("<think>")
    # the latency model bills a cut-off reply its budget: it holds the slot as long
    latency = ms.Latency(0.1, 0.01)
    assert latency(ms.shaped(reply, "length", 300)[2]) == pytest.approx(3.1)
    # shapes are a function of the messages: a replay gets the same shape, and the shares hold
    messages = [[{"role": "user", "content": f"q{i}"}] for i in range(3000)]
    shapes = [ms.shape_of(m, {"length": 1 / 3}) for m in messages]
    assert shapes == [ms.shape_of(m, {"length": 1 / 3}) for m in messages]
    assert abs(shapes.count("length") / 3000 - 1 / 3) < 0.03
