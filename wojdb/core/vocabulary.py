"""Names the whole project shares, each defined once: permutation types (thesis §6.2.3), item
kinds, participant statuses and modes. Imports nothing (the pure core and the models use it)."""

#: Algorithms 3-5's types; `both` (choice, then order) is the pilot's.
PERMUTATION_TYPES = ("order", "swap", "phrase", "choice", "both")
#: The main study's four (§6.4.3: `both` was replaced by `phrase`).
MAIN_TYPES = PERMUTATION_TYPES[:4]
#: Types whose degree measures disorder (`choice` changes words, not order).
ORDER_CHANGING_TYPES = ("order", "swap", "phrase", "both")
#: What an item is: a WMT hypothesis, or a permutation of its reference.
HYPOTHESIS, PERMUTATION = "hypothesis", "permutation"
#: A participant's way through a study; `abandoned` gave up or timed out, `withdrawn` asked for
#: their data to be deleted (never analysed or released).
PARTICIPANT_STATUSES = ("assigned", "in_progress", "completed", "abandoned", "withdrawn")
ASSIGNED, IN_PROGRESS, COMPLETED, ABANDONED, WITHDRAWN = PARTICIPANT_STATUSES
#: How a participant answered: in the browser, or on a printed questionnaire scanned back.
WEB, PAPER = "web", "paper"
PARTICIPATION_MODES = (WEB, PAPER)
#: About-you answers (their labels, translated where shown, are in wojdb.core.texts).
GENDERS = ("male", "female", "other", "not_say")
EDUCATION_LEVELS = ("school", "college", "undergraduate", "masters", "phd")
#: Human judgments imported from outside a study: WMT's direct assessment, MQM error files,
#: Appraise's ESA.
EXTERNAL_SOURCES = ("da", "mqm", "esa")
#: A release's version where its export names none.
DEFAULT_RELEASE_VERSION = "1.0"

#: A study team member's roles, from most rights to fewest (what each may do: survey/access.py).
OWNER, MANAGER, ANALYST, VIEWER = "owner", "manager", "analyst", "viewer"
ROLES = (OWNER, MANAGER, ANALYST, VIEWER)
