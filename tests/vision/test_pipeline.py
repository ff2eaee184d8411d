"""The photo path end to end (grid, anchoring, reading) and ``tunnelvision check``, on
synthetic table photos with exact truth. The lattice is given from the truth where a test
is about what follows the grid, so these measure anchoring and reading, not the fit."""

import json
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from engine.board import GOAL_CELLS, START_CELL
import vision.grid
import vision.read
import vision.table
from vision.classes import is_half_turn_symmetric
from vision.classify import Classifier
from vision.grid import (HALF_TURN, GridError, GridTracker, Lattice, anchor, is_goal, map_cell, refit_pinned,
                         translation)
from vision.observation import MAYBE_EMPTY, Observation, SeenCard, Unsure, maze_report
from vision.pipeline import (BLURRED, BURNT, DARK, DIRECTION_GUESSED, IN_VIEW, NO_COLOUR, SMALL_CARDS, STRAIGHTENED, Pipeline,
                             WEAK_SURE_SHARE, _hemmed_in, _reads_better, _rejoining, _shares)
from vision.scenes import SceneOptions, table_scene

SIZE = (1280, 720)
# a plain table photo: no hand, nothing laid crosswise, the whole maze in view, no goal revealed
PLAIN = SceneOptions(p_hand=0.0, p_crosswise=0.0, p_cropped=0.0, p_reveal=0.0, tilt_deg=10.0)


@pytest.fixture(scope="module")
def pipeline():
    return Pipeline(Classifier())


def scene(seed, **kw):
    return table_scene(np.random.default_rng(seed), size=SIZE, options=replace(PLAIN, **kw))


def truth_lattice(s, cells=None, **kw) -> Lattice:
    return Lattice(s.image_from_maze, s.image.shape[1::-1], frozenset(s.cells if cells is None else cells), **kw)


def right(card, truth, catalogue) -> bool:
    return card.face == truth.face and (card.rotation == truth.rotation
                                        or is_half_turn_symmetric(catalogue.face(card.face)))


@pytest.mark.parametrize("turn_half", [False, True])
def test_goal_cards_the_lattice_missed_are_found_and_fix_the_frame(pipeline, turn_half):
    # a fit that saw the start and a few cards but none of the goals (plain backs apart from
    # the maze), in either of its two frames: the goal places say which way the maze runs
    s = scene(41)
    near = {c for c in s.cells if abs(c[0]) + abs(c[1]) <= 1}
    fit_from_maze = HALF_TURN if turn_half else np.eye(3)
    fit = Lattice(s.image_from_maze @ np.linalg.inv(fit_from_maze), s.image.shape[1::-1],
                  frozenset((-x, -y) if turn_half else (x, y) for x, y in near))
    anchored = anchor(fit, pipeline._anchor_readings(s.image, fit)[0])
    assert anchored.half_turn == turn_half
    assert set(GOAL_CELLS) <= anchored.cells
    assert np.allclose(anchored.quad(START_CELL), truth_lattice(s).quad(START_CELL))


def misreading_as_a_goal(pipeline, monkeypatch, fit, cell):
    """The classifier, reading the lattice's own cells, takes this one surely for a turned-over goal."""
    classify = pipeline.classifier.classify
    goal = next(c for c in pipeline.classifier.classes if c.face == "goal-stone-nw")

    def reading_one_as_a_goal(crops):
        readings = classify(crops)
        if len(crops) == len(fit.cells):  # the lattice's own cells, in sorted order
            i = sorted(fit.cells).index(cell)
            readings[i] = replace(readings[i], card=goal, confidence=1.0, uncertain=False, reason=None)
        return readings

    monkeypatch.setattr(pipeline.classifier, "classify", reading_one_as_a_goal)


def test_a_card_misread_as_a_goal_off_the_goal_places_does_not_set_the_frame(pipeline, monkeypatch):
    # the fit saw the start and the cards round it, in the frame turned half a turn, and the
    # classifier took one of them for a turned-over goal: the goal backs on the goal places
    # either way round of the start still say which way the maze runs
    s = scene(41)
    near = {c for c in s.cells if abs(c[0]) + abs(c[1]) <= 1}
    fit = Lattice(s.image_from_maze @ np.linalg.inv(HALF_TURN), s.image.shape[1::-1],
                  frozenset((-x, -y) for x, y in near))
    misread = max(fit.cells - {START_CELL})  # east of the start as the fit sees it: the wrong way
    misreading_as_a_goal(pipeline, monkeypatch, fit, misread)
    anchored = anchor(fit, pipeline._anchor_readings(s.image, fit)[0])
    assert anchored.half_turn
    assert set(GOAL_CELLS) <= anchored.cells
    assert np.allclose(anchored.quad(START_CELL), truth_lattice(s).quad(START_CELL))


def without(s, cells):
    """The scene's photo with these cells' cards taken away (the table's colour painted over)."""
    image = s.image.copy()
    table = np.median(np.concatenate([image[:20].reshape(-1, 3), image[-20:].reshape(-1, 3)]), axis=0)
    for cell in cells:
        cv2.fillConvexPoly(image, np.round(truth_lattice(s).quad(cell)).astype(np.int32), table.tolist())
    return image


def test_with_the_start_unseen_the_goals_found_around_the_maze_fix_the_frame(pipeline):
    # the fit saw a few cards beside the start, whose card is gone: no start and no goal on
    # its cells; the three goal backs lie apart from the maze, found by reading around it
    s = scene(41)
    image = without(s, [START_CELL])
    near = {c for c in s.cells if abs(c[0]) + abs(c[1]) == 1}
    fit = Lattice(s.image_from_maze, s.image.shape[1::-1], frozenset(near))
    anchored = anchor(fit, pipeline._anchor_readings(image, fit)[0])
    assert set(GOAL_CELLS) <= anchored.cells
    assert np.allclose(anchored.quad((8, 0)), truth_lattice(s).quad((8, 0)), atol=2.0)


def test_goal_cards_a_quarter_of_a_cell_off_along_the_lattice_are_found_around_the_maze(pipeline):
    # the start is gone and the goal cards lie a quarter of a cell south of their places
    # (the lattice, extrapolated eight cells out, can be that far off there): the
    # classifier reads a card surely within about a tenth of a cell along it, so looking
    # at half-cell steps alone missed them
    s = scene(41)
    image = goals_moved(s, without(s, [START_CELL, *GOAL_CELLS]), -0.24)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS and c != START_CELL])
    found, _ = pipeline._goals_around(image, fit, [])
    assert sorted(found) == sorted(GOAL_CELLS)


def goals_moved(s, image, dy):
    """``image`` (scene ``s`` with its goal cards taken away) with them laid ``dy`` cells
    north of their places."""
    lattice = truth_lattice(s)
    for x, y in GOAL_CELLS:
        here, there = lattice.quad((x, y)), lattice.quad((x, y + dy))
        moved = cv2.warpPerspective(s.image, cv2.getPerspectiveTransform(here.astype(np.float32),
                                                                         there.astype(np.float32)),
                                    image.shape[1::-1])
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(there).astype(np.int32), 1)
        image[mask > 0] = moved[mask > 0]
    return image


def test_a_fixed_camera_sees_goal_cards_its_lattice_misses_by_a_fifth_of_a_card():
    """Goal backs are plain and lie apart, where a lattice fitted on the maze can be a fifth
    of a card off: the tracked lattice's own crops there read no card (a printed bench film
    never held one of its goals). Each judged lattice looks for them as the anchoring does,
    by crops shifted about the goal places."""
    s = scene(42)
    image = goals_moved(s, without(s, list(GOAL_CELLS)), -0.24)
    pipeline = Pipeline(Classifier())
    steps = [pipeline.step(image) for _ in range(3)]
    assert not steps[-1].busy
    assert sorted(c.cell for c in steps[-1].observation.cards if c.cell in GOAL_CELLS) == sorted(GOAL_CELLS)


def without_the_start(monkeypatch, seen, found_at=lambda lattice, found: {}):
    """Scene 41 with the start card taken away, its lattice holding neither the start's cell
    nor the goals', and the search for goals around the maze answering ``seen`` (a change
    of what it found, cell -> reading), found where ``found_at`` says (cell -> pixels)."""
    s = scene(41)
    found_around = Pipeline._goals_around

    def searched(self, frame, lattice, known):
        found = seen(found_around(self, frame, lattice, known)[0])
        return found, found_at(lattice, found)

    monkeypatch.setattr(Pipeline, "_goals_around", searched)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS and c != START_CELL])
    return s, without(s, [START_CELL]), fit


def test_goals_that_put_the_start_on_another_card_leave_the_frame_unknown(pipeline, monkeypatch):
    # the start is gone, and the goals are found a cell nearer the maze than they lie (the
    # lattice, extrapolated eight cells out to them, drifted a cell): they put the start on
    # the card west of its place, and the other way round nowhere it could hide. Taking
    # their frame named a printed bench photo's every card a cell off.
    _, image, fit = without_the_start(monkeypatch, lambda found: {(x - 1, y): r for (x, y), r in found.items()})
    with pytest.raises(GridError, match="where another card lies"):
        pipeline._anchor_readings(image, fit)


def test_a_goal_read_on_both_sides_with_the_start_nowhere_leaves_the_frame_unknown(pipeline, monkeypatch):
    # the start is gone, and the middle goal card is read from the cells either side of it
    # across the goals' column, as a lattice lying half a cell off out there reads it: which
    # column the goals hold, and so where the start lies, nothing says (on a portrait bench
    # photo the lattice was a sixth off in pitch out at the goals, the start under a hand,
    # and the column holding more goals named every card a cell off)
    s, image, fit = without_the_start(monkeypatch, lambda found: found | {(9, 0): found[(8, 0)]})
    with pytest.raises(GridError, match="neighbouring cells and the start card was not read"):
        pipeline._anchor_readings(image, fit)
    # read on their cells alone, the same goals fix the frame
    monkeypatch.undo()
    without_the_start(monkeypatch, lambda found: found)
    readings, _, _ = pipeline._anchor_readings(image, fit)
    assert np.allclose(anchor(fit, readings).quad(START_CELL), truth_lattice(s).quad(START_CELL))


def test_a_goal_read_a_row_apart_with_the_start_unread_pins_the_lattice_to_the_goal_column(pipeline, monkeypatch):
    # the start is gone, and the middle goal card is read from the cells either side of it
    # along the goals' column as well, as a lattice lying half a cell off out there reads it
    # (drawn bench photo 189, its start under an arm): which goal places the goals hold, no
    # guess can say, but pinned to the goal column the lattice reads them on their cells
    s = scene(41)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS and c != START_CELL])
    found_around = Pipeline._goals_around

    def searched(self, frame, lattice, known):
        found, at = found_around(self, frame, lattice, known)
        return (found | {(8, 1): found[(8, 0)]} if lattice is fit else found), at

    monkeypatch.setattr(Pipeline, "_goals_around", searched)
    monkeypatch.setattr("vision.pipeline.fit_lattice", lambda *args, **kwargs: fit)
    observation = pipeline.observe(without(s, [START_CELL]))
    assert observation.error is None
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert len(observation.cards) >= 0.9 * (len(s.cells) - 1)


