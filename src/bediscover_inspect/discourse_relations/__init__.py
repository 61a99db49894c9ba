"""Task (3) discourse relation recognition on DISRPT 2025 (paper §5.2, Tables 4 and 27–31, Appendix B.3)."""

from .task import discourse_relations

__all__ = ["discourse_relations"]
