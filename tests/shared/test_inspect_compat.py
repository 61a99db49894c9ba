"""The private Inspect names behind ``_inspect_compat``: each one still where Inspect keeps it, and none used elsewhere.

An Inspect upgrade that moves or removes one fails here, naming it and what the project uses it for.
"""

from __future__ import annotations

import contextvars
import importlib
import inspect
import re
from pathlib import Path

import pytest

from bediscover_inspect import _inspect_compat as compat

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
