"""Frames from any source, newest frame only: the first stage of the vision pipeline.

One string (or int) names the source: a webcam index (``0``, ``"1"``, ``/dev/video2``), a
video file, an image file, a folder of images, an HTTP(S) MJPEG URL from a phone camera app
(``http://phone:8080/video``) or another stream URL OpenCV understands (``rtsp://...``).
``open_source`` opens it (raising ``CaptureError`` with one sentence if it cannot) and
returns a ``FrameSource`` whose reader thread keeps decoding while the caller works.

Live sources (cameras, URLs) keep only the newest frame: a camera cannot be paused, so
holding every frame while recognition is slower than the camera would build up lag, and
what matters at the table is the board as it is *now*. Files and folders are read in order
without dropping by default (``realtime=False``): offline checks, benchmarks and tests must
see every frame and give the same answer on a fast or a slow machine. ``realtime=True``
replays a file at its frame rate with live semantics, as if a camera were filming it.

A live source that stops delivering is reported (``status``, ``drain_events``:
"camera 0 disconnected; reconnecting…") and reopened with exponential backoff; the end of a
file is a clean end (``EndOfStream``, or the end of ``for frame in source``).
"""

from __future__ import annotations

import base64
import contextlib
import enum
import http.client
import logging
import re
import socket
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from .classify import ImageError, load_image
from .mjpeg import MultipartJpegParser

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
# Pace for replaying a folder or still image in realtime mode when the caller gives no fps.
DEFAULT_REPLAY_FPS = 30.0
# Frames read with automatic exposure on before it is locked, so the lock keeps a settled
# exposure rather than whatever the camera started with (about 2/3 s at 30 fps).
SETTLE_FRAMES_BEFORE_LOCK = 20
# How long close() waits for the reader thread; a camera driver stuck in a read cannot be
# interrupted from Python, and the daemon thread must not keep the program from exiting.
CLOSE_JOIN_TIMEOUT_S = 3.0


class CaptureError(RuntimeError):
    """A source cannot be opened or read; the message is one sentence a user can act on."""


class EndOfStream(Exception):
    """A file source has delivered its last frame, or the source was closed."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded picture and where it came from.

    ``index`` counts every frame the source grabbed, so a jump between two frames a caller
    receives is the number of frames dropped in between. ``timestamp`` is
    ``time.monotonic()`` when the frame was grabbed, for measuring latency and motion.
    """

    image: Image
    index: int
    timestamp: float
    source: str


class SourceState(enum.Enum):
    LIVE = "live"
    RECONNECTING = "reconnecting"
    ENDED = "ended"
    FAILED = "failed"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """What a host screen shows about the source: a state and one sentence."""

    state: SourceState
    message: str


class EventKind(enum.Enum):
    DISCONNECTED = "disconnected"
    RECONNECT_FAILED = "reconnect-failed"
    RECONNECTED = "reconnected"
    SKIPPED = "skipped"
    ENDED = "ended"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class CaptureEvent:
    kind: EventKind
    message: str
    timestamp: float


@dataclass(frozen=True, slots=True)
class CaptureStats:
    grabbed: int
    delivered: int
    dropped: int


@dataclass(frozen=True, slots=True)
class ReconnectPolicy:
    """Exponential backoff between attempts to reopen a live source.

    Backing off keeps a missing USB camera or an unreachable phone from being hammered
    many times a second while still noticing quickly when it comes back.
    ``max_attempts=None`` retries for as long as the source is open.
    """

    first_delay_s: float = 0.5
    factor: float = 2.0
    max_delay_s: float = 8.0
    max_attempts: int | None = None

    def delay_before(self, attempt: int) -> float:
        """Seconds to wait before reconnect attempt number ``attempt`` (0-based)."""
        return min(self.first_delay_s * self.factor**attempt, self.max_delay_s)


