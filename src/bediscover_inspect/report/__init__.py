"""Reports rebuilt from Inspect logs: paper-style tables, plots, and the paper's reported numbers."""

from bediscover_inspect.report.paper import load_paper_results

__all__ = ["load_paper_results"]
