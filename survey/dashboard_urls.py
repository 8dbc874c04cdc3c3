from django.urls import path

from survey import dashboard, paper_review

app_name = "dashboard"
urlpatterns = [
    path("", dashboard.index, name="index"),
    path("paper/", paper_review.index, name="paper"),
    path("paper/<int:pk>/", paper_review.answer, name="paper_answer"),
    path("paper/<int:pk>.png", paper_review.crop, name="paper_crop"),
    path("studies/<slug:slug>/", dashboard.study, name="study"),
    path(
        "studies/<slug:slug>/questionnaires/<int:number>/",
        dashboard.questionnaire,
        name="questionnaire",
    ),
    path("studies/<slug:slug>/figures/<slug:name>.<slug:fmt>", dashboard.figure, name="figure"),
    path("studies/<slug:slug>/build/", dashboard.build, name="build"),
    path("studies/<slug:slug>/release-slots/", dashboard.release_slots, name="release_slots"),
]
