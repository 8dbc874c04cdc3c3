from django.urls import path

from survey.paper import review
from survey.researchers import dashboard

app_name = "dashboard"
urlpatterns = [
    path("", dashboard.index, name="index"),
    path("paper/", review.index, name="paper"),
    path("paper/<int:pk>/", review.answer, name="paper_answer"),
    path("paper/<int:pk>.png", review.crop, name="paper_crop"),
    path("studies/<slug:slug>/", dashboard.study, name="study"),
    path(
        "studies/<slug:slug>/questionnaires/<int:number>/",
        dashboard.questionnaire,
        name="questionnaire",
    ),
    path("studies/<slug:slug>/figures/<slug:name>.<slug:fmt>", dashboard.figure, name="figure"),
    path("studies/<slug:slug>/build/", dashboard.build, name="build"),
    path("studies/<slug:slug>/launch/", dashboard.launch, name="launch"),
    path("studies/<slug:slug>/clear-pilot/", dashboard.clear_pilot, name="clear_pilot"),
    path("studies/<slug:slug>/release-slots/", dashboard.release_slots, name="release_slots"),
    path("studies/<slug:slug>/team/", dashboard.team, name="team"),
    path(
        "studies/<slug:slug>/team/<int:user_id>/remove/",
        dashboard.team_remove,
        name="team_remove",
    ),
]
