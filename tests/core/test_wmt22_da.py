"""The bundled WMT22 into-English DA judgments (fixtures/wmt22-toen-da.tsv.xz) against the
release they were cut from (wmt-conference/wmt22-news-systems, humaneval/DA/newstest2022-toen),
and a crossed fit on them against lme4 (tests/analysis/data/wmt22/make_reference.R)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wojdb import bundled
from wojdb.core.stats.reml import fit_reml

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "analysis" / "data" / "wmt22" / "reference.json").read_text()
)
TOL = 1e-4


@pytest.fixture(scope="module")
def judgments():
    return pd.read_csv(bundled.WMT22_TOEN_DA, sep="\t", dtype={"sid": str})


def test_counts_are_the_releases_system_and_repeat_judgments(judgments):
    # SYSTEM + REPEAT rows of each ad-XXen-good-stnd.csv, counted in the release.
    counts = {
        "cs-en": 17663 + 2431,
        "de-en": 18287 + 2646,
        "ja-en": 24983 + 3581,
        "lv-en": 4071 + 567,
        "ru-en": 24243 + 3408,
        "uk-en": 17930 + 2375,
        "zh-en": 24546 + 3574,
    }
    assert list(judgments.columns) == ["lp", "rater", "system", "sid", "type", "score"]
    assert judgments["lp"].value_counts().to_dict() == counts
    assert set(judgments["type"]) == {"SYSTEM", "REPEAT"}
    assert judgments["rater"].nunique() == 428


@pytest.mark.parametrize(
    "line",
    [
        # ad-deen-good-stnd.csv line 2, ad-zhen-good-stnd.csv line 5000, and a REPEAT of lv-en.
        "34HEO7RUG6UO1AD1AH7Q2BT61BGARY\tM0460\tde\ten\tad\t247\tOnline-Y.3\t1004574\tSYSTEM\t"
        "1760\t-0.977240311759282\t635.0",
        "3H5TOKO3D9JGD2Z09SU1EDGADFA46P\tM0447\tzh\ten\tad\t281\tNiuTrans.9\t1002237\tSYSTEM\t"
        "1348\t0.974336651725699\t6238.0",
        "3CO05SML7V5S0XFJIFAXD5HTSQER00\tM1246\tlv\ten\tad\t12\tTAL-SJTU.3\t1000352\tREPEAT\t"
        "70\t0.814585593946317\t3508.0",
    ],
)
def test_rows_are_the_releases(judgments, line):
    _, rater, src, tgt, _, _, system, _, kind, sid, score, _ = line.split("\t")
    row = judgments[
        (judgments["lp"] == f"{src}-{tgt}")
        & (judgments["rater"] == rater)
        & (judgments["system"] == system)
        & (judgments["sid"] == sid)
        & (judgments["type"] == kind)
    ]
    assert row["score"].tolist() == [float(score)]


@pytest.mark.parametrize(
    "lp, line",
    [
        # ad-seg-scores-LP.csv rows (SYS SID RAW.SCR Z.SCR N): a segment's z score is the mean
        # of its SYSTEM and REPEAT judgments, which is what says the columns mean what they do.
        ("de-en", "Online-Y.3 1760 48 -0.610775103233249 2"),
        ("de-en", "Online-Y.3 1761 52 -0.317602936412423 1"),
        ("zh-en", "NiuTrans.9 1348 100 0.974336651725699 1"),
        ("lv-en", "TAL-SJTU.3 70 84.5 -0.030225292584269 12"),
    ],
)
def test_segment_scores_are_means_of_the_judgments(judgments, lp, line):
    system, sid, _, z, n = line.split()
    scores = judgments[
        (judgments["lp"] == lp) & (judgments["system"] == system) & (judgments["sid"] == sid)
    ]["score"]
    assert len(scores) == int(n)
    assert scores.mean() == pytest.approx(float(z), abs=1e-12)


def test_crossed_fit_matches_lme4(judgments):
    item = judgments["lp"] + "|" + judgments["system"] + "|" + judgments["sid"]
    fit = fit_reml(
        judgments["score"].to_numpy(),
        pd.DataFrame({"Intercept": np.ones(len(judgments))}),
        {"rater": judgments["rater"].to_numpy(), "item": item.to_numpy()},
    )
    ref = REFERENCE
    assert fit.n_obs == ref["n_obs"]
    assert {k: len(v) for k, v in fit.random.items()} == ref["levels"]
    assert fit.fixed.loc["Intercept", "estimate"] == pytest.approx(
        ref["fixef"]["(Intercept)"], abs=TOL
    )
    assert fit.fixed.loc["Intercept", "se"] == pytest.approx(ref["se"]["(Intercept)"], abs=TOL)
    for name, variance in ref["variances"].items():
        assert fit.variances[name] == pytest.approx(variance, abs=TOL)
    for key, theta in ref["theta"].items():
        assert fit.theta[key.split(".")[0]] == pytest.approx(theta, abs=TOL)
    assert fit.sigma == pytest.approx(ref["sigma"], abs=TOL)
    assert fit.reml_criterion == pytest.approx(ref["reml_criterion"], abs=TOL)
    for rater, mode in ref["rater_modes"].items():
        assert fit.random["rater"][rater] == pytest.approx(mode, abs=TOL)
    assert fit.state.converged and not fit.state.singular
