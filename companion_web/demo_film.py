"""The demo's film: what its camera sees while the game goes on, drawn one picture at a time.

``Film.pictures(next_move)`` is an endless iterator of frames of the simulated table. Between
moves the table holds still; when ``next_move`` (the demo's director) names a move, a hand
comes in from that player's side of the table, lays a card (or takes one away: a refused
card taken back, or one a rockfall removes; or clears the maze for a new round) and
withdraws. What the film shows is exactly what lies on the table, so the placements the
camera reports are the film's own.

``plan_placement`` chooses the card a player lays: a legal placement (judged by the engine on
the game's public maze) from a hand of cards drawn from the film's deck, leaning toward a
face-down goal so that rounds mostly end with a tunnel reaching the gold; ``plan_rockfall``
the card a saboteur's rockfall takes, one whose loss sets the tunnels back. The physical
goals stay face down throughout: the companion keeps their secrets and turns them over itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from engine.board import Board, Cell, Placement
from engine.catalogue import STEP, default_catalogue
from engine.options import Rules

from .demo_table import FIELD, Content, Hand, SimulatedTable

FPS = 10.0
CARRY_FRAMES = 6  # the card travels in the hand
WITHDRAW_FRAMES = 4
STILL_FRAMES = 16  # after a move: the tracker's hold (0.8 s) and a margin, at FPS
HAND_SIZE = 5
WANDER = 0.2  # how often a player lays a card anywhere legal rather than toward the goal


@dataclass(frozen=True)
class Lay:
    placement: Placement
    from_angle: float  # where the player sits: the direction the hand comes from (radians)

    @property
    def cell(self) -> Cell:
        return self.placement.cell


@dataclass(frozen=True)
class TakeAway:
    """A card leaves the maze in the player's hand: a refused card taken back, or a rockfall."""
    cell: Cell
    from_angle: float


@dataclass(frozen=True)
class Clear:
    """Every path card leaves the table: the maze is cleared for a new round."""
    from_angle: float


Move = Lay | TakeAway | Clear


def standard_layout() -> dict[Cell, Content]:
    """The table at the start of a round: the start card and three face-down goals."""
    return {p.cell: (p.face, p.rotation) for p in Board.standard(None).placements()}


