import pytest
from django import forms
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from survey.models import Participant, Study
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
