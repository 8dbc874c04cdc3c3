"""Numbers and plain-text tables as the report prints them."""

from __future__ import annotations

from collections.abc import Sequence

#: Spaces between two columns of a text table: cells never run together, whatever their width.
GAP = 2


def fixed(value: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, without the sign of a value that rounds to zero."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def text_table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Rows of cells (the first row may be a heading) as aligned lines.

    The first column is left-aligned, the others right-aligned; each is as wide as its widest
    cell and separated from the next by :data:`GAP` spaces, so a cell of any width stays apart
    from its neighbours.
    """
    if not rows:
        return []
    columns = max(len(row) for row in rows)
    cells = [[*row, *[""] * (columns - len(row))] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(columns)]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append((indent + (" " * GAP).join(parts)).rstrip())
    return lines
