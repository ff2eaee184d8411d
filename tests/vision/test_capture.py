"""Tests for vision.capture with real files, a fake camera backend and a loopback MJPEG server.

Waits are bounded polls (a few seconds at most); nothing asserts how long anything took.
"""

from __future__ import annotations

import http.server
import logging
import queue
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.capture import (
    CaptureError,
    EndOfStream,
    EventKind,
    FrameSource,
    ReconnectPolicy,
    SourceKind,
    SourceState,
    open_source,
    parse_source_spec,
)

FAST_RECONNECT = ReconnectPolicy(first_delay_s=0.01, factor=2.0, max_delay_s=0.05)


def wait_until(predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)


def flat(value: int, size: tuple[int, int] = (48, 64)) -> np.ndarray:
    return np.full((*size, 3), value, dtype=np.uint8)


def level(frame_image: np.ndarray) -> int:
    """The grey level of a flat test picture (robust to JPEG noise)."""
    return round(float(np.median(frame_image)))


def capture_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("capture: ") and t.is_alive()]


# --- a fake camera the tests drive ----------------------------------------------------------


class FakeCamera:
    """A cv2.VideoCapture stand-in: frames are pushed by the test, failures are scripted.

    Failures and frames share one condition so a scripted failure is always seen before a
    frame pushed after it, whatever the thread timing.
    """

    def __init__(self, backend: str = "V4L2", free_running: bool = False) -> None:
        self.frames: deque[np.ndarray] = deque()
        self.cond = threading.Condition()
        self.plugged = True
        self.fail_reads = 0
        self.opens = 0
        self.backend = backend
        self.free_running = free_running
        self.counter = 0
        self.props: dict[int, float] = {}
        self.refused_props: set[int] = set()
        self.max_size: tuple[int, int] | None = None

    def push(self, value: int) -> None:
        with self.cond:
            self.frames.append(flat(value))
            self.cond.notify_all()

    def fail_next_reads(self, count: int) -> None:
        with self.cond:
            self.fail_reads = count
            self.cond.notify_all()

    def set_plugged(self, plugged: bool) -> None:
        with self.cond:
            self.plugged = plugged
            self.cond.notify_all()

    def factory(self, target: int | str, api: int) -> FakeCapture:
        with self.cond:
            self.opens += 1
        return FakeCapture(self)


class FakeCapture:
    def __init__(self, camera: FakeCamera) -> None:
        self.camera = camera
        self.opened = camera.plugged
        self.released = False

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        camera = self.camera
        if camera.free_running:
            time.sleep(0.001)
            camera.counter += 1
            width = int(camera.props.get(cv2.CAP_PROP_FRAME_WIDTH, 64))
            height = int(camera.props.get(cv2.CAP_PROP_FRAME_HEIGHT, 48))
            return True, flat(camera.counter % 256, (height, width))
        with camera.cond:
            while True:
                if self.released or not self.opened or not camera.plugged:
                    return False, None
                if camera.fail_reads > 0:
                    camera.fail_reads -= 1
                    return False, None
                if camera.frames:
                    return True, camera.frames.popleft()
                camera.cond.wait(0.01)  # also re-checks `released`, set without the condition

    def set(self, prop: int, value: float) -> bool:
        if prop in self.camera.refused_props:
            return False
        if self.camera.max_size and prop == cv2.CAP_PROP_FRAME_WIDTH:
            value = min(value, self.camera.max_size[0])
        if self.camera.max_size and prop == cv2.CAP_PROP_FRAME_HEIGHT:
            value = min(value, self.camera.max_size[1])
        self.camera.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        defaults = {cv2.CAP_PROP_AUTO_EXPOSURE: 3.0, cv2.CAP_PROP_AUTO_WB: 1.0, cv2.CAP_PROP_FPS: 30.0}
        return self.camera.props.get(prop, defaults.get(prop, 0.0))

    def release(self) -> None:
        self.released = True

    def getBackendName(self) -> str:
        return self.camera.backend


@contextmanager
def open_fake(camera: FakeCamera, **kwargs: object) -> Iterator[FrameSource]:
    """Open camera 0 on the fake; on exit, unplug it and close the source.

    Unplugging first stands in for the next frame a real camera would deliver within a
    frame interval: the fake's read() waits for a pushed frame, and close() must not wait
    for a read that never returns.
    """
    options: dict[str, object] = dict(
        capture_factory=camera.factory, lock_exposure=False, lock_white_balance=False, reconnect=FAST_RECONNECT
    )
    options.update(kwargs)
    source = open_source(0, **options)  # type: ignore[arg-type]
    try:
        yield source
    finally:
        camera.set_plugged(False)
        source.close()


