"""The README's measures section explains every number a researcher sees: each catalog measure (its generated
table) and each ``Score.value`` key of every scorer."""

from __future__ import annotations

import re

from bediscover_inspect.dialogue_parsing.scorer import COUNT_KEYS
from bediscover_inspect.measures import CATALOG
from tests.conftest import REPO_ROOT


def _explained() -> set[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Measures", 1)[1].split("\n#", 1)[0]
    assert "\n| `" in section, "README.md's measures section has no table"
    return set(re.findall(r"`([a-z_0-9]+)`", section))


def test_the_readme_explains_every_measure_and_score_value_key():
    sentence_ordering_values = {"pmr", "acc", "lcs", "skip", "kendall_tau", "lumr", "invalid", "other_format"}
    sentence_ordering_values |= {"echo", "output_tokens", "reasoning_tokens", "n_sentences"}
    label_values = {"accuracy", "invalid", "ambiguous", "echo", "output_tokens", "reasoning_tokens"}
    label_values |= {"cut_off", "reasoning_only"}
    dialogue_values = set(COUNT_KEYS) | {"link_f1", "full_f1"}
    missing = (set(CATALOG) | sentence_ordering_values | label_values | dialogue_values) - _explained()
    assert not missing, f"README.md's measures section does not explain {sorted(missing)}"
