"""Texts a researcher can edit safely: one form of line ends whichever way a text comes in,
a rendered preview on the study's admin page, every text participants read settable per study
(the project title and what happens to the data too), and nothing of the thesis or of another
study in a new one."""

from __future__ import annotations

import importlib
import re
import tomllib
from html.parser import HTMLParser
from io import StringIO

import pytest
import tomli_w
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse

from survey.models import PlatformIdentity, Study
from tests.factories import FILLED_SETTINGS, make_study
from tests.survey.test_participant_views import consent, enter, languages, text_of
from wojdb.core import texts
from wojdb.core.texts import en

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
THESIS_TITLE = "Human Judgements of Word Order in Machine Translation"


class FormReader(HTMLParser):
    """The fields a browser would send for the page's form with the given id, unchanged:
    text areas with their lines ended by CR LF, as browsers send them."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id, self.inside, self.fields = form_id, False, []
        self.textarea = self.select = None
        self.option = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        if tag == "input" and a.get("name") and "disabled" not in a:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" in a:
                self.fields.append((a["name"], a.get("value", "on")))
            elif kind not in ("checkbox", "radio", "submit", "file"):
                self.fields.append((a["name"], a.get("value", "")))
        elif tag == "textarea":
            self.textarea = [a["name"], ""]
        elif tag == "select":
            self.select = a["name"]
        elif tag == "option" and self.select and "selected" in a:
            self.fields.append((self.select, a.get("value", "")))

    def handle_data(self, data):
        if self.textarea is not None:
            self.textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "textarea" and self.textarea is not None:
            name, value = self.textarea
            value = value.removeprefix("\n")  # HTML drops the newline after <textarea>
            self.fields.append((name, value.replace("\n", "\r\n")))
            self.textarea = None
        elif tag == "select":
            self.select = None
        elif tag == "form":
            self.inside = False


def unchanged_form(page: str, form_id: str) -> dict[str, list[str]]:
    reader = FormReader(form_id)
    reader.feed(page)
    data: dict[str, list[str]] = {}
    for name, value in reader.fields:
        data.setdefault(name, []).append(value)
    return data


@pytest.fixture
def admin_client(django_user_model):
    client = Client()
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw-long-1")
    client.force_login(user)
    return client


def information_sheet(client, study) -> str:
    return client.get(f"/s/{study.slug}/").content.decode()


# --- line ends --------------------------------------------------------------------------------


def test_an_unchanged_admin_save_leaves_every_text_rendered(admin_client, client):
    study = make_study(questionnaires=1, items=2)
    before = {name: getattr(study, name) for name in texts.DOCUMENTS}
    url = reverse("admin:survey_study_change", args=[study.pk])
    form = unchanged_form(admin_client.get(url).content.decode(), "study_form")
    assert "\r\n" in form["information_sheet"][0]  # what a browser sends
    response = admin_client.post(url, form | {"_save": ["Save"]})
    assert response.status_code == 302, response.content.decode()[:2000]
    study.refresh_from_db()
    for name, text in before.items():
        stored = getattr(study, name)
        assert "\r" not in stored, name
        assert stored.strip() == text.strip(), name
    page = information_sheet(client, study)
    assert "##" not in page
    assert "<h2>What is the study about?</h2>" in page
    assert "<h2>Do I have to take part?</h2>" in page


def test_every_text_field_is_kept_with_newline_line_ends_whichever_way_it_comes():
    study = make_study(questionnaires=1, items=2)
    study.debriefing = "## Thanks\r\nLine one\r\n\r\nOld Mac\rline"
    study.holistic_question = "Two\r\nlines?"
    study.save()
    study.refresh_from_db()
    assert study.debriefing == "## Thanks\nLine one\n\nOld Mac\nline"
    assert study.holistic_question == "Two\nlines?"
    assert texts.blocks(study.debriefing) == [
        ("h", "Thanks"),
        ("p", "Line one"),
        ("p", "Old Mac\nline"),
    ]


def test_a_study_file_with_cr_lf_line_ends_applies_again_unchanged(tmp_path):
    """A file written on another system (or from a study saved before texts were kept with
    "\\n") re-creates the study, and updating the started study with it changes nothing."""
    study = make_study(questionnaires=1, items=2, holistic_question="Line one\nline two?")
    out = StringIO()
    call_command("study_config", study.slug, stdout=out)
    declared = tomllib.loads(out.getvalue())
    crlf = {k: v.replace("\n", "\r\n") if isinstance(v, str) else v for k, v in declared.items()}
    path = tmp_path / "study.toml"
    path.write_text(tomli_w.dumps(crlf))  # "\r\n" escapes inside one-line strings
    assert '"Line one\\r\\nline two?"' in path.read_text()
    study.participants.create(questionnaire=study.questionnaires.get(), status="in_progress")
    call_command("create_study", str(path), stdout=StringIO())  # no "the file changes …"
    study.refresh_from_db()
    assert study.holistic_question == "Line one\nline two?"
    assert "\r" not in study.information_sheet


def test_the_migration_normalises_old_texts_and_keeps_the_thesis_title_as_a_setting():
    """What existing studies become: "\\n" line ends, the title as their setting (so they
    show what they showed), the data-use text of their language, launched when made."""
    study = make_study(questionnaires=1, items=2, language="fr")
    old = en.INFORMATION_SHEET.replace("{project_title}", THESIS_TITLE)
    Study.objects.filter(pk=study.pk).update(
        information_sheet=old.replace("\n", "\r\n"), data_use="", launched_at=None
    )
    migration = importlib.import_module("survey.migrations.0017_launch_and_study_texts")
    migration.existing_studies_as_they_were(apps, connection.schema_editor())
    study.refresh_from_db()
    assert study.information_sheet == en.INFORMATION_SHEET
    assert study.project_title == THESIS_TITLE
    assert study.data_use == texts.data_use("fr")
    assert study.launched_at == study.created


# --- the preview ------------------------------------------------------------------------------


def test_the_admin_page_previews_every_text_as_participants_read_it(admin_client):
    study = make_study(questionnaires=1, items=2, reward="")
    page = admin_client.get(reverse("admin:survey_study_change", args=[study.pk])).content
    page = page.decode()
    for name in ("information_sheet", "consent_intro", "debriefing", "instructions", "data_use"):
        assert f'data-preview="{name}"' in page
    preview = page[page.index('data-preview="information_sheet"') :]
    assert "<h4>What is the study about?</h4>" in preview
    assert "This study is being conducted by Ada Researcher at the Example School" in preview
    assert "[reward]" in preview  # an empty setting shows where it is missing
    assert "## " not in preview[: preview.index("</section>")]


# --- every text per study ---------------------------------------------------------------------


def test_the_project_title_is_the_studys_own(client):
    study = make_study(questionnaires=1, items=2)
    assert f"<h2>Project Title</h2>\n<p>{study.name}</p>" in information_sheet(client, study)
    Study.objects.filter(pk=study.pk).update(project_title="Reading machine translations")
    page = information_sheet(client, study)
    assert "<p>Reading machine translations</p>" in page
    assert '<p class="site-name">Reading machine translations</p>' in page
    person = enter(client, study)
    assert "Reading machine translations" in text_of(client.get(f"/p/{person.token}/consent/"))
    for document in (en.INFORMATION_SHEET, en.CONSENT_INTRO, en.DEBRIEFING):
        assert "{project_title}" in document and THESIS_TITLE not in document


def test_what_happens_to_the_data_is_the_studys_own_text_everywhere(client):
    own = "Your answers stay with {researcher_name} and are deleted in 2030."
    study = make_study(questionnaires=1, items=2, data_use=own)
    said = "Your answers stay with Ada Researcher and are deleted in 2030."
    assert said in text_of(client.get(f"/s/{study.slug}/"))
    person = enter(client, study)
    assert said in text_of(client.get(f"/p/{person.token}/consent/"))
    consent(client, person)
    client.post(f"/p/{person.token}/about/", languages())
    assert said in text_of(client.get(f"/p/{person.token}/withdraw/"))
    client.post(f"/p/{person.token}/review/")
    assert said in text_of(client.get(f"/p/{person.token}/done/"))


def test_an_empty_data_use_keeps_the_study_closed():
    study = make_study(questionnaires=1, items=2, data_use="")
    assert study.unfilled() == ["data_use"]


def test_a_new_study_in_the_admin_carries_nothing_of_the_thesis_or_of_another_study(
    admin_client,
):
    demo = make_study(questionnaires=1, items=2, project_title="The demo's title")
    url = reverse("admin:survey_study_add")
    form = unchanged_form(admin_client.get(url).content.decode(), "study_form")
    form |= {"name": ["Mine"], "slug": ["mine"], "_save": ["Save"]}
    form |= {name: [value] for name, value in FILLED_SETTINGS.items()}
    response = admin_client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    mine = Study.objects.get(slug="mine")
    shown = "\n".join(texts.fill(getattr(mine, name), mine) for name in texts.DOCUMENTS)
    assert THESIS_TITLE not in shown and "The demo's title" not in shown
    assert not any(words in shown for words in texts.FOREIGN)
    assert not any(value in shown for value in ("demo", demo.name))
    assert re.search(r"\[\w+\]", shown) is None  # every setting they name is filled
    assert mine.project_title == "" and mine.title == "Mine"


def test_platform_identities_are_named_in_the_plural_correctly(admin_client):
    assert PlatformIdentity._meta.verbose_name_plural == "platform identities"
    assert "Platform identities" in admin_client.get(reverse("admin:index")).content.decode()
