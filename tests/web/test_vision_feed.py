"""The camera feed: a filmed game through the real pipeline and tracker, reported as changes.

The film is the demo's simulated table (a fixed webcam, a hand laying each card); the game
behind the feed is a small stand-in that judges each placement with the engine, so these
tests look at the feed alone. Waits are bounded polls.
"""

from __future__ import annotations

import argparse
import itertools
import threading
import time

import cv2
import numpy as np
import pytest

from companion_web.app import create_app
from companion_web.demo_film import Film, Lay, TakeAway, standard_layout
from companion_web.demo_table import SimulatedTable
from companion_web.feed import CardPlaced, CardRemoved, FeedOutcome, TableView
from companion_web.serve import add_arguments, run_from_args
from companion_web.vision_feed import (
    MAX_VIEWERS,
    FeedError,
    VisionFeed,
    catch_up_order,
    open_camera_feed,
    pipeline_maker,
)
from engine.board import Board, Placement
from vision.capture import ReconnectPolicy, open_source
from vision.pipeline import DARK, DIRECTION_GUESSED, NO_COLOUR

from .conftest import FAST_SSE, Table

FPS = 10.0


class StandInGame:
    """The companion's side of the seam: the engine judges, the maze grows, nothing else."""

    def __init__(self):
        self.board = Board.standard(None)
        self.legal: list[bool] = []
        self.frame_at_report: list[int] = []
        self.current_frame = -1

    def sink(self, change) -> FeedOutcome:
        self.frame_at_report.append(self.current_frame)
        if isinstance(change, CardRemoved):  # a rockfall
            self.board.remove((change.x, change.y))
            return FeedOutcome(None)
        verdict = self.board.check(change.placement)
        self.legal.append(verdict.legal)
        if verdict.legal:
            self.board.put(change.placement)
        return FeedOutcome(verdict.legal)

    def view(self) -> TableView:
        return TableView("saboteur", self.board.copy())


def wait_until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def make_pipeline():
    return pipeline_maker()


# A camera started mid-game: these cards already lie on the table, then three more are laid,
# and a rockfall takes one away (cutting two off from the start).
ALREADY = [Placement(1, 0, "cross"), Placement(2, 0, "straight-ew"), Placement(1, 1, "straight-ns")]
MOVES = [Placement(3, 0, "t-nes", 180), Placement(1, -1, "straight-ns"), Placement(3, 1, "curve-ne", 180)]
ROCKFALL = (2, 0)


@pytest.fixture(scope="module")
def filmed(make_pipeline):
    """The film of a game through the feed: what it reported, and at which frames a hand was in view."""
    film = Film(SimulatedTable(np.random.default_rng(4)),
                {**standard_layout(), **{p.cell: (p.face, p.rotation) for p in ALREADY}})
    script = ([None] * 15 + [Lay(p, angle) for p, angle in zip(MOVES, (-1.6, 0.3, 2.0))]
              + [TakeAway(ROCKFALL, -0.5)] + [None] * 15)
    game = StandInGame()
    hands: list[bool] = []

    def pictures():
        frames = film.pictures(lambda cards: script.pop(0) if script else None)
        while script or film.moving:
            picture = next(frames)
            game.current_frame = len(hands)
            hands.append(film.moving)
            yield picture

    feed = VisionFeed.from_pictures(pictures(), make_pipeline, fps=FPS, pace=False, label="the film")
    feed.connect(game.sink, game.view)
    feed.start()
    assert feed.join(120), "the feed did not get through the film"
    feed.stop()
    return game, feed, hands


def test_a_camera_started_mid_game_catches_up_then_reports_each_card_once_in_order(filmed):
    game, feed, _ = filmed
    # from the start outward, each one legal when it is reported; then the moves as they were made
    assert feed.reported == [CardPlaced(p) for p in ALREADY[:1] + ALREADY[2:] + ALREADY[1:2] + MOVES] + [
        CardRemoved(*ROCKFALL)]
    assert all(game.legal) and ROCKFALL not in game.board and (3, 0) in game.board


def test_nothing_is_reported_while_a_hand_is_over_the_table(filmed):
    game, _, hands = filmed
    assert len(game.frame_at_report) == len(ALREADY) + len(MOVES) + 1
    assert not any(hands[i] for i in game.frame_at_report)
    moves_at = game.frame_at_report[len(ALREADY):]
    laid_at = [i for i in range(1, len(hands)) if hands[i] and not hands[i - 1]]
    for k, frame in enumerate(moves_at):  # each card once it is down, before the next hand reaches in
        assert laid_at[k] < frame < (laid_at[k + 1] if k + 1 < len(laid_at) else len(hands))