# --- source strings -------------------------------------------------------------------------


def test_source_strings_name_the_kind_of_source(tmp_path: Path) -> None:
    assert parse_source_spec(0).kind is SourceKind.CAMERA
    assert parse_source_spec(" 1 ").target == 1
    assert parse_source_spec("/dev/video2").kind is SourceKind.CAMERA
    assert parse_source_spec("http://phone:8080/video").kind is SourceKind.MJPEG_URL
    assert parse_source_spec("HTTPS://phone/video").kind is SourceKind.MJPEG_URL
    assert parse_source_spec("rtsp://cam/stream").kind is SourceKind.STREAM_URL
    assert parse_source_spec(tmp_path).kind is SourceKind.IMAGE_FOLDER
    assert parse_source_spec("board.JPG").kind is SourceKind.IMAGE_FILE
    assert parse_source_spec("game.mp4").kind is SourceKind.VIDEO_FILE
    assert parse_source_spec(r"C:\games\night.mp4").kind is SourceKind.VIDEO_FILE
    with pytest.raises(CaptureError):
        parse_source_spec("  ")


# --- newest frame only ----------------------------------------------------------------------


def test_slow_consumer_gets_the_newest_frame_and_skipped_ones_are_dropped() -> None:
    camera = FakeCamera()
    camera.push(0)  # the picture open() checks for
    with open_fake(camera) as source:
        assert source.realtime
        assert source.read(timeout=2).index == 0  # type: ignore[union-attr]
        for value in range(1, 11):
            camera.push(value)
        wait_until(lambda: source.stats.grabbed == 11)
        newest = source.read(timeout=2)
        assert newest is not None
        assert newest.index == 10 and level(newest.image) == 10
        assert source.read(timeout=0.05) is None  # the nine older frames are gone, not queued
        assert source.stats.dropped == 9
        assert source.stats.delivered == 2


def test_free_running_camera_never_hands_a_slow_consumer_a_stale_frame() -> None:
    camera = FakeCamera(free_running=True)
    with open_fake(camera) as source:
        previous = -1
        for _ in range(5):
            time.sleep(0.02)  # the consumer is busy with recognition
            grabbed_before = source.stats.grabbed
            frame = source.read(timeout=2)
            assert frame is not None
            assert frame.index >= grabbed_before - 1  # the newest at the time, or newer
            assert frame.index > previous
            assert frame.source == "camera 0"
            previous = frame.index


# --- disconnects ----------------------------------------------------------------------------


def test_unplugged_camera_is_reported_and_reconnected() -> None:
    camera = FakeCamera()
    camera.push(1)
    with open_fake(camera) as source:
        assert level(source.read(timeout=2).image) == 1  # type: ignore[union-attr]
        camera.set_plugged(False)
        wait_until(lambda: source.status.state is SourceState.RECONNECTING)
        assert source.status.message == "camera 0 disconnected; reconnecting…"
        opens_while_unplugged = camera.opens
        wait_until(lambda: camera.opens >= opens_while_unplugged + 2)  # it keeps trying

        camera.set_plugged(True)
        camera.push(2)
        frame = source.read(timeout=3)
        assert frame is not None and level(frame.image) == 2
        wait_until(lambda: source.status.state is SourceState.LIVE)
        kinds = [event.kind for event in source.drain_events()]
        assert kinds.count(EventKind.DISCONNECTED) == 1
        assert EventKind.RECONNECT_FAILED in kinds
        assert kinds[-1] is EventKind.RECONNECTED


def test_reads_that_fail_a_few_times_then_work_again_resume_the_stream() -> None:
    camera = FakeCamera()
    camera.push(1)
    with open_fake(camera) as source:
        first = source.read(timeout=2)
        assert first is not None
        camera.fail_next_reads(3)
        camera.push(5)
        frame = source.read(timeout=3)
        assert frame is not None and level(frame.image) == 5
        assert frame.index == first.index + 1
        wait_until(lambda: source.status.state is SourceState.LIVE)
        kinds = [event.kind for event in source.drain_events()]
        assert kinds.count(EventKind.DISCONNECTED) == 1
        assert kinds.count(EventKind.RECONNECTED) == 1


def test_a_camera_that_never_comes_back_fails_after_the_allowed_tries() -> None:
    camera = FakeCamera()
    camera.push(1)
    policy = ReconnectPolicy(first_delay_s=0.01, max_delay_s=0.02, max_attempts=2)
    with open_fake(camera, reconnect=policy) as source:
        source.read(timeout=2)
        camera.set_plugged(False)
        with pytest.raises(CaptureError, match="camera 0 disconnected and did not come back after 2 tries"):
            source.read(timeout=3)
        assert source.status.state is SourceState.FAILED


