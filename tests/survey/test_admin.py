import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from survey.assignment import enrol
from survey.models import Participant
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
