"""Server-sent events: a view at once, one per change, pings, bounded lifetime, presence,
and streams that end when their seat is replaced or handed to another phone."""

from __future__ import annotations

import time

import pytest

from companion_web.app import create_app

from .conftest import FAST_SSE, Table, parse_sse


def events_of(response):
    return parse_sse(response.response)


def test_a_stream_starts_with_the_current_view_and_follows_every_change(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    turn = table.turn()
    watcher = table.phone_of((turn + 1) % 3)
    response = watcher.open_stream()
    chunks = iter(response.response)
    assert next(chunks) == b"retry: 1000\n\n"  # reconnect within a second after a drop
    stream = parse_sse(chunks)
    kind, view = next(stream)
    assert kind == "view" and view["me"]["seat"] == (turn + 1) % 3 and view["turn"]["seat"] == turn
    table.phone_of(turn).post("pass")
    kind, view = next(stream)
    assert kind == "view" and view["me"]["my_turn"] is True
    response.close()


def test_each_stream_carries_its_own_viewers_view(table):
    phones = table.join("Ana", "Bo", "Cy")
    table.start()
    views = {p.name: p.sse(1)[0][1] for p in phones}
    for name, view in views.items():
        assert view["viewer"]["name"] == name and view["me"]["name"] == name
    screen = table.phone_of(0).sse(1, view="table")[0][1]
    assert "me" not in screen and screen["viewer"]["kind"] == "table"


def test_an_idle_stream_pings_and_ends_after_its_lifetime(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.db"), **FAST_SSE, "SSE_LIFETIME": 0.6})
    table = Table(app)
    phone, = table.join("Ana")
    started = time.monotonic()
    kinds = [kind for kind, _ in events_of(phone.open_stream())]
    assert kinds[0] == "view" and "ping" in kinds and set(kinds) <= {"view", "ping"}
    assert 0.5 < time.monotonic() - started < 3


def test_presence_shows_who_has_a_live_stream(table):
    ana, bo, cy = table.join("Ana", "Bo", "Cy")
    assert [s["connected"] for s in ana.state(view="table")["seats"]] == [False, False, False]
    response = bo.open_stream()
    next(events_of(response))
    assert [s["connected"] for s in ana.state(view="table")["seats"]] == [False, True, False]
    response.close()
    assert [s["connected"] for s in ana.state(view="table")["seats"]] == [False, False, False]


def test_a_phone_that_reconnects_replaces_its_stale_streams(table):
    phone, = table.join("Ana")
    oldest = phone.open_stream()
    old_events = events_of(oldest)
    assert next(old_events)[0] == "view"
    second, third = phone.open_stream(), phone.open_stream()
    assert next(events_of(third))[0] == "view"
    assert next(old_events)[0] == "replaced"
    with pytest.raises(StopIteration):
        next(old_events)
    for response in (oldest, second, third):
        response.close()
    assert table.app.extensions["tunnelvision"].hub.open_streams() == 0


def test_a_seat_handed_to_another_phone_stops_streaming_at_once(table):
    phones = table.join("Ana", "Bo", "Cy")
    table.start()
    response = phones[2].open_stream()
    stream = events_of(response)
    assert next(stream)[0] == "view"
    table.do("free-seat", {"seat": 2})
    assert next(stream)[0] == "revoked"
    response.close()


def test_streams_beyond_the_limit_are_refused_with_503_and_free_threads_stay_free(table):
    hub = table.app.extensions["tunnelvision"].hub
    hub.max_streams = 2
    ana, bo, cy = table.join("Ana", "Bo", "Cy")
    open_ = [ana.open_stream(), bo.open_stream()]
    for response in open_:
        next(events_of(response))
    refused = cy.client.get(f"/api/g/{table.game_id}/events?view=seat", headers=cy.headers())
    assert refused.status_code == 503 and refused.get_json()["error"]
    assert cy.state()["me"]["name"] == "Cy"  # ordinary requests still served
    for response in open_:
        response.close()
    assert hub.open_streams() == 0


def test_a_stream_closed_before_it_started_is_released(table):
    phone, = table.join("Ana")
    response = phone.open_stream()
    response.close()  # the server never iterated it
    assert table.app.extensions["tunnelvision"].hub.open_streams() == 0
