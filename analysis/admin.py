from django.contrib import admin

from analysis import models
from survey.admin import ModelAdmin  # numbers typed are read by the program's one rule


@admin.register(models.Metric)
class MetricAdmin(ModelAdmin):
    list_display = ["name", "variant", "version", "higher_is_better", "builtin"]
    list_filter = ["builtin", "higher_is_better"]
    search_fields = ["name", "variant"]


@admin.register(models.MetricScore)
class MetricScoreAdmin(ModelAdmin):
    list_display = ["metric", "item", "score"]
    list_filter = ["metric__name"]
    raw_id_fields = ["item"]


@admin.register(models.Alignment)
class AlignmentAdmin(ModelAdmin):
    list_display = ["triple", "aligner"]
    list_filter = ["aligner"]
    raw_id_fields = ["triple"]
