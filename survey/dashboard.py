"""The researcher's dashboard (staff only)."""

from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import render

from survey.models import Study


@staff_member_required
def index(request):
    return render(request, "survey/dashboard/index.html", {"studies": Study.objects.all()})