@dataclass(frozen=True, slots=True)
class CameraRequest:
    """What the caller asks of a webcam; the camera may grant less (see AppliedSettings)."""

    width: int | None = 1920
    height: int | None = 1080
    fourcc: str | None = "MJPG"
    fps: float | None = None
    lock_exposure: bool = True
    lock_white_balance: bool = True


@dataclass(frozen=True, slots=True)
class AppliedSettings:
    """What a webcam actually does after the request, read back from the backend.

    ``exposure_locked`` / ``white_balance_locked`` are ``None`` when the backend cannot
    say (the control is missing or this backend has no known "manual" value).
    """

    backend: str
    width: int
    height: int
    fourcc: str
    fps: float
    exposure_locked: bool | None
    white_balance_locked: bool | None
    notes: tuple[str, ...]


class VideoCaptureLike(Protocol):
    """The part of ``cv2.VideoCapture`` this module uses, so tests can inject a fake camera."""

    def isOpened(self) -> bool: ...
    def read(self) -> tuple[bool, Image | None]: ...
    def set(self, prop_id: int, value: float) -> bool: ...
    def get(self, prop_id: int) -> float: ...
    def release(self) -> None: ...
    def getBackendName(self) -> str: ...


CaptureFactory = Callable[[int | str, int], VideoCaptureLike]


def opencv_capture(target: int | str, api_preference: int) -> VideoCaptureLike:
    """The real backend: cv2.VideoCapture (tests pass a fake with the same shape)."""
    return cv2.VideoCapture(target, api_preference)


class SourceKind(enum.Enum):
    CAMERA = "camera"
    VIDEO_FILE = "video file"
    IMAGE_FILE = "image file"
    IMAGE_FOLDER = "image folder"
    MJPEG_URL = "mjpeg url"
    STREAM_URL = "stream url"


@dataclass(frozen=True, slots=True)
class SourceSpec:
    kind: SourceKind
    target: int | str


def parse_source_spec(spec: int | str | Path) -> SourceSpec:
    """Decide what kind of source a command-line string names, without opening it."""
    if isinstance(spec, bool):
        raise CaptureError(f"{spec!r} is not a camera index, file, folder or URL.")
    if isinstance(spec, int):
        return SourceSpec(SourceKind.CAMERA, spec)
    text = str(spec).strip()
    if not text:
        raise CaptureError("no source given; pass a camera index, a file, a folder or a URL.")
    if text.isdigit():
        return SourceSpec(SourceKind.CAMERA, int(text))
    if re.fullmatch(r"/dev/video\d+", text):
        return SourceSpec(SourceKind.CAMERA, text)
    scheme = urllib.parse.urlsplit(text).scheme.lower()
    if scheme in ("http", "https"):
        return SourceSpec(SourceKind.MJPEG_URL, text)
    # "C:\x.mp4" parses with scheme "c"; a real URL scheme is longer than a drive letter.
    if len(scheme) > 1 and "://" in text:
        return SourceSpec(SourceKind.STREAM_URL, text)
    path = Path(text).expanduser()
    if path.is_dir():
        return SourceSpec(SourceKind.IMAGE_FOLDER, str(path))
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return SourceSpec(SourceKind.IMAGE_FILE, str(path))
    return SourceSpec(SourceKind.VIDEO_FILE, str(path))


def _redact_url(url: str) -> str:
    """The URL without its password, for messages a user may share in a bug report."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


class _EventLog:
    """Thread-safe, bounded list of events for the caller to poll.

    Bounded so a caller that never polls does not leak memory over a long evening.
    """

    def __init__(self, capacity: int = 256) -> None:
        self._events: deque[CaptureEvent] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def emit(self, kind: EventKind, message: str) -> None:
        with self._lock:
            self._events.append(CaptureEvent(kind, message, time.monotonic()))

    def drain(self) -> list[CaptureEvent]:
        with self._lock:
            events = list(self._events)
            self._events.clear()
        return events


class _Reader(Protocol):
    """One kind of source. Only the reader thread calls read/open/rewind/close."""

    name: str
    live: bool
    nominal_fps: float | None

    def open(self) -> None:
        """Open (or reopen) the source; raise CaptureError with one sentence if it cannot."""

    def read(self) -> Image | None:
        """The next picture; None when a live source failed; EndOfStream after a file's last."""

    def rewind(self) -> None: ...

    def interrupt(self) -> None:
        """Unblock a read in progress; called from another thread by close()."""

    def close(self) -> None: ...


