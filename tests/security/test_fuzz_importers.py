"""The WMT importers fed malformed files: each either imports or raises `InputError` naming
the problem, never another exception, and a refused import writes nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from survey.models import Corpus, ExternalJudgment, Segment, Triple
from survey.sources.human_judgments import import_judgments
from survey.sources.ranks import import_ranks
from survey.sources.testsets import import_wmt
from wojdb.core.formats.wmt import JUDGMENT_HEADER
from wojdb.core.io import InputError

pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
SEG_HEADER = "SYS SID RAW.SCR Z.SCR N"
RANK_COLUMNS = (
    ["srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId"]
    + [f"system{i}{part}" for i in range(1, 6) for part in ("Number", "Id")]
    + [f"system{i}rank" for i in range(1, 6)]
)
BIG = str(2**70)

# Values that are valid in some column, malformed in others, or out of every range.
tokens = st.one_of(
    st.sampled_from(
        ["SysA", "SysB", "SysA.3", "de", "en", "deu", "xx", "", "NA", "nan", "inf", "-inf"]
        + ["0", "1", "2", "3", "5", "6", "-1", "-7", "3.5", "1e400", BIG, "-" + BIG]
        + ["SYSTEM", "REF", "BAD_REF", "REPEAT", "HUMAN.0", "x" * 300, "\x00", "\ufeff"]
    ),
    st.integers(-(2**40), 2**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(max_size=12),
)
line_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40).map(
    lambda s: s.replace("\n", " ")
)


def joined(separator: str, width: st.SearchStrategy[int]):
    return width.flatmap(lambda n: st.lists(tokens, min_size=n, max_size=n)).map(separator.join)


def file_body(header: str, row: st.SearchStrategy[str]):
    """A header (right or mangled) and rows, as text or, sometimes, as undecodable bytes."""
    headers = st.one_of(st.just(header), line_text, st.just(header.upper()))
    text = st.tuples(headers, st.lists(row, max_size=8)).map(
        lambda t: "\n".join([t[0], *t[1]]).encode()
    )
    return st.one_of(text, text.map(lambda b: b.replace(b"\n", b"\r\n")), st.binary(max_size=200))


def database_state() -> tuple:
    counts = tuple(m.objects.count() for m in (Segment, Corpus, Triple, ExternalJudgment))
    scores = list(
        Triple.objects.order_by("pk").values_list(
            "da_raw", "da_z", "da_count", "rank_score", "rank_count", "hypothesis"
        )
    )
    return counts, scores


def write(folder: Path, files: dict[str, bytes]) -> list[Path]:
    paths = []
    for name, body in files.items():
        path = folder / name
        path.write_bytes(body)
        paths.append(path)
    return paths


class ImporterFuzz(TestCase):
    """Hypothesis runs every example in its own transaction, rolled back afterwards."""

    @classmethod
    def setUpTestData(cls):
        # A small pool the DA and ranking files can match: two systems, three segments.
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            files = {
                "newstest2021.de-en.src.de": b"Eins .\nZwei .\nDrei .\n",
                "newstest2021.de-en.ref.A.en": b"One .\nTwo .\nThree .\n",
                "newstest2021.de-en.hyp.SysA.en": b"One .\nTwo .\nThree .\n",
                "newstest2021.de-en.hyp.SysB.en": b"Uno .\nDos .\nTres .\n",
            }
            write(root, files)
            import_wmt(root)

    def attempt(self, run) -> None:
        before = database_state()
        try:
            run()
        except InputError as error:
            assert str(error), "an InputError must say what is wrong"
            assert database_state() == before, "a refused import wrote something"
            return
        after = database_state()
        run()  # re-importing the same files adds and changes nothing
        assert database_state() == after

    @FUZZ
    @given(
        source=file_body("Eins .", line_text),
        reference=file_body("One .", line_text),
        hypothesis=file_body("Uno .", line_text),
        system=st.sampled_from(["SysA", "SysC", "Sys C", "S" * 200, "x.y"]),
        pair=st.sampled_from(["de-en", "cs-en", "xx-en", "de-zz"]),
    )
    @example(
        source=b"a\nb\n", reference=b"a\x00\nb\n", hypothesis=b"a\nb\n", system="SysC", pair="cs-en"
    )
    @example(source=b"a\n", reference=b"a\n", hypothesis=b"a\n", system="S" * 200, pair="cs-en")
    @example(source=b"\xff\n", reference=b"a\n", hypothesis=b"a\n", system="SysC", pair="cs-en")
    @example(source=b"a\nb\n", reference=b"a\n", hypothesis=b"a\n", system="SysC", pair="cs-en")
    def test_import_wmt(self, source, reference, hypothesis, system, pair):
        src, tgt = pair.split("-")
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            write(
                root,
                {
                    f"newstest2021.{pair}.src.{src}": source,
                    f"newstest2021.{pair}.ref.A.{tgt}": reference,
                    f"newstest2021.{pair}.hyp.{system}.{tgt}": hypothesis,
                },
            )
            self.attempt(lambda: import_wmt(root))

    @FUZZ
    @given(
        scores=file_body(SEG_HEADER, joined(" ", st.integers(3, 6))),
        judgments=file_body(" ".join(JUDGMENT_HEADER), joined("\t", st.integers(11, 13))),
        scores_name=st.sampled_from(["ad-seg-scores-de-en.csv", "ad-seg-scores-xx-en.csv"]),
        judgments_name=st.sampled_from(["ad-deen-good-stnd.csv", "ad-deen-bad.csv"]),
    )
    @example(
        scores=f"{SEG_HEADER}\nSysA 1 70 0.1 {BIG}\n".encode(),
        judgments=" ".join(JUDGMENT_HEADER).encode(),
        scores_name="ad-seg-scores-de-en.csv",
        judgments_name="ad-deen-good-stnd.csv",
    )
    @example(
        scores=f"{SEG_HEADER}\nSysA 1 70 0.1 -3\n".encode(),
        judgments=" ".join(JUDGMENT_HEADER).encode(),
        scores_name="ad-seg-scores-de-en.csv",
        judgments_name="ad-deen-good-stnd.csv",
    )
    @example(
        scores=f"{SEG_HEADER}\n".encode(),
        judgments=(
            " ".join(JUDGMENT_HEADER) + "\n" + "\t".join(["h" * 100, "w", "de", "en", "1", "1"])
            + "\t" + "\t".join(["SysA", "1", "SYSTEM", "-2", "0.5", "NA"]) + "\n"
        ).encode(),
        scores_name="ad-seg-scores-de-en.csv",
        judgments_name="ad-deen-good-stnd.csv",
    )  # fmt: skip
    @example(
        scores=f"{SEG_HEADER}\n".encode(),
        judgments=(
            " ".join(JUDGMENT_HEADER) + "\n" + "\t".join(["h", "w" * 65, "de", "en", "1", "1"])
            + "\t" + "\t".join(["SysA", "1", "SYSTEM", "2", "0.5", "NA"]) + "\n"
        ).encode(),
        scores_name="ad-seg-scores-de-en.csv",
        judgments_name="ad-deen-good-stnd.csv",
    )  # fmt: skip
    def test_import_judgments(self, scores, judgments, scores_name, judgments_name):
        with tempfile.TemporaryDirectory() as folder:
            paths = write(Path(folder), {scores_name: scores, judgments_name: judgments})
            self.attempt(lambda: import_judgments(paths))

    @FUZZ
    @given(
        body=file_body(",".join(RANK_COLUMNS), joined(",", st.integers(20, 24))),
        testset=st.sampled_from([None, "newstest2021", "newstest1999"]),
    )
    @example(body=(",".join(RANK_COLUMNS) + "\n" + "a" * 200_000 + "\n").encode(), testset=None)
    @example(body=(",".join(RANK_COLUMNS) + '\nde,en,"1\n').encode(), testset=None)
    @example(body=(",".join(RANK_COLUMNS) + "\nde,en,1\x00,x\n").encode(), testset=None)
    def test_import_ranks(self, body, testset):
        with tempfile.TemporaryDirectory() as folder:
            (path,) = write(Path(folder), {"ranks.csv": body})
            self.attempt(lambda: import_ranks(path, testset=testset))
