"""The study file's one validator (wojdb.core.study_file), without Django: every key typed, any
value refused by a StudyFileError naming its key and line, never another exception."""

import datetime
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.core.study_file import (
    Integer,
    StudyFileError,
    Text,
    Where,
    file_key,
    key_lines,
    pool_rule,
    rule_table,
)

TEXT = """\
name = "A study"
"quoted key" = 1
[pool]
per_corpus = 40
exclude = [{system = "S"}]

[[consent_texts]]
version = 1
statements = ["I agree."]
[[consent_texts]]
version = 2
[practice_item]
rule = "shortest"
"""

STUDY = {"name": Text(200), "slug": Text(50), "abandon_after_minutes": Integer(1, 527_040)}
FILE = file_key(STUDY, ["WMT plain text"])


def test_every_key_is_found_on_its_line():
    lines = key_lines(TEXT)
    assert lines["name"] == 1 and lines["quoted key"] == 2
    assert lines["pool"] == 3 and lines["pool.per_corpus"] == 4 and lines["pool.exclude"] == 5
    assert lines["consent_texts[1]"] == 7 and lines["consent_texts[2].version"] == 11
    assert lines["practice_item.rule"] == 13
    # A key inside a list or inline table is found at the line of the key holding it.
    assert Where("f.toml", "pool.exclude[1].system", lines).line() == 5
    assert Where("f.toml", "consent_texts[1].statements[1]", lines).line() == 9


def test_a_value_of_the_wrong_type_names_its_key_and_line():
    data = tomllib.loads(TEXT.replace("per_corpus = 40", "per_corpus = true"))
    with pytest.raises(StudyFileError) as error:
        FILE.check(data, Where("f.toml", "", key_lines(TEXT)))
    assert str(error.value).startswith("f.toml, line 2, key quoted key: unknown key 'quoted key'")
    del data["quoted key"]
    with pytest.raises(StudyFileError) as error:
        FILE.check(data, Where("f.toml", "", key_lines(TEXT)))
    assert str(error.value) == (
        "f.toml, line 4, key pool.per_corpus: must be a whole number from 1 to 1,000,000, not "
        "true/false (True)"
    )


@pytest.mark.parametrize("character", ["\x00", "\x07", "\x1b", "\x7f", "\x9b"])
def test_a_text_holding_a_control_character_is_refused_naming_it(character):
    text = f'name = "A\\u{ord(character):04x}study"\n'
    with pytest.raises(StudyFileError) as error:
        FILE.check(tomllib.loads(text), Where("f.toml", "", key_lines(text)))
    assert str(error.value) == (
        f"f.toml, line 1, key name: holds a control character (\\u{ord(character):04x}) at "
        "character 2"
    )


def test_tabs_and_line_ends_are_kept_in_a_text():
    text = 'name = "A\\tstudy\\r\\nof\\nwords"\n'
    checked = FILE.check(tomllib.loads(text), Where("f.toml", "", key_lines(text)))
    assert checked["name"] == "A\tstudy\nof\nwords"


def test_a_pool_rule_reads_back_as_its_table():
    table = {"per_corpus": 12, "seed": 3, "max_length": 30, "exclude": [{"segment": 4}]}
    assert rule_table(pool_rule(table)) == rule_table(pool_rule(rule_table(pool_rule(table))))
    assert rule_table(pool_rule(table))["exclude"] == [{"segment": 4}]


def test_a_pool_keeps_fragments_only_when_its_file_says_so():
    assert pool_rule({}).sentence_end and rule_table(pool_rule({}))["sentence_end"] is True
    text = "[pool]\nsentence_end = false\n"
    checked = FILE.check(tomllib.loads(text), Where("f.toml", "", key_lines(text)))
    assert pool_rule(checked["pool"]).sentence_end is False
    text = '[pool]\nsentence_end = "no"\n'
    with pytest.raises(StudyFileError) as error:
        FILE.check(tomllib.loads(text), Where("f.toml", "", key_lines(text)))
    assert str(error.value) == (
        "f.toml, line 2, key pool.sentence_end: must be true or false, not a text ('no')"
    )


SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.datetimes(max_value=datetime.datetime(9999, 1, 1)),
    st.dates(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["path", "version", "segment", "rule", "x", "count"]), inner, max_size=4
        )
    ),  # fmt: skip
    max_leaves=12,
)
KEYS = st.sampled_from(
    [*STUDY, "sources", "pool", "permutations", "questionnaires", "practice_item",
     "shared_items", "consent_texts", "unknown"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=4))
def test_any_value_is_taken_or_refused_as_a_study_file_error(data):
    try:
        FILE.check(data, Where("f.toml", "", {}))
    except StudyFileError as error:
        assert str(error).startswith("f.toml")
