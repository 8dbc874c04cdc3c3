"""The paper path end to end: print, rasterise, mark, scan, import; and each bad input."""

from __future__ import annotations

import hashlib
import html
import json
import random
import re
from io import StringIO

import cv2
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from survey import scan_store
from survey.models import (
    PaperAnswer,
    PaperCopy,
    PaperLayout,
    Participant,
    Rating,
    ScanPage,
    Withdrawal,
)
from survey.paper import scan_import
from survey.participants import participation
from tests.factories import make_study
from wojdb.core.paper import pen, scanning
from wojdb.core.paper.layout import CONTENT_SIDE, Layout

DPI = 150


@pytest.fixture
def printed(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "home"  # where import_scans keeps the scans
    study = make_study(questionnaires=1, items=50, researcher_name="A. Researcher")
    out = tmp_path / "print"
    call_command("print_questionnaires", "--study", study.slug, "--copies", "2", "--out", str(out))
    return study, out, Layout.read(out / "layout.json")


def _scans(out, layout, copy, rng, model=None):
    pages = [grey for _, grey in scanning.load_pages(out / copy["file"], DPI)]
    truth = pen.mark(pages, layout, DPI, rng, model or pen.PenModel())
    return [pen.scan(page, rng) for page in pages], truth


def test_round_trip_stores_every_rating_by_content(printed, tmp_path):
    study, out, layout = printed
    assert (out / "information.pdf").exists() and (out / "debriefing.pdf").exists()
    data = json.loads((out / "layout.json").read_text())
    assert set(data) >= {"study", "questionnaire", "paper", "copies", "boxes", "text_fields"}
    assert {b["field"] for b in data["boxes"]} >= {
        "pair-50.word_order",
        "practice.holistic",
        "consent.1",
    }
    rng = random.Random(7)
    copy = layout.copies[0]
    scans, truth = _scans(
        out, layout, copy, rng, pen.PenModel(blank=0.08, correction=0.1, stray=0.1)
    )
    # Mixed formats and order: a multi-page TIFF, PNGs, a JPEG, shuffled.
    order = list(range(len(scans)))
    rng.shuffle(order)
    files = []
    cv2.imwritemulti(str(tmp_path / "a.tif"), [scans[i] for i in order[:4]])
    files.append(tmp_path / "a.tif")
    for i in order[4:]:
        path = tmp_path / f"p{i}.{'jpg' if i % 2 else 'png'}"
        cv2.imwrite(str(path), scans[i])
        files.append(path)
    call_command("import_scans", *map(str, files), "--study", study.slug, "--dpi", str(DPI))
    person = PaperCopy.objects.get(code=copy["id"]).participant
    assert person.mode == "paper" and person.status == "completed"
    flagged = set(PaperAnswer.objects.filter(kind="box").values_list("field", flat=True))
    assert len(flagged) <= 2
    ratings = {r.position: r for r in Rating.objects.filter(participant=person)}
    assert len(ratings) == 51
    entries = dict(person.questionnaire.entries.values_list("position", "item_id"))
    for position, rating in ratings.items():
        prefix = "practice" if position == 0 else f"pair-{position}"
        assert rating.item_id == (study.sample_item_id if position == 0 else entries[position])
        for suffix, attribute in (("holistic", "holistic"), ("word_order", "order")):
            name = f"{prefix}.{suffix}"
            expected = None if name in flagged or truth[name] is None else int(truth[name])
            assert getattr(rating, attribute) == expected, name
    expected_gender = (
        "" if truth["about.gender"] is None or "about.gender" in flagged else truth["about.gender"]
    )
    assert person.gender == expected_gender
    consent = [n for n in truth if n.startswith("consent.")]
    assert not flagged & set(consent)
    assert person.share_data is all(truth[n] == "agree" for n in consent)
    assert (person.consent_version is not None) is person.share_data
    assert ScanPage.objects.filter(copy__code=copy["id"]).count() == layout.pages
    assert PaperAnswer.objects.filter(kind="text").count() == len(layout.text_fields)
    # Every scanned file is kept as it was, and each page names the file it came from.
    for path in files:
        data = path.read_bytes()
        kept = f"scans/{hashlib.sha256(data).hexdigest()}{path.suffix}"
        assert (tmp_path / "home" / kept).read_bytes() == data
        assert ScanPage.objects.filter(source__startswith=f"{path.name} page ").exists()
        assert ScanPage.objects.filter(source__endswith=f"kept as {kept}").exists()

    # Importing the same scans again adds nothing.
    call_command("import_scans", *map(str, files), "--dpi", str(DPI))
    assert ScanPage.objects.count() == layout.pages
    assert Participant.objects.filter(mode="paper").count() == 1


def test_copy_waits_for_missing_pages(printed, tmp_path):
    study, out, layout = printed
    scans, truth = _scans(out, layout, layout.copies[1], random.Random(2), pen.PenModel(blank=0))
    for n, scan in enumerate(scans):
        cv2.imwrite(str(tmp_path / f"{n}.png"), scan)
    first = [str(tmp_path / f"{n}.png") for n in range(len(scans) - 1)]
    call_command("import_scans", *first)
    copy = PaperCopy.objects.get(code=layout.copies[1]["id"])
    assert copy.participant is None
    assert scan_import.waiting_copies() == {copy.code: [len(scans)]}
    call_command("import_scans", str(tmp_path / f"{len(scans) - 1}.png"))
    copy.refresh_from_db()
    assert copy.participant is not None and scan_import.waiting_copies() == {}
    flagged = set(PaperAnswer.objects.filter(kind="box").values_list("field", flat=True))
    last = copy.participant.ratings.get(position=50)
    if "pair-50.holistic" not in flagged:
        assert last.holistic == int(truth["pair-50.holistic"])


def test_bad_pages_refuse_the_import_and_write_nothing(printed, tmp_path):
    study, out, layout = printed
    scans, _ = _scans(out, layout, layout.copies[0], random.Random(3))
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), scans[0])
    text = tmp_path / "notes.txt"
    text.write_text("not a scan")
    with pytest.raises(CommandError, match="notes.txt: not a PDF or an image"):
        call_command("import_scans", str(good), str(text))
    other = make_study(questionnaires=1, items=2)
    with pytest.raises(CommandError, match=f"not of '{other.slug}'"):
        call_command("import_scans", str(good), "--study", other.slug)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), scans[0] * 0 + 250)
    with pytest.raises(CommandError, match="blank.png page 1: no WOJ-DB page code"):
        call_command("import_scans", str(good), str(blank))
    assert ScanPage.objects.count() == 0
    # A copy this database never printed (another database's print run).
    PaperLayout.objects.all().delete()
    with pytest.raises(CommandError, match=f"copy {layout.copies[0]['id']} was never printed"):
        call_command("import_scans", str(good))
    assert ScanPage.objects.count() == 0
    assert not list((tmp_path / "home" / "scans").glob("*"))  # no scan kept either


