"""The grid stage on synthetic table photos with exact truth.

Anchoring is fed the ground truth as plain (face, rotation) pairs, so these tests measure
the lattice and its occupancy, not the classifier. The scene set is the renderer's
default mix (any camera turn, tilts up to 25 degrees, hands, glare, loose cards, cards
laid crosswise, mazes beyond 9 x 5); the thresholds are the measured performance with a
small margin, so a regression fails them. They are below the goal (every cell of every
scene): the lattice hypothesis search still picks a wrong pitch or phase in about a third
of these scenes; the numbers say how far there is to go.
"""

from dataclasses import replace
from functools import cache

import cv2
import numpy as np
import pytest

from engine.board import GOAL_CELLS, START_CELL
from engine.catalogue import default_catalogue
from vision import cardart, grid
from vision.grid import (
    CELL_CORNERS,
    HALF_TURN,
    GridError,
    GridTracker,
    Lattice,
    anchor,
    apply_homography,
    cell_crops,
    fit_lattice,
    fit_to_centres,
    lone_card_centres,
    map_cell,
    maze_readings,
    pin_cells,
)
from vision.scenes import table_scene, table_video
from vision.table import PITCH_RATIO, translation

from .conftest import sheet_calibration

SIZE = (1280, 720)
SCENE_SEEDS = range(500, 532)


def truth_lattice(scene) -> Lattice:
    return Lattice(scene.image_from_maze, scene.image.shape[1::-1], frozenset(scene.cells))


@cache
def fitted(seed):
    scene = table_scene(np.random.default_rng(seed), size=SIZE)
    try:
        lattice = fit_lattice(scene.image)
    except GridError:
        lattice = None
    return scene, lattice


def readings_for(scene, lattice):
    """Ground-truth readings in the lattice's own frame: each fitted cell gets the face of
    the true cell its centre falls in, its rotation as the fit's frame sees it."""
    to_maze = np.linalg.inv(scene.image_from_maze)
    readings = {}
    for cell in lattice.cells:
        x, y = apply_homography(to_maze, [lattice.centre(cell)])[0]
        true_cell = (round(x), round(y))
        if true_cell in scene.cells:
            truth = scene.cells[true_cell]
            readings[cell] = (truth.face, truth.rotation)
    return readings


def evaluate(seed):
    """Per scene: truth cells found after anchoring, their worst corner error (share of the
    cell's width), and cells reported that lie on an off-maze card."""
    scene, lattice = fitted(seed)
    need = [c for c, t in scene.cells.items() if t.visible > 0.95 and c not in scene.occluded]
    if lattice is None:
        return scene, need, [], 9.0, 0
    try:
        anchored = anchor(lattice, readings_for(scene, lattice))
    except GridError:
        return scene, need, [], 9.0, 0
    found = [c for c in need if c in anchored.cells]
    errors = [np.abs(anchored.quad(c) - scene.cells[c].corners).max()
              / np.linalg.norm(scene.cells[c].corners[1] - scene.cells[c].corners[0]) for c in found]
    on_distractors = 0
    for cell in anchored.cells:
        centre = anchored.centre(cell)
        on_distractors += any(cv2.pointPolygonTest(q.astype(np.float32), (float(centre[0]), float(centre[1])), False)
                              >= 0 for q in scene.distractors)
    return scene, need, found, max(errors) if errors else 9.0, on_distractors


@pytest.fixture(scope="module")
def results():
    return {seed: evaluate(seed) for seed in SCENE_SEEDS}


def test_maze_cells_are_found_at_their_maze_positions(results):
    need = sum(len(r[1]) for r in results.values())
    found = sum(len(r[2]) for r in results.values())
    # cells found in scenes whose lattice lies within a fifth of a card everywhere: a cell
    # "found" by a lattice off by half a card would be read as nothing, or wrongly
    placed = sum(len(r[2]) for r in results.values() if r[3] < 0.2)
    complete = sum(len(r[2]) == len(r[1]) for r in results.values())
    # a regression guard at what the fit does today without the classifier's check (0.77
    # found, 0.62 placed, 14 scenes complete; 0.66 placed before the card art drew props,
    # which changed every scene), not the goal: bench/vision.py reports the real figures
    assert found / need >= 0.72, f"{found}/{need} maze cells found"
    assert placed / need >= 0.58, f"{placed}/{need} maze cells found on a lattice that lies right"
    assert complete >= 0.36 * len(results), f"only {complete} of {len(results)} scenes complete"


def test_crop_corners_lie_on_the_true_cells(results):
    accurate = [r for r in results.values() if r[3] < 0.08]
    assert len(accurate) >= 0.45 * len(results)
    # where the lattice is right at all, its worst corner is a few percent of a card off
    worst = [r[3] for r in results.values() if r[3] < 0.3]
    assert np.median(worst) < 0.065


def test_loose_cards_are_rarely_maze_cells(results):
    # a loose card that happens to lie nearly square to the lattice can pass for a goal
    # (0.34 per scene on these scenes today, without the classifier's check)
    assert sum(r[4] for r in results.values()) <= 0.4 * len(results)


def test_a_crosswise_card_is_noticed_and_rarely_read_as_a_maze_card():
    noticed = misread = 0
    for seed in range(600, 612):  # a dozen: with fewer, one scene more or less decides it
        scene = table_scene(np.random.default_rng(seed), crosswise=True, hand=False)  # 1080p: the overhang shows
        try:
            lattice = fit_lattice(scene.image)
        except GridError:  # no lattice at all: nothing noticed, nothing misread
            continue
        to_lattice = np.linalg.inv(lattice.image_from_maze)
        for quad in scene.crosswise.values():
            x, y = apply_homography(to_lattice, [quad.mean(0)])[0]
            where = (round(x), round(y))
            noticed += where in lattice.crosswise
            misread += where in lattice.cells
    assert noticed >= 4 and misread <= 3


def test_any_camera_turn_and_tilt_up_to_25_degrees(results):
    turns = [r[0].camera.yaw_deg for r in results.values() if len(r[2]) == len(r[1]) and r[3] < 0.08]
    tilts = [r[0].camera.tilt_deg for r in results.values() if len(r[2]) == len(r[1]) and r[3] < 0.08]
    assert max(tilts) > 15  # steep views are among the scenes fully right
    assert np.ptp(turns) > 180  # and so are views from all round the table


def test_a_card_check_decides_between_grown_hypotheses(monkeypatch):
    """Of two hypotheses, the true lattice and one half a card off (which the edge cues
    alone can prefer: a card's middle line is as straight as its sides), the one whose
    cells a card check sees whole cards on is chosen: the true one for a check that sees
    them on the true cells, the other for a check that sees them there."""
    scene = table_scene(np.random.default_rng(516), size=SIZE)
    truth = scene.image_from_maze
    shifted = truth @ np.array([[1, 0, 0.5], [0, 1, 0.0], [0, 0, 1]])
    monkeypatch.setattr(grid, "_local_hypotheses", lambda work, directions=None: [shifted, truth])
    monkeypatch.setattr(grid, "_other_hypotheses", lambda plane, work: [])

    def off(lattice):  # median distance of the cards' centres from the centres of their cells
        cells = sorted(scene.cells)
        pos = apply_homography(np.linalg.inv(lattice.image_from_maze), [scene.cells[c].corners.mean(0) for c in cells])
        return float(np.median(np.abs(pos - np.round(pos)).max(axis=1)))

    def whole_cards_on(h):
        @batched
        def check(frame, lattice):
            centres = apply_homography(np.linalg.inv(h), [lattice.centre(c) for c in sorted(lattice.cells)])
            return float(np.mean(np.abs(centres - np.round(centres)).max(axis=1) < 0.1))
        return check

    assert off(fit_lattice(scene.image, reads_cards=whole_cards_on(truth))) < 0.1
    assert off(fit_lattice(scene.image, reads_cards=whole_cards_on(shifted))) > 0.15