@pytest.mark.parametrize("squarely", [(), ((8, -2),)])
def test_goals_all_found_half_a_cell_off_with_the_start_nowhere_leave_the_frame_unknown(pipeline, monkeypatch,
                                                                                      squarely):
    # the start is gone, and every goal card is found half a cell along from its cell, as
    # where the lattice lies half a cell off out there: which column they hold, and so where
    # the start lies, nothing says (a portrait bench photo was framed a cell off so). One
    # goal read squarely on its cell fixes the column.
    def half_a_cell_off(lattice, found):
        return {(x, y): lattice.centre((x + 0.5, y)) for x, y in found if (x, y) not in squarely}
    s, image, fit = without_the_start(monkeypatch, lambda found: found, half_a_cell_off)
    if squarely:
        readings, _, _ = pipeline._anchor_readings(image, fit)
        assert np.allclose(anchor(fit, readings).quad(START_CELL), truth_lattice(s).quad(START_CELL))
    else:
        with pytest.raises(GridError, match="between two columns"):
            pipeline._anchor_readings(image, fit)


def test_goals_found_leaning_across_their_column_with_the_start_unread_leave_the_frame_unknown(pipeline, monkeypatch):
    # the start is gone, and the goal cards are found leaning across their column, half a
    # cell one way at one end and the other way at the other, as a lattice sheared out there
    # finds them (a printed bench photo, read by a model trained otherwise, named its maze a
    # column off so): how many columns lie between the maze and the goals, nothing says
    def leaning(lattice, found):
        return {(x, y): lattice.centre((x + y / 4, y)) for x, y in found}
    _, image, fit = without_the_start(monkeypatch, lambda found: found, leaning)
    with pytest.raises(GridError, match="do not lie in one column"):
        pipeline._anchor_readings(image, fit)


def bent_out_to_the_goals(s, bend=-0.0083) -> Lattice:
    """The scene's lattice bent on out to the goals (its cells growing eastward), holding
    neither the start's cell nor the goals': a fit on a small maze. As bent by default the
    goals lie half a cell off its columns (x = 8 at 7.5)."""
    truth = truth_lattice(s)
    bent = truth.image_from_maze @ np.array([[1, 0, 0], [0, 1, 0], [bend, 0, 1]])
    return replace(truth, image_from_maze=bent,
                   cells=frozenset(c for c in s.cells if c not in GOAL_CELLS and c != START_CELL))


def test_goals_found_between_two_columns_pin_the_lattice_to_the_column_their_cards_fill(pipeline, monkeypatch):
    # the start is gone and the lattice, fitted on the maze, bends on out to the goals,
    # which lie half a cell off its columns (a 4:3 bench photo: the start under a hand).
    # Pinned to a goal column there, only the column whose cells are the goal cards' size
    # reads all three surely as goals: that frame is taken, and every card lies on its cell
    s = scene(41)
    fit = bent_out_to_the_goals(s)
    monkeypatch.setattr("vision.pipeline.fit_lattice", lambda *args, **kwargs: fit)
    observation = pipeline.observe(without(s, [START_CELL]))
    assert observation.error is None
    assert sorted(c.cell for c in observation.cards if c.cell in GOAL_CELLS) == sorted(GOAL_CELLS)
    assert all(right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert len(observation.cards) >= 0.9 * (len(s.cells) - 1)


@pytest.mark.parametrize("gone", [[START_CELL], [START_CELL, (-1, 0)]])
def test_goals_a_column_nearer_than_they_lie_pin_the_lattice_to_the_column_their_cards_fill(pipeline, monkeypatch,
                                                                                            gone):
    # the start is gone, and the lattice bends on out to the goals further: they lie on its
    # column 7, 1.78 of its cells apart, and its count of columns from the maze to them is
    # a column short. Their frame puts the start on the card west of it (printed bench photo
    # 104, refused before), or with that card gone too, nowhere a card lies (drawn bench
    # photo 189, read with draw 1, its start under an arm, was named a column off so; here
    # the goals' spacing says the lattice's scale is off out there). Pinned to the goals as
    # the goal column, every card lies on its cell
    s = scene(41)
    fit = bent_out_to_the_goals(s, -0.0179)
    monkeypatch.setattr("vision.pipeline.fit_lattice", lambda *args, **kwargs: fit)
    observation = pipeline.observe(without(s, gone))
    assert observation.error is None
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert len(observation.cards) >= 0.9 * (len(s.cells) - len(gone))


def test_a_lattice_pinned_where_no_pinhole_sees_cards_is_refused_but_not_for_the_goal_column():
    # pinned to goal cards a tenth further out than a pinhole camera could see them as cards
    # (a lens bends a far column as no pinhole does), the lattice's refit is refused; the
    # goal column, which judges its pins by the maze's card sides and the goals' readings,
    # asks for no such check, and gets the lattice through its pins
    s = scene(41)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS])
    start = fit.centre(START_CELL)
    pins = {g: start + 1.1 * (fit.centre(g) - start) for g in GOAL_CELLS}
    assert refit_pinned(s.image, fit, pins) is None
    pinned, _ = refit_pinned(s.image, fit, pins, least_aspect=0.0)
    width = np.linalg.norm(fit.quad(START_CELL)[1] - fit.quad(START_CELL)[0])
    assert max(np.linalg.norm(pinned.centre(g) - p) for g, p in pins.items()) < 0.2 * width


@pytest.mark.parametrize("rows_off", [1, -1])
def test_goals_found_a_row_off_pin_the_lattice_to_the_rows_the_mazes_card_sides_fit(pipeline, rows_off):
    # the start is gone and the goal cards were found where a lattice drifting on out to
    # them puts them a row off (drawn bench photo 189 through a wide lens, its start under
    # an arm, was named a row off so): pinned there too, they read as surely as goals, but
    # the lattice shears between the maze and them, and fewer of the maze's card sides lie
    # on its lines than pinned to the rows they hold
    s = scene(41)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS and c != START_CELL])
    found = {(x, y + rows_off): s.cells[(x, y)].card_corners.mean(0) for x, y in GOAL_CELLS}
    pinned, pins = pipeline._pinned_to_goal_column(without(s, [START_CELL]), fit, found)
    assert sorted(pins) == sorted(GOAL_CELLS)
    for cell in [START_CELL, *GOAL_CELLS]:
        assert np.allclose(pinned.point_at(s.cells[cell].card_corners.mean(0)), cell, atol=0.3)


@pytest.mark.parametrize("columns_off", [1, -1, 0])
def test_goals_read_a_column_off_with_the_start_unread_are_recounted_by_the_mazes_card_sides(pipeline, columns_off):
    # the start is gone, and the goal cards were read on cells a column off their places, as
    # a lattice extrapolated over bare table to them counts a column too many or too few
    # (fresh bench photo 1256, its start under a hand, was named a column off so): pinned
    # to them there, the lattice bends between the maze and the goals, and fewer of the
    # maze's card sides lie on its lines than pinned to the column they hold. Read on their
    # places, they are left as read.
    s = scene(41)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS and c != START_CELL])
    goal = SimpleNamespace(face="goal-back")
    readings = {(x + columns_off, y): goal for x, y in GOAL_CELLS}
    at = {(x + columns_off, y): s.cells[(x, y)].card_corners.mean(0) for x, y in GOAL_CELLS}
    recounted = pipeline._recounted_to_goals(without(s, [START_CELL]), fit, readings, at)
    if not columns_off:
        assert recounted is None
        return
    for cell in [START_CELL, *GOAL_CELLS]:
        assert np.allclose(recounted.point_at(s.cells[cell].card_corners.mean(0)), cell, atol=0.3)
    with_the_start = readings | {START_CELL: SimpleNamespace(face="start")}
    assert pipeline._recounted_to_goals(s.image, fit, with_the_start, at) is None


@pytest.mark.parametrize("photo, lens, cards", [(1155, None, 18), (1256, None, 14), (1363, 0.1, 10)])
def test_fresh_bench_photos_with_the_start_unread_are_named_as_their_goals_lie(pipeline, photo, lens, cards):
    # their lattices, fitted on mazes whose start lies under a hand, put the goals 7.7 cells
    # from the maze's nearest column instead of 7 (1155, cards a fortieth of the frame wide)
    # and 4.2 instead of 5 (1256), and they were read a column off: every card of the maze
    # was named a column off. Through a lens of 0.1, 1363's goals, read where they lie, read
    # unsurely pinned there, and a recount that heeded only the pins whose goals read surely
    # named its maze a column off.
    options = SceneOptions() if lens is None else SceneOptions(barrel=lens)
    s = table_scene(np.random.default_rng(7_000_000 + photo), options=options)
    observation = pipeline.observe(s.image)
    assert observation.error is None and START_CELL not in {c.cell for c in observation.cards}
    assert len([c for c in observation.cards if c.cell in GOAL_CELLS]) >= 2
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert len(observation.cards) >= cards


def test_a_card_read_surely_but_not_borne_out_still_says_the_lattice_lines_up():
    # a card whose reading crops shifted a little or turned do not bear out lies there
    # surely, only which one is in doubt: the lattice is judged (whether it lines up, and
    # whether it reads more cards than another) as if it were read
    lattice = Lattice(np.eye(3), (100, 100), frozenset({(0, 0), (1, 0), (2, 0)}))
    seen = Observation(cards=[SeenCard(0, 0, "start", 0, 1.0)],
                       uncertain=[Unsure(1, 0, "unconfirmed"), Unsure(2, 0, "not-a-maze-card")])
    assert _shares(seen, lattice) == (2 / 3, 1 / 3)


def test_a_photo_with_no_maze_found_as_taken_is_read_straightened_as_from_a_wide_lens(pipeline):
    # a webcam's wide lens (a frame corner moved 6 % of the half diagonal in) bends the maze's
    # lines, and the lattice grown on them leans off the cards: as taken, no maze is found;
    # straightened as from a typical wide lens, every card read is right, and the answer says so
    s = table_scene(np.random.default_rng(186), options=SceneOptions(barrel=0.2))
    assert s.camera.barrel > 0.06
    assert pipeline._observe(s.image)[0].error is not None
    observation = pipeline.observe(s.image)
    assert observation.error is None and observation.warnings[0] == STRAIGHTENED
    assert len(observation.cards) >= 9
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)


def test_a_photo_whose_maze_reads_weakly_as_taken_is_read_straightened_where_that_reads_it_surely(pipeline):
    # through a wide lens (a frame corner moved 21 % of the half diagonal) the lattice leans
    # off the cards out at the maze's ends: as taken, it reads 0.6 of its cells surely;
    # straightened, it reads more of them, all right. (Through a lens of 0.2 it reads 0.41
    # surely under OpenCV 5.0, but 0.69 under 5.1, as surely as straightened: the next test.)
    s = table_scene(np.random.default_rng(1192), options=SceneOptions(barrel=0.21))
    as_taken, sure, _ = pipeline._observe(s.image)
    assert as_taken.error is None and sure < WEAK_SURE_SHARE
    observation = pipeline.observe(s.image)
    assert observation.error is None and observation.warnings[0] == STRAIGHTENED
    assert len(observation.cards) > len(as_taken.cards)
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)


def test_a_photo_read_as_surely_straightened_as_taken_is_read_straightened_where_the_rules_fault_fewer_cards(pipeline):
    # through a lens of 0.2 (under OpenCV 5.1) the same photo reads 0.69 surely either way,
    # as taken with a row of cards read a column off and two straights where crossroads lie:
    # two cards whose tunnels do not meet their neighbours'. Straightened, every card read is
    # right, and the rules fault none.
    s = table_scene(np.random.default_rng(1192), options=SceneOptions(barrel=0.2))
    observation = pipeline.observe(s.image)
    assert observation.error is None and observation.warnings[0] == STRAIGHTENED
    assert not maze_report(observation.board(pipeline.catalogue), [u.cell for u in observation.uncertain])
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)


