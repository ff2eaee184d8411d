"""The grid stage: the lattice of card cells, which cells hold a card, and crops for the classifier.

A ``Lattice`` is a homography from lattice cell coordinates (cell (x, y) centred at (x, y),
one cell 1 x 1, y "north") to frame pixels, plus what lies on it: the occupied cells of
the maze, cards laid crosswise, cells a hand hides. Before ``anchor`` its axes are the
fit's own, known only up to a half turn; ``anchor`` turns them into the maze frame of
rules/saboteur.md from the classifier's readings of the start and the goals.

How ``fit_lattice`` works:

1. Hypotheses, each scored on the busy cells near its seed. First a local look around
   the busiest spot of the shrunk frame (where the maze is, and the perspective
   negligible): the two card-edge directions there (of the line segments on or at the
   edge of card pixels, not the table's grain), and the picture resampled along them, on
   which every card size and phase is judged by box sums (``_LocalPatch``). It finds the
   lattice on most photos: when the best of its hypotheses, grown (step 2), reads nearly
   all its cells as cards (step 3), the other sources are not worked out. They are a few
   card sizes (lone cards, the commonest edge lengths, their halves and doubles) with,
   for each, the pitch and phase along each axis that make the cells' middle lines
   brightest against their sides: tunnels run along a card's middle lines (every open
   edge has one at its midpoint), rock and gaps along its sides. Edge strength would not
   do: a tunnel's walls are crisper than a card's border. And globally, the table stage's
   plane with its pitch and the pitch's harmonics. All are then ranked together.
2. Refinement by snapping, the workhorse (tracking uses it alone). On the sides of the
   busy cells, points clear of the corners and of the middle (where tunnels cross) are
   probed along the side's normal in the *full-resolution* frame (one short profile each,
   a single cv2.remap); the strongest step within a window, between the means of a few
   pixels either side (the art's thin stone-block lines step down and straight back up),
   is the card's edge. Each probe
   says "this pixel lies on lattice line x = k + 1/2" (or y), linear in the inverse
   homography: a weighted DLT with Huber reweighting. The region grows from a seed cell
   as the window shrinks; while windows are wide only the outline (card against table) is
   probed, because between two cards the strongest step may be a tunnel wall a third of a
   card in; a small patch only corrects the lattice affinely, holding the spacing of its
   lines to the hypothesis's (each card lies a few millimetres off on its own, which over
   the few lines of a patch would read as a few percent of scale), perspective comes once
   the cells span five or more both ways; lone cards far out (the goals) are pinned by
   the centres of their outlines.
3. Choice. ``lattice_score``: sides on edges x pure cells (busy or bare, not half) x bright
   middles x a plausible card aspect. Half the pitch puts sides along tunnels, twice the
   pitch cuts through the outline, a shift by a tunnel's width puts the bright floors on
   the sides. Given the classifier's check (``reads_cards``), each score is weighed by
   the share of the lattice's cells that show a whole maze card: a lattice off by a
   tunnel's width or at the wrong pitch crops parts of several cards, which no edge cue
   tells as surely. When even the best reads few of its cells as cards, its likely
   corrections are screened by the classifier near the seed and the best grown too: one
   axis kept and the other's pitch set from the card's aspect (as it is or foreshortened),
   or the harmonics (either axis at half or twice the pitch, the axes swapped), each in
   every phase they allow. When none of those reads well, the local hypotheses along
   other card-edge directions at the seed are tried (the next pairs of the segments'
   directions, and the pair along which the card pixels' edges line up most sharply: an
   arm, a seam or a striped cloth can outvote a card side among few small cards). When
   none of those reads well either, lattices are found by reading alone: every card size,
   aspect and phase along the card directions (and each squared to the other, in case
   one is off), read at the seed's cell and the cells round it, each grown as found and
   also refitted first on where the cards round its seed lie (given ``locates_cards``:
   the sizes tried are a tenth apart, and growth keeps the seed patch's spacing). When
   still none reads well, the three ranked best are finished (step 5 included) and ranked
   again, on all their cells.
4. Occupancy without the classifier: card art is busy (local contrast) and its tunnel
   floors paper-white, tables are neither (lamp gradients, glare and shadows are smooth);
   on a strongly textured cloth the rock is told from it by colour,
   and each cell is judged by that share of its inner part, faint cells only next to
   clear ones and with art in all four corners. The maze is the largest 4-connected group,
   plus lone cards lying square on their cell (the goals, before the tunnels reach them):
   loose cards at random angles do not, so the draw pile and the cards in front of the
   players are left out. A cell with a busy middle band whose art reaches a quarter cell
   into its free east and west neighbours, or whose ends show the table, holds a card
   laid crosswise. Smooth skin-coloured cells (beyond what the table itself shows), and
   on a table not of skin's hue cells under skin reaching in from the edge (an arm), are
   occluded: the caller must not trust what it reads there.

5. Centring on the cards (given ``locates_cards``: the pipeline reads each cell from crops
   shifted along and across and says where its card lies). Growth holds the spacing of
   the first patch's lines, so a pitch a few percent off there is half a card off eight
   cells out; the cards found, ring by ring from the maze's middle, refit the lattice
   (robustly: a neighbour's card read a cell off is left out), the edges then snap it to
   a pixel with those centres pinned (affinely: the perspective stays the cards'). Kept
   when it reads at least as many cards.

``GridTracker`` keeps the lattice between frames: each frame re-snaps the previous lattice
in a small window (a few hundred probes in the full frame) and re-judges occupancy on a
shrunk copy; when too few probes find their edges it fits from scratch, and names the new
lattice's cells as the old one did.

Known limits: a wrong pitch or phase is still chosen in some scenes (steep tilt with
small cards, a hand's long straight arm among few cards, heavy glare); the lattice is a
homography, so a barrel lens leaves a few percent of a card at the frame's corners; a card
laid crosswise is hard to see when cards lie on all its sides.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial

import cv2
import numpy as np

from engine.board import GOAL_CELLS, Cell
from engine.catalogue import neighbours, with_neighbours
from vision import table as tbl
from vision.table import (
    PITCH_MM,
    PITCH_RATIO,
    TableError,
    TablePlane,
    apply_homography,
    card_texture,
    frame_to_small,
    scaling,
    shrink,
    texture_threshold,
    translation,
)

# Lattice cell corners in cell units, NW NE SE SW as seen with the lattice's north up.
CELL_CORNERS = np.array([(-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)])
# Where along a cell side to probe: clear of the rounded corners and of the tunnel that may
# cross the middle of the side.
PROBE_ALONG = (0.14, 0.26, 0.74, 0.86)
# A probe's edge counts as on the line when it is this close (cells) to it.
ON_LINE = 0.045
# Sides between two cards are snapped only with search windows at most this wide (cells).
INNER_SIDES_WITHIN = 0.1
# Growth of the refined region (cells from the seed) and the search window (cells) at each round.
GROWTH = ((2.5, 0.18), (4.5, 0.15), (8.0, 0.12), (1e9, 0.1), (1e9, 0.07))
TRACK_SEARCH = 0.08
# Half-width (samples, about a pixel each) of the step an edge probe looks for.
STEP_HALF_WIDTH = 3
# How firmly an affine refit keeps the spacing of the lattice's lines (see fit_affine_correction).
STIFFNESS = 4.0
# Occupancy: share of busy pixels in a cell's inner part for a card, and for bare table.
CARD_SHARE = 0.5
WEAK_SHARE = 0.33  # a faint card next to a clear one
BARE_SHARE = 0.25
MOSAIC_CELL = (16, 24)  # pixels per cell in the occupancy mosaic (portrait, like a card)
# A cell showing this much more smooth skin than the bare table does is under a hand (its
# card cannot be trusted either way). Less, 0.12 (what an earlier comment here gave, never
# in force), took clear cards beside the maze for hidden and framed a bench photo a cell off.
HAND_SKIN_SHARE = 0.3
# Smooth skin alone misses a pale or strongly lit hand (its own edges and folds read as
# busy, and a third of a cell under one is enough to misread the card): on a table that
# shows at most ARM_TABLE_SKIN skin itself, a cell this much under an arm is occluded too.
# On 100 + 100 bench photos (drawn / printed cards), of the cards 30 % or more under a hand
# 80 / 77 of 139 / 133 are found instead of 50 / 46 (most of the rest on skin-hued tables),
# for 2 / 5 more clear cards taken for hidden (at an ARM_SHARE of 0.2, 11 / 14 more).
ARM_SHARE = 0.3
ARM_TABLE_SKIN = 0.2
# Nor can it where the cards' own rock is of skin's hue (a printing in sandy browns): the
# maze's rock is then one skin-hued region, and where the maze runs out of the frame it
# reaches the edge as an arm does (a foreign-printing bench photo had the 20 cards of such
# a maze taken for hidden). Where the cards' skin share (not under smooth skin) is this
# much at its lower quartile, the printing is left to the smooth-skin test. The quartile,
# not the median: an arm can lie over more than half the maze's cards (a drawn bench film's
# cards had a median of 0.32 to 0.40 under one, a lower quartile of 0.12 at most). On 20
# bench photos of each deck the drawn and printed cards show up to 0.12 at the median; the
# sandy printing's cards 0.13 to 0.65 at the lower quartile, depending on the light.
ARM_CARD_SKIN = 0.25
ARM_CELLS = 2.0  # an arm's skin covers at least this many cells' area
GOAL_COLUMN = 8
# How far (cells) a goal read off its place may have drifted with the lattice: farther, it is
# another card misread as a goal.
GOAL_DRIFT = 2
# Cells of a grown hypothesis that the classifier looks at (fit_lattice's reads_cards).
VERIFY_CELLS = 24
# A card's short side in the working picture is at least this (pixels): card texture is
# measured over 5 x 5 pixels and bleeds some 2 px past the edges.
MIN_CARD_PX = 20.0


class GridError(TableError):
    """No card lattice can be fitted in this frame; one sentence says why."""


# =========================================================================== the value


@dataclass(frozen=True, eq=False)
class Lattice:
    """The card lattice in one frame.

    ``image_from_maze``: cell coordinates -> frame pixels (the maze frame once anchored,
    the fit's own frame before). ``cells``: the cells holding a card of the maze.
    ``occupancy``: every cell examined -> share of card-like pixels in its middle (0..1).
    ``crosswise``: cells next to the maze with a card laid across. ``occluded``: cells a hand
    hides (their card, if any, cannot be read). ``support``: share of probed cell sides
    whose edge was found on the lattice line (fit quality, 0..1); ``fit_error_px``: the
    robust spread of those edges about their lines. ``half_turn``: set by ``anchor`` when
    the view shows the maze turned half a turn relative to the fit, so every reading's
    rotation must be turned 180 degrees too; ``maze_from_fit`` the cell mapping it applied.
    """

    image_from_maze: np.ndarray
    frame_size: tuple[int, int]
    cells: frozenset[Cell]
    occupancy: Mapping[Cell, float] = field(default_factory=dict)
    crosswise: frozenset[Cell] = frozenset()
    occluded: frozenset[Cell] = frozenset()
    support: float = 0.0
    fit_error_px: float = 0.0
    anchored: bool = False
    half_turn: bool = False
    maze_from_fit: np.ndarray = field(default_factory=lambda: np.eye(3))

    def quad(self, cell: Cell) -> np.ndarray:
        """The cell's corners in the frame: NW, NE, SE, SW as seen in the lattice frame."""
        return apply_homography(self.image_from_maze, np.asarray(cell, float) + CELL_CORNERS)

    def centre(self, cell: Cell) -> np.ndarray:
        return apply_homography(self.image_from_maze, [cell])[0]

    def point_at(self, point_px) -> tuple[float, float]:
        """Where (cell coordinates, unrounded) a frame pixel lies on the lattice."""
        x, y = apply_homography(np.linalg.inv(self.image_from_maze), [point_px])[0]
        return float(x), float(y)

    def share_in_view(self, cell: Cell) -> float:
        """The share of the cell's area inside the frame (0..1)."""
        quad = self.quad(cell).astype(np.float32)
        area = abs(cv2.contourArea(quad)) if np.all(np.isfinite(quad)) else 0.0
        if area == 0:
            return 0.0
        width, height = self.frame_size
        frame = np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float32)
        inside, _ = cv2.intersectConvexConvex(quad, frame)
        return float(inside) / area

    def shares_in_view(self, cells: Sequence[Cell]) -> dict[Cell, float]:
        """``share_in_view`` of each cell, their corners in one transform: a cell with every
        corner in the frame lies wholly in view, and only the others are measured (the maze's
        cells are, on every frame of a film)."""
        if not cells:
            return {}
        corners = apply_homography(self.image_from_maze, (np.asarray(cells, float)[:, None] + CELL_CORNERS).reshape(-1, 2))
        corners = corners.reshape(-1, 4, 2)
        inside = ((corners >= 0) & (corners <= self.frame_size)).all(axis=(1, 2))
        # a cell with every corner past the same side of the frame lies wholly out of view
        # (the cells a path round the frame would take: pipeline._off_the_maze)
        beyond = ((corners < 0).all(axis=1) | (corners > self.frame_size).all(axis=1)).any(axis=1)
        return {c: 1.0 if whole else 0.0 if out else self.share_in_view(c) for c, whole, out in zip(cells, inside, beyond)}

    def cell_size_px(self) -> float:
        """Mean short side of the occupied cells in pixels (a scale for tolerances)."""
        cells = np.array(sorted(self.cells) or [(0, 0)], float)
        # every cell's NW and NE corners in one transform (read on every frame of a film)
        ends = apply_homography(self.image_from_maze, (cells[:, None] + CELL_CORNERS[:2]).reshape(-1, 2))
        return float(np.mean(np.linalg.norm(ends[1::2] - ends[0::2], axis=1)))


# What share of each lattice's cells show a whole maze card (the frame, the lattices): the
# classifier's judgement, which fit_lattice may be given to weigh its hypotheses. Lattices
# come in batches because the classifier reads a batch of crops far faster than one by one
# (the search by reading alone judges thousands of one-cell lattices).
CardCheck = Callable[[np.ndarray, Sequence[Lattice]], Sequence[float]]
# Where the cards of these cells lie (the frame, the lattice, the cells): cell -> the card's
# centre in frame pixels, for the cells whose card was found. The classifier's judgement,
# which fit_lattice may be given to correct a lattice's drift.
CardFinder = Callable[[np.ndarray, Lattice, Sequence[Cell]], dict[Cell, np.ndarray]]


# =========================================================================== geometry


def _probe_points(cells: Sequence[Cell], along=PROBE_ALONG, occupied=None):
    """Sample points on the four sides of each cell: lattice points (N, 2), which line family
    (0: x = const, 1: y = const), the line's value, and whether the side is on the outline
    (a card on one side only, by ``occupied``, default ``cells``). Shared sides are probed once."""
    occupied = set(cells) if occupied is None else occupied
    sides: dict[tuple[int, float, float], bool] = {}
    for x, y in cells:
        for family, value, middle, across in ((0, x - 0.5, y, (x - 1, y)), (0, x + 0.5, y, (x + 1, y)),
                                             (1, y - 0.5, x, (x, y - 1)), (1, y + 0.5, x, (x, y + 1))):
            sides[(family, value, middle)] = across not in occupied
    keys = sorted(sides)
    pts, fam, val = _points_on_sides(keys, along)
    outline = np.repeat([sides[k] for k in keys], len(along)).astype(bool)
    return pts, fam, val, outline


def _points_on_sides(sides, along) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = np.asarray(along) - 0.5
    pts, fam, val = [], [], []
    for family, value, middle in sides:
        for dt in t:
            pts.append((value, middle + dt) if family == 0 else (middle + dt, value))
            fam.append(family)
            val.append(value)
    return np.array(pts, float).reshape(-1, 2), np.array(fam, int), np.array(val, float)


def _normals(h: np.ndarray, pts: np.ndarray, family: np.ndarray, eps: float = 0.02) -> tuple[np.ndarray, np.ndarray]:
    """Image positions of lattice points and unit image normals of their lines, plus the
    image length of one cell across the line (pixels per cell)."""
    step = np.where(family[:, None] == 0, [[eps, 0.0]], [[0.0, eps]])
    p0 = apply_homography(h, pts)
    p1 = apply_homography(h, pts + step)
    d = (p1 - p0) / eps
    scale = np.linalg.norm(d, axis=1)
    return p0, d / np.maximum(scale, 1e-9)[:, None], scale


# =========================================================================== snapping


def sample(image: np.ndarray, xs: np.ndarray, ys: np.ndarray, border: int = cv2.BORDER_CONSTANT) -> np.ndarray:
    """Bilinear samples of ``image`` at (xs, ys) (float32 arrays of one shape, 2-D), in
    chunks of rows: cv2.remap takes maps of at most 32767 rows and columns."""
    if xs.shape[1] >= 32767:
        return np.concatenate([sample(image, xs[:, i:i + 30000], ys[:, i:i + 30000], border)
                               for i in range(0, xs.shape[1], 30000)], axis=1)
    parts = [cv2.remap(image, xs[i:i + 30000], ys[i:i + 30000], cv2.INTER_LINEAR, borderMode=border, borderValue=0)
             for i in range(0, max(len(xs), 1), 30000)]
    return np.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]



@dataclass(frozen=True, eq=False)
class Snap:
    """Where each probe found its edge: image points, offset from the prediction (cells),
    edge strength, and whether a clear edge was found at all."""

    observed: np.ndarray
    offset_cells: np.ndarray
    strength: np.ndarray


MAX_SNAP_STEPS = 256  # samples either side of a probe (a cell's search is some 5-40 pixels)


