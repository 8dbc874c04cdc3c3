"""Every command that reads files reports a file it cannot read, a path that does not exist and
a folder where a file is expected as one line naming it, and writes nothing."""

from __future__ import annotations

import ctypes
import os
import shutil
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from survey.models import Corpus, ExternalJudgment, Segment, Triple
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
