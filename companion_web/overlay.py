"""The camera picture for the table screen: the frame with the recognised grid drawn over it.

Each cell the pipeline looked at gets its outline: green where a card was read, amber where
the reading is uncertain (a hand, low confidence), red where the engine refused the card
laid there. The picture is what the camera sees of the physical table and nothing else:
no goal secret can be in it, because the physical goals are face-down placeholders.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.grid import Lattice
from vision.observation import MAYBE_EMPTY, Observation

Cell = tuple[int, int]

GREEN = (90, 200, 70)
AMBER = (20, 170, 245)
RED = (60, 60, 230)
FAINT = (170, 170, 170)
MAX_WIDTH = 960  # the table screen shows the picture at most this wide; sending more only costs bandwidth
JPEG_QUALITY = 75


def draw_overlay(frame: np.ndarray, lattice: Lattice | None, observation: Observation | None,
                 refused: set[Cell] = frozenset()) -> np.ndarray:
    """A copy of ``frame`` (shrunk to at most MAX_WIDTH) with the grid and each cell's state."""
    scale = min(1.0, MAX_WIDTH / frame.shape[1])
    picture = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame.copy()
    if lattice is None or observation is None:
        return picture
    read = {card.cell for card in observation.cards}
    # a cell read unsurely as bare table holds no card seen: it is drawn as the table is
    # (and one wholly outside the frame, as the maze's cells beyond its edge are, shows nothing:
    # far off, its corners may lie beyond the horizon)
    uncertain = {u.cell for u in observation.uncertain if u.reason != MAYBE_EMPTY and lattice.share_in_view(u.cell) > 0}
    thickness = max(1, round(2 * scale + 0.5))
    # Faint lines first, so a coloured outline is never hidden under a neighbour's grey one.
    for cell in sorted(lattice.cells - read - uncertain - set(refused)):
        _outline(picture, lattice, cell, scale, FAINT, 1)
    for cells, colour in ((read - set(refused), GREEN), (uncertain - set(refused), AMBER), (set(refused), RED)):
        for cell in sorted(cells):
            _outline(picture, lattice, cell, scale, colour, thickness)
    return picture


def _outline(picture: np.ndarray, lattice: Lattice, cell: Cell, scale: float, colour, thickness: int) -> None:
    quad = np.round(lattice.quad(cell) * scale * 16).astype(np.int32)  # 4 bits of sub-pixel precision
    cv2.polylines(picture, [quad], True, colour, thickness, cv2.LINE_AA, shift=4)


def encode_jpeg(picture: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("the picture could not be encoded as JPEG")
    return data.tobytes()
