"""Frames to Observations: the stages of DESIGN.md's picture, one after the other.

    frame -> table + grid (lattice) -> cell crops -> classify (one batch) -> read (priors)
          -> Observation -> (video) track

``observe`` reads one photo from scratch (``tunnelvision check``). ``step`` reads the next
frame of a fixed camera, keeping the lattice from frame to frame and saying whether the
frame is busy (a hand over the maze, or motion) so the tracker does not commit from it.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from engine.board import GOAL_CELLS, START_CELL
from engine.catalogue import EDGE_BITS, OPPOSITE, STEP, Catalogue, default_catalogue, neighbours, with_neighbours

from .classes import tunnel_signature
from .classify import Classifier
from .grid import (GOAL_COLUMN, GOAL_DRIFT, HALF_TURN, GridError, GridTracker, Lattice, anchor, cell_crops,
                   cells_from_goal_places, fit_lattice, fullest_columns, goals_a_row_apart, is_goal, lone_card_centres,
                   map_cell, maze_readings, moved_crop, pin_cells, refit_pinned, start_places)
from .focus import BLURRED_SHARE, blur
from .light import BURNT_SHARE, brightened, burnt_share, cards_white, cast_gains, recoloured
from .observation import MAYBE_EMPTY, Observation, SeenCard, Unsure, maze_report
from .read import VARIANTS, read_cells
from .table import TableError

Cell = tuple[int, int]
CROP = (64, 96)
# Mean absolute change of the downscaled maze region (0..255) above which a frame is "moving".
MOTION_LEVEL = 6.0
# A cell less than this share in the frame is not read: a card cut by the frame's edge is
# read rightly down to about half of it in view, and wrongly below that (bench photos); the
# lattice's share is a few points off the card's near the frame's edge (drift, the lens),
# and at 0.6 it let three cards 56 % in view be read wrongly.
IN_VIEW = 0.65
# A cell's share in view from which it lies wholly in the frame (Lattice.share_in_view measures
# in single precision: of 2,000 random cells, those wholly inside came to 1 within 1e-7, those
# partly out to 0.9998 at most).
WHOLLY_IN_VIEW = 0.99999
# A tracked lattice is dropped after this many quiet frames in a row in which more than
# this share of its occupied cells read as no maze card at all.
DOUBTS_BEFORE_REFIT = 3
# What a tracked lattice reads on a still view that has it centred on the cards once
# (``Pipeline.step``).
UNREAD = ("not-a-maze-card", "low-confidence", "unknown-card", "off-cell", "conflict", "unconfirmed")
PLAUSIBLE_ALIEN_SHARE = 0.4
# A photo's lattice must also read this share of its occupied cells surely as maze cards (on
# the bench photos, lattices that do not line up read 0.12-0.32; those that do, 0.54 or more).
PHOTO_SURE_SHARE = 0.4
# A photo's long side is brought down to this before it is read: the grid and the crops
# were made and measured on 1080p frames. The 200 bench photos at a phone's 4032 x 3024,
# read whole, read 16 cards wrongly and 23 where none lies, and framed 2 mazes off; brought
# down to 1920 x 1440 first, 10, 6 and 1 (the median photo in 0.79 s against 0.93 s).
READ_SIDE = 1920
# The start's frame is taken over the goals' (``Pipeline._framed_at_start``) when its lattice
# reads this much larger a share of its cells surely as maze cards: a lattice bent a cell
# across the maze still reads many of them surely (12 MP bench photo 7, drifted: 1.0 in the
# start's frame against 0.84; a test photo's drift 1.0 against 0.91, and with a card beside
# the hidden start misread as it, 0.72 to 0.9 against 1.0).
START_FRAME_MORE = 0.05
READ_BATCH = 256  # crops made and read at once where many are read (the searches)
MOTION_WIDTH = 320  # the frame is compared at this width: enough for a hand, cheap
# A tracked lattice is kept without re-judging while no block of CHANGE_BLOCK x CHANGE_BLOCK
# pixels (at MOTION_WIDTH: about a third of a card) of the frame, blurred by CHANGE_BLUR
# pixels, differs on average by more than CHANGE_LEVEL grey levels from the frame it was
# judged on. The blur takes out a camera's shake of a pixel or so and sensor noise (still
# frames of the synthetic films: at most 7.5 levels); a card laid or turned over, a hand or
# a camera that moved by a card's width changes a block by 35 or more.
CHANGE_BLOCK = 8
CHANGE_BLUR = 2.0
CHANGE_LEVEL = 15.0
# Re-crop offsets for re-examining a suspect cell: (dx, dy, scale) in cells.
RECROPS = ((0.04, 0.0, 1.0), (-0.04, 0.0, 1.0), (0.0, 0.03, 1.04), (0.0, -0.03, 0.96))
assert len(RECROPS) == VARIANTS
# Shifts (cells) of the crops that look for a goal card on its place: up to a card and a
# quarter along x, where a lattice fitted on a small maze extrapolates worst (8 cells out).
GOAL_ALONG = np.arange(-1.25, 1.26, 0.25)
GOAL_SEARCH = tuple((dx, dy) for dx in GOAL_ALONG for dy in (-0.2, 0.0, 0.2))
# The same within a cell's half-width, for a goal looked for beside another (two cells along):
# the place is a guess, and a card a whole cell across is another place's.
BESIDE_SEARCH = tuple((dx, dy) for dx, dy in GOAL_SEARCH if abs(dx) < 0.5)
# Further across, for goal places where GOAL_SEARCH found none: a lattice fitted on a few
# cards (the rest under an arm) can be a whole cell off across eight cells out (drawn
# bench photo 183: its goals lay 0.5, 0.9 and 1.2 cells off). A goal place's neighbours
# across are two cells away: a card found 0.6 off is still this place's.
GOAL_SEARCH_ACROSS = tuple((dx, dy) for dx in GOAL_ALONG for dy in (-0.6, -0.4, 0.4, 0.6))
# Shifts (cells) of the crops that find where each card lies (_locates_cards): a cross
# along and across, and the four diagonals; the classifier reads a card surely within about
# a fifth of a cell of its middle, so a card off both ways by that much is read only there.
CENTRE_SHIFTS = tuple((d, 0.0) for d in (-0.3, -0.15, 0.0, 0.15, 0.3)) + tuple(
    (0.0, d) for d in (-0.3, -0.15, 0.15, 0.3)) + tuple((dx, dy) for dx in (-0.2, 0.2) for dy in (-0.2, 0.2))
# A card about to be committed is confirmed when the crops at CENTRE_SHIFTS read its tunnels
# surely with at least this share of the weight (summed confidence) of the tunnels they read
# most. On the 200 drawn 720p bench photos, asking for its tunnels to be the most read
# doubted 29 of 4,452 path cards read right (a shift cuts a dead end's stub or a T's short
# arm off), half of their weight 8. On the drawn films read with every crop cut 6 pixels
# off, either kept out all 6 wrong commits; the first held back a right one more (126 of
# 127 committed with the crops cut 6 pixels the other way), this none.
CONFIRMED_SHARE = 0.5
# A goal found this far (cells) from its place pins the lattice there.
GOAL_PIN_FROM = 0.2
# Three goal cards found make a goal column when the middle one lies within this share of
# their spacing from the midpoint of the outer two (perspective shifts it a little).
GOAL_COLUMN_SLACK = 0.25
# The goal cards of one column found further apart across it than this (cells) say the
# lattice is sheared or bent out there: the goal cards lie in one column of the cards.
GOAL_COLUMN_SLANT = 0.7
# The goal cards of one column lie two cells apart: the outer two of three found further from
# four of the lattice's cells apart than this share say its scale is off out at the goals,
# and so its count of columns from the maze to them (drawn bench photo 189, read with draw 1:
# its goals 3.7 cells apart, 0.075 off, the maze named a column off; on the bench photos
# framed right, up to 0.05 off, at 720p).
GOAL_SPACING_SLACK = 0.06
# Pinned to the goal cards found in one column, the lattice whose lines the maze's card sides
# fit best by at least this share of them (``Refined.support``) is the goal column's: on the
# bench photos that come to it, the right one beat the next by 0.13 to 0.18 (1080p, lenses
# up to 0.2); recounting the goals' column (``_recounted_to_goals``), by 0.10 and 0.18 on
# fresh 1080p photos 1155 and 1256 (12 MP photo 187, by 0.03, is left as read).
PIN_SUPPORT_MARGIN = 0.08
# The start card found this far (cells) off its cell lies as much on the next one: the
# lattice was fitted between the cards (a phase error), and any frame it gives is a guess.
START_STRADDLES = 0.45
# With the start not read on the maze's cells (under a hand, or read unsurely) and not every
# goal, goal cards are looked for GOAL_REACH cells out around the maze, at half-cell steps
# across and quarter-cell steps along (the classifier reads a card surely within about a
# fifth of a cell across it and a tenth along): they lie apart from the maze (up to eight
# cells from the start), where the lattice extrapolates up to a card off and the occupancy
# test may not see them.
GOAL_REACH = 9
# Gaps in a maze are cells that rockfalls emptied, seldom two in a row: a card up to three
# cells from the rest of the maze (or the start's or a goal's place) is taken to be in it
MAZE_REACH = 3
AROUND_STEPS = tuple((dx, dy) for dx in (0.0, 0.5) for dy in (0.0, 0.25, 0.5, 0.75))


def load_reading_parts(model: str | None = None, *, deck: str | None = None, calibration: str | None = None,
                       threads: int = 1) -> tuple[Classifier, object | None]:
    """The classifier (with the deck calibration's prototypes) and the table calibration, from files.

    Raises ModelError, DeckCalibrationError or CalibrationError, each with one sentence.
    """
    classifier = Classifier(model, threads=threads)
    if deck:
        from calibration.deck import load_prototypes

        classifier.prototypes = load_prototypes(deck, classifier)
    table = None
    if calibration:
        from calibration.table import TableCalibration

        table = TableCalibration.load(calibration)
    return classifier, table


def game_faces(catalogue: Catalogue, game: str) -> set[str]:
    sets = ("base", "saboteur2") if game == "saboteur2" else ("base",)
    return {f.id for f in catalogue.faces.values() if f.set in sets or f.set == "custom"}


def _within_reach(seeds: Iterable[Cell], cells: set[Cell]) -> set[Cell]:
    """The cells among ``cells`` that a chain of them, MAZE_REACH cells a step at most, links to a seed."""
    linked, todo = set(), list(seeds)
    while todo:
        x0, y0 = todo.pop()
        near = {c for c in cells - linked if max(abs(c[0] - x0), abs(c[1] - y0)) <= MAZE_REACH}
        linked |= near
        todo += near
    return linked


def _off_the_maze(cells: set[Cell], lattice: Lattice, spare: int) -> set[Cell]:
    """The cells among ``cells`` that no chain of them links to the start's place or a
    goal's: every card is laid next to the maze, and only rockfalls open gaps in it. A group
    of them may be linked through what the photo does not show, and stays when it lies
    within reach of a hidden cell (out of the frame, or under a hand) that a path of at most
    ``spare`` cards (those the maze has not used) can reach from the maze through hidden
    cells. A loose card by the frame's far edge is apart: the path out of the frame and back
    would take more cards than the deck holds (printed bench photo 44 after a rockfall: a
    card 14 columns past the goals was accused of touching no other)."""
    linked = _within_reach([START_CELL, *GOAL_CELLS], cells)
    apart = cells - linked
    if not apart:
        return set()
    reach = range(-MAZE_REACH, MAZE_REACH + 1)

    def around(group: Iterable[Cell]) -> set[Cell]:
        return {(x + dx, y + dy) for x, y in group for dx in reach for dy in reach}

    def hidden(candidates: set[Cell]) -> set[Cell]:
        candidates = candidates - reached
        shares = lattice.shares_in_view(sorted(candidates - lattice.occluded))
        return {c for c in candidates if c in lattice.occluded or shares[c] < IN_VIEW}

    def steps_to_reach(cell: Cell) -> int:
        return min(max(0, abs(cell[0] - x) - MAZE_REACH) + max(0, abs(cell[1] - y) - MAZE_REACH) for x, y in apart)

    reached: set[Cell] = set()
    ends = hidden(around(linked | {START_CELL, *GOAL_CELLS}))
    for left in range(spare - 1, -1, -1):  # the cards left once the ends are laid
        # a path that cannot come within reach of a card apart with the cards left is not followed
        ends = {c for c in ends if steps_to_reach(c) <= left}
        if not ends:
            break
        reached |= ends
        ends = hidden({n for c in ends for n in neighbours(c)})
    by_the_edge = [c for c in apart if not around([c]).isdisjoint(reached)]
    return apart - _within_reach(by_the_edge, apart)


def _beyond_the_frame(lattice: Lattice, read: set[Cell], reported: set[Cell]) -> list[Cell]:
    """The cells of the maze's box (the cards read and the start's place) mostly outside the
    frame, but for those ``reported`` already. A card may lie on each: a card's way back to
    the start may run there, and where the start lies beyond the frame's edge it must (fresh
    bench photos 1257 and 1405 after a rockfall: taken for bare table, it cut 8 and 12 legal
    cards off the start)."""
    maze = read | {START_CELL}
    xs, ys = [x for x, _ in maze], [y for _, y in maze]
    box = {(x, y) for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1)}
    return sorted(c for c, share in lattice.shares_in_view(sorted(box - reported)).items() if share < IN_VIEW)


def _recrop(frame: np.ndarray, lattice: Lattice):
    """Crops of a cell slightly shifted or scaled about its centre, for re-examining it."""
    return lambda cell, variant: moved_crop(frame, lattice, cell, *RECROPS[variant], size=CROP)


# The lens a photo in which no maze is found, or whose maze reads weakly, is straightened
# from, to try once more: a frame corner moved by 5 % of the half diagonal, a typical wide
# webcam's barrel (calibration.lens).
GUESSED_LENS = 0.05
# A maze whose lattice reads fewer than this share of its cells surely as cards reads
# weakly: the lattice may lean off the cards a lens bent (a third of its cells read as
# nothing or unsurely), and the photo is read straightened too. The straightened reading is
# taken when it reads more cards, and a share of its cells STRAIGHTENED_SURER_BY larger,
# surely, or as surely with fewer cards the rules fault (``_reads_better``). On the bench
# photos of Session 48 (eight sets of 200) 16 mazes read below 0.75.
# Five straightened read surer by 0.21 to 0.48: 73 cards more right, 40 fewer wrongly or
# where none lies (two of the five had been named a cell off), one photo a card more wrongly.
# The others read no better: surer by 0.12 or less, or no more cards (ten right either way).
WEAK_SURE_SHARE = 0.75
STRAIGHTENED_SURER_BY = 0.15
# The shares of its occupied cells the straightened photo's lattice must read surely as maze
# cards, and may read as something else: a second guess is held to more than a photo as
# taken (PHOTO_SURE_SHARE, PLAUSIBLE_ALIEN_SHARE). On the bench photos (Session 47) the
# straightened lattices that lined up with the cards read 0.69 to 1 of their cells surely
# and 0 to 0.17 as something else; the two that did not (named two cells off, or 3 cards
# read wrongly and 14 where none lies), 0.60 and 0.40, 0.41 and 0.33.
STRAIGHTENED_PLAUSIBLE = (0.65, 0.25)
STRAIGHTENED = ("the maze was not found or read weakly in the picture as taken, so it was read straightened as from a "
                "wide-angle lens; a fixed camera can have its own lens measured (calibrate-table with photos of the "
                "marker sheet)")
# With no goal card read, which way the maze runs is the maze's shape's guess (it grows from
# the start toward the goals): right on most photos, but with the goals out of the frame or
# under an arm, a maze grown back past the start is read turned half a turn (drawn photo
# 1341). The user is told; the rules' verdicts on the cards read are the same either way.
DIRECTION_GUESSED = ("no goal card was read, so which way the maze runs was judged from its shape (it grows toward "
                     "the goals): every cell may be named turned half a turn about the start; the verdicts on the "
                     "cards read are the same either way")
# What a picture without colour costs (the skin test goes by colour): the user is told.
NO_COLOUR = ("the picture has no colour (a black-and-white photo, a webcam's night mode): a hand over the maze "
             "cannot be told from the cards, and a card under one may be misread")
# A picture taken too dark is brought up (light.brightened), but its noise comes up with it:
# the 200 drawn bench photos 0.4 as bright read 92.8 % of their cards in view right brought
# up (98.1 % in good light), and the dim films committed cards wrongly either way. The user
# is told.
DARK = ("the picture is dark (a dim room, or the camera's exposure locked low): it was brightened to be read, "
        "but its noise can be misread as cards: light the table better")
# A picture whose cards' white clips (light.burnt_share) cannot be mended: the user is told.
BURNT = ("the cards' white is burnt out (the camera's exposure set for a darker table, or a lamp too close): "
         "a card whose tunnels cannot be told from its rock is left unread: lower the exposure or the light")
# Nor can a picture out of focus (focus.blur), where cards are misread as well as left unread.
BLURRED = ("the picture is blurred (the camera out of focus, or shaken): the cards' tunnels run into their rock, "
           "and a card may be misread: focus the camera or hold it still, and take the picture again")
COLOURED = 12  # a pixel's largest channel less its smallest (0..255) from which it shows a colour
# Cards narrower than this (pixels, as read) are read unreliably: on the 200 drawn bench
# photos at 640 x 480, those whose cards were under 25 px wide held 91 of the 95 cards read
# wrongly or where none lies and all 3 mazes framed a cell off; at 1080p none is so small.
SMALL_CARD_PX = 25.0
SMALL_CARDS = (f"the cards are less than {SMALL_CARD_PX:.0f} pixels wide in the picture, too few to read them "
               "surely: bring the camera closer or raise its resolution")


def colourless(frame: np.ndarray) -> bool:
    """Whether a picture (BGR) is grey throughout: a grey JPEG loads as three equal channels,
    and a webcam's night mode sends nearly that. A colour photo can be as grey on average (a
    dark grey cloth, grey-blue cards: 3 of 100 fresh bench photos were once told they had no
    colour), but its goal backs, loose cards and hands are not: a picture has colour where
    one pixel in a thousand shows one (in those 100 photos the thousandth most coloured
    pixel showed 58 or more; in them turned grey, 0, even through a JPEG with noise)."""
    sample = frame[::16, ::16].astype(np.int16)  # a pixel in 256 is plenty, and costs next to nothing
    b, g, r = sample[..., 0], sample[..., 1], sample[..., 2]  # (reducing over a 3-wide axis is 7 times slower)
    chroma = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
    return np.count_nonzero(chroma >= COLOURED) * 1000 < chroma.size


def _as_read(frame: np.ndarray) -> tuple[np.ndarray, bool]:
    """The photo as it is read: brought down to READ_SIDE pixels on its long side, if larger
    (averaging pixels, as a camera's own downscaling would), and brought up to what the
    bench's photos show where it was taken too dark (``light.brightened``); and whether it
    was."""
    scale = READ_SIDE / max(frame.shape[:2])
    if scale < 1:
        size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
        frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    up = brightened(frame)
    return up, up is not frame


def _sure(reading) -> bool:
    """A reading the classifier is sure of that names a card (not the bare table)."""
    return not reading.uncertain and reading.face is not None


def _card_offset(readings) -> tuple[float, float] | None:
    """Where (cells) a card lies off its cell, from its readings at CENTRE_SHIFTS: the mean
    of the shifts that read surely the card most of them name (a far shift may read the
    neighbour's card)."""
    sure = [(r, d) for r, d in zip(readings, CENTRE_SHIFTS) if _sure(r)]
    if not sure:
        return None
    weight = Counter()
    for r, _ in sure:
        weight[r.card] += r.confidence
    card = max(weight, key=weight.get)
    offset = np.mean([d for r, d in sure if r.card == card], axis=0)
    return float(offset[0]), float(offset[1])


def _add_goals_found(observation: Observation, lattice: Lattice, readings: Mapping[Cell, object]) -> None:
    """The goal cards among the anchoring's sure ``readings`` (in the fit's frame, found by
    crops shifted about the goal places) added to the ``observation`` of the anchored
    ``lattice`` where their cell, in view and under no hand, read no card.

    A goal card lies only on a goal place, and the lattice, extrapolated eight cells out and
    pinned to the goals found, can still be a fifth of a card or more off one of them, whose
    own crop then reads unsurely or as the table beside it. Added after the lattice is
    judged by its own readings: these say nothing of whether it lines up with the cards."""
    goals = {c: r for c, r in readings.items() if is_goal(r.face)}
    confidence = {map_cell(lattice.maze_from_fit, c): r.confidence for c, r in goals.items()}
    places = _unread_goal_places(observation, lattice)
    _add_found(observation, [SeenCard(cell[0], cell[1], face, rotation, confidence[cell])
                             for cell, (face, rotation) in maze_readings(lattice, goals).items() if cell in places])


def _goal_near_places(readings: Mapping[Cell, object], start: Cell) -> bool:
    """Whether a goal card is among these readings (in the fit's frame) within GOAL_DRIFT of
    a goal place, either way round from the start: it decides which way the maze runs
    (``anchor``); one read elsewhere is another card misread."""
    sx, sy = start
    return any(cells_from_goal_places((turn * (x - sx), turn * (y - sy))) <= GOAL_DRIFT
               for (x, y), r in readings.items() if is_goal(r.face) for turn in (1, -1))


def _direction_from_shape(readings: Mapping[Cell, object], observation: Observation | None = None) -> bool:
    """Whether the anchoring's readings leave the maze's shape alone to say which way it
    runs (the start read, no goal card near the goal places), and the observation, when
    given, reads no goal card either (a goal card is read only on its place)."""
    starts = [c for c, r in readings.items() if r.face == "start"]
    return (len(starts) == 1 and not _goal_near_places(readings, starts[0])
            and (observation is None or not any(is_goal(c.face) for c in observation.cards)))


def _unread_goal_places(observation: Observation, lattice: Lattice) -> list[Cell]:
    """The goal places in view and under no hand on which ``observation`` reads no card."""
    read = {c.cell for c in observation.cards}
    return [c for c in GOAL_CELLS if c not in read and c not in lattice.occluded
            and lattice.share_in_view(c) >= IN_VIEW]


def _add_found(observation: Observation, cards: list[SeenCard]) -> None:
    """Cards found apart from the lattice's own reading of their cells (goal cards, by crops
    shifted about their places) added to ``observation``: their cells are uncertain no more."""
    if not cards:
        return
    found = {c.cell for c in cards}
    observation.cards = sorted(observation.cards + cards, key=lambda c: c.cell)
    observation.uncertain = [u for u in observation.uncertain if u.cell not in found]


def _cells_off(lattice: Lattice, cell: Cell, point_px) -> float:
    """How far (cells, the larger of along and across) a card found at ``point_px`` lies off ``cell``."""
    x, y = lattice.point_at(point_px)
    return max(abs(x - cell[0]), abs(y - cell[1]))


def _goal_column(cells: Sequence[Cell], points: Sequence[np.ndarray]) -> bool:
    """Whether three goal cards found on these lattice cells, lying at these pixels (in the
    cells' order along the lattice's y), can be the goal column: in a row, evenly spaced
    (the middle within GOAL_COLUMN_SLACK of the spacing from the outer two's midpoint), the
    outer two three to five of the lattice's cells apart (four, where it is right)."""
    p = np.asarray(points, np.float64)
    spacing = np.linalg.norm(p[2] - p[0]) / 2
    apart = float(np.hypot(cells[2][0] - cells[0][0], cells[2][1] - cells[0][1]))
    return bool(spacing > 0 and np.linalg.norm(p[1] - (p[0] + p[2]) / 2) <= GOAL_COLUMN_SLACK * spacing
                and 3 <= apart <= 5)


def _read_on_both_sides(goals: Sequence[Cell]) -> bool:
    """Whether a goal card is read on the cells either side of it across the goals' column
    (which runs along the fit's y), as a lattice lying half a cell off out there reads it."""
    return any(a[1] == b[1] and abs(a[0] - b[0]) == 1 for a, b in itertools.combinations(goals, 2))


def _column_between(lattice: Lattice, goals: Sequence[Cell], at: Mapping[Cell, np.ndarray]) -> int:
    """+1 or -1 when every goal card read in a goals' column (which runs along the fit's y;
    a column most of them share, as ``start_places`` takes them) was found (``at``, pixels)
    half a cell or more off its cell the same way: the whole column lies between two of the
    lattice's, the step to the other; 0 otherwise."""
    for column in fullest_columns(goals):
        offs = [lattice.point_at(at[c])[0] - c[0] if c in at else 0.0 for c in column]
        if step := next((s for s in (1, -1) if all(s * off >= START_STRADDLES for off in offs)), 0):
            return step
    return 0


def _goal_column_threes(goals: Iterable[Cell]) -> Iterator[tuple[Cell, Cell, Cell]]:
    """Every three of these goal cells on rows two apart, in columns at most one apart (a
    goals' column, which runs along the fit's y), in the order of their rows."""
    for three in itertools.combinations(sorted(set(goals), key=lambda c: c[1]), len(GOAL_CELLS)):
        rows, columns = [c[1] for c in three], [c[0] for c in three]
        if rows[1] - rows[0] == rows[2] - rows[1] == 2 and max(columns) - min(columns) <= 1:
            yield three


def _column_slanted(lattice: Lattice, goals: Sequence[Cell], at: Mapping[Cell, np.ndarray]) -> bool:
    """Whether three goal cards of a goals' column (``_goal_column_threes``) were found
    (``at``, pixels; the others on their cells) further apart across the column than
    GOAL_COLUMN_SLANT: a lattice sheared or bent out there, whose column count from the
    maze to the goals no reading vouches for."""
    across = {c: lattice.point_at(at[c])[0] if c in at else c[0] for c in goals}
    return any(max(across[c] for c in three) - min(across[c] for c in three) > GOAL_COLUMN_SLANT
               for three in _goal_column_threes(goals))


def _column_spaced_off(lattice: Lattice, at: Mapping[Cell, np.ndarray]) -> bool:
    """Whether three goal cards of a goals' column (``_goal_column_threes``), found where
    ``at`` says (pixels), lie further from four of the lattice's cells apart along it than
    GOAL_SPACING_SLACK allows: a lattice off in scale out there."""
    return any(abs((lattice.point_at(at[last])[1] - lattice.point_at(at[first])[1]) / 4 - 1) > GOAL_SPACING_SLACK
               for first, _, last in _goal_column_threes(at))


def _shares(observation: Observation, lattice: Lattice) -> tuple[float, float]:
    """The shares of the lattice's occupied cells (under no hand, laid square) that read
    surely as maze cards (``_sure_cards``), and that read as something else (1 and 0 with
    none occupied)."""
    occupied = lattice.cells - lattice.occluded - lattice.crosswise
    if not occupied:
        return 1.0, 0.0
    alien = sum(1 for u in observation.uncertain
                if u.cell in occupied and u.reason in ("not-a-maze-card", "unknown-card"))
    return len(_sure_cards(observation) & occupied) / len(occupied), alien / len(occupied)


def _hemmed_in(bare: set[Cell], observation: Observation) -> set[Cell]:
    """The cells read as bare table that cells under a hand or read as no maze card (a
    hand, an arm) border on two sides or more: the same arm lies over them, and where its
    skin has the table's colour and tone, it reads as table however surely (foreign-printing
    bench photo 189: an arm of a dark skin over a dark table hid five cards, two of them
    read as table, and three legal cards were accused of having no way back to the start)."""
    covered = _covered(observation)
    return {c for c in bare if sum(n in covered for n in neighbours(c)) >= 2}


def _covered(observation: Observation) -> set[Cell]:
    """The cells under a hand, or read as no maze card (a hand or an arm the skin test missed)."""
    return {u.cell for u in observation.uncertain if u.reason in ("occluded", "not-a-maze-card")}


def _rejoining(bare: set[Cell], observation: Observation, catalogue: Catalogue) -> set[Cell]:
    """The cells read as bare table beside one under a hand or read as no maze card, on
    which a card would give cards the report says lack a way back to the start
    (``maze_report``) one: an arm of the table's colour reaching out from a hand reads as
    table however surely, and cuts them off (12 MP bench photo 123: a dark arm over a wooden
    table hid two cards, and six legal cards were accused of having no way back, the card
    laid last called illegal). A rockfall's hole beside a hand is given the doubt with them."""
    covered = _covered(observation)
    beside = sorted(c for c in bare if any(n in covered for n in neighbours(c)))
    if not beside:
        return set()
    faulted = _faulted(observation, catalogue)
    if not faulted:
        return set()
    return {c for c in beside if _faulted(observation, catalogue, doubted=[c]) < faulted}


def _cast(frame: np.ndarray, lattice: Lattice) -> np.ndarray | None:
    """``light.cast_gains`` of the white of the cards the lattice sees (under no hand)."""
    return cast_gains(cards_white(frame, [lattice.quad(c) for c in sorted(lattice.cells - lattice.occluded)]))


def _faults(frame: np.ndarray, lattice: Lattice | None) -> list[str]:
    """The warnings about the picture that the cards the lattice sees in view and under no
    hand give: their white burnt out (``light.burnt_share``), their edges blurred
    (``focus.blur``)."""
    if lattice is None:
        return []
    quads = [lattice.quad(c) for c in sorted(lattice.cells - lattice.occluded) if lattice.share_in_view(c) >= IN_VIEW]
    if not quads:
        return []
    faults = [BURNT] if burnt_share(frame, quads) >= BURNT_SHARE else []
    # cards too small to read surely are warned of as such (SMALL_CARDS): a few pixels wide,
    # any camera's blur spreads their edges as far as a lens out of focus does a card's
    card_px = lattice.cell_size_px()
    if card_px >= SMALL_CARD_PX and blur(frame, quads, card_px) >= BLURRED_SHARE:
        faults.append(BLURRED)
    return faults


def _sure_cards(observation: Observation) -> set[Cell]:
    """The cells read surely as maze cards, which judge a lattice: the cards, and those read
    so but not borne out by other crops of them ("unconfirmed": which card lies there is in
    doubt, not that one does)."""
    return {c.cell for c in observation.cards} | {u.cell for u in observation.uncertain
                                                   if u.reason == "unconfirmed"}


def _reads_better(straightened: tuple[Observation, float], as_taken: tuple[Observation, float],
                  catalogue: Catalogue) -> bool:
    """Whether a photo's straightened reading is to be taken over its reading as taken
    (each with the share of its lattice's occupied cells read surely): it reads more cards
    surely, and a share STRAIGHTENED_SURER_BY larger; or, as surely and no fewer, it has
    fewer cards the rules fault. A maze on the table is almost always legal, and a lattice
    leaning off a bent maze cuts cells across two cards, whose tunnels then miss their
    neighbours' where the cards' own meet."""
    (better, surely), (first, sure) = straightened, as_taken
    more, as_many = len(_sure_cards(better)), len(_sure_cards(first))
    if more > as_many and surely >= sure + STRAIGHTENED_SURER_BY:
        return True
    return more >= as_many and surely >= sure and _faulted(better, catalogue) < _faulted(first, catalogue)


def _faulted(observation: Observation, catalogue: Catalogue, doubted: Iterable[Cell] = ()) -> int:
    """How many of the cards read the rules fault (``maze_report``: a rule broken, or no
    way back to the start), the cells not read, and those ``doubted``, given the doubt."""
    return len(maze_report(observation.board(catalogue), [*(u.cell for u in observation.uncertain), *doubted]))


def _plausible(observation: Observation, lattice: Lattice, least_sure: float = 0.0,
               most_alien: float = PLAUSIBLE_ALIEN_SHARE) -> bool:
    """Whether most occupied cells of the lattice read as maze cards (sure or not), not as
    something else: off by half a card or at twice the pitch, cells straddle two cards.
    ``least_sure``: the share of them that must also read surely as cards; ``most_alien``:
    the share that may read as something else."""
    sure, alien = _shares(observation, lattice)
    return alien <= most_alien and sure >= least_sure


def _start_in_place(observation: Observation, lattice: Lattice) -> bool:
    """Whether the start's place, where the lattice sees a card under no hand, does not read
    as another card or as something that is no maze card: the start never leaves the table,
    so such a reading is the lattice off the cards there (it slipped when a card was taken
    away beside the start, and read the next card or the gap between two). Nor is the
    start ever laid crosswise: a lattice that sees it so lies half a card off the maze."""
    if START_CELL in lattice.crosswise:
        return False
    if START_CELL not in lattice.cells - lattice.occluded:
        return True
    if any(c.cell == START_CELL and c.face != "start" for c in observation.cards):
        return False
    return not any(u.cell == START_CELL and u.reason in ("not-a-maze-card", "unknown-card", "off-cell")
                   for u in observation.uncertain)


def _small_grey(frame: np.ndarray) -> np.ndarray:
    """The frame in grey at MOTION_WIDTH, for telling motion and change."""
    scale = MOTION_WIDTH / frame.shape[1]
    size = (MOTION_WIDTH, 1) if frame.shape[0] * scale < 0.5 else None  # a strip of a frame keeps a row
    return cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), size, fx=scale, fy=scale,
                      interpolation=cv2.INTER_AREA).astype(np.float32)