def test_one_page_marked_two_ways_is_refused_unless_skipped(printed, tmp_path):
    study, out, layout = printed
    n = layout.questions()["pair-1.holistic"][0].page  # a page of rating questions
    marked = []
    for seed in (11, 12):  # the same sheet filled in twice, differently
        pages = [grey for _, grey in scanning.load_pages(out / layout.copies[0]["file"], DPI)]
        pen.mark(pages, layout, DPI, random.Random(seed), pen.PenModel(blank=0, pencil=0))
        marked.append(tmp_path / f"marked-{seed}.png")
        cv2.imwrite(str(marked[-1]), pen.scan(pages[n - 1], random.Random(seed)))
    same = tmp_path / "marked-11-again.png"
    same.write_bytes(marked[0].read_bytes())
    with pytest.raises(CommandError) as error:
        call_command("import_scans", str(marked[0]), str(same), str(marked[1]))
    assert re.search(
        rf"marked-12.png page 1: copy {layout.copies[0]['id']} page {n} is marked differently "
        r"from marked-11.png page 1 \(\S",
        str(error.value),
    )
    assert "marked-11-again" not in str(error.value)  # the same marks: only a duplicate
    assert ScanPage.objects.count() == 0
    assert not list((tmp_path / "home" / "scans").glob("*"))
    # --skip-bad leaves the doubtful page out; against a stored page, the same holds.
    call_command("import_scans", str(marked[0]), str(marked[1]), "--skip-bad")
    assert ScanPage.objects.count() == 0
    call_command("import_scans", str(marked[0]))
    with pytest.raises(CommandError, match="is marked differently from the page stored"):
        call_command("import_scans", str(marked[1]))
    assert ScanPage.objects.count() == 1