def _fourcc_text(code: float) -> str:
    value = int(code)
    if value <= 0:
        return ""
    return "".join(chr((value >> (8 * i)) & 0xFF) for i in range(4)).strip("\x00 ")


# The CAP_PROP_AUTO_EXPOSURE value that means "manual" differs per backend: V4L2 passes the
# raw V4L2_CID_EXPOSURE_AUTO menu value (1 = V4L2_EXPOSURE_MANUAL, 3 = aperture priority);
# DirectShow uses 0.25 for manual and 0.75 for auto. Other backends: unknown, so not touched.
_MANUAL_EXPOSURE_VALUE = {"V4L2": 1.0, "DSHOW": 0.25}


def _request_camera_mode(capture: VideoCaptureLike, request: CameraRequest) -> None:
    """Ask for pixel format, size and rate; the camera picks the nearest mode it has.

    FOURCC goes first because V4L2 renegotiates the format on each call, and on USB 2
    cameras 1080p at a usable rate usually exists only as MJPG.
    """
    if request.fourcc:
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*request.fourcc))
    if request.width:
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, request.width)
    if request.height:
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, request.height)
    if request.fps:
        capture.set(cv2.CAP_PROP_FPS, request.fps)


def _lock_automatic_controls(
    capture: VideoCaptureLike, request: CameraRequest, backend: str
) -> tuple[bool | None, bool | None, list[str]]:
    """Freeze exposure and white balance after they settled; returns what the camera reports.

    Frozen because recognition compares frames over a whole evening: a camera re-exposing
    whenever a hand or a dark card enters the view shifts every colour the classifier sees.
    The values are read back, since many drivers accept a set() and ignore it.
    """
    notes: list[str] = []
    exposure_locked: bool | None = None
    white_balance_locked: bool | None = None
    if request.lock_exposure or request.lock_white_balance:
        for _ in range(SETTLE_FRAMES_BEFORE_LOCK):
            capture.read()
    if request.lock_exposure:
        manual = _MANUAL_EXPOSURE_VALUE.get(backend)
        if manual is None:
            notes.append(f"exposure left automatic: no known manual value for backend {backend}")
        else:
            capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, manual)
            actual = capture.get(cv2.CAP_PROP_AUTO_EXPOSURE)
            exposure_locked = None if actual == -1 else abs(actual - manual) < 1e-6
            if exposure_locked is not True:
                notes.append("the camera did not accept manual exposure")
    if request.lock_white_balance:
        capture.set(cv2.CAP_PROP_AUTO_WB, 0)
        actual = capture.get(cv2.CAP_PROP_AUTO_WB)
        white_balance_locked = None if actual == -1 else actual == 0
        if white_balance_locked is not True:
            notes.append("the camera did not turn off automatic white balance")
    return exposure_locked, white_balance_locked, notes


def _applied_settings(
    capture: VideoCaptureLike,
    request: CameraRequest,
    backend: str,
    frame: Image,
    locks: tuple[bool | None, bool | None, list[str]],
) -> AppliedSettings:
    """The settings in force, with the size taken from a real frame rather than get()."""
    exposure_locked, white_balance_locked, notes = locks
    height, width = frame.shape[:2]
    if request.width and request.height and (width, height) != (request.width, request.height):
        notes = [f"asked for {request.width}x{request.height}, the camera gives {width}x{height}", *notes]
    return AppliedSettings(
        backend=backend,
        width=width,
        height=height,
        fourcc=_fourcc_text(capture.get(cv2.CAP_PROP_FOURCC)),
        fps=float(capture.get(cv2.CAP_PROP_FPS)),
        exposure_locked=exposure_locked,
        white_balance_locked=white_balance_locked,
        notes=tuple(notes),
    )


