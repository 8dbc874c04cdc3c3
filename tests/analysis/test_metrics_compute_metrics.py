"""The compute_metrics command: every rated item scored once, with its configuration recorded."""

import dataclasses
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from analysis.management.commands.compute_metrics import Command
from analysis.models import Alignment, Metric, MetricScore
from survey.models import Item, Participant, Rating
from wojdb.core.language.nlp import Parse
from wojdb.core.metrics import registry

pytestmark = pytest.mark.django_db

BUILT_IN_ALIGNER = "woj-monolingual/exact+stem"


@pytest.fixture
def rated(study):
    """The study's questionnaire items, all but the last rated by one participant."""
    questionnaire = study.questionnaires.get(number=1)
    participant = Participant.objects.create(study=study, questionnaire=questionnaire)
    entries = list(questionnaire.entries.order_by("position"))
    for entry in entries[:-1]:
        Rating.objects.create(
            participant=participant, item=entry.item, position=entry.position, holistic=3, order=4
        )
    return [entry.item for entry in entries[:-1]], entries[-1].item


def run(*args) -> str:
    out = StringIO()
    call_command("compute_metrics", "--jobs", "1", *args, stdout=out, verbosity=0)
    return out.getvalue()


def test_scores_every_rated_item_once_with_its_configuration(rated):
    items, unrated = rated
    output = run("--metrics", "dted:co", "derp:f", "bleu", "kendall")
    assert f"Stored {4 * len(items)} score(s) of 4 metric(s) for {len(items)} of" in output
    assert not MetricScore.objects.filter(item=unrated).exists()
    for item in items:
        assert MetricScore.objects.filter(item=item).count() == 4
    # Parses were missing: references and hypotheses are parsed and kept.
    hypothesis = next(item for item in items if item.permutation is None)
    assert hypothesis.triple.segment.__class__.objects.get(pk=hypothesis.triple.segment_id).parse
    dted = Metric.objects.get(name="dted")
    assert dted.variant == "co"
    assert dted.config.startswith("parser=spacy-")
    assert dted.config.endswith(f"; aligner={BUILT_IN_ALIGNER}; version={dted.version}")
    assert dted.builtin and dted.higher_is_better and dted.version
    assert "permuted references by word mapping" in dted.description
    derp = Metric.objects.get(name="derp")
    assert (derp.variant, derp.config) == (
        "f",
        f"aligner={BUILT_IN_ALIGNER}; version={derp.version}",
    )
    bleu = Metric.objects.get(name="bleu")
    # English is split as sacreBLEU's default tokeniser splits it.
    assert (bleu.variant, bleu.config) == ("sacrebleu", f"tokenize=13a; version={bleu.version}")
    # Hypotheses and permutations share one row per configuration.
    assert Metric.objects.count() == 4


def test_permutations_are_aligned_by_their_word_mapping(rated):
    items, _ = rated
    run("--metrics", "kendall")
    for item in items:
        if item.permutation is None:
            continue
        # The factory swaps the first two words: permutation (2, 1, 3, ...) of n tokens.
        n = len(item.permutation.tokens)
        score = MetricScore.objects.get(item=item, metric__name="kendall").score
        assert score == pytest.approx(1 - 1 / (n * (n - 1) / 2))


def test_a_permutation_with_a_stored_parse_is_scored_with_it(rated):
    items, unrated = rated
    entry = unrated.entries.get()
    Rating.objects.create(
        participant=Participant.objects.get(),
        item=unrated,
        position=entry.position,
        holistic=3,
        order=4,
    )
    permuted = [item.permutation for item in [*items, unrated] if item.permutation]
    outside, parsed_afresh = permuted[0], permuted[1:]
    assert parsed_afresh
    # An outside parser's parse of the permuted words, one token each: every word hangs from
    # the first.
    n = len(outside.tokens)
    outside.parse = Parse(
        tokens=tuple(outside.tokens),
        tags=("X",) * n,
        upos=("X",) * n,
        heads=(-1,) + (0,) * (n - 1),
        deps=("root",) + ("dep",) * (n - 1),
        parser="outside-parser",
    ).to_dict()
    outside.parser = "outside-parser"
    outside.save()
    run("--metrics", "dted:co", "kendall")
    dted = MetricScore.objects.get(item=outside.item, metric__name="dted").metric
    assert dted.config.startswith("parser=hypothesis: outside-parser; reference: spacy-")
    for permutation in parsed_afresh:
        dted = MetricScore.objects.get(item=permutation.item, metric__name="dted").metric
        assert dted.config.startswith("parser=spacy-")
        assert "outside-parser" not in dted.config
    # Its tokens are the words, so the word mapping still gives the permutation (2, 1, 3, ...).
    score = MetricScore.objects.get(item=outside.item, metric__name="kendall").score
    assert score == pytest.approx(1 - 1 / (n * (n - 1) / 2))


