"""The budgets of scan files (wojdb.core.budgets): a page's size is read from its file's header
before it is decoded, a PDF page is rasterised within the pixel budget, a TIFF decoded frame by
frame; each file is read in a fresh interpreter whose peak
memory is measured (VmHWM: ru_maxrss would carry the forking parent's over exec).

The files are written byte by byte here, small on disk and enormous decoded: a 110 KB PNG of
30,000 × 30,000 pixels, a 300-byte PDF with one 14,400-point page (PDF's largest), a 21 KB TIFF
of 150 frames of 2,000 × 2,000 pixels sharing one compressed strip.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from wojdb.core import budgets
from wojdb.core.io import InputError, open_input, read_input
from wojdb.environment import SettingsError

ROOT = Path(__file__).resolve().parents[2]
MEMORY_MB = 500


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_png(path: Path, width: int, height: int, colour: bool = False) -> Path:
    """A blank PNG: 1-bit grey, or 8-bit RGB when `colour`."""
    depth, kind, channels = (8, 2, 3) if colour else (1, 0, 1)
    row = bytes(1 + (width * channels * depth + 7) // 8)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, depth, kind, 0, 0, 0)
    signature = b"\x89PNG\r\n\x1a\n"
    path.write_bytes(
        signature + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")
    )
    return path


def write_pdf(path: Path, points: int) -> Path:
    """A PDF of one blank square page of `points` a side."""
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 %d %d]>>" % (points, points),
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Size 4/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % xref
    path.write_bytes(out)
    return path


def write_tiff(path: Path, width: int, height: int, frames: int) -> Path:
    """A TIFF of white 8-bit grey frames, all pointing at one deflated strip."""
    strip = zlib.compress(b"\xff" * (width * height), 9)
    strip += b"\0" * (len(strip) % 2)
    tags = [  # (tag, type: 3 short or 4 long, value)
        (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 8), (262, 3, 1),
        (273, 4, 8), (277, 3, 1), (278, 4, height), (279, 4, len(strip)),
    ]  # fmt: skip
    entry = {3: "<HHIHH", 4: "<HHII"}
    size = 2 + 12 * len(tags) + 4
    first = 8 + len(strip)
    out = b"II*\0" + struct.pack("<I", first) + strip
    for n in range(frames):
        following = first + size * (n + 1) if n + 1 < frames else 0
        fields = [
            struct.pack(entry[kind], tag, kind, 1, value, *([0] if kind == 3 else []))
            for tag, kind, value in tags
        ]
        out += struct.pack("<H", len(tags)) + b"".join(fields) + struct.pack("<I", following)
    path.write_bytes(out)
    return path


READ_PAGES = """
import resource, sys
from wojdb.core.paper import scanning
try:
    for label, grey in scanning.iter_pages(sys.argv[1]):
        print(label, grey.shape[1], grey.shape[0])
        if len(sys.argv) > 2:  # the page read as an import reads it: no code on a blank page
            try:
                scanning.read_page(grey, lambda code: None)
            except scanning.ScanError as e:
                print(e)
except scanning.ScanError as e:
    print("refused:", e)
