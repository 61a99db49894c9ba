"""The README's task, parameter and measure tables are what ``scripts/readme_tables.py`` writes from the code."""

from __future__ import annotations

import importlib.util

from tests.conftest import REPO_ROOT

_SPEC = importlib.util.spec_from_file_location("readme_tables", REPO_ROOT / "scripts" / "readme_tables.py")
assert _SPEC is not None and _SPEC.loader is not None
readme_tables = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(readme_tables)


def test_readme_tables_are_fresh() -> None:
    """A task parameter, shared parameter or catalog measure added or changed without regenerating fails here."""
    stale = readme_tables.stale_tables((REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    assert stale == [], f"stale README tables {stale}: run python scripts/readme_tables.py"


def test_a_changed_measure_makes_the_table_stale() -> None:
    text = readme_tables.regenerate((REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme_tables.stale_tables(text) == []
    edited = text.replace("| `pmr` | Pmr |", "| `pmr` | PMR |")
    assert edited != text and readme_tables.stale_tables(edited) == ["measures"]


def test_rows_come_from_the_code() -> None:
    """A row read by hand from the code: sentence ordering's datasets and paper sections, the ``subset`` default."""
    row = next(line for line in readme_tables.tasks_table().splitlines() if line.startswith("| `sentence_ordering`"))
    assert "`nips-abs`" in row and "§6.1, Table 5, Appendix B.4, Tables 32–38" in row and "`dataset=all`" in row
    assert "| `subset` | `paper` |" in readme_tables.parameters_table()
    assert readme_tables.markdown("``x`` :func:`a.b.c` |") == "`x` `c` \\|"
