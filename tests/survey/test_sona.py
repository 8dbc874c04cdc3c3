"""SONA Systems beyond what every platform does (tests/survey/test_platforms.py): the credit
address is SONA's own, over HTTPS, or it is refused naming its key in the study file, the
admin and study_config; the study link's parameter is the one the researcher named; someone
who came without a SONA id keeps their code for the researcher."""

from __future__ import annotations

import json
import re
import textwrap
import tomllib
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from survey import platforms
from survey.models import Participant, Study
from survey.platforms import sona
from tests.factories import make_study
from tests.survey.test_participant_views import consent, finish_all, text_of
from tests.survey.test_study_texts import unchanged_form

CREDIT = "https://psych-uni.sona-systems.com/webstudy_credit.aspx?experiment_id=123&credit_token=9185d436"
CREDIT_HTTPS_1 = (
    "https://psych-uni.sona-systems.com/webstudy_credit.aspx?experiment_id=1&credit_token=ab"
)
pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")


def on_sona(**settings) -> Study:
    return make_study(
        items=2, platform="sona", platform_settings={"sona": {"credit_url": CREDIT} | settings}
    )


@pytest.mark.parametrize(
    "address",
    [
        CREDIT,
        CREDIT + "&survey_code=XXXX",
        CREDIT.replace("webstudy_credit", "WebStudy_Credit"),
        "https://a.b.sona-systems.com:443/webstudy_credit.aspx?credit_token=Ab1&experiment_id=9",
    ],
)
def test_sonas_own_credit_addresses_are_taken(address):
    assert sona.credit_url(address) == address


@pytest.mark.parametrize(
    "address, problem",
    [
        (CREDIT.replace("https", "http"), "must be an https address"),
        (CREDIT.replace("psych-uni.sona-systems.com", "sona-systems.com"), "must be an https"),
        (CREDIT.replace(".com/", ".com.evil.example/"), "must be an https address"),
        (CREDIT.replace("psych-uni.sona-systems.com", "evil.example"), "must be an https"),
        (CREDIT.replace("https://", "https://me@"), "must be an https address"),
        (CREDIT.replace(".com/", ".com:8443/"), "must be an https address"),
        ("javascript:alert(1)//.sona-systems.com", "must be an https address"),
        (CREDIT.replace("webstudy_credit", "webstudy_debit"), "webstudy_credit.aspx address"),
        (CREDIT + "#x", "webstudy_credit.aspx address"),
        (CREDIT.replace("&credit_token=9185d436", ""), "needs one credit_token"),
        (CREDIT + "&credit_token=2", "needs one credit_token"),
        (CREDIT.replace("experiment_id=123", "experiment_id=12a"), "needs one experiment_id"),
    ],
)
def test_any_other_credit_address_is_refused_saying_why(address, problem):
    with pytest.raises(ValueError, match=problem):
        sona.credit_url(address)


@pytest.mark.django_db
def test_a_study_file_with_a_foreign_credit_address_is_refused_naming_key_and_line(tmp_path):
    path = tmp_path / "sona.toml"
    path.write_text(
        'slug = "x"\nname = "X"\nplatform = "sona"\n\n[platform_settings.sona]\n'
        'credit_url = "http://psych-uni.sona-systems.com/webstudy_credit.aspx?experiment_id=1'
        '&credit_token=ab"\nid_parameter = "sid"\n'
    )
    message = r"sona.toml, line 6, key platform_settings\.sona\.credit_url: must be an https"
    with pytest.raises(CommandError, match=message):
        call_command("create_study", str(path), stdout=StringIO())
    fixed = path.read_text().replace('"http://', '"https://')
    path.write_text(fixed.replace('"sid"', '"reading"'))
    with pytest.raises(CommandError, match=r"line 7, key platform_settings\.sona\.id_parameter"):
        call_command("create_study", str(path), stdout=StringIO())
    assert not Study.objects.exists()
    path.write_text(fixed)  # the study file takes what SONA gives
    call_command("create_study", str(path), stdout=StringIO())
    settings = Study.objects.get(slug="x").platform_settings
    assert settings == {"sona": {"credit_url": CREDIT_HTTPS_1, "id_parameter": "sid"}}


