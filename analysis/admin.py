"""Metric scores and alignments: data every study shares (survey.admin.SharedData)."""

from django.contrib import admin

from analysis import models
from survey.admin import SharedData


@admin.register(models.Metric)
class MetricAdmin(SharedData):
    list_display = ["name", "variant", "version", "higher_is_better", "builtin"]
    list_filter = ["builtin", "higher_is_better"]
    search_fields = ["name", "variant"]


@admin.register(models.MetricScore)
class MetricScoreAdmin(SharedData):
    list_display = ["metric", "item", "score"]
    list_filter = ["metric__name"]
    raw_id_fields = ["item"]


@admin.register(models.Alignment)
class AlignmentAdmin(SharedData):
    list_display = ["triple", "aligner"]
    list_filter = ["aligner"]
    raw_id_fields = ["triple"]