def test_backoff_grows_to_its_limit() -> None:
    policy = ReconnectPolicy(first_delay_s=0.5, factor=2.0, max_delay_s=4.0)
    assert [policy.delay_before(n) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


# --- camera settings ------------------------------------------------------------------------


def test_v4l2_camera_gets_size_format_and_locked_exposure_and_white_balance() -> None:
    camera = FakeCamera(free_running=True)
    with open_fake(camera, lock_exposure=True, lock_white_balance=True) as source:
        settings = source.settings
        assert settings is not None
        assert (settings.width, settings.height, settings.fourcc) == (1920, 1080, "MJPG")
        assert settings.exposure_locked is True and settings.white_balance_locked is True
        assert camera.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1.0  # V4L2_EXPOSURE_MANUAL
        assert camera.props[cv2.CAP_PROP_AUTO_WB] == 0.0
        assert settings.notes == ()


def test_settings_report_what_the_camera_granted_not_what_was_asked() -> None:
    camera = FakeCamera(free_running=True)
    camera.max_size = (1280, 720)
    camera.refused_props = {cv2.CAP_PROP_AUTO_EXPOSURE}
    with open_fake(camera, lock_exposure=True, lock_white_balance=True) as source:
        settings = source.settings
        assert settings is not None
        assert (settings.width, settings.height) == (1280, 720)
        assert settings.exposure_locked is False
        assert any("1280x720" in note for note in settings.notes)
        assert any("exposure" in note for note in settings.notes)


def test_exposure_is_left_alone_on_a_backend_without_a_known_manual_value() -> None:
    camera = FakeCamera(backend="MSMF", free_running=True)
    with open_fake(camera, lock_exposure=True, lock_white_balance=False) as source:
        assert source.settings is not None and source.settings.exposure_locked is None
        assert cv2.CAP_PROP_AUTO_EXPOSURE not in camera.props


# --- clear errors ---------------------------------------------------------------------------


def test_missing_camera_index_is_one_clear_sentence() -> None:
    camera = FakeCamera()
    camera.set_plugged(False)
    with pytest.raises(CaptureError, match=r"^no camera at index 3\.$"):
        open_source(3, capture_factory=camera.factory)


def test_missing_real_camera_index_is_reported_by_opencv_too() -> None:
    with pytest.raises(CaptureError, match=r"^no camera at index 99\.$"):
        open_source(99)


def test_missing_and_corrupt_files_and_empty_folders_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match=r"cannot read video file .*x\.mp4: there is no such file"):
        open_source(str(tmp_path / "x.mp4"))
    (tmp_path / "junk.mp4").write_bytes(b"not a video at all" * 100)
    with pytest.raises(CaptureError, match=r"cannot read video file .*junk\.mp4"):
        open_source(str(tmp_path / "junk.mp4"))
    with pytest.raises(CaptureError, match=r"cannot read image file .*photo\.jpg: there is no such file"):
        open_source(str(tmp_path / "photo.jpg"))
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no pictures here")
    with pytest.raises(CaptureError, match=r"folder .*empty has no images\.$"):
        open_source(str(empty))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.jpg").write_bytes(b"\xff\xd8 torn")
    with pytest.raises(CaptureError, match="has no readable images"):
        open_source(str(broken))


def test_realtime_false_is_refused_for_a_live_source() -> None:
    camera = FakeCamera()
    with pytest.raises(ValueError, match="live source cannot be paused"):
        open_source(0, capture_factory=camera.factory, realtime=False)
    assert camera.opens == 0


# --- files and folders ----------------------------------------------------------------------


