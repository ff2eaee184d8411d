"""The printable table-calibration sheet: ArUco markers at known millimetre positions.

For a fixed camera, one A4 sheet lying flat on the table gives the homography from image
pixels to the table plane in millimetres (``calibration.table``). The sheet carries six
40 mm DICT_4X4_50 markers near its corners and edge midpoints (six, not four, so hands or a
card over one or two still leave enough), their ids, a 100 mm scale bar to check the print
scale, and short instructions.

The table frame is the sheet's own: origin at the sheet's top-left corner as printed (text
upright), x to the right along the long edge, y down, in millimetres. ``SHEET_LAYOUT`` is
that geometry as data: marker id -> its four corners in the order ArUco reports them
(top-left, top-right, bottom-right, bottom-left of the marker as printed).

``write_marker_sheet`` writes a 300 dpi PNG and a one-page PDF that embeds the same picture
at its exact physical size; the PDF asks viewers not to scale it when printing.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import cv2
import numpy as np
import numpy.typing as npt

MM_PER_INCH = 25.4
POINTS_PER_INCH = 72.0

Point = tuple[float, float]
MarkerCorners = tuple[Point, Point, Point, Point]
MarkerLayout = Mapping[int, MarkerCorners]


@dataclass(frozen=True)
class SheetGeometry:
    """Page, marker size and marker positions of the calibration sheet, in millimetres."""

    page_mm: tuple[float, float]
    marker_mm: float
    dictionary: int
    marker_origins_mm: tuple[tuple[int, Point], ...]

    def layout(self) -> MarkerLayout:
        """Marker id -> its four table-plane corners (TL, TR, BR, BL), in millimetres."""
        size = self.marker_mm
        return MappingProxyType(
            {
                marker_id: ((x, y), (x + size, y), (x + size, y + size), (x, y + size))
                for marker_id, (x, y) in self.marker_origins_mm
            }
        )


_PAGE_W, _PAGE_H, _MARKER, _MARGIN = 297.0, 210.0, 40.0, 15.0
SHEET = SheetGeometry(
    page_mm=(_PAGE_W, _PAGE_H),
    marker_mm=_MARKER,
    dictionary=cv2.aruco.DICT_4X4_50,
    # Clockwise from the top-left corner, so the ids read around the sheet.
    marker_origins_mm=(
        (0, (_MARGIN, _MARGIN)),
        (1, ((_PAGE_W - _MARKER) / 2, _MARGIN)),
        (2, (_PAGE_W - _MARGIN - _MARKER, _MARGIN)),
        (3, (_PAGE_W - _MARGIN - _MARKER, _PAGE_H - _MARGIN - _MARKER)),
        (4, ((_PAGE_W - _MARKER) / 2, _PAGE_H - _MARGIN - _MARKER)),
        (5, (_MARGIN, _PAGE_H - _MARGIN - _MARKER)),
    ),
)
SHEET_LAYOUT: MarkerLayout = SHEET.layout()

SHEET_DPI = 300
SCALE_BAR_MM = 100.0
SHEET_BASENAME = "tunnelvision-calibration-sheet"

_INSTRUCTIONS = (
    "1. Print at 100% / actual size (no 'fit to page'). The bar must measure 100 mm.",
    "2. Lay the sheet flat on the table beside the maze, where the camera sees all six markers.",
    "3. Calibrate, then leave the sheet and the camera where they are; if either moves,",
    "   Tunnel Vision notices and asks to calibrate again.",
)


def _px(mm: float, px_per_mm: float) -> int:
    return round(mm * px_per_mm)


def put_text(
    sheet: npt.NDArray[np.uint8], text: str, origin_mm: Point, height_mm: float, px_per_mm: float, bold: bool = False
) -> None:
    """Text whose capital letters are ``height_mm`` tall, at any dpi."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    cap_height_px = cv2.getTextSize("H", font, 1.0, 1)[0][1]
    scale = height_mm * px_per_mm / cap_height_px
    thickness = max(1, round(scale * (2.6 if bold else 1.6)))
    origin = (_px(origin_mm[0], px_per_mm), _px(origin_mm[1], px_per_mm))
    cv2.putText(sheet, text, origin, font, scale, 0, thickness, cv2.LINE_AA)