def test_a_straightened_reading_is_taken_as_surely_read_only_where_the_rules_fault_fewer_of_its_cards(pipeline):
    def read(*cards: SeenCard) -> Observation:
        return Observation(cards=[SeenCard(0, 0, "start", 0, 1.0), *cards])

    fitting = read(SeenCard(1, 0, "straight-ew", 0, 1.0), SeenCard(2, 0, "cross", 0, 1.0))
    # the crossroads beyond read as a dead end facing away: its closed side meets the straight's tunnel
    faulted = read(SeenCard(1, 0, "straight-ew", 0, 1.0), SeenCard(2, 0, "dead-e", 0, 1.0))
    catalogue = pipeline.catalogue
    assert _reads_better((fitting, 0.7), (faulted, 0.7), catalogue)
    assert not _reads_better((fitting, 0.69), (faulted, 0.7), catalogue)  # less surely
    assert not _reads_better((faulted, 0.7), (fitting, 0.7), catalogue)
    assert not _reads_better((fitting, 0.7), (fitting, 0.7), catalogue)  # the rules fault neither
    assert not _reads_better((read(SeenCard(1, 0, "straight-ew", 0, 1.0)), 0.7), (faulted, 0.7), catalogue)  # fewer cards
    assert _reads_better((fitting, 0.85), (read(SeenCard(1, 0, "straight-ew", 0, 1.0)), 0.7), catalogue)  # surer, more


@pytest.mark.parametrize("perspective", [-0.03, 0.025])
def test_with_the_start_read_the_goals_found_far_off_the_goal_places_pin_the_lattice(monkeypatch, perspective):
    # a lattice fitted on the maze's middle with its perspective off: out at the goals its
    # cells come half as large again as the cards (-0.03), and the goals lie 6.5 of them from
    # the start, where no search on the goal places finds them, and the maze's shape alone
    # would say which way it runs (4:3 photos turned half a turn so); or they come smaller
    # (0.025), the goals lie over 9 of them out, and the goal places hold bare table in view
    # (fresh photo 1417 through a lens up to 0.1 found no maze so). Found about the maze,
    # they pin the lattice as the goal column eight cells from the start.
    s = scene(41)
    truth = truth_lattice(s)
    bent = truth.image_from_maze @ np.array([[1, 0, 0], [0, 1, 0], [perspective, 0, 1]])
    fit = replace(truth, image_from_maze=bent,
                  cells=frozenset(c for c in s.cells if abs(c[0]) <= 2 and c not in GOAL_CELLS))
    monkeypatch.setattr("vision.pipeline.fit_lattice", lambda *args, **kwargs: fit)
    pipeline = Pipeline(Classifier())
    observation = pipeline.observe(s.image)
    assert observation.error is None
    assert sorted(c.cell for c in observation.cards if c.cell in GOAL_CELLS) == sorted(GOAL_CELLS)
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)


def test_a_maze_whose_goal_cards_are_not_in_view_is_read_with_a_warning_that_its_direction_is_guessed(pipeline):
    s = scene(41)
    no_goals = np.ascontiguousarray(s.image[:, :440])  # the goal cards out of the frame
    observation = pipeline.observe(no_goals)
    assert observation.error is None and DIRECTION_GUESSED in observation.warnings
    assert DIRECTION_GUESSED not in pipeline.observe(s.image).warnings
    video = Pipeline(pipeline.classifier)
    assert DIRECTION_GUESSED in video.step(no_goals).observation.warnings
    # the whole view (fitted afresh): the goal cards read
    assert all(DIRECTION_GUESSED not in video.step(s.image).observation.warnings for _ in range(3))


def test_a_fixed_camera_pins_its_lattice_to_the_goal_column_as_a_photo_does(monkeypatch):
    # the same bent lattice fitted on a still view: the fixed camera's first look anchors it
    # on the goal column too, instead of refusing the view again on every frame
    s = scene(41)
    fit = bent_out_to_the_goals(s)
    monkeypatch.setattr("vision.grid.fit_lattice", lambda *args, **kwargs: fit)
    pipeline = Pipeline(Classifier())
    observation = pipeline.step(without(s, [START_CELL])).observation
    assert observation.error is None
    assert sorted(c.cell for c in observation.cards if c.cell in GOAL_CELLS) == sorted(GOAL_CELLS)
    assert all(right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)


def test_goals_missed_around_the_maze_are_looked_for_beside_one_found(pipeline, monkeypatch):
    # the start is gone and the search around the maze found one goal card of three (far
    # out, a card may read surely only between its half-cell steps across, as on a printed
    # bench photo): the others are looked for along its column, and the three fix the frame
    s, image, fit = without_the_start(monkeypatch, lambda found: {c: r for c, r in found.items() if c == (8, -2)})
    readings, _, _ = pipeline._anchor_readings(image, fit)
    assert {c for c, r in readings.items() if is_goal(r.face)} >= set(GOAL_CELLS)
    assert np.allclose(anchor(fit, readings).quad(START_CELL), truth_lattice(s).quad(START_CELL))


def test_goals_that_fit_their_places_several_ways_without_the_start_leave_the_frame_unknown(pipeline):
    s = scene(41)
    assert not pipeline.observe(without(s, [START_CELL])).error  # three goals in a column: one frame
    observation = pipeline.observe(without(s, [START_CELL, (8, -2)]))
    assert "maze frame is unknown" in observation.error and not observation.cards


def test_a_card_misread_as_a_goal_off_the_goal_column_leaves_the_frame_unknown(pipeline, monkeypatch):
    # two goals two apart fit two ways, the start is gone; a maze card read as a goal does
    # not share their column: no way fits all three, which must not pass for one way
    s = scene(41)
    image = without(s, [START_CELL, (8, -2)])
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in (START_CELL, (8, -2))])
    misreading_as_a_goal(pipeline, monkeypatch, fit, min(c for c in fit.cells if 0 < c[0] < 8))
    with pytest.raises(GridError, match="maze frame is unknown"):
        pipeline._anchor_readings(image, fit)


def test_goals_that_fit_several_ways_are_placed_by_where_the_start_can_hide(pipeline):
    # two goals two apart fit (8, 0) and (8, 2) or (8, -2) and (8, 0); the start is under a
    # hand (its cell occluded), and the other place the goals allow holds another card or
    # bare table: the start can only be where the hand is
    s = scene(41)
    image = without(s, [START_CELL, (8, -2)])
    cells = frozenset(c for c in s.cells if c not in (START_CELL, (8, -2)))
    hand = Lattice(s.image_from_maze, s.image.shape[1::-1], cells, occluded=frozenset({START_CELL}))
    readings, _, start_hidden_at = pipeline._anchor_readings(image, hand)
    assert start_hidden_at == [START_CELL]
    anchored = anchor(hand, readings, start_hidden_at)
    assert np.allclose(anchored.quad(START_CELL), truth_lattice(s).quad(START_CELL))
    # with no hand there, nothing says which: the frame stays unknown
    bare = replace(hand, occluded=frozenset())
    with pytest.raises(GridError, match="maze frame is unknown"):
        pipeline._anchor_readings(image, bare)


def two_goals_and_the_start_under_a_hand():
    """A photo with one goal card taken away, and its lattice with the start's cell under a
    hand the skin test saw: the start is looked for where the two goals left put it."""
    s = scene(41)
    image = without(s, [(8, -2)])
    return image, truth_lattice(s, cells=[c for c in s.cells if c not in (START_CELL, (8, -2))],
                                occluded=frozenset({START_CELL}))


def test_a_start_found_at_two_places_the_goals_allow_leaves_the_frame_unknown(pipeline, monkeypatch):
    # two goals two apart fit two ways; the start, its cell under a hand the skin test saw,
    # is looked for on the places they allow and reads on two of them (one card read from
    # either side by a lattice half a cell off it, as on a bench photo that was then named
    # two cells off): the hand does not say which is the start
    image, fit = two_goals_and_the_start_under_a_hand()
    find_cards = pipeline._find_cards

    def reading_the_start_twice(frame, lattice, places, wanted, *shifts):
        found, at = find_cards(frame, lattice, places, wanted, *shifts)
        if START_CELL in found:
            found[(0, 2)] = found[START_CELL]
        return found, at

    monkeypatch.setattr(pipeline, "_find_cards", reading_the_start_twice)
    with pytest.raises(GridError, match="maze frame is unknown"):
        pipeline._anchor_readings(image, fit)
    monkeypatch.undo()
    readings, _, _ = pipeline._anchor_readings(image, fit)  # found once: it sets the frame
    assert anchor(fit, readings).maze_from_fit.tolist() == np.eye(3).tolist()


def test_a_start_found_between_two_cells_leaves_the_frame_unknown(pipeline, monkeypatch):
    # the start, unread on its cell, is looked for where the goals put it and found half a
    # cell off it: the lattice lies between the cards (as on a bench photo whose cells each
    # straddled two cards), and every cell named from it would be a guess; a quarter of a
    # cell off (a lattice drifting) it still sets the frame
    image, fit = two_goals_and_the_start_under_a_hand()
    find_cards = pipeline._find_cards
    off = {}

    def finding_the_start_off_its_cell(frame, lattice, places, wanted, *shifts):
        found, at = find_cards(frame, lattice, places, wanted, *shifts)
        if START_CELL in found:
            at[START_CELL] = lattice.centre((off["x"], 0.0))
        return found, at

    monkeypatch.setattr(pipeline, "_find_cards", finding_the_start_off_its_cell)
    off["x"] = 0.5
    with pytest.raises(GridError, match="between two cells"):
        pipeline._anchor_readings(image, fit)
    off["x"] = 0.25
    readings, at, _ = pipeline._anchor_readings(image, fit)
    assert START_CELL in at and anchor(fit, readings).maze_from_fit.tolist() == np.eye(3).tolist()


def test_the_start_can_hide_under_a_hand_or_behind_an_unsure_reading_of_it(pipeline):
    from types import SimpleNamespace

    names = [c.name for c in pipeline.classifier.classes]

    def reading(**shares):
        probs = np.zeros(len(names))
        for name, p in shares.items():
            probs[names.index(name.replace("_", "-"))] = p
        return SimpleNamespace(probabilities=probs, uncertain=True, face=None)  # an unsure reading

    def card(face):
        return SimpleNamespace(face=face, rotation=0)

    lattice = Lattice(np.eye(3), (100, 100), frozenset({(1, 0), (2, 0)}), occluded=frozenset({(0, 0)}))

    def hides(reading, cell, sure=None):
        return pipeline._start_may_hide(lattice, reading, cell, sure or {})

    assert hides(None, (0, 0)) == 2  # under a hand
    assert hides(reading(start=0.6, cross=0.4), (1, 0)) == 2  # the start, unsurely
    assert hides(reading(goal_gold=0.5, start=0.3, cross=0.2), (1, 0)) == 2  # no goal lies there
    assert hides(reading(cross=0.6, start=0.4), (1, 0)) == 0  # another card, even unsurely
    assert hides(None, (3, 0)) == 0  # not read: bare table
    # no maze card (a hand the skin test missed?): only where a card beside it opens toward it
    assert hides(reading(other=0.9, start=0.1), (2, 0)) == 0
    east = {(3, 0): card("straight-ew")}
    assert hides(reading(other=0.9, start=0.1), (2, 0), east) == 1
    assert hides(SimpleNamespace(uncertain=False, face=None), (2, 0), east) == 0  # surely bare table
    # the start is a crossroads: a card read beside it closed toward it rules it out
    assert hides(reading(other=0.9, start=0.1), (2, 0), east | {(2, 1): card("straight-ew")}) == 0
    assert hides(reading(other=0.9, start=0.1), (2, 0), east | {(9, 9): card("dead-e")}) == 1  # not beside it
    # but not under a hand, which reaches onto the near edges of the cards beside it: a
    # tunnel's end under a finger reads as closed (a crossroads beside the start under an
    # arm read as a T on a printed bench photo, and ruled out the start's true place)
    assert hides(None, (0, 0), {(1, 0): card("dead-e")}) == 2


