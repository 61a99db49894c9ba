"""What a ``bediscover run`` will run (:mod:`.spec`), and ``bediscover plan``: its samples, model calls, prompt
tokens, output ceiling, cost and what a resume skips, counted before it runs (:mod:`.core`, :mod:`.count`,
:mod:`.tokenizers`, :mod:`.cost`, :mod:`.render`); the paper's tables as runs are
:mod:`bediscover_inspect.report.table_runs`."""