def test_the_live_picture_is_a_jpeg_with_the_grid_drawn_on_it(make_pipeline):
    game = StandInGame()
    table = SimulatedTable(np.random.default_rng(4))
    cards = {**standard_layout(), **{p.cell: (p.face, p.rotation) for p in ALREADY}}
    fresh = VisionFeed.from_pictures([table.picture(cards)] * 3, make_pipeline, fps=FPS, pace=False)
    fresh.connect(game.sink, game.view)
    viewers = [fresh.frames(), fresh.frames()]
    fresh.start()
    pictures = [next(viewer) for viewer in viewers]
    assert pictures[0] is pictures[1]  # encoded once, shared by every viewer
    image = cv2.imdecode(np.frombuffer(pictures[0], np.uint8), cv2.IMREAD_COLOR)
    assert pictures[0][:2] == b"\xff\xd8" and image is not None and image.shape[1] <= 960
    green = (image[..., 1] > 170) & (image[..., 0] < 130) & (image[..., 2] < 130)
    assert green.sum() > 200  # the outlines of the cards read
    fresh.stop()


def test_the_order_to_catch_up_is_from_the_start_outward_and_legal():
    far, near, middle = Placement(3, 0, "straight-ew"), Placement(1, 0, "cross"), Placement(2, 0, "straight-ew")
    assert catch_up_order(Board.standard(None), [far, near, middle]) == [near, middle, far]
    lone = Placement(5, 2, "cross")  # touches nothing: still reported, last
    assert catch_up_order(Board.standard(None), [lone, middle, near])[-1] == lone