def test_a_cell_judged_crosswise_with_a_card_square_on_it_is_read(pipeline):
    s = scene(42)
    cell = next(c for c, t in sorted(s.cells.items()) if t.face not in ("start", "goal-back"))
    observation, _ = pipeline._read(s.image, truth_lattice(s, set(s.cells) - {cell}, crosswise=frozenset({cell})))
    card = next(c for c in observation.cards if c.cell == cell)
    assert right(card, s.cells[cell], pipeline.catalogue)


def test_a_card_laid_crosswise_stays_crosswise(pipeline):
    s = scene(43, p_crosswise=1.0)
    (cell,) = s.crosswise
    observation, _ = pipeline._read(s.image, truth_lattice(s, crosswise=frozenset({cell})))
    assert cell not in {c.cell for c in observation.cards}
    assert [u.cell for u in observation.uncertain if u.reason == "crosswise"] == [cell]


def test_a_lone_card_read_where_the_grid_sees_table_is_left_uncertain(pipeline, monkeypatch):
    # the reading stage names cards on four cells beside a maze of (0,0) and (1,0); the grid
    # saw cards only on the maze's cells
    from vision import pipeline as stage
    from vision.observation import SeenCard

    named = {(1, 0): "straight-ew", (2, 0): "straight-ew", (-3, 1): "dead-e", (8, 2): "goal-back"}
    monkeypatch.setattr(stage, "read_cells", lambda *a, **k: (
        [SeenCard(x, y, face, 0, 0.99) for (x, y), face in named.items()], [], set()))
    s = scene(42)
    observation, _ = pipeline._read(s.image, truth_lattice(s, cells={(0, 0), (1, 0)}))
    # (2,0) lies beside a card read, (8,2) is a goal place, (1,0) is on the maze: only (-3,1)
    # is a card alone where the grid sees none (part of a neighbour's card, likely)
    assert {c.cell for c in observation.cards} == {(1, 0), (2, 0), (8, 2)}
    assert [(u.x, u.y, u.reason) for u in observation.uncertain] == [(-3, 1, "off-cell")]


def test_cards_no_chain_of_cards_links_to_the_maze_are_no_maze_cards(pipeline, monkeypatch):
    """Cards four cells or more from the maze (loose cards on the table the lattice lines up
    with) are left out; a card three cells off (beyond two rockfalls' gap) stays, and so do
    cards far off by the frame's edge, which may be linked through what the photo misses."""
    from vision import pipeline as stage
    from vision.observation import SeenCard, Unsure

    named = {(0, 0): "start", (1, 0): "straight-ew", (4, 3): "dead-e", (1, 7): "straight-ns",
             (2, 7): "straight-ns", (-9, 0): "straight-ew"}
    monkeypatch.setattr(stage, "read_cells", lambda *a, **k: (
        [SeenCard(x, y, face, 0, 0.99) for (x, y), face in named.items()], [Unsure(2, 8, "low-confidence")], set()))
    # cells 100 pixels wide, (0, 0) ten cells from the frame's west edge and farther from the others
    image_from_maze = np.array([[100.0, 0, 1000], [0, 100, 1000], [0, 0, 1]])
    lattice = Lattice(image_from_maze, (1800, 2500), frozenset(named) | {(2, 8)}, anchored=True)
    observation, _ = pipeline._read(np.zeros((2500, 1800, 3), np.uint8), lattice)
    assert {c.cell for c in observation.cards} == {(0, 0), (1, 0), (4, 3), (-9, 0)}
    # the unsure cell beside the cards left out goes with them; the one beyond the frame's
    # edge beside the card kept there is no cell the photo shows bare
    assert observation.uncertain == [Unsure(-10, 0, "out-of-view")]


@pytest.mark.parametrize("deck, kept", [(40, {(-10, -9)}), (15, set())])
def test_cards_by_the_frames_edge_stay_where_the_deck_can_link_them_through_what_the_photo_misses(
        pipeline, monkeypatch, deck, kept):
    """A card by the frame's edge may be linked to the maze through cells out of the frame,
    as far as the path cards the maze has not used reach: a few cells along the edge the
    maze runs out of, not round the frame to its far corner (printed bench photo 44 after a
    rockfall: a loose card there was accused of touching no other)."""
    from vision import pipeline as stage

    # the maze runs from the start out of the frame's top edge; a card by that edge eleven
    # columns to the left, and one by the far bottom right corner
    named = {(0, 0): "start", **{(1, y): "straight-ns" for y in range(-9, 1)}, (-10, -9): "straight-ns",
             (19, 9): "straight-ew"}
    monkeypatch.setattr(stage, "read_cells", lambda *a, **k: (
        [SeenCard(x, y, face, 0, 0.99) for (x, y), face in named.items()], [], set()))
    monkeypatch.setattr(pipeline, "_path_cards", deck)
    # cells 100 pixels wide, (0, 0) 20 cells from the frame's left edge and 10 from its top
    image_from_maze = np.array([[100.0, 0, 2000], [0, 100, 1000], [0, 0, 1]])
    lattice = Lattice(image_from_maze, (4000, 2000), frozenset(named), anchored=True)
    observation, _ = pipeline._read(np.zeros((2000, 4000, 3), np.uint8), lattice)
    assert {c.cell for c in observation.cards} == {c for c in named if c[0] in (0, 1)} | kept


def test_a_loose_card_no_path_out_of_the_frame_could_link_is_no_maze_card(pipeline):
    # a regression guard: on this 1080p bench photo after a rockfall (bench/vision.py's seed
    # + 83) a loose card lies by the frame's edge eleven rows north of the start; the deck's
    # path cards left could not run out of the frame and back to it, and it was read as a
    # card where none lies
    s = table_scene(np.random.default_rng(7_000_083), options=SceneOptions(rockfalls=1))
    observation = pipeline.observe(s.image)
    assert observation.error is None
    assert {c.cell for c in observation.cards} <= set(s.cells)
    assert not {(-1, 11), (-1, 12)} & {u.cell for u in observation.uncertain}  # nor left unsure


@pytest.mark.parametrize("seen_by_grid", [True, False])
def test_a_card_mostly_out_of_view_is_left_uncertain(pipeline, seen_by_grid):
    # the photo cut through the maze, so that some card has less than half of it in view:
    # its crop would repeat the frame's edge in streaks, which read as a straight tunnel.
    # Where the grid saw no card on it (too little of it in view), the photo does not show
    # the cell bare either: a card's way back to the start may run through it
    s = scene(42)
    height, width = s.image.shape[:2]
    for cut in range(width, 0, -8):
        lattice = replace(truth_lattice(s), frame_size=(cut, height))
        share = {c: lattice.share_in_view(c) for c in s.cells}
        if any(0.05 < v < 0.5 for v in share.values()):
            break
    cut_off = {c for c, v in share.items() if 0 < v < 0.5}
    if not seen_by_grid:
        lattice = replace(lattice, cells=lattice.cells - cut_off)
    observation, _ = pipeline._read(np.ascontiguousarray(s.image[:, :cut]), lattice)
    assert cut_off and not cut_off & {c.cell for c in observation.cards}
    assert cut_off <= {u.cell for u in observation.uncertain if u.reason == "out-of-view"}
    in_view = {c for c, v in share.items() if v >= IN_VIEW}
    assert len({c.cell for c in observation.cards} & in_view) >= 0.9 * len(in_view)


@pytest.mark.parametrize("seed", [40, 44])
def test_the_mazes_cells_beyond_the_frames_edge_are_reported_so_that_no_card_is_cut_off_by_them(pipeline, seed):
    """A photo that leaves the start and the cards next to it beyond its edge: the cells of
    the maze's box outside the frame are reported out of view (the start's place too), and
    every card read is given the doubt of its way back running there. Taken for bare table,
    they cut the cards in view off the start (fresh bench photos 1257 and 1405)."""
    s = scene(seed)
    lattice = truth_lattice(s)
    start_x = lattice.centre(START_CELL)[0]
    side = float(np.linalg.norm(lattice.quad(START_CELL)[1] - lattice.quad(START_CELL)[0]))
    width = s.image.shape[1]
    # a cut a card and a half past the start's centre, the start's side of it left out
    cut = int(start_x + 1.5 * side) if start_x < width / 2 else int(start_x - 1.5 * side)
    columns = slice(cut, width) if start_x < width / 2 else slice(0, cut)
    shift = np.array([[1.0, 0, -columns.start], [0, 1, 0], [0, 0, 1]])
    image = np.ascontiguousarray(s.image[:, columns])
    cropped = Lattice(shift @ s.image_from_maze, image.shape[1::-1], frozenset())
    lattice = replace(cropped, cells=frozenset(c for c in s.cells if cropped.share_in_view(c) >= IN_VIEW))
    assert maze_report(s.board) == {} and START_CELL not in lattice.cells
    observation, _ = pipeline._read(image, lattice)
    beyond = {u.cell for u in observation.uncertain if u.reason == "out-of-view"}
    assert START_CELL in beyond and all(lattice.share_in_view(c) < IN_VIEW for c in beyond)
    read = {c.cell for c in observation.cards}
    assert len(read) >= 0.9 * len(lattice.cells)
    assert maze_report(observation.board(), [u.cell for u in observation.uncertain]) == {}


def test_a_card_the_grid_sees_that_reads_as_bare_table_is_not_taken_for_table(pipeline, monkeypatch):
    """A palm the skin test misses over a card can read surely as bare table, where the grid
    sees a card. Taken for table, the cell cut the cards beyond it off the start (18 legal
    cards accused on a bench photo of a foreign printing): it is reported maybe-empty."""
    from vision import pipeline as stage

    s = scene(46)
    palm = (0, 2)  # eight cards lead back to the start through it
    without = s.board.copy()
    without.remove(palm)
    assert len(maze_report(without)) == 8
    read_cells = stage.read_cells

    def palm_over(*args, **kwargs):
        cards, uncertain, empty = read_cells(*args, **kwargs)
        return [c for c in cards if c.cell != palm], uncertain, empty | ({palm} & {c.cell for c in cards})

    monkeypatch.setattr(stage, "read_cells", palm_over)
    observation = pipeline.observe(s.image)
    assert Unsure(*palm, MAYBE_EMPTY) in observation.uncertain
    assert maze_report(observation.board(), [u.cell for u in observation.uncertain]) == {}


