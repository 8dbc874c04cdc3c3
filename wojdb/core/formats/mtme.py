"""The mt-metrics-eval layout: the WMT24 release's `txt/` and `txt-ts/` folders and
mt-metrics-eval's data for WMT19-24 (one folder per test set, e.g. `wmt22/`).

    sources/LP.txt                 one source segment a line
    references/LP.NAME.txt         NAME e.g. refA (a name never holds '.' or '-')
    system-outputs/LP/SYSTEM.txt   line-aligned with the source; a file named like a
                                   reference is that reference scored as a system
    documents/LP.docs              `DOMAIN DOCID` for each line (optional)
"""

from __future__ import annotations

import re
from pathlib import Path

from wojdb.core.formats.common import (
    Found,
    Selection,
    TestSetText,
    check_aligned,
    choose_reference,
    pair,
    ref_name,
    testset_of,
)
from wojdb.core.formats.plaintext import read_documents
from wojdb.core.io import check_length, input_files, read_lines

NAME = "mt-metrics-eval"
LP = re.compile(r"^(?P<src>[a-z]{2,3})-(?P<tgt>[a-z]{2,3})$")
REFERENCE = re.compile(r"^(?P<lp>[a-z]{2,3}-[a-z]{2,3})\.(?P<ref>[^.-]+)\.txt$")


def _is_root(folder: Path) -> bool:
    """sources/LP.txt with a folder system-outputs/LP/ (the plain-text layout's `txt/` also
    has sources/ and system-outputs/ folders, of flat `newstest….LP.src.XX` files)."""
    return any(
        LP.match(p.stem) and (folder / "system-outputs" / p.stem).is_dir()
        for p in (folder / "sources").glob("*.txt")
    )


def roots(root: Path) -> list[Path]:
    """The folder itself, or each of its sub-folders, that holds sources/ and system-outputs/."""
    if _is_root(root):
        return [root]
    return sorted(p for p in root.iterdir() if p.is_dir() and _is_root(p))


def detect(root: Path) -> bool:
    return bool(roots(root))


def read(root: Path, selection: Selection) -> Found:
    found = Found(NAME, [])
    for folder in roots(root):
        _read_one(folder, selection, found)
    return found


def _read_one(folder: Path, selection: Selection, found: Found) -> None:
    testset, year = testset_of(folder, selection)
    if selection.year and year != selection.year:
        return
    check_length(testset, folder, "test set")
    used: set[Path] = set()
    references: dict[str, dict[str, Path]] = {}
    for path in sorted((folder / "references").glob("*")):
        if m := REFERENCE.match(path.name):
            references.setdefault(m["lp"], {})[m["ref"]] = path
    for source in sorted((folder / "sources").glob("*")):
        m = re.fullmatch(r"(?P<lp>[^.]+)\.txt", source.name)
        lp_match = LP.match(m["lp"]) if m else None
        if not lp_match or not (folder / "system-outputs" / m["lp"]).is_dir():
            continue
        lp = m["lp"]
        if not selection.wants_lp(lp):
            used |= {source, *references.get(lp, {}).values()}
            used |= set((folder / "system-outputs" / lp).glob("*"))
            used.add(folder / "documents" / f"{lp}.docs")
            continue
        used.add(source)
        langs = pair(lp_match["src"], lp_match["tgt"])
        if langs is None:
            found.skipped.append(f"{lp}: not a pair of ISO 639 language codes")
            continue
        refs = references.get(lp, {})
        used |= set(refs.values())
        ref = choose_reference(sorted(refs), selection.refs, folder / "references" / f"{lp}.*")
        check_length(ref_name(ref), refs[ref], "reference")
        sources = read_lines(source)
        reference_lines = read_lines(refs[ref])
        check_aligned(reference_lines, len(sources), refs[ref], "reference")
        hypotheses, files = {}, {"source": str(source), "reference": str(refs[ref])}
        for path in sorted((folder / "system-outputs" / lp).iterdir()):
            used.add(path)
            system = path.name.removesuffix(".txt")
            if not path.name.endswith(".txt") or not path.is_file():
                used.discard(path)
                continue
            if system in refs:
                found.notes.append(f"{path}: reference {system}, not a system; left out")
                continue
            if not selection.wants_system(system):
                continue
            check_length(system, path, "system")
            hypotheses[system] = read_lines(path)
            check_aligned(hypotheses[system], len(sources), path, "hypothesis")
            files[system] = str(path)
        if not hypotheses:
            continue
        documents = domains = [""] * len(sources)
        docs = folder / "documents" / f"{lp}.docs"
        if docs.is_file():
            used.add(docs)
            documents, domains = read_documents(docs, len(sources))
        found.test_sets.append(
            TestSetText(
                NAME, testset, year, *langs, ref_name(ref), sources, reference_lines,
                hypotheses, documents, domains, files,
            )
        )  # fmt: skip
    for sub in ("sources", "references", "system-outputs", "documents"):
        if (folder / sub).is_dir():
            found.unmatched_files += sorted(p for p in input_files(folder / sub) if p not in used)