def _draw_scale_bar(sheet: npt.NDArray[np.uint8], left_mm: Point, px_per_mm: float) -> None:
    x0, y0 = left_mm
    bar_h = 3.0
    for step in range(int(SCALE_BAR_MM // 10)):
        # Alternating black and white 10 mm blocks: easy to count against a ruler.
        if step % 2 == 0:
            top_left = (_px(x0 + 10 * step, px_per_mm), _px(y0, px_per_mm))
            bottom_right = (_px(x0 + 10 * (step + 1), px_per_mm) - 1, _px(y0 + bar_h, px_per_mm) - 1)
            cv2.rectangle(sheet, top_left, bottom_right, 0, cv2.FILLED)
    outline_tl = (_px(x0, px_per_mm), _px(y0, px_per_mm))
    outline_br = (_px(x0 + SCALE_BAR_MM, px_per_mm) - 1, _px(y0 + bar_h, px_per_mm) - 1)
    cv2.rectangle(sheet, outline_tl, outline_br, 0, max(1, _px(0.2, px_per_mm)))
    for mark_mm, label in ((0.0, "0"), (50.0, "50"), (SCALE_BAR_MM, "100 mm")):
        put_text(sheet, label, (x0 + mark_mm - 1.0, y0 + bar_h + 5.0), 2.5, px_per_mm)


def render_marker_sheet(dpi: int = SHEET_DPI, geometry: SheetGeometry = SHEET) -> npt.NDArray[np.uint8]:
    """The sheet as a greyscale picture, white paper and black ink.

    Marker edges are placed on the nearest pixel, so at 300 dpi a corner is within 0.05 mm
    of ``geometry.layout()``; at 127 dpi (exactly 5 px/mm) it is exact.
    """
    px_per_mm = dpi / MM_PER_INCH
    width_mm, height_mm = geometry.page_mm
    sheet = np.full((_px(height_mm, px_per_mm), _px(width_mm, px_per_mm)), 255, dtype=np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(geometry.dictionary)
    for marker_id, (x, y) in geometry.marker_origins_mm:
        left, top = _px(x, px_per_mm), _px(y, px_per_mm)
        side = _px(x + geometry.marker_mm, px_per_mm) - left
        sheet[top : top + side, left : left + side] = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        # Ids sit on the inner side of each marker so the quiet zone around it stays white.
        label_y = y + geometry.marker_mm + 6.0 if y < height_mm / 2 else y - 3.0
        put_text(sheet, f"id {marker_id}", (x, label_y), 3.0, px_per_mm)

    put_text(sheet, "Tunnel Vision - table calibration sheet", (62.0, 80.0), 6.0, px_per_mm, bold=True)
    for line_number, line in enumerate(_INSTRUCTIONS):
        put_text(sheet, line, (62.0, 92.0 + 7.5 * line_number), 3.0, px_per_mm)
    _draw_scale_bar(sheet, (62.0, 126.0), px_per_mm)
    put_text(
        sheet,
        f"ArUco DICT_4X4_50, markers {geometry.marker_mm:g} mm, A4 landscape",
        (175.0, 131.0),
        2.5,
        px_per_mm,
    )
    return sheet


def png_with_dpi(image: npt.NDArray[np.uint8], dpi: int) -> bytes:
    """PNG bytes carrying a pHYs chunk, so image viewers and printers know the physical size.

    OpenCV's PNG writer has no resolution option; the chunk goes right after IHDR.
    """
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("OpenCV could not encode the sheet as PNG")
    png = encoded.tobytes()
    pixels_per_metre = round(dpi / MM_PER_INCH * 1000)
    body = b"pHYs" + struct.pack(">IIB", pixels_per_metre, pixels_per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_ihdr = 8 + 4 + 4 + 13 + 4  # signature, length, type, IHDR data, CRC
    return png[:end_of_ihdr] + chunk + png[end_of_ihdr:]


def pdf_with_image(image: npt.NDArray[np.uint8], dpi: int, page_mm: tuple[float, float], title: str) -> bytes:
    """A one-page PDF showing a greyscale picture at its physical size (``dpi``), top-left aligned.

    Written by hand (objects, a Flate-compressed image XObject, an xref table) so the sheet
    needs no PDF library; ``/PrintScaling /None`` asks viewers to print at actual size.
    """
    height_px, width_px = image.shape
    page_w_pt, page_h_pt = (size / MM_PER_INCH * POINTS_PER_INCH for size in page_mm)
    image_w_pt, image_h_pt = width_px / dpi * POINTS_PER_INCH, height_px / dpi * POINTS_PER_INCH
    # PDF's origin is bottom-left; place the picture's top edge on the page's top edge.
    content = f"q {image_w_pt:.4f} 0 0 {image_h_pt:.4f} 0 {page_h_pt - image_h_pt:.4f} cm /Im0 Do Q\n".encode()
    pixels = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
    safe_title = title.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /ViewerPreferences << /PrintScaling /None >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w_pt:.4f} {page_h_pt:.4f}] "
            "/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>"
        ).encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        (
            f"<< /Type /XObject /Subtype /Image /Width {width_px} /Height {height_px} "
            f"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n"
        ).encode()
        + pixels
        + b"\nendstream",
        f"<< /Title ({safe_title}) /Creator (Tunnel Vision) >>".encode(),
    ]
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_offset = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n" % (len(objects) + 1, len(objects))
    out += b"startxref\n%d\n%%%%EOF\n" % xref_offset
    return bytes(out)


def write_marker_sheet(out_dir: str | Path, dpi: int = SHEET_DPI) -> list[Path]:
    """Write the sheet as PNG and PDF into ``out_dir`` (created if needed); returns both paths."""
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    sheet = render_marker_sheet(dpi)
    png_path = directory / f"{SHEET_BASENAME}.png"
    pdf_path = directory / f"{SHEET_BASENAME}.pdf"
    png_path.write_bytes(png_with_dpi(sheet, dpi))
    pdf_path.write_bytes(pdf_with_image(sheet, dpi, SHEET.page_mm, "Tunnel Vision table calibration sheet"))
    return [png_path, pdf_path]
