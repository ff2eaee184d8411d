"""The join QR code: an SVG for the table screen and text for the terminal.

The code holds the game's join URL and nothing else: a token in it would hand a seat to
anyone who photographs the screen.
"""

from __future__ import annotations

import io
from html import escape

import qrcode
from qrcode.constants import ERROR_CORRECT_M


def _code(data: str) -> qrcode.QRCode:
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=2)
    code.add_data(data)
    code.make(fit=True)
    return code


def qr_svg(data: str, label: str = "") -> str:
    """Dark modules on white, one path; scales to any size without blurring."""
    matrix = _code(data).get_matrix()
    size = len(matrix)
    path = "".join(f"M{x},{y}h1v1h-1z" for y, row in enumerate(matrix) for x, dark in enumerate(row) if dark)
    title = f"<title>{escape(label)}</title>" if label else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" shape-rendering="crispEdges" '
            f'role="img" aria-label="{escape(label)}">{title}<rect width="{size}" height="{size}" fill="#fff"/>'
            f'<path d="{path}" fill="#000"/></svg>')


def qr_text(data: str, *, tty: bool = False) -> str:
    """The code drawn with block characters, for the terminal that started the server."""
    out = io.StringIO()
    _code(data).print_ascii(out=out, tty=tty)
    return out.getvalue()