class Film:
    def __init__(self, table: SimulatedTable, cards: dict[Cell, Content] | None = None):
        self.table = table
        self.cards: dict[Cell, Content] = cards or standard_layout()
        self.moving = False  # a hand is in the picture being drawn

    def pictures(self, next_move: Callable[[dict[Cell, Content]], Move | None]) -> Iterator[np.ndarray]:
        """Frames forever: still ones while ``next_move`` says None, a move when it names one."""
        while True:
            move = next_move(dict(self.cards))
            if move is None:
                yield self.table.picture(self.cards)
                continue
            self.moving = True
            if isinstance(move, Lay):
                yield from self._lay(move)
            elif isinstance(move, TakeAway):
                yield from self._take_away(move)
            else:
                yield from self._clear(move)
            self.moving = False
            for _ in range(STILL_FRAMES):
                yield self.table.picture(self.cards)

    def _lay(self, move: Lay) -> Iterator[np.ndarray]:
        p = move.placement
        target, angle = self.table.pose(p.cell)
        start = np.array(self.table.edge_mm(move.from_angle))
        towards = _unit(move.from_angle)
        spin = 25.0 * math.sin(7 * p.x + 3 * p.y)  # the card turns as it comes, a little differently each time
        for i in range(1, CARRY_FRAMES + 1):
            t = i / CARRY_FRAMES
            at = start + (np.array(target) - start) * _ease(t)
            yield self.table.picture(self.cards, Hand(_palm(at, towards), move.from_angle, (p.face, p.rotation),
                                                      p.cell, (float(at[0]), float(at[1])), angle + spin * (1 - t)))
        self.cards[p.cell] = (p.face, p.rotation)
        yield from self._withdraw(np.array(target), move.from_angle)

    def _take_away(self, move: TakeAway) -> Iterator[np.ndarray]:
        content = self.cards.get(move.cell)
        if content is None:
            return
        centre, angle = self.table.pose(move.cell)
        start = np.array(self.table.edge_mm(move.from_angle))
        towards = _unit(move.from_angle)
        for i in range(1, CARRY_FRAMES // 2 + 1):  # the empty hand reaches the card
            at = start + (np.array(centre) - start) * _ease(i / (CARRY_FRAMES // 2))
            yield self.table.picture(self.cards, Hand(_palm(at, towards), move.from_angle))
        del self.cards[move.cell]
        for i in range(1, WITHDRAW_FRAMES + 1):  # and takes it away
            at = np.array(centre) + (start - np.array(centre)) * _ease(i / WITHDRAW_FRAMES)
            yield self.table.picture(self.cards, Hand(_palm(at, towards), move.from_angle, content, move.cell,
                                                      (float(at[0]), float(at[1])), angle))

    def _clear(self, move: Clear) -> Iterator[np.ndarray]:
        towards = _unit(move.from_angle)
        layout = standard_layout()
        path = sorted(c for c in self.cards if self.cards[c] != layout.get(c))
        for cell in path:  # the hand sweeps over the maze, gathering the cards
            centre, _ = self.table.pose(cell)
            del self.cards[cell]
            yield self.table.picture(self.cards, Hand(_palm(np.array(centre), towards), move.from_angle))
        last = np.array(self.table.pose(path[-1])[0]) if path else np.array(self.table.edge_mm(move.from_angle))
        yield from self._withdraw(last, move.from_angle)

    def _withdraw(self, from_mm: np.ndarray, from_angle: float) -> Iterator[np.ndarray]:
        edge = np.array(self.table.edge_mm(from_angle))
        for i in range(1, WITHDRAW_FRAMES + 1):
            at = from_mm + (edge - from_mm) * _ease(i / WITHDRAW_FRAMES) * 0.6
            yield self.table.picture(self.cards, Hand(_palm(at, _unit(from_angle)), from_angle))


def _unit(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


def _palm(card_mm: np.ndarray, towards_player: np.ndarray) -> tuple[float, float]:
    """The palm holds a card by its near end, so the card shows ahead of the fingers."""
    palm = card_mm + towards_player * 45.0
    return (float(palm[0]), float(palm[1]))


def _ease(t: float) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * min(max(t, 0.0), 1.0))


# ====================================================================== what to lay


def film_deck(edition: str, rng: np.random.Generator) -> list[str]:
    """The path cards of an edition, every copy, shuffled: the film's draw pile for a round."""
    catalogue = default_catalogue()
    deck = [f.id for f in catalogue.path_faces(Rules.parse(edition, []).sets) for _ in range(f.copies)]
    return [deck[i] for i in rng.permutation(len(deck))]


def plan_placement(board: Board, deck: list[str], rng: np.random.Generator) -> Placement | None:
    """The next card to lay on ``board`` (the game's public maze), taken out of ``deck``.

    The player holds the top HAND_SIZE cards and lays the one that brings a tunnel nearest
    a face-down goal, now and then one anywhere legal instead (players wander, saboteurs
    lie); cards that fit nowhere go to the bottom of the deck. None when nothing fits.
    """
    targets = sorted(board.hidden_goals)
    for _ in range(2):
        hand = deck[:HAND_SIZE]
        options = [p for face in dict.fromkeys(hand) for p in board.legal_placements(face) if _in_field(p.cell)]
        if options:
            break
        deck[:] = deck[HAND_SIZE:] + hand  # a hand that fits nowhere: the next cards are tried
    else:
        return None
    if not targets or rng.random() < WANDER:
        chosen = options[int(rng.integers(len(options)))]
    else:
        scores = [_distance_after(board, p, targets) for p in options]
        best = min(scores)
        ties = [p for p, s in zip(options, scores) if s == best]
        chosen = ties[int(rng.integers(len(ties)))]
    deck.remove(chosen.face)
    return chosen


def plan_rockfall(board: Board, rng: np.random.Generator) -> Cell | None:
    """The path card a saboteur's rockfall takes off ``board``: one of those whose loss leaves
    the open tunnel ends farther from every face-down goal (the cards beyond it are cut off
    from the start, the hole left to be filled again). None when no loss sets them back."""
    targets = sorted(board.hidden_goals)
    if not targets:
        return None
    now = _gap(board, targets)
    setbacks = []
    for p in board.placements():
        if board.catalogue.face(p.face).is_path:
            after = board.copy()
            after.remove(p.cell)
            if _gap(after, targets) > now:
                setbacks.append(p.cell)
    return setbacks[int(rng.integers(len(setbacks)))] if setbacks else None


def _in_field(cell: Cell) -> bool:
    x0, x1, y0, y1 = FIELD
    return x0 <= cell[0] <= x1 and y0 <= cell[1] <= y1


def _distance_after(board: Board, placement: Placement, targets: list[Cell]) -> int:
    """How near a face-down goal the open tunnel ends come once ``placement`` is laid (0: one is reached)."""
    after = board.copy()
    after.put(placement)
    if set(after.goals_touched()) & set(targets):
        return 0
    return _gap(after, targets)


def _gap(board: Board, targets: list[Cell]) -> int:
    """How far the open tunnel ends (free cells a tunnel from the start runs into) lie from
    the nearest of ``targets``."""
    ends = set()
    for p in board.placements():
        edges = board.reachable_edges(p.cell)
        for bit, (dx, dy) in STEP.items():
            beyond = (p.x + dx, p.y + dy)
            if edges & bit and beyond not in board and _in_field(beyond):
                ends.add(beyond)
    if not ends:
        return 1000  # the maze is closed: nothing is worse
    return min(abs(x - gx) + abs(y - gy) for x, y in ends for gx, gy in targets)