class _OpenCvLiveReader:
    """A webcam (index or device path) or a stream URL read through cv2.VideoCapture."""

    live = True

    def __init__(self, target: int | str, name: str, factory: CaptureFactory, request: CameraRequest | None) -> None:
        self.name = name
        self.nominal_fps: float | None = None
        self.settings: AppliedSettings | None = None
        self._target = target
        self._factory = factory
        self._request = request
        self._capture: VideoCaptureLike | None = None
        self._first: Image | None = None

    def open(self) -> None:
        self.close()
        capture = self._factory(self._target, cv2.CAP_ANY)
        if not capture.isOpened():
            capture.release()
            if self._request is None:
                raise CaptureError(f"cannot connect to {self.name}.")
            where = f"index {self._target}" if isinstance(self._target, int) else str(self._target)
            raise CaptureError(f"no camera at {where}.")
        locks: tuple[bool | None, bool | None, list[str]] = (None, None, [])
        if self._request is not None:
            _request_camera_mode(capture, self._request)
            locks = _lock_automatic_controls(capture, self._request, capture.getBackendName())
        ok, image = capture.read()
        if not ok or image is None:
            capture.release()
            raise CaptureError(f"{self.name} opened but sent no picture (is another program using it?).")
        if self._request is not None:
            self.settings = _applied_settings(capture, self._request, capture.getBackendName(), image, locks)
        fps = capture.get(cv2.CAP_PROP_FPS)
        self.nominal_fps = fps if fps > 0 else None
        self._capture, self._first = capture, image

    def read(self) -> Image | None:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        return image if ok and image is not None else None

    def rewind(self) -> None:
        """Live sources have no beginning to go back to."""

    def interrupt(self) -> None:
        """cv2.VideoCapture cannot be interrupted safely from another thread; reads time out."""

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
        self._capture, self._first = None, None


class _VideoFileReader:
    live = False

    def __init__(self, path: str, factory: CaptureFactory) -> None:
        self.name = f"video {path}"
        self.nominal_fps: float | None = None
        self._path = path
        self._factory = factory
        self._capture: VideoCaptureLike | None = None
        self._first: Image | None = None

    def open(self) -> None:
        self.close()
        if not Path(self._path).is_file():
            raise CaptureError(f"cannot read video file {self._path}: there is no such file.")
        capture = self._factory(self._path, cv2.CAP_ANY)
        if not capture.isOpened():
            capture.release()
            raise CaptureError(f"cannot read video file {self._path}: it is not a video OpenCV can decode.")
        # Decoding one frame now turns a truncated or mislabelled file into an error at open,
        # where the user is looking, instead of a stream that silently ends at once.
        ok, image = capture.read()
        if not ok or image is None:
            capture.release()
            raise CaptureError(f"cannot read video file {self._path}: it has no frames OpenCV can decode.")
        fps = capture.get(cv2.CAP_PROP_FPS)
        self.nominal_fps = fps if fps > 0 else None
        self._capture, self._first = capture, image

    def read(self) -> Image | None:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        if self._capture is None:
            raise EndOfStream(self.name)
        ok, image = self._capture.read()
        if not ok or image is None:
            raise EndOfStream(self.name)
        return image

    def rewind(self) -> None:
        # Reopening instead of seeking to frame 0: seeking is unreliable for some codecs.
        self.open()

    def interrupt(self) -> None:
        """Decoding a file never blocks for long."""

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
        self._capture, self._first = None, None


def _decode_image_file(path: Path) -> Image | None:
    """BGR pixels of an image file, or None if it cannot be decoded (a folder's file is then
    skipped, a photo given alone refused: ``load_image``'s reason is not needed here)."""
    try:
        return load_image(path)
    except ImageError:
        return None


