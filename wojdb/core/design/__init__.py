"""Study design on plain data: composition by rule (composition.py), balance, figures.

The bound below is read where a build is asked for (study files, the command, the dashboard's
form) without loading the composition itself, which pages and commands load on use."""

#: The most questionnaires one build makes, from a study file, the command or the dashboard.
MAX_QUESTIONNAIRES = 1_000
