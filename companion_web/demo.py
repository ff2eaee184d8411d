"""``tunnelvision demo``: the companion on a simulated table, read by the real camera pipeline.

Everything a real evening needs is simulated except you: a temporary database and a new
game, computer players in all seats but one (or ``humans``), and a webcam filming the table
(``demo_film``): the start card and the face-down goals, then a hand laying each player's
tunnel card in turn. The film goes through ``VisionFeed`` exactly as a camera would, so the
placements in the game are the ones the pipeline read. You join from a phone or a second
browser tab; when the seats are full the demo (as the host) deals the roles, and the round
is played on the table screen: the live picture with the recognised grid, the maze, the log.
At the end your phone does the scoring with you.

The ``Director`` runs the table: it is the host (deals, declares a round over when the film's
deck runs out, moves on to the next round) and it tells the film what each player's hand
does. Computer players act through the same HTTP interface as phones (``demo_players``).
"""

from __future__ import annotations

import logging
import math
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

import numpy as np

from engine.board import Board, Placement

from . import auth
from .demo_film import FPS, Clear, Film, Lay, Move, TakeBack, film_deck, plan_placement, standard_layout
from .demo_players import ComputerPlayer, DemoClient
from .demo_table import SimulatedTable
from .errors import GameError

log = logging.getLogger(__name__)

BOT_NAMES = ("Ada", "Bram", "Cleo", "Dirk", "Edda", "Finn", "Greta", "Hugo", "Ilse", "Jonas", "Kira")


@dataclass(frozen=True)
class DemoTiming:
    """How the demo's table keeps time (seconds)."""

    human_turn: float = 6.0  # on your turn: time to play an action card on your phone before your hand lays a tunnel card
    human_idle: float = 20.0  # you cannot dig (a broken tool) and do nothing: the host passes for you
    bot_turn: float = 1.0  # a computer player thinking
    landing: float = 12.0  # a laid card the camera has not reported by then is entered by the host, by hand
    next_round: float | None = 40.0  # after the scoring, the next round starts by itself (None: the host starts it)
    poll: float = 0.25


@dataclass
class _Turn:
    key: tuple  # (round, seat, game version): a new key is a new decision
    since: float
    decided: bool = False


@dataclass
class _Shared:
    """What the host's thread and the film's thread tell each other (under ``Director.lock``)."""

    view: dict | None = None  # the host's view of the game, refreshed every poll
    lay_for: tuple[int, float] | None = None  # (seat, not before): that player's hand lays a card
    pending: tuple[Placement, float] | None = None  # laid on the table, not yet in the game
    enter_by_hand: Placement | None = None  # the camera missed it: the host enters it
    deck_empty: bool = False
    film_round: int = 0
    deck: list[str] = field(default_factory=list)


class Director:
    def __init__(self, *, players: int, humans: int, edition: str, seed: int | None,
                 timing: DemoTiming = DemoTiming()):
        self.players = players
        self.humans = humans
        self.edition = edition
        self.timing = timing
        self.rng = np.random.default_rng(seed)
        self._seed = seed
        self.bots: dict[str, ComputerPlayer] = {}
        self.laid: list[Placement] = []  # every card the film laid, in order
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
            self._host.post("feed", {"change": "placed", **by_hand.to_dict()})
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
                acted = bot.take_turn() if bot is not None else False
            except GameError as exc:  # e.g. a card it may not play after all: it digs instead
                log.info("demo: %s could not act (%s)", name, exc.key)
                acted = False
            if not acted:
                wait = 0.0 if bot is not None else self.timing.human_turn
                with self.lock:
                    self.shared.lay_for = (seat, now + wait)
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
                if shared.pending is not None and shared.pending[0].cell == cell:
                    shared.deck.append(shared.pending[0].face)
                    shared.pending = None
                return TakeBack(cell, self.seat_angle(self._seat_named(view, refused[0]["name"])))
            if shared.pending is not None:
                return self._await_landing(view)
            if view["game"]["phase"] != "playing" or shared.lay_for is None:
                return None
            seat, not_before = shared.lay_for
            if seat != view["turn"]["seat"] or not _can_dig(view, seat):
                shared.lay_for = None
                return None
            if time.monotonic() < not_before:
                return None
            shared.lay_for = None
            placement = plan_placement(Board.from_json({"board": view["board"]["cells"]}), shared.deck, self.rng)
            if placement is None:
                shared.deck_empty = True
                return None
            shared.pending = (placement, time.monotonic())
            self.laid.append(placement)
            return Lay(placement, self.seat_angle(seat))

    def _await_landing(self, view: dict) -> None:
        placement, laid_at = self.shared.pending
        if any((c["x"], c["y"]) == placement.cell for c in view["board"]["cells"]):
            self.shared.pending = None  # the camera saw it and the game has it
        elif time.monotonic() - laid_at >= self.timing.landing:
            log.warning("demo: the camera did not report %s; the host enters it", placement)
            self.shared.enter_by_hand, self.shared.pending = placement, None
        return None

    @staticmethod
    def _seat_named(view: dict, name: str | None) -> int:
        return next((s["seat"] for s in view["seats"] if s["name"] == name), 0)


