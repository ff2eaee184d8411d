"""Simple computer players, for simulated games (the benchmark, property tests, the demo).

Not a strong player: gold-diggers dig toward the goals and mend tools, saboteurs dig dead
ends, break tools and drop rockfalls. Every choice goes through ``Round.legal_moves``, so a
simulated game exercises exactly the rules a real one does. Randomness is injected.
"""

from __future__ import annotations

import random

from .board import GOAL_CELLS
from .game import Game, Move, Round
from .scoring import SABOTEUR

DIGGERS_AIM = GOAL_CELLS


def _distance_to_goals(cell) -> int:
    return min(abs(cell[0] - gx) + abs(cell[1] - gy) for gx, gy in DIGGERS_AIM)


def choose_move(r: Round, rng: random.Random) -> Move:
    seat = r.turn
    me = r.seats[seat]
    saboteur = me.role == SABOTEUR
    moves = r.legal_moves(seat)
    scored = []
    for m in moves:
        score = rng.random()  # breaks ties and keeps games varied
        if m.kind == "place":
            verdict = r.board.check(m.placement)
            d = _distance_to_goals(m.placement.cell)
            if saboteur:
                shape = r.catalogue.face(m.placement.face).shape(m.placement.rotation)
                dead = all(t.is_stub for t in shape.tunnels)
                score += 3 + (4 if dead else 0) + d * 0.2 - (20 if verdict.gold_reached else 0)
            else:
                score += 10 - d + (30 if verdict.gold_reached else 0) + (3 if verdict.reveals else 0)
        elif m.kind == "repair":
            friendly = (m.target == seat) != saboteur
            score += 5 if friendly else -5
        elif m.kind == "break":
            score += (4 if saboteur else 1) if m.target != seat else -10
        elif m.kind == "rockfall":
            score += 2 if saboteur else -2
        elif m.kind == "map":
            score += 2 if not me.peeks else -1
        elif m.kind == "pass":
            score += 0
        elif m.kind in ("trap", "theft"):
            score += 2
        else:
            score += 0.5
        scored.append((score, m))
    return max(scored, key=lambda sm: sm[0])[1]


def play_round(game: Game, rng: random.Random, max_turns: int = 10_000) -> None:
    """Play the current round to its end and settle the gold (drafts and thefts) greedily."""
    r = game.round
    for _ in range(max_turns):
        if r.ended:
            break
        game.play(choose_move(r, rng), rng)
    else:
        raise RuntimeError("the round did not end")
    settle(game)


def settle(game: Game) -> None:
    """Hand out the gold of an ended round: every picker takes the best card, thieves rob the richest."""
    while game.draft is not None:
        cards = game.draft.cards
        game.pick_gold(game.draft.picker, max(range(len(cards)), key=cards.__getitem__))
    while game.thefts:
        thief = game.thefts[0]
        victims = [s for s in range(game.players) if s != thief and sum(game.gold[s]) >= 1]
        if victims:
            game.steal(thief, max(victims, key=lambda s: sum(game.gold[s])))
        else:
            game.skip_theft(thief)


def simulate_game(game: Game, rng: random.Random) -> Game:
    """Play all three rounds of a fresh game with computer players."""
    while not game.over:
        game.start_round(rng)
        play_round(game, rng)
    return game
