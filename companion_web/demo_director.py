"""The demo's director: the host of the simulated table, and what its players' hands do.

It is the host (deals when the seats are full, declares a round over when the film's deck
runs out, starts the next round after a pause) and, asked by the film between moves, says
what the hands on the table do: lay the card of the player whose turn it is (or take a card
away with a saboteur's rockfall), take back a card the engine refused, clear the maze for a
new round. Computer players act through the same HTTP interface as phones
(``demo_players``); the director reads only the host's view, which holds no secret.

Two threads meet here: the host's own (``_run``, a few times a second) and the camera
feed's, which draws the film and asks ``next_move``; what they share is ``_Shared``.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from engine.board import Board, Placement

from . import auth
from .demo import DemoTiming
from .demo_film import (
    Clear,
    Lay,
    Move,
    TakeAway,
    film_deck,
    plan_placement,
    plan_rockfall,
    standard_layout,
)
from .demo_players import ACTED, DIG, ROCKFALL, ComputerPlayer, DemoClient
from .errors import GameError

log = logging.getLogger(__name__)

BOT_NAMES = ("Ada", "Bram", "Cleo", "Dirk", "Edda", "Finn", "Greta", "Hugo", "Ilse", "Jonas", "Kira")


@dataclass
class _Turn:
    key: tuple  # (round, seat, game version): a new key is a new decision
    since: float
    decided: bool = False


@dataclass
class _Shared:
    """What the host's thread and the film's thread tell each other (under ``Director.lock``)."""

    view: dict | None = None  # the host's view of the game, refreshed every poll
    hand_for: tuple[int, float, str] | None = None  # (seat, not before, DIG or ROCKFALL): that player's hand acts
    pending: tuple[Lay | TakeAway, float] | None = None  # done on the table, not yet in the game
    enter_by_hand: dict | None = None  # the feed change the camera missed: the host enters it
    deck_empty: bool = False
    film_round: int = 0
    deck: list[str] = field(default_factory=list)


class Director:
    def __init__(self, *, players: int, humans: int, edition: str, seed: int | None,
                 timing: DemoTiming | None = None):
        self.players = players
        self.humans = humans
        self.edition = edition
        self.timing = timing or DemoTiming()
        self.rng = np.random.default_rng(seed)
        self._seed = seed
        self.bots: dict[str, ComputerPlayer] = {}
        self.laid: list[Placement] = []  # every card the film laid, in order
        self.rockfalls: list[tuple[int, int]] = []  # every cell a rockfall emptied, in order
        self.lock = threading.Lock()
        self.shared = _Shared()
        self._host: DemoClient | None = None
        self._turn: _Turn | None = None
        self._between_since: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ setting up

    def attach(self, app, game_id: str) -> None:
        """The game exists: computer players take their seats and the host's thread starts."""
        from .db import get_db

        self._host = DemoClient(app, game_id)
        with app.app_context():
            code = auth.issue_host_link(get_db())
        self._host.client.get(f"/host/{code}")  # the host's cookie, as the one-time link gives it
        bots = self.players - self.humans
        for i in range(bots):
            slot = self.players - bots + 1 + i  # the first seats stay free for the people
            name = f"{BOT_NAMES[i % len(BOT_NAMES)]} (computer)"
            self.bots[name] = ComputerPlayer(app, game_id, name, slot, random.Random(f"{self._seed}-{i}"))
        self._thread = threading.Thread(target=self._run, name="demo host", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def seat_angle(self, seat: int) -> float:
        """Where a player sits round the table, as the direction their hand comes from."""
        return -math.pi / 2 + 2 * math.pi * seat / self.players

    # ------------------------------------------------------------------ the host's thread

    def _run(self) -> None:
        while not self._stop.wait(self.timing.poll):
            try:
                self._tick()
            except GameError as exc:  # something changed under us (a phone acted first): look again
                log.info("demo host: %s", exc.key)
            except Exception:
                log.exception("demo host: unexpected failure; carrying on")

    def _tick(self) -> None:
        view = self._host.get("state", view="host")["view"]
        with self.lock:
            self.shared.view = view
        phase = view["game"]["phase"]
        now = time.monotonic()
        if phase != "between":
            self._between_since = None
        if phase == "lobby" and view["host"]["can_start"] and len(view["seats"]) == self.players:
            self._host.post("start")
        elif phase == "playing":
            self._play(view, now)
        elif phase == "scoring":
            for bot in self.bots.values():
                bot.share_gold()
        elif phase == "between" and self.timing.next_round is not None:
            self._between_since = self._between_since or now
            if now - self._between_since >= self.timing.next_round:
                self._host.post("start")

    def _play(self, view: dict, now: float) -> None:
        with self.lock:
            by_hand, self.shared.enter_by_hand = self.shared.enter_by_hand, None
            deck_empty, self.shared.deck_empty = self.shared.deck_empty, False
        if by_hand is not None:
            self._host.post("feed", by_hand)
            return
        if deck_empty:
            self._host.post("exhausted")
            return
        seat = view["turn"]["seat"]
        key = (view["game"]["round"], seat, view["event_id"].split(".")[0])
        if self._turn is None or self._turn.key != key:
            self._turn = _Turn(key, now)
        turn = self._turn
        name = view["seats"][seat]["name"]
        bot = self.bots.get(name)
        if not turn.decided and (bot is None or now - turn.since >= self.timing.bot_turn):
            turn.decided = True
            try:
                does = bot.take_turn() if bot is not None else DIG
            except GameError as exc:  # e.g. a card it may not play after all: it digs instead
                log.info("demo: %s could not act (%s)", name, exc.key)
                does = DIG
            if does != ACTED:
                wait = 0.0 if bot is not None else self.timing.human_turn
                with self.lock:
                    self.shared.hand_for = (seat, now + wait, does)
        if bot is None and not _can_dig(view, seat) and now - turn.since >= self.timing.human_idle:
            self._host.post("pass", {"for_seat": seat})

    # ------------------------------------------------------------------ the film's question

    def next_move(self, cards: dict) -> Move | None:
        """What the hands on the table do now (asked by the film between moves; None: nothing)."""
        with self.lock:
            shared = self.shared
            view = shared.view
            if view is None or view["game"]["phase"] not in ("playing", "scoring", "between"):
                return None
            round_number = view["game"]["round"]
            if view["game"]["phase"] == "playing" and round_number != shared.film_round:
                shared.film_round, shared.pending = round_number, None
                shared.deck = film_deck(self.edition, self.rng)
                if set(cards) != set(standard_layout()):
                    return Clear(self.seat_angle(0))
            refused = [c for c in view["contested"] if (c["x"], c["y"]) in cards]
            if refused:
                cell = (refused[0]["x"], refused[0]["y"])
                laying = shared.pending[0] if shared.pending is not None else None
                if isinstance(laying, Lay) and laying.cell == cell:
                    shared.deck.append(laying.placement.face)
                    shared.pending = None
                return TakeAway(cell, self.seat_angle(self._seat_named(view, refused[0]["name"])))
            if shared.pending is not None:
                return self._await_landing(view)
            if view["game"]["phase"] != "playing" or shared.hand_for is None:
                return None
            seat, not_before, does = shared.hand_for
            if seat != view["turn"]["seat"] or not _can_dig(view, seat):
                shared.hand_for = None
                return None
            if time.monotonic() < not_before:
                return None
            shared.hand_for = None
            board = Board.from_json({"board": view["board"]["cells"]})
            cell = plan_rockfall(board, self.rng) if does == ROCKFALL else None
            if cell is not None:
                move = TakeAway(cell, self.seat_angle(seat))
                self.rockfalls.append(cell)
            else:  # digging, or a rockfall would set nothing back: the saboteur digs instead
                placement = plan_placement(board, shared.deck, self.rng)
                if placement is None:
                    shared.deck_empty = True
                    return None
                move = Lay(placement, self.seat_angle(seat))
                self.laid.append(placement)
            shared.pending = (move, time.monotonic())
            return move

    def _await_landing(self, view: dict) -> None:
        """Wait for the game to take the move done on the table (the camera reports it); once
        it has waited too long, the host enters it by hand, as at a table whose camera missed it."""
        move, done_at = self.shared.pending
        there = any((c["x"], c["y"]) == move.cell for c in view["board"]["cells"])
        if there == isinstance(move, Lay):
            self.shared.pending = None
        elif time.monotonic() - done_at >= self.timing.landing:
            log.warning("demo: the camera did not report %s; the host enters it", move)
            x, y = move.cell
            change = ({"change": "placed", **move.placement.to_dict()} if isinstance(move, Lay)
                      else {"change": "removed", "x": x, "y": y})
            self.shared.enter_by_hand, self.shared.pending = change, None

    @staticmethod
    def _seat_named(view: dict, name: str | None) -> int:
        return next((s["seat"] for s in view["seats"] if s["name"] == name), 0)


def _can_dig(view: dict, seat: int) -> bool:
    state = view["seats"][seat]
    return not state["broken_ids"] and not state["trapped"]