def _same_view(small: np.ndarray, before: np.ndarray | None) -> bool:
    """Whether no block of the picture changed since ``before`` (see CHANGE_LEVEL)."""
    if before is None or before.shape != small.shape:
        return False
    h, w = small.shape
    blocks = (max(1, w // CHANGE_BLOCK), max(1, h // CHANGE_BLOCK))
    change = cv2.GaussianBlur(small - before, (0, 0), CHANGE_BLUR)
    return float(cv2.resize(np.abs(change), blocks, interpolation=cv2.INTER_AREA).max()) <= CHANGE_LEVEL


class FrameUnknown(GridError):
    """The maze frame is unknown with the start unread; ``goals`` says where (pixels) the
    goal cards found lie, which may still fix the lattice out there."""

    def __init__(self, message: str, goals: Mapping[Cell, np.ndarray]):
        super().__init__(message)
        self.goals = dict(goals)


class GoalsAway(GridError):
    """The start card was read and the goal places lie bare in view: the maze's shape alone
    chose which way round it lies, or the lattice is off out there. ``readings`` are the
    anchoring's (in the fit's frame), from which goal cards found further off may still fix
    the lattice."""

    def __init__(self, message: str, readings: Mapping[Cell, object]):
        super().__init__(message)
        self.readings = dict(readings)


@dataclass
class Step:
    observation: Observation
    empty: set[Cell]
    busy: bool
    lattice: Lattice | None
    # the frame as read (undistorted when the calibration knows the lens, within READ_SIDE,
    # brought up when too dark): the lattice's pixels
    frame: np.ndarray
    note: str | None = None  # something the user should hear of: the camera moved off its calibration


@dataclass
class Pipeline:
    classifier: Classifier = field(default_factory=Classifier)
    game: str = "saboteur"
    calibration: object | None = None  # a calibration.table.TableCalibration for a fixed camera
    catalogue: Catalogue = field(default_factory=default_catalogue)
    # a photo's vanishing points come from a random (seeded) draw of card-edge pairs; on a
    # hard photo the draw can decide the reading, and another draw shows how much
    draw: int = 0
    timings: dict[str, float] = field(default_factory=dict)  # the last frame's stages, in ms
    _tracker: GridTracker | None = None
    _previous_small: np.ndarray | None = None
    _judged_small: np.ndarray | None = None  # the frame the tracked lattice was judged on
    _doubts: int = 0  # quiet frames in a row whose lattice read implausibly
    _recentre_due: bool = False  # something moved since the tracked lattice was last centred on the cards
    _goals_judged: Lattice | None = None  # the tracked lattice the goal cards were last looked for on
    _goals_found: dict = field(default_factory=dict)  # goal place -> the reading found there
    _direction_guessed: bool = False  # the tracked lattice was anchored with no goal card read, and none read since
    # the confirmations of the readings on one lattice while the view stays still (read.read_cells)
    _verdicts: dict = field(default_factory=dict)
    _verdicts_on: Lattice | None = None
    # the picture's faults (_faults), judged once on each lattice of a still view (a hand
    # over the cards changes which of them are looked at, and a warning would come and go
    # with it)
    _faults: list[str] = field(default_factory=list)
    _faults_on: Lattice | None = None
    _path_cards: int = 0  # the game's deck's path cards: how many a maze can hold

    def __post_init__(self) -> None:
        faces = game_faces(self.catalogue, self.game)
        self.classifier.restrict_to(faces)
        self._path_cards = sum(self.catalogue.faces[f].copies for f in faces if self.catalogue.faces[f].is_path)

    # ------------------------------------------------------------------ one photo

    def observe(self, frame: np.ndarray) -> Observation:
        """Read one photo from scratch."""
        started = time.perf_counter()
        as_read, dark = _as_read(self._undistorted(frame))
        observation, sure, lattice = self._observe(as_read)
        gains = None if lattice is None else _cast(as_read, lattice)
        if gains is not None:
            # a lamp's cast that the camera's white balance left, seen in the cards' white:
            # the photo read again with it taken out, where that reads as many cards surely
            again, surely, _ = self._observe(recoloured(as_read, gains))
            if again.error is None and len(_sure_cards(again)) >= len(_sure_cards(observation)):
                observation, sure = again, surely
            else:
                gains = None
        if self.calibration is None and (observation.error or sure < WEAK_SURE_SHARE):
            # One homography cannot follow the lines a wide lens bends, and a lattice grown
            # on a bent maze can lean off its cards from the start (the lens is unknown: a
            # measured one comes with a calibration). Straightened as from a typical wide
            # webcam's lens, the photo may show its maze, or read it surely; where it does
            # not, the first answer stands.
            from calibration.lens import Lens

            unbent, _ = _as_read(Lens(GUESSED_LENS, inscribed=True).undistort(frame))
            straightened, surely, _ = self._observe(unbent if gains is None else recoloured(unbent, gains),
                                                    *STRAIGHTENED_PLAUSIBLE)
            if straightened.error is None and (observation.error or _reads_better(
                    (straightened, surely), (observation, sure), self.catalogue)):
                observation = straightened
                observation.warnings.insert(0, STRAIGHTENED)
        # the photo's own size, not its undistorted canvas's or the size it was read at; the
        # time, undistorting and bringing it down included
        observation.width, observation.height = frame.shape[1], frame.shape[0]
        if dark:
            observation.warnings.insert(0, DARK)
        if colourless(frame):
            observation.warnings.insert(0, NO_COLOUR)
        observation.ms = (time.perf_counter() - started) * 1e3
        return observation

    def _observe(self, frame: np.ndarray, least_sure: float = PHOTO_SURE_SHARE,
                 most_alien: float = PLAUSIBLE_ALIEN_SHARE) -> tuple[Observation, float, Lattice | None]:
        """The photo's observation, the share of its lattice's occupied cells read surely as
        maze cards (0 where no maze was found), and the lattice (None where none)."""
        fit = None
        try:
            fit = fit_lattice(frame, calibration=self.calibration, reads_cards=self._reads_cards,
                              locates_cards=self._locates_cards, draw=self.draw)
            fit, readings, goals_at, start_hidden_at = self._readings_to_anchor(frame, fit)
            lattice = self._anchored(frame, fit, readings, goals_at, start_hidden_at)
            at_start = self._framed_at_start(frame, fit, lattice, readings, goals_at)
            if at_start is not None:
                mine, theirs = self._reads_cards(frame, [at_start[0], lattice])
                if mine >= theirs + START_FRAME_MORE:
                    lattice, readings = at_start
        except (GridError, TableError) as exc:
            # the lattice found, if any, says whether the picture was too poor to anchor it
            return Observation(error=str(exc), warnings=_faults(frame, fit)), 0.0, None
        observation, empty = self._read(frame, lattice)
        # a cell the grid sees a card on that reads as bare table may hold one under what
        # reads so (a palm the skin test missed over a card: foreign-printing bench photo 93
        # had 18 legal cards cut off the start by one), as a tracked frame's does (`_read_tracked`);
        # so may one hemmed in by a hand or an arm (``_hemmed_in``), or beside one where a card
        # would give cards cut off a way back to the start (``_rejoining``)
        maybe = (empty & lattice.cells) | _hemmed_in(empty, observation)
        observation.uncertain += [Unsure(x, y, MAYBE_EMPTY) for x, y in sorted(maybe)]
        observation.uncertain += [Unsure(x, y, MAYBE_EMPTY)
                                  for x, y in sorted(_rejoining(empty - maybe, observation, self.catalogue))]
        faults = _faults(frame, lattice)
        sure, alien = _shares(observation, lattice)
        if alien > most_alien or sure < least_sure:
            # the cells where the grid sees cards read mostly as no maze card, or few surely
            # as any: the lattice cuts across the cards (a wrong pitch or phase), and what it
            # reads is no maze
            return Observation(error="the card lattice does not line up with the cards: the cells the grid "
                                     "sees cards on do not read as maze cards", warnings=faults), 0.0, None
        observation.warnings += faults
        _add_goals_found(observation, lattice, readings)
        if _direction_from_shape(readings, observation):
            observation.warnings.append(DIRECTION_GUESSED)
        return observation, sure, lattice

    # ------------------------------------------------------------------ video

    def step(self, frame: np.ndarray) -> Step:
        """Read the next frame of a fixed camera."""
        started = time.perf_counter()
        whole = self._undistorted(frame)  # the calibration's markers are looked for at its size
        frame, dark = _as_read(whole)
        if self._tracker is None:
            self._tracker = GridTracker(calibration=self.calibration, reads_cards=self._reads_cards,
                                        locates_cards=self._locates_cards)
        small = _small_grey(frame)
        grey = colourless(frame)
        note = None
        try:
            tracked = self._tracker.lattice
            # (a frame of another size shrinks for the motion test to the same picture)
            same_size = tracked is not None and tracked.frame_size == frame.shape[1::-1]
            if same_size and _same_view(small, self._judged_small):
                lattice = tracked  # nothing moved: its judgement stands
            else:
                note = self._recheck_calibration(whole)
                lattice = self._tracker.update(frame)
                self._judged_small = small
                self._verdicts_on = None  # the crops changed: confirm the readings again
            if not lattice.anchored:
                pinned, readings, _, start_hidden_at = self._readings_to_anchor(frame, lattice)
                if pinned is not lattice:
                    self._tracker.keep(pinned)
                lattice = self._tracker.set_anchor(readings, start_hidden_at)
                self._direction_guessed = _direction_from_shape(readings)
        except (GridError, TableError) as exc:
            self._tracker.forget()
            observation = Observation(width=frame.shape[1], height=frame.shape[0], error=str(exc),
                                      warnings=[w for w, told in ((NO_COLOUR, grey), (DARK, dark)) if told])
            return Step(observation, set(), True, None, frame, note)
        grid_done = time.perf_counter()
        self.timings = {"grid": (grid_done - started) * 1e3}
        observation, empty = self._read_tracked(frame, lattice)
        read_done = time.perf_counter()
        busy = bool(lattice.occluded) or self._moving(small, lattice)
        if not busy and not (_plausible(observation, lattice) and _start_in_place(observation, lattice)):
            # a lattice that reads its own cards as nothing, or something else than the start
            # on the start's place, is a wrong fit being tracked (a wrong pitch or phase snaps
            # as steadily as the right one): fit afresh
            self._doubts += 1
            if self._doubts >= DOUBTS_BEFORE_REFIT:
                self._tracker.forget()
                self._doubts = 0
            busy = True
        else:
            self._doubts = 0
        moved = time.perf_counter()
        self.timings["motion"] = (moved - read_done) * 1e3
        looked = False  # a second look at a still view: the lattice centred, goal cards looked for
        if busy:
            self._recentre_due = True
        elif self._recentre_due and any(u.reason in UNREAD for u in observation.uncertain):
            # cards laid out at the maze's edge are where a tracked lattice drifts (it is only
            # re-snapped, a little, frame to frame): once the view is still, a card the
            # lattice cannot read has it centred on where the cards lie
            self._recentre_due, looked = False, True
            recentred = self._recentred(frame, observation)
            if recentred is not None:
                lattice, observation, empty = recentred
        if not busy:
            looked |= self._add_goals(frame, lattice, observation, empty)
            if lattice is not self._faults_on:
                self._faults, self._faults_on = _faults(frame, lattice), lattice
        done = time.perf_counter()
        if looked:
            self.timings["second look"] = (done - moved) * 1e3
        # a goal card read on its place in the frame guessed says it was guessed right
        self._direction_guessed = self._direction_guessed and not any(is_goal(c.face) for c in observation.cards)
        observation.warnings += self._faults
        if self._direction_guessed:
            observation.warnings.append(DIRECTION_GUESSED)
        if dark:
            observation.warnings.insert(0, DARK)
        if grey:
            observation.warnings.insert(0, NO_COLOUR)
        observation.ms = (done - started) * 1e3
        return Step(observation, empty, busy, lattice, frame, note)

    def _recentred(self, frame: np.ndarray, observation: Observation) -> tuple[Lattice, Observation, set[Cell]] | None:
        """The tracked lattice centred on the cards of a still frame, with its reading,
        tracked from now on where it reads more cards surely than ``observation`` does."""
        centred = self._tracker.recentred(frame)
        if centred is None:
            return None
        seen, empty = self._read_tracked(frame, centred)
        if len(_sure_cards(seen)) <= len(_sure_cards(observation)) or not _plausible(seen, centred):
            return None
        self._tracker.keep(centred)
        return centred, seen, empty

    def _read_tracked(self, frame: np.ndarray, lattice: Lattice) -> tuple[Observation, set[Cell]]:
        """``_read`` for a tracked frame, whose bare cells tell the tracker a card was taken
        away or not laid yet. A cell the grid sees a card on whose crop reads as bare table is
        no bare cell: the lattice lies off that card (at a wide lens's edge, half a card), and
        a tracker told it was bare at the first view announces the card as laid once read."""
        if lattice is not self._verdicts_on:
            self._verdicts, self._verdicts_on = {}, lattice
        observation, empty = self._read(frame, lattice, self._verdicts)
        off = empty & lattice.cells
        observation.uncertain += [Unsure(x, y, "off-cell") for x, y in sorted(off)]
        return observation, empty - off

    def _add_goals(self, frame: np.ndarray, lattice: Lattice, observation: Observation, empty: set[Cell]) -> bool:
        """Goal cards on the goal places in view where the tracked lattice reads no card,
        found as the anchoring finds them (crops shifted about the place), looked for once on
        each judged lattice. Goal backs are plain and lie apart, where a lattice fitted on the
        maze can be a fifth of a card off: a printed film's one goal back read as no maze
        card on every frame, and was never held. Whether they were looked for on this frame."""
        places = _unread_goal_places(observation, lattice)
        searched = False
        if lattice is not self._goals_judged:
            self._goals_judged = lattice
            self._goals_found = self._find_goals(frame, lattice, places)[0] if places else {}
            searched = bool(places)
        found = [SeenCard(cell[0], cell[1], r.face, r.rotation, r.confidence)
                 for cell, r in self._goals_found.items() if cell in places]
        _add_found(observation, found)
        empty.difference_update(c.cell for c in found)
        return searched

    def _undistorted(self, frame: np.ndarray) -> np.ndarray:
        return frame if self.calibration is None else self.calibration.lens.undistort(frame)

    def _recheck_calibration(self, frame: np.ndarray) -> str | None:
        """A fixed camera's calibration, checked on a frame whose view changed (a few small
        marker searches where the sheet should be). When the camera or the sheet moved, the
        sheet is fitted again where it now lies; when it cannot be, the maze is read without
        it, since a stale plane misplaces every card. A note for the user either way."""
        if self.calibration is None:
            return None
        from calibration.table import CalibrationError, calibrate_table, verify

        check = verify(frame, self.calibration)
        if not check.moved:
            return None
        try:
            # the frame is undistorted already: the sheet gives the plane, the lens stays
            self.calibration = replace(calibrate_table(frame), lens_k=self.calibration.lens_k)
            note = "the camera or the marker sheet moved: the table calibration was fitted again from the sheet"
        except CalibrationError as exc:
            self.calibration = None
            note = (f"the camera or the marker sheet moved and the sheet cannot be fitted again "
                    f"({str(exc).rstrip('.')}): the maze is read without the calibration")
        self._tracker.calibration = self.calibration
        self._tracker.forget()
        return note

    # ------------------------------------------------------------------ stages

    def _read_all(self, crops: Iterable[np.ndarray]) -> list:
        """The classifier's readings of these crops, made and read READ_BATCH at a time: a batch
        reads each crop as reading it alone does, several times faster, and the goal search
        and the search by reading alone make thousands (all at once, over a gigabyte)."""
        crops, readings = iter(crops), []
        while batch := list(itertools.islice(crops, READ_BATCH)):
            readings += self.classifier.classify(batch)
        return readings

    def _reads_cards(self, frame: np.ndarray, lattices: Sequence[Lattice]) -> list[float]:
        """For each lattice, the share of its cells the classifier surely reads as a maze card."""
        sure = iter(map(_sure, self._read_all(
            crop for lattice in lattices for crop in cell_crops(frame, lattice, sorted(lattice.cells), CROP))))
        return [sum(next(sure) for _ in lattice.cells) / max(len(lattice.cells), 1) for lattice in lattices]

    def _locates_cards(self, frame: np.ndarray, lattice: Lattice, cells) -> dict[Cell, np.ndarray]:
        """Where the cards of these cells lie (frame pixels), for those the classifier
        finds: each is read from crops shifted along and across (CENTRE_SHIFTS)."""
        found = {}
        for (x, y), readings in zip(cells, self._read_about(frame, lattice, cells)):
            offset = _card_offset(readings)
            if offset is not None:
                found[(x, y)] = lattice.centre((x + offset[0], y + offset[1]))
        return found

    def _read_about(self, frame: np.ndarray, lattice: Lattice, cells: Sequence[Cell]) -> list[list]:
        """Each cell's readings from crops shifted along and across it (CENTRE_SHIFTS)."""
        readings = self._read_all(moved_crop(frame, lattice, c, dx, dy, size=CROP)
                                  for c in cells for dx, dy in CENTRE_SHIFTS)
        n = len(CENTRE_SHIFTS)
        return [readings[i * n:(i + 1) * n] for i in range(len(cells))]

    def confirmed(self, step: Step, cards: Mapping[Cell, tuple[str, int]]) -> set[Cell]:
        """The cells of ``cards`` (cell -> face, rotation, as ``step`` read them) whose path
        card's tunnels are read again from crops shifted along and across the cell
        (CENTRE_SHIFTS), with at least CONFIRMED_SHARE of the weight of the tunnels read most.
        A lattice a tenth of a card off (at the edge of a wide lens's view, or where the
        tracked lattice settled) cuts a card so that a tunnel of the next seems to run on
        into it, and a T reads as a crossroads on every frame of a still view alike; the
        crops shifted toward where the card lies read it as it is. The start and the goal
        cards are taken as read (their places are known, and a face-up goal is drawn like a
        path card)."""
        paths = sorted(c for c, (face, _) in cards.items() if self.catalogue.face(face).kind == "path")
        held = set(cards) - set(paths)
        if not paths or step.lattice is None:
            return held

        def tunnels(face: str, rotation: int) -> frozenset:
            return tunnel_signature(self.catalogue.face(face), rotation)

        for cell, readings in zip(paths, self._read_about(step.frame, step.lattice, paths)):
            weight = Counter()
            for r in readings:
                if _sure(r):
                    weight[tunnels(r.face, r.rotation)] += r.confidence
            if weight and weight[tunnels(*cards[cell])] >= CONFIRMED_SHARE * max(weight.values()):
                held.add(cell)
        return held

    def _anchor_readings(self, frame: np.ndarray, lattice: Lattice) -> tuple[dict, dict, list]:
        """The sure readings of the lattice's cards in the fit's own frame, to find the start
        and the goals, with the goal cards found apart from the lattice's cells; where
        (pixels) the goal cards found well off their places lie; and, with the start unread,
        the places where it can hide (for ``anchor``).

        A cell judged crosswise is read too: a sure reading of a maze card there means it
        lies square after all (a crosswise card's crop shows no maze card). Goal backs are
        plain and often lie apart from the maze, where the occupancy test can miss them:
        with the start read and no goal on a goal place of it (one read elsewhere is another
        card misread), the goal places both ways round are looked at (the start card is
        symmetric), and once the frame is known, any goal place still empty.
        With the start unread, goals are looked for all around the maze (``_goals_around``)
        and the start wherever those goals could put it; when it is found at more than one
        of those places, or not found while the goals fit their places in more than one way
        each way round and the start cannot be hiding in just one of them, GridError: a
        guessed frame would name every cell wrongly."""
        cells = sorted((lattice.cells | lattice.crosswise) - lattice.occluded)
        readings = self.classifier.classify(cell_crops(frame, lattice, cells, CROP))
        sure = {c: r for c, r in zip(cells, readings) if _sure(r)}
        starts = [c for c, r in sure.items() if r.face == "start"]
        found, at, hidden = {}, {}, []
        if not starts and sum(is_goal(r.face) for r in sure.values()) < len(GOAL_CELLS):
            known = [c for c, r in sure.items() if is_goal(r.face)]
            found, at = self._goals_around(frame, lattice, known)
            # The goals lie in one column (along the lattice's y, either way round), two
            # cells apart: beside a goal found, the others are looked for as closely as on
            # the goal places. Around the maze the search steps half a cell across, where a
            # far card, foreshortened and off a drifting lattice, may read surely only in
            # between (printed bench photo 151: one of three goal backs in plain view read).
            goals = set(known) | set(found)
            if 0 < len(goals) < len(GOAL_CELLS):
                column = {(x, y + d) for x, y in goals for d in (-4, -2, 2, 4)} - goals - set(sure)
                more, more_at = self._find_cards(frame, lattice, sorted(column), is_goal, BESIDE_SEARCH)
                found, at = found | more, at | more_at
        if len(starts) == 1:
            sx, sy = starts[0]
            places = [(sx + turn * gx, sy + turn * gy) for turn in (1, -1) for gx, gy in GOAL_CELLS]
            # a goal read elsewhere (a card misread as a turned-over goal) says nothing of
            # which way round the maze lies: the goal places either way are looked at
            if not any(c in sure and is_goal(sure[c].face) for c in places):
                found, at = self._find_cards(frame, lattice, places, is_goal)
                if not found:  # (the places the other way round hold no goal: not searched further when one is found)
                    found, at = self._find_cards(frame, lattice, places, is_goal, GOAL_SEARCH_ACROSS)
        goals = [c for c, r in (sure | found).items() if is_goal(r.face)]
        if not starts and goals:
            # goals alone may sit on the goal places in several ways (two goals two apart, or
            # one): the start, unsure on its cell, is looked for where each way puts it
            centres = {c: at[c] if c in at else lattice.centre(c) for c in goals}  # where the goal cards lie
            each_way = [start_places(goals, [turn]) for turn in (np.eye(3), HALF_TURN)]
            origins = sorted(set(each_way[0]) | set(each_way[1]))
            start, start_at = self._find_cards(frame, lattice, origins, lambda face: face == "start")
            if len(start) > 1:
                # one card read from either side of a lattice lying half a cell off it, or
                # another card misread: which place is the start's, no guess can say
                raise GridError(f"the start card was not read on its cell but at {len(start)} of the places the "
                                "goal cards allow: the maze frame is unknown")
            if len(start) == 1:
                (cell, _), = start.items()
                if cell in start_at and _cells_off(lattice, cell, start_at[cell]) >= START_STRADDLES:
                    raise GridError("the start card was found between two cells of the card lattice: the lattice "
                                    "does not line up with the cards, and the maze frame is unknown")
                found, at = found | start, at | start_at
            else:
                # Not found, it lies unread where it can hide (_start_may_hide); with more than
                # one such place either way round, a guess would name every cell wrongly
                # (anchor weighs which way round). Places where it lies more likely (under a
                # hand the skin test saw, or read as the start unsurely) rule out the others.
                read = dict(zip(cells, readings))
                likelihood = {c: self._start_may_hide(lattice, read.get(c), c, sure) for c in origins}
                best = max(likelihood.values(), default=0)
                hiding = [[c for c in places if best and likelihood[c] == best] for places in each_way]
                if any(len(places) > 1 for places in each_way) and (
                        not any(hiding) or any(len(places) > 1 for places in hiding)):
                    raise FrameUnknown(f"the start card was not read, and the goal cards read ({len(goals)}) fit "
                                       "the goal places in more than one way: the maze frame is unknown", centres)
                if not best and any(c in sure and not is_goal(sure[c].face) for c in origins):
                    # the goals put the start where another card lies surely, and it can hide
                    # nowhere else they allow: the lattice, extrapolated out to the goals, has
                    # drifted a cell (printed bench photo 104, whose lattice pinned to the goal
                    # column reads it right). (Where it is merely not seen, out of the frame or
                    # off the lattice's cells, the goals' frame stands.)
                    raise FrameUnknown(f"the start card was not read, and the goal cards read ({len(goals)}) put it "
                                       "where another card lies: the maze frame is unknown", centres)
                if goals_a_row_apart(goals) or (not best and _read_on_both_sides(goals)):
                    # a goal card read from the cells either side of it: the lattice lies half
                    # a cell off out there. Along the column, which goal places they hold no
                    # guess can say (``anchor`` refuses them), but the goal column may (drawn
                    # bench photo 189, its start under an arm, reads 15 cards right pinned to
                    # it). Across it, with the start nowhere it could hide, which column the
                    # goals hold no guess can say (a portrait bench photo, 1440 x 1920, was
                    # framed a cell off: a small maze's lattice a sixth off in pitch out at the
                    # goals, the start under a hand). Where the start may hide, its place
                    # decides (drawn bench photo 15, printed 151).
                    raise FrameUnknown("a goal card was read on two neighbouring cells and the start card was not "
                                       "read: the card lattice does not line up with the cards out there, and the "
                                       "maze frame is unknown", centres)
                if _column_slanted(lattice, goals, at):
                    # the goals were found leaning across their column: the lattice is
                    # sheared out there (printed bench photo 117, read by a model trained
                    # otherwise: the maze's columns leaning over a quarter of a cell a row, the
                    # goals found a cell apart across, the maze under a hand named a column
                    # off), and only the goal column can say where its columns lie
                    raise FrameUnknown("the goal cards found do not lie in one column of the card lattice and the "
                                       "start card was not read: the lattice is bent out there, and the maze frame "
                                       "is unknown", centres)
                if not best and _column_spaced_off(lattice, located := self._locates_cards(frame, lattice, goals)):
                    # the start can hide nowhere the goals put it, and the goals lie further
                    # apart or nearer together than their cells: the lattice's scale is off out
                    # there, and the column it counts them in with it
                    raise FrameUnknown("the goal cards found are not two cells apart on the card lattice and the "
                                       "start card was not read: the lattice is off in scale out there, and the maze "
                                       "frame is unknown", centres | located)
                if step := _column_between(lattice, goals, at):
                    # every goal card read lies half a cell off its cell the same way: the
                    # start's places the next column gives are as likely unless the start is
                    # likelier hiding where these put it (a portrait bench photo was framed a
                    # cell off: its goals 0.6 cells off, the start under a hand over both
                    # places; a 4:3 one so had its frame guessed right). One goal read
                    # squarely on its cell fixes the column (the column's far ends drift
                    # most: on four 1080p bench photos read right one was half a cell off).
                    elsewhere = set(start_places([(x + step, y) for x, y in goals])) - set(origins)
                    if any(self._start_may_hide(lattice, read.get(c), c, sure) >= best for c in elsewhere):
                        raise FrameUnknown("the goal cards were found between two columns of the card lattice and "
                                           "the start card was not read: the lattice does not line up with the cards "
                                           "out there, and the maze frame is unknown", centres)
                hidden = [c for places in hiding for c in places]
        try:
            trial = anchor(lattice, sure | found, hidden)
        except GridError:
            return sure | found, at, hidden  # anchoring them again says why in words
        fit_from_maze = np.linalg.inv(trial.maze_from_fit)
        places = {map_cell(fit_from_maze, g) for g in GOAL_CELLS} - lattice.cells - set(found)
        more, more_at = self._find_goals(frame, lattice, sorted(places))
        goals_near = [c for c, r in (sure | found | more).items()
                      if is_goal(r.face) and cells_from_goal_places(map_cell(trial.maze_from_fit, c)) <= GOAL_DRIFT]
        if starts and not goals_near and self._bare_in_view(frame, lattice, sorted(places)):
            # With the start read and no goal card near the goal places, the maze's shape
            # alone chose which way round the maze lies; but the goal cards always lie on
            # their places, and there the table lies bare in plain view: the maze grew away
            # from the goals, or the lattice is off out there (a portrait bench photo, 1440 x
            # 1920, its maze grown west, its goals 11 of the lattice's cells away on a
            # striped table, was read turned half a turn, every card named wrongly).
            raise GoalsAway("the start card was read, but no card lies on the goal places in view: the maze frame is "
                            "unknown", sure | found | more)
        return sure | found | more, at | more_at, hidden

    def _readings_to_anchor(self, frame: np.ndarray, fit: Lattice) -> tuple[Lattice, dict, dict, list]:
        """``_anchor_readings`` of the fitted lattice; where they leave the frame unknown with
        three goal cards found in a row, those of the lattice pinned to them as the goal
        column (``_pinned_to_goal_column``), and where they hold the start and no goal card
        (or refuse the frame for the goal places' bare table, ``GoalsAway``), those of the
        lattice pinned to the goal cards found further off (``_pinned_to_goals_afar``); where
        they hold three goal cards in a column and no start, those of the lattice pinned to
        them in the column and rows the maze's card sides say (``_recounted_to_goals``). The
        lattice read, then the readings."""
        try:
            anchoring = self._anchor_readings(frame, fit)
        except FrameUnknown as exc:
            pinned = self._pinned_to_goal_column(frame, fit, exc.goals)
            if pinned is None:
                raise
            return pinned[0], *self._anchor_readings(frame, pinned[0])
        except GoalsAway as exc:
            pinned = self._pinned_to_goals_afar(frame, fit, exc.readings)
            if pinned is None:
                raise
            return pinned, *self._anchor_readings(frame, pinned)
        pinned = (self._pinned_to_goals_afar(frame, fit, anchoring[0])
                  or self._recounted_to_goals(frame, fit, *anchoring[:2]))
        if pinned is not None:
            return pinned, *self._anchor_readings(frame, pinned)
        return fit, *anchoring

    def _bare_in_view(self, frame: np.ndarray, lattice: Lattice, places: list[Cell]) -> bool:
        """Whether these cells lie wholly in the frame and all read surely as bare table."""
        if not places or any(lattice.share_in_view(c) < WHOLLY_IN_VIEW for c in places):
            return False
        readings = self.classifier.classify(cell_crops(frame, lattice, places, CROP))
        return all(not r.uncertain and r.face is None for r in readings)

    def _anchored(self, frame: np.ndarray, fit: Lattice, readings: Mapping[Cell, object],
                  goals_at: Mapping[Cell, np.ndarray], start_hidden_at: list[Cell]) -> Lattice:
        """The fitted lattice anchored on the start and goals read, and pinned to the goal
        cards found off their places."""
        lattice = anchor(fit, readings, start_hidden_at)
        if goals_at:
            # a goal card lies on a goal place: one read off them is the same card read
            # from the next cell too (the lattice drifts), and pinning both cells to one
            # card would bend the lattice a cell off
            pins = {map_cell(lattice.maze_from_fit, c): p for c, p in goals_at.items()}
            lattice = pin_cells(frame, lattice, {c: p for c, p in pins.items() if c in GOAL_CELLS or c == START_CELL})
            lattice = self._pin_goals_left(frame, lattice)
        return lattice

    def _framed_at_start(self, frame: np.ndarray, fit: Lattice, lattice: Lattice, readings: Mapping[Cell, object],
                         goals_at: Mapping[Cell, np.ndarray]) -> tuple[Lattice, dict] | None:
        """When the goals on their places outweighed a start read a cell from where they put
        it (``anchor``), the other frame: the start's, with the goal cards pinned on their
        places a cell over, and the readings that name them there. Two things look alike
        in the fit: a card beside the start, its start under a hand, misread as the start
        (the goals' frame is right), and a lattice extrapolated eight cells out from a maze
        of small cards, which drifted most of a cell before the goals were pinned to the
        cells it named (12 MP bench photo 7: the start read surely 0.78 of a row off the
        middle goal's row; the start's frame is right). In the right frame the pinned
        lattice lines up with the maze's cards; in the other it is bent a cell across."""
        starts = [c for c, r in readings.items() if r.face == "start"]
        if len(starts) != 1:
            return None
        off = map_cell(lattice.maze_from_fit, starts[0])
        if off == START_CELL or max(abs(off[0]), abs(off[1])) > 1:
            return None
        turn = lattice.maze_from_fit[:2, :2]
        dx, dy = (int(v) for v in np.rint(turn.T @ np.array(off, float)))  # the shift in the fit's cells

        def moved(c: Cell) -> Cell:
            return c[0] + dx, c[1] + dy
        goals = {c for c, r in readings.items() if is_goal(r.face)}
        if any(moved(c) in readings and moved(c) not in goals for c in goals):
            return None
        centres = {moved(c): goals_at[c] if c in goals_at else fit.centre(c) for c in goals}
        moved_readings = {(moved(c) if c in goals else c): r for c, r in readings.items()}
        shifted = replace(fit, cells=(fit.cells - goals) | frozenset(centres))
        try:
            other = anchor(shifted, moved_readings)
        except GridError:
            return None
        if map_cell(other.maze_from_fit, starts[0]) != START_CELL:
            return None
        other = pin_cells(frame, other, {map_cell(other.maze_from_fit, c): p for c, p in centres.items()})
        return self._pin_goals_left(frame, other), moved_readings

    def _start_may_hide(self, lattice: Lattice, reading, cell: Cell, sure: Mapping[Cell, object]) -> int:
        """How likely the start card lies unread on this cell (``reading``: the classifier's,
        None when not read; ``sure``: the sure readings by cell): 0 not at all, 1 maybe, 2
        likely.

        The start is a crossroads: a card read surely next to it is open toward it, and
        the maze grows from it, so a card beside it that opens toward it is expected.
        Likely: under a hand (whatever the cards beside it read as: the hand reaches onto
        their near edges), or read as the start however unsurely once goal cards are
        ruled out (a start read unsurely is often taken for the gold, also a crossroads
        with something in the middle). Maybe: read as no maze card or unsurely, with a
        card beside it opening toward it (a hand the skin test missed). Not: a cell read
        surely as another card, surely as bare table or not read at all (bare table), or
        with a card beside it closed toward it. A cell read as no maze card with no such
        neighbour is as often a lattice cutting across cards: on the bench photos that
        guessed frames wrongly as often as rightly."""
        opens = []
        for bit in EDGE_BITS:
            neighbour = sure.get((cell[0] + STEP[bit][0], cell[1] + STEP[bit][1]))
            if neighbour is not None and not is_goal(neighbour.face):
                opens.append(bool(self.catalogue.face(neighbour.face).shape(neighbour.rotation).open & OPPOSITE[bit]))
        bare = reading is None or (not reading.uncertain and reading.face is None)
        if cell in lattice.occluded:
            return 2  # a tunnel's end under a finger reads as closed
        if not all(opens) or bare or (cell in sure and not is_goal(sure[cell].face)):
            return 0
        classes = self.classifier.classes
        likeliest = int(np.where([is_goal(c.face) for c in classes], 0.0, reading.probabilities).argmax())
        if classes[likeliest].face == "start":
            return 2
        return 1 if any(opens) else 0

    def _find_cards(self, frame: np.ndarray, lattice: Lattice, places: list[Cell], wanted,
                    shifts=GOAL_SEARCH) -> tuple[dict, dict]:
        """Goal cards (or the start: ``wanted`` says which faces) on these cells, each read
        from crops shifted along and across by ``shifts`` (the lattice drifts far from
        where it was fitted): its surest wanted reading counts. Also where each card found
        GOAL_PIN_FROM or more off its place lies (pixels): the middle of the shifts that
        surely read it (a card reads alike over a fifth of a cell or so; the surest of
        equally sure readings would be the first shift tried)."""
        width, height = lattice.frame_size
        places = [c for c in places if 0 <= (p := lattice.centre(c))[0] < width and 0 <= p[1] < height]
        readings = iter(self._read_all(moved_crop(frame, lattice, c, dx, dy, size=CROP)
                                       for c in places for dx, dy in shifts))
        found, at = {}, {}
        for (x, y) in places:
            goals = [(r, d) for r, d in zip((next(readings) for _ in shifts), shifts)
                     if _sure(r) and wanted(r.face)]
            if goals:
                found[(x, y)] = best = max(goals, key=lambda g: g[0].confidence)[0]
                dx, dy = np.mean([d for r, d in goals if r.face == best.face], axis=0)
                if max(abs(dx), abs(dy)) >= GOAL_PIN_FROM:
                    at[(x, y)] = lattice.centre((x + dx, y + dy))
        return found, at

    def _find_goals(self, frame: np.ndarray, lattice: Lattice, places: list[Cell]) -> tuple[dict, dict]:
        """Goal cards on these cells, as ``_find_cards`` answers: by GOAL_SEARCH, and on the
        places where that finds none, further across (GOAL_SEARCH_ACROSS)."""
        found, at = self._find_cards(frame, lattice, places, is_goal)
        more, more_at = self._find_cards(frame, lattice, [c for c in places if c not in found], is_goal,
                                         GOAL_SEARCH_ACROSS)
        return found | more, at | more_at

    def _goals_around(self, frame: np.ndarray, lattice: Lattice, known: list[Cell]) -> tuple[dict, dict]:
        """Goal cards on the cells within GOAL_REACH of the maze, read at AROUND_STEPS (so each
        card is read within a quarter of a cell of its middle across and an eighth along),
        besides the ``known`` ones, as ``_find_cards`` answers: each card's reading on the
        cell nearest to where it reads, and where it lies when that is GOAL_PIN_FROM or more
        off the cell."""
        if not lattice.cells:  # a lattice with no card on it (a checkerboard's squares, cards all under a hand)
            return {}, {}
        width, height = lattice.frame_size
        xs, ys = [x for x, _ in lattice.cells], [y for _, y in lattice.cells]
        places = [(x, y) for x in range(min(xs) - GOAL_REACH, max(xs) + GOAL_REACH + 1)
                  for y in range(min(ys) - GOAL_REACH, max(ys) + GOAL_REACH + 1)
                  if (x, y) not in lattice.cells and 0 <= (p := lattice.centre((x, y)))[0] < width
                  and 0 <= p[1] < height]
        shifts = [((x, y), dx, dy) for x, y in places for dx, dy in AROUND_STEPS]
        spots = [(x + dx, y + dy) for (x, y), dx, dy in shifts]
        readings = self._read_all(moved_crop(frame, lattice, c, dx, dy, size=CROP) for c, dx, dy in shifts)
        cards: list[list] = [[[k], None] for k in known]  # [spots, best reading] per goal card
        for spot, r in zip(spots, readings):
            if not (_sure(r) and is_goal(r.face)):
                continue
            card = next((c for c in cards if max(abs(spot[0] - c[0][0][0]), abs(spot[1] - c[0][0][1])) < 0.8), None)
            if card is None:
                cards.append([[spot], r])
            else:
                card[0].append(spot)
                card[1] = r if card[1] is None else max(card[1], r, key=lambda q: q.confidence)
        found, at = {}, {}
        for spots_read, best in cards[len(known):]:
            middle = np.mean(spots_read, axis=0)
            cell = (int(round(middle[0])), int(round(middle[1])))
            found[cell] = best
            if max(abs(middle[0] - cell[0]), abs(middle[1] - cell[1])) >= GOAL_PIN_FROM:
                at[cell] = lattice.centre(tuple(middle))
        return found, at

    def _recounted_to_goals(self, frame: np.ndarray, lattice: Lattice, readings: Mapping[Cell, object],
                            at: Mapping[Cell, np.ndarray]) -> Lattice | None:
        """With the start unread and the goal cards read in their column (``readings``: the
        anchoring's, in the fit's frame; ``at``: where those found well off their cells lie,
        pixels), the lattice pinned to them (``_pinned_to_goal_column``) where the maze's card
        sides say they lie in another column or row than the one they were read in; None
        otherwise. A lattice fitted on a maze whose start lies under a hand, extrapolated over
        bare table to the goals, can drift a cell in pitch out there, and the goals read on
        their cells then name every card of the maze a column off (fresh 1080p bench photo
        1256: 0.61 of the maze's card sides on the lines of the lattice pinned a column
        further out, 0.48 on those of the one pinned where the goals were read)."""
        if any(r.face == "start" for r in readings.values()):
            return None
        goals = [c for c, r in readings.items() if is_goal(r.face)]
        if len(goals) < len(GOAL_CELLS):
            return None
        # where each goal card lies decides between the pins: its blob's middle where it lies
        # alone, else its crops' (on fresh photo 1155, with cards a fortieth of the frame wide,
        # only the first tells the column apart by PIN_SUPPORT_MARGIN)
        alone = lone_card_centres(frame, lattice, goals)
        found = {c: at.get(c, lattice.centre(c)) for c in goals}
        found |= self._locates_cards(frame, lattice, [c for c in goals if c not in alone]) | alone
        centres = {}
        # one card read from two cells (the lattice half a cell off out there) is kept once,
        # on the cell it lies nearer
        for c in sorted(goals, key=lambda c: _cells_off(lattice, c, found[c])):
            if all(_cells_off(lattice, lattice.point_at(p), found[c]) > 0.5 for p in centres.values()):
                centres[c] = found[c]
        # pinned where they were read, the goals may read unsurely, and yet the maze's card
        # sides say that is where they lie (fresh photo 1363 through a lens of 0.1: 0.76 of
        # them on its lines, 0.67 on those of the pin a column further, whose goals read surely)
        pinned = self._pinned_to_goal_column(frame, lattice, centres, read_at=centres)
        return None if pinned is None or set(pinned[1]) <= set(goals) else pinned[0]

    def _pinned_to_goal_column(self, frame: np.ndarray, lattice: Lattice, goals: Mapping[Cell, np.ndarray],
                               read_at: Collection[Cell] = ()) -> tuple[Lattice, list[Cell]] | None:
        """With the frame unknown (or the goals' column to recount: ``_recounted_to_goals``) and
        three of the goal cards found (``goals``: where each lies, pixels) in a row
        (``_goal_column``), the lattice pinned to them as the goal column, cards two cells
        apart, in the column and rows near where the lattice puts them whose cells then read
        surely as goal cards, the one whose lines the maze's card sides fit best by a clear
        margin (``PIN_SUPPORT_MARGIN``), with the cells it pins them to; None when none does. A
        lattice fitted on a small maze and extrapolated eight cells or more out can put the
        goals it found between two columns or off one column (4:3 bench photo 129: the goals
        read half a cell off, the start under a hand); the goals themselves say where it lies
        out there, and their cards read surely only in the pinned lattice whose cells are their
        size (a column off, the cells come a fifth too small or too large). A row off, they read
        as surely, but the lattice shears between the maze and the goals, and fewer of the
        maze's card sides lie on its lines (drawn bench photo 189 through a 0.1 lens, its start
        under an arm: 0.59 of them a row off the goals' middle cell, at most 0.44 elsewhere;
        read at that cell, it was named a row off).

        ``read_at``: the cells the goals were read on, whose pin is a rival whether its cells
        then read surely or not (a recount leaves the goals there unless clearly beaten)."""
        columns = [cells for cells in itertools.combinations(sorted(goals, key=lambda c: c[1]), len(GOAL_CELLS))
                   if _goal_column(cells, [goals[c] for c in cells])]
        if len(columns) != 1:
            return None
        cells = columns[0]  # along the lattice's y, as the goal column runs
        points = [goals[c] for c in cells]
        x = round(float(np.mean([c[0] for c in cells])))
        y = cells[1][1]
        fits = []  # (the pinned lattice, its support, the cells pinned, whether they read surely as goals)
        for column, row in itertools.product((x - 1, x, x + 1), (y - 1, y, y + 1)):
            pinned_cells = [(column, row - 2), (column, row), (column, row + 2)]
            # No pinhole's aspect is asked of these refits (elsewhere a lattice refits to
            # cells that could be cards seen by a pinhole camera): a lens bends the column
            # eight cells out in as no pinhole does, and the maze's card sides and the goals'
            # readings judge the candidates (printed bench photo 104 through a 0.1 lens: the
            # right pin's refit refused so, and a row off taken)
            pinned = refit_pinned(frame, lattice, dict(zip(pinned_cells, points)), least_aspect=0.0)
            if pinned is None:
                continue
            readings = self.classifier.classify(cell_crops(frame, pinned[0], pinned_cells, CROP))
            fits.append((*pinned, pinned_cells, all(_sure(r) and is_goal(r.face) for r in readings)))
        fits = sorted((fit for fit in fits if fit[3] or set(fit[2]) == set(read_at)), key=lambda fit: -fit[1])
        if not fits or not fits[0][3] or (len(fits) > 1 and fits[0][1] - fits[1][1] < PIN_SUPPORT_MARGIN):
            return None
        return fits[0][0], fits[0][2]

    def _pinned_to_goals_afar(self, frame: np.ndarray, lattice: Lattice,
                              readings: Mapping[Cell, object]) -> Lattice | None:
        """With the start read and no goal card found on or near the goal places either way
        round (``readings``: the anchoring's, in the fit's frame), the lattice pinned to two or
        three goal cards found anywhere about the maze (``_goals_around``, and beside those
        found) in a column on one side of the start, as the goal column eight cells from it,
        where its cells then read them surely and the start's its card; None otherwise.
        Without a goal card the maze's shape alone says which way it runs (``anchor``), and a
        lattice fitted on a small maze with its perspective off can put the goals two cells
        or more from their places (4:3 photo 1371: the goals in plain view, 5.5 of the
        lattice's cells from the start instead of 8, and the frame turned half a turn)."""
        if not _direction_from_shape(readings):
            return None
        sx, sy = next(c for c, r in readings.items() if r.face == "start")
        found, at = self._goals_around(frame, lattice, [])
        if 0 < len(found) < len(GOAL_CELLS):
            # beside a goal found, the others two and four cells along its column, looked
            # for as on the goal places: the lattice's scale may be off out there
            column = {(x, y + d) for x, y in found for d in (-4, -2, 2, 4)} - set(found) - set(readings)
            more, more_at = self._find_goals(frame, lattice, sorted(column))
            found, at = found | more, at | more_at
        # one card may be found from two cells (a lattice off by half a cell out there): one
        # goal card per spot, where it reads surest (in the lattice's cells, unrounded)
        spots: list[tuple[np.ndarray, np.ndarray]] = []
        for c in sorted(found, key=lambda c: -found[c].confidence):
            point = at.get(c, lattice.centre(c))
            spot = np.array(lattice.point_at(point))
            if all(np.hypot(*(spot - other)) > 0.75 for other, _ in spots):
                spots.append((spot, point))
        # two or three goal cards in a column (a card misread as a goal elsewhere is left
        # out: the column holding the most of them), on one side of the start two cells or
        # more from it; one alone may be a card lying loose. Three take the goal places in
        # the order of their rows, two the places nearest their rows by the start's.
        columns = {tuple(i for i, (q, _) in enumerate(spots) if x <= q[0] <= x + 1) for (x, _), _ in spots}
        most = max(map(len, columns), default=0)
        if not 2 <= most <= len(GOAL_CELLS) or sum(len(column) == most for column in columns) != 1:
            return None
        goals = sorted((spots[i] for i in next(c for c in columns if len(c) == most)), key=lambda s: s[0][1])
        across = [q[0] - sx for q, _ in goals]
        if not (min(across) >= 2 or max(across) <= -2):
            return None
        points = [p for _, p in goals]
        if len(goals) == len(GOAL_CELLS):
            if not _goal_column([(int(round(q[0])), int(round(q[1]))) for q, _ in goals], points):
                return None
            rows = [-2, 0, 2]
        else:
            rows = [2 * int(round((q[1] - sy) / 2)) for q, _ in goals]
            if len(set(rows)) < len(rows) or not set(rows) <= {-2, 0, 2}:
                return None
        side = 1 if across[0] > 0 else -1
        places = [(sx + side * GOAL_COLUMN, sy + row) for row in rows]
        pinned = refit_pinned(frame, lattice, dict(zip(places, points)))
        if pinned is None:
            return None
        check = self.classifier.classify(cell_crops(frame, pinned[0], places + [(sx, sy)], CROP))
        if not (all(_sure(r) and is_goal(r.face) for r in check[:-1]) and _sure(check[-1])
                and check[-1].face == "start"):
            return None
        return pinned[0]

    def _pin_goals_left(self, frame: np.ndarray, lattice: Lattice) -> Lattice:
        """The lattice with the goal cards found on the goal places it holds no card on,
        looked for again once it is pinned to the goals found off their places: before,
        it extrapolated eight cells out from the maze and could be more than half a card
        off across (GOAL_SEARCH looks a fifth of a cell either way); now the goals found
        say where the others lie."""
        places = [g for g in GOAL_CELLS if g not in lattice.cells]
        found, at = self._find_goals(frame, lattice, places)
        lattice = replace(lattice, cells=lattice.cells | frozenset(found))
        return pin_cells(frame, lattice, at)

    def _read(self, frame: np.ndarray, lattice: Lattice,
              verdicts: dict | None = None) -> tuple[Observation, set[Cell]]:
        # the maze's cells and every cell next to them: a card the occupancy test missed is still read
        cells = sorted((with_neighbours(lattice.cells) | lattice.crosswise) - lattice.occluded)
        # a crop reaching past the frame's edge repeats the edge's pixels, streaks that read
        # as a straight tunnel: a card mostly out of view is not read
        out_of_view = {c for c, share in lattice.shares_in_view(cells).items() if share < IN_VIEW}
        cells = [c for c in cells if c not in out_of_view]
        started = time.perf_counter()
        crops = dict(zip(cells, cell_crops(frame, lattice, cells, CROP)))
        cropped = time.perf_counter()
        cards, uncertain, empty = self._read_cells(frame, lattice, crops, verdicts)
        more, unsure, bare = self._read_round(frame, lattice, set(cells), cards, uncertain, verdicts)
        cards, uncertain, empty = cards + more, uncertain + unsure, empty | bare
        self.timings.update(crops=(cropped - started) * 1e3, classify=(time.perf_counter() - cropped) * 1e3)
        # a cell judged crosswise holds a card across it unless the classifier surely reads a
        # maze card there, square after all (the crop of a card laid across shows none)
        uncertain = [u for u in uncertain if u.cell not in lattice.crosswise]
        uncertain += [Unsure(x, y, "occluded") for x, y in sorted(lattice.occluded)]
        uncertain += [Unsure(x, y, "out-of-view") for x, y in sorted(out_of_view)]
        read = {c.cell for c in cards}
        # A card read beside the maze where the grid sees mostly table, with no card read next
        # to it, is most likely part of a neighbour's card seen through a cell the lattice puts
        # a little off (half a crossroads reads as a dead end); a goal lies apart by rule.
        seen_by_grid = lattice.cells | lattice.crosswise | set(GOAL_CELLS)
        lone = {c.cell for c in cards if c.cell not in seen_by_grid
                and not any(n in read for n in neighbours(c.cell))}
        cards = [c for c in cards if c.cell not in lone]
        uncertain += [Unsure(x, y, "off-cell") for x, y in sorted(lone)]
        read -= lone
        # a card the rules cannot have laid where it lies is no maze card: a loose card on
        # the table that the lattice happens to line up with
        spare = self._path_cards - sum(self.catalogue.faces[c.face].is_path for c in cards)
        apart = _off_the_maze(read | {u.cell for u in uncertain}, lattice, spare)
        cards = [c for c in cards if c.cell not in apart]
        uncertain = [u for u in uncertain if u.cell not in apart]
        uncertain += [Unsure(x, y, "crosswise") for x, y in sorted(lattice.crosswise) if (x, y) not in read]
        uncertain += [Unsure(x, y, "out-of-view") for x, y in _beyond_the_frame(
            lattice, read - apart, set(cells) | out_of_view | {u.cell for u in uncertain})]
        empty -= lattice.crosswise
        h, w = frame.shape[:2]
        warnings = []
        if lattice.cells and lattice.cell_size_px() < SMALL_CARD_PX:
            warnings.append(SMALL_CARDS)
        return Observation(cards=cards, uncertain=uncertain, width=w, height=h, warnings=warnings), empty

    def _read_cells(self, frame: np.ndarray, lattice: Lattice, crops: dict[Cell, np.ndarray], verdicts: dict | None):
        return read_cells(self.classifier, crops, recrop=_recrop(frame, lattice), catalogue=self.catalogue,
                          goal_places=frozenset(GOAL_CELLS), start_place=START_CELL, verdicts=verdicts)

    def _read_round(self, frame: np.ndarray, lattice: Lattice, read: set[Cell], cards: list,
                    uncertain: list, verdicts: dict | None) -> tuple[list, list, set[Cell]]:
        """The cells next to what the grid did not see, read too until none is left: next to
        something over the maze that is no card (a hand, an arm), and next to a card read
        where the grid saw none; within the box of the maze's cards and the start's place,
        and the cells round it. Returns their cards, uncertain cells and bare table, as
        ``read_cells`` does. The grid finds no card under an arm the skin test misses (a skin
        tone like the table's), nor on a run of cards its occupancy test misses, and a cell
        not read is taken for bare table: cards whose way back to the start runs there were
        accused of having none (drawn bench photo 94, an arm: 24 cards; 3:4 photo 25, ten
        cards missed: 3). The box grows with the cards read, not with what covers the maze
        (an arm runs on to the frame's edge)."""
        done = read | lattice.occluded
        more, unsure, bare = [], [], set()

        def beyond(readings: list, unsure_cells: list) -> set[Cell]:
            cells = {c.cell for c in readings} | {u.cell for u in unsure_cells if u.reason != MAYBE_EMPTY}
            return cells - lattice.cells

        seen = lattice.occluded | beyond(cards, uncertain)
        while True:
            maze = lattice.cells | {START_CELL} | {c.cell for c in cards + more}
            xs, ys = [x for x, _ in maze], [y for _, y in maze]
            cells = sorted(c for c in with_neighbours(seen) - done if min(xs) - 1 <= c[0] <= max(xs) + 1
                           and min(ys) - 1 <= c[1] <= max(ys) + 1 and lattice.share_in_view(c) >= IN_VIEW)
            if not cells:
                return more, unsure, bare
            done |= set(cells)
            crops = dict(zip(cells, cell_crops(frame, lattice, cells, CROP)))
            found, not_sure, table = self._read_cells(frame, lattice, crops, verdicts)
            more += found
            unsure += not_sure
            bare |= table
            seen = beyond(found, not_sure)

    def _moving(self, small: np.ndarray, lattice: Lattice) -> bool:
        """Whether the maze region changed since the last frame (hands, cards in flight).
        Both frames are compared inside the same box, this frame's: a lattice that moves
        by a few pixels between frames must not look like motion on the table."""
        previous, self._previous_small = self._previous_small, small
        if previous is None or previous.shape != small.shape:
            return False
        width, height = lattice.frame_size
        scale = small.shape[1] / width
        x0, y0, x1, y1 = (int(round(v * scale)) for v in self._maze_box(lattice, (height, width)))
        here = (slice(y0, max(y1, y0 + 1)), slice(x0, max(x1, x0 + 1)))
        return float(np.abs(small[here] - previous[here]).mean()) > MOTION_LEVEL

    @staticmethod
    def _maze_box(lattice: Lattice, shape) -> tuple[int, int, int, int]:
        corners = np.concatenate([lattice.quad(c) for c in with_neighbours(lattice.cells)])
        h, w = shape[:2]
        x0, y0 = np.clip(corners.min(axis=0).astype(int), 0, [w - 1, h - 1])
        x1, y1 = np.clip(corners.max(axis=0).astype(int) + 1, 1, [w, h])
        return int(x0), int(y0), int(max(x1, x0 + 1)), int(max(y1, y0 + 1))
