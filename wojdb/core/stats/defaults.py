"""The statistics' settings that the commands offer as options, with their defaults.

Plain values, apart from the modules that use them, so that a command's options and --help are
read without loading numpy, pandas and scipy.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Correlation coefficients (`correlation`).
METHODS = ("spearman", "pearson", "kendall")
#: Bootstrap resamples of a correlation's 95% interval (`correlation`).
N_BOOT = 1000
#: The WMT years whose system-level computation is followed (`protocols`).
PROTOCOLS = ("wmt22", "wmt24")
#: Fewest levels (groups) a random factor needs for its variance to be estimated
#: (`estimability`).
MIN_GROUPS = 5


@dataclass(frozen=True)
class SimulationModel:
    """The spreads of the generative model of simulated answers (`simulate`)."""

    participant_sd: float = 0.5
    item_sd: float = 0.5
    noise_sd: float = 0.8
    blank_rate: float = 0.0
    median_seconds: float = 20.0
    seconds_sigma: float = 0.5
    #: Word marks (`marks.draw_marks`): the chance a truly displaced unit is marked, and the
    #: chance any other unit is.
    mark_recall: float = 0.7
    mark_false: float = 0.03


#: Planning for word marks (`power_marks`): the numbers of participants tried, the simulated
#: studies per number and the questionnaire sets composed for them (answered in turn), the
#: bootstrap resamples of each interval (fewer than a report's N_BOOT, for speed) and the
#: half-width wanted of the 95% interval of recall.
MARKS_PARTICIPANTS = (24, 48, 72, 96, 144)
MARKS_SIMULATIONS = 20
MARKS_DESIGNS = 5
MARKS_BOOT = 200
MARKS_HALF_WIDTH = 0.1
