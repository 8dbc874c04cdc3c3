"""Each environment variable is checked when read; a bad value names the variable."""

import re

import pytest

from wojdb.environment import Environment, SettingsError


def env(**variables: str) -> Environment:
    return Environment(variables)


@pytest.mark.parametrize(
    "value", ["5/0", "0/60", "5", "5/", "/60", "a/b", "-1/60", "5/60/2", "1_0/60", "5/+60"]
)
def test_entry_rate_refuses_what_would_fail_on_every_request(value):
    with pytest.raises(SettingsError, match=re.escape(f"WOJDB_ENTRY_RATE={value!r}")):
        env(WOJDB_ENTRY_RATE=value).rate("WOJDB_ENTRY_RATE", "60/600")


def test_entry_rate_reads_a_limit_or_off():
    assert env(WOJDB_ENTRY_RATE="5/60").rate("WOJDB_ENTRY_RATE", "60/600") == (5, 60)
    assert env().rate("WOJDB_ENTRY_RATE", "60/600") == (60, 600)
    assert env(WOJDB_ENTRY_RATE="off").rate("WOJDB_ENTRY_RATE", "60/600") is None


@pytest.mark.parametrize("value", ["yes please", "2", "enabled"])
def test_flags_refuse_words_that_are_neither_on_nor_off(value):
    with pytest.raises(SettingsError, match="WOJDB_HTTPS"):
        env(WOJDB_HTTPS=value).flag("WOJDB_HTTPS")


def test_flags_read_on_and_off():
    assert env(DEBUG="True").flag("DEBUG") and not env(DEBUG="off").flag("DEBUG")
    assert env().flag("DEBUG", default=True)


@pytest.mark.parametrize("value", ["one", "-1", "1.5"])
def test_integers_refuse_non_numbers_and_negatives(value):
    with pytest.raises(SettingsError, match="WOJDB_PROXIES"):
        env(WOJDB_PROXIES=value).integer("WOJDB_PROXIES", 0)
    assert env(WOJDB_PROXIES="2").integer("WOJDB_PROXIES", 0) == 2


def test_choice_names_the_allowed_values():
    with pytest.raises(SettingsError, match="WOJDB_CACHE='redis'.*locmem, database"):
        env(WOJDB_CACHE="redis").choice("WOJDB_CACHE", "locmem", ("locmem", "database"))


def test_hosts_and_origins_refuse_empty_or_schemeless_entries():
    with pytest.raises(SettingsError, match="ALLOWED_HOSTS"):
        env(ALLOWED_HOSTS="a.org,,b.org").hosts("ALLOWED_HOSTS", "localhost")
    with pytest.raises(SettingsError, match="CSRF_TRUSTED_ORIGINS"):
        env(CSRF_TRUSTED_ORIGINS="study.example.org").origins("CSRF_TRUSTED_ORIGINS")
    origins = env(O="https://a.org, https://b.org").origins("O")
    assert origins == ["https://a.org", "https://b.org"]


@pytest.mark.parametrize(
    "value", ["https://a.org/mturk", "https://a.org?x=1", "https://a.org#x", "https://u@a.org"]
)
def test_an_origin_is_a_scheme_and_a_host_only(value):
    with pytest.raises(SettingsError, match="WOJDB_MTURK_HOSTS"):
        env(WOJDB_MTURK_HOSTS=value).origins("WOJDB_MTURK_HOSTS")
    trial = env(WOJDB_MTURK_HOSTS="http://localhost:8001/").origins("WOJDB_MTURK_HOSTS")
    assert trial == ["http://localhost:8001"]


def test_text_refuses_an_empty_value():
    with pytest.raises(SettingsError, match="WOJDB_SPACY_PIPELINE"):
        env(WOJDB_SPACY_PIPELINE=" ").text("WOJDB_SPACY_PIPELINE", "en_core_web_sm")


def test_pipelines_read_language_pipeline_pairs_with_standard_codes():
    pairs = env(P="fra=fr_core_news_md, de=de_dep_news_trf").pipelines("P")
    assert pairs == (("de", "de_dep_news_trf"), ("fr", "fr_core_news_md"))
    assert env().pipelines("P") == ()


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        ("fr", "'fr' is not LANGUAGE=PIPELINE"),
        ("fr=", "'fr=' is not LANGUAGE=PIPELINE"),
        ("french=fr_core_news_sm", "'french'.*not an ISO 639"),
        ("fr=a,fra=b", "'fr' is given two pipelines"),
    ],
)
def test_pipelines_name_the_variable_and_the_bad_entry(value, complaint):
    with pytest.raises(SettingsError, match=f"WOJDB_SPACY_PIPELINES=.*{complaint}"):
        env(WOJDB_SPACY_PIPELINES=value).pipelines("WOJDB_SPACY_PIPELINES")
