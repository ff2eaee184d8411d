"""Fixtures for the companion's tests: an app on a temporary database, and a driver that
plays a table of phones through the real HTTP interface (Flask's test client, one client,
hence one cookie jar, per phone)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pytest

from companion_web import auth
from companion_web.app import create_app
from companion_web.db import get_db

FAST_SSE = {"SSE_HEARTBEAT": 0.2, "SSE_POLL": 0.02, "SSE_LIFETIME": 3.0}


@pytest.fixture
def app(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "companion.db"), "TESTING": True, "DEAL_SEED": 11,
                       "PUBLIC_URL": "http://table.test:8000", **FAST_SSE})


@pytest.fixture
def table(app):
    return Table(app)


@dataclass
class Recorded:
    """One answer a phone (or the table) received: what it was and its body."""

    kind: str  # json | html | sse
    status: int
    text: str


@dataclass
class Phone:
    table: "Table"
    name: str
    client: object
    token: str | None = None
    seat_id: int | None = None
    received: list[Recorded] = field(default_factory=list)

    @property
    def game_id(self) -> str:
        return self.table.game_id

    def headers(self) -> dict:
        return {auth.SEAT_HEADER: self.token} if self.token else {}

    def post(self, path: str, data=None, *, status: int | None = 200, headers: dict | None = None, **kwargs):
        response = self.client.post(f"/api/g/{self.game_id}/{path}", json={} if data is None else data,
                                    headers={**self.headers(), **(headers or {})}, **kwargs)
        self.received.append(Recorded("json", response.status_code, response.get_data(as_text=True)))
        if status is not None:
            assert response.status_code == status, (path, response.status_code, response.get_json())
        return response.get_json()

    def state(self, view: str = "seat") -> dict:
        response = self.client.get(f"/api/g/{self.game_id}/state?view={view}", headers=self.headers())
        self.received.append(Recorded("json", response.status_code, response.get_data(as_text=True)))
        assert response.status_code == 200, response.get_json()
        return response.get_json()["view"]

    def me(self) -> dict:
        return self.state()["me"]

    def open_stream(self, view: str = "seat"):
        response = self.client.get(f"/api/g/{self.game_id}/events?view={view}", headers=self.headers(), buffered=False)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response

    def page(self, path: str | None = None) -> str:
        response = self.client.get(path or f"/g/{self.game_id}/join")
        text = response.get_data(as_text=True)
        self.received.append(Recorded("html", response.status_code, text))
        assert response.status_code == 200
        return text

    def sse(self, events: int = 1, view: str = "seat") -> list[tuple[str, dict]]:
        """The first ``events`` events of a fresh stream (its first is always the current view)."""
        response = self.open_stream(view)
        got = []
        try:
            for kind, data in parse_sse(response.response):
                self.received.append(Recorded("sse", 200, json.dumps(data)))
                got.append((kind, data))
                if len(got) >= events:
                    break
        finally:
            response.close()
        return got


def parse_sse(chunks):
    """(event, data) pairs from an SSE byte stream."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            kind, data = "message", None
            for line in block.decode().splitlines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
            if data is not None:
                yield kind, data


class Table:
    """A game in progress: the host's screen plus any number of phones."""

    def __init__(self, app, edition: str = "saboteur", options: str = ""):
        self.app = app
        self.host = app.test_client()
        self.game_id = None
        self.phones: list[Phone] = []
        self.host_received: list[Recorded] = []
        self.new_game(edition, options)
        with app.app_context():
            code = auth.issue_host_link(get_db())
        response = self.host.get(f"/host/{code}")
        assert response.status_code == 302

    def new_game(self, edition: str, options: str = "") -> str:
        with self.app.app_context():
            self.game_id = self.service.create_game(edition, options)
        self.phones = []
        return self.game_id

    @property
    def service(self):
        return self.app.extensions["tunnelvision"].service

    def snapshot(self):
        with self.app.app_context():
            return self.service.snapshot(self.game_id)

    def game(self):
        """The engine state (ground truth, secrets included): only tests look at it."""
        return self.snapshot().game

    def do(self, path: str, data=None, *, status: int | None = 200):
        response = self.host.post(f"/api/g/{self.game_id}/{path}", json={} if data is None else data)
        self.host_received.append(Recorded("json", response.status_code, response.get_data(as_text=True)))
        if status is not None:
            assert response.status_code == status, (path, response.status_code, response.get_json())
        return response.get_json()

    def join(self, *names: str) -> list[Phone]:
        for name in names:
            phone = Phone(self, name, self.app.test_client())
            taken = {s.slot for s in self.snapshot().seats}
            slot = next(n for n in range(1, 13) if n not in taken)
            body = phone.post("join", {"name": name, "slot": slot}, status=201)
            phone.token = body["token"]
            phone.seat_id = _seat_id_of(self, name)
            self.phones.append(phone)
        return self.phones

    def start(self) -> dict:
        return self.do("start")["view"]

    def turn(self) -> int:
        return self.game().round.turn

    def phone_of(self, seat: int) -> Phone:
        name = self.snapshot().seats[seat].name
        return next(p for p in self.phones if p.name == name)

    def lay(self, face: str, x: int, y: int, rotation: int = 0) -> dict:
        return self.do("feed", {"change": "placed", "face": face, "x": x, "y": y, "rotation": rotation})

    def pass_turn(self):
        seat = self.turn()
        self.phone_of(seat).post("pass")

    def dig_to_gold(self) -> None:
        """Lay crossroads from the start to the gold (the route any table could dig).

        A player who may not lay a card (a broken tool, trapped) takes it back and passes.
        """
        gold = next(cell for cell, face in self.game().round.board.hidden_goals.items() if face == "goal-gold")
        route = [(x, 0) for x in range(1, 8)]
        step = 1 if gold[1] > 0 else -1
        route += [(7, y) for y in range(step, gold[1] + step, step)] if gold[1] else []
        for x, y in route:
            for _ in range(20):
                if self.game().round.ended or (x, y) in self.game().round.board:
                    break
                answer = self.lay("cross", x, y)
                if answer["legal"] is False:
                    assert any("broken" in r or "trapped" in r for r in answer["reasons"]), answer["reasons"]
                    self.do("feed", {"change": "removed", "x": x, "y": y})
                    self.pass_turn()

    def settle(self, steal_from_richest: bool = True) -> None:
        """Every picker takes the first card; every thief steals from the richest other player (or skips)."""
        for _ in range(100):
            game = self.game()
            if game.draft is not None:
                self.phone_of(game.draft.picker).post("pick", {"index": 0})
            elif game.thefts:
                thief = game.thefts[0]
                others = [s for s in range(game.players) if s != thief and sum(game.gold[s]) >= 1]
                victim = max(others, key=lambda s: sum(game.gold[s])) if others and steal_from_richest else None
                self.phone_of(thief).post("steal", {"victim": victim})
            else:
                return
        raise AssertionError("the gold was never settled")


def _seat_id_of(table: Table, name: str) -> int:
    return next(s.id for s in table.snapshot().seats if s.name == name)


def embedded_json(html: str, element_id: str) -> dict:
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S)
    assert match, element_id
    return json.loads(match.group(1))
