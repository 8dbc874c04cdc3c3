"""Resource budgets of file inputs: no input file can exhaust the machine's memory.

A scanned page (an image, a frame of a TIFF, a PDF page as rasterised) has at most
`page_pixels`; a scan file at most `scan_bytes`; each file of a release at most
`release_file_bytes`; a study file at most `study_file_bytes`; every other input file
(wojdb.core.io.open_input) at most `input_bytes`, a gzip-compressed one unpacked too.
A larger input is refused, naming the file, its size and the environment variable that raises
the budget. With these defaults reading one scan, page, TIFF or release file stays under 500 MB
(tests/core/test_budgets.py measures it); bench/budget_bench.py measures the other inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wojdb.environment import Environment

#: How many of a message's listed problems or names it shows; the rest are counted. Every
#: entry of 50,000 unmatched exclusions made an error message of 1,000,245 bytes.
MESSAGE_ITEMS = 5

#: The variable that sets each budget, and the budget's upper bound: a page of 150 Mpx in colour
#: is read within 350 MB (bench/budget_bench.py).
VARIABLES = {
    "page_pixels": ("WOJDB_MAX_PAGE_PIXELS", 150_000_000),
    "scan_bytes": ("WOJDB_MAX_SCAN_BYTES", None),
    "release_file_bytes": ("WOJDB_MAX_RELEASE_FILE_BYTES", None),
    "input_bytes": ("WOJDB_MAX_INPUT_BYTES", None),
    "study_file_bytes": ("WOJDB_MAX_STUDY_FILE_BYTES", None),
}


@dataclass(frozen=True)
class Budgets:
    # A4 or US legal at 600 dpi is 35 or 43 Mpx; A3 at 600 dpi (70 Mpx) needs a larger budget.
    page_pixels: int = 50_000_000
    # A 300-page PDF of grey scans at 300 dpi is about 250 MB.
    scan_bytes: int = 1024**3
    # A ratings.csv holds about 120 bytes a rating: 140,000 ratings (2,800 participants of 50
    # pairs). Validating a release takes about 15 times its largest file, on 170 MB of code.
    release_file_bytes: int = 16 * 1024**2
    # Every other input file (test sets, judgments, scores, study files, parses, alignments):
    # the largest WMT files are WMT22's DA judgments into English (8 MB) and WMT21's (3.3 MB).
    # Reading one takes up to 15 times its size (bench/budget_bench.py).
    input_bytes: int = 64 * 1024**2
    # A study file is written by hand (the French demo's is 11 KB), and parsing TOML takes some
    # 50 times a file's size.
    study_file_bytes: int = 1024**2

    def variable(self, name: str) -> str:
        return VARIABLES[name][0]


def current(variables=None) -> Budgets:
    """The budgets of this process: the defaults, replaced by the environment's variables
    (each checked: a bad value is a SettingsError naming the variable)."""
    env, default = Environment(variables), Budgets()
    return Budgets(
        **{
            name: env.integer(variable, getattr(default, name), minimum=1, maximum=maximum)
            for name, (variable, maximum) in VARIABLES.items()
        }
    )


def first_few(items: Sequence[str], joiner: str = ", ") -> str:
    """The first `MESSAGE_ITEMS` of `items` joined, and how many more there are."""
    shown = joiner.join(items[:MESSAGE_ITEMS])
    more = len(items) - MESSAGE_ITEMS
    return shown + (f"{joiner}… and {more:,} more" if more > 0 else "")
