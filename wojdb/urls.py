from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("researcher/data/", include("analysis.urls")),
    path("researcher/report/", include("analysis.report_urls")),
    path("researcher/", include("survey.researchers.urls")),
    path("", include("survey.participants.urls")),
]
