"""Reading the cells: classifier readings to cards, with the deck and the rules as priors.

The classifier reads every lattice cell in one batch. A reading is then *suspect* when it
is unsure (small margin over the runner-up), when the deck does not have that many copies
of the face, or when its edges disagree with a confidently read neighbour. Suspects are
re-examined, not silently corrected: the cell is read again from slightly different crops
and from the crop turned half a turn (whose answer maps back through the half-turn of
every class), and the averaged reading decides. A sure reading short of near certain is
read again so too, and left uncertain where the other crops do not bear it out: the
classifier's wrong readings are mostly sure ones. A card that is still confidently read
stays, even if the maze is then illegal: a player may really have laid it wrongly, and
saying so is the point. What stays unsure is reported as uncertain, never guessed; a cell
read unsurely as bare table is reported so too (``maybe-empty``: a palm can read like table).

Where the cards lie is a prior too: the start and the goal cards are laid at set-up, the
start on its place and the goals on theirs, and never played, and no path card can be laid
on those places. With the maze frame known, the start's place is read as the start (or
nothing), a goal place among the goal cards (or nothing), every other cell among the rest.
A face-up goal card is drawn like the path card with its tunnels, and what the classifier
gives the one of the two that cannot lie on a cell goes to the other.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import cv2
import numpy as np

from engine.catalogue import EDGE_BITS, OPPOSITE, STEP, Catalogue, default_catalogue

from .classes import EMPTY, half_turn_index
from .classify import Classifier
from .observation import MAYBE_EMPTY, SeenCard, Unsure

Cell = tuple[int, int]
# (cell, variant) -> a re-cropped image of that cell; variants 0..n-1 are small shifts/scales
Recrop = Callable[[Cell, int], np.ndarray]
VARIANTS = 4
MIN_MARGIN = 0.5  # top probability minus the runner-up below which a reading is suspect
# A sure reading below this confidence is confirmed: read again from the shifted and the
# half-turned crops, its class must keep CONFIRMED_SHARE of the probability on average, else
# the cell is uncertain ("unconfirmed": a card lies there surely, which one is in doubt).
# The classifier's wrong readings are sure ones too (0.91 to 0.999), and a crop shifted a
# little or turned half a turn rarely bears them out: over 3,100 bench and fresh photos
# (Session 50) this took away 28 of the 164 cards read wrongly or where none lies, and left
# 131 of some 80,000 read rightly uncertain. Four cards in a hundred read below 0.99.
CONFIRM_BELOW = 0.99
CONFIRMED_SHARE = 0.8


@dataclass(frozen=True)
class CellRead:
    cell: Cell
    name: str  # class name, "empty" or "other"
    face: str | None
    rotation: int
    confidence: float
    reason: str | None  # why uncertain, None when sure


def _decide(classifier: Classifier, cell: Cell, probs: np.ndarray, embedding: np.ndarray) -> CellRead:
    r = classifier.reading(probs, embedding)
    return CellRead(cell, r.card.name, r.card.face, r.card.rotation, r.confidence, r.reason)


def _edges_conflict(reads: dict[Cell, CellRead], catalogue: Catalogue) -> set[Cell]:
    """Cells whose open edges disagree with a confidently read neighbouring card."""
    suspects = set()
    for cell, r in reads.items():
        if r.face is None or r.reason:
            continue
        shape = catalogue.face(r.face).shape(r.rotation)
        if shape.face.kind in ("goal", "goal-back"):
            continue
        for bit in EDGE_BITS:
            dx, dy = STEP[bit]
            other = reads.get((cell[0] + dx, cell[1] + dy))
            if other is None or other.face is None or other.reason:
                continue
            theirs = catalogue.face(other.face).shape(other.rotation)
            if theirs.face.kind in ("goal", "goal-back"):
                continue
            if bool(shape.open & bit) != bool(theirs.open & OPPOSITE[bit]):
                suspects.add(cell)
    return suspects


def _over_copies(reads: dict[Cell, CellRead], catalogue: Catalogue) -> set[Cell]:
    """Cells read as a face the deck has fewer copies of than were read: all but the surest are suspect."""
    counts = Counter(r.face for r in reads.values() if r.face and not r.reason)
    suspects = set()
    for face, n in counts.items():
        copies = catalogue.face(face).copies
        if n > copies:
            ranked = sorted((r for r in reads.values() if r.face == face and not r.reason),
                            key=lambda r: -r.confidence)
            suspects.update(r.cell for r in ranked[copies:])
    return suspects


def read_cells(classifier: Classifier, crops: dict[Cell, np.ndarray], *, recrop: Recrop | None = None,
               catalogue: Catalogue | None = None, goal_places: frozenset[Cell] | None = None,
               start_place: Cell | None = None,
               verdicts: dict[tuple[Cell, str], bool] | None = None) -> tuple[list[SeenCard], list[Unsure], set[Cell]]:
    """Cards, uncertain cells and empty cells from one crop per lattice cell (in the maze
    frame, when ``goal_places`` and ``start_place`` are given). ``verdicts``: (cell, class)
    -> whether that reading was borne out, kept by the caller for as long as the crops stay
    alike (a still view), so that each reading is confirmed once, not on every frame."""
    catalogue = catalogue or default_catalogue()
    cells = list(crops)
    probs, embedding = classifier.run([crops[c] for c in cells])
    place = _place_prior(classifier, catalogue, goal_places, start_place)
    probs = place(cells, classifier.blend(probs, embedding))
    reads = {c: _decide(classifier, c, p, e) for c, p, e in zip(cells, probs, embedding)}
    top2 = np.sort(probs, axis=1)[:, -2:]
    unsure = {c for c, (second, first) in zip(cells, top2)
              if first - second < MIN_MARGIN or first < classifier.min_confidence}
    suspects = unsure | _edges_conflict(reads, catalogue) | _over_copies(reads, catalogue)
    suspects = [c for c in cells if c in suspects]
    if suspects:
        reads.update(_reexamine(classifier, suspects, crops, recrop, place))
    doubtful = [c for c in cells if c not in suspects and reads[c].face is not None and not reads[c].reason
                and reads[c].confidence < CONFIRM_BELOW]
    for cell in _not_borne_out(classifier, doubtful, reads, crops, recrop, place, {} if verdicts is None else verdicts):
        reads[cell] = replace(reads[cell], reason="unconfirmed")
    # the deck's copy counts: what is still over after re-examination cannot all be right
    for cell in _over_copies(reads, catalogue):
        reads[cell] = replace(reads[cell], reason="conflict")
    cards, uncertain, empty = [], [], set()
    for cell in cells:
        r = reads[cell]
        if r.reason:
            uncertain.append(Unsure(cell[0], cell[1], MAYBE_EMPTY if r.name == EMPTY else r.reason))
        elif r.name == EMPTY:
            empty.add(cell)
        else:
            cards.append(SeenCard(cell[0], cell[1], r.face, r.rotation, r.confidence))
    return cards, uncertain, empty


def _place_prior(classifier: Classifier, catalogue: Catalogue, goal_places: frozenset[Cell] | None,
                 start_place: Cell | None = None):
    """(cells, probabilities) -> the probabilities with the classes that cannot lie on each
    cell taken out (and the rest renormalised): goal cards off the goal places, the start
    off its place, path cards on them. Without the places (the maze frame unknown), nothing
    is taken out."""
    goal = np.array([c.face is not None and catalogue.face(c.face).kind in ("goal", "goal-back")
                     for c in classifier.classes])
    start = np.array([c.face == "start" for c in classifier.classes])
    card = np.array([c.face is not None for c in classifier.classes])
    # a face-up goal card has the tunnels of a base path card (the stone goals a curve's, the
    # gold goal a crossroads'), and the two are drawn alike: on a cell where only one of the
    # pair can lie, what the classifier gives the other says that tunnel too
    to_path, to_goal = _twins(classifier, catalogue)

    def apply(cells: Sequence[Cell], probs: np.ndarray) -> np.ndarray:
        if goal_places is None:
            return probs
        on_goal_place = np.array([c in goal_places for c in cells])[:, None]
        on_start = np.array([c == start_place for c in cells])[:, None]
        elsewhere = ~goal & ~start if start_place is not None else ~goal
        allowed = np.where(on_goal_place, goal | ~card, np.where(on_start, start | ~card, elsewhere))
        kept = np.where(on_goal_place, probs @ to_goal, np.where(on_start, probs, probs @ to_path)) * allowed
        return kept / np.maximum(kept.sum(axis=1, keepdims=True), 1e-9)

    return apply


def _twins(classifier: Classifier, catalogue: Catalogue) -> tuple[np.ndarray, np.ndarray]:
    """Two class-to-class matrices (probabilities @ matrix): the first moves each face-up goal
    class's share to the base path class with the same tunnels, the second the reverse;
    every other class keeps its own."""
    classes = classifier.classes
    n = len(classes)
    to_path, to_goal = np.eye(n, dtype=np.float32), np.eye(n, dtype=np.float32)
    paths = {c.tunnels: i for i, c in enumerate(classes) if c.face is not None
             and catalogue.face(c.face).kind == "path" and catalogue.face(c.face).set == "base"}
    for i, c in enumerate(classes):
        if c.face is not None and catalogue.face(c.face).kind == "goal" and c.tunnels in paths:
            j = paths[c.tunnels]
            to_path[i, i], to_path[i, j] = 0, 1
            to_goal[j, j], to_goal[j, i] = 0, 1
    return to_path, to_goal


def _views(classifier: Classifier, cells: Sequence[Cell], crops: dict[Cell, np.ndarray], recrop: Recrop | None,
           place) -> dict[Cell, tuple[np.ndarray, np.ndarray]]:
    """Each cell read from several crops (its own and the ``recrop`` variants), each also
    turned 180° (whose answer maps back through the half-turn of every class): cell -> the
    views' probabilities (views x classes) and embeddings."""
    turn = np.array(half_turn_index(classifier.classes))
    batch, owners, turned = [], [], []
    for cell in cells:
        views = [crops[cell]] + ([recrop(cell, v) for v in range(VARIANTS)] if recrop else [])
        for view in views:
            for half in (False, True):
                batch.append(cv2.rotate(view, cv2.ROTATE_180) if half else view)
                owners.append(cell)
                turned.append(half)
    if not batch:
        return {}
    probs, embedding = classifier.run(batch)
    probs = classifier.blend(probs, embedding)
    # a reading of the turned crop names the turned class: map it back
    probs = place(owners, np.where(np.array(turned)[:, None], probs[:, turn], probs))
    out = {}
    for cell in cells:
        mine = np.array([o == cell for o in owners])
        out[cell] = probs[mine], embedding[mine]
    return out


