from wojdb.core.language.rules import rules_for
from wojdb.core.marks import CHARACTERS, WORDS, in_units, unit_name, units

EN, ZH = rules_for("en"), rules_for("zh")


def test_spaced_languages_mark_their_whitespace_words():
    assert unit_name(EN) == WORDS
    assert units("The cat , sat.", EN) == ["The", "cat", ",", "sat."]
    assert in_units({3, 1}, ["The", "cat", ",", "sat."], EN) == [1, 3]


def test_unspaced_languages_mark_characters_and_words_become_their_characters():
    assert unit_name(ZH) == CHARACTERS
    assert units("我 喜欢 猫。", ZH) == ["我", "喜", "欢", "猫", "。"]
    # word 1 (喜欢) is characters 1 and 2; word 2 (猫。) characters 3 and 4
    assert in_units({1, 2}, ["我", "喜欢", "猫。"], ZH) == [1, 2, 3, 4]
    assert in_units(set(), ["我", "喜欢"], ZH) == []
