import html

import pytest
from django import forms
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from survey.models import Participant, QuestionnaireLoad, Study, StudyMember
from survey.participants.assignment import enrol
from survey.participants.forms import DecimalNumber, WholeNumber
from tests.factories import make_study


@pytest.fixture
def staff_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw-long-enough")
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_every_model_has_a_working_admin_list(staff_client):
    make_study()
    for model in [
        *apps.get_app_config("survey").get_models(),
        *apps.get_app_config("analysis").get_models(),
    ]:
        # Teams change on the study page and by `study_team` alone; joins keep their counts.
        if model in (StudyMember, QuestionnaireLoad):
            assert not admin.site.is_registered(model)
            continue
        assert admin.site.is_registered(model), model
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert staff_client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_started_questionnaire_entries_are_read_only_in_the_admin(staff_client):
    study = make_study(questionnaires=1)
    questionnaire = study.questionnaires.get()
    url = reverse("admin:survey_questionnaire_change", args=[questionnaire.pk])
    assert b'name="entries-0-item"' in staff_client.get(url).content
    participant = enrol(study)
    Participant.objects.filter(pk=participant.pk).update(status="in_progress")
    page = staff_client.get(url).content
    assert b'name="entries-0-item"' not in page
    assert b"Questionnaire entries" in page


def consent_form(study, consent, statements: str) -> dict:
    return {"study": study.pk, "version": consent.version, "statements": statements,
            "optional": "[]", "sharing": ""}  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize(
    "statements, message",
    [
        ('["I agree to something else."]', "Consent version 1 is saved, and participants record"),
        ('["x\\u0000y"]', r"statements[1]: holds a control character (\u0000) at character 2"),
        (f'["{"x" * 2001}"]', "statements[1]: is longer than 2,000 characters (2,001)"),
        ('"oops"', "must be a list, not a text"),
        ("[1]", "statements[1]: must be a text, not a whole number (1)"),
    ],
)
def test_a_consent_version_is_checked_as_in_a_study_file_and_never_changes(
    staff_client, statements, message
):
    """Participants record the version they accepted: the admin rewrote it, and took a NUL
    (which PostgreSQL refuses with a 500) or a statement of any length."""
    study = make_study()
    consent = study.consent_texts.get()
    url = reverse("admin:survey_consenttext_change", args=[consent.pk])
    response = staff_client.post(url, consent_form(study, consent, statements))
    assert response.status_code == 200 and message in response.content.decode()
    assert study.consent_texts.get().statements == consent.statements