def test_goal_cards_found_off_their_places_pin_the_lattice_there():
    """A lattice fitted on a small maze can extrapolate most of a card off at the goals,
    eight cells out: refitted with the goal cards' centres pinned where they were found, it
    lies right there and on the maze."""
    scene = table_scene(np.random.default_rng(500), size=SIZE)
    truth = truth_lattice(scene)
    bent = truth.image_from_maze @ np.array([[1, 0, 0], [0, 1, 0], [-0.012, 0, 1]])  # x = 8 at 8.8
    goals = {g: scene.cells[g].corners.mean(0) for g in GOAL_CELLS if scene.cells[g].visible > 0.95}
    assert goals and max(np.abs(apply_homography(np.linalg.inv(bent), list(goals.values()))[:, 0] - 8)) > 0.5
    pinned = pin_cells(scene.image, replace(truth, image_from_maze=bent), goals)
    assert set(goals) <= pinned.cells
    width = np.linalg.norm(truth.quad((0, 0))[1] - truth.quad((0, 0))[0])
    worst = max(np.linalg.norm(pinned.centre(c) - t.corners.mean(0)) for c, t in scene.cells.items() if t.visible > 0.95)
    assert worst < 0.1 * width


@pytest.mark.parametrize("keystone", [np.array([0, 0.03, 1.0]), np.array([0.012, 0, 1.0])])
def test_a_small_maze_with_its_goals_pinned_gets_the_perspective_between_them(keystone):
    """A lattice fitted on a small maze can lie on its cards and still have the camera's
    perspective wrong: half a card off at the goals, eight cells out. Refined on the maze's
    edges with the goal cards' centres pinned, the perspective is refitted between them; an
    affine correction alone splits the difference and cuts the maze's cards a quarter off
    (a T read as a straight, its arm cut off, in a filmed game)."""
    scene = table_scene(np.random.default_rng(500), size=SIZE)
    bent = scene.image_from_maze @ np.vstack([np.eye(3)[:2], keystone])
    goals = {g: scene.cells[g].card_corners.mean(0) for g in GOAL_CELLS if scene.cells[g].visible > 0.95}
    maze = sorted(c for c, t in scene.cells.items() if t.visible > 0.95 and np.hypot(*c) <= 1.5)
    width = np.linalg.norm(scene.cells[START_CELL].corners[1] - scene.cells[START_CELL].corners[0])

    def worst(h, cells):  # cell widths from each card's centre to its cell's
        return max(np.linalg.norm(apply_homography(h, [c])[0] - scene.cells[c].card_corners.mean(0))
                   for c in cells) / width

    def refined(projective=None):
        h = bent
        for search in (0.15, 0.08):  # as a grown lattice is finished
            h = grid.refine(scene.image, h, maze, search, projective=projective, occupied=set(scene.cells),
                            centres=goals).h
        return h

    assert len(goals) == 3 and len(maze) < 16 and worst(bent, goals) > 0.4  # the premise
    assert worst(refined(projective=False), maze) > 0.2  # what an affine correction does
    h = refined()
    # each card lies up to 3 mm / 3 degrees off its place (0.05 of a card on this scene)
    assert worst(h, maze) < 0.1 and worst(h, goals) < 0.05


# --------------------------------------------------------------------------- anchoring


def scene_readings(scene, turn_half: bool, shift=(3, -2)):
    """The truth as a fit might name it: cells shifted, maybe turned half a turn, rotations
    as the fit's frame sees them."""
    readings = {}
    for (x, y), truth in scene.cells.items():
        if turn_half:
            cell, rotation = (-x + shift[0], -y + shift[1]), (truth.rotation + 180) % 360
        else:
            cell, rotation = (x + shift[0], y + shift[1]), truth.rotation
        readings[cell] = (truth.face, rotation)
    return readings


@pytest.mark.parametrize("turn_half", [False, True])
def test_anchor_puts_start_and_goals_where_the_rules_say(turn_half):
    scene = table_scene(np.random.default_rng(7), size=(640, 360))
    readings = scene_readings(scene, turn_half)
    sx, sy = 3, -2
    maze_from_fit = (np.array([[-1.0, 0, sx], [0, -1.0, sy], [0, 0, 1]]) if turn_half
                     else np.array([[1.0, 0, -sx], [0, 1.0, -sy], [0, 0, 1]]))
    # the lattice as a fit would have named it: the truth seen through that renaming
    lattice = Lattice(scene.image_from_maze @ maze_from_fit, scene.image.shape[1::-1], frozenset(readings))
    anchored = anchor(lattice, readings)
    assert anchored.half_turn == turn_half
    assert anchored.cells == frozenset(scene.cells)
    expected = apply_homography(scene.image_from_maze, np.asarray(START_CELL, float) + CELL_CORNERS)
    assert np.allclose(anchored.quad(START_CELL), expected)
    assert maze_readings(anchored, readings) == {c: (t.face, t.rotation) for c, t in scene.cells.items()}


def test_lone_cards_are_placed_by_their_outline_wherever_the_lattice_lies():
    # the goal cards lie apart from the maze: each one's blob says where it lies, to a few
    # hundredths of a cell, through a lattice a third of a cell off out there; the start,
    # among the maze's cards, lies alone nowhere
    scene = table_scene(np.random.default_rng(500), size=SIZE)
    truth = truth_lattice(scene)
    off = replace(truth, image_from_maze=truth.image_from_maze @ translation(0.3, 0.2))
    found = lone_card_centres(scene.image, off, [*GOAL_CELLS, START_CELL])
    assert sorted(found) == sorted(GOAL_CELLS)
    for cell, centre in found.items():
        card = truth.point_at(scene.cells[cell].card_corners.mean(0))
        assert np.abs(np.subtract(truth.point_at(centre), card)).max() < 0.03


def test_anchor_without_the_start_uses_the_goal_column_and_the_maze():
    scene = table_scene(np.random.default_rng(8), size=(640, 360))
    readings = {c: (t.face, t.rotation) for c, t in scene.cells.items() if c != START_CELL}
    lattice = Lattice(scene.image_from_maze, scene.image.shape[1::-1], frozenset(readings))
    anchored = anchor(lattice, readings)
    assert set(GOAL_CELLS) <= anchored.cells and not anchored.half_turn


def test_anchor_with_two_goals_and_no_start_read_puts_the_start_where_a_card_lies():
    # two goals side by side fit two pairs of goal places; only one puts a card at the start
    cells = frozenset({(0, 0), (1, 0), (2, 0), (8, -2), (8, 0)})
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), {(8, -2): ("goal-back", 0), (8, 0): ("goal-back", 0)})
    assert anchored.cells == cells and not anchored.half_turn


def test_anchor_turns_the_maze_toward_a_goal_read_off_its_place():
    # the lattice drifted far out: the goal lands a cell off, yet it lies east of the start
    cells = frozenset({(-3, 0), (-2, 0), (-1, 0), (0, 0), (7, -1)})
    readings = {(0, 0): ("start", 0), (7, -1): ("goal-back", 0)}
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), readings)
    assert not anchored.half_turn and anchored.cells == cells


def test_goals_on_their_places_outweigh_a_start_read_elsewhere():
    # a hand over the start; the crossroads below it read as the start, while the three
    # goals read in their column say where the start is
    cells = frozenset({(-1, 0), (0, 0), (0, -1), (1, 0), (8, -2), (8, 0), (8, 2)})
    goals = {(8, -2): ("goal-back", 0), (8, 0): ("goal-back", 0), (8, 2): ("goal-back", 0)}
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), goals | {(0, -1): ("start", 0)})
    assert anchored.cells == cells and not anchored.half_turn
    # one goal alone fits three ways: the start read stands
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), {(8, 0): ("goal-back", 0), (0, -1): ("start", 0)})
    assert anchored.cells == {(x, y + 1) for x, y in cells}


def test_a_goal_read_a_cell_off_its_place_says_which_way_two_goals_fit():
    # two goals two apart fit (8, -2) and (8, 0), or (8, 0) and (8, 2); the third, where the
    # lattice has drifted a cell out, lies next to (8, 2) in the one way and two off in the other
    cells = frozenset({(0, -1), (0, 1), (1, 1), (8, -1), (8, 1), (9, 3)})
    goals = {(8, -1): ("goal-back", 0), (8, 1): ("goal-back", 0), (9, 3): ("goal-back", 0)}
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), goals)
    assert anchored.cells == {(x, y - 1) for x, y in cells}


