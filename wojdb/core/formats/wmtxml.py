"""WMT's XML test sets (`wmttest2022.LP.all.xml` and later) and the older SGML `.sgm` files.

XML (wmt-format-tools): `dataset/collection/doc` with the document id and domain; each doc
holds `src`, `ref translator=NAME` and `hyp system=NAME`, each `p/seg id=N`. A segment a
reference or system lacks is an empty line, as wmt-format-tools' `wmt-unwrap` writes it;
documents of test suites (`testsuite=` attribute) are left out, as in the releases' `txt/`.

SGML (WMT08-20): one file per source (`srcset`), reference (`refset`) or system (`tstset`),
each `doc docid=ID genre=DOMAIN sysid=SYSTEM` with one `<seg id=N>` a line. Segment text is
taken as written between the tags (entities are not decoded, as sacrebleu reads these files).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from wojdb.core.formats.common import (
    Found,
    Selection,
    TestSetText,
    choose_reference,
    pair,
    ref_name,
)
from wojdb.core.io import (
    InputError,
    check_length,
    input_files,
    open_input,
    parse_number,
    read_lines,
)

XML = "WMT XML"
SGML = "WMT SGML"
XML_FILE = re.compile(r"^(?P<testset>[^.]+)\.(?P<src>[a-z]{2,3})-(?P<tgt>[a-z]{2,3})\.all\.xml$")


def _files(root: Path, suffix: str) -> list[Path]:
    return [p for p in input_files(root) if p.name.endswith(suffix)]


def detect_xml(root: Path) -> bool:
    return any(XML_FILE.match(p.name) for p in _files(root, ".xml"))


def detect_sgml(root: Path) -> bool:
    return bool(_files(root, ".sgm"))


def _year(testset: str, where) -> int:
    if m := re.search(r"(?:19|20)\d\d", testset, flags=re.ASCII):
        return int(m[0])
    raise InputError(where, f"test set {testset!r} names no year", field="id")


def read_xml(root: Path, selection: Selection) -> Found:
    found = Found(XML, [])
    for path in _files(root, ""):
        m = XML_FILE.match(path.name)
        if not m:
            found.unmatched_files.append(path)
            continue
        if not selection.wants_lp(f"{m['src']}-{m['tgt']}"):
            continue
        if ts := _read_xml_file(path, m, selection, found):
            found.test_sets.append(ts)
    return found


def _segments(element, path, doc_id: str) -> dict[int, str]:
    segs = {}
    for seg in element.iter("seg"):
        try:
            n = parse_number(seg.get("id", ""), path, field="seg id", kind=int)
        except InputError:
            raise InputError(path, f"document {doc_id}: seg id {seg.get('id')!r} is not a number",
                             field="seg id") from None  # fmt: skip
        if n in segs:
            raise InputError(path, f"document {doc_id}: seg id {n} twice", field="seg id")
        # A byte-order mark copied into a segment (WMT23 ru-en PROMT, first line) is an encoding
        # artefact that the release's txt/ files lose too.
        segs[n] = (seg.text or "").removeprefix("\ufeff")
    return segs


def _read_xml_file(path: Path, m, selection: Selection, found: Found) -> TestSetText | None:
    langs = pair(m["src"], m["tgt"])
    if langs is None:
        found.skipped.append(f"{m['src']}-{m['tgt']}: not a pair of ISO 639 language codes")
        return None
    testset = year = None
    sources, documents, domains, suites = [], [], [], 0
    refs, hyps = defaultdict(list), defaultdict(list)
    try:
        with open_input(path) as handle:
            for _, el in ET.iterparse(handle, events=("end",)):
                if el.tag == "dataset":
                    testset = el.get("id")
                if el.tag != "doc":
                    continue
                doc_id = el.get("id") or ""
                if el.get("testsuite"):
                    suites += 1
                    el.clear()
                    continue
                src = el.find("src")
                if src is None:
                    raise InputError(path, f"document {doc_id!r} has no src", field="src")
                texts = _segments(src, path, doc_id)
                order = list(texts)
                start = len(sources)
                sources += [texts[n] for n in order]
                documents += [doc_id] * len(order)
                domains += [el.get("domain") or ""] * len(order)
                for kind, attr, into in (("ref", "translator", refs), ("hyp", "system", hyps)):
                    for part in el.findall(kind):
                        name = part.get(attr) or ("A" if kind == "ref" else "")
                        if kind == "ref":
                            name = ref_name(name)  # WMT23 names its reference "refA"
                        if not name:
                            raise InputError(path, f"document {doc_id!r}: a hyp without system",
                                             field="system")  # fmt: skip
                        segs = _segments(part, path, doc_id)
                        lines = into[name]
                        lines += [""] * (start - len(lines))  # absent from earlier documents
                        lines += [segs.get(n, "") for n in order]
                el.clear()
    except ET.ParseError as e:
        raise InputError(path, f"is not well-formed XML ({e})", line=e.position[0]) from None
    if testset is None:
        raise InputError(path, "no <dataset id=...> element", field="dataset")
    for lines in (*refs.values(), *hyps.values()):
        lines += [""] * (len(sources) - len(lines))
    if suites:
        found.notes.append(f"{path.name}: {suites} test-suite documents left out")
    check_length(testset, path, "test set")
    year = _year(testset, path)
    if selection.year and year != selection.year:
        return None
    ref = choose_reference(sorted(refs), selection.refs, path)
    check_length(ref, path, "reference")
    hypotheses = {s: lines for s, lines in sorted(hyps.items()) if selection.wants_system(s)}
    for system in hypotheses:
        check_length(system, path, "system")
    if not hypotheses:
        return None
    files = {"source": str(path), "reference": str(path)} | {s: str(path) for s in hypotheses}
    return TestSetText(
        XML, testset, year, *langs, ref, sources, refs[ref], hypotheses, documents, domains, files
    )


SGML_ROOT = re.compile(r"<(srcset|refset|tstset)\b([^>]*)>", re.IGNORECASE)
SGML_DOC = re.compile(r"<doc\b([^>]*)>", re.IGNORECASE)
SGML_SEG = re.compile(r"<seg\b[^>]*?\bid\s*=\s*\"?(\d+)\"?[^>]*>(.*)</seg>", re.IGNORECASE)
ATTR = re.compile(r"(\w+)\s*=\s*\"([^\"]*)\"")
# Pair from file names such as newstest2019-ende-src.en.sgm or newstest2017.SYS.0.cs-en.sgm.
NAME_LP = re.compile(r"[-.](?P<src>[a-z]{2})-?(?P<tgt>[a-z]{2})[-.]")


def _read_sgml_file(path: Path) -> dict:
    kind = attrs = None
    docs: list[tuple[dict, list[str]]] = []
    for no, line in enumerate(read_lines(path), start=1):
        if kind is None and (m := SGML_ROOT.search(line)):
            kind, attrs = m[1].lower(), dict(ATTR.findall(m[2]))
        elif m := SGML_DOC.search(line):
            docs.append((dict(ATTR.findall(m[1])), []))
        elif m := SGML_SEG.search(line):
            if not docs:
                raise InputError(path, "<seg> outside a <doc>", line=no)
            docs[-1][1].append(m[2].removeprefix("\ufeff"))
    if kind is None:
        raise InputError(path, "no <srcset>, <refset> or <tstset> element", line=1)
    src, tgt = attrs.get("srclang", ""), attrs.get("trglang", "")
    if (src in ("", "any") or (kind != "srcset" and not tgt)) and (m := NAME_LP.search(path.name)):
        src, tgt = m["src"], m["tgt"]
    if src in ("", "any") or (kind != "srcset" and not tgt):
        raise InputError(path, "cannot tell the language pair", field="srclang")
    setid = attrs.get("setid") or ""
    systems = {d.get("sysid", "") for d, _ in docs}
    return dict(kind=kind, setid=setid, src=src, tgt=tgt, docs=docs, systems=systems, path=path)


def read_sgml(root: Path, selection: Selection) -> Found:
    found = Found(SGML, [])
    files = [_read_sgml_file(p) for p in _files(root, ".sgm")]
    found.unmatched_files = [p for p in input_files(root) if p.suffix != ".sgm"]
    tgts = {(f["setid"], f["src"]): f["tgt"] for f in files if f["kind"] != "srcset"}
    groups: dict[tuple, dict] = defaultdict(lambda: {"srcset": [], "refset": {}, "tstset": {}})
    for f in files:
        # A source file names no target: it serves every pair of its set and source language.
        tgt = f["tgt"] or tgts.get((f["setid"], f["src"]), "")
        g = groups[(f["setid"], f["src"], tgt)]
        if f["kind"] == "srcset":
            g["srcset"].append(f)
        else:
            (name,) = f["systems"] if len(f["systems"]) == 1 else ("",)
            if not name:
                raise InputError(f["path"], "documents name several systems (sysid)",
                                 field="sysid")  # fmt: skip
            if f["kind"] == "refset" and name == "ref":
                name = "A"  # WMT's single reference is sysid "ref"; other names are kept
            g[f["kind"]].setdefault(name, []).append(f)
    for (setid, src, tgt), g in sorted(groups.items()):
        lp, where = f"{src}-{tgt}", root / f"{setid} {src}-{tgt} *.sgm"
        if not g["tstset"] or not selection.wants_lp(lp):
            continue
        langs = pair(src, tgt)
        if langs is None:
            found.skipped.append(f"{lp}: not a pair of ISO 639 language codes")
            continue
        if len(g["srcset"]) != 1:
            raise InputError(where, f"expected one source file, found {len(g['srcset'])}")
        source = g["srcset"][0]
        year = _year(setid, source["path"])
        if selection.year and year != selection.year:
            continue
        check_length(setid, source["path"], "test set")
        sources = [s for _, segs in source["docs"] for s in segs]
        documents = [d.get("docid", "") for d, segs in source["docs"] for _ in segs]
        domains = [d.get("genre", "") for d, segs in source["docs"] for _ in segs]
        ref = choose_reference(sorted(g["refset"]), selection.refs, where)
        references = _align(_one(g["refset"][ref], where, f"reference {ref}"), source)
        aligned = {
            s: _align(_one(fs, where, s), source)
            for s, fs in sorted(g["tstset"].items())
            if selection.wants_system(s)
        }
        if not aligned:
            continue
        files = {"source": str(source["path"]), "reference": str(g["refset"][ref][0]["path"])}
        files |= {s: str(g["tstset"][s][0]["path"]) for s in aligned}
        found.test_sets.append(
            TestSetText(
                SGML, setid, year, *langs, ref, sources, references, aligned, documents,
                domains, files,
            )
        )  # fmt: skip
    return found


def _one(files: list[dict], where, name: str) -> dict:
    if len(files) > 1:
        raise InputError(where, f"{name} is in several files: "
                         + ", ".join(str(f["path"]) for f in files))  # fmt: skip
    return files[0]


def _align(f: dict, source: dict) -> list[str]:
    """A reference's or system's lines in the source's document order, matched by document id."""
    by_doc = {d.get("docid", ""): segs for d, segs in f["docs"]}
    lines = []
    for d, src_segs in source["docs"]:
        doc = d.get("docid", "")
        segs = by_doc.get(doc)
        if segs is None or len(segs) != len(src_segs):
            found = "no such document" if segs is None else f"{len(segs)} segments"
            raise InputError(f["path"], f"document {doc!r}: {found}, the source has "
                             f"{len(src_segs)}", field="docid")  # fmt: skip
        lines += segs
    return lines
