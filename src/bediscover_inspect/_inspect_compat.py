"""The one place the suite uses names Inspect does not export (checked against inspect-ai 0.3.285)."""

from __future__ import annotations

from inspect_ai._eval.evalset import eval_set_id_for_log_dir

__all__ = ["eval_set_id_for_log_dir"]
"""``eval_set_id_for_log_dir(log_dir)``: the eval set id kept in ``log_dir`` (``.eval-set-id``), written with a new
one when absent; :mod:`bediscover_inspect.workers` fixes it before its worker processes start."""
