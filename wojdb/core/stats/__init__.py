"""Statistics of the analysis (pure): see `analysis.stats` for the modules not yet moved here.

- `estimability`: what a mixed model can estimate from its data, decided before and after
  fitting.
"""
