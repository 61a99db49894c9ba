"""Five-task log sets for the gate's tests, written through ``inspect_ai.log``: each task's committed baseline log
(``tests/baseline/``: its eval header, scorers and sample metadata) with its samples replaced by ``per_dataset``
copies per dataset whose scores follow a rule, so any sample count and any planted change is cheap to make.

A sample's score is one of three qualities, written as the task's scorer writes its value dict:

* ``right``: the gold answer (every measure at its best);
* ``wrong``: an answer off the gold (label tasks: the next label; sentence ordering: a partly right order;
  dialogue parsing: half the links, a third of the labelled relations);
* ``invalid``: nothing read (accuracy 0, invalid 1; an empty order; no relation for any turn).

The baseline rule (:func:`baseline_quality`) answers about three samples in four right. The logs' headers keep the
committed results (the gate reads samples only).
"""

from __future__ import annotations

import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSample, read_eval_log, write_eval_log
from inspect_ai.scorer import Score

from bediscover_inspect.tasks import TASK_NAMES

BASELINE = Path(__file__).resolve().parents[1] / "baseline"

Quality = Callable[[str, str, int], str]
"""(task, dataset, index within the dataset) -> ``right``, ``wrong`` or ``invalid``."""


def baseline_quality(task: str, dataset: str, index: int) -> str:
    """About three samples in four right, fixed by the sample."""
    return "wrong" if zlib.crc32(f"{task}/{dataset}/{index}".encode()) % 4 == 0 else "right"


def _label_value(quality: str, gold: str, labels: list[str], template: dict[str, float]) -> tuple[dict, str]:
    answer = {"right": gold, "wrong": labels[(labels.index(gold) + 1) % len(labels)], "invalid": "<invalid>"}[quality]
    value = dict(template) | {
        "accuracy": float(quality == "right"),
        "invalid": float(quality == "invalid"),
        "ambiguous": 0.0,
    }
    return value, answer


def _ordering_value(quality: str, template: dict[str, float]) -> dict[str, float]:
    best = {"pmr": 1.0, "acc": 1.0, "lcs": 1.0, "skip": 1.0, "kendall_tau": 1.0, "lumr": 0.0, "invalid": 0.0}
    partial = {"pmr": 0.0, "acc": 3 / 7, "lcs": 4 / 7, "skip": 0.6, "kendall_tau": 0.4, "lumr": 0.0, "invalid": 0.0}
    nothing = {"pmr": 0.0, "acc": 0.0, "lcs": 0.0, "skip": 0.0, "kendall_tau": 0.0, "lumr": 1.0, "invalid": 1.0}
    return dict(template) | {"right": best, "wrong": partial, "invalid": nothing}[quality]


def _dialogue_value(quality: str, template: dict[str, float]) -> dict[str, float]:
    gold = template["link_gold"]
    links, full = {"right": (gold, gold), "wrong": (gold // 2, gold // 3), "invalid": (0.0, 0.0)}[quality]
    predicted = 0.0 if quality == "invalid" else gold
    return dict(template) | {
        "link_tp": links,
        "link_pred": predicted,
        "link_gold": gold,
        "full_tp": full,
        "full_pred": predicted,
        "full_gold": gold,
        "relations_read": predicted,
        "relations_invalid": 0.0,
        "no_relation": template["turns"] if quality == "invalid" else 0.0,
        "link_f1": 2 * links / (predicted + gold),
        "full_f1": 2 * full / (predicted + gold),
    }


def _sample(task: str, template: EvalSample, index: int, gold: str, labels: list[str], quality: str) -> EvalSample:
    dataset = template.metadata["dataset"]
    # a shallow copy: the samples of a dataset share the template's input, messages and output, which no test
    # edits in place (a deep copy of each is most of the time a log of thousands of samples takes to build)
    sample = template.model_copy(update={"metadata": dict(template.metadata)})
    sample.id = f"{dataset}_{index:04d}"
    scores = {}
    for name, score in (template.scores or {}).items():
        base = dict(score.value)  # type: ignore[arg-type]
        if task == "sentence_ordering":
            value, answer = _ordering_value(quality, base), score.answer
        elif task == "dialogue_parsing":
            value, answer = _dialogue_value(quality, base), score.answer
        else:
            value, answer = _label_value(quality, gold, labels, base)
        scores[name] = Score(value=value, answer=answer, metadata=score.metadata)
    if task not in ("sentence_ordering", "dialogue_parsing"):
        sample.metadata = dict(sample.metadata) | {"gold": gold}
        sample.target = gold
    sample.scores = scores
    return sample


def task_log(
    task: str, per_dataset: int | dict[str, int] = 12, quality: Quality = baseline_quality, seed: int | None = None
) -> EvalLog:
    """The baseline log of ``task`` with ``per_dataset`` samples per dataset (a dict: per named dataset, the
    others left out) scored by ``quality``. Label tasks cycle the gold through the golds of the committed
    baseline's samples of that scorer."""
    log = read_eval_log(str(BASELINE / f"{task}.eval"))
    templates: dict[str, EvalSample] = {}
    golds: dict[str, list[str]] = {}
    for sample in log.samples or []:
        if sample.metadata["dataset"] not in templates:  # the gate reads no transcript: leave it out
            templates[sample.metadata["dataset"]] = sample.model_copy(update={"events": [], "attachments": {}})
        scorer = next(iter(sample.scores or {}))
        golds.setdefault(scorer, [])
        if sample.metadata.get("gold") not in golds[scorer]:
            golds[scorer].append(str(sample.metadata.get("gold")))
    samples = []
    for dataset, template in templates.items():
        count = per_dataset.get(dataset, 0) if isinstance(per_dataset, dict) else per_dataset
        labels = golds[next(iter(template.scores or {}))]
        labels = labels if len(labels) > 1 else labels + ["OTHER"]
        for index in range(count):
            gold = labels[index % len(labels)]
            samples.append(_sample(task, template, index, gold, labels, quality(task, dataset, index)))
    log.samples = samples
    log.eval.dataset.sample_ids = [sample.id for sample in samples]
    log.eval.dataset.samples = len(samples)
    if seed is not None:
        log.plan.config.seed = seed
    return log


def write_suite(
    directory: Path,
    per_dataset: int | dict[str, int] = 12,
    quality: Quality = baseline_quality,
    tasks: tuple[str, ...] = tuple(TASK_NAMES),
) -> Path:
    """One log per task in ``tasks`` under ``directory`` (:func:`task_log`); returns ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        write_eval_log(task_log(task, per_dataset, quality), str(directory / f"{task}.eval"))
    return directory


def edit_logs(
    source: Path, target: Path, edit: Callable[[EvalLog], None], tasks: tuple[str, ...] | None = None
) -> Path:
    """Copy every log of ``source`` to ``target``, applying ``edit`` to those of ``tasks`` (default: all); the
    others are copied as they are."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.eval")):
        if tasks is not None and path.stem not in tasks:
            shutil.copy(path, target / path.name)
            continue
        log = read_eval_log(str(path))
        edit(log)
        write_eval_log(log, str(target / path.name))
    return target
