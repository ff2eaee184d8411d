"""The table stage: the plane from a calibration exactly, from the cards roughly.

The markerless plane is the grid stage's starting point, not its answer (the lattice fit
refines the perspective), so its tests ask what the grid relies on: the card edges run
along the plane's axes, the view is a usable top-down picture, the quality says how far
to trust it, and a picture without cards is refused in words.
"""

import math

import cv2
import numpy as np
import pytest

from vision.scenes import table_scene
from vision.table import (
    TableError,
    apply_homography,
    card_texture,
    comb_support,
    direction_pair,
    direction_pairs,
    find_plane,
    isolated_cards,
    plane_from_calibration,
    texture_threshold,
)

from .conftest import sheet_calibration

SIZE = (1280, 720)


def test_a_calibration_gives_the_plane_exactly_and_a_view_of_the_table():
    scene = table_scene(np.random.default_rng(1), size=SIZE)
    plane = plane_from_calibration(scene.image, sheet_calibration(scene))
    cells = np.array(list(scene.cells), float)
    centres = apply_homography(scene.image_from_maze, cells)
    assert np.allclose(plane.to_plane(centres), cells * scene.pitch_mm, atol=1e-6)
    assert plane.source == "calibration" and not plane.cards_aligned and plane.quality > 0.9
    # the view shows the table top-down at its scale: a card is 57 mm at px_per_mm
    view = plane.view
    start = view.to_view(np.array([[0, 0], [57, 0]], float))
    assert abs(np.linalg.norm(start[1] - start[0]) - 57 * view.px_per_mm) < 1e-6
    assert view.image.shape[0] > 50 and view.image.shape[1] > 50


def test_a_calibration_from_another_resolution_is_rescaled():
    scene = table_scene(np.random.default_rng(2), size=SIZE)
    half = cv2.resize(scene.image, (SIZE[0] // 2, SIZE[1] // 2), interpolation=cv2.INTER_AREA)
    plane = plane_from_calibration(half, sheet_calibration(scene))
    centre = apply_homography(scene.image_from_maze, [(0, 0)])[0]
    assert np.allclose(plane.to_plane([(centre + 0.5) / 2 - 0.5]), [[0, 0]], atol=1.5)


def axes_error_deg(scene, plane) -> float:
    """How far (degrees, mod 90) the maze's x direction lies from the plane's axes."""
    a, b = plane.to_plane(apply_homography(scene.image_from_maze, [(0, 0), (4, 0)]))
    angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
    return abs((angle + 45) % 90 - 45)


def test_without_markers_the_card_edges_run_along_the_plane_axes():
    aligned = 0
    for seed in range(10):
        scene = table_scene(np.random.default_rng(seed), size=SIZE, hand=False)
        plane = find_plane(scene.image)
        assert 0.0 <= plane.quality <= 1.0 and plane.cards_aligned and plane.source == "cards"
        assert plane.view.image.ndim == 3 and min(plane.view.image.shape[:2]) > 20
        aligned += axes_error_deg(scene, plane) < 4.0
    assert aligned >= 7


def test_a_picture_without_cards_is_refused_in_words():
    rng = np.random.default_rng(0)
    blank = np.clip(rng.normal(120, 3, (360, 640, 3)), 0, 255).astype(np.uint8)
    with pytest.raises(TableError, match="card"):
        find_plane(blank)


def test_card_texture_marks_card_art_and_lone_cards_give_their_size():
    image = np.full((300, 400), 110, np.uint8)
    rng = np.random.default_rng(3)
    card = rng.integers(40, 230, (88, 57)).astype(np.uint8)  # busy like card art
    image[100:188, 150:207] = cv2.GaussianBlur(card, (3, 3), 0)
    texture = card_texture(image)
    busy = texture > texture_threshold(texture)
    assert busy[110:178, 160:197].mean() > 0.9 and busy[:80].mean() < 0.05
    (short, long_), = isolated_cards(image)
    assert abs(short - 57) < 4 and abs(long_ - 88) < 5


def test_a_comb_of_edges_picks_the_pitch_not_its_half_or_double():
    pitch = 23.0
    boundaries = np.arange(10) * pitch + 5.0
    walls = np.concatenate([boundaries + 0.34 * pitch, boundaries + 0.66 * pitch])  # weaker tunnel walls
    positions = np.concatenate([boundaries, walls])
    weights = np.concatenate([np.full(len(boundaries), 3.0), np.full(len(walls), 1.0)])
    periods = np.array([pitch / 3, pitch / 2, pitch, 2 * pitch])
    score, phase = comb_support(positions, weights, periods)
    assert int(np.argmax(score)) == 2
    assert abs((phase[2] - 5.0 + pitch / 2) % pitch - pitch / 2) < 1.0


def test_direction_pairs_are_the_best_pair_then_the_next_distinct_ones():
    """Segments along 0 and 90 degrees (the most length), 45 and 135 (less), and a few
    within a degree or two of the first pair: the pairs come best first, the first being
    direction_pair's, and a pair near one given already is not given again."""
    def segments(angle_deg, count, length=20.0):
        a = math.radians(angle_deg)
        starts = np.outer(np.arange(count, dtype=float), (7.0, 7.0))  # spread along the diagonal
        return np.hstack([starts, starts + length * np.array([[math.cos(a), math.sin(a)]])])

    seg = np.vstack([segments(0, 12), segments(90, 10), segments(1.5, 3), segments(91, 3),
                     segments(45, 6), segments(135, 5)])
    pairs = direction_pairs(seg, 3)
    assert pairs[0] == direction_pair(seg)
    assert len(pairs) == 3
    found = [sorted(round(a) % 180 for a in pair[:2]) for pair in pairs[:2]]
    assert found[0] in ([0, 90], [1, 90], [0, 91], [1, 91]) and found[1] in ([45, 135], [44, 135], [45, 134])
    assert pairs[0][2] >= pairs[1][2] >= pairs[2][2]