def snap_edges(image: np.ndarray, h: np.ndarray, pts: np.ndarray, family: np.ndarray,
               search_cells: float) -> Snap:
    """For each probe, the strongest intensity step along its line's normal within
    +-search_cells, sub-pixel. ``image``: BGR or grey, any resolution ``h`` maps into."""
    p0, normal, px_per_cell = _normals(h, pts, family)
    radius = np.maximum(search_cells * px_per_cell, 2.0)
    # a lattice point near a hypothesis's horizon is millions of pixels a cell: its window is
    # sampled coarsely rather than asking for gigabytes
    steps = min(math.ceil(radius.max()), MAX_SNAP_STEPS)
    s = np.arange(-steps - 1, steps + 2, dtype=np.float32)
    # sample at a spacing that keeps every probe's window within ``steps`` samples
    spacing = np.maximum(radius / steps, 0.5)[:, None]
    b = STEP_HALF_WIDTH
    t = np.arange(-steps - b, steps + b + 1, dtype=np.float32)
    xs = (p0[:, :1] + normal[:, :1] * t[None, :] * spacing).astype(np.float32)
    ys = (p0[:, 1:] + normal[:, 1:] * t[None, :] * spacing).astype(np.float32)
    prof = sample(image, xs, ys, cv2.BORDER_REPLICATE).astype(np.float32)
    if prof.ndim == 2:
        prof = prof[:, :, None]
    # the step between the means of b samples either side: a card's edge has the table (or
    # the next card) on one side and the card on the other, while the thin dark lines of
    # the art's stone blocks, as crisp, step down and straight back up
    cum = np.concatenate([np.zeros_like(prof[:, :1]), np.cumsum(prof, axis=1)], axis=1)
    k = np.arange(len(s) - 2) + b  # index into t of each position s[1:-1]
    deriv = np.abs((cum[:, k + b + 1] - cum[:, k + 1]) - (cum[:, k] - cum[:, k - b])).sum(axis=2) / b
    deriv = deriv / ((b + 1) * spacing)
    inside = np.abs(s[1:-1])[None, :] * spacing <= radius[:, None] + 1e-6
    deriv = np.where(inside, deriv, 0)
    k = np.argmax(deriv, axis=1)
    rows = np.arange(len(k))
    left = deriv[rows, np.maximum(k - 1, 0)]
    mid = deriv[rows, k]
    right = deriv[rows, np.minimum(k + 1, deriv.shape[1] - 1)]
    den = left - 2 * mid + right
    sub = np.where(den < 0, 0.5 * (left - right) / np.where(den < 0, den, -1), 0.0)
    offset_px = (s[1:-1][k] + sub) * spacing[:, 0]
    observed = p0 + normal * offset_px[:, None]
    return Snap(observed, offset_px / px_per_cell, mid)