@pytest.mark.django_db
def test_a_consent_version_participants_accepted_is_never_deleted(staff_client):
    from django.forms import inlineformset_factory

    from survey.admin import ConsentTextFormSet
    from survey.models import ConsentText

    study = make_study()
    consent = study.consent_texts.get()
    Participant.objects.create(
        study=study, questionnaire=study.questionnaires.first(), consent_version=consent.version
    )
    delete = reverse("admin:survey_consenttext_delete", args=[consent.pk])
    assert staff_client.post(delete, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:survey_consenttext_changelist")
    action = {"action": "delete_selected", "_selected_action": [consent.pk], "post": "yes"}
    assert staff_client.post(changelist, action).status_code == 403
    # The study page's inline list of versions refuses it too.
    formset = inlineformset_factory(
        type(study), ConsentText, formset=ConsentTextFormSet, fields=["version"], extra=0
    )
    data = {"consent_texts-TOTAL_FORMS": "1", "consent_texts-INITIAL_FORMS": "1",
            "consent_texts-0-id": consent.pk, "consent_texts-0-version": consent.version,
            "consent_texts-0-DELETE": "on"}  # fmt: skip
    bound = formset(data, instance=study)
    assert not bound.is_valid()
    assert "Consent version 1 is what participants accepted" in str(bound.non_form_errors())
    assert study.consent_texts.filter(pk=consent.pk).exists()


def study_form(study) -> dict:
    """The study's change form as the admin page fills it, posted back as a browser does: text
    boxes with "\\r\\n" line ends and no final line end, ticked boxes "on", unticked ones absent."""
    from django.test import RequestFactory

    from survey.models import Study

    form = admin.site._registry[Study].get_form(RequestFactory().get("/"), study)(instance=study)
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is True:
            data[name] = "on"
        elif isinstance(value, str):
            data[name] = value.strip().replace("\n", "\r\n")
        elif isinstance(value, list):
            data[name] = ",".join(map(str, value))  # a raw id field's ids
        elif value is not None and value is not False:
            data[name] = str(value)
    return data | {"consent_texts-TOTAL_FORMS": "0", "consent_texts-INITIAL_FORMS": "0"}


def answered_study():
    """A launched study with a real participant's answer."""
    from survey.models import Rating

    study = make_study(questionnaires=1)
    person = Participant.objects.create(
        study=study, questionnaire=study.questionnaires.get(), status="in_progress"
    )
    entry = person.questionnaire.entries.first()
    Rating.objects.create(participant=person, item=entry.item, position=1, holistic=3)
    return study


@pytest.mark.django_db
def test_the_admin_refuses_to_change_what_participants_of_an_answered_study_were_shown(
    staff_client,
):
    """After real answers, the admin's study form took a new question and a new practice pair:
    the release then stated a question nobody was asked, and the study's own release no longer
    imported."""
    from survey.models import Study
    from tests.factories import make_hypothesis_item

    study = answered_study()
    url = reverse("admin:survey_study_change", args=[study.pk])
    data = study_form(study)
    # Posted back unchanged (as a browser sends the text boxes), the form saves.
    assert staff_client.post(url, data).status_code == 302
    before = Study.objects.get(pk=study.pk)
    other = make_hypothesis_item()
    for change, named in (
        ({"holistic_question": "How funny is this translation?"}, "holistic_question"),
        ({"holistic_low": "Dull", "order_high": "Perfect"}, "holistic_low, order_high"),
        ({"sample_item": str(other.pk)}, "sample_item"),
        ({"shared_items": str(other.pk)}, "shared_items"),
        ({"information_sheet": "Another sheet."}, "information_sheet"),
        ({"language": "fr"}, "language"),
        ({"project_title": "Another title"}, "project_title"),
        ({"items_per_questionnaire": "20"}, "items_per_questionnaire"),
    ):
        response = staff_client.post(url, data | change)
        page = html.unescape(response.content.decode())
        assert response.status_code == 200
        assert (
            f"Study {study.slug!r}: it has 1 real answer(s); this form changes {named}, which "
            "would alter what they are shown. Nothing was saved." in page
        ), change
        assert "Participants were shown this: it stays as it is." in page
        after = Study.objects.get(pk=study.pk)
        assert (after.revision, after.sample_item_id) == (before.revision, before.sample_item_id)
        assert set(after.shared_items.all()) == set(before.shared_items.all())
    # The study's name is the title participants read while it has no title of its own.
    Study.objects.filter(pk=study.pk).update(project_title="")
    data = study_form(Study.objects.get(pk=study.pk))
    response = staff_client.post(url, data | {"name": "Renamed"})
    assert "this form changes name, which would alter" in html.unescape(response.content.decode())
    # What participants read after answering, and the contacts, stay editable.
    Study.objects.filter(pk=study.pk).update(project_title="Its own title")
    data = study_form(Study.objects.get(pk=study.pk))
    later = {"debriefing": "Thank you.", "researcher_email": "new@example.org", "name": "Renamed"}
    assert staff_client.post(url, data | later).status_code == 302
    after = Study.objects.get(pk=study.pk)
    assert (after.debriefing, after.researcher_email, after.name) == (
        "Thank you.",
        "new@example.org",
        "Renamed",
    )


@pytest.mark.django_db
def test_the_admin_changes_a_study_nobody_has_answered(staff_client):
    from survey.models import Study

    study = make_study(questionnaires=1, launched_at=None)
    url = reverse("admin:survey_study_change", args=[study.pk])
    data = study_form(study)
    change = {"holistic_question": "How funny is this translation?", "language": "fr"}
    assert staff_client.post(url, data | change).status_code == 302
    after = Study.objects.get(pk=study.pk)
    assert (after.holistic_question, after.language) == (change["holistic_question"], "fr")


@pytest.mark.django_db
def test_the_admin_turns_word_marks_on(staff_client):
    study = make_study(questionnaires=1, launched_at=None)
    url = reverse("admin:survey_study_change", args=[study.pk])
    assert 'name="word_marks"' in staff_client.get(url).content.decode()
    assert staff_client.post(url, study_form(study) | {"word_marks": "on"}).status_code == 302
    assert Study.objects.get(pk=study.pk).word_marks is True


def test_every_study_field_is_either_shown_or_not():
    """One list of what participants are shown: a new Study field must be placed in it."""
    from survey.design import shown
    from survey.design.plan import study_fields
    from survey.models import Study

    editable = {f.name for f in Study._meta.get_fields() if getattr(f, "editable", False)}
    editable -= {"id"}
    assert len(shown.SHOWN) == len(set(shown.SHOWN))
    assert not set(shown.SHOWN) & set(shown.NOT_SHOWN)
    assert set(shown.SHOWN) | set(shown.NOT_SHOWN) == editable
    assert set(shown.ITEMS) == editable - {f.name for f in study_fields()}


@pytest.mark.django_db
def test_sentences_an_answered_study_shows_are_read_only_in_the_admin(staff_client):
    """The texts of a pair participants answered changed under their answers in the admin's
    pages of sentences, translations, permutations and items."""
    study = answered_study()
    entry = study.questionnaires.get().entries.filter(item__permutation__isnull=False).first()
    item = entry.item
    pages = {
        "segment": (item.triple.segment, "reference"),
        "triple": (item.triple, "hypothesis"),
        "permutation": (item.permutation, "text"),
        "item": (item, "triple"),
    }
    for model, (sentence, field) in pages.items():
        url = reverse(f"admin:survey_{model}_change", args=[sentence.pk])
        assert f'name="{field}"'.encode() not in staff_client.get(url).content, model
        assert staff_client.post(url, {field: "Changed."}).status_code == 403, model
    # Before the launch and without real answers, they can still be corrected.
    study.participants.all().delete()
    type(study).objects.filter(pk=study.pk).update(launched_at=None)
    for model, (sentence, field) in pages.items():
        url = reverse(f"admin:survey_{model}_change", args=[sentence.pk])
        assert f'name="{field}"'.encode() in staff_client.get(url).content, model


@pytest.mark.django_db
@pytest.mark.parametrize("held_by", ["pool", "questionnaire", "practice pair", "shared items"])
def test_a_sentence_is_locked_by_each_way_an_answered_study_holds_it(held_by):
    from survey.design.shown import locked_content
    from survey.models import PoolEntry, QuestionnaireEntry
    from tests.factories import make_hypothesis_item

    study = answered_study()
    item = make_hypothesis_item()
    segment = item.triple.segment
    assert locked_content(segment) is None
    if held_by == "pool":
        PoolEntry.objects.create(study=study, triple=item.triple)
    elif held_by == "questionnaire":
        QuestionnaireEntry.objects.create(questionnaire=study.questionnaires.get(), position=99,
                                          item=item)  # fmt: skip
    elif held_by == "practice pair":
        Study.objects.filter(pk=study.pk).update(sample_item=item)
    else:
        study.shared_items.add(item)
    locked = f"study {study.slug!r} shows it, and "
    for sentence in (segment, item.triple, item):
        assert (locked_content(sentence) or "").startswith(locked), (held_by, sentence)
    # A sentence no study holds is not locked.
    assert locked_content(make_hypothesis_item().triple.segment) is None


@pytest.mark.django_db
def test_every_number_typed_in_the_admin_is_read_by_the_one_rule(rf, admin_user):
    """Django's own fields read "1_0" as 10 and "٣" as 3 (wojdb.core.numbers)."""
    request = rf.get("/")
    request.user = admin_user
    checked = 0
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in ("survey", "analysis"):
            continue
        inlines = [i.get_formset(request).form for i in model_admin.get_inline_instances(request)]
        for form in [model_admin.get_form(request), *inlines]:
            for name, field in form.base_fields.items():
                if isinstance(field, forms.IntegerField):  # FloatField is one too
                    assert isinstance(field, WholeNumber | DecimalNumber), (model, name)
                    checked += 1
    assert checked > 20
    study = make_study()
    form = admin.site._registry[Study].get_form(request, study)
    for typed in ("1_0", "\u0663", "3.0", "99999999999999999999"):
        data = {**form(instance=study).initial, "items_per_questionnaire": typed}
        assert "items_per_questionnaire" in form(data, instance=study).errors, typed
