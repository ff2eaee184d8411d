"""The seam for the camera: ``TableFeed``, ``ManualFeed`` and turning Observations into changes."""

from __future__ import annotations

import threading

import pytest

from companion_web.app import create_app
from companion_web.feed import (CardPlaced, CardRemoved, FeedNotConnected, GoalTurned, ManualFeed, TableFeed,
                                changes_from_observation)
from engine.board import Board, Placement

from .conftest import FAST_SSE, Table


def maze() -> Board:
    board = Board.standard(None)
    board.put(Placement(1, 0, "cross"))
    board.put(Placement(2, 0, "straight-ew"))
    return board


def card(x, y, face, rotation=0):
    return {"x": x, "y": y, "face": face, "rotation": rotation, "tunnels": [], "features": [], "confidence": 0.99}


def seen(*cards, uncertain=(), goals=()):
    return {"cards": [card(0, 0, "start"), *cards], "goals": list(goals), "uncertain": list(uncertain),
            "frame": {"width": 1920, "height": 1080, "ms": 18}}


def test_an_observation_reports_new_and_vanished_cards():
    board = maze()
    changes = changes_from_observation(board, seen(card(1, 0, "cross"), card(3, 0, "t-nes", 180)))
    assert changes == [CardPlaced(Placement(3, 0, "t-nes", 180)), CardRemoved(2, 0)]


def test_uncertain_cells_and_refused_cards_still_lying_there_are_not_reported():
    board = maze()
    refused = [Placement(3, 0, "straight-ns")]
    same = seen(card(1, 0, "cross"), card(3, 0, "straight-ns"), uncertain=[{"x": 2, "y": 0, "reason": "occluded"}])
    assert changes_from_observation(board, same, refused) == []
    gone = seen(card(1, 0, "cross"), card(2, 0, "straight-ew"))
    assert changes_from_observation(board, gone, refused) == [CardRemoved(3, 0)]


def test_a_goal_seen_turned_over_and_a_misread_face():
    board = maze()
    obs = seen(card(1, 0, "cross"), card(2, 0, "cross"), goals=[{"x": 8, "y": 2, "state": "stone"},
                                                               {"x": 8, "y": 0, "state": "hidden"}])
    assert changes_from_observation(board, obs) == [GoalTurned(8, 2)]  # (2,0) changed face: the host corrects it


def test_a_feed_that_is_not_connected_says_so():
    with pytest.raises(FeedNotConnected):
        ManualFeed().report(CardRemoved(1, 0))


class FakeCamera(TableFeed):
    name = "fake-camera"
    has_video = True

    def frames(self):
        return iter([b"\xff\xd8one\xff\xd9", b"\xff\xd8two\xff\xd9"])


def test_a_camera_feed_reports_from_its_own_thread_and_streams_pictures(tmp_path):
    camera = FakeCamera()
    app = create_app({"DATABASE": str(tmp_path / "c.db"), "FEED": camera, "DEAL_SEED": 1, **FAST_SSE})
    table = Table(app)
    table.join("Ana", "Bo", "Cy")
    table.start()
    outcomes = []
    worker = threading.Thread(target=lambda: outcomes.extend([
        camera.report(CardPlaced(Placement(1, 0, "cross"))),
        camera.report(CardPlaced(Placement(2, 0, "straight-ns"))),
        camera.report(CardRemoved(2, 0)),
    ]))
    worker.start()
    worker.join(10)
    first_seat = outcomes[0].seat
    assert [o.legal for o in outcomes] == [True, False, None]
    assert outcomes[1].seat == (first_seat + 1) % 3 and outcomes[1].reasons[0][0] == "edge-mismatch"
    assert (1, 0) in table.game().round.board and not table.snapshot().tabletop.contested
    picture = table.host.get(f"/g/{table.game_id}/feed.mjpeg")
    assert picture.mimetype == "multipart/x-mixed-replace" and b"\xff\xd8two\xff\xd9" in picture.get_data()
    page = table.host.get(f"/g/{table.game_id}/table").get_data(as_text=True)
    assert "feed.mjpeg" in page


def test_without_a_camera_there_is_no_picture(table):
    assert table.host.get(f"/g/{table.game_id}/feed.mjpeg").status_code == 404
    assert "feed.mjpeg" not in table.host.get(f"/g/{table.game_id}/table").get_data(as_text=True)


def test_the_host_enters_only_on_the_game_on_the_table(table):
    old = table.game_id
    table.join("Ana", "Bo", "Cy")
    table.start()
    table.new_game("saboteur")
    response = table.host.post(f"/api/g/{old}/feed", json={"change": "removed", "x": 1, "y": 0})
    assert response.status_code == 409
