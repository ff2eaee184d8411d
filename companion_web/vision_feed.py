"""The camera feed: ``VisionFeed`` watches the table through ``vision`` and reports what changes.

Its own thread reads frames (a ``vision.capture`` source, or any iterator of pictures for
the demo and the tests), runs ``Pipeline.step`` and ``MazeTracker.update``, and reports each
committed change to the companion: a card laid, a card taken away, a goal card turned over.
The tracker commits only what has held still for ``hold_s``, so nothing is reported while
hands move. The companion attributes a laid card to the player whose turn it is and judges
it; the feed only says what it saw, and only what the game does not hold yet (a card the
host already entered by hand is not reported twice, the start and the goals never are).

The first stable view ("maze-seen") may already hold cards, when the camera starts in the
middle of a round: those the game lacks are reported as placements from the start outward,
in an order the rules accept wherever one exists, so the game catches up.

Each processed frame becomes, at most ``VIDEO_FPS`` times a second, one JPEG with the grid
drawn over it (``overlay``), shared by every viewer of ``frames``. Camera trouble (a
disconnect, a source that ended, a maze that cannot be found) goes to ``status`` for the
table screen and to the log; it never stops the server.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

import numpy as np

from engine.board import Board, Placement

from .errors import GameError
from .feed import (
    CardPlaced,
    CardRemoved,
    FeedChange,
    FeedStatus,
    GoalTurned,
    TableFeed,
    TableView,
)
from .overlay import draw_overlay, encode_jpeg

log = logging.getLogger(__name__)

Cell = tuple[int, int]
VIDEO_FPS = 10.0
# A still photo (an image, a folder of photos) is looked at again this often, so that the
# tracker sees it hold still and commits it.
STILL_FPS = 5.0
PHOTO_SECONDS = 3.0  # how long each photo of a folder is on view
# Seconds of quiet frames the pipeline may spend on a lattice that reads its own cards as
# no maze card (or contradicts itself), or reads a card off its cell, before the grid is
# fitted again from scratch: a lattice fitted while the table held only the start and the
# goals can be a wrong pitch that tracking alone never leaves. A cell beside the maze that
# reads as no maze card is most often a loose card lying there, and says nothing about it.
REFIT_AFTER_S = 3.0
UNREADABLE = ("not-a-maze-card", "conflict")
# While no maze is found every frame is a fit from scratch (ten times a tracked frame's
# work): a few tries a second find a maze laid down as soon and leave the machine free.
SEARCH_FPS = 2.0
TABLE_REFRESH_S = 1.0  # how often the game's refused cards and edition are asked for
MAX_VIEWERS = 4  # each live picture holds a server thread
READ_TIMEOUT_S = 0.5


class FeedError(Exception):
    """The camera feed cannot start; one sentence the user can act on."""


# ====================================================================== sources


@dataclass
class _Picture:
    image: np.ndarray
    time: float  # seconds, for the tracker's hold


class _CaptureFrames:
    """Frames of a ``vision.capture`` source. A still photo is offered again and again (the
    last one of a folder too, once the folder is done) so that the tracker sees it hold still."""

    def __init__(self, source, still: bool):
        self.source = source
        self.still = still
        self._last: np.ndarray | None = None
        self._ended = False

    def next(self, stop: threading.Event) -> _Picture | None:
        from vision.capture import EndOfStream

        if not self._ended:
            waiting = 1 / STILL_FPS if self.still and self._last is not None else READ_TIMEOUT_S
            try:
                frame = self.source.read(timeout=waiting)
            except EndOfStream:
                if not self.still or self._last is None or stop.is_set():
                    raise
                self._ended = True
            else:
                if frame is not None:
                    self._last = frame.image
                    return _Picture(frame.image, frame.timestamp)
        if self.still and self._last is not None:
            if self._ended:
                stop.wait(1 / STILL_FPS)
            return _Picture(self._last, time.monotonic())
        return None

    def events(self) -> list:
        return self.source.drain_events()

    def interrupt(self) -> None:
        self.source.close()  # wakes a read in progress

    def close(self) -> None:
        self.source.close()


class _FilmFrames:
    """Pictures from an iterator, timed as a camera at ``fps`` would take them.

    The tracker's clock is the film's (frame ``i`` at ``i / fps`` seconds), so what it
    commits does not depend on how fast this machine is; ``pace`` also holds the film to
    that clock in real time, as a camera would (the demo), instead of running flat out
    (the tests).
    """

    def __init__(self, pictures: Iterable[np.ndarray], fps: float, pace: bool):
        self._pictures = iter(pictures)
        self.fps = fps
        self.pace = pace
        self._count = 0
        self._started: float | None = None

    def next(self, stop: threading.Event) -> _Picture | None:
        from vision.capture import EndOfStream

        film_time = self._count / self.fps
        if self.pace:
            now = time.monotonic()
            if self._started is None:
                self._started = now
            behind = now - (self._started + film_time)
            if behind < 0:
                stop.wait(-behind)
            elif behind > 1.0:  # a slow machine: slow the film down rather than rush it
                self._started = now - film_time
        try:
            image = next(self._pictures)
        except StopIteration:
            raise EndOfStream("the film is over") from None
        self._count += 1
        return _Picture(image, film_time)

    def events(self) -> list:
        return []

    def interrupt(self) -> None:
        """Nothing to wake: the feed's thread checks its stop flag between pictures."""

    def close(self) -> None:
        close = getattr(self._pictures, "close", None)
        if close is not None:
            close()


