"""A study into French, end to end: the WMT21 de-fr slice imported, parsed and permuted from the
command line, a questionnaire rated in the browser in French, analysed, exported and loaded
again; and the French demo walked in French at 1280 × 800 and 390 × 844.

The permutation checks use the thesis's definitions (§6.2.3, eq. 6.2) and French
typography, not the code's own constants. Screenshots go to
test-artifacts/screenshots/french-*.png.
"""

from __future__ import annotations

import re
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from analysis.demo_studies import DEMOS, demo_study
from survey.models import Participant, Permutation, Rating, Segment, Study
from wojdb.core.release import load_release, read

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
FRENCH = DEMOS["fr"]
QUIET = {"verbosity": 0}
# §6.2.3's leading and trailing punctuation, with French guillemets and typographic quotes.
LEADING = "('`\"–“‘„«"
TRAILING = ".?!:,;)'`\"”’»"
# French elided clitics, with either apostrophe: "l’ÖVP", "d'ouvrir", "qu’il".
ELIDED = re.compile(r"^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['’]\w", re.IGNORECASE)
CLITIC = re.compile(r"^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['’]$", re.IGNORECASE)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def new_context(browser):
    opened = []

    def open_context(viewport):
        context = browser.new_context(locale="fr-FR", viewport=viewport)
        opened.append(context)
        return context

    yield open_context
    for context in opened:
        context.close()


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"french-{name}.png"), full_page=True)


def heading(page):
    return page.get_by_role("heading", level=1)


def split(word: str) -> tuple[str, str, str]:
    """A whitespace word as (leading punctuation, core, trailing punctuation)."""
    core = word.lstrip(LEADING)
    lead = word[: len(word) - len(core)]
    stripped = core.rstrip(TRAILING)
    return lead, stripped, core[len(stripped) :]


def check_permutation(reference: str, permutation: Permutation, max_degree: int = 18) -> None:
    """The thesis's properties of one permutation of a French reference."""
    ref_words, words = reference.split(), permutation.text.split()
    assert len(set(permutation.moved)) == permutation.degree, permutation.text
    # Eq. 6.2: score_perm = 1 − (degree − 1) / (max degree − 1).
    assert permutation.quality == pytest.approx(1 - (permutation.degree - 1) / (max_degree - 1))
    # Punctuation stays where it was: every position keeps its leading and trailing marks, and
    # words of punctuation alone (« : », « – ») do not move.
    assert len(words) == len(ref_words), permutation.text
    for before, after in zip(ref_words, words, strict=True):
        lead, core, trail = split(before)
        assert split(after)[0::2] == (lead, trail), (reference, permutation.text)
        if not core:
            assert after == before
    # Elisions stay whole: an elided clitic never stands alone, and without replacements every
    # elided word of the reference is still there, in one piece.
    cores = [split(w)[1] for w in words]
    assert not any(CLITIC.match(c) for c in cores), permutation.text
    if permutation.perm_type != "choice":
        ref_cores = [split(w)[1] for w in ref_words]
        assert Counter(c.casefold() for c in cores) == Counter(c.casefold() for c in ref_cores)
        elided = [c for c in ref_cores if ELIDED.match(c)]
        assert all(c.casefold() in {x.casefold() for x in cores} for c in elided)


def answer(page, holistic, order):
    """Both answers, which go with the move on that follows them, as the page sends a pair's
    answers (participant.js)."""
    page.locator(f"label[for='holistic-{holistic}']").click()
    page.locator(f"label[for='order-{order}']").click()


def take_part(page, url: str, name: str, study: Study, answered: int, share: bool) -> Participant:
    """A whole participation in French from the study link, agreeing to the data's release or
    not, answering the first `answered` pairs and moving on from the others; returns the
    participant."""
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(heading(page)).to_have_text("Notice d'information")
    text = page.locator("main").inner_text()
    assert "[" not in text and "Que devrai-je faire" in text
    shot(page, f"{name}-01-information")
    page.get_by_role("button", name="Continuer vers le formulaire de consentement").click()

    expect(heading(page)).to_contain_text("Formulaire de consentement")
    consent = study.consent_texts.get()
    for number, statement in enumerate(consent.statements, start=1):
        group = page.get_by_role("group", name=f"{number} {statement}")
        group.get_by_label("Non" if number == consent.sharing and not share else "Oui").check()
    expect(page.get_by_text("(facultatif)")).to_have_count(1)
    shot(page, f"{name}-02-consent")
    page.get_by_role("button", name="J'accepte — continuer").click()

    expect(heading(page)).to_have_text("À propos de vous")
    expect(page.get_by_text("Le français est-il votre langue maternelle")).to_be_visible()
    shot(page, f"{name}-03-about")
    page.get_by_role("button", name="Continuer", exact=True).click()

    expect(heading(page)).to_have_text("Consignes")
    expect(page.get_by_text("5 soit la meilleure réponse")).to_be_visible()
    shot(page, f"{name}-04-instructions")
    page.get_by_role("link", name="Commencer la paire d'entraînement").click()

    expect(heading(page)).to_have_text("Paire d'entraînement")
    expect(page.get_by_text(study.holistic_question)).to_be_visible()
    answer(page, 2, 2)
    shot(page, f"{name}-05-practice")
    page.get_by_role("button", name="Vérifier mes réponses").click()
    notes = page.locator(".scale .note")
    expect(notes).to_have_count(2)
    # The study's own notes, or, where it has none, the pages' own, in French.
    holistic = study.sample_holistic_note.strip() or "Lisez la première phrase comme si"
    expect(notes.first).to_contain_text(holistic)
    shot(page, f"{name}-06-practice-feedback")
    page.get_by_role("button", name="Commencer la paire 1").click()

    person = Participant.objects.filter(study=study, simulated=False).latest("pk")
    pairs = person.questionnaire.entries.count()
    for position in range(1, pairs + 1):
        expect(heading(page)).to_have_text(f"Paire {position} sur {pairs}")
        if position <= answered:
            answer(page, 1 + position % 5, 1 + (position * 2) % 5)
        if position == 1:
            shot(page, f"{name}-07-pair-1")
        last = position == pairs
        page.get_by_role("button", name="Suivant : terminer" if last else "Suivant").click()
    expect(heading(page)).to_have_text("Avant de terminer")
    page.get_by_role("button", name="Terminer et envoyer mes réponses").click()
    expect(heading(page)).to_have_text("Merci — vos réponses sont enregistrées")
    expect(page.locator("[data-completion-code]")).to_have_text(study.completion_code)
    shot(page, f"{name}-08-done")
    person.refresh_from_db()
    return person


