"""Researcher downloads, for a study's owners and analysts."""

import tempfile
from pathlib import Path

from django.http import FileResponse, HttpResponse

from survey import access, record
from survey.access import DATA, staff_only


@staff_only
def download_release(request, slug):
    """The study's WOJ-DB release as a zip archive, built on request and streamed."""
    from analysis import releases  # the release loads on use
    from wojdb.core.release import write  # the release loads on use

    study = access.study_for(request, slug, DATA)
    try:
        built = releases.build(study)
    except releases.ExportError as e:
        # The study is there, but not yet a release: nothing completed to export.
        return HttpResponse(str(e), status=409, content_type="text/plain; charset=utf-8")
    # Unnamed and deleted when closed; FileResponse closes it once sent.
    archive = tempfile.TemporaryFile()  # noqa: SIM115
    with tempfile.TemporaryDirectory() as folder:
        write.save(built, Path(folder))
        write.write_zip(Path(folder), archive, built.name)
    archive.seek(0)
    record.note(study, "release downloaded", name=built.name)
    return FileResponse(archive, as_attachment=True, filename=f"{built.name}.zip")