def test_a_cell_a_hand_hems_in_is_not_taken_for_table_whatever_it_reads_as(pipeline, monkeypatch):
    """An arm whose skin has the table's colour and tone reads as table however surely, and
    the grid sees no card under it: taken for table, a cell it hid cut the cards beyond off
    the start (3 legal cards accused on a bench photo of a foreign printing, a dark arm over
    a dark table). Hemmed in on two sides by what reads as no maze card, it is maybe-empty."""
    from vision import pipeline as stage

    s = scene(46)
    palm, arm = (0, 2), {(1, 2), (0, 1)}  # seven cards lead back to the start only through the palm's cell
    read_cells, anchored = stage.read_cells, stage.Pipeline._anchored

    def arm_over(*args, **kwargs):
        cards, uncertain, empty = read_cells(*args, **kwargs)
        read = {c.cell for c in cards}
        return ([c for c in cards if c.cell not in arm | {palm}],
                uncertain + [Unsure(*c, "not-a-maze-card") for c in sorted(arm & read)], empty | ({palm} & read))

    def no_card_seen_under_it(self, *args):
        lattice = anchored(self, *args)
        return replace(lattice, cells=lattice.cells - {palm})

    monkeypatch.setattr(stage, "read_cells", arm_over)
    monkeypatch.setattr(stage.Pipeline, "_anchored", no_card_seen_under_it)
    observation = pipeline.observe(s.image)
    assert {Unsure(*c, "not-a-maze-card") for c in arm} <= set(observation.uncertain)
    assert Unsure(*palm, MAYBE_EMPTY) in observation.uncertain
    assert maze_report(observation.board(), [u.cell for u in observation.uncertain]) == {}


def test_a_bare_cell_is_hemmed_in_by_a_hand_on_two_sides_not_one():
    observation = Observation(uncertain=[Unsure(1, 0, "not-a-maze-card"), Unsure(0, 1, "occluded"),
                                         Unsure(5, 6, "not-a-maze-card"), Unsure(4, 5, "low-confidence")])
    assert _hemmed_in({(0, 0), (5, 5), (9, 9)}, observation) == {(0, 0)}


def test_a_bare_cell_beside_a_hand_is_maybe_empty_only_where_a_card_on_it_gives_cut_off_cards_a_way_back(pipeline):
    # the start, a bare cell beside a hand, and a crossroads beyond it: cut off unless a card
    # lies on the bare cell, as one may under an arm of the table's colour
    cut_off = Observation(cards=[SeenCard(0, 0, "start", 0, 1.0), SeenCard(2, 0, "cross", 0, 1.0)],
                          uncertain=[Unsure(1, 1, "occluded")])
    bare = {(1, 0), (0, 1), (3, 3)}  # beside the hand and between; beside the hand only; apart
    assert _rejoining(bare, cut_off, pipeline.catalogue) == {(1, 0)}
    joined = Observation(cards=[SeenCard(0, 0, "start", 0, 1.0), SeenCard(-1, 0, "straight-ew", 0, 1.0)],
                         uncertain=[Unsure(1, 1, "occluded")])
    assert _rejoining(bare, joined, pipeline.catalogue) == set()  # no card lacks a way back
    alone = Observation(cards=cut_off.cards)
    assert _rejoining(bare, alone, pipeline.catalogue) == set()  # no hand: the bare cell is a rockfall's hole


def test_an_arm_of_the_tables_colour_beside_a_hand_does_not_cut_legal_cards_off_the_start(pipeline):
    # 12 MP bench photo 123 (brought down to 1920 x 1440 to be read): a dark arm over a
    # wooden table hides two cards beside a hand; both read surely as bare table, and six
    # legal cards were accused of having no way back to the start
    s = table_scene(np.random.default_rng(7_000_123), size=(4032, 3024), options=SceneOptions())
    observation = pipeline.observe(s.image)
    assert observation.error is None
    assert not maze_report(observation.board(pipeline.catalogue), [u.cell for u in observation.uncertain])
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)


@pytest.mark.parametrize("reason", ["not-a-maze-card", "low-confidence"])
def test_a_photo_whose_lattice_does_not_read_its_cards_as_maze_cards_gets_an_error(pipeline, monkeypatch, reason):
    # the grid sees cards on the maze's cells, but most of them read as something that is no
    # maze card, or unsurely: a lattice cutting across the cards, whose readings would be made up
    from vision import pipeline as stage

    s = scene(42)
    monkeypatch.setattr(stage, "fit_lattice", lambda frame, **kw: truth_lattice(s))
    honest = pipeline._read

    def across(frame, lattice, share):
        observation, empty = honest(frame, lattice)
        crossed = sorted(c.cell for c in observation.cards if c.face != "start")[:round(share * len(lattice.cells))]
        observation.cards = [c for c in observation.cards if c.cell not in crossed]
        observation.uncertain += [Unsure(x, y, reason) for x, y in crossed]
        return observation, empty

    monkeypatch.setattr(pipeline, "_read", lambda frame, lattice: across(frame, lattice, 0.3))
    assert pipeline.observe(s.image).error is None  # a few: a loose card, a hand the skin test missed
    monkeypatch.setattr(pipeline, "_read", lambda frame, lattice: across(frame, lattice, 0.7))
    observation = pipeline.observe(s.image)
    assert "does not line up with the cards" in observation.error and not observation.cards


def test_a_plain_photo_is_read_from_scratch(pipeline):
    # a regression guard, not the figure: these three are read fully right; the lattice fit
    # still fails on some plain photos (bench/vision.py measures how often)
    cards = read_right = 0
    for seed in (44, 46, 47):
        s = scene(seed)
        observation = pipeline.observe(s.image)
        assert observation.error is None
        seen = {c.cell: c for c in observation.cards}
        assert set(seen) <= set(s.cells)  # nothing read where no maze card lies
        for cell, truth in s.cells.items():
            cards += 1
            if cell in seen:
                assert right(seen[cell], truth, pipeline.catalogue), cell
                read_right += 1
    assert read_right >= 0.9 * cards


def test_another_draw_of_the_vanishing_points_reads_a_plain_photo_alike(pipeline, monkeypatch):
    # the draw reaches the table stage, and on a plain photo it decides nothing (the bench's
    # --draw measures how much it decides on hard ones)
    seeds = []
    find_plane = vision.table.find_plane

    def recording(*args, seed=0, **kwargs):
        seeds.append(seed)
        return find_plane(*args, seed=seed, **kwargs)

    monkeypatch.setattr(vision.table, "find_plane", recording)
    s = scene(44)
    readings = []
    for draw in (0, 1):
        observation = Pipeline(pipeline.classifier, draw=draw).observe(s.image)
        readings.append({(c.cell, c.face, c.rotation) for c in observation.cards})
    assert seeds and set(seeds) == {0, 1}
    assert readings[0] == readings[1] and len(readings[0]) >= 0.9 * len(s.cells)


