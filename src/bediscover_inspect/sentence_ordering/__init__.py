"""Task (4) sentence ordering (paper §6.1, Table 5, Tables 32–38, Appendix B.4)."""

from .task import sentence_ordering

__all__ = ["sentence_ordering"]
