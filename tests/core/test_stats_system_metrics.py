"""System-level metric correlations, pairwise accuracy and the permutation test, against
mt-metrics-eval's own implementation run on the same WMT21 de-en vectors
(tests/analysis/data/mtme/make_reference.py wrote reference.json)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wojdb.core.stats import system

DATA = Path(__file__).parents[1] / "analysis" / "data" / "mtme"
VECTORS = json.loads((DATA / "vectors.json").read_text())
REFERENCE = json.loads((DATA / "reference.json").read_text())


def frames():
    index = VECTORS["systems"]
    human = pd.Series(VECTORS["human_z"], index=index)
    metrics = pd.DataFrame({m: VECTORS[m] for m in ("bleu", "chrf")}, index=index)
    return human, metrics


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_correlations_and_accuracy_match_mt_metrics_eval(metric):
    human, metrics = frames()
    row = system.metric_table(human, metrics).set_index("metric").loc[metric]
    ref = REFERENCE["metrics"][metric]
    for key in ("pearson", "pearson_p", "kendall", "kendall_p", "accuracy"):
        assert row[key] == pytest.approx(ref[key], rel=1e-12), key
    accuracy, pairs = system.pairwise_accuracy(human, metrics[metric])
    assert pairs == ref["pairs"] and accuracy == pytest.approx(ref["accuracy"])


@pytest.mark.parametrize("method", ["pearson", "kendall"])
def test_permutation_test_draws_and_decides_as_mt_metrics_eval(method):
    human, metrics = frames()
    ref = REFERENCE["permutation"][method]
    p, delta = system.permutation_test(
        human, metrics["bleu"], metrics["chrf"], method, k=REFERENCE["k"], seed=REFERENCE["seed"]
    )
    assert delta == pytest.approx(ref["delta"], rel=1e-12)
    assert p == ref["p"]


def test_orientation_reaches_accuracy_but_not_the_correlations_sign():
    human, metrics = frames()
    error = -metrics[["bleu"]].rename(columns={"bleu": "bleu_error"})
    table = system.metric_table(human, error, {"bleu_error": False}).iloc[0]
    plain = system.metric_table(human, metrics[["bleu"]]).iloc[0]
    assert table["pearson"] == pytest.approx(-plain["pearson"])
    assert table["accuracy"] == pytest.approx(plain["accuracy"])
    assert not table["higher_is_better"]


def test_ties_agree_only_with_ties():
    accuracy, pairs = system.pairwise_accuracy([1, 1, 2], [5, 6, 7])
    assert pairs == 3 and accuracy == pytest.approx(2 / 3)
    assert np.isnan(system.pairwise_accuracy([1], [1])[0])