def fit_lines(observed: np.ndarray, family: np.ndarray, value: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The homography lattice -> image that puts each observed pixel on its lattice line
    (x = value for family 0, y = value for family 1), by a weighted DLT on the inverse."""
    q = np.asarray(observed, float)
    centre = q.mean(0)
    spread = max(float(np.sqrt(((q - centre) ** 2).sum(1).mean())), 1e-9)
    norm_img = scaling(math.sqrt(2) / spread) @ translation(-centre[0], -centre[1])
    qn = apply_homography(norm_img, q)
    qh = np.column_stack([qn, np.ones(len(qn))])
    lat_mean = np.array([value[family == 0].mean() if (family == 0).any() else 0.0,
                         value[family == 1].mean() if (family == 1).any() else 0.0])
    lat_scale = max(float(np.abs(value - lat_mean[family]).max()), 1.0)
    c = (value - lat_mean[family]) / lat_scale
    rows = np.zeros((len(q), 9))
    is_x = family == 0
    rows[is_x, 0:3] = qh[is_x]
    rows[~is_x, 3:6] = qh[~is_x]
    rows[:, 6:9] = -c[:, None] * qh
    a = rows * np.sqrt(np.maximum(weights, 0))[:, None]
    # the least singular vector of a, as the least eigenvector of the 9 x 9 normal matrix: the
    # same answer here (the data are normalised and noisy), for a fraction of an SVD's time
    # (1,000 rows: 0.05 ms against 0.14; 4,000: 0.06 against 2.9), and a hard photo fits
    # lines over a thousand times
    gn = np.linalg.eigh(a.T @ a)[1][:, 0].reshape(3, 3)
    norm_lat = translation(-lat_mean[0], -lat_mean[1])
    norm_lat = scaling(1 / lat_scale) @ norm_lat
    g = np.linalg.inv(norm_lat) @ gn @ norm_img  # image -> lattice
    h = np.linalg.inv(g)
    return h / h[2, 2]


def fit_affine_correction(h: np.ndarray, observed: np.ndarray, family: np.ndarray, value: np.ndarray,
                          weights: np.ndarray, stiffness: float = STIFFNESS) -> np.ndarray:
    """``h`` corrected by an affine map of the lattice plane: the perspective stays that of
    ``h``, which a small patch of cards cannot tell apart from noise. The spacing of each
    family of lines is held to ``h``'s as if by probes ``sqrt(stiffness)`` cells from the
    middle: each card lies off by its own few millimetres, which across the few lines of a
    small patch would read as a few percent of scale. The lines' directions are measured
    along each line and need no such help."""
    lat = apply_homography(np.linalg.inv(h), observed)  # where h puts the observed edges now
    a = np.eye(3)
    for axis in (0, 1):
        sel = family == axis
        if sel.sum() < 3:
            continue
        w = weights[sel]
        mid = (lat[sel] * w[:, None]).sum(0) / max(w.sum(), 1e-12)
        design = np.column_stack([lat[sel] - mid, np.ones(sel.sum())]) * np.sqrt(w)[:, None]
        target = value[sel] * np.sqrt(w)
        prior = math.sqrt(stiffness * w.sum())  # pseudo-probes: the linear part stays h's
        design = np.vstack([design, prior * np.eye(3)[axis]])
        target = np.append(target, prior)
        lin0, lin1, offset = np.linalg.lstsq(design, target, rcond=None)[0]
        a[axis] = (lin0, lin1, offset - lin0 * mid[0] - lin1 * mid[1])
    h_new = h @ np.linalg.inv(a)  # lattice -> old lattice coordinates -> image
    return h_new / h_new[2, 2]


def _residuals(h: np.ndarray, observed, family, value) -> np.ndarray:
    lat = apply_homography(np.linalg.inv(h), observed)
    return np.where(family == 0, lat[:, 0], lat[:, 1]) - value


@dataclass(frozen=True)
class Refined:
    h: np.ndarray
    support: float  # share of probes on their line
    error_px: float
    probes: int


def refine(image: np.ndarray, h: np.ndarray, cells: Sequence[Cell], search_cells: float,
           iterations: int = 2, projective: bool | None = None, occupied=None,
           centres: Mapping[Cell, np.ndarray] | None = None, least_aspect: float = 0.5) -> Refined:
    """Snap the sides of ``cells`` and refit the homography, ``iterations`` times. The
    perspective is refitted only when the cells span enough of the lattice (``projective``
    None: at least five cells both ways), or the cells and two or more pinned ``centres``
    do; a patch of cards only corrects it affinely. A projective refit that would give the
    cells an implausible aspect (``_aspect_plausibility`` below ``least_aspect``, where the
    lattice was not) is refused."""
    if projective is None:
        c = np.asarray(cells, float)
        enough = len(c) >= 16
        if centres and len(centres) >= 2 and len(c):
            # goal cards pinned eight cells out of a small maze: the maze's sides give the
            # lattice there, the goals where it lies far off, so the perspective between is
            # known; held affine, it splits the difference and cuts the maze's cards a
            # quarter off (drawn films: a T read as a straight, its arm cut off)
            c, enough = np.concatenate([c, np.asarray(sorted(centres), float)]), True
        projective = bool(enough and np.ptp(c[:, 0]) >= 4 and np.ptp(c[:, 1]) >= 4)
    pts, family, value, outline = _probe_points(cells, occupied=occupied)
    if len(pts) < 12 or len(set(family.tolist())) < 2:
        return Refined(h, 0.0, float("inf"), len(pts))
    # Between two cards the strongest step may be a tunnel wall a third of a card in: those
    # sides only count once the lattice is close. The outline (card against table) always.
    inner_weight = 0.0 if search_cells > INNER_SIDES_WITHIN else 0.5
    if (outline.sum() < 12 or len(set(family[outline].tolist())) < 2) and inner_weight == 0:
        inner_weight = 0.5  # a maze with hardly any outline: nothing else to go on
    side_weight = np.where(outline, 1.0, inner_weight)
    support, error = 0.0, float("inf")
    start = h  # affine refits are held to its line spacing, not to the last iteration's
    for it in range(iterations):
        snap = snap_edges(image, h, pts, family, search_cells if it == 0 else min(search_cells, 0.12))
        strength = snap.strength
        ref = float(np.percentile(strength, 60)) + 1e-6
        w = np.clip(strength / ref, 0, 1.5) * side_weight
        observed, fam_all, val_all, w_all = snap.observed, family, value, w
        if centres:  # lone cards found by their outline: each centre pins both coordinates
            keys = sorted(centres)
            pinned = np.array([centres[k] for k in keys], float)
            observed = np.concatenate([observed, pinned, pinned])
            fam_all = np.concatenate([family, np.zeros(len(keys), int), np.ones(len(keys), int)])
            val_all = np.concatenate([value, [k[0] for k in keys], [k[1] for k in keys]])
            w_all = np.concatenate([w, np.full(2 * len(keys), 6.0)])
        candidate = h
        for _ in range(4):  # IRLS: Huber on the distance to the line (cells)
            try:  # a degenerate candidate (singular) ends the refit, as a failed solve does
                robust = w_all * _huber(_residuals(candidate, observed, fam_all, val_all), 0.03)
                candidate = (fit_lines(observed, fam_all, val_all, robust) if projective
                             else fit_affine_correction(start, observed, fam_all, val_all, robust))
            except np.linalg.LinAlgError:
                break
        if not _sane(candidate, h) or (projective and _aspect_plausibility(candidate, image.shape) < least_aspect
                                        <= _aspect_plausibility(h, image.shape)):
            break  # a refit that makes the cells implausible is chasing wrong edges
        h = candidate
        res = _residuals(h, snap.observed, family, value)
        on_line = np.abs(res) < ON_LINE
        support = float((on_line * np.minimum(strength / ref, 1))[side_weight > 0].mean())
        _, _, px_per_cell = _normals(h, pts, family)
        error = float(np.median(np.abs(res[on_line]) * px_per_cell[on_line])) * 1.4826 if on_line.any() else float("inf")
    return Refined(h, support, error, len(pts))


def _huber(r: np.ndarray, delta: float) -> np.ndarray:
    a = np.abs(r)
    return np.where(a <= delta, 1.0, delta / np.maximum(a, 1e-12))


def _sane(h_new: np.ndarray, h_old: np.ndarray) -> bool:
    """A refit that flips or collapses the lattice is a wrong turn, not a refinement."""
    if not np.all(np.isfinite(h_new)):
        return False
    j_new = h_new[:2, :2] - np.outer(h_new[:2, 2], h_new[2, :2])
    j_old = h_old[:2, :2] - np.outer(h_old[:2, 2], h_old[2, :2])
    d_new, d_old = np.linalg.det(j_new), np.linalg.det(j_old)
    return bool(d_new * d_old > 0 and 0.5 < abs(d_new / d_old) < 2.0)


def middle_contrast(work: _Work, h: np.ndarray, cells: Sequence[Cell]) -> float:
    """How much brighter the card pixels along the cells' middle lines are than along their
    sides: the score that tells the true lattice from one shifted by a tunnel's width, or at
    half or twice the pitch. Tunnels run along a card's middle lines, the rock and the gaps
    between cards along its sides; shifted or wrongly sized lattices mix the two."""
    if not cells:
        return -1.0
    c = np.asarray(cells, float)
    band = np.linspace(-0.12, 0.12, 4)
    along = np.linspace(-0.4, 0.4, 7)
    sums = []
    for offsets in ((0.0,), (-0.5, 0.5)):
        across = (np.asarray(offsets)[:, None] + band[None, :]).ravel()
        a, t = np.meshgrid(across, along, indexing="ij")  # every (line offset, place along it)
        a, t = a.ravel()[:, None, None], t.ravel()[:, None, None]
        x_const = np.stack(np.broadcast_arrays(c[:, 0] + a, c[:, 1] + t), axis=-1)  # lines x = const
        y_const = np.stack(np.broadcast_arrays(c[:, 0] + t, c[:, 1] + a), axis=-1)  # lines y = const
        p = apply_homography(work.small_from_frame @ h, np.concatenate([x_const, y_const]).reshape(-1, 2))
        p = p.astype(np.float32)
        xs, ys = p[:, :1], p[:, 1:]
        grey = sample(work.grey, xs, ys)
        busy = sample(work.busy, xs, ys)
        sums.append(float((grey * busy).sum() / max(busy.sum(), 1e-6)))
    return sums[0] - sums[1]


def lattice_score(work: _Work, h: np.ndarray, cells: Sequence[Cell] | None = None) -> float:
    """How well a lattice explains the photo, in [0, 1]: near ``cells`` (a quick look while
    screening hypotheses) or over every cell in view (comparing refined ones).

    The product of cues that fail in different ways: sides on edges (a clear step on the
    busy cells' side lines: a lattice at half the pitch runs half its sides along tunnels,
    which have none there), pure cells (card art filling a cell or leaving it bare: a
    lattice at twice the pitch cuts through the maze's outline), bright middles (tunnels
    along the cells' middle lines: a lattice off by a tunnel's width has them at its
    sides), and, more gently, the plausibility of the cells' aspect."""
    seen = _examine(work, h, set(cells), margin=1) if cells else _examine(work, h)
    shares = np.array([v for v in seen.busy.values() if v > 0.05])
    busy = sorted(c for c, v in seen.busy.items() if v >= CARD_SHARE)
    if len(busy) < 2 or not len(shares):
        return 0.0
    if cells:
        busy = [c for c in busy if c in set(cells)] or busy
    pts, family, _, _ = _probe_points(busy)
    snap = snap_edges(work.frame, h, pts, family, 0.12)
    strong = snap.strength > np.percentile(snap.strength, 25)
    sides = float(((np.abs(snap.offset_cells) < ON_LINE) & strong).mean())
    purity = float(np.mean(1 - 2 * np.minimum(shares, 1 - shares)))
    middle = 0.85 + 0.15 * math.tanh(middle_contrast(work, h, busy) / 8.0)
    return sides * purity * _aspect_plausibility(h, work.frame.shape) * middle


# =========================================================================== occupancy


class _Work:
    """One frame prepared for the grid: the shrunk copy and its per-pixel cues, computed once.

    ``busy``: card-like local contrast (1.0) or not (0.0), on the shrunk frame, which is
    plenty for judging whole cells."""

    def __init__(self, frame: np.ndarray, width: int):
        self.frame = frame
        self.small, self.f = shrink(frame, width)
        small_gray = tbl.gray(self.small)
        texture = card_texture(small_gray)
        limit = texture_threshold(texture)
        busy = texture > limit
        busy |= _paper_white(self.small, busy)
        # the cards' soft rock on a strongly textured table: unlike the table's colour, and
        # not smooth either (glare and lamp hot spots are unlike the table too)
        self.tint = _Tint.of(self.small, busy)
        busy |= _unlike_table(self.small, busy, self.tint) & (texture > 0.4 * limit)
        self.busy = busy.astype(np.float32)
        self.grey = small_gray.astype(np.float32)
        self.small_from_frame = frame_to_small(self.f)
        ys, xs = np.nonzero(self.busy)
        h, w = self.busy.shape
        self.busy_box = ((int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())) if len(xs)
                         else (0, 0, w - 1, h - 1))
        small_density = cv2.resize(self.busy, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
        self.density = cv2.GaussianBlur(small_density, (0, 0), max(h, w) / 160)
        # lattice (its bytes) -> its busy cells: ranking the hypotheses finds each one's, and
        # growing a hypothesis begins by finding them again for the same lattice
        self.busy_cells: dict[bytes, set[Cell]] = {}

    @cached_property
    def segments(self) -> np.ndarray:
        """LSD line segments of the shrunk frame on or at the edge of card pixels (both
        local hypothesis sources use them): a striped or grained table, or the shadows of
        a blind, would otherwise outvote the card edges."""
        h, w = self.grey.shape
        seg = tbl.line_segments(tbl.gray(self.small), max(4.0, 0.01 * max(h, w)))
        mid = np.clip(np.rint((seg[:, :2] + seg[:, 2:]) / 2).astype(int), 0, [w - 1, h - 1])
        near_card = cv2.dilate(self.busy, np.ones((3, 3), np.uint8))
        return seg[near_card[mid[:, 1], mid[:, 0]] > 0.5]

    @cached_property
    def directions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``_card_directions`` of this frame (two hypothesis sources use them)."""
        return _card_directions(self)


# CIE Lab by hand (sRGB, D65), as OpenCV's conversion computes it: OpenCV builds tables
# for it on its first call, 0.07 s of a cold photo. The sRGB curve per 8-bit value, and
# the rows of the sRGB-to-XYZ matrix with X and Z divided by the white point's.
_SRGB = np.arange(256) / 255
_LINEAR = np.where(_SRGB <= 0.04045, _SRGB / 12.92, ((_SRGB + 0.055) / 1.055) ** 2.4).astype(np.float32)
_XYZ = (np.array([[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
                  [0.019334, 0.119193, 0.950227]]) / [[0.950456], [1.0], [1.088754]]).tolist()


def _lab_f(rgb: list[np.ndarray], row: int) -> np.ndarray:
    """Lab's f of X, Y or Z (``row`` 0, 1, 2) of linear sRGB planes: L = 116 f(Y) - 16,
    a = 500 (f(X) - f(Y)), b = 200 (f(Y) - f(Z))."""
    t = sum(k * c for k, c in zip(_XYZ[row], rgb))
    return np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)


def _paper_white(small: np.ndarray, busy: np.ndarray) -> np.ndarray:
    """Tunnel floors: the whitest, least coloured pixels of the card art (Lab lightness
    near the card art's brightest, chroma under 14). Wide floors are flat, so local
    contrast alone would call them table. Left out when the table itself is that white
    (judged on the frame's border, which is mostly table), and so is a white patch not
    walled by card art (``_walled``): a pale stretch of table under a lamp."""
    if busy.sum() < 50:
        return np.zeros_like(busy)
    rgb = [cv2.LUT(c, _LINEAR) for c in cv2.split(small)[::-1]]
    fy = _lab_f(rgb, 1)
    light = 116 * fy - 16
    bright = light >= 0.92 * float(np.percentile(light[busy], 85))
    # the chroma only where it matters: a and b from X and Z of the bright pixels
    rgb = [c[bright] for c in rgb]
    fx, fz = _lab_f(rgb, 0), _lab_f(rgb, 2)
    white = np.zeros_like(bright)
    white[bright] = np.hypot(500 * (fx - fy[bright]), 200 * (fy[bright] - fz)) < 14
    h, w = white.shape
    b = max(2, int(0.04 * min(h, w)))
    ring = np.concatenate([white[:b].ravel(), white[-b:].ravel(), white[:, :b].ravel(), white[:, -b:].ravel()])
    return _walled(white & ~busy, busy) if ring.mean() < 0.15 else np.zeros_like(busy)


def _walled(patches: np.ndarray, busy: np.ndarray, least: float = 0.5) -> np.ndarray:
    """The connected patches whose outline (the pixels just round each) lies at least
    ``least`` on ``busy`` pixels. A tunnel floor is walled by the card's rock, whose
    texture also bleeds onto the floor's edge: its outline is nearly all busy (over 0.8 on
    the bench photos), except where the tunnel leaves the card. A pale stretch of table
    lit by a lamp is bordered by table: near 0."""
    n, labels = cv2.connectedComponents(patches.astype(np.uint8), connectivity=8)
    if n <= 1:
        return patches
    # float32 labels: dilation takes no int32 (and labels stay exact far beyond any count here)
    grown = cv2.dilate(labels.astype(np.float32), np.ones((3, 3), np.uint8)).astype(np.int32)
    outline = (grown > 0) & ~patches
    around = np.bincount(grown[outline], minlength=n)
    on_busy = np.bincount(grown[outline], weights=busy[outline], minlength=n)
    keep = on_busy >= least * np.maximum(around, 1)
    keep[0] = False
    return keep[labels]


def _chromaticity(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's blue and green shares of its channels' sum (``image``: BGR, rows x
    columns, or pixels x 1): blind to shadows and lamp gradients, which scale all three
    channels."""
    # one plane per channel: numpy's sums, norms and medians over a short last axis are
    # several times slower, and this runs on every frame the grid judges
    blue, green, red = (c.astype(np.float32) + 1.0 for c in cv2.split(image))
    total = blue + green + red
    return blue / total, green / total


TINT_OUTLIER = 4.0  # a border pixel this many times the 90th percentile distance off the table's tint is no table


@dataclass(frozen=True)
class _Tint:
    """The table's chromaticity, judged on the frame's border (mostly table), and how far
    the table's own pixels stray from it there."""

    blue: float
    green: float
    spread: float  # the border's 98th percentile distance
    # the same without what lies far off the tint: an arm or a loose card reaching across
    # the border, whose pixels would widen the spread until a hand passed for table (drawn
    # bench photo 150: an arm over 6 % of the border, 0.31 with it and 0.02 without)
    core_spread: float

    @staticmethod
    def of(small: np.ndarray, busy: np.ndarray) -> _Tint | None:
        """The tint of the table round ``small``'s border where it is not ``busy``; None
        with too little of it to judge."""
        h, w = busy.shape
        b = max(2, int(0.06 * min(h, w)))
        ring = np.zeros((h, w), bool)
        ring[:b], ring[-b:], ring[:, :b], ring[:, -b:] = True, True, True, True
        ring &= ~busy
        if ring.sum() < 50:
            return None
        blue, green = _chromaticity(small[ring][:, None])
        tint = _Tint(float(np.median(blue)), float(np.median(green)), 0.0, 0.0)
        distance = tint._distance(blue, green)
        near = distance <= TINT_OUTLIER * np.percentile(distance, 90)
        return replace(tint, spread=float(np.percentile(distance, 98)),
                       core_spread=float(np.percentile(distance[near], 98)))

    def _distance(self, blue: np.ndarray, green: np.ndarray) -> np.ndarray:
        d_blue, d_green = blue - self.blue, green - self.green
        return np.sqrt(d_blue * d_blue + d_green * d_green)

    def unlike(self, image: np.ndarray, core: bool = False) -> np.ndarray:
        """Pixels of ``image`` whose chromaticity lies well outside the table's: its whole
        border's, or with ``core`` (for skin), the border's but for what lies far off it.
        (The card-colour cue keeps the whole border's: with the core's, a textured table's
        own pixels counted as card, and a drawn bench photo's lattice was lost.)"""
        spread = self.core_spread if core else self.spread
        return self._distance(*_chromaticity(image)) > 1.5 * spread + 0.01


def _unlike_table(small: np.ndarray, busy: np.ndarray, tint: _Tint | None) -> np.ndarray:
    """Pixels whose chromaticity lies well outside the table's (``tint``): the cards'
    blue-grey rock on a coloured cloth. Where the table is itself strongly textured
    (grain, stripes of shadow), local contrast is measured against it and the cards' soft
    watercolour rock falls below; its colour still tells it apart. On a table of the
    rock's own colour this finds nothing, and changes nothing. Skin's hue is left out."""
    if tint is None:
        return np.zeros_like(busy)
    # a hand is unlike the table too, but it must stay smooth skin for the occlusion test
    return tint.unlike(small) & ~_skin_hue(small)


@dataclass(frozen=True, eq=False)
class _Mosaic:
    """The cells x0..x0+cols-1, y1-rows+1..y1 resampled on a lattice-aligned grid, each cell a
    (cw, ch) block (north up), with per-cell statistics."""

    busy: np.ndarray  # (rows, ch, cols, cw) share of busy pixels
    image: np.ndarray | None  # (rows * ch, cols * cw, 3) BGR, when colour was asked for
    x0: int
    y1: int
    tint: _Tint | None = None  # the table's

    @cached_property
    def skin(self) -> np.ndarray:
        """(rows * ch, cols * cw) pixels of skin's hue in ``image`` (smooth skin and arms),
        but for those of the table's own tint: a wood or red table can share skin's hue,
        rarely its tint (each channel's share of the sum, which lightness does not change)."""
        skin = _skin_hue(self.image)
        if self.tint is not None and skin.any():  # a grey photo has none
            skin[skin] = self.tint.unlike(self.image[skin][:, None], core=True)[:, 0]
        return skin

    def index(self, cell: Cell) -> tuple[int, int]:
        return self.y1 - cell[1], cell[0] - self.x0

    def inside(self, cell: Cell) -> bool:
        r, c = self.index(cell)
        return 0 <= r < self.busy.shape[0] and 0 <= c < self.busy.shape[2]

    def share(self, arr4: np.ndarray, cell: Cell, rows=(0.15, 0.85), cols=(0.15, 0.85)) -> float:
        """Mean of a (rows, ch, cols, cw) array over a sub-rectangle of one cell (fractions)."""
        r, c = self.index(cell)
        ch, cw = arr4.shape[1], arr4.shape[3]
        block = arr4[r, int(rows[0] * ch):int(rows[1] * ch), c, int(cols[0] * cw):int(cols[1] * cw)]
        return float(block.mean()) if block.size else 0.0


def _mosaic(work: _Work, frame_from_maze: np.ndarray, x0: int, x1: int, y0: int, y1: int,
            cell_px: tuple[int, int] = MOSAIC_CELL, colour: bool = False) -> _Mosaic:
    cw, ch = cell_px
    cols, rows = x1 - x0 + 1, y1 - y0 + 1
    # mosaic pixel (u, v) -> cell coordinates: x = x0 - 0.5 + (u + 0.5)/cw, y = y1 + 0.5 - (v + 0.5)/ch
    mosaic_to_maze = np.array([[1 / cw, 0, x0 - 0.5 + 0.5 / cw], [0, -1 / ch, y1 + 0.5 - 0.5 / ch], [0, 0, 1.0]])
    m = work.small_from_frame @ frame_from_maze @ mosaic_to_maze
    size = (cols * cw, rows * ch)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    busy = cv2.warpPerspective(work.busy, m, size, flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    image = cv2.warpPerspective(work.small, m, size, flags=flags, borderMode=cv2.BORDER_REPLICATE) if colour else None
    return _Mosaic(busy.reshape(rows, ch, cols, cw), image, x0, y1, work.tint)


def _cell_shares(mosaic: _Mosaic) -> np.ndarray:
    """(rows, cols) share of busy pixels in each cell's inner part (clear of the neighbours'
    overhang, a card being up to 3 mm off its place)."""
    ch, cw = mosaic.busy.shape[1], mosaic.busy.shape[3]
    inner = mosaic.busy[:, int(0.15 * ch):int(0.85 * ch), :, int(0.15 * cw):int(0.85 * cw)]
    return inner.mean(axis=(1, 3))


def _skin_shares(mosaic: _Mosaic) -> np.ndarray:
    """(rows, cols) share of smooth skin-coloured pixels per cell. Skin's hue in YCrCb, and
    smooth: the orange goal backs and wood share the hue, but are carved or grained."""
    if mosaic.image is None:
        return np.zeros((mosaic.busy.shape[0], mosaic.busy.shape[2]))
    skin = mosaic.skin.astype(np.float32)
    rows, ch, cols, cw = mosaic.busy.shape
    smooth = 1.0 - mosaic.busy
    return (skin.reshape(rows, ch, cols, cw) * smooth).mean(axis=(1, 3))


def _skin_hue(image: np.ndarray) -> np.ndarray:
    """Pixels of skin's hue (YCrCb), of any lightness but the darkest."""
    # 40 < Y, 138 < Cr < 172, 92 < Cb < 122
    return cv2.inRange(cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb), (41, 139, 93), (255, 171, 121)) > 0


def _is_crosswise(mosaic: _Mosaic, cell: Cell, occupied: set[Cell], bleed: float) -> bool:
    """A card across the cell. Crosswise, a card is 88 mm wide in a 58 mm cell: it reaches a
    quarter of a cell into the east and west neighbours, where a laid card never does; and
    it spans only 57 of the cell's 89 mm, so with no card north or south the cell's ends
    show the table. A busy middle band and either sign, with the other not against it."""
    b = mosaic.busy
    if mosaic.share(b, cell, rows=(0.32, 0.68), cols=(0.1, 0.9)) < 0.6:
        return False
    x, y = cell
    hits = misses = 0
    near, far = bleed + 0.06, 0.25  # past a laid card's bleed and jitter, within the overhang
    for side in (-1, 1) if far - near >= 0.05 else ():
        n = (x + side, y)
        if n in occupied or not mosaic.inside(n):
            continue  # a card there hides whether the crosswise one reaches over
        spill = mosaic.share(b, n, rows=(0.4, 0.6), cols=(near, far) if side > 0 else (1 - far, 1 - near))
        hits += spill > 0.6
        misses += spill < 0.25
    ends_bare = ends_busy = False
    edge = 0.5 - 0.32 - 0.64 * bleed - 0.03
    if edge >= 0.04 and all((x, y + d) not in occupied and mosaic.inside((x, y + d)) for d in (-1, 1)):
        ends = (mosaic.share(b, cell, rows=(0.0, edge), cols=(0.2, 0.8))
                + mosaic.share(b, cell, rows=(1 - edge, 1.0), cols=(0.2, 0.8))) / 2
        ends_bare, ends_busy = ends < 0.2, ends > 0.5
    if ends_busy:
        return False
    return bool((hits and not misses) or (hits and ends_bare) or (ends_bare and not misses))


def _components(cells: set[Cell]) -> list[set[Cell]]:
    seen: set[Cell] = set()
    groups = []
    for start in sorted(cells):
        if start in seen:
            continue
        group, stack = set(), [start]
        seen.add(start)
        while stack:
            x, y = stack.pop()
            group.add((x, y))
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in cells and n not in seen:
                    seen.add(n)
                    stack.append(n)
        groups.append(group)
    return sorted(groups, key=lambda g: (-len(g), min(g)))


def _lies_on_cell(mosaic: _Mosaic, cell: Cell, bleed: float, busy: set[Cell] = frozenset()) -> bool:
    """Whether a lone card lies on the cell as a laid card does: card art fills the cell
    out to its corners, and none spills past its sides (beyond ``bleed`` cells, how far the
    texture measure reaches past an edge). A loose card at a random angle leaves the corners
    bare and pokes out at the sides; a pile or a hand is bigger."""
    b = mosaic.busy
    inner = mosaic.share(b, cell, rows=(0.15, 0.85), cols=(0.15, 0.85))
    corners = [mosaic.share(b, cell, rows=r, cols=c) for r in ((0.06, 0.2), (0.8, 0.94))
               for c in ((0.06, 0.26), (0.74, 0.94))]
    near, far = bleed + 0.08, bleed + 0.25
    x, y = cell
    spills = []
    for n, rows, cols in (((x - 1, y), (0.2, 0.8), (1 - far, 1 - near)), ((x + 1, y), (0.2, 0.8), (near, far)),
                          ((x, y + 1), (1 - far, 1 - near), (0.2, 0.8)), ((x, y - 1), (near, far), (0.2, 0.8))):
        if mosaic.inside(n) and n not in busy:  # a card next door hides any spill
            spills.append(mosaic.share(b, n, rows=rows, cols=cols))
    return bool(inner > 0.7 and min(corners) > 0.5 and (not spills or max(spills) < 0.3))


@dataclass(frozen=True)
class _Blob:
    """A card-like blob measured in cell units: its turn against the lattice (deg), its
    extent along x and y (cells), and its centre (cell coordinates)."""

    angle: float
    extent: np.ndarray
    centre: np.ndarray


class _Blobs:
    """The busy mask's connected blobs, each measured (once) against one lattice."""

    def __init__(self, work: _Work, h: np.ndarray):
        _, self.labels, self.boxes, _ = cv2.connectedComponentsWithStats(
            (work.busy > 0.5).astype(np.uint8), connectivity=8)
        self.small_from_maze = work.small_from_frame @ h
        self._measured: dict[int, _Blob | None] = {}

    def at(self, cell: Cell) -> _Blob | None:
        """The blob under the cell's centre, if any."""
        x, y = np.round(apply_homography(self.small_from_maze, [cell])[0]).astype(int)
        if not (0 <= y < self.labels.shape[0] and 0 <= x < self.labels.shape[1]) or self.labels[y, x] == 0:
            return None
        label = int(self.labels[y, x])
        if label not in self._measured:
            self._measured[label] = self._measure(label)
        return self._measured[label]

    def _measure(self, label: int) -> _Blob | None:
        bx, by, bw, bh = self.boxes[label, :4]
        ys, xs = np.nonzero(self.labels[by:by + bh, bx:bx + bw] == label)
        if len(xs) < 20:
            return None
        in_cells = apply_homography(np.linalg.inv(self.small_from_maze), np.c_[xs + bx, ys + by].astype(float))
        # the turn in millimetres (cells are 58 x 89 mm), folded into -45..45 degrees
        (_, _), (_, _), angle = cv2.minAreaRect((in_cells * PITCH_MM).astype(np.float32))
        lo, hi = in_cells.min(0), in_cells.max(0)
        return _Blob(float((angle + 45) % 90 - 45), hi - lo, (lo + hi) / 2)


def _square_card(blob: _Blob | None, cell: Cell, bleed: float, max_angle: float, max_offset: float) -> bool:
    """A blob that is one card, turned at most ``max_angle`` and centred within
    ``max_offset`` cells of ``cell`` (its extent includes the busy mask's bleed)."""
    if blob is None:
        return False
    size_ok = np.all(np.abs(blob.extent - 1 - 2 * bleed) < 0.2)
    return bool(abs(blob.angle) < max_angle and size_ok and np.all(np.abs(blob.centre - cell) < max_offset))


def _lone_card_centres(work: _Work, h: np.ndarray, cells: set[Cell]) -> dict[Cell, np.ndarray]:
    """Lone busy cells whose blob is a card lying square to the lattice, wherever exactly:
    cell -> the blob's centre in frame pixels. The lattice is only extrapolated out there
    (the goals lie 8 cells from the start), so the blob is measured, not the cell."""
    blobs = _Blobs(work, h)
    found = {}
    for cell in cells:
        blob = blobs.at(cell)
        if _square_card(blob, cell, _bleed(work, h, cell), max_angle=5.0, max_offset=0.4):
            found[cell] = apply_homography(h, [blob.centre])[0]
    return found


def lone_card_centres(frame: np.ndarray, lattice: Lattice, cells: Collection[Cell]) -> dict[Cell, np.ndarray]:
    """``_lone_card_centres`` of these cells of the lattice in the frame: where (pixels) the
    cards lie of those whose busy blob is one card alone, lying square (goal cards apart from
    the maze), to a hundredth of a cell where crops shifted about read it to a twentieth."""
    work = _Work(frame, _working_width(frame.shape[1], lattice.cell_size_px(), tbl.WORK_WIDTH))
    return _lone_card_centres(work, lattice.image_from_maze, set(cells))


@dataclass(frozen=True, eq=False)
class _Cells:
    """What the mosaic says about each cell in view: busy share, skin share."""

    mosaic: _Mosaic
    busy: dict[Cell, float]
    skin: dict[Cell, float]


def _examine(work: _Work, frame_from_maze: np.ndarray, around: set[Cell] | None = None,
             margin: int = 2, reach: int = 40, colour: bool = False,
             cell_px: tuple[int, int] = (8, 12)) -> _Cells:
    """Busy (and, with ``colour``, skin) shares of the cells whose centres fall in the frame
    near the busy part of the picture (at most ``reach`` cells out), or of those within
    ``margin`` cells of ``around``. ``cell_px``: mosaic pixels per cell (coarse is enough to
    compare hypotheses; judging a lattice uses MOSAIC_CELL)."""
    h, w = work.small.shape[:2]
    small_from_maze = work.small_from_frame @ frame_from_maze
    if around:
        xs = [c[0] for c in around]
        ys = [c[1] for c in around]
        lo = np.array([min(xs) - margin, min(ys) - margin])
        hi = np.array([max(xs) + margin, max(ys) + margin])
    else:
        bx0, by0, bx1, by1 = work.busy_box
        corners = apply_homography(np.linalg.inv(small_from_maze), [(bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1)])
        if not np.all(np.isfinite(corners)):
            return _Cells(_mosaic(work, frame_from_maze, 0, 0, 0, 0, cell_px), {}, {})
        lo = np.maximum(np.floor(corners.min(0)).astype(int) - 1, -reach)
        hi = np.minimum(np.ceil(corners.max(0)).astype(int) + 1, reach)
    x0, x1, y0, y1 = int(lo[0]), int(hi[0]), int(lo[1]), int(hi[1])
    if (x1 - x0 + 1) * cell_px[0] > 4000 or (y1 - y0 + 1) * cell_px[1] > 4000 or x1 < x0 or y1 < y0:
        return _Cells(_mosaic(work, frame_from_maze, 0, 0, 0, 0, cell_px), {}, {})  # a degenerate lattice
    mosaic = _mosaic(work, frame_from_maze, x0, x1, y0, y1, cell_px, colour)
    shares, skins = _cell_shares(mosaic), _skin_shares(mosaic)
    xs, ys = np.meshgrid(np.arange(x0, x1 + 1), np.arange(y1, y0 - 1, -1))  # rows run south
    centres = np.c_[xs.ravel(), ys.ravel()].astype(float)
    pix = apply_homography(small_from_maze, centres)
    inside = ((pix[:, 0] >= 0) & (pix[:, 0] < w) & (pix[:, 1] >= 0) & (pix[:, 1] < h)).reshape(xs.shape)
    rows, cols = np.nonzero(inside)
    cells = list(zip(xs[rows, cols].tolist(), ys[rows, cols].tolist()))
    return _Cells(mosaic, dict(zip(cells, shares[rows, cols].tolist())), dict(zip(cells, skins[rows, cols].tolist())))


# =========================================================================== fitting

# Besides the table stage's pitch, its likely harmonics are tried: a comb of card edges
# is hard to tell from one at half or twice the pitch until cells are checked.
SCALE_TRIALS = (1.0, 0.5, 2 / 3, 1.5, 2.0)
KEEP_HYPOTHESES = 6
# Pitches tried around each size guess, per axis on its own: tilted cameras foreshorten
# one side of a card by up to a quarter, and lone cards far from the maze look smaller.
PITCH_TRIALS = np.exp(np.linspace(math.log(0.78), math.log(1.28), 12))
# Card aspect (long/short) in a photo: the pitch ratio, give or take the foreshortening
# of a camera tilted up to 25 degrees.
IMAGE_RATIO = (1.3, 1.8)


def _other_hypotheses(plane: TablePlane | None, work: _Work) -> list[np.ndarray]:
    """Lattices (cell coordinates -> frame pixels) from the sources that find the lattice on
    fewer photos than ``_local_hypotheses``: folding the edges round the busiest spot by the
    brightness of the cells' middle lines, and the table stage's plane (its pitch and likely
    harmonics, both ways round)."""
    return _fold_hypotheses(work) + (_plane_hypotheses(plane) if plane is not None else [])


_Scored = tuple[float, np.ndarray, list[Cell]]  # (score near the seed, hypothesis, busy cells there)


def _scored(work: _Work, candidates: list[np.ndarray]) -> list[_Scored]:
    """Each candidate with its edge score on the busy cells near its seed (those with two
    such cells at least)."""
    scored = []
    for h in candidates:
        near = _seed_cells(work, h, reach=2.5)
        if len(near) >= 2:
            scored.append((lattice_score(work, h, near), h, near))
    return scored


def _best_scored(scored: list[_Scored], sized: Callable[[np.ndarray, list[Cell]], bool] | None = None,
                 strict: bool = False) -> list[np.ndarray]:
    """The KEEP_HYPOTHESES best scored hypotheses, of those ``sized(h, cells)`` passes when it
    passes any (``strict``: only those, or none)."""
    if sized is not None:
        passing = [t for t in scored if sized(t[1], t[2])]
        scored = passing if passing or strict else scored
    return [h for _, h, _ in sorted(scored, key=lambda t: -t[0])[:KEEP_HYPOTHESES]]


# On a calibrated plane a lattice's pitch is measured in millimetres: the cards' own and a
# gap of 0 to 2 mm. A hypothesis, before it is grown and refined, may be a tenth off and
# sheared (the edge score alone had kept six 14 to 29 % too small, parts of cards, over one
# of the right size); a fitted lattice lies within a few percent (the calibration's own error
# on a maze away from the sheet) and a degree or two. (pitch slack, shear in degrees)
HYPOTHESIS_SIZE_SLACK = (0.1, 8.0)
FITTED_SIZE_SLACK = (0.05, 3.0)


def _size_error(plane: TablePlane, h: np.ndarray, cells: Collection[Cell]) -> tuple[float, float]:
    """How far the lattice's cells, in the middle of ``cells``, are from the cards' size on
    the calibrated table (the larger share a side is off by) and from square (degrees)."""
    middle = np.mean(np.array(list(cells), float), axis=0)
    o, x, y = plane.to_plane(apply_homography(h, [middle, middle + (1, 0), middle + (0, 1)]))
    a, b = x - o, y - o
    sides = sorted((float(np.linalg.norm(a)), float(np.linalg.norm(b))))
    skew = min(1.0, abs(float(a @ b)) / max(sides[0] * sides[1], 1e-9))
    return max(abs(side / pitch - 1) for side, pitch in zip(sides, PITCH_MM)), math.degrees(math.asin(skew))


def _card_sized(plane: TablePlane, h: np.ndarray, cells: Collection[Cell],
                slack: tuple[float, float] = HYPOTHESIS_SIZE_SLACK) -> bool:
    pitch, shear = _size_error(plane, h, cells)
    return pitch <= slack[0] and shear <= slack[1]


def _plane_hypotheses(plane: TablePlane) -> list[np.ndarray]:
    view = plane.view
    seg = tbl.line_segments(tbl.gray(view.image), 5.0)
    if len(seg) < 6:
        return []
    view_turn = np.eye(3)
    if not plane.cards_aligned:
        view_turn, seg = _align_view_to_cards(seg)
    events = tbl.edge_events(seg)
    frame_from_view = np.linalg.inv(view_turn @ view.plane_to_view @ plane.image_to_plane)
    nominal = PITCH_MM[0] * view.px_per_mm
    out = []
    for k in SCALE_TRIALS:
        for long_axis in ("v", "u"):
            p = tbl.find_periodicity(events, nominal * k, long_axis, slack=0.12)
            if p.score > 0:
                out.append(frame_from_view @ _view_from_cells(p))
    return out


def _local_hypotheses(work: _Work, directions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                      ) -> list[np.ndarray]:
    """Hypotheses from the shrunk frame around the busiest spot (where the maze is), where
    the perspective is negligible: the card edges there give both directions (or they are
    given: the seed and the directions); every card size and phase is tried on a picture
    resampled along them (``_LocalPatch``)."""
    directions = directions or work.directions
    if directions is None:
        return []
    seed, d1, d2 = directions
    h, w = work.grey.shape
    patch = _LocalPatch(work, seed, d1, d2, LOCAL_RADIUS * max(h, w))
    frame = np.array([[d1[0], d2[0], seed[0]], [d1[1], d2[1], seed[1]], [0, 0, 1.0]])
    big = np.linalg.inv(work.small_from_frame) @ frame
    return [big @ _view_from_cells(p) for p in patch.periodicities()]


# How far apart (degrees) two card-edge directions at the maze's seed may be. The whole
# photo's range (tbl.FAMILY_ANGLE_RANGE_DEG, 62-118) allows for a wide lens's corners;
# a card's own sides meet within 15.2 degrees of square on every card of 120 drawn bench
# photos (1080p and 4:3, a 25 degree tilt), while the pairs that misled the grid on the
# 4:3 photos without a maze (an arm, a striped table's grain) were 19 to 33 degrees off.
SEED_ANGLE_RANGE_DEG = (74.0, 106.0)


def _seed_direction_pairs(segments: np.ndarray, count: int) -> list[tuple[float, float, float]]:
    """``tbl.direction_pairs`` SEED_ANGLE_RANGE_DEG apart once their directions are refined
    (a pair at the range's edge is drawn outside it by a heavier family next to it), or, if
    none is, as they come."""
    lo, hi = SEED_ANGLE_RANGE_DEG
    pairs = tbl.direction_pairs(segments, count + 3, within=SEED_ANGLE_RANGE_DEG)
    square = [p for p in pairs if lo <= (p[1] - p[0]) % 180 <= hi]
    return (square or pairs)[:count]


def _card_directions(work: _Work) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The busiest spot of the shrunk frame and the two card-edge directions there (unit
    vectors, a right-handed pair on the picture), or None when too few edges show."""
    seed, around = _segments_around_seed(work)
    if len(around) < 8:
        return None
    a1, a2, _ = _seed_direction_pairs(around, 1)[0]
    return (seed, *_direction_vectors(_EdgeDisc(work, seed), a1, a2))


def _segments_around_seed(work: _Work) -> tuple[np.ndarray, np.ndarray]:
    """The busiest spot of the shrunk frame, and the line segments within a quarter of the
    frame's long side of it."""
    h, w = work.grey.shape
    seed, seg, dist = _seed_segments(work)
    return seed, seg[dist < max(h, w) / 4]


def _direction_vectors(disc: _EdgeDisc, a1: float, a2: float) -> tuple[np.ndarray, np.ndarray]:
    """Two card-edge directions (degrees) straightened on ``disc``, as unit vectors of a
    right-handed pair on the picture."""
    d1, d2 = (_unit(_straighten(disc, a)) for a in (a1, a2))
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:
        d2 = -d2
    return d1, d2


# Other card-edge direction pairs at the seed tried when no lattice along the first reads
# well: the next pairs of the segments' directions, and the pair along which the card
# pixels' edge energy lines up most sharply (cards in rows put their sides on common lines).
OTHER_PAIRS = 2
PAIRS_APART_DEG = 3.0  # straightened pairs nearer than this to one tried already are not tried again


def _other_directions(work: _Work) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Card-edge direction pairs at the seed besides ``work.directions`` (as it gives
    them): among few small cards a long arm, a seam or a striped table's grain can outvote
    one of the card sides in the segments' directions (nine of the 13 drawn bench photos
    at 4:3 without a maze or framed off had one direction 8 to 40 degrees off)."""
    if work.directions is None:
        return []
    seed, around = _segments_around_seed(work)
    disc = _EdgeDisc(work, seed)
    candidates = [(a1, a2) for a1, a2, _ in _seed_direction_pairs(around, 1 + OTHER_PAIRS)[1:]]
    candidates.append(_sharpest_pair(disc))
    _, d1, d2 = work.directions
    tried = [(d1, d2)]
    out = []
    for a1, a2 in candidates:
        e1, e2 = _direction_vectors(disc, a1, a2)
        if not any(tbl.near_pair(_degrees(e1, e2), _degrees(*t), PAIRS_APART_DEG) for t in tried):
            tried.append((e1, e2))
            out.append((seed, e1, e2))
    return out


def _degrees(*vectors: np.ndarray) -> tuple[float, ...]:
    return tuple(math.degrees(math.atan2(v[1], v[0])) % 180.0 for v in vectors)


def _sharpest_pair(disc: _EdgeDisc) -> tuple[float, float]:
    """The pair of directions (degrees, about a right angle apart) along both of which the
    edge energy lines up most sharply, to a degree."""
    spectrum = np.array([disc.sharpness(a) for a in range(180)])
    # within ten degrees of square (a camera tilted 25 degrees bends a card's corners a few):
    # the lattice's diagonals (a row of corners a card across and five along) line up too
    second = (np.arange(180)[:, None] + np.arange(80, 101)[None, :]) % 180
    i, j = np.unravel_index(int(np.argmax(spectrum[:, None] * spectrum[second])), second.shape)
    return float(i), float(second[i, j])


# Card sizes (the short side, frame pixels) and phases (cells, across and along) that
# _reading_hypotheses tries: steps the classifier's tolerance of a crop off its card
# (about a fifth of a cell across, a tenth along) covers.
READ_SIZES = np.exp(np.linspace(math.log(18.0), math.log(160.0), 23))
READ_PHASES = tuple((px, py) for px in (0.0, 1 / 3, 2 / 3) for py in (0.0, 0.25, 0.5, 0.75))
READ_KEEP = 3
READ_SPOTS = 3  # busy spots tried in turn: a hand over the maze is busy too
READ_RING = frozenset((x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)) - {(0, 0)}  # round the seed's cell
# Card aspects (of PITCH_RATIO) tried where the aspect sets a pitch: a camera tilted up to
# 25 degrees foreshortens a card's long side or its short one by up to a sixth or so.
FORESHORTENING = (1.0, 0.85, 1.18)
# A lattice's variants also try the long side foreshortened by a quarter: toward the edge of
# a wide lens's view the rays meet the table more steeply still (a bench photo tilted 24
# degrees shows cards from 1.15 to 1.55 long for 1 wide). Reading alone does not: there it
# found wrong lattices on two drawn bench photos, which their variants had read rightly.
VARIANT_FORESHORTENING = FORESHORTENING + (0.75,)
# Card-edge directions further than this from square are each also tried squared to the other.
SQUARE_WITHIN_DEG = 5.0


def _reading_hypotheses(work: _Work, frame: np.ndarray, reads_cards: CardCheck) -> list[np.ndarray]:
    """Lattices found by reading, for a photo whose edges mislead every other hypothesis:
    along the card-edge directions at the seed, every card size (the long side from the
    card's aspect, or foreshortened) and phase, each way round, is read at the seed's
    cell; those that read a card there are read on the eight cells round it too, and the
    best READ_KEEP kept (the first found of equals; four neighbours alone tie too often).
    Where none is found, the next busiest spot is tried (a hand over the maze is busy too).

    One of the two directions can be wrong (a long tunnel wall or a diagonal run of card
    corners outvoting a card side among few small cards): unless they are square already,
    each is also tried with the other squared to it (a camera tilted up to 25 degrees
    bends a card's right angles by a few degrees at most)."""
    directions = work.directions
    if directions is None:
        return []
    _, d1, d2 = directions
    pairs = [(d1, d2)]
    if abs(float(d1 @ d2)) > math.sin(math.radians(SQUARE_WITHIN_DEG)):
        pairs += [(d1, np.array([-d1[1], d1[0]])), (np.array([d2[1], -d2[0]]), d2)]
    for seed in _busy_spots(work, READ_SPOTS):  # the next spot only where nothing reads at this one
        if found := _lattices_read_at(seed, pairs, frame, reads_cards):
            return found
    return []


def _centred_on_seed(frame: np.ndarray, h: np.ndarray, locates_cards: CardFinder) -> np.ndarray:
    """A lattice found by reading (``_reading_hypotheses``, its seed on cell (0, 0)) refitted
    on where the cards of its seed's cell and the eight round it lie. Its card size is one
    of READ_SIZES, up to 5 % off the cards', and its aspect one of FORESHORTENING: growth
    holds the seed patch's spacing, so that error is half a card four cells out, where the
    edges it snaps to are the wrong ones."""
    seed = Lattice(h, (frame.shape[1], frame.shape[0]), READ_RING | {(0, 0)})
    return fit_to_centres(seed, locates_cards(frame, seed, sorted(seed.cells))).image_from_maze


def _lattices_read_at(seed: np.ndarray, pairs, frame: np.ndarray, reads_cards: CardCheck) -> list[np.ndarray]:
    """``_reading_hypotheses`` at one spot (frame pixels), along these pairs of card-edge
    directions: the best READ_KEEP lattices that read a card there and on half the ring."""
    size = (frame.shape[1], frame.shape[0])
    trials = []
    for (a1, a2), ratio, short in itertools.product(pairs, FORESHORTENING, READ_SIZES):
        for across, along in ((a1, a2), (a2, -a1)):
            x_axis, y_axis = across * short, -along * short * PITCH_RATIO * ratio
            for px, py in READ_PHASES:
                origin = seed + px * x_axis + py * y_axis
                trials.append(np.array([[x_axis[0], y_axis[0], origin[0]], [x_axis[1], y_axis[1], origin[1]],
                                        [0, 0, 1.0]]))
    at_seed = reads_cards(frame, [Lattice(h, size, frozenset({(0, 0)})) for h in trials])
    hits = [h for h, share in zip(trials, at_seed) if share > 0]
    shares = reads_cards(frame, [Lattice(h, size, READ_RING) for h in hits])
    best = sorted(range(len(hits)), key=lambda i: -shares[i])[:READ_KEEP]  # a stable sort: the first of equals
    return [hits[i] for i in best if shares[i] >= 0.5]


def _seed_segments(work: _Work) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The busiest spot in the shrunk frame, the frame's line segments, and how far each
    segment's middle lies from that spot."""
    seed = apply_homography(work.small_from_frame, [_seed_px(work)])[0]
    seg = work.segments
    mid = (seg[:, :2] + seg[:, 2:]) / 2
    return seed, seg, np.hypot(mid[:, 0] - seed[0], mid[:, 1] - seed[1])


def _seed_px(work: _Work) -> np.ndarray:
    """The busiest spot of the picture (where the maze is), in frame pixels."""
    return _busy_spots(work, 1)[0]


def _busy_spots(work: _Work, count: int) -> list[np.ndarray]:
    """Up to ``count`` busy spots of the picture (frame pixels), busiest first, each a
    twentieth of the picture's width or more from the others and half as busy as the
    first or more: more places on the maze, should the busiest be a hand over it."""
    h, w = work.busy.shape
    density = work.density.copy()
    dh, dw = density.shape
    apart = max(1, dw // 20)
    spots = []
    while len(spots) < count:
        dy, dx = np.unravel_index(int(np.argmax(density)), density.shape)
        if spots and density[dy, dx] < 0.5 * work.density.max():
            break
        spots.append(((dx + 0.5) * w / dw, (dy + 0.5) * h / dh))
        density[max(0, dy - apart):dy + apart + 1, max(0, dx - apart):dx + apart + 1] = 0.0
    return list(apply_homography(np.linalg.inv(work.small_from_frame), spots))


class _EdgeDisc:
    """The edge energy of the card pixels within LOCAL_REACH of ``seed`` (shrunk pixels),
    for judging how sharply it lines up along a direction."""

    def __init__(self, work: _Work, seed: np.ndarray):
        h, w = work.grey.shape
        r = self.r = int(LOCAL_REACH)
        x0, x1 = max(0, int(seed[0]) - r), min(w, int(seed[0]) + r + 1)
        y0, y1 = max(0, int(seed[1]) - r), min(h, int(seed[1]) + r + 1)
        grey = work.grey[y0:y1, x0:x1]
        gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
        ys, xs = np.mgrid[y0:y1, x0:x1]
        x, y = (xs - seed[0]).ravel(), (ys - seed[1]).ravel()
        disc = np.hypot(x, y) < r
        self.x, self.y = x[disc], y[disc]
        busy = work.busy[y0:y1, x0:x1].ravel()[disc]
        self.gx, self.gy = gx.ravel()[disc] * busy, gy.ravel()[disc] * busy

    def sharpness(self, direction: float) -> float:
        """How concentrated the edge energy across ``direction`` (degrees) is on few lines
        along it: the squared sum of its projection profile over the squared total."""
        nx, ny = -math.sin(math.radians(direction)), math.cos(math.radians(direction))
        energy = np.abs(self.gx * nx + self.gy * ny)
        # a fine histogram, smoothed: coarse bins alias with the pixel grid and favour the axes
        profile = np.bincount(np.rint((self.x * nx + self.y * ny + self.r) * 4).astype(int), weights=energy)
        profile = cv2.GaussianBlur(profile.reshape(1, -1), (0, 0), sigmaX=3.0, sigmaY=0.1).ravel()
        return float((profile ** 2).sum() / max(profile.sum() ** 2, 1e-9))


def _straighten(disc: _EdgeDisc, direction: float) -> float:
    """The direction (degrees) near ``direction`` along which the edges of the card pixels
    of ``disc`` (within LOCAL_REACH of its seed) line up best: the one whose projection
    profile of edge energy is sharpest. Card sides and tunnel walls all run along the card
    axes; segment directions are a degree or two off (and cards lie up to three degrees
    askew), which over a few cards would shift lattice lines by a tenth of a card."""
    offsets = np.arange(-4.0, 4.01, 0.5)
    sharpness = [disc.sharpness(direction + off) for off in offsets]
    k = int(np.argmax(sharpness))
    if 0 < k < len(offsets) - 1:
        left, mid, right = sharpness[k - 1:k + 2]
        den = left - 2 * mid + right
        step = 0.5 * (left - right) / den if den < 0 else 0.0
        return direction + offsets[k] + step * 0.5
    return direction  # sharpest at the end of the range: no peak, nothing learnt


def _fold_hypotheses(work: _Work) -> list[np.ndarray]:
    """Hypotheses from the shrunk frame around the busiest spot: the card edges there give
    both directions; the card size comes from lone cards and from the commonest edge
    lengths (each with its half and double); the phase from folding the nearby edges at
    that size by the brightness of the cells' middle lines (tunnels) against their sides.
    That cue depends on the printing and the light, so it only proposes."""
    small_gray = tbl.gray(work.small)
    h, w = small_gray.shape
    seed, seg, dist = _seed_segments(work)
    around = seg[dist < max(h, w) / 4]
    if len(around) < 8:
        return []
    a1, a2, _ = _seed_direction_pairs(around, 1)[0]
    out = []
    for size_1, size_2 in _card_sizes(around, a1, a2, small_gray):
        reach = 3.5 * max(size_1, size_2)
        near = seg[dist < reach]
        if len(near) < 6:
            continue
        b1, b2, _ = _seed_direction_pairs(near, 1)[0]
        if min(abs((b1 - a1 + 90) % 180 - 90), abs((b2 - a1 + 90) % 180 - 90)) > 6:
            b1, b2 = a1, a2
        if abs((b1 - a1 + 90) % 180 - 90) > abs((b2 - a1 + 90) % 180 - 90):
            b1, b2 = b2, b1  # keep b1 the direction that size_1 measures
        hyp = _fold_local(work, seed, b1, b2, size_1, size_2)
        if hyp is not None:
            out.append(np.linalg.inv(work.small_from_frame) @ hyp)
    return out


def _card_sizes(seg: np.ndarray, a1: float, a2: float, small_gray: np.ndarray) -> list[tuple[float, float]]:
    """(pitch along a1, pitch along a2) in small pixels worth trying: from the edge lengths
    of each family (a card side each, a little short of the corners), from lone cards
    (either way round), and the halves and doubles of the first."""
    m1 = tbl._length_mode(_family_lengths(seg, a1))
    m2 = tbl._length_mode(_family_lengths(seg, a2))
    sizes: list[tuple[float, float]] = []
    lone = tbl.isolated_cards(small_gray)
    if lone:
        short = float(np.median([c[0] for c in lone])) * PITCH_MM[0] / tbl.CARD_MM[0]
        sizes += [(short, short * PITCH_RATIO), (short * PITCH_RATIO, short)]
    if m1 and m2:
        long_, short = max(m1, m2), min(m1, m2)
        if IMAGE_RATIO[0] < long_ / short < IMAGE_RATIO[1]:
            sizes.append((m1 / 0.9, m2 / 0.9))
        else:
            sizes += [(short / 0.9, short / 0.9 * PITCH_RATIO), (short / 0.9 * PITCH_RATIO, short / 0.9)]
    for s1, s2 in list(sizes[:1]):
        sizes += [(s1 * 2, s2 * 2), (s1 / 2, s2 / 2), (s2, s1)]
    unique: list[tuple[float, float]] = []
    for s1, s2 in sizes:
        if s1 >= 4 and s2 >= 4 and all(abs(s1 / u1 - 1) > 0.1 or abs(s2 / u2 - 1) > 0.1 for u1, u2 in unique):
            unique.append((s1, s2))
    return unique


def _family_lengths(seg: np.ndarray, direction: float, tolerance: float = 8.0) -> np.ndarray:
    d = seg[:, 2:] - seg[:, :2]
    angle = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180
    near = np.abs((angle - direction + 90) % 180 - 90) < tolerance
    return np.hypot(d[near, 0], d[near, 1])


def _fold_local(work: _Work, seed: np.ndarray, a1: float, a2: float, size_1: float,
                size_2: float) -> np.ndarray | None:
    """An affine lattice (cell coordinates -> small pixels) around ``seed`` with axes along a1
    (pitch near size_1) and a2 (near size_2). For each axis the pitch and phase are those
    that make the cards' middle lines brightest against their sides: tunnels run along the
    middle lines (every open edge has one at its midpoint), rock and the gaps along the
    sides. Edge strength would not do: a tunnel's walls are crisper than a card's border."""
    d1, d2 = _unit(a1), _unit(a2)
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:
        d2 = -d2
    radius = 3.0 * max(size_1, size_2)
    best = []
    for along, across, size in ((d2, d1, size_1), (d1, d2, size_2)):
        top = None
        for pitch in size * PITCH_TRIALS:
            phases = np.arange(16) / 16 * pitch
            score = _middle_brightness(work, seed, along, across, pitch, phases, radius)
            k = int(np.argmax(score))
            if top is None or score[k] > top[0]:
                top = (score[k], pitch, phases[k])
        best.append(top)
    (s1, t1, p1), (s2, t2, p2) = best
    if s1 <= 0 or s2 <= 0:
        return None
    frame = np.array([[d1[0], d2[0], seed[0]], [d1[1], d2[1], seed[1]], [0, 0, 1.0]])
    p = tbl.Periodicity(t1, t2, p1, p2, float(s1 + s2), "v" if t2 >= t1 else "u")
    return frame @ _view_from_cells(p)


def _middle_brightness(work: _Work, seed, along, across, pitch: float, phases: np.ndarray,
                       radius: float) -> np.ndarray:
    """For each phase (the position of the cards' sides): mean grey of the card pixels within
    an eighth of a pitch of the middle lines, minus that near the side lines."""
    ks = np.arange(-int(radius / pitch) - 1, int(radius / pitch) + 2)
    s = np.arange(-radius, radius + 1e-6, 3.0)
    band = np.linspace(-0.1, 0.1, 3) * pitch
    means = []
    for shift in (0.5 * pitch, 0.0):
        o = (phases[:, None, None, None] + shift + ks[None, :, None, None] * pitch + band[None, None, :, None])
        x = (seed[0] + o * across[0] + s[None, None, None, :] * along[0]).reshape(len(phases), -1)
        y = (seed[1] + o * across[1] + s[None, None, None, :] * along[1]).reshape(len(phases), -1)
        xs, ys = x.astype(np.float32), y.astype(np.float32)
        grey = sample(work.grey, xs, ys)
        busy = sample(work.busy, xs, ys)
        means.append((grey * busy).sum(axis=1) / np.maximum(busy.sum(axis=1), 1e-6))
    return means[0] - means[1]


# The local search: short pitches (shrunk pixels; a card's short side spans at least
# MIN_CARD_PX there, less when the table stage misjudged the size) in steps of 3.5 %, the
# long pitch tied to it by the card aspect give or take the foreshortening of a 25 degree
# tilt, and sixteen phases per axis.
LOCAL_PITCHES = np.exp(np.arange(math.log(10.0), math.log(120.0), math.log(1.035)))
LOCAL_RATIO_STEPS = round(math.log(PITCH_RATIO) / math.log(1.035)) + np.arange(-6, 5)
LOCAL_PHASES = 16
LOCAL_RADIUS = 0.3  # of the shrunk frame's long side: the patch resampled around the seed
LOCAL_SAMPLE = 0.5  # shrunk pixels per patch sample
LOCAL_REACH = 100.0  # shrunk pixels around the seed where hypotheses are compared
LOCAL_KEEP = 24  # cheaply screened hypotheses handed to ``lattice_score``
SCREEN_BATCHES = 8  # the local lattices screened in so many batches (``_LocalPatch.periodicities``)


class _LocalPatch:
    """The shrunk frame around ``seed`` resampled on the axes d1 (u) and d2 (v), with integral
    images of the busy mask and of the edge energy across each axis (card pixels only: wood
    grain and table seams are no card edges). On it any axis-aligned lattice (pitch and
    phase per axis) is judged by box sums alone, cheap enough to try them all."""

    def __init__(self, work: _Work, seed: np.ndarray, d1: np.ndarray, d2: np.ndarray, radius: float):
        n = int(radius / LOCAL_SAMPLE)
        s = (np.arange(-n, n + 1) * LOCAL_SAMPLE).astype(np.float32)
        # x = seed + u d1 + v d2 on the grid of (u, v), rows running along v: a row of
        # seed + u d1 plus a column of v d2, the same sums without building u and v in full
        xs = ((seed[0] + s * d1[0])[None, :] + (s * d2[0])[:, None]).astype(np.float32)
        ys = ((seed[1] + s * d1[1])[None, :] + (s * d2[1])[:, None]).astype(np.float32)
        grey = sample(work.grey, xs, ys, cv2.BORDER_REPLICATE)
        busy = sample(work.busy, xs, ys)
        across_u = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)) * busy
        across_v = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) * busy
        self.radius = n * LOCAL_SAMPLE
        self.size = 2 * n + 1
        self.busy = cv2.integral(busy, sdepth=cv2.CV_64F)
        self.edge = (cv2.integral(across_u, sdepth=cv2.CV_64F), cv2.integral(across_v, sdepth=cv2.CV_64F))
        # per position along each axis, for the one-axis combs: the edge energy, and the maze's
        # outline (the busy mask's steps, moved back by the bleed of the texture measure)
        bleed = int(round(tbl.TEXTURE_BLEED_PX / 2 / LOCAL_SAMPLE))
        outline = []
        for axis in (0, 1):
            step = cv2.Sobel(busy, cv2.CV_32F, 1 - axis, axis, ksize=3).sum(axis=axis, dtype=np.float64)
            rising, falling = np.maximum(step, 0), np.maximum(-step, 0)
            outline.append(np.roll(rising, bleed) + np.roll(falling, -bleed))
        self.profile = tuple(np.concatenate([[0.0], np.cumsum(p)]) for p in (
            across_u.sum(axis=0, dtype=np.float64), across_v.sum(axis=1, dtype=np.float64), *outline))

    def _index(self, coord: np.ndarray) -> np.ndarray:
        """Patch coordinate (shrunk px from the seed) -> integral image index, clipped."""
        return np.clip(np.rint((coord + self.radius) / LOCAL_SAMPLE + 0.5), 0, self.size).astype(int)

    def _box(self, table: np.ndarray, u0, u1, v0, v1) -> np.ndarray:
        a0, a1, b0, b1 = self._index(u0), self._index(u1), self._index(v0), self._index(v1)
        flat, width = table.ravel(), table.shape[1]  # take on flat indices: faster than 2-D fancy indexing
        b0, b1 = b0 * width, b1 * width
        return flat.take(b1 + a1) - flat.take(b0 + a1) - flat.take(b1 + a0) + flat.take(b0 + a0)

    def combs(self, axis: int, pitches: np.ndarray, reach: np.ndarray, outline: bool = False) -> np.ndarray:
        """For each pitch along ``axis``: how concentrated the edge energy is on lattice lines
        (within a twentieth of a pitch; 1: no more than anywhere), per phase (pitch fractions),
        over the lines within ``reach`` (px) of the seed. (pitches, phases) arrays."""
        cum = self.profile[axis + 2 * outline]
        phases = np.arange(LOCAL_PHASES) / LOCAL_PHASES
        out = np.zeros((len(pitches), LOCAL_PHASES))
        for i, (t, r) in enumerate(zip(pitches, reach)):
            r = min(r, self.radius - t)
            if r < 2 * t:
                continue
            k = np.arange(-math.ceil(r / t) - 1, math.ceil(r / t) + 1)
            lines = (phases[:, None] + k[None, :]) * t
            valid = np.abs(lines) < r
            lo, hi = self._index(lines - 0.05 * t), self._index(lines + 0.05 * t)
            on = np.where(valid, cum[hi] - cum[lo], 0).sum(axis=1) / np.maximum(valid.sum(axis=1), 1)
            mean = (cum[self._index(np.array(r))] - cum[self._index(np.array(-r))]) / (2 * r)
            out[i] = on / max(mean * 0.1 * t, 1e-9)
        return out

    def periodicities(self) -> list[tbl.Periodicity]:
        """The best few lattices: per axis and pitch the phases where the one-axis comb of edge
        energy peaks, paired with a pitch on the other axis that gives cards their aspect, then
        judged in two dimensions by ``_screen``, all on the same stretch of the picture."""
        t = LOCAL_PITCHES
        # a fixed stretch, so that a lattice at a fraction of the pitch cannot look pure by
        # looking at the maze's inside only; big cards need more, a few of them at least
        reach = np.maximum(LOCAL_REACH, 2.5 * t * PITCH_RATIO)
        combs = [self.combs(axis, t, reach) for axis in (0, 1)]
        outlines = [self.combs(axis, t, reach, outline=True) for axis in (0, 1)]
        phase_sets = [[sorted(set(np.argsort(-c[i])[:2]) | set(np.argsort(-o[i])[:2])) for i in range(len(t))]
                      for c, o in zip(combs, outlines)]
        all_trials, all_reach = [], []
        for i in range(len(t)):
            trials = []
            for short_axis in (0, 1):
                long_axis = 1 - short_axis
                js = i + LOCAL_RATIO_STEPS
                js = js[(js >= 0) & (js < len(t))]
                if not len(js):
                    continue
                j = js[int(np.argmax(combs[long_axis][js].max(axis=1)))]
                for a in phase_sets[short_axis][i]:
                    for b in phase_sets[long_axis][j]:
                        pitch = (t[i], t[j]) if short_axis == 0 else (t[j], t[i])
                        phase = (a, b) if short_axis == 0 else (b, a)
                        trials.append((pitch[0], pitch[1], phase[0] / LOCAL_PHASES, phase[1] / LOCAL_PHASES))
            if trials:
                trials = np.array(trials)
                all_trials.append(trials)
                all_reach.append(np.full(len(trials), max(LOCAL_REACH, 2.5 * trials[:, :2].max())))
        if not all_trials:
            return []
        trials, reach = np.concatenate(all_trials), np.concatenate(all_reach)
        # screened in a few batches of about the same number of cells each way (the
        # smallest pitches need the most): one call per pitch spent more time in Python
        cells = reach / trials[:, :2].min(axis=1)
        score = np.zeros(len(trials))
        for group in np.array_split(np.argsort(cells), SCREEN_BATCHES):
            if len(group):
                score[group] = self._screen(trials[group], reach[group])
        order = np.argsort(-score)[:LOCAL_KEEP]
        return [tbl.Periodicity(tu, tv, fu * tu, fv * tv, float(score[k]), "v" if tv >= tu else "u")
                for k in order for tu, tv, fu, fv in [trials[k]]]

    def _screen(self, trials: np.ndarray, reach: np.ndarray) -> np.ndarray:
        """Cheap two-axis score of lattices (pitch_u, pitch_v, phase_u, phase_v), each over
        the cells within its ``reach`` (px) of the seed: pure cells (card art filling a cell
        or leaving it bare: a lattice off in phase or twice the pitch cuts through the maze's
        outline) times edge energy concentrated on the busy cells' sides (half or a third of
        the pitch puts sides along tunnels and rock)."""
        tu, tv, fu, fv = (trials[:, k][:, None, None] for k in range(4))
        n = math.ceil((reach / trials[:, :2].min(axis=1)).max()) + 1
        k = np.arange(-n, n + 1)[None, :]
        i, j = k[:, None, :], k[:, :, None]  # (1, rows j, cols i)
        u0, v0 = (fu + i) * tu, (fv + j) * tv  # cell (i, j) spans [u0, u0 + tu] x [v0, v0 + tv]
        cu, cv = u0 + 0.5 * tu, v0 + 0.5 * tv
        inside = ((np.hypot(cu, cv) < reach[:, None, None]) & (np.abs(u0) < self.radius - tu)
                  & (np.abs(v0) < self.radius - tv))
        inner = self._box(self.busy, u0 + 0.15 * tu, u0 + 0.85 * tu, v0 + 0.15 * tv, v0 + 0.85 * tv)
        area = (0.7 * tu / LOCAL_SAMPLE) * (0.7 * tv / LOCAL_SAMPLE)
        share = np.where(inside, inner / area, 0.0)
        counted = inside & (share > 0.05)
        purity = (np.where(counted, 1 - 2 * np.minimum(share, 1 - share), 0).sum(axis=(1, 2))
                  / np.maximum(counted.sum(axis=(1, 2)), 1))
        busy = inside & (share >= CARD_SHARE)
        # the sides of cell (i, j) lie on lines i and i + 1 across u, j and j + 1 across v:
        # each line's stretch is summed once, for both cells it bounds
        lines = np.arange(-n, n + 2)[None, :]
        lu, lv = (fu + lines[:, None, :]) * tu, (fv + lines[:, :, None]) * tv
        near_sides = []
        for half in (0.05, 0.2):  # the line's own stretch, and the stretch around it
            across_u = self._box(self.edge[0], lu - half * tu, lu + half * tu, v0 + 0.1 * tv, v0 + 0.9 * tv)
            across_v = self._box(self.edge[1], u0 + 0.1 * tu, u0 + 0.9 * tu, lv - half * tv, lv + half * tv)
            both = across_u[:, :, :-1] + across_u[:, :, 1:] + across_v[:, :-1, :] + across_v[:, 1:, :]
            near_sides.append(np.where(busy, both, 0).sum(axis=(1, 2)))
        on, wide = near_sides
        sides = on / np.maximum(wide, 1e-9) * 4.0  # 1: no more energy on the sides than near them
        return np.where(busy.sum(axis=(1, 2)) >= 2, purity * sides, 0.0)


def _unit(deg: float) -> np.ndarray:
    return np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])


