"""Statistics of the analysis: pure functions on the tidy frames described in `columns`.

- `columns`: the ratings and scores frames' schema.
- `reml`, `mixed`: mixed models (lme4's REML), participant-adjusted scores, t-test.
- `ordinal`: cumulative link mixed models (ordinal::clmm's Laplace fit) and their adjustment.
- `system`: system-level human scores, WMT's Wilcoxon clusters, system-level metric
  correlations, pairwise accuracy and the permutation test.
- `corpus`: score sources against WMT's human judgments of an imported corpus (no study).
- `correlation`: correlations with p-values and bootstrap intervals, Table 7.1, Williams's
  test, demographic subsets.
- `hypotheses`: Table 7.4 from correlation results, per adjustment.
- `responses`: response trends, the levels used and holistic against order answers.
- `quality`: agreement on shared items and per-participant checks.
- `simulate`: simulated answers and power analysis.
"""
