"""The seam for the camera: ``TableFeed`` and ``ManualFeed``."""

from __future__ import annotations

import threading

import pytest

from companion_web.app import create_app
from companion_web.feed import CardPlaced, CardRemoved, FeedNotConnected, ManualFeed, TableFeed
from engine.board import Placement

from .conftest import FAST_SSE, Table


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