def test_a_card_misread_as_a_goal_far_from_the_goal_places_does_not_turn_the_maze():
    # the start unread, the goal column fits its places either way round (its middle is the
    # middle place); a card beside the start misread as a turned-over goal lies east of the
    # start in the wrong way round only, and far from any goal place in both: the start's
    # cell, a card, decides
    cells = frozenset({(-1, 0), (0, 0), (1, 0), (-8, -2), (-8, 0), (-8, 2)})
    goals = {(-8, -2): ("goal-back", 0), (-8, 0): ("goal-back", 0), (-8, 2): ("goal-back", 0)}
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), goals | {(1, 0): ("goal-stone-ne", 0)})
    assert anchored.half_turn and anchored.cells == {(-x, -y) for x, y in cells}


def test_a_card_misread_as_a_goal_far_from_the_goal_places_does_not_outweigh_the_mazes_shape():
    # the start read, the goal cards unseen, and a card west of the start misread as a
    # turned-over goal: nearer the goal places the wrong way round (7 cells off against 9),
    # but far from every one of them either way, so it says nothing; the maze, grown east
    # from the start toward the goals, decides
    cells = frozenset({(-1, 1), (0, 0), (1, 0), (2, 0), (3, 0), (3, 1)})
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), {(0, 0): ("start", 0), (-1, 1): ("goal-stone-nw", 0)})
    assert not anchored.half_turn and anchored.cells == cells


def test_goals_read_on_neighbouring_cells_of_their_column_without_the_start_leave_the_frame_unknown():
    """Goals lie two cells apart in a column: two read next to each other in it are one card
    read from both sides of a lattice lying half a cell off out there, and which goal places
    they hold, nothing says (with the start read, the start fixes the frame). Two side by
    side across the column still say which places they hold."""
    cells = frozenset({(0, 0), (1, 0), (2, 0), (8, 0), (8, 1), (8, -2)})
    goals = {(8, -2): ("goal-back", 0), (8, 0): ("goal-back", 0), (8, 1): ("goal-back", 0)}
    with pytest.raises(GridError, match="neighbouring cells"):
        anchor(Lattice(np.eye(3), (100, 100), cells), goals | {(0, 0): ("cross", 0)})
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells), goals | {(0, 0): ("start", 0)})
    assert not anchored.half_turn and anchored.maze_from_fit[0, 2] == 0 and anchored.maze_from_fit[1, 2] == 0
    across = {(8, -2): ("goal-back", 0), (8, 2): ("goal-back", 0), (9, 2): ("goal-back", 0)}
    anchored = anchor(Lattice(np.eye(3), (100, 100), cells | {(8, 2), (9, 2)}), across)
    assert not anchored.half_turn and anchored.maze_from_fit[0, 2] == 0 and anchored.maze_from_fit[1, 2] == 0


def test_anchor_needs_the_start_or_a_goal():
    lattice = Lattice(np.eye(3), (100, 100), frozenset({(0, 0)}))
    with pytest.raises(GridError):
        anchor(lattice, {(0, 0): ("cross", 0)})


# --------------------------------------------------------------------------- crops


def test_crops_are_cells_north_up_from_the_full_frame():
    # a frame where each cell's north half is red and its south half blue, seen in perspective
    h = np.array([[52.0, 14.0, 640.0], [-10.0, -80.0, 360.0], [0.02, -0.01, 1.0]])
    lattice = Lattice(h, (1280, 720), frozenset({(0, 0), (1, 0), (0, 1)}))
    ys, xs = np.mgrid[0:720, 0:1280].astype(np.float64)
    inv = np.linalg.inv(h)
    den = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    cy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / den
    north = (cy - np.round(cy)) > 0
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[north] = (0, 0, 255)
    frame[~north] = (255, 0, 0)
    for crop in cell_crops(frame, lattice, [(0, 0), (1, 0), (0, 1)], size=(64, 96)):
        assert crop.shape == (96, 64, 3)
        assert crop[5:40, 8:56, 2].mean() > 200 and crop[56:91, 8:56, 0].mean() > 200


# --------------------------------------------------------------------------- tracking


def test_tracking_a_game_keeps_the_lattice_and_cell_names_with_few_refits():
    video = table_video(np.random.default_rng(21), start_cards=8, moves=3, frames_per_move=5, still_frames=2,
                        size=SIZE)
    tracker = GridTracker()
    names: dict = {}
    settled = set(video.commits) | {0, 1}
    seen, wanted = 0, 0
    for i, frame in enumerate(video.frames):
        lattice = tracker.update(frame.image)
        to_lattice = np.linalg.inv(lattice.image_from_maze)
        for cell, truth in frame.cells.items():
            if cell in frame.occluded or truth.visible < 0.95:
                continue
            x, y = apply_homography(to_lattice, [truth.corners.mean(0)])[0]
            name = (round(x), round(y))
            assert names.setdefault(cell, name) == name  # the same card keeps its lattice name
            if i in settled:
                wanted += 1
                seen += name in lattice.cells
    assert tracker.refits <= 3
    assert seen >= 0.8 * wanted


def test_a_refit_after_forget_keeps_the_anchored_cell_names(monkeypatch):
    """A fresh anchor could turn the maze half a turn (the start card is symmetric, goals may
    be hidden): a refit of a fixed camera must keep the names the maze was anchored with.
    The fits are stand-ins (the true lattice named as a fresh fit may name it: turned half a
    turn, shifted), so this is about the names, not about the fit."""
    scene = table_scene(np.random.default_rng(500), size=SIZE)
    truth = truth_lattice(scene)

    def fit_named(fit_from_maze, nudge=(0, 0)):
        cells = frozenset(map_cell(fit_from_maze, c) for c in truth.cells)
        h = translation(*nudge) @ truth.image_from_maze @ np.linalg.inv(fit_from_maze)
        return replace(truth, image_from_maze=h, cells=cells)

    fits = iter([fit_named(translation(2, -1) @ HALF_TURN), fit_named(translation(-3, 4), nudge=(3, -2))])
    monkeypatch.setattr(grid, "fit_lattice", lambda frame, **kw: next(fits))
    tracker = GridTracker()
    tracker.update(scene.image)
    anchored = tracker.set_anchor(readings_for(scene, tracker.lattice))
    assert anchored.half_turn and anchored.cells == truth.cells  # the first fit's frame, turned back
    tracker.forget()
    again = tracker.update(scene.image)  # the second stand-in sees the camera nudged by (3, -2) pixels
    assert tracker.refits == 2 and again.anchored and again.half_turn == anchored.half_turn
    assert again.cells == anchored.cells
    assert np.abs(again.centre((0, 0)) - anchored.centre((0, 0)) - (3, -2)).max() < 1e-6


def test_a_refit_after_a_hand_hid_all_but_one_card_keeps_the_cell_names(monkeypatch):
    """With one card in view, a fit lines up with the lattice turned half a turn as well as
    not; the cells under the hand say which (a film's refit named the maze turned about its
    one card in view, and seven cards were committed where none lay)."""
    scene = table_scene(np.random.default_rng(500), size=SIZE)
    truth = truth_lattice(scene)

    def fit_named(fit_from_maze):
        cells = frozenset(map_cell(fit_from_maze, c) for c in truth.cells)
        return replace(truth, image_from_maze=truth.image_from_maze @ np.linalg.inv(fit_from_maze), cells=cells)

    fits = iter([fit_named(translation(2, -1)), fit_named(translation(-3, 4) @ HALF_TURN)])
    monkeypatch.setattr(grid, "fit_lattice", lambda frame, **kw: next(fits))
    tracker = GridTracker()
    tracker.update(scene.image)
    anchored = tracker.set_anchor(readings_for(scene, tracker.lattice))
    assert not anchored.half_turn and anchored.cells == truth.cells
    one = max(truth.cells)  # a card away from the start, the rest under a hand
    tracker.keep(replace(anchored, cells=frozenset({one}), occluded=anchored.cells - {one}))
    tracker.forget()
    again = tracker.update(scene.image)
    assert again.anchored and again.cells == truth.cells
    assert np.abs(again.centre(START_CELL) - anchored.centre(START_CELL)).max() < 1e-6


# --------------------------------------------------------------------------- cards found by reading


def card_centres(scene) -> dict:
    """Where each fully visible card of the scene really lies (its own offset and turn)."""
    return {c: t.card_corners.mean(0) for c, t in scene.cells.items() if t.visible > 0.95}


