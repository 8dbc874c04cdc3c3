"""WMT22's into-English DA system tables and a slice of their segment scores, as bundled
(fixtures/wmt22-toen-tables.tar.xz; layout in fixtures/README.md). Pure."""

from pathlib import Path

import pandas as pd

from wojdb import bundled
from wojdb.core.formats import wmt

PAIRS = ["cs-en", "de-en", "ja-en", "ru-en", "uk-en", "zh-en"]
NOT_SIGNIFICANT = 0.12  # what adwilcox-XXen.csv prints for p ≥ 0.05


def folder() -> Path:
    return bundled.wmt22_toen_tables()


def published(lp: str) -> pd.DataFrame:
    """ad-sys-ranking-LP-z-names.csv with the clusters of clusters.csv (numbered from 1)."""
    table = pd.read_csv(
        folder() / f"ad-sys-ranking-{lp}-z-names.csv", sep=" ", header=None, usecols=range(5),
        names=["raw", "z", "n", "judgments", "system"],
    )  # fmt: skip
    clusters = pd.read_csv(folder() / "clusters.csv", sep=" ")
    clusters = clusters[clusters["SRC"] == lp[:2]]
    assert list(clusters["SYSTEM"]) == list(table["system"])
    return table.assign(cluster=pd.factorize(clusters["CLUSTER_START"])[0] + 1)


def pvalues(lp: str) -> pd.DataFrame:
    p = pd.read_csv(folder() / f"adwilcox-{lp[:2]}en.csv", sep=" ", index_col=0)
    return p.loc[:, ~p.columns.str.startswith("Unnamed")]


def segments(lp: str) -> pd.DataFrame:
    """The bundled rows of ad-seg-scores-LP.csv as a segments frame, read as the import reads
    them."""
    rows = wmt.read_segment_scores(folder() / f"ad-seg-scores-{lp}.csv")
    return pd.DataFrame(
        {"system": [r.system for r in rows], "segment": [r.segment_id for r in rows],
         "score": [r.z for r in rows], "raw": [r.raw for r in rows],
         "judgments": [r.n for r in rows], "lp": lp}
    )  # fmt: skip
