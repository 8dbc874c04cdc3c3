from django.urls import path

from survey.participants import views

app_name = "survey"
urlpatterns = [
    path("", views.home, name="home"),
    path("s/<slug:slug>/", views.entry, name="entry"),
    path("declined/", views.declined, name="declined"),
    path("withdrawn/", views.withdrawn, name="withdrawn"),
    path("p/<str:token>/", views.resume, name="resume"),
    path("p/<str:token>/information/", views.information, name="information"),
    path("p/<str:token>/consent/", views.consent, name="consent"),
    path("p/<str:token>/about/", views.about, name="about"),
    path("p/<str:token>/instructions/", views.instructions, name="instructions"),
    path("p/<str:token>/item/<int:position>/", views.item, name="item"),
    path("p/<str:token>/review/", views.review, name="review"),
    path("p/<str:token>/done/", views.done, name="done"),
    path("p/<str:token>/withdraw/", views.withdraw, name="withdraw"),
    path("p/<str:token>/reading/", views.reading, name="reading"),
]
