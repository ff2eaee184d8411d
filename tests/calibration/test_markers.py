"""Tests for the printable marker sheet: its geometry, the PNG and the hand-written PDF."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.markers import SHEET, SHEET_LAYOUT, render_marker_sheet, write_marker_sheet
from calibration.table import detect_markers

A4_POINTS = (841.8898, 595.2756)


def test_layout_is_four_or_more_square_markers_inside_the_page_without_overlap() -> None:
    assert len(SHEET_LAYOUT) >= 4
    width, height = SHEET.page_mm
    boxes = []
    for corners in SHEET_LAYOUT.values():
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = corners
        # ArUco corner order on an upright marker: TL, TR, BR, BL.
        assert (y1, x2, x3) == (y0, x1, x0) and x1 - x0 == y3 - y0 == SHEET.marker_mm
        # A printer cannot print the outer few millimetres; keep markers well clear of them.
        assert x0 >= 10 and y0 >= 10 and x1 <= width - 10 and y2 <= height - 10
        boxes.append((x0, y0, x1, y2))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] + 10 <= b[0] or b[2] + 10 <= a[0] or a[3] + 10 <= b[1] or b[3] + 10 <= a[1]
    # Markers near all four corners of the sheet, so the fit spans the whole sheet.
    centres = np.array([np.mean(c, axis=0) for c in SHEET_LAYOUT.values()])
    for corner in [(0, 0), (width, 0), (width, height), (0, height)]:
        assert np.min(np.linalg.norm(centres - corner, axis=1)) < 60


@pytest.mark.parametrize("dpi", [127, 300])
def test_rendered_markers_sit_where_the_layout_says(dpi: int) -> None:
    sheet = render_marker_sheet(dpi)
    px_per_mm = dpi / 25.4
    assert sheet.shape == (round(210 * px_per_mm), round(297 * px_per_mm))
    found = detect_markers(sheet)
    assert set(found) == set(SHEET_LAYOUT)
    for marker_id, corners in found.items():
        expected_px = np.array(SHEET_LAYOUT[marker_id]) * px_per_mm - 0.5  # pixel centres
        error_mm = np.max(np.linalg.norm(corners - expected_px, axis=1)) / px_per_mm
        assert error_mm < 0.15


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    png, pdf = write_marker_sheet(tmp_path_factory.mktemp("sheet") / "new-folder")
    return png, pdf


def png_chunks(data: bytes) -> dict[bytes, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, position = {}, 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, f"bad CRC in {kind!r}"
        chunks[kind] = body
        position += 12 + length
    return chunks


def test_png_is_a4_at_300_dpi(written: tuple[Path, Path]) -> None:
    png, _ = written
    chunks = png_chunks(png.read_bytes())
    x_ppm, y_ppm, unit = struct.unpack(">IIB", chunks[b"pHYs"])
    assert (x_ppm, y_ppm, unit) == (11811, 11811, 1)  # 300 dpi in pixels per metre
    image = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    assert image.shape == (2480, 3508)
    assert np.array_equal(image, render_marker_sheet(300))


def pdf_objects(data: bytes) -> dict[int, bytes]:
    """Each object's bytes, found through the xref table, checking that every offset is right."""
    assert data.startswith(b"%PDF-1.") and data.rstrip().endswith(b"%%EOF")
    xref_at = int(re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", data).group(1))
    assert data[xref_at:].startswith(b"xref")
    header = re.match(rb"xref\s+0 (\d+)\s+", data[xref_at:])
    count = int(header.group(1))
    entries = data[xref_at + header.end() :].split(b"\n")[:count]
    assert entries[0].startswith(b"0000000000 65535 f")
    objects = {}
    for number, entry in enumerate(entries[1:], start=1):
        offset = int(entry[:10])
        assert data[offset:].startswith(b"%d 0 obj" % number), f"xref offset of object {number} is wrong"
        end = data.index(b"endobj", offset)
        objects[number] = data[offset:end]
    trailer = data[data.index(b"trailer", xref_at) :]
    assert b"/Size %d" % count in trailer and b"/Root 1 0 R" in trailer
    return objects


def stream_of(obj: bytes) -> bytes:
    length = int(re.search(rb"/Length (\d+)", obj).group(1))
    start = obj.index(b"stream\n") + len(b"stream\n")
    assert obj[start + length :].startswith(b"\nendstream")
    return obj[start : start + length]


def test_pdf_is_a_valid_a4_page_showing_the_sheet_at_its_physical_size(written: tuple[Path, Path]) -> None:
    png, pdf = written
    objects = pdf_objects(pdf.read_bytes())
    page = next(o for o in objects.values() if b"/Type /Page " in o)
    media_box = [float(v) for v in re.search(rb"/MediaBox \[([^\]]+)\]", page).group(1).split()]
    assert media_box[:2] == [0, 0] and media_box[2:] == pytest.approx(A4_POINTS, abs=0.01)
    catalog = objects[1]
    assert b"/PrintScaling /None" in catalog

    image_obj = next(o for o in objects.values() if b"/Subtype /Image" in o)
    width = int(re.search(rb"/Width (\d+)", image_obj).group(1))
    height = int(re.search(rb"/Height (\d+)", image_obj).group(1))
    pixels = np.frombuffer(zlib.decompress(stream_of(image_obj)), np.uint8).reshape(height, width)
    assert np.array_equal(pixels, cv2.imread(str(png), cv2.IMREAD_GRAYSCALE))

    content_obj = next(o for o in objects.values() if b"stream" in o and b"/Im0 Do" in stream_of(o))
    a, b, c, d, e, f = (float(v) for v in re.search(rb"q (.+) cm", stream_of(content_obj)).group(1).split())
    # 300 dpi pixels drawn at 72 points per inch: the picture keeps its physical size.
    assert (a, d) == pytest.approx((width / 300 * 72, height / 300 * 72), abs=1e-3)
    assert (b, c, e) == (0, 0, 0) and f + d == pytest.approx(A4_POINTS[1], abs=1e-3)


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler's pdftoppm is not installed")
def test_pdf_renders_with_poppler_and_markers_keep_their_millimetre_positions(
    written: tuple[Path, Path], tmp_path: Path
) -> None:
    _, pdf = written
    subprocess.run(["pdftoppm", "-r", "100", "-gray", "-png", str(pdf), str(tmp_path / "page")], check=True, timeout=30)
    (rendered_path,) = tmp_path.glob("page*.png")
    rendered = cv2.imread(str(rendered_path), cv2.IMREAD_GRAYSCALE)
    # A4 at 100 dpi is 1169.3 x 826.8 px; renderers round the page up or to the nearest.
    assert abs(rendered.shape[0] - 826.8) < 1 and abs(rendered.shape[1] - 1169.3) < 1
    found = detect_markers(rendered)
    assert set(found) == set(SHEET_LAYOUT)
    px_per_mm = 100 / 25.4
    for marker_id, corners in found.items():
        measured_mm = (corners + 0.5) / px_per_mm
        assert np.max(np.linalg.norm(measured_mm - np.array(SHEET_LAYOUT[marker_id]), axis=1)) < 0.5