hwm = [f for f in open("/proc/self/status") if f.startswith("VmHWM:")]
print("peak", int(hwm[0].split()[1]) // 1024)
"""


def measured(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[list[str], int]:
    """The output lines and peak memory in MB of `code` run in a fresh interpreter."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("WOJDB_MAX_")}
    result = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=ROOT,
        env=base | (env or {}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    *lines, peak = result.stdout.splitlines()
    return lines, int(peak.split()[1])


def test_a_huge_png_is_refused_from_its_header(tmp_path):
    path = write_png(tmp_path / "huge.png", 30_000, 30_000)
    assert path.stat().st_size < 200_000
    lines, peak = measured(READ_PAGES, path)
    assert lines == [
        "refused: huge.png page 1: 30,000 × 30,000 pixels, over the budget of 50,000,000 pixels "
        "a page (WOJDB_MAX_PAGE_PIXELS raises it)"
    ]  # not Pillow's DecompressionBombError, whose limit (179 Mpx) this page is over
    assert peak < MEMORY_MB


def test_a_png_within_a_smaller_budget_is_refused_naming_its_size_and_the_variable(tmp_path):
    path = write_png(tmp_path / "page.png", 2_000, 3_000)
    lines, _ = measured(READ_PAGES, path, env={"WOJDB_MAX_PAGE_PIXELS": "5000000"})
    assert lines == [
        "refused: page.png page 1: 2,000 × 3,000 pixels, over the budget of 5,000,000 pixels a "
        "page (WOJDB_MAX_PAGE_PIXELS raises it)"
    ]


def test_a_page_at_the_budget_is_decoded_and_read_within_memory(tmp_path):
    side = int(budgets.Budgets().page_pixels ** 0.5)  # 7,071 × 7,071 in colour: 150 MB decoded
    path = write_png(tmp_path / "page.png", side, side, colour=True)
    lines, peak = measured(READ_PAGES, path, "read")
    assert lines == [f"page.png page 1 {side} {side}", "no WOJ-DB page code could be read"]
    assert peak < MEMORY_MB


def test_a_huge_pdf_page_is_rasterised_within_the_budget(tmp_path):
    path = write_pdf(tmp_path / "huge.pdf", 14_400)  # 200 inches: 1.6 Gpx at 200 dpi
    assert path.stat().st_size < 500
    lines, peak = measured(READ_PAGES, path, "read")
    label, width, height = lines[0].rsplit(" ", 2)
    assert label == "huge.pdf page 1" and int(width) == int(height)
    assert int(width) * int(height) <= budgets.Budgets().page_pixels * 1.001  # pdfium rounds up
    assert lines[1:] == ["no WOJ-DB page code could be read"]
    assert peak < MEMORY_MB


def test_a_tiff_is_decoded_frame_by_frame(tmp_path):
    path = write_tiff(tmp_path / "batch.tif", 2_000, 2_000, 150)  # 600 MB decoded at once
    lines, peak = measured(READ_PAGES, path)
    assert lines == [f"batch.tif page {n} 2000 2000" for n in range(1, 151)]
    assert peak < MEMORY_MB


def test_one_oversized_frame_of_a_tiff_is_refused_by_its_number(tmp_path):
    small = write_tiff(tmp_path / "small.tif", 1_000, 1_000, 1).read_bytes()
    path = write_tiff(tmp_path / "mixed.tif", 1_000, 1_000, 3)
    data = bytearray(path.read_bytes())
    # The third frame's ImageWidth (the first tag of its IFD) says 60,000 pixels.
    third = len(small) + (2 + 12 * 9 + 4)
    data[third + 2 + 8 : third + 2 + 12] = struct.pack("<I", 60_000)
    path.write_bytes(bytes(data))
    lines, _ = measured(READ_PAGES, path)
    assert lines[:2] == ["mixed.tif page 1 1000 1000", "mixed.tif page 2 1000 1000"]
    assert lines[2].startswith("refused: mixed.tif page 3: 60,000 × 1,000 pixels, over the budget")


def test_only_regular_files_are_opened(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "folder").mkdir()
    for path in ("/dev/zero", fifo):
        with pytest.raises(InputError, match="is not a regular file"):
            open_input(Path(path))
    with pytest.raises(InputError, match="folder: is a folder, not a file"):
        open_input(tmp_path / "folder")


def test_a_file_over_its_byte_budget_is_refused_naming_the_variable(tmp_path):
    path = tmp_path / "scan.pdf"
    path.write_bytes(b"%PDF" + bytes(96))
    assert read_input(path, 100) == path.read_bytes()
    with pytest.raises(InputError, match=r"is 100 bytes, over the budget of 99 bytes \(X raises"):
        read_input(path, 99, "X")


def test_budgets_are_set_by_environment_variables_each_checked():
    assert budgets.current({}) == budgets.Budgets()
    set_ = budgets.current(
        {
            "WOJDB_MAX_PAGE_PIXELS": "1000",
            "WOJDB_MAX_SCAN_BYTES": "7",
            "WOJDB_MAX_INPUT_BYTES": "9",
            "WOJDB_MAX_STUDY_FILE_BYTES": "11",
        }
    )
    assert (set_.page_pixels, set_.scan_bytes, set_.input_bytes, set_.study_file_bytes) == (
        1000,
        7,
        9,
        11,
    )
    for name, value in [
        ("WOJDB_MAX_PAGE_PIXELS", "0"),
        ("WOJDB_MAX_PAGE_PIXELS", "200000000"),  # over Pillow's own limit
        ("WOJDB_MAX_RELEASE_FILE_BYTES", "16MB"),
        ("WOJDB_MAX_INPUT_BYTES", "-1"),
        ("WOJDB_MAX_STUDY_FILE_BYTES", "1 MiB"),
    ]:
        with pytest.raises(SettingsError, match=f"{name}={value!r}"):
            budgets.current({name: value})


def test_the_measurement_sees_memory_a_child_uses():
    """The peak the tests compare with 500 MB does grow with what the child holds."""
    code = (
        "import resource, numpy\n"
        "held = numpy.ones(600 * 2**20, numpy.uint8)\n"
        'print("peak", next(int(f.split()[1]) // 1024 for f in open("/proc/self/status") '
        'if f[:6] == "VmHWM:"))'
    )
    _, peak = measured(code)
    assert peak > 600 > MEMORY_MB
