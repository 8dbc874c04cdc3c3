"""The shared score conversions give the same values on plain numbers and on columns."""

import numpy as np
import pandas as pd

from wojdb.core.scales import answer_to_unit, wmt_score


def test_answers_map_to_the_thesis_unit_scale():
    assert [answer_to_unit(a) for a in range(1, 6)] == [0, 0.25, 0.5, 0.75, 1]
    column = answer_to_unit(pd.Series([1, np.nan, 4]))
    np.testing.assert_array_equal(column, [0, np.nan, 0.75])


def test_the_rank_score_wins_and_da_is_scaled_where_there_is_none():
    assert wmt_score(0.3, 80.0) == 0.3
    assert wmt_score(None, 80.0) == 0.8
    assert wmt_score(None, None) is None
    column = wmt_score(pd.Series([0.3, None, None]), pd.Series([80.0, 80.0, None]))
    np.testing.assert_array_equal(column, [0.3, 0.8, np.nan])
