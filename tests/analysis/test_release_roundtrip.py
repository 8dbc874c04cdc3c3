"""Every kind of study round-trips through its release: web studies on Prolific, MTurk, another
platform and none, paper studies, and the demo. Exported, imported into an empty database and
exported again, the release is the same file for file, but for the time of the export
(`created` in datapackage.json and README.md). The platform's codes and return address, which a
release leaves out, are not asked for by the import: the study comes back closed, naming them."""

from __future__ import annotations

import json
import random
from io import StringIO
from pathlib import Path

import cv2
import pytest
from django.core.management import call_command

import analysis.demo_studies
from analysis.demo_studies import DEMOS, build_demo
from survey.models import (
    ConsentText,
    PaperAnswer,
    Participant,
    Permutation,
    PlatformIdentity,
    Study,
)
from survey.paper import scan_import
from tests.analysis.test_frames import build_rated_study
from tests.factories import FILLED_SETTINGS, make_study
from wojdb.core.metrics import registry
from wojdb.core.paper import pen, scanning
from wojdb.core.paper.layout import Layout
from wojdb.core.release import read

pytestmark = pytest.mark.django_db(transaction=True)

#: What a release leaves out: contact details, the platform's codes and return address.
CONTACTS = {"researcher_email", "supervisor_email", "ethics_contact"}
CODES = {
    "prolific": dict(completion_code="C1PROLIFIC", decline_code="C2DECLINE"),
    "mturk": {},
    "generic": dict(platform_return_url="https://panel.example.org/done?c={code}&key=RETURNKEY9"),
    "none": {},
}
#: A participant's ids on each platform, and their own completion code: never released.
IDENTITIES = {
    "prolific": dict(prolific_pid="PID5F3A0", study_id="STUDY77X", session_id="SESSION8"),
    "mturk": dict(
        worker_id="A1WORKER9",
        assignment_id="ASSIGN42X",
        hit_id="HIT31XYZ",
        submit_to="https://workersandbox.mturk.com",
    ),
    "generic": dict(pid="PANEL12X", return_url="https://panel.example.org/done?key=RETURNKEY9"),
    "none": {},
}
OWN_CODE = "OWN7CODE"
STUDY_LINK_OPEN = b"Continue to the consent form"


def export(slug: str, out: Path, *args: str) -> None:
    call_command("export_wojdb", "--out", str(out), "--study", slug, *args, verbosity=0)


def import_into_empty_database(release: Path) -> str:
    call_command("flush", interactive=False, verbosity=0)
    out = StringIO()
    call_command("import_wojdb", str(release), stdout=out, stderr=StringIO())
    return out.getvalue()


def truths() -> dict[tuple, tuple]:
    """Each permutation's stored truths (words displaced, fewest to move back), by what it is."""
    rows = Permutation.objects.values_list(
        "text", "perm_type", "degree", "displaced", "minimal_moves"
    )
    return {(text, kind, degree): (d, m) for text, kind, degree, d, m in rows}


def round_trip(slug: str, tmp_path: Path) -> tuple[Path, Path, str]:
    """The study's release, the release of its import into an empty database, and what the
    import printed."""
    first, again = tmp_path / "first", tmp_path / "again"
    export(slug, first)
    printed = import_into_empty_database(first)
    export(slug, again)
    return first, again, printed


def assert_same_release(first: Path, again: Path) -> None:
    """Every file the same; datapackage.json and README.md but for the time `created`."""
    files = {p.relative_to(first) for p in first.rglob("*") if p.is_file()}
    assert files == {p.relative_to(again) for p in again.rglob("*") if p.is_file()}
    packages = [json.loads((f / "datapackage.json").read_text()) for f in (first, again)]
    created = [package.pop("created") for package in packages]
    assert packages[0] == packages[1]
    readmes = [
        (folder / "README.md").read_text().replace(f"Created: {time}\n", "")
        for folder, time in zip((first, again), created, strict=True)
    ]
    assert readmes[0] == readmes[1]
    for name in sorted(files - {Path("datapackage.json"), Path("README.md")}):
        assert (first / name).read_bytes() == (again / name).read_bytes(), name


def assert_holds_none_of(release: Path, secrets: list[str]) -> None:
    for path in release.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            for secret in secrets:
                assert secret.encode() not in content, (path.name, secret)


@pytest.mark.parametrize("platform", ["prolific", "mturk", "generic", "none"])
def test_a_web_study_round_trips_on_every_platform(platform, tmp_path, client):
    rated = build_rated_study()
    study, full = rated.study, rated.people["full"]
    Study.objects.filter(pk=study.pk).update(platform=platform, **CODES[platform])
    # The second statement agrees to the data's release, and may be answered No.
    ConsentText.objects.filter(study=study).update(optional=[2], sharing=2)
    PlatformIdentity.objects.filter(participant=full).update(**IDENTITIES[platform])
    Participant.objects.filter(pk=full.pk).update(completion_code=OWN_CODE)

    first, again, printed = round_trip(study.slug, tmp_path)
    assert_same_release(first, again)
    secrets = [*(FILLED_SETTINGS[name] for name in CONTACTS), OWN_CODE, "RETURNKEY9"]
    secrets += CODES[platform].values()
    assert_holds_none_of(first, [*secrets, *IDENTITIES[platform].values()])
    imported = Study.objects.get()
    assert (imported.slug, imported.platform, imported.is_open) == (study.slug, platform, False)
    assert imported.completion_code == imported.decline_code == imported.platform_return_url == ""
    consent = imported.consent_texts.get()
    assert (consent.version, consent.optional, consent.sharing) == (1, [2], 2)
    # Consenting, not withdrawn and not simulated.
    assert len(read.read_release(first).tables["participants"]) == 3

    # Closed, saying what to set before opening it: the contacts its texts name, and on
    # Prolific the completion code.
    needed = {"completion_code (set on Prolific)"} if platform == "prolific" else set()
    assert set(imported.unfilled()) == CONTACTS | needed
    assert "was imported closed" in printed
    assert all(name in printed for name in CONTACTS | needed)
    imported.is_open = True
    imported.save()
    assert STUDY_LINK_OPEN not in client.get(f"/s/{study.slug}/").content
    for name in CONTACTS:
        setattr(imported, name, "someone@example.org")
    if platform == "prolific":
        imported.completion_code = "C1PROLIFIC"
    imported.full_clean()
    imported.save()
    assert imported.unfilled() == []
    assert STUDY_LINK_OPEN in client.get(f"/s/{study.slug}/").content


