"""Columns for :func:`inspect_ai.analysis.evals_df` that Inspect's defaults do not have: the seed of each eval.

    from inspect_ai.analysis import EvalColumns, evals_df
    from bediscover_inspect.analysis import EvalSeed

    df = evals_df("logs/qwen3-8b", columns=EvalColumns + EvalSeed)   # a column "seed": 0, 1, 42 …

The paper reports mean ± std over seeds 0, 1 and 42 (§3), so the seed tells the rows of one setting apart.
``bediscover run`` gives each eval its seed in the task's generate config (``plan.config.seed``), which Inspect's
default columns do not show (``model_generate_config`` holds only what was set on the model, ``{}`` there);
``inspect eval --seed N`` records it in both places.
:func:`~bediscover_inspect.evallogs.scores.eval_seed` reads whichever is set.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.analysis import EvalColumn

from bediscover_inspect.evallogs.scores import eval_seed

EvalSeed: list[Any] = [EvalColumn("seed", path=eval_seed)]
"""The ``seed`` column (:func:`~bediscover_inspect.evallogs.scores.eval_seed`), to add to Inspect's ``EvalColumns``."""
