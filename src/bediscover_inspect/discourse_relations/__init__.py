"""Task (3) discourse relation recognition on DISRPT 2025 (paper §5.2, Tables 4 and 27–31, Appendix B.3)."""
