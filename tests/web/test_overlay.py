"""The table screen's camera picture with the grid drawn over it."""

import numpy as np
import pytest

from companion_web.overlay import draw_overlay
from vision.grid import Lattice
from vision.observation import Observation, SeenCard, Unsure


@pytest.mark.parametrize("row", [-20, -40])
def test_a_cell_reported_beyond_the_frames_edge_draws_nothing_even_across_the_horizon(row):
    # The pipeline reports the maze's cells beyond the frame's edge (a card may lie there).
    # Under a steep enough view one lies across the table's horizon: its corners on either
    # side project to opposite ends of the plane, and its outline drew a line across the picture.
    image_from_maze = np.array([[60.0, 0, 400], [0, -60, 300], [0, 0.05, 1]])  # the horizon at maze y = -20
    lattice = Lattice(image_from_maze, (800, 600), frozenset({(0, 0), (1, 0)}))
    frame = np.zeros((600, 800, 3), np.uint8)
    cards = [SeenCard(0, 0, "start", 0, 1.0), SeenCard(1, 0, "straight-ew", 0, 1.0)]
    alone = draw_overlay(frame, lattice, Observation(cards=cards))
    beyond = draw_overlay(frame, lattice, Observation(cards=cards, uncertain=[Unsure(2, row, "out-of-view")]))
    assert alone.any() and np.array_equal(beyond, alone)
