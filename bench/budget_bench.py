"""Peak memory of reading input files at and beyond the budgets (wojdb/core/budgets.py).

Usage: .venv/bin/python bench/budget_bench.py
Each file is read in a fresh interpreter; the figure is its peak resident memory (VmHWM), the
interpreter and its libraries included. Scan files are read page by page as `import_scans`
reads them (each page then identified, which fails on these blank pages); they are those of
tests/core/test_budgets.py, small on disk and enormous decoded. Other input files are written
here as large as the input budget allows (WOJDB_MAX_INPUT_BYTES; a study file 1 MiB), every row
distinct, and read by the reader of their command.

Then inputs whose shape costs time or memory, each checked as the command checks it: a study
file of 73 KB whose information sheet names a data_use of 40 KB 3,000 times (refused; and what
filling it costs, which each visit to the study link did); a 5 KB study file whose text holds a
line of `[` and 5,000 spaces (its keys found; the earlier pattern shown on 1,000 spaces, it took
147 s on 5,000); 50,000 `[pool] exclude` entries (1 MB) against 1,712 triples (a WMT slice's
16 corpora), and the error naming those that match nothing; lists nested 2,000 deep (refused);
a gzip file unpacking to one byte over the input budget (refused).
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


#: How each shape is checked, as its command checks it; prints what happened, then the peak.
CHECK_SHAPE = """
import re, sys, time
from pathlib import Path
from types import SimpleNamespace
from wojdb.core import texts
from wojdb.core.design.pool import Candidate, CorpusName, left_out, unmatched_exclusions
from wojdb.core.io import InputError, read_lines
from wojdb.core.study_file import StudyFileError, Text, read
path, kind = Path(sys.argv[1]), sys.argv[2]
KEYS = {"name": Text(200), "information_sheet": Text(100_000), "data_use": Text(100_000)}
start = time.perf_counter()
try:
    if kind in ("amplified", "fill"):
        values = {name: "" for name in texts.PLACEHOLDERS} | {"name": "S", "project_title": ""}
        study = SimpleNamespace(**values | read(path, KEYS, []).fields)
        if kind == "amplified":
            problems = texts.problems(study)
            print("refused:" if problems else "kept:", *problems.items())
        else:
            print("filled:", f"{len(texts.fill(study.information_sheet, study)):,} characters")
    elif kind == "bracket":
        print("read:", len(read(path, KEYS, []).lines), "keys found on their lines")
    elif kind == "old pattern":
        old = re.compile(r"^\\s*(\\[\\[?)\\s*([^\\]]+?)\\s*\\]\\]?\\s*(?:#.*)?$")
        print("matches:", sum(bool(old.match(line)) for line in path.read_text().splitlines()))
    elif kind == "exclusions":
        rule = read(path, {}, []).pool_rule()
        names = [CorpusName("newstest2021", f"l{n // 4}-en", f"S{n % 4}") for n in range(16)]
        triples = [Candidate((c, n), c, n, "d", "en", "A.", "A.", 1, 1, 1)
                   for c in names for n in range(1, 108)]
        excluded = sum(left_out(c, rule) is not None for c in triples)
        from wojdb.core.budgets import first_few
        unmatched = unmatched_exclusions(rule, triples)
        message = first_few([x.describe() for x in unmatched]) + " match no triple"
        print("refused:", f"{excluded:,} triples excluded, {len(unmatched):,} exclusions "
              f"matching none: a message of {len(message)} bytes")
    elif kind == "nesting":
        read(path, {}, [])
        print("read")
    elif kind == "gzip":
        read_lines(path)
        print("read")
except (StudyFileError, InputError) as e:
    print("refused:", e.problem)
print(f"seconds {time.perf_counter() - start:.3f}")
hwm = [f for f in open("/proc/self/status") if f.startswith("VmHWM:")]
print("peak", int(hwm[0].split()[1]) // 1024)
"""


def shapes(folder: Path) -> list[tuple[str, Path, str]]:
    import gzip

    import tomli_w

    amplified = folder / "amplified.toml"
    amplified.write_text(tomli_w.dumps({
        "information_sheet": "## Data\n" + "{data_use} " * 3_000, "data_use": "x" * 40_000,
    }))  # fmt: skip
    bracket = folder / "bracket.toml"
    bracket.write_text('name = "S"\ninformation_sheet = """\n[' + " " * 5_000 + '\n"""\n')
    older = folder / "bracket-1000.toml"
    older.write_text('name = "S"\ninformation_sheet = """\n[' + " " * 1_000 + '\n"""\n')
    exclusions = folder / "exclusions.toml"
    exclusions.write_text(
        "[pool]\nexclude = [\n"
        + "".join(f"  {{segment = {n}}},\n" for n in range(1, 50_001))
        + "]\n"
    )
    nesting = folder / "nesting.toml"
    nesting.write_text("[pool]\nexclude = " + "[" * 2_000 + "]" * 2_000 + "\n")
    bomb = folder / "hyp.en.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        for _ in range(64):
            out.write(bytes(1024**2))
        out.write(b"\n")
    return [
        ("texts 3,000 × {data_use} of 40 KB", amplified, "amplified"),
        ("  the same filled (a visit, before)", amplified, "fill"),
        ("`[` and 5,000 spaces in a text", bracket, "bracket"),
        ("  earlier pattern, 1,000 spaces", older, "old pattern"),
        ("50,000 [pool] exclude entries", exclusions, "exclusions"),
        ("lists nested 2,000 deep", nesting, "nesting"),
        ("gzip unpacking to 64 MiB + 1 byte", bomb, "gzip"),
    ]


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
        print("\ninputs whose shape costs time or memory, each checked as its command does:")
        print(f"{'input':36} {'on disk':>9} {'peak MB':>8} {'seconds':>8}  outcome")
        for name, path, kind in shapes(tmp):
            (outcome, seconds), peak = measured(CHECK_SHAPE, path, kind)
            shown = outcome if len(outcome) <= 90 else outcome[:89] + "…"
            size = f"{path.stat().st_size:,}"
            print(f"{name:36} {size:>9} {peak:>8} {float(seconds.split()[1]):>8.3f}  {shown}")


if __name__ == "__main__":
    import argparse

    # No options: --help prints what the benchmark measures.
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()