def test_a_black_and_white_photo_is_read_and_the_user_told_what_it_costs(pipeline, tmp_path, capsys):
    """A grey photo (a grey JPEG loads as three equal channels) shows no skin's hue at all:
    the occupancy's skin test once failed on the empty set of such pixels. It is read, and
    the user is told that a hand cannot be told from the cards in it (the first 100 drawn
    bench photos, grey, read 7 cards wrongly or where none lies; in colour, none)."""
    from tunnelvision.cli import main

    s = scene(44)
    grey = cv2.cvtColor(cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    observation = pipeline.observe(grey)
    assert observation.error is None
    assert observation.cards and all(right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert observation.warnings == [NO_COLOUR] and not pipeline.observe(s.image).warnings
    for image, told in ((grey, True), (s.image, False)):
        cv2.imwrite(str(tmp_path / "photo.png"), image)
        assert main(["check", str(tmp_path / "photo.png")]) == 0
        assert ("the picture has no colour" in capsys.readouterr().err) == told
        assert main(["check", "--json", str(tmp_path / "photo.png")]) == 0
        assert json.loads(capsys.readouterr().out).get("warnings", []) == ([NO_COLOUR] if told else [])
    # a camera turning to its night mode
    video = Pipeline(pipeline.classifier)
    assert [video.step(frame).observation.warnings for frame in (s.image, grey)] == [[], [NO_COLOUR]]


def test_a_colour_photo_as_grey_on_average_as_a_black_and_white_one_is_not_told_it_has_no_colour():
    """Fresh bench photo 1002: a dark grey cloth and grey-blue cards, the colour only in the
    goal backs and a few loose cards; on average its channels differ by 0.44, under what
    once took a picture for grey. In black and white, even through a colour JPEG with noise
    in every channel, it has none."""
    from vision.pipeline import colourless

    image = table_scene(np.random.default_rng(7_001_002)).image
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    noisy = np.clip(grey + np.random.default_rng(0).normal(0, 1.5, grey.shape), 0, 255).astype(np.uint8)
    noisy = cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR)
    assert [colourless(picture) for picture in (image, grey, noisy)] == [False, True, True]


def test_a_photo_taken_in_a_dim_room_reads_as_one_taken_right(pipeline):
    """The camera's exposure 0.4 of a right one, its sensor noise as before: taken as it came,
    5 of the 34 cards were left unread; brought up to the bench's least white, every card
    reads right, in a photo and in a fixed camera's frame, and the user is told that the
    picture is dark (its noise comes up with it)."""
    s = scene(41)
    dim = scene(41, camera_gains=(0.4, 0.4, 0.4))
    assert dim.cells.keys() == s.cells.keys() and dim.image.mean() < 0.5 * s.image.mean()
    for observation in (pipeline.observe(dim.image), Pipeline(pipeline.classifier).step(dim.image).observation):
        assert observation.error is None and observation.warnings == [DARK]
        assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
        assert len(observation.cards) == len(s.cells)
    assert not pipeline.observe(s.image).warnings
    night = np.random.default_rng(0).integers(0, 30, (720, 1280, 3)).astype(np.uint8)  # no maze in it
    for observation in (pipeline.observe(night), Pipeline(pipeline.classifier).step(night).observation):
        assert observation.error and observation.warnings == [DARK]


def test_a_warm_lamps_cast_that_the_cameras_white_balance_left_is_taken_out_of_a_photo(pipeline):
    """A warm lamp photographed with the white balance locked for daylight (red 1.25, blue
    0.62): read as it came, 2 of the 18 cards were left unread; read again with the cast
    seen in the cards' white taken out, every card reads right."""
    s = scene(48, camera_gains=(0.62, 1.0, 1.25))
    observation = pipeline.observe(s.image)
    assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert len(observation.cards) == len(s.cells)


def test_a_picture_whose_cards_white_is_burnt_out_says_so(pipeline):
    """A camera exposing 1.6 times too long (as for a darker table): the cards' tunnels and
    much of their rock clip, and 7 of the 34 cards are left unread. What clipping took
    cannot be mended, so the reading says so, of a photo and of a fixed camera's frame;
    exposed right, it says nothing. Where so few cards read that the maze cannot be anchored
    (43) or the lattice reads as no maze (57), the answer says why as well."""
    s = scene(44, camera_gains=(1.6, 1.6, 1.6))
    for observation in (pipeline.observe(s.image), Pipeline(pipeline.classifier).step(s.image).observation):
        assert observation.error is None and observation.warnings == [BURNT]
        assert all(c.cell in s.cells and right(c, s.cells[c.cell], pipeline.catalogue) for c in observation.cards)
    assert not pipeline.observe(scene(44).image).warnings
    for k in (43, 57):
        assert not pipeline.observe(scene(k).image).error
        burnt = pipeline.observe(scene(k, camera_gains=(1.7, 1.7, 1.7)).image)
        assert burnt.error and burnt.warnings == [BURNT]


def test_a_picture_out_of_focus_says_so(pipeline):
    """A lens out of focus (a Gaussian of 3 pixels at 720p) blurs the cards' tunnels into
    their rock: on this table 10 of the 13 cards read are read wrongly, surely. The
    classifier cannot tell, but the picture's blur can, so the reading says so, of a photo
    and of a fixed camera's frame; in focus, it says nothing."""
    s = scene(48, blur_px=(3.0, 3.0))
    for observation in (pipeline.observe(s.image), Pipeline(pipeline.classifier).step(s.image).observation):
        assert BLURRED in observation.warnings
    assert not pipeline.observe(scene(48).image).warnings


def test_cards_too_small_to_read_surely_are_warned_of(pipeline):
    """At 640 x 480 the bench's cards are mostly under 25 px wide, where nearly all its wrong
    readings lie: the reading says so (and goes on)."""
    s = scene(44)
    small = cv2.resize(s.image, (480, 270), interpolation=cv2.INTER_AREA)
    assert pipeline.observe(small).warnings == [SMALL_CARDS]
    assert Pipeline(pipeline.classifier).step(small).observation.warnings == [SMALL_CARDS]
    assert not pipeline.observe(s.image).warnings


@pytest.mark.parametrize("picture", ["checkerboard", "strip"])
def test_a_picture_of_no_table_is_answered_in_words(pipeline, picture):
    """A checkerboard's lattice fits its squares but holds no cards (the search for goal
    cards round the maze once asked for the least of no cells); a strip two pixels high
    once shrank to nothing for the motion test of ``step``."""
    if picture == "checkerboard":
        image = (np.indices((720, 1280)).sum(axis=0) // 40 % 2 * 255).astype(np.uint8)
    else:
        image = np.zeros((2, 3000), np.uint8)
    image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    assert pipeline.observe(image).error
    assert Pipeline(pipeline.classifier).step(image).observation.error


def test_a_large_photo_is_read_at_the_read_side(pipeline, monkeypatch):
    """A phone's photo (here a plain one, three times the test size: 3840 x 2160) is read at
    READ_SIDE pixels on its long side, where the grid and the crops were measured: its
    cards as at the size it was drawn at, the photo's own size reported; and so is a frame
    of a camera that sends that size."""
    import vision.pipeline as vp

    s = scene(44)
    large = cv2.resize(s.image, (3840, 2160), interpolation=cv2.INTER_LINEAR)
    sizes = []
    fit = vp.fit_lattice
    monkeypatch.setattr(vp, "fit_lattice", lambda frame, **kw: sizes.append(frame.shape[1::-1]) or fit(frame, **kw))
    observation = pipeline.observe(large)
    assert sizes == [(vp.READ_SIDE, round(vp.READ_SIDE * 9 / 16))]
    assert (observation.width, observation.height) == (3840, 2160) and observation.error is None
    seen = {c.cell: c for c in observation.cards}
    assert set(seen) == set(s.cells)
    assert all(right(card, s.cells[cell], pipeline.catalogue) for cell, card in seen.items())
    # a camera sending such frames: each read at READ_SIDE, and the lattice in its pixels
    step = Pipeline(Classifier()).step(large)
    assert step.frame.shape[1::-1] == sizes[0] == step.lattice.frame_size
    assert {c.cell for c in step.observation.cards} == set(s.cells)


def test_a_wrong_lattice_that_reads_most_of_its_cells_as_cards_still_has_its_variants_tried(pipeline):
    # a regression guard: on this plain photo with sensor noise the best lattice grown from
    # the edges is two thirds of a card across and a card's width along, and the classifier
    # surely reads 0.77 of its cells as maze cards; its variants find the true lattice
    s = scene(11)
    frame = np.clip(s.image + np.random.default_rng(0).normal(0, 3, s.image.shape), 0, 255).astype(np.uint8)
    observation = pipeline.observe(frame)
    assert observation.error is None
    seen = {c.cell: c for c in observation.cards}
    assert set(seen) == set(s.cells)
    assert all(right(card, s.cells[cell], pipeline.catalogue) for cell, card in seen.items())


def test_a_photo_whose_edges_mislead_every_hypothesis_is_read_by_a_centred_reading_lattice(pipeline):
    # a regression guard: on this 1080p bench photo (bench/vision.py's seed + 90) every
    # lattice grown from the edges cuts the cards, and so do those found by reading, whose
    # card size is a rung of a coarse ladder, until they are centred on the cards round
    # their seed: without that the photo gets an error (read so, 29 of its 42 cards)
    s = table_scene(np.random.default_rng(7_000_090))
    observation = pipeline.observe(s.image)
    assert observation.error is None
    seen = {c.cell: c for c in observation.cards}
    assert set(seen) <= set(s.cells)
    assert all(right(card, s.cells[cell], pipeline.catalogue) for cell, card in seen.items())
    assert len(seen) >= 0.65 * len(s.cells)


def test_goals_left_unread_are_looked_for_again_once_the_lattice_is_pinned_to_the_goals_found(pipeline):
    # a regression guard: on this 1080p bench photo (bench/vision.py's seed + 31) the maze
    # is small and the lattice, extrapolated eight cells out, lies two thirds of a cell off
    # across at the far goal; the other two goals, found off their places, pin it there
    s = table_scene(np.random.default_rng(7_000_031))
    observation = pipeline.observe(s.image)
    assert observation.error is None
    seen = {c.cell: c for c in observation.cards}
    goals = [cell for cell, truth in s.cells.items() if truth.face.startswith("goal") and truth.visible > 0.95]
    assert len(goals) == 3
    assert all(cell in seen and right(seen[cell], s.cells[cell], pipeline.catalogue) for cell in goals)


def test_a_goal_found_by_the_anchoring_stands_where_its_cell_reads_no_card(pipeline):
    # the lattice pinned to the goals can still lie a fifth of a card or more off one of
    # them, whose crop then reads unsurely or as the table beside it: the anchoring found
    # it from shifted crops, and a goal card lies only on a goal place (here its card is
    # painted over, so its own cell reads no card)
    from types import SimpleNamespace

    from vision.pipeline import _add_goals_found

    s = scene(41)
    lattice = truth_lattice(s)  # the fit's frame is the maze's
    found = {cell: SimpleNamespace(face="goal-back", rotation=0, confidence=0.97) for cell in ((8, 2), (8, 0))}
    observation, _ = pipeline._read(without(s, [(8, 2)]), lattice)
    assert (8, 2) not in {c.cell for c in observation.cards}
    read_before = next(c for c in observation.cards if c.cell == (8, 0))
    _add_goals_found(observation, lattice, found)
    seen = {c.cell: c for c in observation.cards}
    assert (seen[(8, 2)].face, seen[(8, 2)].confidence) == ("goal-back", 0.97)
    assert (8, 2) not in {u.cell for u in observation.uncertain}
    assert seen[(8, 0)] == read_before  # where the cell's own crop reads a card, that reading stands
    assert [c.cell for c in observation.cards] == sorted(seen)
    # under a hand it stays uncertain
    observation, _ = pipeline._read(without(s, [(8, 2)]), replace(lattice, occluded=frozenset({(8, 2)})))
    _add_goals_found(observation, replace(lattice, occluded=frozenset({(8, 2)})), found)
    assert (8, 2) not in {c.cell for c in observation.cards}


def test_a_goal_read_from_the_next_cell_too_does_not_pin_the_lattice(pipeline, monkeypatch):
    # a lattice drifting toward the goals can read one goal card from its place and from the
    # cell beyond (as on a bench photo): pinned to both, the lattice was bent a cell off;
    # a goal lies on a goal place, so the cell beyond pins nothing
    s = table_scene(np.random.default_rng(7_000_031))
    anchor_readings = pipeline._anchor_readings

    def reading_a_goal_twice(frame, lattice):
        readings, at, hidden = anchor_readings(frame, lattice)
        fit_from_maze = np.linalg.inv(anchor(lattice, readings, hidden).maze_from_fit)
        place, beyond = (map_cell(fit_from_maze, c) for c in ((8, 2), (9, 2)))
        readings[beyond] = readings[place]
        at[beyond] = at[place] = lattice.centre(place) + 0.3 * (lattice.centre(beyond) - lattice.centre(place))
        return readings, at, hidden

    monkeypatch.setattr(pipeline, "_anchor_readings", reading_a_goal_twice)
    observation = pipeline.observe(s.image)
    assert observation.error is None
    seen = {c.cell: c for c in observation.cards}
    assert set(seen) - {(9, 2)} <= set(s.cells)
    assert all(right(card, s.cells[cell], pipeline.catalogue) for cell, card in seen.items() if cell in s.cells)
    assert len(seen) >= 0.7 * len(s.cells)


def framed_by(pipeline, monkeypatch, s, readings_from):
    """The photo read with the truth as the fit and the anchoring's readings made by
    ``readings_from(readings, at, hidden)`` from the honest ones (the fit's frame is the maze's)."""
    from vision import pipeline as stage

    monkeypatch.setattr(stage, "fit_lattice", lambda frame, **kw: truth_lattice(s))
    honest = pipeline._anchor_readings
    monkeypatch.setattr(pipeline, "_anchor_readings", lambda frame, lattice: readings_from(*honest(frame, lattice)))
    return pipeline.observe(s.image)


def test_goals_pinned_a_row_off_a_start_read_on_its_cell_give_way_to_it(pipeline, monkeypatch):
    # a lattice extrapolated from a maze of small cards drifted most of a row out at the goal
    # column, so the goal cards were named a row off; they are pinned where they lie. The
    # goals outweigh the start in ``anchor``, and pinned there the lattice is bent a row
    # across the maze; in the start's frame it lines up with the cards, and reads them
    s = scene(43)
    truth = truth_lattice(s)

    def drifted(readings, at, hidden):
        goals = {c: r for c, r in readings.items() if is_goal(r.face)}
        assert len(goals) == 3 and START_CELL in readings
        moved = {(x, y + 1): r for (x, y), r in goals.items()}
        return ({c: r for c, r in readings.items() if c not in goals} | moved,
                {(x, y + 1): truth.centre((x, y)) for x, y in goals}, hidden)

    observation = framed_by(pipeline, monkeypatch, s, drifted)
    assert observation.error is None
    assert all(right(card, s.cells[card.cell], pipeline.catalogue) for card in observation.cards)
    assert len(observation.cards) >= 0.9 * len(s.cells)


def test_a_card_beside_the_hidden_start_misread_as_it_gives_way_to_the_goals(pipeline, monkeypatch):
    # the start under a hand (unread) and the card beside it read surely as the start: the
    # goals on their places frame the maze; the start's frame, pinning them a row over,
    # bends the lattice across the maze and reads fewer of its cards
    s = scene(43)
    beside = next(c for c in ((0, 1), (0, -1), (1, 0), (-1, 0)) if c in s.cells)

    def misread(readings, at, hidden):
        assert sum(is_goal(r.face) for r in readings.values()) == 3
        start = readings.pop(START_CELL)
        readings[beside] = start
        return readings, at, hidden

    observation = framed_by(pipeline, monkeypatch, s, misread)
    assert observation.error is None
    assert sum(right(card, s.cells[card.cell], pipeline.catalogue) for card in observation.cards
               if card.cell in s.cells) >= 0.9 * len(s.cells)


def test_a_start_read_with_no_card_on_the_goal_places_in_view_leaves_the_frame_unknown(pipeline, monkeypatch):
    # the start read and no goal card: the maze's shape alone would say which way round it
    # lies, but the goal cards always lie on their places, and the table there is bare in
    # plain view (a portrait bench photo, its maze grown away from its goals, which its
    # lattice missed, was read turned half a turn)
    from vision import pipeline as stage

    s = scene(41)
    fit = truth_lattice(s, cells=[c for c in s.cells if c not in GOAL_CELLS])
    monkeypatch.setattr(stage, "fit_lattice", lambda frame, **kw: fit)
    observation = pipeline.observe(without(s, GOAL_CELLS))
    assert observation.error and "the maze frame is unknown" in observation.error


def test_a_start_read_with_the_goal_places_out_of_view_is_framed_by_the_mazes_shape(pipeline, monkeypatch):
    # the photo cut short of the goal cards: nothing says the frame is wrong, and the maze,
    # grown from the start toward them, says which way round it lies
    from vision import pipeline as stage

    s = scene(41)
    truth, size = truth_lattice(s), (470, SIZE[1])
    assert all(truth.quad(g)[:, 0].min() > size[0] for g in GOAL_CELLS)
    image = np.ascontiguousarray(s.image[:, :size[0]])
    cells = [c for c in s.cells if ((truth.quad(c) >= 0) & (truth.quad(c) < size)).all()]
    monkeypatch.setattr(stage, "fit_lattice", lambda frame, **kw: Lattice(s.image_from_maze, size, frozenset(cells)))
    observation = pipeline.observe(image)
    assert observation.error is None
    assert all(right(card, s.cells[card.cell], pipeline.catalogue) for card in observation.cards)
    assert len(observation.cards) >= len(cells)


def test_check_answers_every_photo_and_fails_only_the_bad_one(tmp_path):
    s = scene(44)
    good, bad = tmp_path / "table.png", tmp_path / "notes.png"
    cv2.imwrite(str(good), s.image)
    bad.write_text("not a photo")
    done = subprocess.run([sys.executable, "-m", "tunnelvision", "check", "--json", str(good), str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    docs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [d["photo"] for d in docs] == [str(good), str(bad)]
    first, second = docs
    assert "error" not in first
    cells = [(c["x"], c["y"]) for c in first["cards"]] + [(u["x"], u["y"]) for u in first["uncertain"]]
    assert len(cells) == len(set(cells))  # each card once, in cards or in uncertain
    assert set(cells) >= {c for c, t in s.cells.items() if t.visible > 0.95}
    assert second["error"] and "Traceback" not in done.stderr


def test_check_judges_the_contested_card_of_a_photo_as_the_move_it_was(tmp_path, monkeypatch, capsys):
    """A photo taken after a crossroads was laid against the rules (a tunnel of it against
    another card's rock), the player naming its cell: check reads the maze and answers
    that the card is illegal, in the engine's words; a cell that holds no card is not
    judged, and the exit status says so."""
    import vision.scenes
    from engine.board import Placement
    from tunnelvision.cli import main

    grow, misplayed = vision.scenes.grow_maze, []

    def grow_then_misplay(rng, n_cards, game="saboteur"):
        board, laid = grow(rng, n_cards, game)
        for x, y in sorted(board.frontier(), key=lambda c: abs(c[0]) + abs(c[1])):
            move = Placement(x, y, "cross", 0)
            verdict = board.check(move)
            if x < 7 and any(r.code == "edge-mismatch" for r in verdict.reasons):
                board.put(move)
                misplayed.append(verdict)
                return board, laid + [move]
        raise AssertionError("no cell where a crossroads meets rock")

    monkeypatch.setattr(vision.scenes, "grow_maze", grow_then_misplay)
    cv2.imwrite(str(tmp_path / "table.png"), scene(44).image)
    (verdict,) = misplayed
    x, y = verdict.placement.cell
    assert main(["check", "--json", str(tmp_path / "table.png"), "--contested", f"{x},{y}"]) == 0
    ruling = json.loads(capsys.readouterr().out)["contested"]
    assert ruling | {"reasons": []} == {"x": x, "y": y, "face": "cross", "rotation": 0, "legal": False, "reasons": [],
                                        "reveals": [], "gold_reached": False, "as_far_as_read": False}
    assert ruling["reasons"] == [r.message for r in verdict.reasons]
    assert main(["check", str(tmp_path / "table.png"), f"--contested=({x + 20},{y})"]) == 1
    assert f"The card at ({x + 20},{y}) cannot be judged: no card was read there." in capsys.readouterr().err


def test_check_lists_the_cards_a_rockfall_cut_off_apart_and_says_no_rule_is_broken(pipeline):
    """A photo of a maze after a rockfall took the card joining four others to the start, and
    a dead end was laid in the hole: the four lie on, cut off. The report lists them apart,
    each legal if a rockfall cut it off, and says no card breaks a rule."""
    from tunnelvision.vision_cli import describe

    s = scene(47, rockfalls=1)
    cut = maze_report(s.board)
    assert len(cut) == 4 and s.cells[s.rockfalls[0]].face == "dead-nesw"
    lines = describe(pipeline.observe(s.image), "table.png").splitlines()
    assert "The maze breaks the rules:" not in lines and "Every card agrees with its neighbours." in lines
    listed = lines.index("Cut off from the start (legal only if a rockfall has cut them off since they were laid):")
    assert [line.split(":")[0].strip() for line in lines[listed + 1:listed + 5]] == [f"({x},{y})" for x, y in sorted(cut)]


def test_check_tells_how_to_retake_a_photo_whose_maze_it_cannot_read(tmp_path, capsys):
    from tunnelvision.cli import main

    table, notes = tmp_path / "table.png", tmp_path / "notes.png"
    bare = np.random.default_rng(0).normal(120, 8, (1080, 1920, 3))
    cv2.imwrite(str(table), np.clip(bare, 0, 255).astype(np.uint8))  # a table and no maze
    notes.write_text("not a photo")
    assert main(["check", str(table)]) == 1
    assert "take the photo again from above" in capsys.readouterr().err
    assert main(["check", str(notes)]) == 1
    assert "take the photo again" not in capsys.readouterr().err  # not a photo at all: no advice on taking it


def test_a_tracked_lattice_reading_no_start_on_the_starts_place_is_doubted():
    """The start never leaves the table: a tracked lattice that reads another card, or no
    maze card, on the start's place (under no hand) is off the cards there. On a bench film
    a card taken away beside the start had the lattice slip half a card; kept on the still
    view that followed, it committed three cards wrongly once a card was laid in the hole."""
    from vision.pipeline import _start_in_place

    lattice = Lattice(np.eye(3), SIZE, frozenset({START_CELL, (1, 0)}))
    start = SeenCard(0, 0, "start", 0, 1.0)
    assert _start_in_place(Observation(cards=[start]), lattice)
    assert _start_in_place(Observation(uncertain=[Unsure(0, 0, "low-confidence")]), lattice)
    assert not _start_in_place(Observation(cards=[SeenCard(0, 0, "cross", 0, 0.99)]), lattice)
    assert not _start_in_place(Observation(uncertain=[Unsure(0, 0, "not-a-maze-card")]), lattice)
    under_a_hand = replace(lattice, occluded=frozenset({START_CELL}))
    assert _start_in_place(Observation(uncertain=[Unsure(0, 0, "not-a-maze-card")]), under_a_hand)
    # nor is the start ever laid crosswise: a foreign-printing bench film refitted half a card
    # off after a hand, saw the start so, and committed a neighbour's card changed to another
    across = Lattice(np.eye(3), SIZE, frozenset({(1, 0)}), crosswise=frozenset({START_CELL}))
    assert not _start_in_place(Observation(uncertain=[Unsure(0, 0, "crosswise")]), across)


def test_a_still_view_keeps_its_lattice_and_a_changed_one_is_judged_again(monkeypatch):
    """Frames of a fixed camera in which nothing moved (sensor noise, a pixel of shake)
    keep the lattice judged on the last changed frame, and the readings' confirmations; a
    frame in which something changed (here a card's area darkened, as a hand or a new card
    would) is judged again, and its readings confirmed again."""
    s = scene(11)
    pipeline = Pipeline(Classifier())
    judged, verdicts = [], []
    real_update, real_confirm = GridTracker.update, vision.read._not_borne_out
    monkeypatch.setattr(GridTracker, "update", lambda self, frame: judged.append(1) or real_update(self, frame))
    monkeypatch.setattr(vision.read, "_not_borne_out", lambda *a: verdicts.append(a[-1]) or real_confirm(*a))
    noise = np.random.default_rng(0)
    frames = [np.clip(s.image + noise.normal(0, 3, s.image.shape), 0, 255).astype(np.uint8) for _ in range(3)]
    changed = frames[-1].copy()
    x, y = (int(v) for v in s.cells[START_CELL].corners.mean(0))
    changed[y - 40:y + 40, x - 30:x + 30] //= 3
    steps = [pipeline.step(f) for f in frames + [changed]]
    assert len(judged) == 2  # the first frame and the changed one
    assert len(verdicts) == 4 and verdicts[1] is verdicts[0] and verdicts[2] is verdicts[0]
    assert verdicts[3] is not verdicts[0]
    assert steps[1].lattice is steps[0].lattice or steps[1].lattice.cells == steps[0].lattice.cells
    seen = [{(c.x, c.y, c.face, c.rotation) for c in step.observation.cards} for step in steps]
    assert seen[1] and seen[1] == seen[2]


def test_a_frame_of_another_size_is_read_afresh():
    """The camera's resolution changes (a webcam reconfigured, a folder of photos of several
    sizes): the tracked lattice's pixels mean nothing in the new frame."""
    big = scene(44).image
    small = cv2.resize(big, (960, 540), interpolation=cv2.INTER_AREA)
    alone = {(c.x, c.y, c.face, c.rotation) for c in Pipeline(Classifier()).step(small).observation.cards}
    pipeline = Pipeline(Classifier())
    pipeline.step(big)
    after = {(c.x, c.y, c.face, c.rotation) for c in pipeline.step(small).observation.cards}
    assert alone and after == alone


def test_a_tracked_lattice_that_drifted_off_the_cards_is_centred_on_them_once_the_view_is_still(monkeypatch):
    """Frame to frame a tracked lattice is only re-snapped in a small window, and it drifts
    where cards were laid out at the maze's edge (a printed bench film read its last two
    cards as no maze card, and never committed them). Once a hand has passed and the view is
    still, a lattice that leaves cards unread is refitted on where the cards lie. The drift
    is made here: the lattice 5 % too large about the maze's middle, and kept so frame to
    frame."""
    s = scene(13)
    truth = {(*cell, t.face) for cell, t in s.cells.items()}
    pipeline = Pipeline(Classifier())
    first = {(c.x, c.y, c.face) for c in pipeline.step(s.image).observation.cards}
    assert len(first) >= 0.9 * len(truth) and first <= truth
    lattice = pipeline._tracker.lattice
    middle = np.mean(sorted(lattice.cells), axis=0)
    grown = translation(*middle) @ np.diag([1.05, 1.05, 1.0]) @ translation(*-middle)
    pipeline._tracker.keep(replace(lattice, image_from_maze=lattice.image_from_maze @ grown))
    monkeypatch.setattr(GridTracker, "_track", lambda self, frame, previous: previous)
    steps = [pipeline.step(f) for f in (s.image // 2, s.image, s.image, s.image)]  # the light dimmed by a hand
    assert [step.busy for step in steps] == [True, True, False, False]
    read = {(c.x, c.y, c.face) for c in steps[-1].observation.cards}
    assert read <= truth and len(read & first) >= len(first) - 2


def test_a_card_is_found_in_the_middle_of_the_shifts_that_read_it():
    """Crops shifted along, across and diagonally read the card surely about its middle;
    the shifts that read another card (a neighbour's, far off) or nothing do not count."""
    from types import SimpleNamespace

    from vision.pipeline import CENTRE_SHIFTS, _card_offset

    def reading(card, confidence=0.99):
        return SimpleNamespace(card=card, face=card, uncertain=card is None, confidence=confidence)

    # the card lies east and a little north of its cell: read from the shifts 0.15 and 0.3
    # along, 0.15 across and the north-east diagonal; the far west shift sees the neighbour's
    seen = {(-0.3, 0.0): "cross", (0.15, 0.0): "t-nes", (0.3, 0.0): "t-nes", (0.0, 0.15): "t-nes",
            (0.2, 0.2): "t-nes"}
    readings = [reading(seen.get(d)) for d in CENTRE_SHIFTS]
    assert _card_offset(readings) == pytest.approx((0.1625, 0.0875))
    # a card off both ways by a fifth of a cell reads on its diagonal alone
    readings = [reading("t-nes" if d == (0.2, -0.2) else None) for d in CENTRE_SHIFTS]
    assert _card_offset(readings) == pytest.approx((0.2, -0.2))
    assert _card_offset([reading(None)] * len(CENTRE_SHIFTS)) is None


def test_a_card_is_confirmed_only_where_it_reads_so_about_its_cell(pipeline):
    """On a lattice a sixth of a card off, one crop cuts a dead end of three stubs so that it
    reads as one of two (surely, and borne out by the crops the reading itself tries: every
    frame of a still view would read it so). Read again from crops shifted along and across
    it, it does not read so, and the tracker is not told to commit it; the cards read right
    are confirmed, and the start and the goals taken as read."""
    from vision.classes import tunnel_signature
    from vision.pipeline import Step

    s = scene(6)
    lattice = truth_lattice(s)
    off = replace(lattice, image_from_maze=lattice.image_from_maze @ translation(0.0, 0.15))
    observation, empty = pipeline._read(s.image, off)
    cards = {c.cell: (c.face, c.rotation) for c in observation.cards}

    def tunnels(face, rotation):
        return tunnel_signature(pipeline.catalogue.face(face), rotation)

    misread = {c for c, seen in cards.items() if tunnels(*seen) != tunnels(s.cells[c].face, s.cells[c].rotation)}
    assert misread  # what the confirmation is for
    held = pipeline.confirmed(Step(observation, empty, False, off, s.image), cards)
    assert not held & misread
    assert {START_CELL, *GOAL_CELLS} & set(cards) <= held
    assert len(held) >= len(cards) - len(misread) - 1


def test_lattices_checked_in_batches_read_as_each_alone(pipeline, monkeypatch):
    """The lattice checks read many lattices' crops in batches (a batch is read several
    times faster than its crops one by one): each lattice's share is what it reads alone,
    wherever the batches split the lattices."""
    import vision.pipeline as vp

    s = scene(41)
    truth = truth_lattice(s)
    half_off = replace(truth, image_from_maze=truth.image_from_maze @ np.array([[1, 0, 0.5], [0, 1, 0], [0, 0, 1.0]]))
    cells = sorted(s.cells)
    lattices = [replace(lattice, cells=frozenset(cells[k:k + size]))
                for lattice in (truth, half_off) for k, size in ((0, 1), (1, 5), (6, 3), (9, 12))]
    alone = [pipeline._reads_cards(s.image, [lattice])[0] for lattice in lattices]
    assert min(alone[:4]) == 1.0 and min(alone[4:]) < 0.5  # the premise: they differ
    monkeypatch.setattr(vp, "READ_BATCH", 4)
    assert pipeline._reads_cards(s.image, lattices) == alone


class GoalReader:
    """A classifier stand-in for the goal searches: the crops of one place, at the shifts of
    GOAL_SEARCH or GOAL_SEARCH_ACROSS (told apart by their count), read surely as a goal
    back where ``where(dx, dy)`` holds, and as nothing elsewhere."""

    def __init__(self, where):
        self.where = where

    def restrict_to(self, faces):
        pass

    def classify(self, crops):
        from types import SimpleNamespace

        from vision.pipeline import GOAL_SEARCH, GOAL_SEARCH_ACROSS

        shifts = {len(GOAL_SEARCH): GOAL_SEARCH, len(GOAL_SEARCH_ACROSS): GOAL_SEARCH_ACROSS}[len(crops)]
        return [SimpleNamespace(face=face, uncertain=face is None, confidence=1.0)
                for face in ("goal-back" if self.where(dx, dy) else None for dx, dy in shifts)]


def test_a_goal_off_its_place_is_found_in_the_middle_of_the_shifts_that_read_it():
    """A lattice a few percent off in pitch puts a goal most of a card from its place; of
    the crops shifted along and across, those within a fifth of a cell or so of the card
    all read it, equally surely: the goal lies in their middle, not at the first of them."""
    s = scene(3)
    lattice = truth_lattice(s)
    reader = GoalReader(lambda dx, dy: 0.4 < dx < 1.1)  # the goal card reads alike from the shifts 0.5 to 1.0 along x
    found, at = Pipeline(reader)._find_cards(s.image, lattice, [(8, 0)], is_goal)
    assert found[(8, 0)].face == "goal-back"
    assert np.allclose(at[(8, 0)], lattice.centre((8.75, 0.0)))


def test_a_goal_half_a_cell_off_across_is_found_by_the_wider_search():
    """A lattice fitted on a few cards can be half a cell or more off across eight cells
    out: the goal reads from none of GOAL_SEARCH's crops, and is found further across,
    where the shifts that read it put it."""
    s = scene(3)
    lattice = truth_lattice(s)
    pipeline = Pipeline(GoalReader(lambda dx, dy: dy > 0.3 and abs(dx) < 0.3))  # half a cell north of its place
    assert pipeline._find_cards(s.image, lattice, [(8, 0)], is_goal) == ({}, {})
    found, at = pipeline._find_goals(s.image, lattice, [(8, 0)])
    assert found[(8, 0)].face == "goal-back"
    assert np.allclose(at[(8, 0)], lattice.centre((8.0, 0.5)))


def test_a_photo_is_read_in_the_plane_of_a_calibration_from_a_photo_of_the_sheet():
    """The sheet's frame runs down the page and the maze's north: read in the sheet's frame
    as it is, every card came out mirrored (5 of 19 right on this table)."""
    from calibration.table import calibrate_table
    from vision.scenes import marker_sheet_photo

    options = replace(PLAIN, tilt_deg=25.0)
    s = table_scene(np.random.default_rng(0), size=SIZE, cards=(8, 16), options=options)
    sheet = marker_sheet_photo(np.random.default_rng(0), s.camera, (0.5, 0.5), options)
    reader = Pipeline(Classifier(), calibration=calibrate_table(sheet))
    observation = reader.observe(s.image)
    assert observation.error is None and len(observation.cards) == len(s.cells)
    assert all(right(card, s.cells[card.cell], reader.catalogue) for card in observation.cards)


def test_a_fixed_camera_that_moves_is_calibrated_again_from_the_sheet():
    """A frame whose view changed is checked against the table calibration; when the camera
    turned, the sheet is fitted again where the frame shows it, and the user hears of it."""
    from calibration.table import CameraCheck, calibrate_table, verify
    from vision.scenes import SceneOptions, marker_sheet_photo

    s = table_scene(np.random.default_rng(3), size=SIZE, cards=4, options=replace(PLAIN, barrel=0.0))
    still = marker_sheet_photo(np.random.default_rng(0), s.camera, (0.5, 0.5), PLAIN)
    h, w = still.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), 4.0, 1.0)
    turn[:, 2] += (30, -20)
    turned = cv2.warpAffine(still, turn, (w, h), borderMode=cv2.BORDER_REFLECT)
    pipeline = Pipeline(Classifier(), calibration=calibrate_table(still))
    assert pipeline.step(still).note is None
    step = pipeline.step(turned)
    assert step.note and "moved" in step.note and "fitted again" in step.note
    assert verify(turned, pipeline.calibration).state is CameraCheck.STILL
    # a view with the sheet covered cannot tell: the calibration stands
    covered = np.full_like(turned, 90)
    kept = pipeline.calibration
    assert pipeline.step(covered).note is None and pipeline.calibration is kept


def test_a_cell_the_grid_sees_a_card_on_but_reads_as_table_is_not_told_to_the_tracker_as_bare(monkeypatch):
    # at a wide lens's edge the lattice can lie half a card off a card, whose crop then reads
    # as the table beside it: a tracker told its cell was bare at the first view announced it
    # as laid once it was read (a drawn bench film through a lens of 0.2)
    s = scene(42)
    truth = truth_lattice(s)
    bare = next(n for x, y in sorted(s.cells) for n in ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1))
                if n not in s.cells and truth.share_in_view(n) > 0.99)
    seen_as_card = replace(truth, cells=truth.cells | {bare}, anchored=True)
    monkeypatch.setattr(GridTracker, "update", lambda self, frame: seen_as_card)
    step = Pipeline(Classifier()).step(s.image)
    assert bare not in step.empty
    assert (bare[0], bare[1], "off-cell") in [(u.x, u.y, u.reason) for u in step.observation.uncertain]
    assert step.empty  # the bare cells the grid sees as bare are still told so


def test_an_arm_the_skin_test_misses_hides_cards_it_does_not_take_for_table(pipeline, monkeypatch):
    # an arm over the start and the cards beside it, in a skin tone the skin test does not
    # tell from the table: the grid finds no card under it, and the cells it covers were
    # left out of the reading as bare table, so that every card whose way back to the start
    # runs under it was said to break the rules (30 cards here, as on drawn bench photo 94)
    s = scene(55, p_hand=1.0)
    assert START_CELL in s.occluded
    monkeypatch.setattr(vision.grid, "_hand_cells", lambda seen, busy: set())
    observation = pipeline.observe(s.image)
    listed = {c.cell for c in observation.cards} | {u.cell for u in observation.uncertain}
    assert s.occluded <= listed
    assert maze_report(observation.board(), [u.cell for u in observation.uncertain]) == {}


def test_cards_the_grid_missed_beyond_its_cells_are_read_round_from_the_cards_read_next_to_them(pipeline):
    # the grid saw cards only on the start, the goals and the cells beside the start (an
    # occupancy test can miss a run of cards, as on a 3:4 bench photo): the cards read next
    # to those lead on to the rest of the maze, and none of it is taken for bare table
    s = scene(42)
    near = {c for c in s.cells if abs(c[0]) + abs(c[1]) <= 1} | set(GOAL_CELLS)
    observation, _ = pipeline._read(s.image, truth_lattice(s, cells=near))
    read = {c.cell: c for c in observation.cards}
    assert set(s.cells) <= set(read) | {u.cell for u in observation.uncertain}
    assert sum(right(read[c], t, pipeline.catalogue) for c, t in s.cells.items() if c in read) >= 0.9 * len(s.cells)
    assert maze_report(observation.board(), [u.cell for u in observation.uncertain]) == {}
