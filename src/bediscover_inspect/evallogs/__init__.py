"""The log layer: every read of an Inspect log the suite makes goes through here.

* :mod:`.store` — log locations (a local path or an fsspec URL such as ``s3://bucket/run``): checking, listing,
  reading headers and whole logs through one store client per event loop;
* :mod:`.results` — a log's results as rows of measures (header only);
* :mod:`.scores` — a log directory as a long table of measures, one successful log per run, and the facts of
  one log's header (task, model, setting, seed …).

``report``, the gate (``compare``, ``rescore``), ``run``'s end-of-run table, the split-by-dataset merge and the
worker processes read logs only through these modules.
"""
