"""Every command that reads files reports a file it cannot read, a path that does not exist and
a folder where a file is expected as one line naming it, and writes nothing."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from survey.models import Corpus, ExternalJudgment, Segment, Triple
from wojdb.core.budgets import Budgets
from wojdb.core.io import InputError, read_input

REPO = Path(__file__).resolve().parents[2]
SLICE = REPO / "fixtures/wmt21-slice"


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]


CAP_VERSION_3 = 0x20080522
# Root reads any file by these two capabilities (capabilities(7)).
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


@contextmanager
def permissions_apply():
    """File permissions bind inside, even for root: its override of them is taken out of the
    process's effective capabilities, and put back after (it stays in the permitted set)."""
    if os.geteuid() != 0:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = _CapHeader(CAP_VERSION_3, 0), (_CapData * 2)()
    assert libc.capget(ctypes.byref(header), data) == 0
    before = data[0].effective
    data[0].effective &= ~((1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH))
    assert libc.capset(ctypes.byref(header), data) == 0
    try:
        yield
    finally:
        data[0].effective = before
        assert libc.capset(ctypes.byref(header), data) == 0


@pytest.fixture
def folder(tmp_path):
    yield tmp_path
    for path in tmp_path.rglob("*"):  # so that pytest can clean up
        path.chmod(0o755 if path.is_dir() else 0o644)


def unreadable(path: Path) -> Path:
    path.chmod(0)
    return path


def command(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out, verbosity=0)
    return out.getvalue()


def refused(name: str, *args: str) -> str:
    """The one-line message a command stops with, run where file permissions apply."""
    with pytest.raises(CommandError) as error, permissions_apply():
        command(name, *args)
    message = str(error.value)
    assert "Traceback" not in message and "Errno" not in message
    return message.splitlines()[0]


def db_counts():
    return [m.objects.count() for m in (Segment, Corpus, Triple, ExternalJudgment)]


# --- the shared helper ---------------------------------------------------------------------


def test_the_helper_names_each_kind_of_unreadable_path(folder):
    (folder / "a folder").mkdir()
    (folder / "a file").write_text("x")
    (folder / "secret").write_text("x")
    secret = unreadable(folder / "secret")
    cases = {
        folder / "missing": "does not exist",
        folder / "a file" / "inside": "does not exist",
        folder / "a folder": "is a folder, not a file",
    }
    for path, problem in cases.items():
        with pytest.raises(InputError, match="^" + str(path) + ": " + problem + "$"):
            read_input(path)
    denied = f"^{secret}: cannot be read: permission denied$"
    with pytest.raises(InputError, match=denied), permissions_apply():
        read_input(secret)
    assert read_input(folder / "a file") == b"x"


# --- the commands --------------------------------------------------------------------------


@pytest.fixture
def texts(folder):
    """The WMT21 slice's de-en texts."""
    for path in (SLICE / "txt").glob("newstest2021.de-en.*"):
        shutil.copy(path, folder)
    return folder


@pytest.mark.django_db
def test_import_wmt_names_an_unreadable_file_and_writes_nothing(texts):
    hypothesis = unreadable(texts / "newstest2021.de-en.hyp.UEdin.en")
    line = refused("import_wmt", str(texts))
    assert line == f"{hypothesis}: cannot be read: permission denied"
    assert db_counts() == [0, 0, 0, 0]


@pytest.mark.django_db
def test_import_wmt_names_a_subfolder_it_cannot_list(texts):
    hidden = texts / "more"
    hidden.mkdir()
    shutil.copy(SLICE / "txt/newstest2021.de-en.src.de", hidden)
    unreadable(hidden)
    line = refused("import_wmt", str(texts))
    assert line == f"{hidden}: cannot be listed: Permission denied"
    assert db_counts() == [0, 0, 0, 0]


@pytest.mark.django_db
def test_import_da_names_an_unreadable_missing_or_folder_file(folder):
    scores = folder / "ad-seg-scores-de-en.csv"
    shutil.copy(SLICE / "humaneval/ad-seg-scores-de-en.csv", scores)
    unreadable(scores)
    assert refused("import_da", str(scores)) == (f"{scores}: cannot be read: permission denied")
    judgments = folder / "ad-deen-good-stnd.csv"
    judgments.mkdir()
    assert refused("import_da", str(judgments)) == f"{judgments}: is a folder, not a file"
    missing = folder / "ad-csen-good-stnd.csv"
    assert refused("import_da", str(missing)) == f"{missing}: does not exist"
    assert db_counts() == [0, 0, 0, 0]


@pytest.mark.django_db
def test_import_scores_ranks_and_alignments_name_an_unreadable_file(folder):
    scores = folder / "scores.csv"
    scores.write_text("item_id,metric,score\n1,m,0.5\n")
    unreadable(scores)
    denied = f"{scores}: cannot be read: permission denied"
    assert refused("import_scores", str(scores)) == denied
    assert refused("import_ranks", str(scores)) == denied
    pairs = folder / "pairs.tsv"
    pairs.write_text("item_id\thypothesis\treference\n")
    assert (
        refused(
            "import_alignments", str(scores), "--pairs", str(pairs), "--aligner", "fast_align",
        )
        == denied
    )  # fmt: skip
    assert refused("import_scores", str(folder)) == f"{folder}: is a folder, not a file"


def test_score_names_an_unreadable_conllu_file(folder):
    (folder / "pair.conllu").write_text("1\tcat\t_\tNOUN\tNN\t_\t0\troot\t_\t_\n")
    conllu = unreadable(folder / "pair.conllu")
    denied = f"^{conllu}: cannot be read: permission denied$"
    with pytest.raises(CommandError, match=denied), permissions_apply():
        command("score", "--conllu", str(conllu))