@pytest.fixture
def video_file(tmp_path: Path) -> Path:
    """Six flat frames, 0, 40, ..., 200, as MJPG in AVI (decodable by every OpenCV build with FFmpeg)."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 25.0, (64, 48))
    assert writer.isOpened(), "this OpenCV build cannot write MJPG/AVI"
    for value in range(0, 240, 40):
        writer.write(flat(value))
    writer.release()
    return path


def test_video_file_is_read_in_order_without_dropping_then_ends_cleanly(video_file: Path) -> None:
    with open_source(str(video_file)) as source:
        assert not source.realtime
        time.sleep(0.05)  # the reader is fast; nothing must be dropped while we dawdle
        frames = list(source)
        assert [f.index for f in frames] == list(range(6))
        assert [level(f.image) for f in frames] == pytest.approx([0, 40, 80, 120, 160, 200], abs=4)
        with pytest.raises(EndOfStream):
            source.read(timeout=1)
        assert source.status.state is SourceState.ENDED
        assert EventKind.ENDED in [e.kind for e in source.drain_events()]


def test_looped_video_starts_again_at_its_end(video_file: Path) -> None:
    with open_source(str(video_file), loop=True) as source:
        levels = [level(source.read(timeout=2).image) for _ in range(14)]  # type: ignore[union-attr]
    assert levels[6:12] == pytest.approx(levels[:6], abs=4)
    assert levels[:2] == pytest.approx([0, 40], abs=4)


def test_video_replayed_in_realtime_drops_like_a_camera(video_file: Path) -> None:
    with open_source(str(video_file), realtime=True, fps=1000) as source:
        wait_until(lambda: source.status.state is SourceState.ENDED)
        last = source.read(timeout=1)
        assert last is not None and last.index == 5 and level(last.image) == pytest.approx(200, abs=4)
        with pytest.raises(EndOfStream):
            source.read(timeout=1)
        assert source.stats.dropped == 5


def test_folder_is_read_in_natural_order_and_a_corrupt_image_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for name, value in (("frame_10.png", 100), ("frame_1.png", 10), ("frame_2.png", 20)):
        cv2.imwrite(str(tmp_path / name), flat(value))
    (tmp_path / "frame_3.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    (tmp_path / "notes.txt").write_text("ignored: not an image")
    with caplog.at_level(logging.WARNING, logger="vision.capture"), open_source(str(tmp_path)) as source:
        levels = [level(f.image) for f in source]
        events = source.drain_events()
    assert levels == [10, 20, 100]
    assert any("frame_3.jpg" in record.getMessage() for record in caplog.records)
    skipped = [e for e in events if e.kind is EventKind.SKIPPED]
    assert len(skipped) == 1 and "frame_3.jpg" in skipped[0].message


def test_single_image_gives_one_frame_or_repeats_when_looped(tmp_path: Path) -> None:
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), flat(77))
    with open_source(str(path)) as source:
        assert [level(f.image) for f in source] == [77]
    with open_source(str(path), loop=True) as source:
        assert [source.read(timeout=1).index for _ in range(3)] == [0, 1, 2]  # type: ignore[union-attr]


def test_close_stops_a_reader_waiting_for_its_consumer(tmp_path: Path) -> None:
    for n in range(3):
        cv2.imwrite(str(tmp_path / f"{n}.png"), flat(n))
    source = open_source(str(tmp_path))
    wait_until(lambda: source.stats.grabbed == 1)  # the reader now waits for a free slot
    source.close()
    assert source.closed and source.status.state is SourceState.CLOSED
    assert not capture_threads()
    with pytest.raises(EndOfStream):
        source.read(timeout=1)
    source.close()  # twice is harmless


def test_close_wakes_a_consumer_blocked_in_read(tmp_path: Path) -> None:
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), flat(5))
    # A still replayed as a slow camera: the consumer waits a whole second for each frame.
    source = open_source(str(path), loop=True, realtime=True, fps=1)
    assert source.read(timeout=2) is not None
    outcome: list[str] = []

    def consume() -> None:
        outcome.extend(str(f.index) for f in source)
        outcome.append("ended")

    consumer = threading.Thread(target=consume)
    consumer.start()
    time.sleep(0.02)
    source.close()
    consumer.join(timeout=3)
    assert outcome == ["ended"]
    assert not capture_threads()


# --- MJPEG over HTTP (loopback only) --------------------------------------------------------

STOP = -1


def with_fake_exif_thumbnail(jpeg: bytes) -> bytes:
    """The JPEG with an APP1 segment holding an end-of-image marker, as EXIF thumbnails do.

    A reader that cuts at the first FF D9 would return a torn picture.
    """
    payload = b"Exif\x00\x00" + b"\xff\xd8 thumbnail \xff\xd9" * 3
    segment = b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload
    return jpeg[:2] + segment + jpeg[2:]


class MjpegServer:
    """A phone-camera-like MJPEG server on 127.0.0.1 whose frames the test pushes one by one.

    Pushing STOP makes the server drop the connection, as a phone does when its app sleeps.
    """

    def __init__(
        self,
        *,
        content_length: bool,
        boundary: str = "frame",
        wire_prefix: str = "--",
        exif_thumbnail: bool = False,
        announce_boundary: bool = True,
    ) -> None:
        self.frames: queue.Queue[int] = queue.Queue()
        self.connections = 0
        self.stopping = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/shot.jpg":
                    body = cv2.imencode(".jpg", flat(9))[1].tobytes()
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if self.path != "/video":
                    self.send_error(404)
                    return
                outer.connections += 1
                self.send_response(200)
                content_type = "multipart/x-mixed-replace" + (f"; boundary={boundary}" if announce_boundary else "")
                self.send_header("Content-Type", content_type)
                self.end_headers()
                try:
                    while not outer.stopping.is_set():
                        try:
                            value = outer.frames.get(timeout=0.02)
                        except queue.Empty:
                            continue
                        if value == STOP:
                            return
                        jpeg = cv2.imencode(".jpg", flat(value, (120, 160)))[1].tobytes()
                        if exif_thumbnail:
                            jpeg = with_fake_exif_thumbnail(jpeg)
                        headers = f"{wire_prefix}{boundary.lstrip('-')}\r\nContent-Type: image/jpeg\r\n"
                        if content_length:
                            headers += f"Content-Length: {len(jpeg)}\r\n"
                        self.wfile.write(headers.encode() + b"\r\n" + jpeg + b"\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/video"

    def close(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def mjpeg_server(request: pytest.FixtureRequest) -> Iterator[MjpegServer]:
    options = getattr(request, "param", {"content_length": True})
    server = MjpegServer(**options)
    yield server
    server.close()


@pytest.mark.parametrize(
    "mjpeg_server",
    [
        {"content_length": True},
        {"content_length": False},
        # servers that put the dashes in the boundary parameter as well
        {"content_length": True, "boundary": "--myboundary", "wire_prefix": "--"},
        {"content_length": False, "exif_thumbnail": True},
        {"content_length": True, "announce_boundary": False},  # learnt from the first part
    ],
    indirect=True,
    ids=["with-length", "without-length", "dashed-boundary", "without-length-exif-thumbnail", "unannounced-boundary"],
)
def test_mjpeg_url_delivers_frames(mjpeg_server: MjpegServer) -> None:
    mjpeg_server.frames.put(50)
    with open_source(mjpeg_server.url, timeout_s=3) as source:
        assert source.live and source.name == mjpeg_server.url
        first = source.read(timeout=2)
        assert first is not None and first.image.shape == (120, 160, 3)
        assert level(first.image) == pytest.approx(50, abs=3)
        mjpeg_server.frames.put(150)
        second = source.read(timeout=2)
        assert second is not None and level(second.image) == pytest.approx(150, abs=3)
        assert second.index == first.index + 1


def test_mjpeg_stream_that_drops_is_reconnected(mjpeg_server: MjpegServer) -> None:
    mjpeg_server.frames.put(50)
    with open_source(mjpeg_server.url, timeout_s=3, reconnect=FAST_RECONNECT) as source:
        assert source.read(timeout=2) is not None
        mjpeg_server.frames.put(STOP)
        wait_until(lambda: source.status.state is SourceState.RECONNECTING)
        assert source.status.message == f"{mjpeg_server.url} disconnected; reconnecting…"
        mjpeg_server.frames.put(200)
        frame = source.read(timeout=3)
        assert frame is not None and level(frame.image) == pytest.approx(200, abs=3)
        wait_until(lambda: source.status.state is SourceState.LIVE)
        assert mjpeg_server.connections == 2
        assert EventKind.RECONNECTED in [e.kind for e in source.drain_events()]


def test_closing_an_mjpeg_source_interrupts_a_blocked_read(mjpeg_server: MjpegServer) -> None:
    mjpeg_server.frames.put(50)
    source = open_source(mjpeg_server.url, timeout_s=30)  # a long stall timeout: close must not wait for it
    source.read(timeout=2)
    wait_until(lambda: source.stats.grabbed == 1)
    source.close()
    assert not capture_threads()


def test_unreachable_url_is_a_clear_error() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/video"
    with pytest.raises(CaptureError, match=rf"^cannot connect to http://127\.0\.0\.1:{port}/video: "):
        open_source(url, timeout_s=2)


def test_url_that_is_not_a_stream_is_a_clear_error(mjpeg_server: MjpegServer) -> None:
    base = mjpeg_server.url.removesuffix("/video")
    with pytest.raises(CaptureError, match="not an MJPEG stream"):
        open_source(base + "/shot.jpg", timeout_s=2)
    with pytest.raises(CaptureError, match="the server answered 404"):
        open_source(base + "/nothing", timeout_s=2)


def test_password_in_a_url_is_not_shown_in_messages() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(CaptureError) as caught:
        open_source(f"http://me:secret@127.0.0.1:{port}/video", timeout_s=2)
    assert "secret" not in str(caught.value) and "me:***@127.0.0.1" in str(caught.value)
