import gc

from django.apps import AppConfig


class SurveyConfig(AppConfig):
    name = "survey"
    verbose_name = "Survey: sentence pool, questionnaires and participants"

    def ready(self):
        from survey import checks  # noqa: F401  (registers the checks)

        # By now the apps' models and admin modules are loaded (the admin's ready() comes
        # first): some 60,000 objects that live as long as the process. Frozen, the collector's
        # full passes skip them, the three at exit among them, which cost a command as much as
        # Django's own start-up (bench/startup_bench.py).
        gc.freeze()