def command(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, verbosity=0)
    return out.getvalue()


def test_a_french_study_runs_end_to_end_from_the_command_line(new_context, live_server, tmp_path):
    command("create_study", str(FRENCH.study_file))
    parsers = {p for p in Segment.objects.values_list("parser", flat=True) if p}
    assert len(parsers) == 1 and "/fr_core_news_sm-" in parsers.pop()
    for perm_type in ("order", "swap", "phrase", "choice"):
        made = Permutation.objects.filter(perm_type=perm_type).select_related("triple__segment")
        assert made.exists(), perm_type
        for permutation in made:
            check_permutation(permutation.triple.segment.reference, permutation)

    study = Study.objects.get(slug="demo-fr")
    assert study.language == "fr"
    # The practice pair is named by its texts in the study file; with the study's own notes
    # emptied, the pages write them from the pair, in French.
    study.sample_holistic_note = study.sample_order_note = ""
    study.save()
    assert study.unfilled() == []
    command("launch", "--study", "demo-fr")  # from now on, real participants

    page = new_context(DESKTOP).new_page()
    person = take_part(
        page, f"{live_server.url}/s/demo-fr/", "study", study, answered=50, share=True
    )
    assert person.status == "completed"
    answers = Rating.objects.filter(participant=person, position__gt=0)
    assert answers.count() == 50 and not answers.filter(holistic=None).exists()

    command("simulate_responses", "--participants", "12", "--seed", "1", "--study", "demo-fr")
    command("compute_metrics", "--jobs", "1")
    report = tmp_path / "report"
    command("analyse", "--study", "demo-fr", "--out", str(report), "--no-figures",
            "--bootstrap", "0")  # fmt: skip
    assert (report / "report.html").is_file()
    release = tmp_path / "release"
    command("export_wojdb", "--out", str(release), "--study", "demo-fr")
    ratings, scores = load_release(release)
    # The participant agreed to the release: their 50 answers are in it.
    assert ratings.loc[~ratings["simulated"].astype(bool), "holistic"].notna().sum() == 50
    assert set(ratings["item"]) <= set(scores["item"])
    # The target language is recorded: the study's, and every item's.
    loaded = read.read_release(release)
    assert loaded.study["language"] == "fr"
    assert set(ratings["target_lang"]) == {"fr"}
    items = loaded.tables["items"]
    assert set(zip(items["source_lang"], items["target_lang"], strict=True)) == {("de", "fr")}


@pytest.mark.django_db(transaction=True, reset_sequences=True)  # ids from 1, as in a new demo
def test_the_french_demo_in_french_on_a_desktop_and_a_phone(new_context, live_server):
    study = demo_study(FRENCH)
    # Past the first two pairs the walk moves on without answering, to stay short.
    study.require_both_answers = False
    study.save(update_fields=["require_both_answers"])
    assert study.unfilled() == []
    # The study file's practice notes name the pair the demo picks: « du » and « Kaesong »
    # of line 14's headline exchanged.
    practice = study.sample_item.permutation
    words = practice.triple.segment.reference.split()
    assert practice.triple.segment.number == 14
    assert sorted(words[i] for i in practice.moved) == ["Kaesong", "du"]
    for note in (study.sample_holistic_note, study.sample_order_note):
        assert "«\u00a0du\u00a0» et «\u00a0Kaesong\u00a0»" in note

    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = new_context(viewport).new_page()
        person = take_part(
            page, f"{live_server.url}/s/{study.slug}/", name, study, answered=2, share=False
        )
        assert person.status == "completed"
        assert (
            Rating.objects.filter(participant=person, position__gt=0).exclude(holistic=None).count()
            == 2
        )
