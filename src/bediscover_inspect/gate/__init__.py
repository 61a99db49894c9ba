"""The regression gate: paired comparison of two log sets and re-scoring of logs, one module per job.

* :mod:`.pairing` — reading two sides (log directories or files) and pairing their runs and samples;
* :mod:`.paired_stats` — the paired tests, Holm's correction and the power of the tests;
* :mod:`.compare` — the cells, their tests and the verdicts (``bediscover compare``);
* :mod:`.compare_output` — terminal table, markdown, JSON, plot and the command line of ``compare``;
* :mod:`.rescore` — re-scoring logs with the current scorers (``bediscover rescore``).

The gate reads logs through :mod:`bediscover_inspect.evallogs.scores`; ``report`` never imports the gate. See
``docs/regression_testing.md``.
"""