def test_skip_bad_imports_the_good_pages(printed, tmp_path):
    study, out, layout = printed
    scans, _ = _scans(out, layout, layout.copies[0], random.Random(3))
    good, text = tmp_path / "good.png", tmp_path / "notes.txt"
    cv2.imwrite(str(good), scans[0])
    text.write_text("x")
    call_command("import_scans", str(good), str(text), "--skip-bad")
    assert ScanPage.objects.count() == 1


def test_print_refuses_unknown_questionnaire(printed, tmp_path):
    study, _, _ = printed
    with pytest.raises(CommandError, match="no questionnaire 7"):
        call_command(
            "print_questionnaires",
            "--study",
            study.slug,
            "--questionnaire",
            "7",
            "--out",
            str(tmp_path / "x"),
        )
    assert not (tmp_path / "x").exists()
    assert PaperCopy.objects.count() == 2


def test_review_resolution_reaches_the_participant(printed, tmp_path):
    study, out, layout = printed
    scans, _ = _scans(out, layout, layout.copies[0], random.Random(5))
    rng = random.Random(6)
    # Check two boxes of pair 1's first question: it must be flagged, then decided.
    page = [grey for _, grey in scanning.load_pages(out / layout.copies[0]["file"], DPI)]
    boxes = layout.questions()["pair-1.holistic"]
    target = page[boxes[0].page - 1]
    for box in boxes[:2]:
        pen.check(target, box, DPI / 72, rng, pencil=False, cross=True)
    scans[boxes[0].page - 1] = pen.scan(target, rng)
    for n, scan in enumerate(scans):
        cv2.imwrite(str(tmp_path / f"{n}.png"), scan)
    call_command("import_scans", *[str(tmp_path / f"{n}.png") for n in range(len(scans))])
    answer = PaperAnswer.objects.get(field="pair-1.holistic")
    assert answer.status == "pending" and "several" in answer.reason
    person = answer.copy.participant
    assert person.ratings.get(position=1).holistic is None
    scan_import.resolve(answer, "2", "researcher")
    assert person.ratings.get(position=1).holistic == 2
    age = PaperAnswer.objects.get(field="about.age")
    with pytest.raises(ValueError):
        scan_import.resolve(age, "forty", "researcher")
    scan_import.resolve(age, "41", "researcher")
    langs = PaperAnswer.objects.get(field="about.languages")
    scan_import.resolve(langs, "English: Native\nFrench: Fluent, DELF B2", "researcher")
    person.refresh_from_db()
    assert person.age == 41
    assert sorted(person.languages.values_list("language", "fluency")) == [
        ("English", 7),
        ("French", 4),
    ]


def test_review_page_stores_typed_answers(printed, tmp_path, client, django_user_model):
    study, out, layout = printed
    scans, _ = _scans(out, layout, layout.copies[0], random.Random(8))
    for n, scan in enumerate(scans):
        cv2.imwrite(str(tmp_path / f"{n}.png"), scan)
    call_command("import_scans", *[str(tmp_path / f"{n}.png") for n in range(len(scans))])
    age = PaperAnswer.objects.get(field="about.age")
    assert client.get("/researcher/paper/").status_code == 302  # staff only
    client.force_login(django_user_model.objects.create_user("r", is_staff=True, is_superuser=True))
    page = client.get("/researcher/paper/")
    assert b"about.age" in page.content
    assert f'src="/researcher/paper/{age.pk}.png"'.encode() in page.content
    listed = [a.status for a in page.context["answers"]]
    assert listed == sorted(listed, key=lambda status: status != "pending")
    assert client.get(f"/researcher/paper/{age.pk}.png")["Content-Type"] == "image/png"
    refused = client.post(f"/researcher/paper/{age.pk}/", {"value": "old"})
    assert refused.status_code == 400
    client.post(f"/researcher/paper/{age.pk}/", {"value": "33"})
    age.refresh_from_db()
    assert age.status == "resolved" and age.copy.participant.age == 33
    # Typed answers are checked as the web form checks them, and refused with a clear message.
    nationality = PaperAnswer.objects.get(field="about.nationality")
    languages = PaperAnswer.objects.get(field="about.languages")
    for answer, value, message in (
        (age, "²", "a whole number of years, 0-120, or nothing"),
        (age, "1_0", "a whole number of years, 0-120, or nothing"),
        (nationality, "x" * 150, "at most 100 characters, as on the web form (150 typed)"),
        (languages, "English: Native, " + "q" * 301, "its qualifications at most 300"),
        (languages, "E" * 101 + ": Native", "a language's name is at most 100 characters"),
        (languages, "\n".join(["English: Native, " + "q" * 100] * 3), "at most 300 characters"),
        (nationality, "Fr\x00ench", "holds a NUL character"),
    ):
        response = client.post(f"/researcher/paper/{answer.pk}/", {"value": value})
        assert response.status_code == 400 and message in html.unescape(response.content.decode())
    person = Participant.objects.get(pk=age.copy.participant.pk)
    assert (person.age, person.nationality, person.languages.count()) == (33, "", 0)
    assert PaperAnswer.objects.get(pk=nationality.pk).status != "resolved"


