"""The private Inspect names behind ``_inspect_compat``: each one still where Inspect keeps it, and none used elsewhere.

An Inspect upgrade that moves or removes one fails here, naming it and what the project uses it for.
"""

from __future__ import annotations

import contextvars
import importlib
import inspect
import json
import os
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bediscover_inspect import _inspect_compat as compat
from bediscover_inspect.evallogs.samples import sample_members

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(compat.PRIVATE_NAMES))
def test_each_private_name_is_where_inspect_keeps_it(name: str) -> None:
    module, purpose = compat.PRIVATE_NAMES[name]
    found = getattr(importlib.import_module(module), name, None)
    assert found is not None, f"inspect_ai has no {module}.{name} any more (used for: {purpose})"
    assert compat.private_name(name) is found


@pytest.mark.parametrize("name", ["PrerequisiteError", "SilentException"])
def test_the_exception_classes_are_inspects_own(name: str) -> None:
    """Not the ``Exception`` fallback: Inspect's CLI treats exactly these classes specially."""
    inspect_class = getattr(importlib.import_module(compat.PRIVATE_NAMES[name][0]), name)
    assert getattr(compat, name) is inspect_class
    assert inspect_class is not Exception and issubclass(inspect_class, Exception)


def test_prerequisite_error_keeps_its_message() -> None:
    """Inspect prints ``.message``; the data errors set it and so rely on the attribute existing."""
    assert compat.PrerequisiteError("no file x.json").message == "no file x.json"


def test_active_model_and_sample_state_are_none_outside_an_eval() -> None:
    fresh = contextvars.Context()  # an eval earlier in this process leaves its model set in the calling context
    assert fresh.run(compat.active_model) is None
    assert fresh.run(compat.sample_state) is None


def test_eval_results_takes_the_arguments_the_benchmark_passes() -> None:
    parameters = list(inspect.signature(compat.private_name("eval_results")).parameters)
    assert parameters[:5] == ["samples", "scores", "reducers", "scorers", "metrics"]


def test_a_missing_name_fails_naming_module_and_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(compat.PRIVATE_NAMES, "gone_helper", ("inspect_ai._util.error", "a test of the message"))
    with pytest.raises(
        ImportError, match=r"no inspect_ai\._util\.error\.gone_helper \(used for: a test of the message\)"
    ):
        compat.private_name("gone_helper")


PRIVATE_IMPORT = re.compile(r"\binspect_ai(?:\.\w+)*\._\w+")
"""A dotted path into one of Inspect's private modules (``inspect_ai._util…``, ``inspect_ai.model._model``)."""


def test_no_private_inspect_import_outside_the_compat_module() -> None:
    exempt = {ROOT / "src/bediscover_inspect/_inspect_compat.py", Path(__file__).resolve()}
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in ("src", "tests", "benchmarks", "evals", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in exempt
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PRIVATE_IMPORT.search(line)
    ]
    assert offenders == [], "private Inspect names belong in bediscover_inspect/_inspect_compat.py:\n" + "\n".join(
        offenders
    )


def test_eval_set_id_is_written_once_and_kept(tmp_path: Path) -> None:
    first = compat.eval_set_id_for_log_dir(str(tmp_path))
    assert (tmp_path / ".eval-set-id").read_text().strip() == first
    assert compat.eval_set_id_for_log_dir(str(tmp_path)) == first


def test_one_zstd_thread_writes_a_member_without_zstds_worker_threads(tmp_path: Path) -> None:
    """Written with Inspect's compression settings, a member's first write starts zstd's worker threads (native
    ones: counted in ``/proc/self/task``); inside ``one_zstd_thread`` it starts none, the member reads back the
    same, and Inspect's thread count is back after."""
    from inspect_ai._util.zipfile import zipfile_compress_kwargs

    data = json.dumps(list(range(300_000))).encode()
    started = []

    def write(path: Path) -> None:
        with zipfile.ZipFile(path, "w", **zipfile_compress_kwargs) as archive, archive.open("m.json", "w") as member:
            before = len(os.listdir("/proc/self/task"))
            member.write(data)
            started.append(len(os.listdir("/proc/self/task")) - before)

    threads = compat.private_name("_ZSTD_THREADS")
    write(tmp_path / "inspects.zip")
    with compat.one_zstd_thread():
        write(tmp_path / "one.zip")
    assert started == [threads, 0] and compat.private_name("_ZSTD_THREADS") == threads > 0
    for name in ("inspects.zip", "one.zip"):
        with zipfile.ZipFile(tmp_path / name) as archive:
            assert archive.read("m.json") == data


