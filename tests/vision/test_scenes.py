"""Synthetic table photos: the truth they carry must be exactly what they show.

A magenta table makes "card or table?" a per-pixel question (no card art, hand or light is
magenta), which is how these tests look at the picture itself rather than trusting the
renderer's own bookkeeping.
"""

from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine.board import GOAL_CELLS, START_CELL, Board
from engine.catalogue import default_catalogue
from vision.augment import Augment
from vision.scenes import (
    CELL_CORNERS,
    FOREIGN_EDITION,
    SceneCamera,
    SceneOptions,
    _Sensor,
    deck_sheet_photo,
    deck_sheet_photos,
    grow_maze,
    table_scene,
    table_video,
)
from vision.table import apply_homography

MAGENTA = (255, 0, 255)
SMALL = (640, 360)


def magenta_scene(seed, **kw):
    opts = SceneOptions(light=Augment(table_colour=MAGENTA, light_gradient=0.0, p_glare=0.0, p_shadow=0.0),
                        p_glare=0.0, noise=(0.0, 0.0), jpeg_quality=(95, 95))
    return table_scene(np.random.default_rng(seed), options=replace(opts, **kw.pop("opts", {})), **kw)


def is_magenta(image, points):
    b, g, r = (image[..., i].astype(int) for i in range(3))
    mask = ((b + r) // 2 - g) > 80
    pts = np.round(points).astype(int)
    return mask[pts[:, 1], pts[:, 0]]


def apply(h, pts):
    p = np.c_[np.asarray(pts, float), np.ones(len(pts))] @ h.T
    return p[:, :2] / p[:, 2:]


def diagonal_crossing(quad):
    """Where the diagonals of a quadrilateral cross: the image of the cell's centre."""
    a, b, c, d = quad
    m = np.array([c - a, b - d]).T
    s, _ = np.linalg.solve(m, b - a)
    return a + s * (c - a)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_homography_puts_cell_centres_on_the_drawn_cards(seed):
    scene = magenta_scene(seed, size=SMALL, hand=False, crosswise=False)
    cam = scene.camera
    for cell, truth in scene.cells.items():
        centre = cam.distort(apply(scene.image_from_maze, [cell]))[0]
        assert np.linalg.norm(centre - diagonal_crossing(truth.corners)) < 0.5
        if truth.visible == 1.0:
            # the middle of every card is card, not table
            inner = truth.card_corners.mean(0) + 0.6 * (truth.card_corners - truth.card_corners.mean(0))
            assert not is_magenta(scene.image, np.r_[[truth.card_corners.mean(0)], inner]).any(), cell
    # a cell's width away from the outline is table: the maze is where the truth says
    outside = [(x, y) for x in range(-12, 21) for y in range(-12, 13) if all(
        abs(x - cx) + abs(y - cy) > 1 for cx, cy in scene.cells) and (x, y) not in scene.crosswise]
    pts = cam.distort(apply(scene.image_from_maze, outside))
    h, w = scene.image.shape[:2]
    inside = (pts[:, 0] > 2) & (pts[:, 0] < w - 3) & (pts[:, 1] > 2) & (pts[:, 1] < h - 3)
    on_table = is_magenta(scene.image, pts[inside])
    assert on_table.mean() > 0.9  # loose cards may lie there


def test_corners_are_the_cell_in_maze_orientation_and_card_corners_lie_near_them():
    scene = magenta_scene(5, size=SMALL)
    for cell, truth in scene.cells.items():
        nominal = scene.camera.distort(apply(scene.image_from_maze, np.asarray(cell, float) + CELL_CORNERS))
        assert np.abs(nominal - truth.corners).max() < 1e-6
        width = np.linalg.norm(truth.corners[1] - truth.corners[0])
        # a card is at most 3 mm and 3 degrees off its place: its corners stay near the cell's
        assert np.abs(truth.card_corners - truth.corners).max() < 0.2 * width


@pytest.mark.parametrize("seed", range(8))
def test_mazes_are_legal_and_the_board_is_what_is_drawn(seed):
    rng = np.random.default_rng(seed)
    board, laid = grow_maze(rng, 60, "saboteur2" if seed % 2 else "saboteur")
    replay = Board.standard([board.hidden_goals.get(c) or board.at(c).face for c in GOAL_CELLS])
    for p in laid:
        assert replay.check(p).legal, str(replay.check(p))
        replay.put(p)
    catalogue = default_catalogue()
    assert all(n <= catalogue.face(face).copies for face, n in Counter(p.face for p in laid).items())
    scene = table_scene(np.random.default_rng(100 + seed), size=SMALL, cards=(10, 40))
    placed = {p.cell: (p.face, p.rotation) for p in scene.board.placements()}
    assert placed == {c: (t.face, t.rotation) for c, t in scene.cells.items()}
    assert scene.cells[START_CELL].face == "start"
    assert all(c in scene.cells for c in GOAL_CELLS)
    assert not set(scene.crosswise) & set(scene.cells)
    # the order of growth: every path card once, the last laid legal on the maze before it
    assert {p.cell: (p.face, p.rotation) for p in scene.laid} == {
        c: fr for c, fr in placed.items() if catalogue.face(fr[0]).is_path}
    before = scene.board.copy()
    before.remove(scene.laid[-1].cell)
    assert before.check(scene.laid[-1]).legal


@pytest.mark.parametrize("seed", range(6))
def test_a_maze_after_a_rockfall_has_its_hole_filled_again_or_cards_cut_off_never_broken_rules(seed):
    from vision.observation import WAY_BACK, maze_report

    scene = table_scene(np.random.default_rng(200 + seed), size=SMALL, options=SceneOptions(rockfalls=1))
    (hole,) = scene.rockfalls
    assert {p.cell for p in scene.laid} == {c for c in scene.cells if default_catalogue().face(
        scene.cells[c].face).is_path}
    if hole in scene.cells:  # filled again: the card laid last, legal on the maze before it
        assert scene.laid[-1].cell == hole
        before = scene.board.copy()
        before.remove(hole)
        assert before.check(scene.laid[-1]).legal
    # the cards beyond the hole lie on, cut off from the start: no rule broken
    assert all(r.code in WAY_BACK for reasons in maze_report(scene.board).values() for r in reasons)


def test_same_seed_same_scene_other_seed_other_scene():
    a = table_scene(np.random.default_rng(11), size=SMALL)
    b = table_scene(np.random.default_rng(11), size=SMALL)
    c = table_scene(np.random.default_rng(12), size=SMALL)
    assert np.array_equal(a.image, b.image) and a.cells.keys() == b.cells.keys()
    assert np.array_equal(a.image_from_maze, b.image_from_maze)
    assert a.image.shape != c.image.shape or np.abs(a.image.astype(int) - c.image).mean() > 5


def test_crosswise_card_lies_across_a_frontier_cell_and_hands_hide_cells():
    seen_hand = False
    for seed in range(6):
        scene = table_scene(np.random.default_rng(seed), size=SMALL, crosswise=True, hand=True)
        for cell, quad in scene.crosswise.items():
            assert cell not in scene.board and cell in scene.board.frontier()
            long_side = quad[2] - quad[1]  # the card's own long side (its quad is NW NE SE SW of the card)
            cell_quad = apply(scene.image_from_maze, np.asarray(cell, float) + CELL_CORNERS)
            lattice_x = cell_quad[1] - cell_quad[0]
            cos = abs(long_side @ lattice_x) / np.linalg.norm(long_side) / np.linalg.norm(lattice_x)
            assert cos > 0.97  # its long side runs along the lattice's x: crosswise
        assert scene.hand
        seen_hand |= bool(scene.occluded)
        assert scene.occluded <= set(scene.cells) | set(scene.crosswise)
    assert seen_hand


def test_distractors_lie_off_the_maze():
    for seed in range(5):
        scene = table_scene(np.random.default_rng(seed), size=SMALL)
        cells = np.array([t.corners for t in scene.cells.values()])
        lo, hi = cells.min(axis=1), cells.max(axis=1)  # per cell bounding boxes
        for quad in scene.distractors:
            centre = quad.mean(0)
            inside = ((centre > lo) & (centre < hi)).all(axis=1)
            assert not inside.any()


def test_a_video_lays_one_card_per_move_with_a_hand_and_settles():
    video = table_video(np.random.default_rng(3), start_cards=5, moves=2, frames_per_move=4, still_frames=2,
                        size=SMALL)
    assert len(video.boards) == len(video.placements) + 1 == 3
    for k, move in enumerate(video.placements, start=1):
        before, after = video.boards[k - 1], video.boards[k]
        assert move.cell not in before and after.at(move.cell).face == move.face
        settled = video.frames[video.commits[k - 1]]
        assert not settled.hand and settled.committed == k
        assert set(settled.cells) == {p.cell for p in after.placements()}
    moving = [f for f in video.frames if f.hand]
    assert len(moving) >= 2
    # a fixed camera: the lattice barely moves between frames (tiny shake only)
    corners = np.array([apply(f.image_from_maze, [(0, 0), (8, 0)]) for f in video.frames])
    assert np.abs(corners - corners[0]).max() < 3.0


def test_a_video_can_end_with_a_rockfall_and_a_card_laid_in_its_hole_the_rest_unchanged():
    plain = table_video(np.random.default_rng(3), start_cards=5, moves=2, frames_per_move=4, still_frames=2,
                        size=SMALL)
    video = table_video(np.random.default_rng(3), start_cards=5, moves=2, frames_per_move=4, still_frames=2,
                        size=SMALL, rockfalls=1)
    assert all(np.array_equal(a.image, b.image) for a, b in zip(plain.frames, video.frames))
    (hole,) = video.rockfalls
    k = len(plain.boards)  # the rockfall's move
    assert hole in video.boards[k - 1] and hole not in video.boards[k]
    gone = video.frames[video.commits[k - 1]]
    assert not gone.hand and hole not in gone.cells
    assert any(f.hand for f in video.frames[video.commits[k - 2]:video.commits[k - 1]])  # a hand took it
    refill = video.placements[-1]
    assert refill.cell == hole and video.boards[k].check(refill).legal
    assert video.boards[-1].at(hole) == refill and len(video.boards) == len(video.placements) + 2


def test_deck_sheet_photo_still_works():
    img = deck_sheet_photo(0, ["cross", "t-nes"], FOREIGN_EDITION, np.random.default_rng(0), out_size=(400, 300))
    assert img.shape == (300, 400, 3) and img.dtype == np.uint8
    sheets = deck_sheet_photos(FOREIGN_EDITION, np.random.default_rng(0))
    assert len(sheets) == 3 and all(sheet.shape == (1200, 1600, 3) for sheet in sheets)  # 20 base faces, 8 a sheet


@pytest.mark.parametrize("style", [FOREIGN_EDITION, None])
def test_a_printing_given_lays_every_card_in_it_never_mixed_with_others(style):
    # the foreign printing's sandy rock against the trained styles' blue-grey: the median hue
    # of each path card's coloured pixels (OpenCV's half degrees)
    s = table_scene(np.random.default_rng(5), size=(1280, 720), style=style,
                    options=SceneOptions(p_mixed_style=1.0, p_hand=0.0, p_crosswise=0.0, p_glare=0.0, p_cropped=0.0))
    hsv = cv2.cvtColor(s.image, cv2.COLOR_BGR2HSV)
    hues = []
    for cell in set(s.cells) - set(GOAL_CELLS) - {START_CELL}:
        quad = apply_homography(s.image_from_maze, np.asarray(cell, float) + 0.6 * CELL_CORNERS)
        inside = np.zeros(hsv.shape[:2], np.uint8)
        cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 255)
        coloured = hsv[(inside > 0) & (hsv[..., 1] > 40)]
        if len(coloured):
            hues.append(float(np.median(coloured[:, 0])))
    if style is None:  # several printings mixed, as the option says
        assert max(hues) - min(hues) > 40
    else:
        assert len(hues) >= 10 and max(hues) - min(hues) < 5



