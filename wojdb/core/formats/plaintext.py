"""The WMT plain-text layout (WMT14-23 `txt/` folders), anywhere below a folder.

`newstestYYYY.LP.src.XX`, `newstestYYYY.LP.ref.NAME.YY`, `newstestYYYY.LP.hyp.SYSTEM.YY`
(any test-set name ending in its year: `generaltest2022`), and optionally the document of each
line in `newstestYYYY.LP.docids` (one id a line) or `newstestYYYY.LP.docs` (`DOMAIN DOCID`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from wojdb.core.formats.common import (
    Found,
    Selection,
    TestSetText,
    check_aligned,
    choose_reference,
    pair,
    ref_name,
)
from wojdb.core.io import InputError, check_length, input_files, read_lines

NAME = "WMT plain text"
TEXT_FILE = re.compile(
    r"^(?P<testset>[a-z]+(?P<year>\d{4}))\.(?P<src>[a-z]{2,3})-(?P<tgt>[a-z]{2,3})\."
    r"(?:src\.(?P=src)|ref\.(?P<ref>[^.]+)\.(?P=tgt)|hyp\.(?P<system>.+)\.(?P=tgt)"
    r"|(?P<docs>docids|docs))$",
    re.ASCII,  # a year in ASCII digits: \d also takes "٢"
)


def _files(root: Path) -> list[Path]:
    return [p for p in input_files(root) if not p.name.startswith(".")]


def detect(root: Path) -> bool:
    return any(TEXT_FILE.match(p.name) and ".hyp." in p.name for p in _files(root))


def read_documents(path: Path, lines: int) -> tuple[list[str], list[str]]:
    """Document id (and domain, for `.docs`) of each line."""
    rows = read_lines(path)
    check_aligned(rows, lines, path, "document ids")
    documents, domains = [], []
    for no, row in enumerate(rows, start=1):
        cols = row.split()
        if path.suffix == ".docids" and len(cols) == 1:
            documents.append(cols[0])
            domains.append("")
        elif path.suffix == ".docs" and len(cols) == 2:
            domains.append(cols[0])
            documents.append(cols[1])
        else:
            expected = "DOCID" if path.suffix == ".docids" else "DOMAIN DOCID"
            raise InputError(path, f"expected '{expected}', found {row!r}", line=no)
    return documents, domains


def read(root: Path, selection: Selection) -> Found:
    groups: dict[tuple, dict] = defaultdict(lambda: {"src": [], "ref": {}, "hyp": {}, "docs": []})
    found = Found(NAME, [])
    for path in _files(root):
        m = TEXT_FILE.match(path.name)
        if not m:
            found.unmatched_files.append(path)
            continue
        if selection.year and int(m["year"]) != selection.year:
            continue
        if not selection.wants_lp(f"{m['src']}-{m['tgt']}"):
            continue
        g = groups[(m["testset"], int(m["year"]), m["src"], m["tgt"])]
        if m["system"]:
            if selection.wants_system(m["system"]):
                check_length(m["system"], path, "system")
                g["hyp"].setdefault(m["system"], []).append(path)
        elif m["ref"]:
            # WMT23 names its reference `ref.refA`: stored as A, like the other layouts.
            check_length(ref_name(m["ref"]), path, "reference")
            g["ref"].setdefault(ref_name(m["ref"]), []).append(path)
        elif m["docs"]:
            g["docs"].append(path)
        else:
            g["src"].append(path)
    for (testset, year, src, tgt), g in sorted(groups.items()):
        where = root / f"{testset}.{src}-{tgt}.*"
        check_length(testset, where, "test set")
        if not g["hyp"]:
            if selection.systems is None:
                found.notes.append(f"{testset} {src}-{tgt}: no system outputs, not imported")
            continue
        langs = pair(src, tgt)
        if langs is None:
            found.skipped.append(f"{src}-{tgt}: not a pair of ISO 639 language codes")
            continue
        for kind, paths in (
            [("source", g["src"]), ("document", g["docs"])]
            + [(f"hypothesis of {s}", p) for s, p in g["hyp"].items()]
            + [(f"reference {r}", p) for r, p in g["ref"].items()]
        ):
            if len(paths) > 1:
                raise InputError(
                    where, f"the {kind} is in several files: " + ", ".join(map(str, paths))
                )
        if not g["src"]:
            raise InputError(where, "no source file (.src.) for these hypotheses")
        ref = choose_reference(sorted(g["ref"]), selection.refs, where)
        source = g["src"][0]
        sources = read_lines(source)
        references = read_lines(g["ref"][ref][0])
        check_aligned(references, len(sources), g["ref"][ref][0], "reference")
        hypotheses, files = {}, {"source": str(source), "reference": str(g["ref"][ref][0])}
        for system, (path,) in sorted(g["hyp"].items()):
            hypotheses[system] = read_lines(path)
            check_aligned(hypotheses[system], len(sources), path, "hypothesis")
            files[system] = str(path)
        documents = domains = [""] * len(sources)
        if g["docs"]:
            documents, domains = read_documents(g["docs"][0], len(sources))
        found.test_sets.append(
            TestSetText(
                NAME, testset, year, *langs, ref, sources, references, hypotheses,
                documents, domains, files,
            )
        )  # fmt: skip
    return found