@pytest.mark.django_db
def test_the_admin_refuses_a_foreign_credit_address_naming_the_key(admin_client):
    study = on_sona()
    url = reverse("admin:survey_study_change", args=[study.pk])
    form = unchanged_form(admin_client.get(url).content.decode(), "study_form")
    foreign = {"sona": {"credit_url": "https://evil.example/webstudy_credit.aspx"}}
    response = admin_client.post(url, form | {"platform_settings": [json.dumps(foreign)]})
    assert response.status_code == 200
    assert "platform_settings.sona.credit_url: must be an https address" in text_of(response)
    study.refresh_from_db()
    assert study.platform_settings["sona"]["credit_url"] == CREDIT
    assert "SONA&#x27;s client-side completion URL" in admin_client.get(url).content.decode()


@pytest.mark.django_db
def test_study_config_writes_the_settings_back_and_refuses_a_foreign_address():
    study = on_sona(id_parameter="sid")
    out = StringIO()
    call_command("study_config", study.slug, stdout=out)
    assert f'[platform_settings.sona]\ncredit_url = "{CREDIT}"\nid_parameter = "sid"' in (
        out.getvalue()
    )
    # Stored past the checks (a shell, a copied database): the file is not written.
    Study.objects.filter(pk=study.pk).update(
        platform_settings={"sona": {"credit_url": CREDIT.replace("https", "http")}}
    )
    message = f"study '{study.slug}': platform_settings.sona.credit_url: must be an https"
    with pytest.raises(CommandError, match=message):
        call_command("study_config", study.slug, stdout=StringIO())


@pytest.mark.django_db
def test_the_study_link_reads_the_parameter_the_researcher_named(client):
    study = on_sona(id_parameter="sid")
    page = client.get(f"/s/{study.slug}/", {"sid": "4711", "id": "99"}).content.decode()
    assert 'name="sid" value="4711"' in page and 'name="id"' not in page
    client.post(f"/s/{study.slug}/", {"sid": "4711", "id": "99"})
    person = Participant.objects.get()
    assert person.platform.pid == "4711"
    consent(client, person)
    finish_all(client, person, 2)
    html = client.get(f"/p/{person.token}/done/").content.decode()
    assert 'href="https://psych-uni.sona-systems.com/webstudy_credit.aspx?' in html
    assert "survey_code=4711" in html and "99" not in html.split("webstudy_credit")[1][:90]


@pytest.mark.django_db
def test_someone_without_a_sona_id_keeps_their_code_for_the_researcher(client):
    study = on_sona()
    client.post(f"/s/{study.slug}/")
    person = Participant.objects.get()
    consent(client, person)
    finish_all(client, person, 2)
    page = text_of(client.get(f"/p/{person.token}/done/"))
    assert person.completion_code in page
    assert "please send this code to the researcher" in page
    assert "sona-systems.com" not in client.get(f"/p/{person.token}/done/").content.decode()


@pytest.mark.django_db
def test_a_credit_address_stored_past_the_checks_is_never_linked():
    study = on_sona()
    Study.objects.filter(pk=study.pk).update(
        platform_settings={"sona": {"credit_url": "https://evil.example/webstudy_credit.aspx"}}
    )
    study.refresh_from_db()
    assert sona.PLATFORM.hand_in(study, {"pid": "4711"}, "CODE") is None
    assert Client().get(f"/s/{study.slug}/").status_code == 200


def test_the_documented_study_file_lines_are_taken():
    """docs/crowd-platforms.md's example, as a researcher would copy it."""
    doc = (Path(__file__).resolve().parents[2] / "docs/crowd-platforms.md").read_text()
    (example,) = re.findall(r"```toml\n(.*?)```", doc, re.S)
    declared = tomllib.loads(textwrap.dedent(example))
    assert declared["platform"] == "sona"
    assert platforms.setting_problems(declared["platform_settings"]) == []