def test_a_wide_lens_shows_the_table_beyond_the_pinholes_frame_not_a_mirror_of_it():
    # a barrel lens sees further out than a pinhole of its focal length: a frame corner sees
    # `barrel` of the half diagonal further out. An ideal photo of only the frame's size left
    # the photo's edges showing its own edge mirrored (cards where none lies, and the cards
    # truly there missing); each photo pixel must show the ideal pixel the lens maps it to.
    camera = SceneCamera((320, 180), np.eye(3), 0.2, 0.0, 0.0, 300.0)
    mx, my = camera.margin
    width, height = camera.ideal_size
    assert mx >= 0.2 * 160 and my >= 0.2 * 90
    # an ideal photo whose pixels say where they lie (ideal x and y, scaled into 0..1)
    xs, ys = np.meshgrid(np.arange(width) - mx, np.arange(height) - my)
    ideal = np.dstack([(xs + 64) / 512, (ys + 64) / 512, np.zeros_like(xs)]).astype(np.float32)
    photo = _Sensor(blur=0.0, noise=0.0, jpeg=100).photograph(ideal, camera, np.random.default_rng(0))
    corners = np.array([(0, 0), (319, 0), (0, 179), (319, 179), (0, 90), (160, 0)], float)
    undistorted = corners + (corners - camera.centre) * 0.2 * (
        np.sum((corners - camera.centre) ** 2, axis=1, keepdims=True) / camera.radius ** 2)
    shown = photo[corners[:, 1].astype(int), corners[:, 0].astype(int), :2] / 255 * 512 - 64
    assert np.allclose(shown, undistorted, atol=4)  # a level of 8 bits is 2 pixels here, and JPEG
    assert undistorted[0, 0] < -20  # beyond the pinhole's frame, where a mirror would show +20