def test_paper_consent_is_honoured_as_on_the_web(printed, tmp_path, client, django_user_model):
    """A statement left unchecked: the answers are kept for review, but not analysed or shared."""
    study, out, layout = printed
    rng = random.Random(9)
    for copy, leave_blank in zip(layout.copies, (False, True), strict=True):
        pages = [grey for _, grey in scanning.load_pages(out / copy["file"], DPI)]
        pen.mark(pages, layout, DPI, rng, pen.PenModel(blank=0, pencil=0))
        # Marks were drawn on every question; redraw the consent page without them if needed.
        if leave_blank:
            clean = [grey for _, grey in scanning.load_pages(out / copy["file"], DPI)]
            box = layout.questions()["consent.2"][0]
            px = DPI / 72
            top, bottom = round((box.y - 1) * px), round((box.y + box.h + 1) * px)
            left, right = round((box.x - 1) * px), round((box.x + box.w + 1) * px)
            pages[box.page - 1][top:bottom, left:right] = clean[box.page - 1][
                top:bottom, left:right
            ]
        for n, page in enumerate(pages):
            cv2.imwrite(str(tmp_path / f"{copy['id']}-{n}.png"), pen.scan(page, rng))
    # New consent statements after printing: the paper copies answered the printed version 1.
    study.consent_texts.create(version=2, statements=["I agree to new terms."])
    call_command("import_scans", *map(str, sorted(tmp_path.glob("*.png"))))
    consents = {
        code: (shares, version)
        for code, shares, version in PaperCopy.objects.values_list(
            "code", "participant__share_data", "participant__consent_version"
        )
    }
    assert consents == {layout.copies[0]["id"]: (True, 1), layout.copies[1]["id"]: (False, None)}
    staff = django_user_model.objects.create_user("r", is_staff=True, is_superuser=True)
    client.force_login(staff)
    (row,) = client.get("/researcher/").context["studies"]
    assert (row.participant_count, row.web_count, row.paper_count) == (2, 0, 2)
    page = client.get(f"/researcher/studies/{study.slug}/")
    assert b"participants: 0 on the web, 2 on paper" in page.content
    from analysis import frames

    table = frames.participants_table(frames.select_participants(study, sharing_only=True))
    assert list(table["mode"]) == ["paper"]
    # Without full consent the answers wait for review but are neither analysed nor exported.
    assert frames.select_participants(study).count() == 1


def test_printed_copy_carries_the_web_texts_in_order(printed):
    import pypdfium2

    study, out, layout = printed
    pdf = pypdfium2.PdfDocument(out / layout.copies[0]["file"])
    text = " ".join(pdf[n].get_textpage().get_text_range() for n in range(len(pdf)))
    text = " ".join(text.split())
    for expected in (
        study.name,
        "Select an answer",
        "Cancel an answer",
        "I agree to take part.",
        study.holistic_low,
        study.order_high,
        "How old are you?",
        f"WOJDB:{study.slug}:1:{layout.copies[0]['id']}:1",
    ):
        assert expected in text, expected
    questionnaire = study.questionnaires.get()
    assert questionnaire.frozen  # handed out on paper: no later edits
    positions = []
    for entry in questionnaire.entries.select_related("item__triple").order_by("position"):
        positions.append(text.index(f"Pair {entry.position} translated from"))
        assert " ".join(entry.item.text.split()) in text
    assert positions == sorted(positions)
    assert len(pdf) == layout.pages


