"""Peak memory of reading input files at and beyond the budgets (wojdb/core/budgets.py).

Usage: .venv/bin/python bench/budget_bench.py
Each file is read in a fresh interpreter; the figure is its peak resident memory (VmHWM), the
interpreter and its libraries included. Scan files are read page by page as `import_scans`
reads them (each page then identified, which fails on these blank pages); they are those of
tests/core/test_budgets.py, small on disk and enormous decoded. Other input files are written
here as large as the input budget allows (WOJDB_MAX_INPUT_BYTES; a study file 1 MiB), every row
distinct, and read by the reader of their command.
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
from wojdb.core.formats import mqm  # noqa: E402
from wojdb.core.formats.wmt import JUDGMENT_HEADER  # noqa: E402

BASELINE = "from wojdb.core.paper import scanning\n" + "\n".join(READ_PAGES.splitlines()[-2:])
SENTENCE = (
    "The committee said on Tuesday that the rules would take effect next year, after a debate."
)
#: How each kind of input file is read, as its command reads it.
READ_INPUT = """
import sys, tomllib
from pathlib import Path
from wojdb.core.formats import judgments, mqm
from wojdb.core.io import read_input, read_lines
from wojdb.core.language.nlp import read_conllu
path, kind = Path(sys.argv[1]), sys.argv[2]
if kind == "judgments":
    rows = judgments.read_judgment_file(path)[1]
elif kind == "mqm":
    rows = mqm.read(path, "en-de")
elif kind == "conllu":
    rows = read_conllu(read_input(path).decode(), surface=True, path=path)
elif kind == "toml":
    rows = tomllib.loads(read_input(path).decode())
elif kind == "text":
    rows = read_lines(path)
else:  # the readers alone
    rows = []
print(len(rows), "rows")
hwm = [f for f in open("/proc/self/status") if f.startswith("VmHWM:")]
print("peak", int(hwm[0].split()[1]) // 1024)
"""


def filled(path: Path, size: int, header: str, row) -> Path:
    """A UTF-8 file of `header` and rows `row(1)`, `row(2)` … up to `size` bytes."""
    with open(path, "wb") as out:
        written, n = out.write(header.encode()), 0
        while written + len(line := row(n := n + 1).encode()) <= size:
            written += out.write(line)
    return path


def conllu_sentence(n: int) -> str:
    words = [*SENTENCE.rstrip(".").split(), "."]
    rows = [f"# sent_id = {n}", f"# text = {SENTENCE}"]
    for i, word in enumerate(words, start=1):
        after = "SpaceAfter=No" if i == len(words) - 1 else "_"
        rows.append(f"{i}\t{word}\t{word.lower()}\tX\t_\t_\t{int(i > 1)}\tdep\t_\t{after}")
    return "\n".join(rows) + "\n\n"


def input_files(folder: Path, size: int) -> list[tuple[str, Path, str]]:
    return [
        ("the readers alone", filled(folder / "empty", 0, "", str), "none"),
        (
            "WMT DA judgments (ad-deen-good-stnd.csv)",
            filled(
                folder / "ad-deen-good-stnd.csv",
                size,
                " ".join(JUDGMENT_HEADER) + "\n",
                lambda n: (
                    f"3ZRNT9RUIYLKCM09AB{n:012d}\tM0427\tde\ten\tad\t4\tUF.15\t1002228"
                    f"\tSYSTEM\t{n % 1000 + 1}\t0.625103240677373\t1349.0\n"
                ),
            ),  # fmt: skip
            "judgments",
        ),
        (
            "MQM errors (mqm_….tsv)",
            filled(
                folder / "mqm_generalMT2022_ende.tsv",
                size,
                "\t".join(mqm.HEADER) + "\n",
                lambda n: (
                    f"Online-A\tdoc{n % 100}\t{n % 100 + 1}\t{n}\trater1\t{SENTENCE}\t"
                    "Der Ausschuss <v>sagte</v> am Dienstag.\tAccuracy/Mistranslation\tMinor\n"
                ),
            ),  # fmt: skip
            "mqm",
        ),
        (
            "system output (plain text)",
            filled(folder / "hyp.txt", size, "", lambda n: f"{SENTENCE} {n}\n"),
            "text",
        ),
        ("CoNLL-U parses", filled(folder / "p.conllu", size, "", conllu_sentence), "conllu"),
        (
            "study file (TOML)",
            filled(folder / "s.toml", Budgets().study_file_bytes, "", lambda n: f"k{n} = [1, 2]\n"),
            "toml",
        ),
    ]


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
            ("PNG 20,000 × 10,000 (refused)", write_png(tmp / "e.png", 20_000, 10_000)),
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
        budget = Budgets().input_bytes
        print(f"\ninput files at the input budget ({budget:,} bytes):")
        print(f"{'file':42} {'on disk':>12} {'rows':>9} {'peak MB':>8} {'seconds':>8}")
        for name, path, kind in input_files(tmp, budget):
            start = time.perf_counter()
            (rows,), peak = measured(READ_INPUT, path, kind)
            size = f"{path.stat().st_size:,}"
            seconds = time.perf_counter() - start
            print(f"{name:42} {size:>12} {rows.split()[0]:>9} {peak:>8} {seconds:>8.1f}")
            path.unlink()


if __name__ == "__main__":
    import argparse

    # No options: --help prints what the benchmark measures.
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()