@pytest.fixture
def release(folder, django_db_blocker):
    from tests.analysis.test_frames import build_rated_study

    with django_db_blocker.unblock():
        study = build_rated_study().study
        call_command("export_wojdb", "--out", str(folder / "r"), "--study", study.slug, verbosity=0)
    return folder / "r"


@pytest.mark.django_db
def test_a_release_file_that_cannot_be_read_is_named(release):
    unreadable(release / "ratings.csv")
    message = refused("import_wojdb", str(release), "--check")
    assert message == "ratings.csv: cannot be read: permission denied"
    unreadable(release / "datapackage.json")
    message = refused("import_wojdb", str(release), "--check")
    assert message == f"datapackage.json: cannot be read: permission denied (in {release})"


@pytest.mark.django_db
def test_an_unreadable_release_zip_is_named(release):
    archive = Path(shutil.make_archive(str(release), "zip", release))
    archive.chmod(0)
    message = refused("import_wojdb", str(archive), "--check")
    assert message == f"{archive}: cannot be read: permission denied"


@pytest.mark.django_db
def test_analyse_names_an_unreadable_release_file(release, folder):
    unreadable(release / "items.csv")
    out = folder / "report"
    message = refused("analyse", "--out", str(out), "--release", str(release))
    assert message.endswith("items.csv: cannot be read: permission denied")
    assert not out.exists()


# --- the input budget ------------------------------------------------------------------------

INPUT_BUDGET = Budgets().input_bytes


def oversized(path: Path, size: int = INPUT_BUDGET + 1) -> Path:
    """A file of `size` bytes that takes no room on disk (sparse)."""
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def over_budget(path: Path, size: int = INPUT_BUDGET + 1) -> str:
    return (
        f"{path}: is {size:,} bytes, over the budget of {INPUT_BUDGET:,} bytes "
        "(WOJDB_MAX_INPUT_BYTES raises it)"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "command_name, name, options",
    [
        ("import_da", "ad-deen-good-stnd.csv", ()),
        ("import_da", "ad-seg-scores-de-en.csv", ()),
        ("import_judgments", "mqm_generalMT2022_ende.tsv", ()),
        ("import_judgments", "appraise-esa.csv", ()),
        ("import_scores", "COMET.seg.score", ()),
        ("import_ranks", "wmt16-ranks.csv", ()),
        ("import_documents", "newstest2021.de-en.docids", ()),
        ("import_parses", "refs.conllu", ("--testset", "newstest2021", "--lp", "de-en")),
    ],
)
def test_each_import_refuses_a_file_over_the_input_budget(folder, command_name, name, options):
    path = oversized(folder / name)
    assert refused(command_name, str(path), *options) == over_budget(path)
    assert db_counts() == [0, 0, 0, 0]


@pytest.mark.django_db
def test_import_wmt_refuses_a_text_file_over_the_input_budget(texts):
    hypothesis = oversized(texts / "newstest2021.de-en.hyp.UEdin.en")
    assert refused("import_wmt", str(texts)) == over_budget(hypothesis)
    assert db_counts() == [0, 0, 0, 0]


@pytest.mark.django_db
def test_import_alignments_refuses_a_file_over_the_input_budget(folder):
    pairs = folder / "pairs.tsv"
    pairs.write_text("item_id\thypothesis\treference\n")
    alignments = oversized(folder / "aligned.txt")
    args = (str(alignments), "--pairs", str(pairs), "--aligner", "fast_align")
    assert refused("import_alignments", *args) == over_budget(alignments)
    big_pairs = oversized(folder / "big-pairs.tsv")
    (folder / "small.txt").write_text("0-0\n")
    args = (str(folder / "small.txt"), "--pairs", str(big_pairs), "--aligner", "fast_align")
    assert refused("import_alignments", *args) == over_budget(big_pairs)


def test_score_refuses_a_conllu_file_over_the_input_budget(folder):
    conllu = oversized(folder / "pair.conllu")
    with pytest.raises(CommandError, match="^" + re.escape(over_budget(conllu)) + "$"):
        command("score", "--conllu", str(conllu))


def test_the_input_budget_is_set_by_its_variable(folder, monkeypatch):
    path = folder / "ad-seg-scores-de-en.csv"
    shutil.copy(SLICE / "humaneval/ad-seg-scores-de-en.csv", path)
    monkeypatch.setenv("WOJDB_MAX_INPUT_BYTES", "1000")
    size = path.stat().st_size
    with pytest.raises(InputError) as error:
        read_input(path)
    assert str(error.value) == (
        f"{path}: is {size:,} bytes, over the budget of 1,000 bytes "
        "(WOJDB_MAX_INPUT_BYTES raises it)"
    )
    monkeypatch.setenv("WOJDB_MAX_INPUT_BYTES", str(size))
    assert len(read_input(path)) == size


@pytest.mark.django_db
def test_a_study_file_over_a_mebibyte_is_refused_before_it_is_parsed(folder):
    from survey.models import Study

    study = oversized(folder / "study.toml", 1024**2 + 1)
    message = refused("create_study", str(study))
    assert message == (
        f"{study}: is 1,048,577 bytes, over the budget of 1,048,576 bytes "
        "(WOJDB_MAX_STUDY_FILE_BYTES raises it)"
    )
    assert Study.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["named pipe", "link to a device"])
def test_import_wmt_names_a_text_file_that_is_not_a_regular_file(texts, kind):
    reference = texts / "newstest2021.de-en.ref.A.en"
    reference.unlink()
    if kind == "named pipe":
        os.mkfifo(reference)
    else:
        reference.symlink_to("/dev/zero")
    line = refused("import_wmt", str(texts))
    assert line == f"{reference}: is not a regular file (a device, named pipe or socket): refused"
    assert db_counts() == [0, 0, 0, 0]
