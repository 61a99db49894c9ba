"""Reports rebuilt from Inspect logs (read through :mod:`bediscover_inspect.evallogs`), one module per job.

* :mod:`.aggregate` — mean ± std over seeds and the 95 % interval; coverage warnings;
* :mod:`.paper` / :mod:`.matching` — the paper's numbers (``paper_results.csv``) and matching our cells to them;
* :mod:`.table_runs` — the paper's tables as runs (``bediscover run --table N``); :mod:`.paper_table` — one paper
  table in its own layout (``bediscover report --table N``);
* :mod:`.render` — paper-style tables; :mod:`.classes` — per-class scores and confusion matrices;
* :mod:`.setting` — what a run does differently from the paper's setting (the ``differs`` column);
* :mod:`.plots` — score against output tokens (the paper's tok.); :mod:`.build` — ``bediscover report``.

The regression gate (``bediscover compare`` / ``rescore``) is :mod:`bediscover_inspect.gate`.
"""

from bediscover_inspect.report.paper import load_paper_results

__all__ = ["load_paper_results"]