def scan_answers(study: Study, copies: int, tmp_path: Path) -> list[Path]:
    """Print `copies` of each questionnaire, answer every box by pen and scan the pages."""
    out = tmp_path / "print"
    call_command(
        "print_questionnaires", "--study", study.slug, "--copies", str(copies), "--out", str(out),
        verbosity=0,
    )  # fmt: skip
    rng, scans = random.Random(5), []
    for layout_file in sorted(out.glob("questionnaire-*/layout.json")):
        layout = Layout.read(layout_file)
        for copy in layout.copies:
            pages = [
                grey for _, grey in scanning.load_pages(layout_file.parent / copy["file"], 150)
            ]
            pen.mark(pages, layout, 150, rng, pen.PenModel(blank=0, stray=0, faint=0))
            for n, page in enumerate(pages):
                scans.append(tmp_path / f"{copy['id']}-{n}.png")
                cv2.imwrite(str(scans[-1]), pen.scan(page, rng))
    return scans


def test_a_paper_study_round_trips(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "home"  # where import_scans keeps the scans
    study = make_study(questionnaires=2, items=4)
    call_command("import_scans", *map(str, scan_answers(study, 2, tmp_path)), verbosity=0)
    for field, value in (
        ("about.age", "41"),
        ("about.languages", "English: Native\nFrench: Fluent, DELF B2"),
    ):
        answer = PaperAnswer.objects.filter(field=field).order_by("pk").first()
        scan_import.resolve(answer, value, "researcher")

    first, again, _ = round_trip(study.slug, tmp_path)
    assert_same_release(first, again)
    tables = read.read_release(first).tables
    participants = tables["participants"]
    assert len(participants) == 4 and set(participants["mode"]) == {"paper"}
    assert sorted(participants["age"].dropna()) == [41]
    assert set(tables["participant_languages"]["language"]) == {"English", "French"}
    assert len(tables["ratings"]) == 4 * 5  # the practice pair and four pairs each
    assert Participant.objects.filter(mode="paper").count() == 4


@pytest.mark.slow
def test_the_demos_release_round_trips(tmp_path, monkeypatch, client):
    """The demo as `demo` builds it, but scored by two metrics rather than all, and without
    the analysis report: neither changes what a release is made of."""
    monkeypatch.setattr(analysis.demo_studies, "write_report", lambda *args, **kwargs: None)
    study = build_demo(DEMOS["en"], metrics=registry.select(["bleu", "kendall"]))
    assert study.platform == "prolific" and study.completion_code
    # Every participant of the demo is simulated: its release is theirs, and says so.
    export(study.slug, tmp_path / "demo", "--zip", "--include-simulated")
    generated = truths()
    printed = import_into_empty_database(tmp_path / "demo.zip")
    # A release leaves the permutations' truths out; the import stores them as generated.
    imported = truths()
    assert len(imported) > 100 and all(displaced for displaced, _ in imported.values())
    assert imported == {key: generated[key] for key in imported}
    assert "was imported closed" in printed and "completion_code (set on Prolific)" in printed
    export(study.slug, tmp_path / "again", "--zip", "--include-simulated")
    first = read.read_source(tmp_path / "demo.zip", tmp_path / "first")
    again = read.read_source(tmp_path / "again.zip", tmp_path / "second")
    assert_same_release(first, again)
    tables = read.read_release(first).tables
    assert len(tables["participants"]) == 36 and len(tables["metric_scores"]) > 0
    package = read.read_release(first).package
    assert package["simulated_participants"]["participants"] == 36
    assert package["description"].endswith(
        f"All 36 participants ({len(tables['ratings'])} of the {len(tables['ratings'])} ratings) "
        "are simulated: their answers come from a generative model (simulate_responses), not "
        "from people; participants.csv marks them in the column `simulated`."
    )
    # The demo imports WMT21's DA judgments and segment scores: those of its hypotheses travel.
    judgments = tables["judgments"]
    assert set(judgments["kind"]) == {"da", "da_segment"}
    key = ["testset", "source_lang", "target_lang", "ref_name", "segment", "system"]
    judged = set(map(tuple, judgments[key].to_numpy()))
    assert judged <= set(map(tuple, tables["items"][key].to_numpy()))
    assert len(judged) > 100  # of the 640 triples of the demo's pool
    assert (judgments["published_system"] != judgments["system"]).any()  # Nemo.7: NVIDIA-NeMo
    assert_holds_none_of(first, [study.completion_code, study.decline_code])
    imported = Study.objects.get()
    assert set(imported.unfilled()) == CONTACTS | {"completion_code (set on Prolific)"}
    assert STUDY_LINK_OPEN not in client.get(f"/s/{study.slug}/").content