def test_a_source_that_cannot_open_is_one_sentence_before_the_server_starts(tmp_path, capsys):
    with pytest.raises(FeedError) as failure:
        open_camera_feed(str(tmp_path / "no-such-video.mp4"))
    assert "\n" not in str(failure.value) and "no-such-video.mp4" in str(failure.value)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--video", str(tmp_path / "missing.mp4"), "--db", str(tmp_path / "t.db"), "--port", "0"])
    assert run_from_args(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tunnelvision: ") and "missing.mp4" in err
    assert not (tmp_path / "t.db").exists()  # nothing was started
    with pytest.raises(SystemExit):
        parser.parse_args(["--camera", "0", "--video", "x.mp4"])  # one source at a time


def test_stop_returns_promptly_and_stops_the_thread(make_pipeline):
    still = np.zeros((360, 640, 3), np.uint8)
    feed = VisionFeed.from_pictures(itertools.repeat(still), make_pipeline, fps=FPS, pace=True)
    feed.connect(lambda change: FeedOutcome(None), lambda: None)
    viewer = feed.frames()
    feed.start()
    next(viewer)
    started = time.monotonic()
    feed.stop()
    assert time.monotonic() - started < 2.0 and feed.join(0)
    assert list(viewer) == []  # a viewer's stream ends with the feed
    assert feed.status().state == "stopped"


class UnpluggedAfterOneFrame:
    """A cv2.VideoCapture stand-in for a webcam whose cable comes out after its first picture."""

    plugged = True

    def __init__(self, target, api):
        self.opened = UnpluggedAfterOneFrame.plugged
        self.frames = 1

    def isOpened(self):
        return self.opened

    def read(self):
        if self.frames:
            self.frames -= 1
            return True, np.full((240, 320, 3), 90, np.uint8)
        UnpluggedAfterOneFrame.plugged = False
        return False, None

    def set(self, prop, value):
        return True

    def get(self, prop):
        return 0.0

    def release(self):
        self.opened = False

    def getBackendName(self):
        return "FAKE"


def test_a_disconnected_camera_shows_on_the_status_and_the_server_goes_on(make_pipeline):
    source = open_source(0, capture_factory=UnpluggedAfterOneFrame, lock_exposure=False, lock_white_balance=False,
                         reconnect=ReconnectPolicy(first_delay_s=0.01, max_delay_s=0.05))
    feed = VisionFeed.from_source(source, make_pipeline)
    feed.connect(lambda change: FeedOutcome(None), lambda: None)
    feed.start()
    try:
        wait_until(lambda: feed.status().state == "reconnecting")
        assert "camera 0" in feed.status().message
        assert feed._thread.is_alive()
    finally:
        feed.stop()
    assert feed.join(0)


def test_the_table_screen_shows_the_camera_its_state_and_a_few_viewers(tmp_path, make_pipeline):
    feed = VisionFeed.from_pictures(itertools.repeat(np.zeros((360, 640, 3), np.uint8)), make_pipeline, fps=FPS)
    table = Table(create_app({"DATABASE": str(tmp_path / "camera.db"), "FEED": feed, **FAST_SSE}))
    page = table.host.get(f"/g/{table.game_id}/table").get_data(as_text=True)
    assert 'id="camera"' in page and f"/g/{table.game_id}/feed.json" in page and "feed.mjpeg" in page
    feed.start()
    try:
        wait_until(lambda: table.host.get(f"/g/{table.game_id}/feed.json").get_json()["state"] == "searching")
        # a black picture has no colour, and is dark: the line under it says what that costs
        assert table.host.get(f"/g/{table.game_id}/feed.json").get_json()["warnings"] == [NO_COLOUR, DARK]
        viewers = [feed.frames() for _ in range(MAX_VIEWERS)]
        for viewer in viewers:
            next(viewer)
        assert feed.frames() is None  # each one holds a server thread: a few are enough
        assert table.host.get(f"/g/{table.game_id}/feed.mjpeg").status_code == 503
        viewers.pop().close()
        assert feed.frames() is not None
    finally:
        feed.stop()


def test_without_a_camera_the_state_says_so(table):
    status = table.host.get(f"/g/{table.game_id}/feed.json").get_json()
    assert status == {"video": False, "state": "manual", "message": "", "warnings": []}
    assert 'id="camera"' not in table.host.get(f"/g/{table.game_id}/table").get_data(as_text=True)


def test_the_grid_is_fitted_afresh_when_it_reads_its_own_cards_as_nothing_not_for_a_loose_card():
    from types import SimpleNamespace

    from vision.grid import Lattice
    from vision.observation import Observation, Unsure

    made = []
    feed = VisionFeed.from_pictures([], lambda edition: made.append(edition) or object())
    lattice = Lattice(np.eye(3), (100, 100), frozenset({(0, 0), (1, 0)}))
    clock = itertools.count()

    def watch(*uncertain, seconds=4.0):
        for _ in range(int(seconds * FPS)):
            step = SimpleNamespace(busy=False, lattice=lattice, observation=Observation(uncertain=list(uncertain)))
            feed._watch_lattice(step, next(clock) / FPS)
        feed._watch_lattice(SimpleNamespace(busy=False, lattice=lattice, observation=Observation()), next(clock) / FPS)
        return len(made) - 1  # fresh fits since the feed's own

    assert watch(Unsure(2, 1, "not-a-maze-card")) == 0  # a loose card beside the maze, for good
    assert watch(Unsure(1, 0, "not-a-maze-card")) == 1  # a cell of the maze that reads as no card
    assert watch(Unsure(3, 0, "off-cell")) == 2  # a card read across a cell's edge


@pytest.mark.parametrize("guessed", [True, False])
def test_no_card_is_reported_while_only_the_mazes_shape_says_which_way_it_runs(guessed):
    from vision.grid import Lattice
    from vision.observation import Observation, SeenCard
    from vision.pipeline import Step

    made = []

    class Reading:
        """A pipeline that reads the start and the card east of it on every frame; its goal
        cards out of view, the maze's shape alone says which way it runs (``guessed``)."""

        def step(self, image):
            seen = Observation(cards=[SeenCard(0, 0, "start", 0, 0.99), SeenCard(1, 0, "straight-ew", 0, 0.98)],
                               warnings=[DIRECTION_GUESSED] if guessed else [])
            return Step(seen, set(), False, Lattice(np.eye(3), (64, 48), frozenset({(0, 0), (1, 0)})), image)

        def confirmed(self, step, cards):
            return set(cards)

    game = StandInGame()
    feed = VisionFeed.from_pictures(itertools.repeat(np.zeros((48, 64, 3), np.uint8), 80),
                                    lambda edition: made.append(edition) or Reading(), fps=FPS, pace=False)
    feed.connect(game.sink, game.view)
    feed.start()
    assert feed.join(30)
    feed.stop()
    # a card reported in a frame guessed could land on the cell mirrored through the start;
    # the grid is fitted afresh now and then, in case the goals have come into view
    assert feed.reported == ([] if guessed else [CardPlaced(Placement(1, 0, "straight-ew"))])
    assert (len(made) > 2) == guessed


def test_threads_are_left_behind_by_none_of_these_tests():
    alive = [t.name for t in threading.enumerate() if t.name.startswith(("vision feed", "capture: "))]
    assert alive == []
