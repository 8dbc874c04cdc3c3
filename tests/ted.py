"""Google's TED MQM error files (fixtures/ted-mqm.tar.xz) and the test set each annotates,
rebuilt from the file's own texts: the texts of WMT21's TED test set are not in the release.
Pure: used by the core tests and the database tests alike."""

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
    """Per line (1-based, in seg_id order): document, source, reference (the `ref` system's
    target) and every other system's output; `line_of` maps a seg_id to its line."""

    lp: str
    documents: list[str]
    sources: list[str]
    references: list[str]
    hypotheses: dict[str, list[str]]
    line_of: dict[int, int]


def ted_texts(lp: str) -> TedTexts:
    rows = [r.split("\t") for r in error_file(lp).read_text(encoding="utf-8").splitlines()[1:]]
    texts = {(r[0], int(r[3])): (r[1], plain(r[5]), plain(r[6])) for r in rows}
    segments = sorted({seg for _, seg in texts})
    systems = sorted({system for system, _ in texts} - {"ref"})
    return TedTexts(
        lp,
        [texts["ref", s][0] for s in segments],
        [texts["ref", s][1] for s in segments],
        [texts["ref", s][2] for s in segments],
        {system: [texts[system, s][2] for s in segments] for system in systems},
        {s: n for n, s in enumerate(segments, start=1)},
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