def _reexamine(classifier: Classifier, cells: Sequence[Cell], crops: dict[Cell, np.ndarray],
               recrop: Recrop | None, place) -> dict[Cell, CellRead]:
    """Read each suspect again from several crops, one of them turned 180°, and average."""
    return {cell: _decide(classifier, cell, probs.mean(axis=0), embedding[0])
            for cell, (probs, embedding) in _views(classifier, cells, crops, recrop, place).items()}


def _not_borne_out(classifier: Classifier, cells: Sequence[Cell], reads: dict[Cell, CellRead],
                   crops: dict[Cell, np.ndarray], recrop: Recrop | None, place,
                   verdicts: dict[tuple[Cell, str], bool]) -> list[Cell]:
    """The cells whose reading the views of ``_views`` give less than CONFIRMED_SHARE of the
    probability on average; ``verdicts`` (see ``read_cells``) answers for the readings it
    holds and is given the others'."""
    unknown = [cell for cell in cells if (cell, reads[cell].name) not in verdicts]
    for cell, (probs, _) in _views(classifier, unknown, crops, recrop, place).items():
        name = reads[cell].name
        verdicts[cell, name] = probs[:, classifier.index[name]].mean() >= CONFIRMED_SHARE
    return [cell for cell in cells if not verdicts[cell, reads[cell].name]]
