from django.urls import path

from survey import dashboard

app_name = "dashboard"
urlpatterns = [
    path("", dashboard.index, name="index"),
]