# ====================================================================== the feed


class VisionFeed(TableFeed):
    """What a camera sees on the table, as changes and as a live picture.

    ``make_pipeline(edition)`` builds a ``vision.pipeline.Pipeline`` for a game edition; it
    is called again when the game on the table changes edition, and when a lattice has to
    be fitted afresh.
    """

    name = "camera"
    has_video = True

    def __init__(self, frames, make_pipeline: Callable[[str], object], *, label: str = "the camera",
                 edition: str = "saboteur", hold_s: float = 0.8):
        super().__init__()
        from vision.track import MazeTracker

        self._frames = frames
        self._make_pipeline = make_pipeline
        self._edition = edition
        self._pipeline = make_pipeline(edition)
        self._tracker = MazeTracker(hold_s=hold_s)
        self.label = label
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status = FeedStatus("starting", f"starting {label}")
        self._lock = threading.Condition()
        self._jpeg: bytes | None = None
        self._jpeg_number = 0
        self._jpeg_at = 0.0
        self._viewers = 0
        self._refused: set[Cell] = set()  # cells whose card the engine refused: drawn in red
        self._game_view: TableView | None = None
        self._game_view_at = -TABLE_REFRESH_S
        self._unreadable_since: float | None = None
        self._searched_at = -1.0
        self.reported: list[FeedChange] = []  # everything handed to the companion, in order

    # ------------------------------------------------------------------ building one

    @classmethod
    def from_source(cls, source, make_pipeline, *, still: bool = False, **kwargs) -> VisionFeed:
        """A feed over an open ``vision.capture.FrameSource``; ``still``: it shows photos, not video."""
        return cls(_CaptureFrames(source, still), make_pipeline, label=kwargs.pop("label", source.name), **kwargs)

    @classmethod
    def from_pictures(cls, pictures: Iterable[np.ndarray], make_pipeline, *, fps: float = VIDEO_FPS,
                      pace: bool = True, **kwargs) -> VisionFeed:
        """A feed over pictures already in memory or drawn on demand (the demo, tests)."""
        return cls(_FilmFrames(pictures, fps, pace), make_pipeline, **kwargs)

    # ------------------------------------------------------------------ TableFeed

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"vision feed: {self.label}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            self._lock.notify_all()
        try:
            self._frames.interrupt()
            if self._thread is not None and self._thread is not threading.current_thread():
                self._thread.join(5.0)
            self._frames.close()
        except Exception:  # closing a broken camera must not keep the server from stopping
            log.exception("%s: closing the source failed", self.label)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the feed's thread to finish (a film or file that ended); True when it has."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def status(self) -> FeedStatus:
        return self._status

    def frames(self) -> Iterator[bytes] | None:
        """The newest picture with the grid over it, for one viewer; None when too many watch."""
        with self._lock:
            if self._viewers >= MAX_VIEWERS:
                return None
        return self._pictures_for_one_viewer()

    def _pictures_for_one_viewer(self) -> Iterator[bytes]:
        # Counted from its first picture on: a stream the server never started holds no thread.
        with self._lock:
            self._viewers += 1
        seen = [0]  # the number of the last picture this viewer got
        try:
            while not self._stop.is_set():
                with self._lock:
                    # The last picture again every few seconds when the camera is silent, so a
                    # viewer that went away is noticed (its write fails) and its thread freed.
                    self._lock.wait_for(lambda: self._jpeg_number != seen[0] or self._stop.is_set(), timeout=3.0)
                    jpeg, seen[0] = self._jpeg, self._jpeg_number
                if jpeg is not None and not self._stop.is_set():
                    yield jpeg
        finally:
            with self._lock:
                self._viewers -= 1

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        from vision.capture import CaptureError, EndOfStream

        try:
            while not self._stop.is_set():
                for event in self._frames.events():
                    self._capture_event(event)
                picture = self._frames.next(self._stop)
                if picture is not None and not self._stop.is_set():
                    self._look(picture)
        except EndOfStream:
            if not self._stop.is_set():
                self._set_status("ended", f"{self.label} ended; the last view stays on the screen")
        except CaptureError as exc:
            self._set_status("failed", str(exc))
        except Exception as exc:  # the server keeps running; the host sees why the camera stopped
            log.exception("%s: the vision feed stopped", self.label)
            self._set_status("failed", f"{self.label} stopped: {exc}")
        if self._stop.is_set():
            self._set_status("stopped", f"{self.label} is stopped")

    def _look(self, picture: _Picture) -> None:
        from vision.pipeline import DIRECTION_GUESSED

        self._refresh_game_view()
        if self._status.state == "searching" and picture.time - self._searched_at < 1 / SEARCH_FPS:
            self._publish(picture.image)
            return
        self._searched_at = picture.time
        step = self._pipeline.step(picture.image)
        if step.note:
            log.info("%s: %s", self.label, step.note)
        warnings = tuple(step.observation.warnings)
        for warning in warnings:
            if warning not in self._status.warnings:  # logged as they arise, not every frame
                log.warning("%s: %s", self.label, warning)
        # With no goal card read, only the maze's shape said which way it runs (the pipeline
        # warns): a card reported now could land on the cell mirrored through the start, so
        # nothing is committed until a goal card is read, and the grid is fitted again (the
        # goals may have come into view where a turned frame would never read them)
        guessed = DIRECTION_GUESSED in warnings
        self._watch_lattice(step, picture.time, guessed)
        for event in self._tracker.update(step.observation, step.empty, picture.time, step.busy or guessed,
                                          confirm=partial(self._pipeline.confirmed, step)):
            self._commit(event)
        if step.observation.error:
            self._set_status("searching", step.observation.error, warnings)
        elif self._status.state in ("starting", "searching", "reconnecting", "watching"):
            self._set_status("watching", f"{self.label} is watching the maze", warnings)
        self._publish(step.frame, step.lattice, step.observation)

    def _watch_lattice(self, step, now: float, guessed: bool = False) -> None:
        maze = step.lattice.cells if step.lattice is not None else frozenset()
        unreadable = not step.busy and (guessed or any(
            u.reason == "off-cell" or (u.reason in UNREADABLE and u.cell in maze) for u in step.observation.uncertain))
        if not unreadable:
            self._unreadable_since = None
        elif self._unreadable_since is None:
            self._unreadable_since = now
        elif now - self._unreadable_since >= REFIT_AFTER_S:
            log.info("%s: the grid does not fit the maze; fitting it again", self.label)
            self._pipeline = self._make_pipeline(self._edition)
            self._unreadable_since = None

    def _refresh_game_view(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._game_view_at < TABLE_REFRESH_S:
            return
        self._game_view_at = now
        try:
            self._game_view = self.table_view()
        except Exception:
            log.exception("%s: cannot read the game on the table", self.label)
            return
        if self._game_view is not None and self._game_view.edition != self._edition:
            self._edition = self._game_view.edition  # the host set up a game of the other edition
            self._pipeline = self._make_pipeline(self._edition)

    def _capture_event(self, event) -> None:
        from vision.capture import EventKind

        log.warning("%s: %s", self.label, event.message)
        state = {EventKind.DISCONNECTED: "reconnecting", EventKind.RECONNECT_FAILED: "reconnecting",
                 EventKind.RECONNECTED: "watching", EventKind.FAILED: "failed",
                 EventKind.ENDED: "ended"}.get(event.kind, self._status.state)
        self._set_status(state, event.message)

    def _set_status(self, state: str, message: str, warnings: tuple[str, ...] = ()) -> None:
        if (state, message, warnings) != (self._status.state, self._status.message, self._status.warnings):
            self._status = FeedStatus(state, message, warnings)

    # ------------------------------------------------------------------ what was seen

    def _commit(self, event) -> None:
        if event.kind == "maze-seen":
            for placement in self._catch_up():
                self._report_placement(placement)
        elif event.kind in ("placed", "changed"):
            if event.verdict is not None and not event.verdict.legal:
                self._refused.add(event.cell)
            if event.kind == "changed":
                # A card does not change in place on a real table: a misreading, for the host to correct.
                log.warning("%s: %s", self.label, event.text)
            elif self._is_path(event.placement.face):
                self._report_placement(event.placement)
        elif event.kind == "removed":
            self._refused.discard(event.cell)
            if self._holds_card(event.cell):
                self._report(CardRemoved(*event.cell))
        elif event.kind == "goal-revealed":
            board = self._current_board()
            if board is not None and board.is_hidden_goal(event.cell):
                self._report(GoalTurned(*event.cell))

    def _catch_up(self) -> list[Placement]:
        """The cards the camera's first view holds that the game lacks, in an order to report them."""
        self._refresh_game_view(force=True)
        board = self._current_board()
        if board is None or self._tracker.board is None:
            return []
        taken = {p.cell for p in self._game_view.contested}
        missing = [p for p in self._tracker.board.placements()
                   if self._is_path(p.face) and p.cell not in board and p.cell not in taken]
        return catch_up_order(board, missing)

    def _report_placement(self, placement: Placement) -> None:
        board = self._current_board()
        if board is None:
            log.info("%s: %s seen while no round is being played; not reported", self.label, placement)
            return
        if placement.cell in board or placement in self._game_view.contested:
            return  # the game has it already (the host entered it, or refused it and it still lies there)
        outcome = self._report(CardPlaced(placement))
        if outcome is not None:
            if outcome.legal is False:
                self._refused.add(placement.cell)
            else:
                self._refused.discard(placement.cell)

    def _report(self, change: FeedChange):
        try:
            outcome = self.report(change)
        except GameError as exc:  # e.g. no round is being played: the game is unchanged
            log.warning("%s: the game did not take %s (%s)", self.label, change, exc.key)
            return None
        self.reported.append(change)
        self._refresh_game_view(force=True)  # the game changed: the next report must know it
        return outcome

    def _current_board(self) -> Board | None:
        self._refresh_game_view()
        return self._game_view.board if self._game_view is not None else None

    def _holds_card(self, cell: Cell) -> bool:
        """Whether the game has a card at ``cell`` that can leave the table (a path card, or a refused one)."""
        board = self._current_board()
        if board is None:
            return False
        if any(p.cell == cell for p in self._game_view.contested):
            return True
        shape = board.shape_at(cell)
        return shape is not None and shape.face.is_path

    def _is_path(self, face: str) -> bool:
        return self._tracker.catalogue.face(face).is_path

    # ------------------------------------------------------------------ the picture

    def _publish(self, image: np.ndarray, lattice=None, observation=None) -> None:
        now = time.monotonic()
        if now - self._jpeg_at < 1 / VIDEO_FPS:
            return
        refused = set(self._refused)
        if self._game_view is not None:
            refused |= {p.cell for p in self._game_view.contested}
        jpeg = encode_jpeg(draw_overlay(image, lattice, observation, refused))
        with self._lock:
            self._jpeg, self._jpeg_at = jpeg, now
            self._jpeg_number += 1
            self._lock.notify_all()


def catch_up_order(board: Board, missing: list[Placement]) -> list[Placement]:
    """``missing`` in the order to report them: from the start outward, each one the rules
    accept after those before it wherever such a one is left (the rest nearest first)."""
    board = board.copy()
    left = sorted(missing, key=lambda p: (abs(p.x) + abs(p.y), p.x, p.y))
    order = []
    while left:
        legal = [p for p in left if board.check(p).legal]
        chosen = (legal or left)[0]
        left.remove(chosen)
        order.append(chosen)
        board.put(chosen)
    return order


# ====================================================================== from the command line


def open_camera_feed(spec, *, edition: str = "saboteur", deck: str | None = None,
                     calibration: str | None = None, model: str | None = None) -> VisionFeed:
    """A camera feed over any source ``vision.capture.open_source`` takes (a webcam index, a
    video file, a photo or folder of photos, an MJPEG URL). Raises FeedError, one sentence,
    when the model, a calibration file or the source cannot be used."""
    import cv2

    from vision.capture import CaptureError, SourceKind, open_source, parse_source_spec

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # our one sentence, not OpenCV's warnings
    make_pipeline = pipeline_maker(deck=deck, calibration=calibration, model=model)
    try:
        kind = parse_source_spec(spec).kind
        # Files are replayed at their own pace, as if a camera were filming them; each photo
        # of a folder stays in view for a while, as the table would between two moves.
        fps = 1 / PHOTO_SECONDS if kind is SourceKind.IMAGE_FOLDER else None
        source = open_source(spec, realtime=True, fps=fps)
    except CaptureError as exc:
        raise FeedError(str(exc)) from None
    still = kind in (SourceKind.IMAGE_FILE, SourceKind.IMAGE_FOLDER)
    try:
        return VisionFeed.from_source(source, make_pipeline, still=still, edition=edition)
    except Exception:
        source.close()
        raise


def pipeline_maker(*, deck: str | None = None, calibration: str | None = None,
                   model: str | None = None) -> Callable[[str], object]:
    """``edition -> Pipeline`` sharing one classifier (loaded once, here, so that a broken
    model or calibration file is a FeedError before the server starts)."""
    from calibration.table import CalibrationError
    from vision.classify import ModelError
    from vision.pipeline import Pipeline, load_reading_parts

    try:
        classifier, table = load_reading_parts(model, deck=deck, calibration=calibration)
    except (ModelError, ValueError, CalibrationError) as exc:
        raise FeedError(str(exc)) from None
    return lambda edition: Pipeline(classifier, game=edition, calibration=table)
