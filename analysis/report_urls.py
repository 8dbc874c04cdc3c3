from django.urls import path

from analysis import report_views

app_name = "report"
urlpatterns = [
    path("<slug:slug>/", report_views.index, name="index"),
    path("<slug:slug>/generate/", report_views.start, name="generate"),
    # report.html links to its files relatively: tables/<name>.csv, figures/<name>.<fmt>.
    path("<slug:slug>/latest/", report_views.latest, name="latest"),
    path("<slug:slug>/latest/tables/<slug:name>.csv", report_views.table, name="table"),
    path("<slug:slug>/latest/figures/<slug:name>.<str:fmt>", report_views.figure, name="figure"),
]
