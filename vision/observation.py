"""The Observation: what the camera saw of the maze, in the JSON contract of DESIGN.md.

Every card seen is reported exactly once, in ``cards`` or in ``uncertain``, never guessed.
An Observation turns into an engine ``Board`` (the physical maze, secrets unknown) so the
engine can judge it, and back into JSON for ``tunnelvision check --json``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engine.board import GOAL_CELLS, START_CELL, Board, Placement, Reason, Verdict
from engine.catalogue import Catalogue, default_catalogue

from .classify import REASON_WORDS


@dataclass(frozen=True)
class SeenCard:
    x: int
    y: int
    face: str
    rotation: int
    confidence: float

    @property
    def cell(self) -> tuple[int, int]:
        return (self.x, self.y)


# A cell read as bare table where a card may lie (read unsurely, on a cell the grid sees a
# card on, hemmed in by a hand, or beside one where a card would give cards cut off a way
# back): a card's way back to the start may run through it
MAYBE_EMPTY = "maybe-empty"
# Why a cell is reported uncertain, in words: the classifier's reasons, and the pipeline's own
REASONS = REASON_WORDS | {
    "occluded": "under a hand",
    "crosswise": "a card laid across the lattice",
    "conflict": "read as a card of which the deck has fewer copies than were read",
    "off-cell": "the lattice lies off the cards here (the next card, or the table, seen through the cell)",
    "out-of-view": "mostly outside the photo",
    "unconfirmed": "read as a card, but crops shifted a little or turned half a turn do not bear the reading out",
    MAYBE_EMPTY: "read as bare table, but a card may lie there (read unsurely, or beside a hand or an arm: "
                 "under a palm, in a shadow, under an arm of the table's colour)",
}


@dataclass(frozen=True)
class Unsure:
    x: int
    y: int
    reason: str  # a key of REASONS

    @property
    def cell(self) -> tuple[int, int]:
        return (self.x, self.y)

    @property
    def words(self) -> str:
        return REASONS.get(self.reason, self.reason)


@dataclass
class Observation:
    cards: list[SeenCard] = field(default_factory=list)
    uncertain: list[Unsure] = field(default_factory=list)
    width: int = 0
    height: int = 0
    ms: float = 0.0
    error: str | None = None  # the photo could not be read as a maze, in words
    warnings: list[str] = field(default_factory=list)  # what makes its readings less sure, in words

    def board(self, catalogue: Catalogue | None = None) -> Board:
        """The physical maze as an engine board (goal secrets unknown)."""
        board = Board(catalogue or default_catalogue())
        for card in sorted(self.cards, key=lambda c: (c.face != "start", c.x, c.y)):
            board.put(Placement(card.x, card.y, card.face, card.rotation))
        return board

    def goals(self, catalogue: Catalogue | None = None) -> list[dict]:
        catalogue = catalogue or default_catalogue()
        out = []
        for card in self.cards:
            face = catalogue.face(card.face)
            if face.kind == "goal-back":
                out.append({"x": card.x, "y": card.y, "state": "hidden"})
            elif face.kind == "goal":
                out.append({"x": card.x, "y": card.y, "state": "gold" if face.gold else "stone"})
        return sorted(out, key=lambda g: (g["x"], -g["y"]))

    def to_json(self, catalogue: Catalogue | None = None) -> dict:
        catalogue = catalogue or default_catalogue()
        cards = []
        for card in sorted(self.cards, key=lambda c: (c.x, -c.y)):
            face = catalogue.face(card.face)
            shape = face.shape(card.rotation)
            features = []
            if face.has_ladder:
                features.append("ladder")
            features += [f"door-{t.door}" for t in shape.tunnels if t.door]
            features += ["crystal"] * face.crystals
            if face.gold:
                features.append("gold")
            cards.append({"x": card.x, "y": card.y, "face": card.face, "rotation": card.rotation,
                          "tunnels": shape.tunnel_letters, "features": features,
                          "confidence": round(card.confidence, 4)})
        doc = {
            "cards": cards,
            "goals": self.goals(catalogue),
            "uncertain": [{"x": u.x, "y": u.y, "reason": u.reason} for u in sorted(self.uncertain, key=lambda u: (u.x, -u.y))],
            "frame": {"width": self.width, "height": self.height, "ms": round(self.ms, 1)},
        }
        if self.error:
            doc["error"] = self.error
        if self.warnings:
            doc["warnings"] = list(self.warnings)
        return doc


# The conditions on a card's way back to the start (a neighbour, a tunnel leading back). A
# photo cannot judge them surely: a cell on the way that could not be read may hold a card
# (under a hand, read unsurely), and a rockfall since the card was laid may have taken a
# card of its way away (the rules leave the cards it cuts off lying, and the hole may be
# filled again with a card that does not join them)
WAY_BACK = ("not-connected", "not-adjacent")


def filled_in(board: Board, unread: Iterable[tuple[int, int]]) -> Board | None:
    """The board with a crossroads on every cell that could not be read (no card conducts
    more), and the start on its place where it was not read (it lies there from the set-up
    on, whatever hides it: every card's way back leads to it), or None when there is none.
    The goal places are left out: a goal card lies there, and conducts nothing face down."""
    unseen = {c for c in unread if c not in board and c not in GOAL_CELLS}
    if START_CELL not in board:
        unseen.add(START_CELL)
    if not unseen:
        return None
    filled = board.copy()
    for x, y in sorted(unseen, key=lambda c: c != START_CELL):
        filled.put(Placement(x, y, "start" if (x, y) == START_CELL else "cross", 0))
    return filled


def given_the_doubt(reasons: Iterable[Reason], judged_filled_in: Callable[[], Verdict]) -> list[Reason]:
    """The reasons that stand when a card is not said to lack a tunnel to the start, or a
    neighbour, that a card unseen on a cell not read might give it: those the card judged
    again on the board ``filled_in`` still fails (asked only when it matters)."""
    reasons = list(reasons)
    if not any(r.code in WAY_BACK for r in reasons):
        return reasons
    still = {r.code for r in judged_filled_in().reasons}
    return [r for r in reasons if r.code not in WAY_BACK or r.code in still]


def maze_report(board: Board, unread: Iterable[tuple[int, int]] = ()) -> dict[tuple[int, int], list[Reason]]:
    """Every path card's failed conditions, judged as if it were laid last (the engine's own
    words), but for its edges against a goal turned over: the goal may have been turned over
    after the card was laid, and mismatches it then (a photo does not tell), which the rules
    tolerate. With cells that could not be read (``unread``), a card is given the doubt
    (``given_the_doubt``). A card failing only conditions of its way back (``WAY_BACK``) may
    have been cut off by a rockfall since: the caller says so, not that it broke a rule."""
    filled = filled_in(board, unread)
    problems = {}
    for p in board.placements():
        if board.shape_at(p.cell).face.kind != "path":
            continue
        reasons = _judged(board, p, filled)
        if reasons:
            problems[p.cell] = reasons
    return problems


@dataclass(frozen=True)
class Ruling:
    """The answer on a contested card: the engine's verdict on it as the card laid last, or
    why it cannot be judged from the photo."""

    cell: tuple[int, int]
    verdict: Verdict | None = None
    doubted: bool = False  # legal only as far as the cells read show: its way back may run under one not read
    unjudged: str | None = None  # why there is no verdict, in words

    def to_dict(self) -> dict:
        doc: dict = {"x": self.cell[0], "y": self.cell[1]}
        if self.verdict is None:
            return doc | {"error": self.unjudged}
        p = self.verdict.placement
        return doc | {"face": p.face, "rotation": p.rotation} | self.verdict.to_dict() | {
            "as_far_as_read": self.doubted}


def rule_on(observation: Observation, cell: tuple[int, int], catalogue: Catalogue | None = None) -> Ruling:
    """The contested card at ``cell`` judged as the card laid last, as a player disputing a
    placement asks. Unlike ``maze_report``, a card laid last cannot have been cut off by a
    rockfall since: lacking a way back to the start, it is illegal, unless that way may run
    under a cell not read (the card is then legal as far as the cells read show)."""
    for u in observation.uncertain:
        if u.cell == cell:
            return Ruling(cell, unjudged=f"the card there could not be read surely ({u.words}): take another "
                                         "photo, nearer, with it in plain view")
    board = observation.board(catalogue)
    placement = board.at(cell)
    if placement is None:
        return Ruling(cell, unjudged="no card was read there")
    kind = board.shape_at(cell).face.kind
    if kind != "path":
        return Ruling(cell, unjudged=f"it holds {'the start card' if kind == 'start' else 'a goal card'}, laid "
                                     "at the set-up, not played")
    laid = _alone(board, placement)
    as_read = _tolerated(board, laid.reasons)
    reasons = _doubted(as_read, placement, filled_in(board, [u.cell for u in observation.uncertain]))
    return Ruling(cell, Verdict(placement, tuple(reasons), laid.reveals, laid.gold_reached),
                  doubted=len(reasons) < len(as_read))


def breaks_a_rule(reasons: Iterable[Reason]) -> bool:
    """Whether a card's failed conditions go beyond its way back to the start (``WAY_BACK``),
    which a rockfall since it was laid may have taken: a rule broken whatever came after."""
    return any(r.code not in WAY_BACK for r in reasons)


def _judged(board: Board, placement: Placement, filled: Board | None) -> list[Reason]:
    """A card's failed conditions as if it were laid last, but for its edges against a goal
    turned over (see ``maze_report``), given the doubt on the board ``filled`` when not None."""
    return _doubted(_tolerated(board, _alone(board, placement).reasons), placement, filled)


def _tolerated(board: Board, reasons: Iterable[Reason]) -> list[Reason]:
    """The reasons but for edges against a goal turned over (see ``maze_report``)."""
    return [r for r in reasons if not (r.code == "edge-mismatch" and board.shape_at(r.neighbour).face.kind == "goal")]


def _doubted(reasons: list[Reason], placement: Placement, filled: Board | None) -> list[Reason]:
    """The reasons that stand once the card is given the doubt on the board ``filled`` (None: no doubt)."""
    return reasons if filled is None else given_the_doubt(reasons, lambda: _alone(filled, placement))


def _alone(board: Board, placement: Placement):
    """The engine's verdict on a card of the board as if it were laid last."""
    without = board.copy()
    without.remove(placement.cell)
    return without.check(placement)