def worst_centre_error(lattice, scene, within: float = np.inf) -> float:
    """The largest distance from a card's centre to its cell's centre, in cell widths, over
    the cards within ``within`` cells of the start."""
    width = np.linalg.norm(scene.cells[START_CELL].corners[1] - scene.cells[START_CELL].corners[0])
    return max(np.linalg.norm(lattice.centre(c) - p) for c, p in card_centres(scene).items()
               if np.hypot(*c) <= within) / width


def about(cell, scale):
    """A lattice map scaling the cells by ``scale`` about ``cell``: a pitch a few percent off."""
    x, y = cell
    return np.array([[scale, 0, x * (1 - scale)], [0, scale, y * (1 - scale)], [0, 0, 1.0]])


@pytest.mark.parametrize("how_many, within", [(6, 3.0), (None, np.inf)])
def test_a_lattice_off_in_pitch_is_refitted_on_the_cards_and_ignores_a_neighbours(how_many, within):
    """With the cards' centres known (a few near the start: an affine correction, right
    around them; all of them: projective, right everywhere), a lattice 7% off in pitch
    comes to lie on the cards, even though one cell was given its neighbour's card (a
    reading a cell off)."""
    scene = table_scene(np.random.default_rng(503), size=SIZE)
    truth = truth_lattice(scene)
    off = replace(truth, image_from_maze=truth.image_from_maze @ about(START_CELL, 1.07))
    centres = card_centres(scene)
    chosen = sorted(centres, key=lambda c: abs(c[0]) + abs(c[1]))[:how_many]
    given = {c: centres[c] for c in chosen}
    wrong = chosen[1]
    given[wrong] = truth.centre((wrong[0] + 1, wrong[1]))  # a neighbour's card
    assert worst_centre_error(off, scene) > 0.3  # the premise: far cells lie a third of a card off
    refitted = fit_to_centres(off, given)
    # each card lies up to 3 mm / 3 degrees off its place, so an affine fit on six of them
    # (one wrong) is a little off at three cells out: 0.15 of a card on this scene
    assert worst_centre_error(refitted, scene, within) < 0.17
    assert fit_to_centres(off, dict(list(given.items())[:3])) is off  # too few to say anything


def test_a_fit_that_drifts_is_refitted_on_where_the_cards_are_found():
    """The cards found where they lie (by the classifier in the pipeline; here the truth,
    for the cells whose card lies within a fifth of a cell of where the lattice says) pull
    a lattice that drifts back onto the cards, ring by ring from the maze's middle."""
    scene = table_scene(np.random.default_rng(503), size=SIZE)
    centres = card_centres(scene)

    def finds_cards(frame, lattice, cells):
        near = {}
        for c in cells:
            if c in centres and np.linalg.norm(lattice.centre(c) - centres[c]) < 0.2 * lattice.cell_size_px():
                near[c] = centres[c]
        return near

    truth = truth_lattice(scene)
    drifting = replace(truth, image_from_maze=truth.image_from_maze @ about(START_CELL, 0.94))
    assert worst_centre_error(drifting, scene) > 0.3
    work = grid._Work(scene.image, 640)
    judged = grid.judge(work, drifting.image_from_maze, 0.5, 1.0)
    centred = grid._centred_on_cards(work, scene.image, judged, finds_cards, {})
    # each card lies up to 3 mm / 3 degrees off its place, so even the true lattice is off
    # the cards (0.07 of a card on this scene): centring comes within 0.07 of that
    assert worst_centre_error(centred, scene) < worst_centre_error(truth, scene) + 0.07


def test_a_lattice_found_by_reading_is_centred_on_the_cards_round_its_seed():
    """A lattice found by reading has its seed on cell (0, 0) and a card size from a coarse
    ladder, here 5 % too big: refitted on where the cards of its seed's cell and the eight
    round it lie, it lies on those cards, and closer to the cards further out, before growth
    (which keeps the seed patch's spacing) goes on from there."""
    scene = table_scene(np.random.default_rng(503), size=SIZE)
    centres = card_centres(scene)
    read = scene.image_from_maze @ about(START_CELL, 1.05)

    def finds_cards(frame, lattice, cells):
        # each cell's card where it lies, if one lies within a third of a cell of its middle
        near = {}
        for c in cells:
            nearest = min(centres.values(), key=lambda p: np.linalg.norm(p - lattice.centre(c)))
            if np.linalg.norm(nearest - lattice.centre(c)) < 0.3 * lattice.cell_size_px():
                near[c] = nearest
        return near

    def worst_error(h, within):
        return worst_centre_error(Lattice(h, SIZE, frozenset()), scene, within)

    centred = grid._centred_on_seed(scene.image, read, finds_cards)
    assert worst_error(read, 1.5) > 0.1  # the premise: a tenth of a card off next to the seed
    # each card lies up to 3 mm / 3 degrees off its place: the truth itself is 0.06 off here
    assert worst_error(centred, 1.5) < 0.04
    assert worst_error(centred, 3) < worst_error(read, 3) - 0.05
    assert grid._centred_on_seed(scene.image, read, lambda *_: {}) is read  # nothing found: as it was


def test_the_variants_of_a_lattice_at_half_the_pitch_with_its_axes_swapped_hold_the_true_one():
    """A lattice whose x runs along the cards' long side at half their length and whose y
    runs across them (half cards lying across: nearly a card's shape, straight middle
    lines) is one of the commonest wrong fits; one of its variants is the true lattice."""
    scene = table_scene(np.random.default_rng(503), size=SIZE)
    truth = truth_lattice(scene).image_from_maze
    wrong = truth @ np.array([[0, 1.0, 0.5], [-0.5, 0, 0.25], [0, 0, 1]])  # and half a card off
    seed = truth_lattice(scene).centre(START_CELL)
    points = list(card_centres(scene).values())
    assert off_centre(wrong, points) > 0.2
    assert min(off_centre(wrong @ v, points) for v in grid._variants(wrong, seed)) < 0.05


def off_centre(h, points):
    """The median distance (cells) of ``points`` (pixels) from the centres of lattice ``h``'s cells."""
    pos = apply_homography(np.linalg.inv(h), points)
    return float(np.median(np.abs(pos - np.round(pos)).max(axis=1)))


@pytest.mark.parametrize("foreshortened", [0.85, 0.75])
def test_the_variants_of_a_lattice_hold_the_true_one_when_the_cards_look_foreshortened(foreshortened):
    """Cards seen at a slant look squatter than they are (0.85 of their aspect; 0.75 toward
    the edge of a wide lens's view: a bench photo tilted 24 degrees, whose maze was found
    by no lattice before): a variant with that aspect is among those of a lattice whose
    cells are 0.42 of a card long (no harmonic of which is a card)."""
    squat = np.array([[50.0, 0, 900], [0, -50.0 * PITCH_RATIO * foreshortened, 500], [0, 0, 1]])  # cells -> pixels
    wrong = squat @ np.array([[1.0, 0, 0.5], [0, 0.42, 0.1], [0, 0, 1]])
    points = apply_homography(squat, [(x, y) for x in range(-2, 3) for y in range(-2, 3)])

    def pitch_error(h):  # how far the cells' sides are from the cards' (in cards' widths)
        return float(np.abs(np.abs(h[:2, :2]) - np.abs(squat[:2, :2])).max() / 50.0)

    seed = apply_homography(squat, [(0, 0)])[0]
    # the phases are tried in quarter cells: within the classifier's tolerance of the cards
    assert any(off_centre(wrong @ v, points) < 0.15 and pitch_error(wrong @ v) < 0.02
               for v in grid._variants(wrong, seed))


def test_a_lattice_whose_cells_are_not_right_angled_is_implausible():
    """Cards are rectangles: a tilted camera shears a lattice by a few degrees, not by 25."""
    def lattice(angle_deg, tilt=np.eye(3)):  # cells 50 px across; the long axis at this angle to the short one
        a = np.radians(angle_deg)
        long = 50.0 * PITCH_RATIO * np.array([np.cos(a), -np.sin(a)])
        return np.array([[50.0, long[0], 900], [0, long[1], 500], [0, 0, 1]]) @ tilt

    shape = (1080, 1920)
    assert grid._aspect_plausibility(lattice(90), shape) == pytest.approx(1.0)
    assert grid._aspect_plausibility(lattice(84), shape) == pytest.approx(1.0)  # an affine view of a tilted table
    assert grid._aspect_plausibility(lattice(65), shape) == 0.0
    # seen in perspective, the right angles are kept and the lattice plausible
    tilted = np.array([[1.0, 0, 0], [0, 1.0, 0], [0.0, 0.01, 1.0]])
    assert grid._aspect_plausibility(lattice(90, tilted), shape) > 0.5


