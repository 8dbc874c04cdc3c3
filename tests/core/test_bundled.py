"""The bundled WMT data unpacks once per archive version, into a folder named by its digest."""

import io
import tarfile

from wojdb.bundled import unpack, wmt21_toen


def archive(path, text: str):
    with tarfile.open(path, "w:xz") as tar:
        data = text.encode()
        info = tarfile.TarInfo("set/file.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def test_unpacks_once_and_anew_when_the_archive_changes(tmp_path):
    into = tmp_path / "data"
    first = unpack(archive(tmp_path / "set.tar.xz", "one"), into)
    assert (first / "set/file.txt").read_text() == "one"
    (first / "set/file.txt").write_text("kept")  # a second call does not unpack again
    assert unpack(tmp_path / "set.tar.xz", into) == first
    assert (first / "set/file.txt").read_text() == "kept"
    second = unpack(archive(tmp_path / "set.tar.xz", "two"), into)
    assert second != first and (second / "set/file.txt").read_text() == "two"
    assert sorted(p.name for p in into.iterdir()) == sorted([first.name, second.name])


def test_the_bundled_wmt21_data_has_every_into_english_pair():
    root = wmt21_toen()
    sources = sorted(p.name for p in (root / "txt/sources").iterdir())
    assert [name.split(".")[1] for name in sources] == [
        f"{lang}-en" for lang in ("cs", "de", "ha", "is", "ja", "ru", "zh")
    ]
    assert len(list((root / "txt/system-outputs").iterdir())) == 100
    assert len(list((root / "humaneval").glob("ad-*.csv"))) == 13
