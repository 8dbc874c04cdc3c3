from django.apps import AppConfig


class SurveyConfig(AppConfig):
    name = "survey"
    verbose_name = "Survey: sentence pool, questionnaires and participants"

    def ready(self):
        from survey import checks  # noqa: F401  (registers the checks)
