"""An MJPEG stream's body split into JPEG frames (``multipart/x-mixed-replace``), for the
capture stage's phone-camera source: bytes in, one JPEG's bytes out, no network and no
decoding here.
"""

from __future__ import annotations

from typing import BinaryIO

# A part larger than this in an MJPEG stream is garbage, not a frame; refusing it keeps a
# misbehaving server from filling memory.
MAX_MJPEG_PART_BYTES = 32 * 1024 * 1024


class _ByteStream:
    """A read buffer over a socket-backed stream that never reads past what it is asked for
    by more than one network chunk, and can hand those extra bytes to the next part."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._buffer = bytearray()

    def _fill(self) -> bool:
        chunk = self._stream.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            return False
        self._buffer += chunk
        if len(self._buffer) > MAX_MJPEG_PART_BYTES:
            raise ValueError("MJPEG part too large")
        return True

    def _ensure(self, size: int) -> bool:
        while len(self._buffer) < size:
            if not self._fill():
                return False
        return True

    def _take(self, size: int) -> bytes:
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def readline(self) -> bytes:
        """One line including its newline; b"" at the end of the stream."""
        start = 0
        while (end := self._buffer.find(b"\n", start)) < 0:
            start = len(self._buffer)
            if not self._fill():
                return self._take(len(self._buffer))
        return self._take(end + 1)

    def read_exact(self, size: int) -> bytes | None:
        return self._take(size) if self._ensure(size) else None

    def read_jpeg(self) -> bytes | None:
        """One JPEG image, found by walking its segments to the end-of-image marker.

        Walking the structure (rather than searching for the first FF D9) stays right when an
        EXIF thumbnail inside the picture has its own end marker, and it returns the frame
        as soon as its last byte arrives instead of waiting for the next boundary.
        """
        while True:  # skip the blank line(s) between the part headers and the image
            if not self._ensure(2):
                return None
            stripped = self._buffer.lstrip(b"\r\n\t ")
            if len(stripped) != len(self._buffer):
                self._buffer = bytearray(stripped)
                continue
            break
        if self._buffer[:2] != b"\xff\xd8":
            return b""  # not a JPEG: an empty body, which the caller skips
        position = 2
        while True:
            if not self._ensure(position + 2):
                return None
            if self._buffer[position] != 0xFF:
                return b""
            marker = self._buffer[position + 1]
            if marker == 0xFF:  # fill byte before a marker
                position += 1
                continue
            if marker == 0xD9:
                return self._take(position + 2)
            if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
                position += 2
                continue
            if not self._ensure(position + 4):
                return None
            position += 2 + (self._buffer[position + 2] << 8 | self._buffer[position + 3])
            if marker == 0xDA:
                found = self._find_marker_after_scan(position)
                if found is None:
                    return None
                position = found

    def _find_marker_after_scan(self, position: int) -> int | None:
        """Offset of the first real marker after entropy-coded data starting at ``position``.

        Inside scan data FF is followed by 00 (a stuffed byte) or D0-D7 (a restart marker);
        anything else is the next segment or the end of the image.
        """
        while True:
            if not self._ensure(position + 2):
                return None
            found = self._buffer.find(b"\xff", position)
            if found < 0 or found + 1 >= len(self._buffer):
                position = max(position, len(self._buffer) - 1)
                if not self._fill():
                    return None
                continue
            following = self._buffer[found + 1]
            if following == 0x00 or following == 0xFF or 0xD0 <= following <= 0xD7:
                position = found + 1
                continue
            return found


class MultipartJpegParser:
    """Splits a multipart/x-mixed-replace body into its JPEG parts.

    Uses each part's Content-Length when given and otherwise the JPEG's own structure,
    which covers the servers phone apps and cheap IP cameras actually run. Boundaries are
    compared without their leading dashes because servers disagree on whether the
    ``boundary=`` parameter includes them; a missing parameter is learnt from the stream.
    """

    def __init__(self, stream: BinaryIO, boundary: bytes | None) -> None:
        self._stream = _ByteStream(stream)
        self._boundary = boundary.lstrip(b"-") if boundary else None

    def _boundary_kind(self, line: bytes) -> str | None:
        stripped = line.strip()
        if not stripped.startswith(b"--"):
            return None
        token = stripped.lstrip(b"-")
        if self._boundary is None and token:
            self._boundary = token.removesuffix(b"--")
        if self._boundary is None:
            return None
        if token == self._boundary:
            return "part"
        if token == self._boundary + b"--":
            return "close"
        return None

    def next_part(self) -> bytes | None:
        """The next part's body (b"" for a part that is not a JPEG), or None at the end."""
        while True:
            line = self._stream.readline()
            if not line:
                return None
            kind = self._boundary_kind(line)
            if kind == "close":
                return None
            if kind == "part":
                break
        length: int | None = None
        while True:
            line = self._stream.readline()
            if not line:
                return None
            if not line.strip():
                break
            key, _, value = line.partition(b":")
            if key.strip().lower() == b"content-length" and value.strip().isdigit():
                length = int(value.strip())
        if length is None:
            return self._stream.read_jpeg()
        if length > MAX_MJPEG_PART_BYTES:
            raise ValueError("MJPEG part too large")
        return self._stream.read_exact(length)