def striped_table_with_cards(rng, size=(960, 540), card_short=60, stripes_deg=10.0, block=(3, 3)):
    """A noisy orange cloth striped by a blind's shadows (bands at ``stripes_deg``), with a
    block of cards (3 x 3, or ``block`` columns x rows) of one printing square to the
    picture in the middle: the stripes have longer, crisper edges than the cards' soft rock."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = np.radians(stripes_deg)
    across = -xs * np.sin(a) + ys * np.cos(a)
    shade = cv2.GaussianBlur(0.55 + 0.45 * (np.sin(across / 12.0) > 0), (0, 0), 6.0)  # penumbral bands of shadow
    image = np.empty((h, w, 3), np.float32)
    image[:] = (40, 140, 220)  # BGR orange
    image *= shade[..., None]
    style = cardart.CardStyle.sample(rng)
    card = (card_short, round(card_short * PITCH_RATIO))
    faces = ["cross", "straight-ew", "t-nes", "curve-ne", "start", "dead-ns", "straight-ns", "cross", "curve-nw"]
    columns, rows = block
    x0, y0 = w // 2 - columns * card[0] // 2, h // 2 - rows * card[1] // 2
    for i in range(columns * rows):
        art = cardart.draw_face(default_catalogue().face(faces[i % len(faces)]), 0, style, rng, size=card)
        x, y = x0 + (i % columns) * card[0], y0 + (i // columns) * card[1]
        image[y:y + card[1], x:x + card[0]] = art
    image += rng.normal(0, 5, image.shape)  # the cloth's weave and the sensor's noise
    return np.clip(image, 0, 255).astype(np.uint8), (x0, y0, x0 + columns * card[0], y0 + rows * card[1])


def _unlike_table(image):
    nothing_busy = np.zeros(image.shape[:2], bool)
    return grid._unlike_table(image, nothing_busy, grid._Tint.of(image, nothing_busy))


def test_cards_on_a_striped_cloth_are_told_from_it_by_colour():
    """The shadows of a blind across a coloured cloth: the cards are told from it by
    colour, which the shadows do not change (the cards' soft rock has less local contrast
    than the stripes' edges)."""
    image, (x0, y0, x1, y1) = striped_table_with_cards(np.random.default_rng(3))
    work = grid._Work(image, 960)
    unlike = _unlike_table(image)
    cards = unlike[y0 + 4:y1 - 4, x0 + 4:x1 - 4].mean()
    table = np.concatenate([unlike[:, :x0 - 10].ravel(), unlike[:, x1 + 10:].ravel()]).mean()
    assert cards > 0.8 and table < 0.01, (cards, table)
    assert work.busy[y0 + 4:y1 - 4, x0 + 4:x1 - 4].mean() > 0.9


def test_a_hand_on_a_coloured_cloth_is_not_taken_for_card_colour():
    """A hand is as unlike a green cloth as a card is, but it must stay smooth skin, or
    the occlusion test would not see it and a hand over the maze would read as cards."""
    rng = np.random.default_rng(4)
    image = np.clip(rng.normal((60, 140, 50), 4, (360, 640, 3)), 0, 255).astype(np.uint8)  # green cloth
    image[100:200, 100:165] = (150, 140, 130)  # a card's blue-grey rock
    image[100:220, 400:480] = (120, 150, 210)  # a hand
    unlike = _unlike_table(image)
    assert unlike[110:190, 110:155].mean() > 0.95
    assert unlike[110:210, 410:470].mean() < 0.05


def test_a_pale_stretch_of_table_under_a_lamp_is_not_taken_for_tunnel_floors():
    """A grey cloth lit brightly toward one corner is as white and colourless there as a
    tunnel's floor, and as flat: but no card's rock walls it in. Taken for card, it drew a
    bench photo's lattice onto bare table, away from the maze."""
    rng = np.random.default_rng(5)
    h, w = 450, 800
    yy, xx = np.mgrid[0:h, 0:w]
    light = 125 + 120 * np.exp(-(((xx - w) / 260.0) ** 2 + ((yy - h) / 200.0) ** 2))
    image = np.repeat(light[..., None], 3, axis=2)
    style, card = cardart.CardStyle.sample(rng), (40, 62)
    for i, face in enumerate(["cross", "straight-ew", "t-nes", "curve-ne", "start", "dead-ns"]):
        x, y = 200 + (i % 3) * card[0], 120 + (i // 3) * card[1]
        image[y:y + card[1], x:x + card[0]] = cardart.draw_face(default_catalogue().face(face), 0, style, rng,
                                                                size=card)
    image = np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    work = grid._Work(image, w)
    assert work.busy[123:241, 203:317].mean() > 0.95
    assert work.busy[330:, 620:].mean() < 0.01


def test_white_patches_count_as_card_only_where_card_art_walls_them():
    busy = np.zeros((60, 100), bool)
    busy[10:40, 10:40] = True
    busy[20:30, 15:35] = False  # a tunnel's floor, walled by the card's rock
    patches = np.zeros_like(busy)
    patches[20:30, 15:35] = True
    patches[45:58, 60:95] = True  # a pale stretch of bare table
    kept = grid._walled(patches, busy)
    assert kept[20:30, 15:35].all() and not kept[45:58, 60:95].any()


def test_tunnel_floors_lab_by_hand_matches_opencvs_lab_to_its_rounding():
    # every colour of a 32-level cube, against OpenCV's 8-bit Lab (L scaled to 255, a and b offset by 128)
    levels = np.linspace(0, 255, 32).astype(np.uint8)
    image = np.stack(np.meshgrid(levels, levels, levels), axis=-1).reshape(32, -1, 3)
    rgb = [cv2.LUT(c, grid._LINEAR) for c in cv2.split(image)[::-1]]
    fx, fy, fz = (grid._lab_f(rgb, row) for row in (0, 1, 2))
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    assert np.abs((116 * fy - 16) * 2.55 - lab[..., 0]).max() < 1.5
    assert np.abs(500 * (fx - fy) - (lab[..., 1] - 128)).max() < 2.5
    assert np.abs(200 * (fy - fz) - (lab[..., 2] - 128)).max() < 2.5


def test_an_arm_from_the_frames_edge_hides_the_cells_under_it_and_a_brown_stone_does_not():
    """A pale arm whose folds read as busy shows no smooth skin, yet the cells it covers
    are hidden: its skin reaches in from the edge over several cells. A card's brown stone
    has skin's hue too, but is small and lies within the maze."""
    cw, ch = grid.MOSAIC_CELL
    rows, cols = 5, 7
    image = np.full((rows * ch, cols * cw, 3), (150, 140, 120), np.uint8)  # a blue-grey table
    image[2 * ch + 2:3 * ch - 2, :3 * cw - 4] = (120, 150, 210)  # an arm over three cells of the middle row
    image[ch + 8:ch + 14, 5 * cw + 5:5 * cw + 11] = (120, 150, 210)  # a stone on the card a row up
    cells = [(x, -r) for r in range(rows) for x in range(cols)]
    maze = {(x, y) for x, y in cells if -3 <= y <= -1}

    def seen(picture):
        mosaic = grid._Mosaic(np.ones((rows, ch, cols, cw), np.float32), picture, 0, 0)  # all busy: no smooth skin
        return grid._Cells(mosaic, dict.fromkeys(cells, 1.0), dict.fromkeys(cells, 0.0))

    assert grid._hand_cells(seen(image), maze) == {(0, -2), (1, -2), (2, -2)}
    image[2 * ch + 2:3 * ch - 2, :2] = (150, 140, 120)  # the same skin short of the edge: a card's art
    assert grid._hand_cells(seen(image), maze) == set()


def test_a_maze_of_cards_whose_rock_has_skins_hue_running_out_of_the_frame_is_no_arm():
    """A printing in sandy browns has rock of skin's hue: the maze is one skin-hued region,
    and running out of the frame it reached the edge as an arm does (a foreign-printing
    bench photo had the 20 cards of its maze taken for hidden). Where the cards themselves
    are skin-hued, only smooth skin tells a hand."""
    cw, ch = grid.MOSAIC_CELL
    rows, cols = 5, 7
    image = np.full((rows * ch, cols * cw, 3), (150, 140, 120), np.uint8)  # a blue-grey table
    image[ch:4 * ch, :5 * cw] = (80, 120, 155)  # sandy rock from the west edge, three rows of five cards
    image[ch + ch // 2 - 3:ch + ch // 2 + 3, :5 * cw] = (200, 225, 235)  # a cream tunnel along a row
    cells = [(x, -r) for r in range(rows) for x in range(cols)]
    maze = {(x, y) for x, y in cells if -3 <= y <= -1 and x < 5}
    assert grid._skin_hue(image[ch:ch + 4, :8]).all()
    mosaic = grid._Mosaic(np.ones((rows, ch, cols, cw), np.float32), image, 0, 0)  # all busy: card texture
    assert grid._hand_cells(grid._Cells(mosaic, dict.fromkeys(cells, 1.0), dict.fromkeys(cells, 0.0)), maze) == set()


def test_a_hand_on_a_table_of_skins_hue_is_told_from_it_by_tint():
    """A wood table can lie within skin's hue (YCrCb) all over, so that no skin showed
    beyond the table's own: a hand over the maze went unseen (a printed bench photo lost
    its frame with the start under an arm on a red cloth). The wood's tint (each channel's
    share of the sum) is not a hand's."""
    cw, ch = grid.MOSAIC_CELL
    rows, cols = 5, 7
    rng = np.random.default_rng(6)
    image = np.clip(rng.normal((50, 80, 140), 3, (rows * ch, cols * cw, 3)), 0, 255).astype(np.uint8)
    image[ch + 2:4 * ch - 2, 3 * cw + 2:4 * cw - 2] = (160, 185, 230)  # a hand over three cells of a column
    cells = [(x, -r) for r in range(rows) for x in range(cols)]
    maze = {(x, y) for x, y in cells if 2 <= x <= 4}
    assert grid._skin_hue(image)[:, :cw].mean() > 0.99  # the table has skin's hue

    def hand(tint):
        mosaic = grid._Mosaic(np.zeros((rows, ch, cols, cw), np.float32), image, 0, 0, tint)  # all smooth
        shares = grid._skin_shares(mosaic)
        skin = {c: float(shares[mosaic.index(c)]) for c in cells}
        return grid._hand_cells(grid._Cells(mosaic, dict.fromkeys(cells, 0.0), skin), maze)

    assert hand(None) == set()
    assert hand(grid._Tint.of(image, np.zeros(image.shape[:2], bool))) == {(3, -1), (3, -2), (3, -3)}


def test_an_arm_across_the_frames_border_does_not_widen_the_tables_tint():
    """The table's tint is judged on the frame's border, which an arm reaching in crosses:
    counted as table, its pixels widened the tint's spread until every skin passed for
    table, and the hand went unseen (a drawn bench photo's arm covered 6 % of the border,
    and its cards beyond the hand were not read)."""
    cw, ch = grid.MOSAIC_CELL
    rows, cols = 5, 7
    rng = np.random.default_rng(7)
    image = np.clip(rng.normal((150, 120, 60), 3, (rows * ch, cols * cw, 3)), 0, 255).astype(np.uint8)  # blue cloth
    image[2 * ch + 2:3 * ch - 2, :3 * cw - 4] = (70, 96, 156)  # an arm from the west edge over three cells
    cells = [(x, -r) for r in range(rows) for x in range(cols)]
    maze = {(x, y) for x, y in cells if -3 <= y <= -1}
    tint = grid._Tint.of(image, np.zeros(image.shape[:2], bool))
    assert tint.unlike(image[2 * ch + 4:3 * ch - 4, :8], core=True).all()
    mosaic = grid._Mosaic(np.zeros((rows, ch, cols, cw), np.float32), image, 0, 0, tint)  # all smooth
    shares = grid._skin_shares(mosaic)
    skin = {c: float(shares[mosaic.index(c)]) for c in cells}
    assert grid._hand_cells(grid._Cells(mosaic, dict.fromkeys(cells, 0.0), skin), maze) == {(0, -2), (1, -2), (2, -2)}


def test_cells_under_a_hand_reaching_over_the_maze_are_hidden_two_cells_out():
    # the maze left in view, and a hand reaching in from the west over cards it hides (the
    # grid cannot count them as maze); a hand far from the maze hides no maze card
    maze = {(0, 0), (1, 0), (1, 1)}
    arm = {(-1, 0), (-2, 0), (-3, 0), (-4, 0), (-1, 1), (-2, 1)}
    assert grid._hidden_by_hand(arm | {(6, 6)}, maze) == {(-1, 0), (-2, 0), (-1, 1)}


def test_the_card_directions_come_from_edges_on_the_cards():
    """In this photo the table's own lines outvote the card edges (17 degrees off, when
    every line segment near the maze counts); only those on or at the edge of card
    pixels count, and they give the card axes."""
    scene = table_scene(np.random.default_rng(823), size=SIZE)
    ends = apply_homography(scene.image_from_maze, [(0, 0), (1, 0), (0, 1)])
    axes = [np.degrees(np.arctan2(*(ends[i] - ends[0])[::-1])) for i in (1, 2)]
    _, d1, d2 = grid._card_directions(grid._Work(scene.image, 640))
    for d in (d1, d2):
        angle = np.degrees(np.arctan2(d[1], d[0]))
        assert min(abs((angle - a + 90) % 180 - 90) for a in axes) < 3


def test_other_card_directions_hold_the_cards_when_the_first_pair_is_off():
    """The directions found at the seed one of them 30 degrees off (a striped cloth or an
    arm outvoting a card side among few small cards): the other pairs tried hold one
    within a degree or two of the cards' axes (here square to the picture)."""
    image, _ = striped_table_with_cards(np.random.default_rng(3), stripes_deg=30.0)
    work = grid._Work(image, 960)
    seed, _, _ = work.directions
    work.__dict__["directions"] = (seed, np.array((COS30, SIN30)), np.array((0.0, 1.0)))  # one wrong
    pairs = [sorted(grid._degrees(d1, d2)) for _, d1, d2 in grid._other_directions(work)]
    assert any(abs(a - 0) < 2 or abs(a - 180) < 2 for a, b in pairs if abs(b - 90) < 2)


def segments_along(angle_deg, count, origin=(0.0, 0.0), length=20.0):
    """``count`` line segments along this direction, spread along the diagonal from ``origin``."""
    starts = np.outer(np.arange(count, dtype=float), (7.0, 7.0)) + origin
    return np.hstack([starts, starts + length * np.array([[np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))]])])


def test_the_card_directions_at_the_seed_are_a_pair_about_square(monkeypatch):
    """Among few cards a striped cloth's grain or an arm can outweigh a card side in the
    segments' directions, 65 degrees from the other side (the whole photo's range allows
    that much for a wide lens's corners; on the 4:3 bench photos without a maze the pairs
    found were 19 to 33 degrees from square): at the seed only a pair within 16 degrees of
    square is taken, and here it is the cards' own."""
    image, _ = striped_table_with_cards(np.random.default_rng(3))
    work = grid._Work(image, 960)
    seed, _ = grid._segments_around_seed(work)
    grain = np.vstack([segments_along(0, 20, seed), segments_along(90, 8, seed), segments_along(65, 40, seed)])
    monkeypatch.setattr(grid, "_segments_around_seed", lambda work: (seed, grain))
    _, d1, d2 = grid._card_directions(work)
    a, b = sorted(grid._degrees(d1, d2))
    assert (a < 2 or a > 178) and abs(b - 90) < 2


def test_a_pair_drawn_out_of_square_by_its_refined_directions_is_not_taken():
    """A heavy family just beyond the seed's range (109 degrees from a card side) reaches
    into it through its spread: paired there, its direction refined to its peak lies out
    of the range again, and the cards' own pair comes first instead."""
    seg = np.vstack([segments_along(0, 20), segments_along(90, 6), segments_along(109, 40)])
    (a, b, _), = grid._seed_direction_pairs(seg, 1)
    assert sorted(round(d) % 180 for d in (a, b)) == [0, 90]


def test_the_variants_of_the_lattice_with_the_best_edges_are_tried_too(monkeypatch):
    """Small cards: the lattices with the sharpest edges are at twice the pitch and read no
    cell as a card (four cards a cell), so another ranks first on reading; its variants
    hold nothing better, but those of the best-edged lattice hold the cards' own pitch,
    which reads well and is kept (a 4:3 bench photo without a maze before)."""
    image, _ = striped_table_with_cards(np.random.default_rng(3))
    edgy, reading, halved = np.diag([2.0, 1.0, 1.0]), np.diag([3.0, 1.0, 1.0]), np.diag([4.0, 1.0, 1.0])
    ranked = iter([[((0.0, 0.5), edgy, None), ((0.06, 0.28), reading, None)]])
    _fit_stages_rank(monkeypatch, ranked)
    variants = {2.0: [((0.39, 0.39), halved, None)], 3.0: [((0.03, 0.09), np.diag([5.0, 1.0, 1.0]), None)]}
    monkeypatch.setattr(grid, "_regrown_variants", lambda work, frame, h, reads: variants[h[0, 0]])

    def reads(frame, lattices):
        raise AssertionError("the finalists were read")

    assert grid._fit_on(image, None, 960, reads, None).image_from_maze[0, 0] == 4.0


@pytest.mark.parametrize("share, looked_at_others", [(1.0, False), (0.9, True), (0.5, True)])
def test_the_other_sources_are_looked_at_unless_the_local_look_reads_nearly_all_cards(
        monkeypatch, share, looked_at_others):
    """The local look's best hypothesis, grown, reads nearly all its cells as cards: it is
    kept, and the other sources (folding, the table's plane) are not worked out. It reads
    fewer (even 0.9, which would be taken as it is): all are ranked together, the best
    grown, the local one not grown twice."""
    image, _ = striped_table_with_cards(np.random.default_rng(3))
    local, other = np.diag([2.0, 1.0, 1.0]), np.diag([3.0, 1.0, 1.0])
    asked, grown = [], []
    monkeypatch.setattr(grid, "_local_hypotheses", lambda work: [local])
    monkeypatch.setattr(grid, "_other_hypotheses", lambda plane, work: asked.append(plane) or [other])
    monkeypatch.setattr(grid, "_scored", lambda work, hs: [(float(h[0, 0]), h, [(0, 0), (1, 0)]) for h in hs])
    monkeypatch.setattr(grid, "_grow", lambda work, h, earlier: grown.append(h[0, 0])
                        or grid._Growth(h, "refined", [(0, 0), (1, 0)], [h]))
    monkeypatch.setattr(grid, "lattice_score", lambda work, h: 0.5)

    def reads(frame, lattices):
        return [share] * len(lattices)

    ranked = grid._grown_hypotheses(grid._Work(image, 960), image, None, reads)
    assert bool(asked) == looked_at_others
    assert [h[0, 0] for _, h, _ in ranked] == ([2.0] if not looked_at_others else [3.0, 2.0])
    assert grown == ([2.0] if not looked_at_others else [2.0, 3.0])


def _fit_stages_rank(monkeypatch, ranked):
    """_fit_on's stages stubbed: each grows and ranks the next list of ``ranked`` (the
    hypotheses, along other directions, by reading); a finished lattice is its hypothesis."""
    monkeypatch.setattr(grid, "_grown_hypotheses", lambda *args: next(ranked))
    monkeypatch.setattr(grid, "_grown_and_ranked", lambda *args: next(ranked))
    monkeypatch.setattr(grid, "_regrown_variants", lambda *args: [])
    monkeypatch.setattr(grid, "_along_other_directions", lambda *args: [])
    monkeypatch.setattr(grid, "_found_by_reading", lambda *args: [])
    monkeypatch.setattr(grid, "_finished", lambda work, frame, h, *args: Lattice(h, (960, 540), frozenset({(0, 0)})))


@pytest.mark.parametrize("shares, kept", [((0.6, 0.75, 0.5), 2), ((0.6, 0.85, 0.9), 4), ((0.9, 1.0, 0.95), 2)])
def test_when_no_lattice_reads_well_the_best_few_are_finished_and_one_reading_clearly_more_wins(
        monkeypatch, shares, kept):
    """Every lattice found reads few of its cells as cards near the seed (a lattice scored
    0 counts as reading none): the three ranked best are finished and read on all their
    cells; the first ranked is kept unless another reads a share 0.2 larger or more (the
    largest such)."""
    image, _ = striped_table_with_cards(np.random.default_rng(3))
    ranked = iter([[((0.0, 0.0), np.diag([1.0, 1.0, 1.0]), None)],  # the hypotheses, grown
                   [((0.3, 0.6), np.diag([2.0, 1.0, 1.0]), None), ((0.05, 0.4), np.diag([4.0, 1.0, 1.0]), None)],
                   [((0.2, 0.5), np.diag([3.0, 1.0, 1.0]), None)]])  # along other directions; by reading
    _fit_stages_rank(monkeypatch, ranked)
    by_scale = dict(zip((2, 3, 4), shares))  # ranked 0.3, 0.2, 0.05; the one scored 0 is not finished
    reads = lambda frame, lattices: [by_scale[round(lat.image_from_maze[0, 0])] for lat in lattices]  # noqa: E731
    assert round(grid._fit_on(image, None, 960, reads, None).image_from_maze[0, 0]) == kept


def test_a_lattice_found_by_reading_alone_that_reads_well_is_kept_at_once(monkeypatch):
    """As at every stage before it: the finalists are finished only when none reads well."""
    image, _ = striped_table_with_cards(np.random.default_rng(3))
    ranked = iter([[((0.0, 0.0), np.diag([1.0, 1.0, 1.0]), None)],  # the hypotheses, grown
                   [((0.3, 0.6), np.diag([2.0, 1.0, 1.0]), None)],  # along other directions: half its cells
                   [((0.5, 0.5), np.diag([3.0, 1.0, 1.0]), None)]])  # by reading: every cell
    _fit_stages_rank(monkeypatch, ranked)

    def reads(frame, lattices):
        raise AssertionError("the finalists were read")

    assert round(grid._fit_on(image, None, 960, reads, None).image_from_maze[0, 0]) == 3


def test_reading_finds_the_lattice_where_the_edges_mislead():
    """Every card size and phase along the card directions, read at the maze's busiest
    cell and its neighbours: with a reader that sees a card only where a crop lies within
    the classifier's tolerance of a true card, one of the lattices kept lies on the cards."""
    image, (x0, y0, x1, y1) = striped_table_with_cards(np.random.default_rng(3))
    card = ((x1 - x0) / 3, (y1 - y0) / 3)
    found = grid._reading_hypotheses(grid._Work(image, 960), image, block_reader((x0, y0), card))
    assert found
    assert_on_the_cards(found[0], (x0, y0), card)


def test_reading_looks_past_a_hand_over_the_busiest_spot():
    """A hand over the maze's busiest spot: the card there reads as nothing (the reader
    says so), and the lattice is found by reading at the next busiest spots, on the cards."""
    image, (x0, y0, x1, y1) = striped_table_with_cards(np.random.default_rng(3), block=(5, 3))
    card = ((x1 - x0) / 5, (y1 - y0) / 3)
    work = grid._Work(image, 960)
    under_hand = np.floor((grid._seed_px(work) - (x0, y0)) / card)  # the card the busiest spot lies on
    reads = block_reader((x0, y0), card, (5, 3))

    @batched
    def reads_cards(frame, lattice):
        shares = [0.0 if (np.floor((lattice.centre(c) - (x0, y0)) / card) == under_hand).all()
                  else reads(frame, [replace(lattice, cells=frozenset({c}))])[0] for c in lattice.cells]
        return float(np.mean(shares))

    found = grid._reading_hypotheses(work, image, reads_cards)
    assert found
    assert_on_the_cards(found[0], (x0, y0), card)


def batched(check):
    """A card check of one lattice as fit_lattice calls it: on a batch of lattices."""
    return lambda frame, lattices: [check(frame, lattice) for lattice in lattices]


def block_reader(corner, card, block=(3, 3)):
    """A stand-in for the classifier's check on the block of cards (columns x rows) whose north-west
    corner is at ``corner`` (cards ``card`` pixels, square to the picture): a cell reads as
    a card where its crop lies on one within the classifier's tolerance (a fifth of a card
    across, an eighth along), square to it and of its size."""
    @batched
    def reads_cards(frame, lattice):
        hits = []
        for c in lattice.cells:
            u, v = (lattice.centre(c) - corner) / card - 0.5  # card coordinates of the crop's middle
            q = lattice.quad(c)
            square = all(min(abs(side[0]), abs(side[1])) < 0.1 * card[0] for side in (q[1] - q[0], q[3] - q[0]))
            on_block = -0.3 < u < block[0] - 0.7 and -0.3 < v < block[1] - 0.7
            hits.append(on_block and abs(u - round(u)) < 0.2 and abs(v - round(v)) < 0.12
                        and square and np.isclose(lattice.cell_size_px(), card[0], rtol=0.1))
        return float(np.mean(hits))

    return reads_cards


def assert_on_the_cards(h, corner, card):
    """Lattice ``h`` has a cell on a card of the block whose north-west corner is at
    ``corner`` (cards ``card`` pixels, square to the picture), and one card's pitch."""
    centres = apply_homography(h, [(0, 0), (1, 0), (0, 1)])
    u, v = (centres[0] - corner) / card - 0.5
    assert abs(u - round(u)) < 0.2 and abs(v - round(v)) < 0.12
    assert np.isclose(np.linalg.norm(centres[1] - centres[0]), card[0], rtol=0.1)


COS30, SIN30 = np.cos(np.radians(30)), np.sin(np.radians(30))


@pytest.mark.parametrize("d1, d2", [((COS30, SIN30), (0.0, 1.0)), ((1.0, 0.0), (-SIN30, COS30))])
def test_reading_squares_a_card_direction_that_is_off(d1, d2):
    """The two card-edge directions found at the seed, one of them 30 degrees off (a
    diagonal run of tunnel walls outvoting the card sides among few small cards): the
    other one squared to the right one gives a lattice on the cards."""
    image, (x0, y0, x1, y1) = striped_table_with_cards(np.random.default_rng(3))
    card = ((x1 - x0) / 3, (y1 - y0) / 3)
    work = grid._Work(image, 960)
    seed, _, _ = work.directions
    work.__dict__["directions"] = (seed, np.array(d1), np.array(d2))  # the cached directions, one wrong
    found = grid._reading_hypotheses(work, image, block_reader((x0, y0), card))
    assert found
    assert_on_the_cards(found[0], (x0, y0), card)


def test_the_start_lies_wherever_the_goals_read_could_put_it():
    from vision.grid import start_places

    column = [(8, -2), (8, 0), (8, 2)]
    assert start_places(column) == [(0, 0), (16, 0)]  # one place each way round
    assert {(0, 0), (0, 2)} <= set(start_places([(8, 0), (8, 2)])) and len(start_places([(8, 0), (8, 2)])) == 4
    assert len(start_places([(8, 0), (8, -2), (8, 2), (8, 4)])) == 0  # four goals never fit three places
    assert len(start_places([(8, 0)])) == 6
    # a card misread as a goal off the column the others share is another card
    assert start_places([(8, 0), (8, 2), (3, 1)]) == start_places([(8, 0), (8, 2)])


def test_a_lattice_point_near_its_horizon_is_snapped_without_huge_windows():
    # a projective hypothesis whose line x = -1000 is the horizon: a probe just beside it is
    # millions of pixels a cell, and its search window must not ask for gigabytes
    h = np.array([[100.0, 0, 500], [0, 100.0, 300], [0.001, 0, 1.0]])
    image = np.zeros((600, 1000), np.uint8)
    image[:, 500:] = 200
    pts = np.array([[-999.99, 0.5], [0.0, 0.5], [0.5, 0.0]])
    snap = grid.snap_edges(image, h, pts, np.array([0, 0, 1]), 0.2)
    assert snap.observed.shape == (3, 2) and np.isfinite(snap.observed).all()
    assert abs(snap.observed[1, 0] - 500) <= 1.0  # an ordinary probe still finds its edge


def test_a_cells_share_in_view_is_the_part_of_it_inside_the_frame():
    # cells 100 pixels square, the frame 250 wide: cell 2 straddles its right edge by half
    lattice = Lattice(np.array([[100.0, 0, 50], [0, -100, 50], [0, 0, 1]]), (250, 100), frozenset())
    assert [round(lattice.share_in_view((x, 0)), 3) for x in (0, 1, 2, 3)] == [1.0, 1.0, 0.5, 0.0]


def test_many_cells_shares_in_view_are_each_ones_alone():
    # in, across the edges of, out of the frame and beyond the table's horizon (maze y = -20)
    lattice = Lattice(np.array([[60.0, 5, 400], [3, -60, 300], [0.001, 0.05, 1]]), (800, 600), frozenset())
    cells = [(x, y) for x in range(-12, 14, 3) for y in range(-24, 12, 2)]
    shares = lattice.shares_in_view(cells)
    assert list(shares) == cells and lattice.shares_in_view([]) == {}
    assert {round(v, 2) for v in shares.values()} >= {0.0, 1.0} and any(0 < v < 1 for v in shares.values())
    assert all(abs(shares[c] - lattice.share_in_view(c)) < 1e-5 for c in cells)


def test_on_a_calibrated_plane_only_lattices_of_the_cards_size_are_kept():
    """A table calibration gives the plane in millimetres, so the cards' size is known: a
    lattice a sixth too small (the edge score had preferred six such, on drawn 28 of the bench) or
    sheared is not."""
    from vision.table import plane_from_calibration

    s = table_scene(np.random.default_rng(4), size=SIZE)
    plane = plane_from_calibration(s.image, sheet_calibration(s))
    cells = list(s.cells)
    assert grid._card_sized(plane, s.image_from_maze, cells)
    assert not grid._card_sized(plane, s.image_from_maze @ np.diag([5 / 6, 1.0, 1.0]), cells)
    sheared = np.array([[1.0, 0.25, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert not grid._card_sized(plane, s.image_from_maze @ sheared, cells)


def test_a_calibrated_fit_not_of_the_cards_size_is_done_again_on_the_cards_own_plane(monkeypatch):
    from vision.table import plane_from_calibration

    s = table_scene(np.random.default_rng(4), size=SIZE)
    calibration = sheet_calibration(s)
    planes = []
    real = grid._fit_on

    def fit_on(frame, plane, *args):
        planes.append(plane.source if plane is not None else None)
        lattice = real(frame, plane, *args)
        if plane is not None and plane.source == "calibration":  # as if it had fitted parts of cards
            return replace(lattice, image_from_maze=lattice.image_from_maze @ np.diag([0.7, 0.7, 1.0]))
        return lattice

    monkeypatch.setattr(grid, "_fit_on", fit_on)
    lattice = grid.fit_lattice(s.image, calibration=calibration)
    assert planes == ["calibration", "cards"]
    assert grid._card_sized(plane_from_calibration(s.image, calibration), lattice.image_from_maze, lattice.cells)


def test_a_growth_that_meets_an_earlier_one_is_followed_no_further():
    """Hypotheses a few hundredths of a cell apart, or a whole cell over, meet after a
    growth stage and grow as one (the earlier growth is taken, and followed alone the
    later would have ended where it did); half a cell or a third off, they do not."""
    scene = table_scene(np.random.default_rng(502), size=SIZE)
    work = grid._Work(scene.image, 800)
    h = scene.image_from_maze
    first = grid._grow(work, h @ translation(0.06, 0.04))
    cells = first.cells
    for offset in ((-0.04, -0.05), (1.03, -0.04)):
        assert grid._grow(work, h @ translation(*offset), [first]) is first
        alone = grid._grow(work, h @ translation(*offset))
        assert alone is not first and grid._same_lattice(alone.h, first.h, cells)
    for offset in ((0.5, 0.0), (0.0, 0.33)):
        assert grid._grow(work, h @ translation(*offset), [first]) is not first