def test_a_log_written_sample_by_sample_reads_back_as_the_samples_and_header_given(tmp_path: Path) -> None:
    """rescore's reading and writing: each sample member validated by ``parse_sample`` is ``read_eval_log``'s sample;
    written one at a time by ``LogWriter`` (batches of 7 here: the buffered samples are written into the temporary
    file by the recorder's ``write_buffered_samples``) and finished with a header whose ``eval`` differs from the one
    the writer started with (a re-score's scorers do), the log reads back with those samples and the finishing
    header."""
    from inspect_ai.log import read_eval_log, write_eval_log

    source = ROOT / "tests" / "baseline" / "discourse_markers.eval"
    whole = {(s.id, s.epoch): s for s in read_eval_log(str(source)).samples or []}
    header = read_eval_log(str(source), header_only=True)
    with zipfile.ZipFile(source) as archive:
        parsed = [compat.parse_sample(json.loads(archive.read(info))) for info in sample_members(archive)]
    assert {(s.id, s.epoch): s for s in parsed} == whole and len(parsed) == len(whole) > 0
    finished = header.model_copy(deep=True)
    finished.eval.metadata = {**(finished.eval.metadata or {}), "finished": "with another eval"}
    path = str(tmp_path / "written.eval")

    async def write() -> None:
        writer = await compat.LogWriter(path, header).start()
        for sample in parsed:
            await writer.write(sample)
        await writer.finish(finished)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compat.LogWriter, "SAMPLES_PER_WRITE", 7)
        compat.run_coroutine(write())
    back = read_eval_log(path)
    assert back.eval == finished.eval and back.eval != header.eval
    assert back.results == finished.results and back.status == "success" and back.plan == header.plan
    assert {(s.id, s.epoch): s for s in back.samples or []} == whole
    with zipfile.ZipFile(path) as archive:  # one summary journal entry per batch of 7, the last batch at the finish
        journal = [name for name in archive.namelist() if name.startswith("_journal/summaries/")]
        summaries = archive.read("summaries.json")
        assert archive.namelist().count("summaries.json") == 1
    assert len(journal) == -(-len(parsed) // 7)
    # summaries.json, written from the journal entries, is the one Inspect's writer gives the same samples in the
    # same order (the recorder kept none of them)
    inspects = str(tmp_path / "inspects.eval")
    write_eval_log(back.model_copy(update={"samples": parsed}), inspects)
    with zipfile.ZipFile(inspects) as archive:
        assert summaries == archive.read("summaries.json") and len(json.loads(summaries)) == len(parsed)


@pytest.mark.parametrize("task", ["discourse_relations", "dialogue_parsing", "sentence_ordering"])
def test_score_results_are_score_asyncs_over_the_scores_kept(task: str) -> None:
    """``score_results`` over the scores each sample got, with the header of a log re-scored in two passes of a few
    samples, gives the results and reductions (NaN metrics included) of ``score_async`` over the whole log."""
    from inspect_ai import score_async
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import SampleScore

    from bediscover_inspect.gate.rescore import _scorers_of

    log = read_eval_log(str(ROOT / "tests" / "baseline" / f"{task}.eval"))
    samples = list(log.samples or [])
    scorers = _scorers_of(log)

    async def passes() -> tuple[Any, Any]:
        whole = await score_async(log, scorers, action="overwrite", model="mockllm/model", display="none")
        half = len(samples) // 2
        kept: list[dict[str, Any]] = []
        for part in (samples[:half], samples[half:]):
            scored = await score_async(
                log.model_copy(update={"samples": part}),
                scorers,
                action="overwrite",
                model="mockllm/model",
                display="none",
            )
            kept += [
                {
                    k: SampleScore(score=v, sample_id=s.id, sample_metadata=s.metadata, scorer=k)
                    for k, v in s.scores.items()
                }
                for s in scored.samples or []
            ]
        header = scored.model_copy(update={"samples": None})
        header.results.total_samples = len(samples)
        return whole, compat.score_results(header, scorers, kept, sum(s.error is None for s in samples))

    whole, (results, reductions) = compat.run_coroutine(passes())
    assert results.model_dump_json() == whole.results.model_dump_json() and results.scores
    assert json.dumps([r.model_dump() for r in reductions or []]) == json.dumps(
        [r.model_dump() for r in whole.reductions or []]
    )


def test_a_local_listing_is_list_eval_logs_without_reading_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``local_log_files`` lists what ``list_eval_logs`` lists, in its order (newest first), for logs named the
    Inspect way and not (a name Inspect cannot parse makes ``list_eval_logs`` read that log's header), and reads no
    header itself."""
    import os

    from inspect_ai.log import list_eval_logs

    source = ROOT / "tests" / "baseline" / "discourse_markers.eval"
    names = ["2025-01-02T03-04-05+00-00_discourse-markers_abc.eval", "sub/markers_off_0.eval", "markers_on_1.eval"]
    for k, name in enumerate(names):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(source, tmp_path / name)
        os.utime(tmp_path / name, (1_700_000_000 + 10 * k, 1_700_000_000 + 10 * k))
    (tmp_path / "notes.json").write_text("{}")  # not a log name: left out by both
    expected = [info.name for info in list_eval_logs(str(tmp_path), recursive=True)]
    assert [Path(name).name for name in expected] == ["markers_on_1.eval", "markers_off_0.eval", names[0]]

    inspect_file = importlib.import_module(compat.PRIVATE_NAMES["_list_log_files"][0])  # its header fallback

    def no_header(*args: object, **kwargs: object) -> None:
        raise AssertionError("a header was read")

    monkeypatch.setattr(inspect_file, "read_eval_log_async", no_header)
    assert [info.name for info in compat.local_log_files(str(tmp_path))] == expected