SKEW_TOLERATED = math.sin(math.radians(10.0))  # cosine of the cell axes' angle, fully plausible up to it


def _aspect_plausibility(h: np.ndarray, shape) -> float:
    """1 when the lattice's cells could be 58 x 89 mm rectangles seen by a camera with square
    pixels and its principal point at the centre, falling off as they could not."""
    height, width = shape[:2]
    k = np.array([[1.0, 0, (width - 1) / 2], [0, 1.0, (height - 1) / 2], [0, 0, 1.0]])
    m = np.linalg.inv(k) @ h
    c1, c2 = m[:, 0], m[:, 1]
    # focal length from orthogonality of the two cell axes: (c1.x c2.x + c1.y c2.y)/f^2 + c1.z c2.z = 0
    num = -(c1[0] * c2[0] + c1[1] * c2[1])
    den = c1[2] * c2[2]
    f = math.sqrt(num / den) if den != 0 and num / den > 0 else 0.85 * width
    f = float(np.clip(f, 0.4 * width, 4.0 * width))
    kf = np.diag([1 / f, 1 / f, 1.0])
    r1, r2 = kf @ c1, kf @ c2
    n1, n2 = np.linalg.norm(r1), np.linalg.norm(r2)
    aspect = n2 / max(n1, 1e-12)
    off = abs(math.log(aspect / PITCH_RATIO))
    # the card's corners are right angles: a lattice whose axes meet askew on the table (an
    # affine one sheared by more than a tilted view shears it, about 6 degrees at 25) is none
    skew = abs(float(r1 @ r2)) / max(n1 * n2, 1e-12)
    square = float(np.clip((2 * SKEW_TOLERATED - skew) / SKEW_TOLERATED, 0.0, 1.0))
    return float(max(0.0, 1 - off / math.log(1.25))) * square