def test_scans_in_a_pdf_are_read_and_a_broken_pdf_is_named(printed, tmp_path):
    from PIL import Image

    study, out, layout = printed
    scans, _ = _scans(out, layout, layout.copies[0], random.Random(10))
    first, *rest = [Image.fromarray(scan) for scan in scans[:3]]
    first.save(tmp_path / "scans.pdf", save_all=True, append_images=rest, resolution=DPI)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n garbage")
    with pytest.raises(CommandError, match="broken.pdf: not a readable PDF"):
        call_command("import_scans", str(tmp_path / "scans.pdf"), str(broken))
    assert ScanPage.objects.count() == 0
    call_command("import_scans", str(tmp_path / "scans.pdf"), "--dpi", str(DPI))
    assert sorted(ScanPage.objects.values_list("page", flat=True)) == [1, 2, 3]
    assert scan_import.waiting_copies() == {
        layout.copies[0]["id"]: list(range(4, layout.pages + 1))
    }


def _pdf_text(path) -> tuple[str, list[tuple[float, float, float]]]:
    """A PDF's text, whitespace normalised, and each page's width with its text's left and
    right edges."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(path)
    text, extents = [], []
    for page in pdf:
        textpage = page.get_textpage()
        text.append(textpage.get_text_range())
        boxes = [textpage.get_charbox(n) for n in range(textpage.count_chars())]
        boxes = [b for b in boxes if b[2] > b[0]]  # spaces and line ends have no width
        extents.append((page.get_width(), min(b[0] for b in boxes), max(b[2] for b in boxes)))
    return " ".join(" ".join(text).split()), extents


def assert_within_margins(extents):
    for width, left, right in extents:
        assert left >= CONTENT_SIDE - 1 and right <= width - CONTENT_SIDE + 1, (left, right)


def test_a_french_study_prints_in_french_and_its_copies_read_back(db, tmp_path, settings):
    from tests.survey.test_study_language import english_left, french_study

    settings.MEDIA_ROOT = tmp_path / "home"
    study = french_study(questionnaires=1, items=12)
    out = tmp_path / "print"
    call_command("print_questionnaires", "--study", study.slug, "--copies", "1", "--out", str(out))
    layout = Layout.read(out / "layout.json")
    text, extents = _pdf_text(out / layout.copies[0]["file"])
    for expected in (
        "Comment répondre",
        "Pour choisir une réponse : cochez sa case",
        "Pour annuler une réponse et la changer : noircissez sa case",
        "Utilisez un stylo foncé.",
        "1 À propos de vous",
        "1.1 Le français est-il votre langue maternelle ?",
        "Oui Non",
        "Langue maternelle, Quasi natif",  # the fluency names of the write-in's label
        "Je préfère ne pas répondre",
        "2 Formulaire de consentement",
        "J'accepte de participer à l'étude.",
        "3 Exemple",
        "4 Paires de phrases",
        "Paire 12 langue d'origine : allemand",
        "Traduction produite par une machine :",
        "Page 1",
    ):
        assert expected in text, expected
    # The sentences rated are English: everything else is French.
    for entry in study.questionnaires.get().entries.select_related("item__triple__segment"):
        for sentence in (entry.item.text, entry.item.reference):
            text = text.replace(" ".join(sentence.split()), " ")
    sample = study.sample_item
    for sentence in (sample.text, sample.reference):
        text = text.replace(" ".join(sentence.split()), " ")
    assert english_left(text) == []
    assert not re.search(r"\b(page|Pair|Sample) \d", text)  # ids with a number in them
    # The longer French lines still keep to the printed margins.
    assert_within_margins(extents)
    for name in ("information.pdf", "debriefing.pdf"):
        assert english_left(_pdf_text(out / name)[0]) == [], name

    # A copy filled in by the simulated pen is read back box by box.
    rng = random.Random(11)
    scans, truth = _scans(out, layout, layout.copies[0], rng)
    for n, scan in enumerate(scans):
        cv2.imwrite(str(tmp_path / f"{n}.png"), scan)
    call_command("import_scans", *[str(tmp_path / f"{n}.png") for n in range(len(scans))])
    person = PaperCopy.objects.get(code=layout.copies[0]["id"]).participant
    # A faint pencil mark is left to the researcher, as in English.
    flagged = set(PaperAnswer.objects.filter(kind="box").values_list("field", flat=True))
    assert len(flagged) <= 2
    read = {name: None if name in flagged else value for name, value in truth.items()}
    ratings = {r.position: r for r in Rating.objects.filter(participant=person)}
    assert len(ratings) == 13
    for position, rating in ratings.items():
        prefix = "practice" if position == 0 else f"pair-{position}"
        for suffix, got in (("holistic", rating.holistic), ("word_order", rating.order)):
            value = read[f"{prefix}.{suffix}"]
            assert got == (int(value) if value else None), (prefix, suffix)
    assert person.gender == (read["about.gender"] or "")
    assert person.education == (read["about.education"] or "")
    first = read["about.english_first"]
    assert person.target_first == {"yes": True, "no": False, None: None}[first]
    consent = [name for name in truth if name.startswith("consent.")]
    assert person.share_data is all(read[name] == "agree" for name in consent)
    # The fluency is typed in as the copy printed it, in French.
    langs = PaperAnswer.objects.get(field="about.languages")
    scan_import.resolve(langs, "français : Langue maternelle\nanglais : courant, TOEIC", "r")
    assert sorted(person.languages.values_list("language", "fluency")) == [
        ("anglais", 4),
        ("français", 7),
    ]


def test_a_german_study_prints_in_german(db, tmp_path):
    from tests.survey.test_study_language import english_left, study_in

    study = study_in("de", questionnaires=1, items=2)
    out = tmp_path / "print"
    call_command("print_questionnaires", "--study", study.slug, "--copies", "1", "--out", str(out))
    layout = Layout.read(out / "layout.json")
    text, extents = _pdf_text(out / layout.copies[0]["file"])
    for expected in (
        "So antworten Sie",
        "Antwort zurücknehmen, um sie zu ändern: Kästchen ausmalen",
        "1 Zu Ihrer Person",
        "Ist Deutsch Ihre Muttersprache?",
        "Ja Nein",
        "Paar 2 Ausgangssprache: Deutsch",
        "Von einem Menschen erstellte Übersetzung:",
        "Seite 1",
    ):
        assert expected in text, expected
    assert_within_margins(extents)
    assert english_left(_pdf_text(out / "information.pdf")[0]) == []


@pytest.mark.slow
def test_withdrawal_erases_a_paper_participant_and_their_scans_unless_shared(
    printed, tmp_path, client, django_user_model
):
    """Copies A and B; one TIFF holds a page of each (a batch scan), the other pages are PNGs.
    A withdrawal erases the person's ratings, scanned pages, typed answers and crops, and the
    kept files only their pages came from; the shared TIFF goes with the second withdrawal."""
    study, out, layout = printed
    codes = [c["id"] for c in layout.copies]
    scans = [
        _scans(out, layout, copy, random.Random(20 + n))[0] for n, copy in enumerate(layout.copies)
    ]
    cv2.imwritemulti(str(tmp_path / "batch.tif"), [scans[0][0], scans[1][0]])
    own = {code: [] for code in codes}
    for code, pages in zip(codes, scans, strict=True):
        for n, page in enumerate(pages[1:], start=2):
            own[code].append(tmp_path / f"{code}-{n}.png")
            cv2.imwrite(str(own[code][-1]), page)
    files = [tmp_path / "batch.tif", *own[codes[0]], *own[codes[1]]]
    call_command("import_scans", *map(str, files), "--dpi", str(DPI))
    home = tmp_path / "home"

    def kept(path):
        return home / f"scans/{hashlib.sha256(path.read_bytes()).hexdigest()}{path.suffix}"

    assert all(kept(path).exists() for path in files)
    first, second = (PaperCopy.objects.get(code=code).participant for code in codes)
    scan_import.resolve(PaperAnswer.objects.get(copy__code=codes[0], field="about.age"), "41", "r")

    participation.withdraw(first)
    assert not Participant.objects.filter(pk=first.pk).exists()
    assert not Rating.objects.filter(participant_id=first.pk).exists()
    assert not ScanPage.objects.filter(copy__code=codes[0]).exists()
    assert not PaperAnswer.objects.filter(copy__code=codes[0]).exists()
    assert not PaperAnswer.objects.filter(value="41").exists()
    assert not any(kept(path).exists() for path in own[codes[0]])
    assert kept(tmp_path / "batch.tif").exists()  # page 1 of copy B comes from it
    assert all(kept(path).exists() for path in own[codes[1]])
    assert ScanPage.objects.filter(copy__code=codes[1]).count() == layout.pages
    assert Withdrawal.objects.filter(study=study).count() == 1

    # Scanned again, the withdrawn copy's pages are left out, and neither they nor the files
    # only they come from are kept again.
    out = StringIO()
    call_command("import_scans", *map(str, files), "--dpi", str(DPI), stdout=out)
    assert f"left out: batch.tif page 1: copy {codes[0]} page 1: its participant withdrew\n" in (
        out.getvalue()
    )
    assert not ScanPage.objects.filter(copy__code=codes[0]).exists()
    assert not any(kept(path).exists() for path in own[codes[0]])
    assert ScanPage.objects.filter(copy__code=codes[1]).count() == layout.pages

    # Deleting a participant in the admin is a withdrawal too.
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    url = reverse("admin:survey_participant_delete", args=[second.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not Participant.objects.exists() and not ScanPage.objects.exists()
    assert not PaperAnswer.objects.exists()
    assert Withdrawal.objects.filter(study=study).count() == 2
    assert not any((home / "scans").iterdir())


def test_scans_read_again_after_a_withdrawal_import_everyone_else(printed, tmp_path):
    """Re-importing a batch after a paper participant withdrew was refused whole ("15 page(s)
    or file(s) cannot be imported; nothing was written"): the others' pages are imported, the
    withdrawn person's left out and named."""
    study, out, layout = printed
    codes = [c["id"] for c in layout.copies]
    files = {}
    for n, copy in enumerate(layout.copies):
        files[copy["id"]] = tmp_path / f"copy-{n}.tif"
        cv2.imwritemulti(str(files[copy["id"]]), _scans(out, layout, copy, random.Random(n))[0])
    call_command("import_scans", str(files[codes[0]]), "--dpi", str(DPI))
    participation.withdraw(PaperCopy.objects.get(code=codes[0]).participant)
    # The whole batch, read again with the second copy scanned since.
    report = StringIO()
    call_command("import_scans", str(files[codes[0]]), str(files[codes[1]]), "--dpi", str(DPI),
                 stdout=report)  # fmt: skip
    left_out = [
        f"left out: copy-0.tif page {n}: copy {codes[0]} page {n}: its participant withdrew"
        for n in range(1, layout.pages + 1)
    ]
    assert report.getvalue().splitlines()[: layout.pages] == left_out
    assert f"Stored {layout.pages} page(s); 1 copy complete" in report.getvalue()
    person = PaperCopy.objects.get(code=codes[1]).participant
    assert person is not None and Participant.objects.get(mode="paper") == person
    assert not ScanPage.objects.filter(copy__code=codes[0]).exists()
    assert not PaperCopy.objects.filter(code=codes[0]).exists()


def test_a_long_file_name_never_cuts_off_the_name_of_the_kept_scan():
    kept = "scans/" + "a" * 64 + ".pdf"
    source = scan_store.source("n" * 400 + ".pdf page 1", kept)
    assert len(source) == ScanPage._meta.get_field("source").max_length
    assert scan_store.KEPT_NAME.search(source).group(1) == kept


@pytest.mark.django_db
def test_a_study_asking_for_word_marks_is_not_printed(tmp_path):
    study = make_study(questionnaires=1, items=2, word_marks=True)
    out = tmp_path / "print"
    with pytest.raises(CommandError) as error:
        call_command("print_questionnaires", "--study", study.slug, "--out", str(out))
    assert str(error.value) == (
        f"study {study.slug!r}: word marks are asked on the web only: turn word_marks off for a "
        "paper run"
    )
    assert not out.exists() and not PaperCopy.objects.exists()
