from django.urls import path

from survey import dashboard

app_name = "dashboard"
urlpatterns = [
    path("", dashboard.index, name="index"),
    path("<slug:slug>/", dashboard.study, name="study"),
    path("<slug:slug>/questionnaires/<int:number>/", dashboard.questionnaire, name="questionnaire"),
    path("<slug:slug>/figures/<slug:name>.<slug:fmt>", dashboard.figure, name="figure"),
    path("<slug:slug>/build/", dashboard.build, name="build"),
    path("<slug:slug>/release/", dashboard.release, name="release"),
]