def _seed_cells(work: _Work, h: np.ndarray, reach: float) -> list[Cell]:
    return _seed_region(work, h, reach)[0]


def _seed_region(work: _Work, h: np.ndarray, reach: float) -> tuple[list[Cell], set[Cell]]:
    """Busy cells of the largest busy group within ``reach`` cells of its best-surrounded
    one, and all busy cells (to tell the group's outline from its inner sides)."""
    key = h.tobytes()
    busy = work.busy_cells.get(key)
    if busy is None:
        busy = work.busy_cells[key] = {c for c, v in _examine(work, h).busy.items() if v >= CARD_SHARE}
    if not busy:
        return [], busy
    main = _components(busy)[0]
    seed = _best_surrounded(main, busy)
    return [c for c in main if math.hypot(c[0] - seed[0], c[1] - seed[1]) <= reach], busy


def _best_surrounded(cells, occupied) -> Cell:
    """Of ``cells``, the one with the most ``occupied`` cells around it (itself included)."""
    return max(sorted(cells), key=lambda c: sum((c[0] + dx, c[1] + dy) in occupied
                                                for dx in (-1, 0, 1) for dy in (-1, 0, 1)))


def _align_view_to_cards(seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A turn of a calibrated (sheet-aligned) view that puts the card edges on its axes."""
    a1, _, _ = tbl.direction_pair(seg)
    a = math.radians(-a1)
    c, s = math.cos(a), math.sin(a)
    turn = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    mapped = np.c_[apply_homography(turn, seg[:, :2]), apply_homography(turn, seg[:, 2:])]
    return turn, mapped


def _view_from_cells(p: tbl.Periodicity) -> np.ndarray:
    """Cell coordinates -> view pixels for a periodicity: cell (0, 0) is the cell whose
    corner is at the phase point; north is up (v decreasing) when the long axis is v, else
    the long axis runs along -u (which keeps the handedness)."""
    if p.long_axis == "v":
        tx, ty = p.period_u, p.period_v
        return np.array([[tx, 0, p.phase_u + 0.5 * tx], [0, -ty, p.phase_v - 0.5 * ty], [0, 0, 1.0]])
    tx, ty = p.period_v, p.period_u
    return np.array([[0, -ty, p.phase_u - 0.5 * ty], [-tx, 0, p.phase_v - 0.5 * tx], [0, 0, 1.0]])


@dataclass(eq=False)
class _Growth:
    """A hypothesis grown: the lattice, its last refinement and the cells refined on, and
    the lattice after each GROWTH stage."""

    h: np.ndarray
    refined: Refined | None
    cells: list[Cell]
    stages: list[np.ndarray]
    score: float | None = None  # lattice_score, given by _Growths to growths with cells


# Two growths whose lattices, after the same stage, put every busy cell within this many
# frame pixels of each other (the cells named alike or a whole number of cells over) grow
# alike from there: the later one is followed no further. On most photos some of the
# hypotheses handed to the growth meet another's within a stage or two. Agreeing on the
# cells just refined on is not enough: two lattices half a pixel apart there and a pixel
# elsewhere grew 50 pixels apart (4:3 bench photo 38, which lost its maze).
SAME_GROWTH_PX = 0.5


def _grow(work: _Work, h: np.ndarray, earlier: Sequence[_Growth] = ()) -> _Growth:
    """Refine a lattice hypothesis outward from its best-surrounded busy cell, through the
    GROWTH stages of (reach in cells, search window); or the ``earlier`` growth it meets
    after a stage (SAME_GROWTH_PX)."""
    refined = None
    cells: list[Cell] = []
    stages: list[np.ndarray] = []
    for stage, (reach, search) in enumerate(GROWTH):
        near, busy = _seed_region(work, h, reach)
        if len(near) < 2:
            break
        result = refine(work.frame, h, near, search, occupied=busy)
        if result.probes and np.isfinite(result.error_px):
            h, refined, cells = result.h, result, near
        stages.append(h)
        met = next((g for g in earlier if stage < len(g.stages) and _same_lattice(h, g.stages[stage], busy)), None)
        if met is not None:
            return met
    return _Growth(h, refined, cells, stages)


def _same_lattice(h: np.ndarray, other: np.ndarray, cells: Collection[Cell]) -> bool:
    """Whether lattices ``h`` and ``other`` put ``cells`` within SAME_GROWTH_PX of each
    other, ``other`` naming them alike or a whole number of cells over."""
    c = np.asarray(sorted(cells), float)
    mine = apply_homography(h, c)
    over = np.rint(apply_homography(np.linalg.inv(other), mine[:1]) - c[:1])
    theirs = apply_homography(other, c + over)
    return bool(np.all(np.isfinite(theirs)) and np.abs(theirs - mine).max() <= SAME_GROWTH_PX)


def fit_lattice(frame: np.ndarray, plane: TablePlane | None = None, *, calibration=None,
                work_width: int = tbl.WORK_WIDTH, reads_cards: CardCheck | None = None,
                locates_cards: CardFinder | None = None, draw: int = 0) -> Lattice:
    """The card lattice of one frame (BGR), from scratch. ``plane`` (the table stage's
    output) is computed when not given, from ``calibration`` when that is given, else with
    the vanishing points' random draw ``draw``.

    ``reads_cards`` (the pipeline gives the classifier's) says what share of a grown
    hypothesis's cells show a whole maze card; it weighs each hypothesis's score. The
    edge cues can prefer a lattice at twice the pitch, or one a tunnel's width off, whose
    crops hold parts of several cards: the classifier reads those as nothing. When even
    the best reads few cards, its likely corrections (``_variants``) are tried too, then
    other card-edge directions, then lattices found by reading (the module's step 3).
    ``locates_cards`` says where the cards lie; the chosen lattice is refitted on them.
    On a calibrated plane the cards' size is known: a fit not of that size is done again
    as without the calibration."""
    if plane is None:
        try:
            plane = tbl.find_plane(frame, calibration=calibration, work_width=work_width, seed=draw)
        except TableError:
            if calibration is not None:
                raise
            plane = None  # the photo itself may still show the lattice locally
    if plane is None or plane.source != "calibration":
        return _fit_on(frame, plane, work_width, reads_cards, locates_cards)

    def misfit(lattice: Lattice | None) -> float:
        """How far from the cards' size, in FITTED_SIZE_SLACKs."""
        if lattice is None or not lattice.cells:
            return math.inf
        pitch, shear = _size_error(plane, lattice.image_from_maze, lattice.cells)
        return max(pitch / FITTED_SIZE_SLACK[0], shear / FITTED_SIZE_SLACK[1])

    try:
        lattice = _fit_on(frame, plane, work_width, reads_cards, locates_cards)
    except GridError:
        lattice = None
    if misfit(lattice) <= 1:
        return lattice
    # nothing of the cards' size was found on the calibrated plane (drawn 13 of the bench:
    # 39 x 54 mm cells; drawn 57: cells sheared 5 degrees, a cell off at the start): the
    # cards' own edges may show it; of the two fits, the one nearer the cards' size
    try:
        again = fit_lattice(frame, work_width=work_width, reads_cards=reads_cards, locates_cards=locates_cards,
                            draw=draw)
    except GridError:
        if lattice is None:
            raise
        return lattice
    return min((again, lattice), key=misfit)


def _fit_on(frame: np.ndarray, plane: TablePlane | None, work_width: int, reads_cards: CardCheck | None,
            locates_cards: CardFinder | None) -> Lattice:
    card_px = _card_px(plane) if plane is not None else 0.0
    work = _Work(frame, _working_width(frame.shape[1], card_px, work_width))
    grown = _grown_hypotheses(work, frame, plane, reads_cards)
    if not grown:
        raise GridError("no card lattice fits the edges in this picture")
    best = max(grown, key=lambda b: b[0])
    if not reads_cards or not _reads_poorly(best[0]):
        return _finished(work, frame, best[1], best[2], reads_cards, locates_cards)
    # a lattice that reads few of its cells as cards: try its likely corrections, failing
    # those lattices along other card-edge directions, and failing those, lattices found by
    # reading alone
    pool = grown + _regrown_variants(work, frame, best[1], reads_cards)
    edgiest = max(grown, key=lambda b: b[0][1])
    if edgiest is not best:
        pool += _regrown_variants(work, frame, edgiest[1], reads_cards)
    for more in (_along_other_directions, _found_by_reading, None):
        best = max(pool, key=lambda b: b[0])
        if not _reads_poorly(best[0]):
            return _finished(work, frame, best[1], best[2], reads_cards, locates_cards)
        if more is not None:
            pool += _grown_and_ranked(work, frame, more(work, frame, reads_cards, locates_cards), reads_cards)
    # still none reads well: near the seed a lattice a fifth of a cell off can rank above
    # the right one (drawn bench photo 113: 0.088 against 0.061), so the best few are
    # finished (refitted on all their cards and centred on them) and read on all their
    # cells; the first ranked is kept unless another reads a clearly larger share (among
    # close shares the rank is the surer guide: a lattice at half the pitch can read 0.7)
    pool.sort(key=lambda b: -b[0][0])
    finalists = [_finished(work, frame, h, refined, reads_cards, locates_cards) for _, h, refined in pool[:FINALISTS]]
    shares = reads_cards(frame, finalists)
    most = int(np.argmax(shares))
    return finalists[most] if shares[most] >= shares[0] + CLEARLY_MORE else finalists[0]


def _grown_hypotheses(work: _Work, frame: np.ndarray, plane: TablePlane | None, reads_cards: CardCheck | None) -> list:
    """The KEEP_HYPOTHESES best scored hypotheses, grown and ranked (``_grown_and_ranked``).
    The local look finds the lattice on most photos (29 of the first 40 drawn bench photos,
    against 4 by the other sources, whose working out and scoring took some 0.18 s of a
    1 s photo): when the best of its own, grown, reads nearly all its cells as cards
    (SURE_AT_ONCE), the other sources are not worked out; else all are ranked together
    (those grown already not grown again). Growing only the first three of its own cost a
    printed bench film a wrong commit (a lattice reading 8 of 10 cards, from the third
    where the fourth read all)."""
    # on a calibrated plane the cards' size is known: hypotheses of that size are preferred
    sized = partial(_card_sized, plane) if plane is not None and plane.source == "calibration" else None
    local = _scored(work, _local_hypotheses(work))
    grown, growths = [], _Growths(work)
    if reads_cards:
        grown = _grown_and_ranked(work, frame, _best_scored(local, sized, strict=True), reads_cards, growths)
    if not grown or _reads_poorly(max(grown, key=lambda b: b[0])[0], SURE_AT_ONCE):
        everything = local + _scored(work, _other_hypotheses(plane, work))
        grown = _grown_and_ranked(work, frame, _best_scored(everything, sized), reads_cards, growths)
    return grown


FINALISTS = 3  # lattices finished when none reads well
# A finished lattice's share of cells read as cards this much above the first ranked one's
# is decisive (on the drawn bench photos, 0.69 -> 1.0 and 0.58 -> 0.97 where the first
# was a fifth of a cell off; 0.02 to 0.11 where both were right or the other was wrong).
CLEARLY_MORE = 0.2


def _along_other_directions(work: _Work, frame: np.ndarray, reads_cards: CardCheck,
                            locates_cards: CardFinder | None) -> list[np.ndarray]:
    """Local hypotheses along ``_other_directions``."""
    return _best_scored(_scored(work, [h for d in _other_directions(work) for h in _local_hypotheses(work, d)]))


def _found_by_reading(work: _Work, frame: np.ndarray, reads_cards: CardCheck,
                      locates_cards: CardFinder | None) -> list[np.ndarray]:
    """``_reading_hypotheses``, each also centred on the cards round its seed (given
    ``locates_cards``): a few cards' centres, each read coarsely, can also throw a lattice
    that lay right off."""
    hypotheses = _reading_hypotheses(work, frame, reads_cards)
    if locates_cards is not None:
        hypotheses += [_centred_on_seed(frame, h, locates_cards) for h in hypotheses]
    return hypotheses


def _finished(work: _Work, frame: np.ndarray, h: np.ndarray, refined: Refined, reads_cards: CardCheck | None,
              locates_cards: CardFinder | None) -> Lattice:
    """A grown lattice refitted on all its cards and judged. Lone cards (the goals, until
    the tunnels reach them) are far from where the lattice was refined: their centres are
    pinned; then the lattice is centred on the cards (given ``locates_cards``)."""
    seen = _examine(work, h)
    busy = {c for c, v in seen.busy.items() if v >= CARD_SHARE}
    groups = _components(busy)
    main = groups[0] if groups else set()
    lone = set().union(*[g for g in groups[1:] if len(g) <= 3]) if len(groups) > 1 else set()
    centres = _lone_card_centres(work, h, lone)
    for search in (0.15, 0.08):
        result = refine(frame, h, sorted(main), search, occupied=busy, centres=centres)
        if np.isfinite(result.error_px):
            h, refined = result.h, result
    lattice = judge(work, h, refined.support, refined.error_px)
    if locates_cards is not None:
        centred = _centred_on_cards(work, frame, lattice, locates_cards, centres)
        # small or blurred cards can be found too coarsely: keep what reads more cards
        if centred is not lattice and (reads_cards is None or _reads_no_fewer(reads_cards, frame, centred, lattice)):
            return centred
    return lattice


# Rings (cells from the maze's best-surrounded cell) of _centred_on_cards, each refitting
# the lattice before the next is looked at.
CENTRE_RINGS = (2.5, 4.5, 8.0, math.inf)


def _centred_on_cards(work: _Work, frame: np.ndarray, lattice: Lattice, locates_cards: CardFinder,
                      lone: Mapping[Cell, np.ndarray]) -> Lattice:
    """The lattice refitted on where ``locates_cards`` finds each card, ring by ring out
    from the maze's best-surrounded cell, then snapped to the edges with the cards' centres
    pinned, and judged again. ``lone``: the centres of lone cards' outlines (the goals),
    pinned from the start. A lattice grown on card edges keeps the spacing of its first
    patch: a pitch a few percent off there is half a card off eight cells out, where the
    edges it snaps to are the wrong ones. Unchanged when too few cards are found."""
    cells = sorted(lattice.cells - lattice.occluded)
    if not cells:
        return lattice
    seed = _best_surrounded(cells, lattice.cells)
    found = dict(lone)
    looked = set(lone)
    fitted = lattice
    for reach in CENTRE_RINGS:
        ring = [c for c in cells if math.dist(c, seed) <= reach and c not in looked]
        if ring:
            looked.update(ring)
            found.update(locates_cards(frame, fitted, ring))
            fitted = fit_to_centres(fitted, found)
    if fitted is lattice:
        return lattice
    # the edges place the lattice to a pixel; the perspective stays the cards' (a maze
    # that is nearly a line leaves it loose, and the edges would bend it off the goals)
    result = refine(frame, fitted.image_from_maze, cells, TRACK_SEARCH, projective=False,
                    occupied=lattice.cells, centres=found)
    if np.isfinite(result.error_px) and _sane(result.h, fitted.image_from_maze):
        return judge(work, result.h, result.support, result.error_px)
    return judge(work, fitted.image_from_maze, lattice.support, lattice.fit_error_px)


def _variants(h: np.ndarray, seed_px: np.ndarray) -> list[np.ndarray]:
    """Maps (new cell coordinates -> old) that correct a lattice's likely mistakes: one of
    its axes is kept, as the card's short or its long side, and the other one's pitch set
    from the card's aspect (or foreshortened), in each phase. A lattice whose pitch is
    wrong on one axis (half cards, two and a half cells a card) reads its cells as nothing,
    yet its edges can look right: a card's middle line is as straight as its sides."""
    q = apply_homography(np.linalg.inv(h), [seed_px])[0]
    ends = apply_homography(h, [q, q + (1, 0), q + (0, 1)])
    lengths = np.linalg.norm(ends[1:] - ends[0], axis=1)  # pixels per old cell, each axis
    out = []
    for kept, becomes, aspect in itertools.product((0, 1), (0, 1), VARIANT_FORESHORTENING):
        # kept: the old axis whose pitch is kept; becomes: the new axis it becomes, across
        # the card (x) or along it (y)
        other = 1 - kept
        ratio = PITCH_RATIO * aspect if becomes == 0 else 1 / (PITCH_RATIO * aspect)
        scale = lengths[kept] * ratio / lengths[other]
        for kept_phase in (0.0, 0.5):
            for other_phase in (0.0, 0.25, 0.5, 0.75):
                v = np.zeros((3, 3))
                v[kept, becomes], v[other, 1 - becomes], v[2, 2] = 1.0, scale, 1.0
                if np.linalg.det(v) < 0:
                    v[other, 1 - becomes] = -scale  # a mirrored lattice is never the maze
                v[kept, 2], v[other, 2] = kept_phase, other_phase * scale
                out.append(v)
    return out + HARMONICS


def _harmonics() -> list[np.ndarray]:
    """Either axis at half, the same or twice the pitch (in each phase this allows), the
    axes as they are or swapped: the commonest wrong lattices' corrections."""
    steps = ((0.5, 0.25), (1.0, 0.0), (1.0, 0.5), (2.0, 0.5), (2.0, -0.5))  # (scale, offset) in old cells
    out = []
    for swap in (False, True):
        i, j = (1, 0) if swap else (0, 1)  # the old axes the new x and y run along
        for (a, ox), (b, oy) in ((u, v) for u in steps for v in steps):
            v = np.zeros((3, 3))
            v[i, 0], v[j, 1], v[2, 2] = a, b * (-1 if swap else 1), 1.0  # keep the handedness
            v[i, 2], v[j, 2] = ox, oy
            if not np.allclose(v, np.eye(3)):
                out.append(v)
    return out


HARMONICS = _harmonics()


# A lattice whose cells the classifier surely reads as maze cards at least this share of
# the time is taken as it is; below, its variants are tried (right lattices read 0.84-1
# on the bench photos, wrong ones 0.14-0.61; one at two thirds of the card's width across
# and its width along, on a plain photo with sensor noise, read 0.77).
SURE_LATTICE = 0.8
# The local look's best lattice is taken without looking at the other sources when it reads
# this share or more: reading 0.82, a 4:3 bench photo's lost 12 cards to it against the
# table plane's lattice, which read 0.88 and scored nearly twice as high on the edges.
SURE_AT_ONCE = 0.95
VARIANT_CELLS = 12  # cells near the seed read to screen a variant
VARIANTS_GROWN = 3  # the best screened variants grown


def _reads_poorly(rank: tuple[float, float], sure: float = SURE_LATTICE) -> bool:
    """Whether a lattice ranked (score x card share, score) reads under ``sure``, or reads
    no card at all (a lattice scored 0, its cells no card's shape, too)."""
    return rank[0] <= 0 or rank[0] < sure * rank[1]


def _regrown_variants(work: _Work, frame: np.ndarray, h: np.ndarray, reads_cards: CardCheck) -> list:
    """The _variants of lattice ``h`` whose cells near the maze's seed the classifier reads
    best as maze cards, grown and ranked as fit_lattice ranks its hypotheses."""
    variants, checked = [], []
    for v in _variants(h, _seed_px(work)):
        hv = h @ v
        if _aspect_plausibility(hv, frame.shape) < 0.3:
            continue
        near = _seed_cells(work, hv, reach=2.5)
        if len(near) >= 3:
            variants.append(hv)
            checked.append(_spread_over(hv, frame, near, VARIANT_CELLS))
    screened = sorted(zip(reads_cards(frame, checked), variants), key=lambda t: -t[0])
    return _grown_and_ranked(work, frame, [hv for _, hv in screened[:VARIANTS_GROWN]], reads_cards)


class _Growths:
    """The growths of one frame's hypotheses: each hypothesis grown once, and growths that
    meet (``_grow``) grown as one."""

    def __init__(self, work: _Work):
        self.work = work
        self.done: list[_Growth] = []
        self.by_start: dict[bytes, _Growth] = {}

    def grown(self, h0: np.ndarray) -> _Growth | None:
        """``h0``'s growth, scored (the same for growths that met), or None when it found
        no cells to grow on."""
        key = h0.tobytes()
        if key not in self.by_start:
            growth = self.by_start[key] = _grow(self.work, h0, self.done)
            if growth not in self.done:
                self.done.append(growth)
                if growth.refined is not None and growth.cells:
                    growth.score = lattice_score(self.work, growth.h)
        growth = self.by_start[key]
        return growth if growth.score is not None else None


def _grown_and_ranked(work: _Work, frame: np.ndarray, hypotheses: list[np.ndarray],
                      reads_cards: CardCheck | None, growths: _Growths | None = None) -> list:
    """Each hypothesis grown, with fit_lattice's rank: (score x card share, score), or
    (score,) without a card check; hypotheses whose growths met are one. ``growths``
    keeps them for a later call."""
    growths = _Growths(work) if growths is None else growths
    grown = []
    for h0 in hypotheses:
        growth = growths.grown(h0)
        if growth is not None and growth not in grown:
            grown.append(growth)
    if not reads_cards:
        return [((g.score,), g.h, g.refined) for g in grown]
    shares = reads_cards(frame, [_spread_over(g.h, frame, g.cells, VERIFY_CELLS) for g in grown])
    return [((g.score * share, g.score), g.h, g.refined) for g, share in zip(grown, shares)]


def _spread_over(h: np.ndarray, frame: np.ndarray, cells: list[Cell], most: int) -> Lattice:
    """Lattice ``h`` on up to ``most`` of the cells, spread over them: what a card check reads."""
    step = max(1, math.ceil(len(cells) / most))
    return Lattice(h / h[2, 2], (frame.shape[1], frame.shape[0]), frozenset(cells[::step]))


def _reads_no_fewer(reads_cards: CardCheck, frame: np.ndarray, lattice: Lattice, than: Lattice) -> bool:
    """Whether the classifier surely reads as large a share of this lattice's cells as cards."""
    mine, theirs = reads_cards(frame, [lattice, than])
    return mine >= theirs


def _working_width(frame_width: int, card_px: float, work_width: int) -> int:
    """Wide enough that a card's short side spans some MIN_CARD_PX of the working picture."""
    if card_px <= 0:
        return work_width
    return int(min(frame_width, max(work_width, frame_width * MIN_CARD_PX / card_px)))


def _card_px(plane: TablePlane) -> float:
    """A card's short side in frame pixels near the middle of the view."""
    view = plane.view
    vh, vw = view.image.shape[:2]
    mid = view.to_plane([(vw / 2, vh / 2)])[0]
    ends = plane.to_image([mid, mid + (PITCH_MM[0], 0)])
    return float(np.linalg.norm(ends[1] - ends[0]))


def judge(work: _Work, h: np.ndarray, support: float, error_px: float,
          previous: Lattice | None = None) -> Lattice:
    """Occupancy, the maze's cells, crosswise cards and occlusion for a fitted lattice."""
    seen = _examine(work, h, previous.cells | previous.occluded if previous is not None else None,
                    colour=True, cell_px=MOSAIC_CELL)
    strong = {c for c, v in seen.busy.items() if v >= CARD_SHARE}
    # a faint cell counts only as a card would show: art reaching into all four corners
    # (a loose card's corner poking into a cell next to the maze does not)
    weak = strong | {c for c, v in seen.busy.items() if WEAK_SHARE <= v < CARD_SHARE and _corners_covered(
        seen.mosaic, c)}
    hand = _hand_cells(seen, strong)
    # hysteresis: faint cards (wide flat tunnels, glare) count when they touch a clear one
    near_hand = hand & with_neighbours(previous.cells if previous else strong)
    groups = [g for g in _components(weak | near_hand) if g & strong]
    maze: set[Cell] = set(groups[0]) if groups else set()
    blobs = _Blobs(work, h)

    def laid_square(c: Cell) -> bool:
        """A card apart from the maze must lie square on its cell, as the goals do before the
        tunnels reach them; a loose card across two cells covers neither to its corners,
        one that happens to lie nearly square is still turned or off centre."""
        bleed = _bleed(work, h, c)
        blob = blobs.at(c)
        return _lies_on_cell(seen.mosaic, c, bleed, weak) and (
            blob is None or blob.extent.max() > 1.6 + 2 * bleed  # merged with a neighbour: judged by the cell
            or _square_card(blob, c, bleed, max_angle=4.0, max_offset=0.15))

    for group in groups[1:]:
        maze |= {c for c in group - hand if laid_square(c)}
    for c, v in seen.busy.items():  # lone cards whose art is faint (goal backs, glare)
        if BARE_SHARE <= v < CARD_SHARE and c not in maze and c not in hand and not any(
                n in maze for n in neighbours(c)) and laid_square(c):
            maze.add(c)
    occluded = _hidden_by_hand(hand, maze)
    candidates = with_neighbours(maze) - with_neighbours(occluded)
    crosswise = {c for c in candidates if seen.mosaic.inside(c) and _is_crosswise(
        seen.mosaic, c, maze - {c}, _bleed(work, h, c))}
    cells = maze - crosswise - occluded
    return Lattice(h / h[2, 2], (work.frame.shape[1], work.frame.shape[0]), frozenset(cells), seen.busy,
                   frozenset(crosswise), frozenset(occluded), support, error_px)


def _hidden_by_hand(hand: set[Cell], maze: set[Cell]) -> set[Cell]:
    """The cells under a hand that may hide maze cards: on the maze or beside it, and
    beside those. The cards a hand covers are not counted as maze, so a hand reaching over
    the maze's edge can hide one two cells from the maze left in view (the start, under a
    printed bench photo's fingers)."""
    near = hand & with_neighbours(maze)
    return near | (hand & with_neighbours(near))


def _corners_covered(mosaic: _Mosaic, cell: Cell, least: float = 0.4) -> bool:
    b = mosaic.busy
    return min(mosaic.share(b, cell, rows=r, cols=c) for r in ((0.06, 0.2), (0.8, 0.94))
               for c in ((0.06, 0.26), (0.74, 0.94))) > least


def _hand_cells(seen: _Cells, busy: set[Cell]) -> set[Cell]:
    """Cells a hand covers in part: skin-coloured beyond what the bare table shows (a wood
    table can be skin-coloured itself; then only a clear excess counts), or, on a table
    that is not, under an arm (``_arm_shares``)."""
    bare = [v for c, v in seen.skin.items() if c not in busy and not any(n in busy for n in neighbours(c))]
    table_skin = float(np.percentile(bare, 90)) if bare else 0.0
    threshold = table_skin + HAND_SKIN_SHARE
    hand = {c for c, v in seen.skin.items() if v > threshold}
    if (table_skin < ARM_TABLE_SKIN and seen.mosaic.image is not None
            and _card_skin(seen, busy - hand) < ARM_CARD_SKIN):
        arm = _arm_shares(seen.mosaic)
        hand |= {c for c in seen.skin if arm[seen.mosaic.index(c)] > ARM_SHARE}
    return hand


def _card_skin(seen: _Cells, cards: set[Cell]) -> float:
    """The lower quartile of the cells of ``cards``' shares of skin-hued pixels (smooth or not)."""
    mosaic = seen.mosaic
    rows, ch, cols, cw = mosaic.busy.shape
    shares = mosaic.skin.reshape(rows, ch, cols, cw).mean(axis=(1, 3))
    inside = [shares[mosaic.index(c)] for c in cards if c in seen.skin]
    return float(np.percentile(inside, 25)) if inside else 0.0


def _arm_shares(mosaic: _Mosaic) -> np.ndarray:
    """(rows, cols) share of each cell under an arm: skin-hued pixels joined to a region
    that reaches the mosaic's edge and covers ARM_CELLS cells or more. An arm comes in from
    the frame's edge, across the table; the card art's brown stones and shards are small
    and lie within the maze."""
    rows, ch, cols, cw = mosaic.busy.shape
    skin = mosaic.skin.astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
    x, y, w, h, area = stats.T
    arm = ((x == 0) | (y == 0) | (x + w == skin.shape[1]) | (y + h == skin.shape[0])) & (area >= ARM_CELLS * ch * cw)
    arm[0] = False  # the pixels of no skin hue
    return arm[labels].reshape(rows, ch, cols, cw).mean(axis=(1, 3))


def _bleed(work: _Work, h: np.ndarray, cell: Cell) -> float:
    """How far (cells) the busy mask reaches past a card's edge near ``cell``."""
    q = apply_homography(work.small_from_frame @ h, [cell, (cell[0] + 1, cell[1])])
    return tbl.TEXTURE_BLEED_PX / 2 / max(float(np.linalg.norm(q[1] - q[0])), 1e-6)


# =========================================================================== crops


def cell_crops(frame: np.ndarray, lattice: Lattice, cells: Sequence[Cell],
               size: tuple[int, int] = (64, 96)) -> list[np.ndarray]:
    """Each cell (card + gap, portrait, the lattice's north up) warped out of the full frame."""
    w, h = size
    crops = []
    for x, y in cells:
        # crop pixel (u, v) -> cell coordinates (x - 0.5 + (u + 0.5)/w, y + 0.5 - (v + 0.5)/h)
        crop_to_cell = np.array([[1 / w, 0, x - 0.5 + 0.5 / w], [0, -1 / h, y + 0.5 - 0.5 / h], [0, 0, 1.0]])
        m = lattice.image_from_maze @ crop_to_cell
        crops.append(cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                         borderMode=cv2.BORDER_REPLICATE))
    return crops


def moved_crop(frame: np.ndarray, lattice: Lattice, cell: Cell, dx: float = 0.0, dy: float = 0.0,
               scale: float = 1.0, turn_deg: float = 0.0, size: tuple[int, int] = (64, 96)) -> np.ndarray:
    """The crop of a cell shifted by (dx, dy) cells, scaled and turned (degrees) about its
    centre: as a lattice a little off would cut it."""
    x, y = cell
    c, s = scale * math.cos(math.radians(turn_deg)), scale * math.sin(math.radians(turn_deg))
    # maps the virtual cell's coordinates onto the real ones: p -> cell + R s (p - cell) + d
    moved = np.array([[c, -s, x * (1 - c) + s * y + dx], [s, c, y * (1 - c) - s * x + dy], [0, 0, 1.0]])
    virtual = Lattice(lattice.image_from_maze @ moved, lattice.frame_size, lattice.cells)
    return cell_crops(frame, virtual, [cell], size)[0]


# =========================================================================== anchoring


def _reading(value) -> tuple[str | None, int]:
    """(face, rotation) from a classifier Reading or a plain pair."""
    if isinstance(value, tuple):
        return value[0], int(value[1])
    return getattr(value, "face", None), int(getattr(value, "rotation", 0))


HALF_TURN = np.array([[-1.0, 0, 0], [0, -1.0, 0], [0, 0, 1]])


def goals_a_row_apart(goals: Collection[Cell]) -> bool:
    """Whether two goal cards are read on neighbouring rows of one column (along the fit's
    y), where the goals lie two rows apart: one card read from both sides of a lattice lying
    half a cell off out there."""
    return any(a[0] == b[0] and abs(a[1] - b[1]) == 1 for a, b in itertools.combinations(goals, 2))


def anchor(lattice: Lattice, readings_by_cell: Mapping[Cell, object], start_hidden_at: Collection[Cell] = ()) -> Lattice:
    """The lattice in the maze frame: the start card at (0, 0), the goals (backs or turned
    over) at x = +8, y in {-2, 0, 2}. ``readings_by_cell``: cell (in ``lattice``'s frame) ->
    a classifier Reading or a (face, rotation) pair. Of the two ways the fit's axes can
    relate to the maze (as they are, or turned half a turn), the one that puts the most
    goal readings on goal places wins, then the one with more goals east of the start (of
    those within GOAL_DRIFT of a goal place), then the one that puts those goals read off
    their places nearer to them; the start fixes the origin (or, unseen, a goal place 8
    cells toward the maze, preferring one where it may lie unread: ``start_hidden_at`` when
    the caller knows, else any laid cell), unless two goals or more sit on their places
    only with the origin elsewhere (a card read as the start is then another). With no goal
    read, the half turn that puts more of the maze between the start and the goal column
    wins (the maze grows toward the goals).

    The returned lattice is in the maze frame: its crops are north-up in the maze. The
    readings given here were taken in the old frame: ``maze_from_fit`` renames their cells
    and ``half_turn`` says their rotations are 180 degrees off (``maze_readings`` does both).

    A cell read as a goal card joins the lattice's cells: goal backs lying apart from the
    maze, missed by the occupancy test, may have been found by reading the goal places.

    Raises GridError when neither the start nor a goal has been read, or, without the
    start, goals on neighbouring cells of their column."""
    faces = {cell: _reading(r)[0] for cell, r in readings_by_cell.items()}
    starts = [c for c, f in faces.items() if f == "start"]
    goals = [c for c, f in faces.items() if is_goal(f)]
    if not starts and not goals:
        raise GridError("neither the start card nor a goal card was read: the maze frame is unknown")
    if not starts and goals_a_row_apart(goals):
        # the goals lie two cells apart in a column (along the fit's y, either way round):
        # two read next to each other in it are one card read from both sides of a lattice
        # lying half a cell off out there, and which goal places they hold, no guess can say
        # (drawn bench photo 189 was framed two cells off). Two side by side across the
        # column say the same (drawn 15): the start's hiding place or the goals' drift decides.
        raise GridError("a goal card was read on two neighbouring cells: the card lattice does not line up with "
                        "the cards out there, and the maze frame is unknown")
    lattice = replace(lattice, cells=lattice.cells | frozenset(goals))
    hidden = set(start_hidden_at) or lattice.cells | lattice.crosswise | lattice.occluded
    best = None
    for turn in (np.eye(3), HALF_TURN):
        read_starts = _origins(turn, starts, [])
        for origin in read_starts + _origins(turn, [], goals):
            shift = translation(-origin[0], -origin[1])
            maze_from_fit = shift @ turn
            mapped = [map_cell(maze_from_fit, g) for g in goals]
            # goals off their places (the lattice drifts far out) lie a cell or so off: the
            # frame that puts them nearer their places is the likelier. One read far from
            # every goal place is another card misread, and says nothing (a curve beside the
            # start read as a turned-over stone goal, nearer to the goal places the wrong way
            # round, had turned a maze whose goals were unseen half a turn)
            offs = [cells_from_goal_places(c) for c in mapped]
            near = -sum(off for off in offs if off <= GOAL_DRIFT)
            # a goal off its place by a drift still says which way the maze runs; with two
            # goals read, the start's cell (a card, even if not read) tells which goal places
            # they hold
            east = sum(x > 0 for (x, _), off in zip(mapped, offs) if off <= GOAL_DRIFT)
            origin_possible = map_cell(np.linalg.inv(maze_from_fit), (0, 0)) in hidden
            # with no goal read, the maze's shape decides: it grows from the start toward the
            # goal column, so most of its cards lie between the two
            toward = sum(0 <= map_cell(maze_from_fit, c)[0] <= GOAL_COLUMN for c in lattice.cells)
            # two goals or more on their places outweigh a start read elsewhere (a crossroads
            # read as the start); one goal alone fits three ways and does not
            on_places = len(set(mapped) & set(GOAL_CELLS))
            score = (on_places >= 2, origin in read_starts, on_places, east, near, origin_possible, toward,
                     -abs(turn[0, 0] - 1))
            if best is None or score > best[0]:
                best = (score, maze_from_fit, turn is HALF_TURN)
    _, maze_from_fit, half = best
    return replace(_remap(lattice, maze_from_fit), anchored=True, half_turn=half, maze_from_fit=maze_from_fit)


def pin_cells(frame: np.ndarray, lattice: Lattice, centres: Mapping[Cell, np.ndarray]) -> Lattice:
    """The lattice refitted with these cells' centres pinned where their cards were found
    (pixels), and the cells added to it: a lattice fitted on a small maze can be most of a
    card off at the goals, eight cells out, and only the goal cards themselves say where.
    Unchanged when the refit fails."""
    pinned = refit_pinned(frame, lattice, centres) if centres else None
    return pinned[0] if pinned else lattice


def refit_pinned(frame: np.ndarray, lattice: Lattice, centres: Mapping[Cell, np.ndarray],
                 least_aspect: float = 0.5) -> tuple[Lattice, float] | None:
    """``pin_cells``'s lattice and the share of the maze's card sides that lie on its lines
    (``Refined.support``): pinned to the wrong cells, the lattice bends between the maze and
    the pins, and fewer of the sides fit. None when the refit fails."""
    cells = sorted(lattice.cells - lattice.occluded - set(centres))
    result = refine(frame, lattice.image_from_maze, cells, TRACK_SEARCH, projective=True,
                    occupied=lattice.cells, centres=centres, least_aspect=least_aspect)
    if not np.isfinite(result.error_px):
        return None
    return replace(lattice, image_from_maze=result.h, cells=lattice.cells | frozenset(centres)), result.support


def fit_to_centres(lattice: Lattice, centres: Mapping[Cell, np.ndarray]) -> Lattice:
    """The lattice refitted on where these cells' cards were found (pixels): a projective
    fit once the cells span five or more both ways, before that an affine correction of
    the lattice's own frame (its perspective kept, as ``refine`` keeps it for a patch).
    Robust: a card read a cell off (a neighbour's) is left out. Unchanged when too few."""
    if len(centres) < 4:
        return lattice
    cells = np.array(sorted(centres), np.float64)
    seen = np.array([centres[tuple(c)] for c in cells.astype(int).tolist()], np.float64)
    tolerance = 0.12 * lattice.cell_size_px()
    h = lattice.image_from_maze
    if len(cells) >= 16 and np.ptp(cells[:, 0]) >= 4 and np.ptp(cells[:, 1]) >= 4:
        fitted, inliers = cv2.findHomography(cells, seen, cv2.RANSAC, tolerance)
    else:  # where the old frame puts the cards, as an affine map of the cells
        old = apply_homography(np.linalg.inv(h), seen)
        affine, inliers = cv2.estimateAffine2D(cells, old, method=cv2.RANSAC,
                                               ransacReprojThreshold=0.12)
        fitted = None if affine is None else h @ np.vstack([affine, (0, 0, 1)])
    if fitted is None or inliers is None or inliers.sum() < 4 or not _sane(fitted, h):
        return lattice
    return replace(lattice, image_from_maze=fitted / fitted[2, 2])


def _origins(turn: np.ndarray, starts: list[Cell], goals: list[Cell]) -> list[tuple[float, float]]:
    """Where the start may be, in the turned frame: read, or 8 cells west of a goal column."""
    turned = lambda c: apply_homography(turn, [c])[0]
    if starts:
        return [tuple(turned(s)) for s in starts]
    out = []
    for g in goals:
        gx, gy = turned(g)
        for goal_y in (2, 0, -2):
            out.append((gx - GOAL_COLUMN, gy - goal_y))
    return out


def start_places(goals: Sequence[Cell], turns: Sequence[np.ndarray] = (np.eye(3), HALF_TURN)) -> list[Cell]:
    """The cells (in the fit's frame) where the start can lie for these goal cards: each
    way round of ``turns`` (both by default), every way the goals sit on distinct goal places.

    The goal cards lie in one column: one read off the column most of them share is another
    card misread, and is left out (with it, no way would fit them all, and no place be left
    to say the frame is unknown); columns as full as each other are each taken."""
    places = set()
    for column in fullest_columns(goals):
        for turn in turns:
            for origin in _origins(turn, [], column):
                maze_from_fit = translation(-origin[0], -origin[1]) @ turn
                if len({map_cell(maze_from_fit, g) for g in column} & set(GOAL_CELLS)) == len(column):
                    places.add(map_cell(np.linalg.inv(maze_from_fit), (0, 0)))
    return sorted(places)


def fullest_columns(goals: Sequence[Cell]) -> list[list[Cell]]:
    """The goal cards of each column (the fit's x) that holds the most of them: the goal
    cards lie in one column, so one read off it is another card misread."""
    columns: dict[int, list[Cell]] = {}
    for goal in sorted(set(goals)):
        columns.setdefault(goal[0], []).append(goal)
    most = max(map(len, columns.values()), default=0)
    return [c for c in columns.values() if len(c) == most]


def cells_from_goal_places(cell: Cell) -> int:
    """How far a maze cell lies from the nearest goal place (cells, the larger of along and across)."""
    return min(max(abs(cell[0] - gx), abs(cell[1] - gy)) for gx, gy in GOAL_CELLS)


def is_goal(face: str | None) -> bool:
    """A goal card, face down (its back) or turned over."""
    return bool(face) and (face == "goal-back" or face.startswith("goal-"))


def map_cell(m: np.ndarray, c: Cell) -> Cell:
    """The cell that ``m`` (an integer cell mapping: a turn and a shift) takes ``c`` to."""
    x, y = c  # (thousands of calls a photo: plain arithmetic, not apply_homography's arrays)
    return round(m[0, 0] * x + m[0, 1] * y + m[0, 2]), round(m[1, 0] * x + m[1, 1] * y + m[1, 2])


def _remap(lattice: Lattice, new_from_old: np.ndarray) -> Lattice:
    """The same lattice with its cells renamed by ``new_from_old`` (integer cell mapping)."""
    def cells(group):
        return frozenset(map_cell(new_from_old, c) for c in group)

    return replace(
        lattice,
        image_from_maze=lattice.image_from_maze @ np.linalg.inv(new_from_old),
        cells=cells(lattice.cells),
        occupancy={map_cell(new_from_old, c): v for c, v in lattice.occupancy.items()},
        crosswise=cells(lattice.crosswise),
        occluded=cells(lattice.occluded),
    )


def maze_readings(lattice: Lattice, readings_by_cell: Mapping[Cell, object]) -> dict[Cell, tuple[str | None, int]]:
    """Readings taken in the frame ``anchor`` was given, as (face, rotation) in the maze
    frame: cells renamed by ``maze_from_fit``, rotations turned when ``half_turn``."""
    out = {}
    for cell, value in readings_by_cell.items():
        face, rotation = _reading(value)
        out[map_cell(lattice.maze_from_fit, cell)] = (face, (rotation + 180) % 360 if lattice.half_turn else rotation)
    return out


# =========================================================================== tracking


class GridTracker:
    """The lattice across the frames of a fixed camera.

    The first frame (and any frame where the check fails) gets a full ``fit_lattice``;
    later frames re-snap the previous lattice in a small window and refit its homography,
    then re-judge occupancy. Once ``set_anchor`` has been given readings, lattices come back
    in the maze frame, and a refit is mapped onto the last lattice's cells so cell names
    stay put, even after ``forget`` or a frame where no lattice was found: a fresh anchor
    could turn the maze half a turn (the start card is symmetric, and the goals may be
    hidden), and every committed card would seem to move."""

    def __init__(self, *, calibration=None, work_width: int = tbl.WORK_WIDTH, min_support: float = 0.25,
                 reads_cards: CardCheck | None = None, locates_cards: CardFinder | None = None):
        self.calibration = calibration
        self.work_width = work_width
        self.reads_cards = reads_cards
        self.locates_cards = locates_cards
        self.min_support = min_support
        self.lattice: Lattice | None = None
        self.refits = 0
        self._last: Lattice | None = None  # whose cell names a refit keeps

    def update(self, frame: np.ndarray) -> Lattice:
        if self._last is not None and self._last.frame_size != (frame.shape[1], frame.shape[0]):
            # another resolution (a camera reconfigured, a folder of photos of several sizes):
            # the old lattice's pixels mean nothing here, nor do its cells' names
            self.lattice = self._last = None
        previous = self.lattice
        lattice = None
        if previous is not None and previous.cells:
            lattice = self._track(frame, previous)
        if lattice is None:
            self.lattice = None  # should the fit fail, the next frame fits afresh too
            fitted = fit_lattice(frame, calibration=self.calibration, work_width=self.work_width,
                                 reads_cards=self.reads_cards, locates_cards=self.locates_cards)
            self.refits += 1
            lattice = _carry_frame(fitted, self._last) if self._last is not None else fitted
        self.lattice = lattice
        if lattice.anchored or self._last is None or not self._last.anchored:
            self._last = lattice  # until it is anchored, a fresh fit does not replace named cells
        return lattice

    def recentred(self, frame: np.ndarray) -> Lattice | None:
        """The tracked lattice refitted on where ``locates_cards`` finds its cards in
        ``frame`` (``_centred_on_cards``), its cells named as before; None where nothing
        changed. What is tracked stays so until ``keep``."""
        lattice = self.lattice
        if lattice is None or self.locates_cards is None:
            return None
        work = _Work(frame, _working_width(frame.shape[1], lattice.cell_size_px(), self.work_width))
        centred = _centred_on_cards(work, frame, lattice, self.locates_cards, {})
        if centred is lattice:
            return None
        return replace(centred, anchored=lattice.anchored, half_turn=lattice.half_turn,
                       maze_from_fit=lattice.maze_from_fit)

    def keep(self, lattice: Lattice) -> None:
        """Track ``lattice`` (a ``recentred`` one) from now on."""
        self.lattice = self._last = lattice

    def forget(self) -> None:
        """Fit afresh on the next frame (the tracked lattice is doubted), keeping its cell
        names for the new fit where it lands on the same cells."""
        self.lattice = None

    def set_anchor(self, readings_by_cell: Mapping[Cell, object], start_hidden_at: Collection[Cell] = ()) -> Lattice:
        if self.lattice is None:
            raise GridError("no lattice yet: call update with a frame first")
        self.lattice = self._last = anchor(self.lattice, readings_by_cell, start_hidden_at)
        return self.lattice

    def _track(self, frame: np.ndarray, previous: Lattice) -> Lattice | None:
        cells = sorted(previous.cells - previous.occluded)
        if len(cells) < 2:
            return None
        result = refine(frame, previous.image_from_maze, cells, TRACK_SEARCH, iterations=1)
        if result.support < self.min_support or not _sane(result.h, previous.image_from_maze):
            return None
        work = _Work(frame, _working_width(frame.shape[1], previous.cell_size_px(), self.work_width))
        judged = judge(work, result.h, result.support, result.error_px, previous)
        if not judged.cells:
            return None
        if len((judged.cells | judged.occluded) & previous.cells) < 0.5 * len(previous.cells):
            # half a maze does not vanish between two frames while its edges still snap:
            # something the skin test missed covers it (a dark hand on a dark table)
            judged = replace(judged, occluded=judged.occluded | (previous.cells - judged.cells - judged.crosswise))
        return replace(judged, anchored=previous.anchored, half_turn=previous.half_turn,
                       maze_from_fit=previous.maze_from_fit)

def _carry_frame(fitted: Lattice, previous: Lattice) -> Lattice:
    """Express a fresh fit in the previous lattice's cell names (same cells, same frame) by
    the half turn and shift that best lay the new cell centres on the old ones."""
    # the cells under a hand too: while one covers the maze, the lattice may hold a single
    # cell in view, which a fit lines up with turned half a turn or not alike (a film of a
    # foreign printing had its maze named turned, and committed seven cards where none lay)
    old_cells = sorted(previous.cells | previous.occluded) or [(0, 0)]
    old_centres = apply_homography(previous.image_from_maze, old_cells)
    inv_new = np.linalg.inv(fitted.image_from_maze)
    in_new = apply_homography(inv_new, old_centres)  # old cells' centres in the new cell frame
    best = None
    for turn in (np.eye(3), HALF_TURN):
        # maze_from_fit: new cell -> old cell; old = turn @ new + t
        turned = apply_homography(turn, in_new)
        t = np.round(np.median(np.asarray(old_cells, float) - turned, axis=0))
        err = np.abs(turned + t - np.asarray(old_cells, float)).max()
        if best is None or err < best[0]:
            best = (err, translation(*t) @ turn)
    err, old_from_new = best
    if err > 0.3:
        return fitted  # the camera moved too far to tell: a new frame of reference
    return replace(_remap(fitted, old_from_new), anchored=previous.anchored, half_turn=previous.half_turn,
                   maze_from_fit=previous.maze_from_fit)
