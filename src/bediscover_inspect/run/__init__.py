"""``bediscover run`` against servers that misbehave: the run's bounds (:mod:`.options`), the endpoint check
(:mod:`.endpoint`), the log-directory lock (:mod:`.lock`), the stop of a run whose server went down (:mod:`.down`),
the closing summary of failures (:mod:`.failures`), all put together by :mod:`.guard`.

This package's ``__init__`` is empty on purpose: the console script (:mod:`bediscover_inspect.entry`) imports
:mod:`.interrupts` through it, and whatever it imported would run before the script can answer a Ctrl-C with its
one line.
"""
