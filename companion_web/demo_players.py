"""The demo's computer players: phones without a screen.

Each one joins, reads its view and acts through the companion's own HTTP interface (Flask's
test client, with its seat token in the header a phone sends), so it passes exactly the
checks a phone does and sees only what its seat may see: its role, its peeks, the public
table. In table mode the companion knows nobody's hand, so a computer player plays the
cards a player plausibly would: a saboteur breaks tools now and then, a gold-digger peeks
at a goal with a map, mends a broken tool or passes when it cannot dig. Otherwise it lets
its hand lay a tunnel card on the table (the demo's film), like anyone at a real table,
or, a saboteur now and then, take one away with a rockfall (the camera reports it).
"""

from __future__ import annotations

import random

from . import auth
from .errors import GameError

SABOTEUR = "saboteur"
P_BREAK = 0.15  # a saboteur's turn: break someone's tool instead of digging
P_MAP = 0.15  # a gold-digger's turn: look at a goal instead of digging
P_REPAIR = 0.8  # with a broken tool: mend it (else pass)
P_ROCKFALL = 0.2  # a saboteur's turn: a rockfall on the maze instead of digging

# What a player does on its turn: acted through its phone (an action card, a peek, a pass),
# or its hand acts on the table (the film): lays a tunnel card, or takes one away
ACTED, DIG, ROCKFALL = "acted", "dig", "rockfall"


class DemoClient:
    """The companion's HTTP interface for one game, as one device sees it."""

    def __init__(self, app, game_id: str):
        self.client = app.test_client()
        self.game_id = game_id
        self.token: str | None = None

    def get(self, what: str, view: str = "seat") -> dict:
        response = self.client.get(f"/api/g/{self.game_id}/{what}?view={view}", headers=self._headers())
        return self._answer(response)

    def post(self, what: str, body: dict | None = None) -> dict:
        response = self.client.post(f"/api/g/{self.game_id}/{what}", json=body or {}, headers=self._headers())
        return self._answer(response)

    def _headers(self) -> dict:
        return {auth.SEAT_HEADER: self.token} if self.token else {}

    @staticmethod
    def _answer(response) -> dict:
        body = response.get_json(silent=True) or {}
        if response.status_code >= 400:
            raise GameError(response.status_code, body.get("code", "error.generic"))
        return body


class ComputerPlayer:
    def __init__(self, app, game_id: str, name: str, slot: int, rng: random.Random):
        self.name = name
        self.rng = rng
        self.phone = DemoClient(app, game_id)
        joined = self.phone.post("join", {"name": name, "slot": slot})
        self.phone.token = joined["token"]

    def view(self) -> dict:
        return self.phone.get("state")["view"]

    # ------------------------------------------------------------------ a turn

    def take_turn(self) -> str:
        """Play an action card or pass through the phone (ACTED), if that is what this player
        does now; else its hand lays a tunnel card (DIG) or plays a rockfall (ROCKFALL) on the
        table: the film does that."""
        view = self.view()
        me, seats = view["me"], view["seats"]
        mine = seats[me["seat"]]
        if mine["trapped"]:
            self.phone.post("pass")
            return ACTED
        if mine["broken_ids"]:
            repair = self._repair_for(view, mine["broken_ids"])
            if repair is not None and self.rng.random() < P_REPAIR:
                self.phone.post("action", repair)
            else:
                self.phone.post("pass")
            return ACTED
        if me["role"] == SABOTEUR and self.rng.random() < P_BREAK:
            breaking = self._break_someone(view)
            if breaking is not None:
                self.phone.post("action", breaking)
                return ACTED
        if me["role"] == SABOTEUR and self.rng.random() < P_ROCKFALL:
            return ROCKFALL
        hidden = [g for g in view["board"]["goals"] if g["state"] == "hidden"]
        if me["role"] != SABOTEUR and hidden and self.rng.random() < P_MAP:
            goal = self.rng.choice(hidden)
            self.phone.post("peek", {"cell": [goal["x"], goal["y"]]})
            return ACTED
        return DIG

    def _repair_for(self, view: dict, broken: list[str]) -> dict | None:
        for action in view["game"]["actions"]:
            tools = [t for t in action["tools"] if t in broken]
            if action["effect"] == "repair" and tools:
                return {"card": action["id"], "target": view["me"]["seat"], "tool": tools[0]}
        return None

    def _break_someone(self, view: dict) -> dict | None:
        me = view["me"]["seat"]
        # Only players who can still dig: a saboteur wants a tunnel stopped, not a player ruined.
        options = [{"card": a["id"], "target": s["seat"]}
                   for a in view["game"]["actions"] if a["effect"] == "break"
                   for s in view["seats"] if s["seat"] != me and not s["broken_ids"]]
        return self.rng.choice(options) if options else None

    # ------------------------------------------------------------------ the gold

    def share_gold(self) -> None:
        """Take the best gold card when it is this player's pick; steal when it holds a theft."""
        me = self.view()["me"]
        if me.get("pick"):
            cards = me["pick"]["cards"]
            self.phone.post("pick", {"index": max(range(len(cards)), key=cards.__getitem__)})
        elif me.get("steal"):
            victims = me["steal"]["victims"]
            self.phone.post("steal", {"victim": self.rng.choice(victims)["seat"] if victims else None})
