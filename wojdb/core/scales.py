"""The two score conversions the project shares, each defined once: a 1-5 answer to the
thesis's 0-1 scale (§6.3.5), and the WMT human score on that scale (eq. 6.1 rank score where
ranked, else DA raw / 100). Imports nothing (the pure core, the models and the frames use it).

Both take plain numbers (None where missing) or pandas Series / numpy arrays (NaN where missing).
"""

#: The answer scale of both judgments (holistic, word order).
LIKERT_MIN, LIKERT_MAX = 1, 5
#: The top of WMT's raw direct-assessment scale.
DA_MAX = 100


def answer_to_unit(answer):
    """1 → 0, 2 → .25, … 5 → 1."""
    return (answer - LIKERT_MIN) / (LIKERT_MAX - LIKERT_MIN)


def wmt_score(rank_score, da_raw):
    """The rank score (eq. 6.1) where there is one, else the raw DA score / 100."""
    if hasattr(rank_score, "fillna"):  # a Series: row by row
        return rank_score.astype("float64").fillna(da_raw.astype("float64") / DA_MAX)
    if rank_score is not None:
        return rank_score
    return None if da_raw is None else da_raw / DA_MAX
