"""analyse --corpus: score sources against WMT's human judgments on an imported corpus (the
real WMT21 de-en slice in fixtures/), at segment and system level, without a study."""

from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from django.core.management import CommandError, call_command
from scipy import stats

from analysis.models import Metric
from survey.models import Triple
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt

SLICE = Path(__file__).resolve().parents[2] / "fixtures/wmt21-slice"


@pytest.fixture
def corpus(db, tmp_path):
    import_wmt(SLICE / "txt")
    import_documents(sorted((SLICE / "documents").glob("*.docids")))
    import_judgments(sorted((SLICE / "humaneval").glob("*.csv")))
    triples = Triple.objects.filter(corpus__source_lang="de").select_related("segment", "corpus")
    rows = []
    for t in triples:
        chrf = sacrebleu.sentence_chrf(t.hypothesis, [t.segment.reference]).score
        ter = sacrebleu.sentence_ter(t.hypothesis, [t.segment.reference]).score
        for metric, score in (("chrF", chrf), ("TER", ter)):
            rows.append(("de-en", t.corpus.system, t.segment.number, metric, score))
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["lp", "system", "segment", "metric", "score"]).to_csv(
        path, index=False
    )
    call_command("import_scores", str(path), stdout=StringIO())
    return triples


def test_corpus_analysis_correlates_metrics_with_wmt_judgments(corpus, tmp_path):
    out = tmp_path / "report"
    call_command("analyse", "--corpus", "--lp", "de-en", "--out", str(out), stdout=StringIO())
    assert (out / "report.html").exists() and (out / "figures" / "system_scores.png").exists()
    assert not Metric.objects.get(name="TER").higher_is_better
    seg = pd.read_csv(out / "tables" / "segment_correlations.csv")
    seg = seg[seg["human"] == "da_z"].set_index("metric")
    # The segment-level coefficient is the plain one over the slice's judged hypotheses.
    judged = [t for t in corpus if t.da_z is not None]
    chrf = [sacrebleu.sentence_chrf(t.hypothesis, [t.segment.reference]).score for t in judged]
    expected = stats.pearsonr([t.da_z for t in judged], chrf)[0]
    assert seg.loc["chrF", "pearson"] == pytest.approx(expected)
    assert seg.loc["chrF", "n"] == len(judged)
    assert not seg.loc["TER", "higher_is_better"]
    assert seg.loc["TER", "pearson_oriented"] == pytest.approx(-seg.loc["TER", "pearson"])
    system = pd.read_csv(out / "tables" / "system_correlations.csv").set_index("metric")
    assert set(system.index) == {"chrF", "TER"}
    assert (system["n"] == 4).all()  # the slice's four systems (HUMAN has no hypotheses here)
    assert system["accuracy"].between(0, 1).all()
    tests = pd.read_csv(out / "tables" / "system_permutation_tests.csv").iloc[0]
    oriented = system["pearson_oriented"]
    assert tests["better"] == oriented.idxmax() and tests["worse"] == oriented.idxmin()
    assert tests["delta_r"] == pytest.approx(oriented.max() - oriented.min())
    assert 0 <= tests["p"] <= 1 and tests["n"] == 4
    systems = pd.read_csv(out / "tables" / "system_scores.csv")
    assert {"Facebook-AI", "Online-B", "UEdin", "NVIDIA-NeMo"} <= set(systems["system"])
    assert np.isfinite(systems["z"]).all()


def test_corpus_analysis_without_scores_is_an_error(db, tmp_path):
    import_wmt(SLICE / "txt")
    with pytest.raises(CommandError, match="import_scores"):
        call_command("analyse", "--corpus", "--out", str(tmp_path / "r"))
    assert not (tmp_path / "r").exists()
