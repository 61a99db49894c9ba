"""The guide for adding a dataset or a measure names only files and code that exist, so a rename cannot leave it
pointing nowhere."""

from __future__ import annotations

import importlib
import re

import pytest

from bediscover_inspect.tasks import TASK_NAMES
from tests.conftest import REPO_ROOT

GUIDE = REPO_ROOT / "docs" / "adding_a_dataset_or_a_measure.md"
PACKAGE = REPO_ROOT / "src" / "bediscover_inspect"


def _names() -> list[str]:
    return sorted(set(re.findall(r"`([^`\n]+)`", GUIDE.read_text(encoding="utf-8"))))


def _defined(name: str, source: str) -> bool:
    return re.search(rf"^\s*(?:def |class )?{re.escape(name)}\b\s*[(:=]", source, flags=re.M) is not None


def missing_in_guide() -> list[str]:
    """Each backticked path that is no file (``<task>`` standing for every task), dotted ``module.name`` that does
    not import, and code name (with ``_``, capitals) that ``src/`` does not define."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py"))
    missing = []
    for name in _names():
        if re.fullmatch(r"[\w<>./]+\.(py|csv|md)|[\w<>./]+/", name):
            paths = [name.replace("<task>", task) for task in TASK_NAMES] if "<task>" in name else [name]
            if not all((REPO_ROOT / p).exists() or (PACKAGE / p).exists() for p in paths):
                missing.append(name)
        elif re.fullmatch(r"[a-z_]+(\.[A-Za-z_]+)+", name):
            module, _, attribute = name.removeprefix("bediscover_inspect.").rpartition(".")
            try:
                getattr(importlib.import_module(f"bediscover_inspect.{module}"), attribute)
            except (ImportError, AttributeError):
                missing.append(name)
        elif re.fullmatch(r"\w+", name) and re.search(r"[A-Z_]", name) and not _defined(name, source):
            missing.append(name)
    return missing


def test_the_guide_names_only_what_exists() -> None:
    assert missing_in_guide() == []


def test_a_stale_name_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The function the guide once named, and a file that does not exist, are reported."""
    names = ["messages.prompt_messages", "<task>/solver.py", "prompt_messages", "messages.system_prompt"]
    monkeypatch.setattr(f"{__name__}._names", lambda: names)
    assert missing_in_guide() == ["messages.prompt_messages", "<task>/solver.py", "prompt_messages"]
