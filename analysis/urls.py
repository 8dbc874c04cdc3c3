from django.urls import path

from analysis import views

app_name = "analysis"
urlpatterns = [
    path("<slug:slug>/release.zip", views.download_release, name="download_release"),
]
