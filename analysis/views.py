"""Researcher downloads (staff only)."""

import tempfile
from pathlib import Path

from django.http import FileResponse, HttpResponse
from django.shortcuts import get_object_or_404

from survey.models import Study
from wojdb.staff import staff_only


@staff_only
def download_release(request, slug):
    """The study's WOJ-DB release as a zip archive, built on request and streamed; simulated
    participants only with `?simulated=include`."""
    from analysis import releases  # the release loads on use
    from wojdb.core.release import write  # the release loads on use

    study = get_object_or_404(Study, slug=slug)
    try:
        built = releases.build(study, include_simulated=request.GET.get("simulated") == "include")
    except releases.ExportError as e:
        return HttpResponse(str(e), status=404, content_type="text/plain; charset=utf-8")
    # Unnamed and deleted when closed; FileResponse closes it once sent.
    archive = tempfile.TemporaryFile()  # noqa: SIM115
    with tempfile.TemporaryDirectory() as folder:
        write.save(built, Path(folder))
        write.write_zip(Path(folder), archive, built.name)
    archive.seek(0)
    return FileResponse(archive, as_attachment=True, filename=f"{built.name}.zip")
