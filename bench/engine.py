"""Engine benchmark: placement checks, legal-placement enumeration, simulated games.

    python bench/engine.py [--quick] [--json]

Figures go in the README. The maze is grown by random legal play (seeded) to 40 cards
besides the start and goals. Each figure is the best of several repeats, which is the
least noisy estimate on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path, and this file's name would hide the
# engine package; look from the repository root instead.
if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from engine.board import Board, Placement
from engine.autoplay import simulate_game
from engine.catalogue import ROTATIONS, default_catalogue
from engine.game import Game, deal_goals
from engine.options import Rules


def grow_maze(cards: int, seed: int) -> Board:
    rng = random.Random(seed)
    catalogue = default_catalogue()
    board = Board.standard(deal_goals(catalogue, rng))
    faces = [f.id for f in catalogue.path_faces(("base",)) for _ in range(f.copies)]
    placed = 0
    while placed < cards:
        face = rng.choice(faces)
        options = [p for p in board.legal_placements(face) if not board.check(p).reveals]
        if options:
            board.put(rng.choice(options))
            placed += 1
    return board


def best_of(repeats: int, run) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (for a smoke run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    board = grow_maze(40, seed=1)
    catalogue = board.catalogue
    faces = [f.id for f in catalogue.path_faces(("base", "saboteur2"))]
    # every frontier cell with every face and rotation: the realistic mix of legal and illegal
    probes = [Placement(x, y, face, r) for (x, y) in sorted(board.frontier()) for face in faces for r in ROTATIONS]
    legal = sum(board.is_legal(p) for p in probes)
    check_s = best_of(repeats, lambda: [board.check(p) for p in probes]) / len(probes)
    base_faces = [f.id for f in catalogue.path_faces(("base",))]
    enum_s = best_of(repeats, lambda: [board.legal_placements(f) for f in base_faces]) / len(base_faces)

    games = 3 if args.quick else 10
    results = {}
    for name, players in (("saboteur", 5), ("saboteur2", 8)):
        rng = random.Random(42)
        start = time.perf_counter()
        for _ in range(games):
            simulate_game(Game(Rules.parse(name), [f"p{k}" for k in range(players)]), rng)
        results[name] = games / (time.perf_counter() - start)

    figures = {
        "maze_cards": len(board) - 4,
        "check_probes": len(probes),
        "check_probes_legal": legal,
        "check_us": round(check_s * 1e6, 2),
        "checks_per_second": round(1 / check_s),
        "legal_placements_ms": round(enum_s * 1e3, 3),
        "games_per_second_saboteur_5p": round(results["saboteur"], 2),
        "games_per_second_saboteur2_8p": round(results["saboteur2"], 2),
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"maze: {figures['maze_cards']} cards besides start and goals; "
              f"{len(probes)} probes ({legal} legal)")
        print(f"check(placement):          {figures['check_us']:8.2f} µs  ({figures['checks_per_second']:,} per second; goal ≤ 20 µs)")
        print(f"legal_placements(face):    {figures['legal_placements_ms']:8.3f} ms  (goal ≤ 2 ms)")
        print(f"simulated 3-round games:   {figures['games_per_second_saboteur_5p']:8.2f} per second (Saboteur, 5 players)")
        print(f"                           {figures['games_per_second_saboteur2_8p']:8.2f} per second (Saboteur 2, 8 players)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