def _natural_key(path: Path) -> tuple[tuple[int, int | str], ...]:
    """Sort key that puts frame_2 before frame_10, as a person numbering photos expects."""
    parts = re.split(r"(\d+)", path.name.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


class _ImageFolderReader:
    """The images of one folder in natural name order; undecodable ones are skipped.

    Skipping (with a warning and a SKIPPED event) rather than stopping: one bad photo in a
    folder of a hundred should not throw the other ninety-nine away.
    """

    live = False
    nominal_fps: float | None = None

    def __init__(self, folder: str, events: _EventLog) -> None:
        self.name = f"folder {folder}"
        self._folder = Path(folder)
        self._events = events
        self._paths: list[Path] = []
        self._next = 0

    def open(self) -> None:
        if not self._folder.is_dir():
            raise CaptureError(f"cannot read folder {self._folder}: there is no such folder.")
        self._paths = sorted(
            (
                p
                for p in self._folder.iterdir()
                if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in IMAGE_SUFFIXES
            ),
            key=_natural_key,
        )
        if not self._paths:
            raise CaptureError(f"folder {self._folder} has no images.")
        self._next = 0
        first = self._peek_first_readable()
        if first is None:
            raise CaptureError(
                f"folder {self._folder} has no readable images ({len(self._paths)} could not be decoded)."
            )

    def _peek_first_readable(self) -> int | None:
        for index, path in enumerate(self._paths):
            if _decode_image_file(path) is not None:
                return index
        return None

    def read(self) -> Image | None:
        while self._next < len(self._paths):
            path = self._paths[self._next]
            self._next += 1
            image = _decode_image_file(path)
            if image is not None:
                return image
            message = f"skipped {path.name}: not an image OpenCV can decode"
            log.warning("%s: %s", self.name, message)
            self._events.emit(EventKind.SKIPPED, message)
        raise EndOfStream(self.name)

    def rewind(self) -> None:
        self._next = 0

    def interrupt(self) -> None:
        """Reading one file never blocks for long."""

    def close(self) -> None:
        """Nothing stays open between reads."""


class _ImageFileReader:
    """A single photo: one frame, or the same frame again and again with loop=True."""

    live = False
    nominal_fps: float | None = None

    def __init__(self, path: str) -> None:
        self.name = f"image {path}"
        self._path = Path(path)
        self._image: Image | None = None
        self._delivered = False

    def open(self) -> None:
        if not self._path.is_file():
            raise CaptureError(f"cannot read image file {self._path}: there is no such file.")
        image = _decode_image_file(self._path)
        if image is None:
            raise CaptureError(f"cannot read image file {self._path}: it is not an image OpenCV can decode.")
        self._image, self._delivered = image, False

    def read(self) -> Image | None:
        if self._delivered or self._image is None:
            raise EndOfStream(self.name)
        self._delivered = True
        return self._image.copy()

    def rewind(self) -> None:
        self._delivered = False

    def interrupt(self) -> None:
        """Nothing blocks."""

    def close(self) -> None:
        """Keeps the decoded picture so a looped still needs no disk access."""


class _MjpegReader:
    """An HTTP(S) MJPEG stream (phone camera apps such as IP Webcam), parsed here.

    Parsed in Python rather than handed to OpenCV's FFmpeg backend so that a read can be
    interrupted at once by close() (the socket is shut down), a stalled phone is noticed
    after ``timeout_s`` instead of FFmpeg's long default, credentials in the URL work, and
    errors name their cause.
    """

    live = True
    nominal_fps: float | None = None

    def __init__(self, url: str, timeout_s: float) -> None:
        self.name = _redact_url(url)
        self._url = url
        self._timeout_s = timeout_s
        self._connection: http.client.HTTPConnection | None = None
        self._response: http.client.HTTPResponse | None = None
        self._socket: socket.socket | None = None
        self._parser: MultipartJpegParser | None = None
        self._first: Image | None = None
        self._lock = threading.Lock()

    def open(self) -> None:
        self.close()
        parts = urllib.parse.urlsplit(self._url)
        if not parts.hostname:
            raise CaptureError(f"cannot connect to {self.name}: the URL has no host.")
        connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = connection_type(parts.hostname, parts.port, timeout=self._timeout_s)
        headers = {"User-Agent": "tunnelvision", "Accept": "multipart/x-mixed-replace, image/jpeg"}
        if parts.username is not None:
            credentials = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        try:
            connection.request("GET", target, headers=headers)
            # Kept now: getresponse() drops connection.sock when the server will close the
            # connection (every MJPEG server), but the response still reads from it.
            sock = connection.sock
            response = connection.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            raise CaptureError(f"cannot connect to {self.name}: {reason}.") from exc
        if response.status != 200:
            connection.close()
            answer = f"{response.status} {response.reason}"
            raise CaptureError(f"cannot connect to {self.name}: the server answered {answer}.")
        content_type = response.getheader("Content-Type", "")
        if not content_type.lower().startswith("multipart/"):
            connection.close()
            raise CaptureError(
                f"cannot connect to {self.name}: it sends {content_type or 'no content type'}, "
                "not an MJPEG stream (for IP Webcam use the /video address)."
            )
        match = re.search(r'boundary="?([^";]+)"?', content_type, flags=re.IGNORECASE)
        boundary = match.group(1).strip().encode("latin-1") if match else None
        with self._lock:
            self._connection, self._response, self._socket = connection, response, sock
        self._parser = MultipartJpegParser(response, boundary)
        first = self._read_jpeg()
        if first is None:
            self.close()
            raise CaptureError(f"cannot connect to {self.name}: the stream sent no picture.")
        self._first = first

    def _read_jpeg(self) -> Image | None:
        if self._parser is None:
            return None
        # A few undecodable parts in a row are tolerated (servers interleave text parts or
        # send a torn frame when the phone rotates); a run of them means the stream is bad.
        for _ in range(5):
            try:
                body = self._parser.next_part()
            except (OSError, http.client.HTTPException, ValueError):
                return None
            if body is None:
                return None
            if not body:
                continue
            image = cv2.imdecode(np.frombuffer(body, dtype=np.uint8), cv2.IMREAD_COLOR)
            if image is not None:
                return image
        return None

    def read(self) -> Image | None:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self._read_jpeg()

    def rewind(self) -> None:
        """A stream has no beginning to go back to."""

    def interrupt(self) -> None:
        with self._lock:
            sock = self._socket
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed by the server: the read is over anyway
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._lock:
            connection, response = self._connection, self._response
            self._connection, self._response, self._socket = None, None, None
        self._parser, self._first = None, None
        if response is not None:
            response.close()
        if connection is not None:
            connection.close()


class FrameSource:
    """Frames from one opened source, decoded by a background thread.

    Use as a context manager (or call ``close()``); ``read(timeout)`` returns the newest
    frame not yet returned, ``None`` if none arrived within ``timeout``, and raises
    ``EndOfStream`` after the last frame of a file or once closed, or ``CaptureError`` if a
    live source gave up reconnecting. ``for frame in source`` reads until the end.
    """

    def __init__(
        self,
        reader: _Reader,
        events: _EventLog,
        *,
        realtime: bool,
        loop: bool,
        replay_fps: float | None,
        reconnect: ReconnectPolicy,
    ) -> None:
        self._reader = reader
        self._events = events
        self._realtime = realtime
        self._loop = loop and not reader.live
        self._replay_fps = replay_fps
        # Files replayed in realtime are paced at their frame rate; live sources pace themselves.
        self._frame_interval = (self.seconds_per_frame or 0.0) if realtime else 0.0
        self._reconnect = reconnect
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._latest: Frame | None = None
        self._state = SourceState.LIVE
        self._message = f"{reader.name} is running"
        self._failure: CaptureError | None = None
        self._grabbed = self._delivered = self._dropped = 0
        self._attempt = 0
        self._thread = threading.Thread(target=self._run, name=f"capture: {reader.name}", daemon=True)
        self._thread.start()

    @property
    def name(self) -> str:
        return self._reader.name

    @property
    def live(self) -> bool:
        return self._reader.live

    @property
    def realtime(self) -> bool:
        return self._realtime

    @property
    def seconds_per_frame(self) -> float | None:
        """A file's or folder's own time from one frame to the next (the replay rate asked for,
        else its own frame rate, else DEFAULT_REPLAY_FPS's): what it shows is timed in it, the
        same however fast it is read. None for a live source, whose frames are timed as grabbed."""
        if self._reader.live:
            return None
        return 1.0 / (self._replay_fps or self._reader.nominal_fps or DEFAULT_REPLAY_FPS)

    @property
    def settings(self) -> AppliedSettings | None:
        """What a webcam actually runs at (refreshed on each reconnect); None for other sources."""
        return getattr(self._reader, "settings", None)

    @property
    def status(self) -> SourceStatus:
        with self._cond:
            return SourceStatus(self._state, self._message)

    @property
    def stats(self) -> CaptureStats:
        with self._cond:
            return CaptureStats(self._grabbed, self._delivered, self._dropped)

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    def drain_events(self) -> list[CaptureEvent]:
        """Events since the last call (disconnects, reconnects, skipped files, the end)."""
        return self._events.drain()

    def read(self, timeout: float | None = None) -> Frame | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self._stop.is_set():
                    raise EndOfStream(f"{self.name} is closed")
                if self._latest is not None:
                    frame, self._latest = self._latest, None
                    self._delivered += 1
                    self._cond.notify_all()  # a non-realtime reader waits for the free slot
                    return frame
                if self._failure is not None:
                    raise self._failure
                if self._state is SourceState.ENDED:
                    raise EndOfStream(self.name)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def __iter__(self) -> Iterator[Frame]:
        while True:
            try:
                frame = self.read()
            except EndOfStream:
                return
            if frame is not None:
                yield frame

    def close(self) -> None:
        """Stop the reader thread and release the source; safe to call twice."""
        if self._stop.is_set():
            return
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._reader.interrupt()
        if self._thread is not threading.current_thread():
            self._thread.join(CLOSE_JOIN_TIMEOUT_S)
            if self._thread.is_alive():
                log.warning("%s: the reader thread is still blocked in the driver; leaving it", self.name)
        with self._cond:
            self._state, self._message = SourceState.CLOSED, f"{self.name} is closed"
            self._cond.notify_all()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _set_state(self, state: SourceState, message: str) -> None:
        with self._cond:
            self._state, self._message = state, message
            self._cond.notify_all()

    def _run(self) -> None:
        try:
            self._pump()
        except Exception as exc:  # the caller must hear about a crash, not wait forever
            log.exception("%s: reader thread failed", self.name)
            self._fail(CaptureError(f"{self.name} stopped unexpectedly: {exc}."))
        finally:
            self._reader.close()

    def _pump(self) -> None:
        next_due = time.monotonic()
        while not self._stop.is_set():
            try:
                image = self._reader.read()
            except EndOfStream:
                if self._loop:
                    self._reader.rewind()
                    continue
                self._events.emit(EventKind.ENDED, f"{self.name} ended")
                self._set_state(SourceState.ENDED, f"{self.name} ended")
                return
            if image is None:
                if self._stop.is_set() or not self._recover():
                    return
                continue
            if self._state is SourceState.RECONNECTING:
                self._attempt = 0
                self._events.emit(EventKind.RECONNECTED, f"{self.name} reconnected")
                self._set_state(SourceState.LIVE, f"{self.name} is running")
            if self._frame_interval:
                if self._stop.wait(max(0.0, next_due - time.monotonic())):
                    return
                # Falling behind (a slow decode) restarts the schedule instead of bursting.
                next_due = max(next_due, time.monotonic()) + self._frame_interval
            self._publish(image, time.monotonic())

    def _publish(self, image: Image, grabbed_at: float) -> None:
        with self._cond:
            if not self._realtime:
                while self._latest is not None and not self._stop.is_set():
                    self._cond.wait()
                if self._stop.is_set():
                    return
            if self._latest is not None:
                self._dropped += 1
            self._latest = Frame(image, self._grabbed, grabbed_at, self.name)
            self._grabbed += 1
            self._cond.notify_all()

    def _recover(self) -> bool:
        """Reopen a live source that stopped delivering; False once closed or given up."""
        if self._state is not SourceState.RECONNECTING:
            message = f"{self.name} disconnected; reconnecting…"
            log.warning("%s", message)
            self._events.emit(EventKind.DISCONNECTED, message)
            self._set_state(SourceState.RECONNECTING, message)
        self._reader.close()
        limit = self._reconnect.max_attempts
        while not self._stop.is_set():
            if limit is not None and self._attempt >= limit:
                self._fail(CaptureError(f"{self.name} disconnected and did not come back after {limit} tries."))
                return False
            if self._stop.wait(self._reconnect.delay_before(self._attempt)):
                return False
            self._attempt += 1
            try:
                self._reader.open()
            except CaptureError as exc:
                next_delay = self._reconnect.delay_before(self._attempt)
                message = f"{self.name} still unavailable ({exc}); next try in {next_delay:.1f} s"
                self._events.emit(EventKind.RECONNECT_FAILED, message)
                self._set_state(SourceState.RECONNECTING, f"{self.name} disconnected; reconnecting…")
                continue
            return True
        return False

    def _fail(self, error: CaptureError) -> None:
        self._events.emit(EventKind.FAILED, str(error))
        with self._cond:
            self._failure = error
            self._state, self._message = SourceState.FAILED, str(error)
            self._cond.notify_all()


def open_source(
    spec: int | str | Path,
    *,
    width: int = 1920,
    height: int = 1080,
    fourcc: str | None = "MJPG",
    fps: float | None = None,
    loop: bool = False,
    realtime: bool | None = None,
    lock_exposure: bool = True,
    lock_white_balance: bool = True,
    reconnect: ReconnectPolicy = ReconnectPolicy(),
    timeout_s: float = 5.0,
    capture_factory: CaptureFactory = opencv_capture,
) -> FrameSource:
    """Open a camera, file, folder or URL and start reading it in the background.

    ``width``/``height``/``fourcc``/``fps`` and the exposure/white-balance locks apply to
    webcams (``fps`` also paces a file replayed with ``realtime=True``). ``realtime``
    defaults to True for live sources and False for files (see the module docstring).
    ``realtime=False`` on a live source is a ValueError. ``loop`` restarts a file at its
    end. ``timeout_s`` is how long an MJPEG server may stall before it counts as
    disconnected. ``capture_factory`` replaces cv2.VideoCapture, for tests. Raises
    CaptureError if the source cannot be opened.
    """
    parsed = parse_source_spec(spec)
    events = _EventLog()
    reader: _Reader
    if parsed.kind is SourceKind.CAMERA:
        request = CameraRequest(width, height, fourcc, fps, lock_exposure, lock_white_balance)
        name = f"camera {parsed.target}"
        reader = _OpenCvLiveReader(parsed.target, name, capture_factory, request)
    elif parsed.kind is SourceKind.STREAM_URL:
        target = str(parsed.target)
        reader = _OpenCvLiveReader(target, _redact_url(target), capture_factory, None)
    elif parsed.kind is SourceKind.MJPEG_URL:
        reader = _MjpegReader(str(parsed.target), timeout_s)
    elif parsed.kind is SourceKind.IMAGE_FOLDER:
        reader = _ImageFolderReader(str(parsed.target), events)
    elif parsed.kind is SourceKind.IMAGE_FILE:
        reader = _ImageFileReader(str(parsed.target))
    else:
        reader = _VideoFileReader(str(parsed.target), capture_factory)
    if realtime is False and reader.live:
        raise ValueError("realtime=False is only for files: a live source cannot be paused.")
    reader.open()
    return FrameSource(
        reader,
        events,
        realtime=reader.live if realtime is None else realtime,
        loop=loop,
        replay_fps=fps,
        reconnect=reconnect,
    )
