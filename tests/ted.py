"""Google's TED MQM error files (fixtures/ted-mqm.tar.xz) and the test set each annotates,
rebuilt from the file's own texts: the texts of WMT21's TED test set are not in the release.
Line n of the rebuilt test set is segment n (`seg_id`), as in the test set; the segments no
file annotates are blank lines, each run of them a document of its own. Pure: used by the core
tests and the database tests alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wojdb import bundled
from wojdb.core.formats import wmt

FILES = {"en-de": "mqm_ted_ende", "zh-en": "mqm_ted_zhen"}
TESTSET = "tedtalks2021"


def error_file(lp: str) -> Path:
    return bundled.ted_mqm() / f"{FILES[lp]}.tsv"


def score_file(lp: str) -> Path:
    return bundled.ted_mqm() / f"{FILES[lp]}.avg_seg_scores.tsv"


def plain(text: str) -> str:
    """A text without the error marks (one file's `<v>` is never closed)."""
    return text.replace("<v>", "").replace("</v>", "")


@dataclass
class TedTexts:
    """Per line (1-based: line n is seg_id n): document, source, reference (the `ref` system's
    target) and every other system's output; `annotated` the seg_ids the file annotates."""

    lp: str
    documents: list[str]
    sources: list[str]
    references: list[str]
    hypotheses: dict[str, list[str]]
    annotated: list[int]


def ted_texts(lp: str) -> TedTexts:
    rows = [r.split("\t") for r in error_file(lp).read_text(encoding="utf-8").splitlines()[1:]]
    texts = {(r[0], int(r[3])): (r[1], plain(r[5]), plain(r[6])) for r in rows}
    segments = sorted({seg for _, seg in texts})
    systems = sorted({system for system, _ in texts} - {"ref"})
    lines = range(1, segments[-1] + 1)
    gap = ""
    documents = []
    for n in lines:
        if ("ref", n) in texts:
            documents.append(texts["ref", n][0])
        else:
            gap = gap if documents and documents[-1] == gap else f"unannotated-{n}"
            documents.append(gap)

    def text(system, n, i):
        return texts[system, n][i] if (system, n) in texts else ""

    return TedTexts(
        lp,
        documents,
        [text("ref", n, 1) for n in lines],
        [text("ref", n, 2) for n in lines],
        {system: [text(system, n, 2) for n in lines] for system in systems},
        segments,
    )


def write_test_set(texts: TedTexts, folder: Path, shift: int = 0) -> Path:
    """The test set as WMT plain-text files (systems named as the release names them:
    Nemo → NVIDIA-NeMo); with `shift`, line n holds the texts of line n + shift (wrapping)."""
    src, tgt = texts.lp.split("-")
    folder.mkdir(parents=True)

    def write(name, lines):
        moved = lines[shift:] + lines[:shift]
        (folder / f"{TESTSET}.{texts.lp}.{name}").write_text("".join(t + "\n" for t in moved))

    write(f"src.{src}", texts.sources)
    write(f"ref.A.{tgt}", texts.references)
    for system, lines in texts.hypotheses.items():
        write(f"hyp.{wmt.canonical_system(system)}.{tgt}", lines)
    (folder / f"{TESTSET}.{texts.lp}.docids").write_text("".join(d + "\n" for d in texts.documents))
    return folder
