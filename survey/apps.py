import gc

from django.apps import AppConfig


class SurveyConfig(AppConfig):
    """Django's start-up loads the apps' models and admin modules between this config's
    creation and its ready() (the admin's ready() comes first): some 60,000 objects that live
    as long as the process. The garbage collector is paused meanwhile, as its passes would find
    next to nothing to free; one pass over what was made frees that, and the rest is frozen out
    of its full passes, the three at exit among them. Those passes were a quarter of a
    command's start-up (bench/startup_bench.py)."""

    name = "survey"
    verbose_name = "Survey: sentence pool, questionnaires and participants"

    def __init__(self, app_name, app_module):
        super().__init__(app_name, app_module)
        self.collecting = gc.isenabled()
        gc.disable()

    def ready(self):
        from survey import checks  # noqa: F401  (registers the checks)

        gc.collect(0)
        gc.freeze()
        if self.collecting:
            gc.enable()
