"""``tunnelvision demo``: the companion on a simulated table, read by the real camera pipeline.

Everything a real evening needs is simulated except you: a temporary database and a new
game, computer players in all seats but one (or ``humans``), and a webcam filming the table
(``demo_film``): the start card and the face-down goals, then a hand laying each player's
tunnel card in turn. The film goes through ``VisionFeed`` exactly as a camera would, so the
placements in the game are the ones the pipeline read. You join from a phone or a second
browser tab; when the seats are full the demo (as the host) deals the roles, and the round
is played on the table screen: the live picture with the recognised grid, the maze, the log.
At the end your phone does the scoring with you.

The table is run by ``demo_director.Director``. Only the standard library is imported here, so
adding the subcommand's arguments costs the command line nothing (as in ``serve``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .serve import port_number


@dataclass(frozen=True)
class DemoTiming:
    """How the demo's table keeps time (seconds)."""

    human_turn: float = 6.0  # on your turn: time to play an action card on your phone before your hand lays a tunnel card
    human_idle: float = 20.0  # you cannot dig (a broken tool) and do nothing: the host passes for you
    bot_turn: float = 1.0  # a computer player thinking
    landing: float = 12.0  # a card laid or taken away that the camera has not reported by then: the host enters it
    next_round: float | None = 40.0  # after the scoring, the next round starts by itself (None: the host starts it)
    poll: float = 0.25


# ====================================================================== running it


def _seed(text: str) -> int:
    """An argparse type: the demo's seed, a whole number from 0 (what numpy's generators take)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from 0, not {text!r}")
    return seed


def add_demo_arguments(parser) -> None:
    parser.add_argument("--port", type=port_number, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0 lets phones on "
                             "the Wi-Fi join)")
    parser.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    parser.add_argument("--people", type=int, default=1, help="seats left for people; computers take the rest (default 1)")
    parser.add_argument("--game", choices=("saboteur", "saboteur2"), default="saboteur")
    parser.add_argument("--seed", type=_seed, default=None, help="the same seed, the same table and the same film")


def run_demo_from_args(args) -> int:
    return run_demo(port=args.port, host=args.host, seed=args.seed, players=args.players, game=args.game,
                    humans=args.people)


def run_demo(port: int = 8000, host: str = "127.0.0.1", seed: int | None = None, players: int = 4,
             game: str = "saboteur", humans: int = 1, *, timing: DemoTiming | None = None,
             out: TextIO | None = None, ready: Callable[[object, object, str], None] | None = None) -> int:
    """Serve the demo until Ctrl-C (or until ``ready``'s caller closes the server). Returns the exit status."""
    import numpy as np

    from engine.catalogue import default_catalogue
    from engine.game import MoveError, table_for
    from engine.options import Rules

    from .demo_director import Director
    from .demo_film import FPS, Film
    from .demo_table import SimulatedTable
    from .serve import run_server
    from .vision_feed import FeedError, VisionFeed, pipeline_maker

    out = out or sys.stdout
    try:
        table_for(Rules.parse(game), default_catalogue(), players)
    except MoveError as exc:
        print(f"tunnelvision: {exc}", file=sys.stderr)
        return 2
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


def _instructions(out: TextIO, director, players: int, humans: int) -> None:
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
    parser = argparse.ArgumentParser(prog="python -m companion_web.demo", description=__doc__.splitlines()[0])
    add_demo_arguments(parser)
    try:
        return run_demo_from_args(parser.parse_args(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
