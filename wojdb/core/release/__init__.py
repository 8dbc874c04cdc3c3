"""The WOJ-DB release: one package, one schema.

``schema`` (tables and columns, per format) is at the bottom; ``derived`` (columns computed from
others), ``read`` (validating reader, zip unpacking), ``load`` (analysis frames) and ``write``
(files, descriptor, codebook) stand on it and import no Django; ``database`` exports a study from
the database and imports a release into an empty one.
"""

from wojdb.core.release.load import load_release
from wojdb.core.release.read import Release, ReleaseError, read_release

__all__ = ["Release", "ReleaseError", "load_release", "read_release"]
