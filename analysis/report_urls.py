from django.urls import path

from analysis import report_views

app_name = "report"
urlpatterns = [
    path("", report_views.index, name="index"),
    path("generate/", report_views.start, name="generate"),
    # report.html links to its files relatively: tables/<name>.csv, figures/<name>.<fmt>.
    path("latest/", report_views.latest, name="latest"),
    path("latest/tables/<slug:name>.csv", report_views.table, name="table"),
    path("latest/figures/<slug:name>.<str:fmt>", report_views.figure, name="figure"),
]
