"""Peak memory of reading scan files at and beyond the budgets (wojdb/core/budgets.py).

Usage: .venv/bin/python bench/budget_bench.py
Each file is read in a fresh interpreter, page by page as `import_scans` reads it (each page
then identified, which fails on these blank pages); the figure is its peak resident memory
(ru_maxrss), the interpreter and its libraries included. The files are those of
tests/core/test_budgets.py, small on disk and enormous decoded.
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.core.test_budgets import (  # noqa: E402
    READ_PAGES,
    measured,
    write_pdf,
    write_png,
    write_tiff,
)
from wojdb.core.budgets import Budgets  # noqa: E402

BASELINE = "import resource\nfrom wojdb.core.paper import scanning\n" + READ_PAGES.splitlines()[-1]


def main() -> None:
    side = int(Budgets().page_pixels ** 0.5)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        cases = [
            ("the libraries alone", None),
            (
                f"PNG {side:,} × {side:,} colour (at the budget)",
                write_png(tmp / "a.png", side, side, True),
            ),
            ("PNG 30,000 × 30,000 (refused)", write_png(tmp / "b.png", 30_000, 30_000)),
            ("PDF, one 14,400 pt page", write_pdf(tmp / "c.pdf", 14_400)),
            ("TIFF, 150 frames of 2,000 × 2,000", write_tiff(tmp / "d.tif", 2_000, 2_000, 150)),
        ]
        print(f"{'file':42} {'on disk':>10} {'peak MB':>8} {'seconds':>8}")
        for name, path in cases:
            start = time.perf_counter()
            if path is None:
                _, peak = measured(BASELINE)
                size = "-"
            else:
                _, peak = measured(READ_PAGES, path, "read")
                size = f"{path.stat().st_size:,}"
            print(f"{name:42} {size:>10} {peak:>8} {time.perf_counter() - start:>8.1f}")


if __name__ == "__main__":
    main()