def test_running_again_adds_only_what_is_missing(rated):
    items, _ = rated
    run("--metrics", "kendall")
    first = {s.pk: s.score for s in MetricScore.objects.all()}
    assert "Stored 0 score(s)" in run("--metrics", "kendall")
    assert {s.pk: s.score for s in MetricScore.objects.all()} == first
    run("--metrics", "kendall", "spearman")
    assert MetricScore.objects.count() == 2 * len(items)


def test_stored_alignments_of_a_named_aligner(rated):
    items, _ = rated
    with pytest.raises(CommandError, match="have no stored alignment from 'giza'"):
        run("--aligner", "giza", "--metrics", "aligned_pct")
    run("--metrics", "kendall")  # parse everything first
    for item in Item.objects.filter(pk__in=[i.pk for i in items], permutation=None):
        hyp = Parse.from_dict(item.triple.parse)
        Alignment.objects.create(triple=item.triple, aligner="giza", pairs=[[0, 0]])
        assert len(hyp) > 1
    run("--aligner", "giza", "--metrics", "aligned_pct")
    metric = Metric.objects.get(name="aligned_pct", config__startswith="aligner=giza; version=")
    assert metric.variant == "thesis"
    for score in MetricScore.objects.filter(metric=metric, item__permutation=None):
        triple = score.item.triple
        expected = 2 / (len(triple.parse["tokens"]) + len(triple.segment.parse["tokens"]))
        assert score.score == pytest.approx(expected)


def test_each_rated_hypothesis_keeps_its_crossing_words_with_the_aligner(rated):
    items, _ = rated
    hypotheses = [item for item in items if item.permutation is None]
    run("--metrics", "kendall")
    for item in hypotheses:
        item.triple.refresh_from_db()
        assert item.triple.crossing_aligner == BUILT_IN_ALIGNER
        assert isinstance(item.triple.crossing_words, list)
    # Links 0-1 and 1-0 cross: the hypothesis's first two words; a named aligner replaces
    # the built-in one's truth.
    for item in hypotheses:
        Alignment.objects.create(triple=item.triple, aligner="giza", pairs=[[0, 1], [1, 0]])
    run("--aligner", "giza", "--metrics", "aligned_pct")
    for item in hypotheses:
        item.triple.refresh_from_db()
        assert (item.triple.crossing_aligner, item.triple.crossing_words) == ("giza", [0, 1])


def test_bad_options():
    with pytest.raises(CommandError, match="unknown metric 'nope'"):
        run("--metrics", "nope")
    with pytest.raises(CommandError, match="--jobs: 0 is outside the allowed range"):
        call_command("compute_metrics", "--jobs", "0", verbosity=0)


def test_help_names_the_options():
    text = Command().create_parser("manage.py", "compute_metrics").format_help()
    for option in ("--metrics", "--jobs", "--aligner", "word"):
        assert option in text


def test_after_a_version_bump_old_and_new_scores_are_never_stored_under_one_identity(
    rated, monkeypatch
):
    items, _ = rated
    run("--metrics", "kendall")
    old = Metric.objects.get(name="kendall")
    kendall = registry.BY_KEY["kendall", old.variant]
    bumped = dataclasses.replace(kendall, version="bumped")
    monkeypatch.setitem(registry.BY_KEY, kendall.key, bumped)
    monkeypatch.setattr(registry, "METRICS", [registry.BY_KEY[m.key] for m in registry.METRICS])
    assert f"Stored {len(items)} score(s)" in run("--metrics", "kendall")
    new = Metric.objects.exclude(pk=old.pk).get(name="kendall")
    assert new.version == "bumped" and new.config.endswith("version=bumped")
    old.refresh_from_db()
    assert old.version == kendall.version and old.config.endswith(f"version={kendall.version}")
    assert old.scores.count() == new.scores.count() == len(items)
