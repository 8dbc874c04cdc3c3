"""Pure readers for WMT's test-set layouts: plain text, mt-metrics-eval, WMT XML and SGML.

Each layout has `detect(root) -> bool` and `read(root, Selection) -> Found`; `find` picks the
one that fits a folder and says which, or lists what it saw. Readers raise
`wojdb.core.io.InputError` naming file, line and field; they never touch the database.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from wojdb.core.formats import mtme, plaintext, wmtxml
from wojdb.core.formats.common import Found, Selection, TestSetText
from wojdb.core.io import InputError, input_files

__all__ = ["LAYOUTS", "Found", "Selection", "TestSetText", "find"]

# Most specific first: an mt-metrics-eval tree may also hold .xml or .sgm files.
LAYOUTS = [
    (mtme.NAME, mtme.detect, mtme.read),
    (wmtxml.XML, wmtxml.detect_xml, wmtxml.read_xml),
    (plaintext.NAME, plaintext.detect, plaintext.read),
    (wmtxml.SGML, wmtxml.detect_sgml, wmtxml.read_sgml),
]


def find(root: Path, selection: Selection) -> Found:
    """The test sets of the first layout that fits `root`."""
    if not root.is_dir():
        raise InputError(root, "is not a directory")
    input_files(root)  # a subfolder that cannot be listed is named before any layout looks in
    for _, detect, read in LAYOUTS:
        if detect(root):
            found = read(root, selection)
            if not found.test_sets and not found.skipped:
                raise InputError(root, f"{found.layout} layout, but no test set with system "
                                 "outputs matches the selection")  # fmt: skip
            seen = {ts.lp for ts in found.test_sets} | {s.split(":")[0] for s in found.skipped}
            if missing := sorted((selection.lps or set()) - seen):
                raise InputError(root, f"no test set for language pair(s) {', '.join(missing)}",
                                 field="--lp")  # fmt: skip
            return found
    raise InputError(root, "no known layout here (" + "; ".join(
        name for name, _, _ in LAYOUTS) + "); it holds: " + _summary(root))  # fmt: skip


def _summary(root: Path) -> str:
    """What a folder holds, by extension, for an error that says what was seen instead."""
    counts = Counter(p.suffix or p.name for p in input_files(root))
    if not counts:
        return "no files"
    return ", ".join(f"{n} {ext}" for ext, n in counts.most_common(8))