def _can_dig(view: dict, seat: int) -> bool:
    state = view["seats"][seat]
    return not state["broken_ids"] and not state["trapped"]


# ====================================================================== running it


def add_demo_arguments(parser) -> None:
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0 lets phones on "
                             "the Wi-Fi join)")
    parser.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    parser.add_argument("--people", type=int, default=1, help="seats left for people; computers take the rest (default 1)")
    parser.add_argument("--game", choices=("saboteur", "saboteur2"), default="saboteur")
    parser.add_argument("--seed", type=int, default=None, help="the same seed, the same table and the same film")


def run_demo_from_args(args) -> int:
    return run_demo(port=args.port, host=args.host, seed=args.seed, players=args.players, game=args.game,
                    humans=args.people)


def run_demo(port: int = 8000, host: str = "127.0.0.1", seed: int | None = None, players: int = 4,
             game: str = "saboteur", humans: int = 1, *, timing: DemoTiming = DemoTiming(),
             out: TextIO | None = None, ready: Callable[[object, object, str], None] | None = None) -> int:
    """Serve the demo until Ctrl-C (or until ``ready``'s caller closes the server). Returns the exit status."""
    from .serve import run_server
    from .vision_feed import FeedError, VisionFeed, pipeline_maker

    out = out or sys.stdout
    if not 1 <= humans < players:
        print(f"tunnelvision: the demo needs at least one free seat and one computer player "
              f"(players {players}, people {humans})", file=sys.stderr)
        return 2
    director = Director(players=players, humans=humans, edition=game, seed=seed, timing=timing)
    film = Film(SimulatedTable(np.random.default_rng(seed)))
    try:
        feed = VisionFeed.from_pictures(film.pictures(director.next_move), pipeline_maker(), fps=FPS, pace=True,
                                        label="the demo camera", edition=game)
    except FeedError as exc:
        print(f"tunnelvision: {exc}", file=sys.stderr)
        return 2

    def on_ready(server, app, game_id):
        app.extensions["tunnelvision.demo"] = director
        director.attach(app, game_id)
        _instructions(out, director, players, humans)
        if ready is not None:
            ready(server, app, game_id)

    with tempfile.TemporaryDirectory(prefix="tunnelvision-demo-", ignore_cleanup_errors=True) as folder:
        try:
            return run_server(host, port, game, None, str(Path(folder) / "demo.db"), new_game=True, feed=feed,
                              out=out, ready=on_ready)
        finally:
            director.stop()


def _instructions(out: TextIO, director: Director, players: int, humans: int) -> None:
    names = ", ".join(director.bots)
    seats = "one seat is" if humans == 1 else f"{humans} seats are"
    print(f"""
DEMO: a simulated table filmed by a simulated webcam, read by the real recognition pipeline.
  {players - humans} computer players have sat down ({names}); {seats} left for you.
  1. Open the table screen (above) in a browser: the live camera picture with the grid it
     recognises, the maze as the game holds it, and the log.
  2. Take a seat: scan the QR code with a phone on this network (start the demo with
     --host 0.0.0.0 for that), or open the join link in a second browser tab.
  3. When every seat is taken the demo deals the roles: tap your card on the phone to see yours.
     On your turn you have a few seconds to play an action card from the phone (a map to peek
     at a goal, a broken tool for someone); otherwise your hand lays a tunnel card for you.
     With a broken tool you cannot dig: repair it from the phone, or pass.
  4. When the tunnel reaches the gold (or the cards run out) the round is scored on the phones.
Ctrl-C stops the demo; its database is temporary.""", file=out, flush=True)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m companion_web.demo", description=__doc__.splitlines()[0])
    add_demo_arguments(parser)
    try:
        return run_demo_from_args(parser.parse_args(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
