"""WMT's direct-assessment z, reproduced: `standardise` gives the published segment scores
(Z.SCR of ad-seg-scores-LP.csv) of the bundled WMT21 into-English release.

The release's per-rater files (ad-XXen-good-stnd.csv) hold every judgment of every rater who
passed quality control, quality controls included (BAD_REF, REF), each as its z score rather
than its raw score. Within a rater the z scores are a positive affine image of the raw scores
(z = (raw - mean) / sd), and standardising is blind to such an image: standardising a rater's
z scores gives what standardising the raw scores gives. WMT's published z therefore comes back
only when the rater's standard deviation is taken as WMT takes it: the sample's (n - 1, R's
sd()); the population's (n) leaves every z too large by sqrt(n / (n - 1)), 0.03 at most here.
(The bundled WMT22 judgments keep only SYSTEM and REPEAT rows, too few for this.)
"""

import numpy as np
import pandas as pd
import pytest

from wojdb import bundled
from wojdb.core.formats import wmt
from wojdb.core.stats.system import COUNTED_TYPES, RATER, RAW, standardise

KEYS = ["system", "segment"]


@pytest.mark.parametrize("pair", ["cs", "de", "ha", "is", "ja", "ru"])
def test_standardise_gives_the_published_z(pair):
    humaneval = bundled.wmt21_toen() / "humaneval"
    rows = wmt.read_judgments(humaneval / f"ad-{pair}en-good-stnd.csv")
    judgments = pd.DataFrame(
        {RATER: [j.rater for j in rows], RAW: [j.score for j in rows],
         "system": [j.system for j in rows], "segment": [j.segment_id for j in rows],
         "counted": [j.item_type in COUNTED_TYPES for j in rows]}
    )  # fmt: skip
    published = pd.DataFrame(
        [(s.system, s.segment_id, s.z)
         for s in wmt.read_segment_scores(humaneval / f"ad-seg-scores-{pair}-en.csv")],
        columns=[*KEYS, "published"],
    )  # fmt: skip
    by_rater = judgments.groupby(RATER)[RAW]
    population = (judgments[RAW] - by_rater.transform("mean")) / by_rater.transform("std", ddof=0)

    def segment_means(z: pd.Series) -> pd.DataFrame:
        counted = judgments.assign(z=z)[judgments["counted"]]
        means = counted.groupby(KEYS)["z"].mean().reset_index()
        return means.merge(published, on=KEYS, validate="one_to_one")

    ours = segment_means(standardise(judgments))
    assert len(ours) == len(published) > 8000  # every published segment score, each once
    np.testing.assert_allclose(ours["z"], ours["published"], rtol=0, atol=1e-5)
    other = segment_means(population)
    assert (abs(other["z"] - other["published"]) > 1e-5).mean() > 0.95
