"""The demo's simulated table: a webcam fixed above a felt, the maze's cards, a hand laying them.

Pictures are drawn on demand, one frame at a time, so the demo starts at once and a round
can last as long as the game needs. The card faces come from ``vision.cardart`` (the
renderer the classifier was trained on); everything else here is deliberately plain: a
camera looking nearly straight down at the whole field of play, soft light, sensor noise.
The point of the demo is the real pipeline reading a believable table, not a hard one.

Coordinates: the table plane in millimetres, X toward the goals and Y north, the maze cell
(x, y) centred at (x, y) times the pitch, as in ``vision.scenes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.board import Cell
from engine.catalogue import default_catalogue
from vision.cardart import CARD_MM, CardStyle, draw_face_rgba

GAP_MM = 1.5
PITCH_MM = (CARD_MM[0] + GAP_MM, CARD_MM[1] + GAP_MM)
# The cells the demo's maze may use (x0, x1, y0, y1): the start, the goals and room around
# them, all of it kept in the picture.
FIELD = (-1, 8, -2, 2)
# Skin that the grid stage recognises as a hand (YCrCb well inside its skin range).
SKIN_BGR = (112, 146, 204)
NOISE_FIELDS = 4  # sensor noise is drawn once and cycled: fresh noise each frame costs more than the pipeline

Content = tuple[str, int]  # (face, rotation)


@dataclass(frozen=True)
class Hand:
    """A hand over the table: where its palm is (mm), the direction it reaches in from
    (radians, table frame), and the card it holds, if any, with the card's pose."""

    palm_mm: tuple[float, float]
    from_angle: float
    card: Content | None = None
    card_cell: Cell | None = None
    card_mm: tuple[float, float] | None = None
    card_angle_deg: float = 0.0


class SimulatedTable:
    """Draws frames of the table: ``picture(cards, hand)``."""

    def __init__(self, rng: np.random.Generator, size: tuple[int, int] = (1280, 720)):
        self.rng = rng
        self.size = size
        self.style = CardStyle.reference()
        self.catalogue = default_catalogue()
        self.plane_to_image = _camera(rng, size)
        self._px_per_mm = _scale_at(self.plane_to_image, _field_centre_mm())
        self._lamp = _lamp(size)
        self._felt = _felt(rng, size, self._lamp)
        self._noise = [rng.normal(0, 2.2, (size[1], size[0], 1)).astype(np.float32) for _ in range(NOISE_FIELDS)]
        self._frame_count = 0
        self._poses: dict[Cell, tuple[tuple[float, float], float]] = {}
        self._sprites: dict[tuple[Cell, str, int], np.ndarray] = {}
        self._bases: dict[frozenset, np.ndarray] = {}

    # ------------------------------------------------------------------ geometry

    def cell_mm(self, cell: Cell) -> tuple[float, float]:
        return (cell[0] * PITCH_MM[0], cell[1] * PITCH_MM[1])

    def pose(self, cell: Cell) -> tuple[tuple[float, float], float]:
        """Where the card on ``cell`` lies: a hand never lays a card exactly on its place."""
        if cell not in self._poses:
            x, y = self.cell_mm(cell)
            jitter = self.rng.uniform(-2.0, 2.0, 2)
            self._poses[cell] = ((x + jitter[0], y + jitter[1]), float(self.rng.uniform(-1.5, 1.5)))
        return self._poses[cell]

    def edge_mm(self, from_angle: float) -> tuple[float, float]:
        """A point beyond the edge of the picture in the direction ``from_angle``."""
        cx, cy = _field_centre_mm()
        reach = 900.0
        return (cx + reach * math.cos(from_angle), cy + reach * math.sin(from_angle))

    # ------------------------------------------------------------------ drawing

    def picture(self, cards: dict[Cell, Content], hand: Hand | None = None) -> np.ndarray:
        """One frame (uint8 BGR) of the table with ``cards`` on their cells and maybe a hand."""
        image = self._base(cards).copy()
        if hand is not None:
            if hand.card is not None:
                sprite = self._sprite(hand.card_cell, *hand.card)
                self._paste(image, sprite, hand.card_mm, hand.card_angle_deg)
            self._draw_hand(image, hand)
        image += self._noise[self._frame_count % NOISE_FIELDS]
        self._frame_count += 1
        return np.clip(image, 0, 255).astype(np.uint8)

    def _base(self, cards: dict[Cell, Content]) -> np.ndarray:
        key = frozenset(cards.items())
        base = self._bases.get(key)
        if base is None:
            base = self._felt.copy()
            for cell, content in sorted(cards.items()):
                centre, angle = self.pose(cell)
                self._paste(base, self._sprite(cell, *content), centre, angle)
            if len(self._bases) > 8:  # only the last few tables come back (a card laid, then taken back)
                self._bases.pop(next(iter(self._bases)))
            self._bases[key] = base
        return base

    def _sprite(self, cell: Cell, face: str, rotation: int) -> np.ndarray:
        key = (cell, face, rotation)
        if key not in self._sprites:
            width = math.ceil(self._px_per_mm * CARD_MM[0] * 1.4)
            size = (width, round(width * CARD_MM[1] / CARD_MM[0]))
            self._sprites[key] = draw_face_rgba(self.catalogue.face(face), rotation, self.style, self.rng, size)
        return self._sprites[key]

    def _paste(self, image: np.ndarray, sprite: np.ndarray, centre_mm, angle_deg: float) -> None:
        h, w = sprite.shape[:2]
        sprite_to_card = np.array([[CARD_MM[0] / w, 0, -CARD_MM[0] / 2],
                                   [0, -CARD_MM[1] / h, CARD_MM[1] / 2], [0, 0, 1.0]])
        a = math.radians(angle_deg)
        card_to_plane = np.array([[math.cos(a), -math.sin(a), centre_mm[0]],
                                  [math.sin(a), math.cos(a), centre_mm[1]], [0, 0, 1.0]])
        to_image = self.plane_to_image @ card_to_plane @ sprite_to_card
        corners = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), to_image)[0]
        x0, y0 = np.maximum(np.floor(corners.min(0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(corners.max(0)).astype(int) + 3, self.size)
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        warped = cv2.warpPerspective(sprite, shift @ to_image, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)).astype(np.float32)
        alpha = warped[..., 3] / 255.0
        shade = cv2.GaussianBlur(alpha, (0, 0), 1.5)[..., None]
        alpha = alpha[..., None]
        roi = image[y0:y1, x0:x1]
        roi *= 1 - 0.35 * shade * (1 - alpha)  # a hair of shadow along the card's edge
        roi[:] = roi * (1 - alpha) + warped[..., :3] * alpha * self._lamp[y0:y1, x0:x1]

    def _draw_hand(self, image: np.ndarray, hand: Hand) -> None:
        """A flat hand reaching in from the table's edge: palm, four fingers, thumb and arm,
        skin-coloured and smooth (as the grid stage expects of a hand), with its shadow."""
        to_image = self.plane_to_image
        ppm = self._px_per_mm
        palm = _project(to_image, hand.palm_mm)
        edge = _project(to_image, self.edge_mm(hand.from_angle))
        d = palm - edge
        d /= max(np.linalg.norm(d), 1e-6)
        n = np.array([-d[1], d[0]])
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.line(mask, _pt(edge), _pt(palm), 255, int(70 * ppm), cv2.LINE_AA)
        cv2.ellipse(mask, _pt(palm), (int(42 * ppm), int(52 * ppm)), math.degrees(math.atan2(d[1], d[0])),
                    0, 360, 255, -1, cv2.LINE_AA)
        for i, length in enumerate((62, 72, 70, 56)):
            base = palm + d * 38 * ppm + n * (i - 1.5) * 17 * ppm
            tip = base + (d + n * (i - 1.5) * 0.1) * length * ppm
            cv2.line(mask, _pt(base), _pt(tip), 255, max(2, int(16 * ppm)), cv2.LINE_AA)
        thumb = palm + n * 36 * ppm
        cv2.line(mask, _pt(thumb), _pt(thumb + (n * 0.7 + d * 0.7) * 50 * ppm), 255, max(2, int(18 * ppm)), cv2.LINE_AA)
        soft = cv2.GaussianBlur(mask, (0, 0), 1.2).astype(np.float32)[..., None] / 255.0
        shadow = cv2.warpAffine(soft, np.float32([[1, 0, 18 * ppm], [0, 1, 24 * ppm]]), self.size)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 9 * ppm)[..., None]
        image *= 1 - 0.45 * shadow * (1 - soft)
        shading = self._lamp * (0.92 + 0.08 * soft)
        image[:] = image * (1 - soft) + np.float32(SKIN_BGR) * shading * soft


def _pt(p) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def _project(h: np.ndarray, point_mm) -> np.ndarray:
    return cv2.perspectiveTransform(np.float32([[point_mm]]), h)[0, 0].astype(np.float64)


def _field_centre_mm() -> tuple[float, float]:
    x0, x1, y0, y1 = FIELD
    return ((x0 + x1) / 2 * PITCH_MM[0], (y0 + y1) / 2 * PITCH_MM[1])


def _scale_at(h: np.ndarray, point_mm) -> float:
    p = np.array(point_mm, float)
    a, b, c = (_project(h, q) for q in (p, p + (1, 0), p + (0, 1)))
    return math.sqrt(abs(np.linalg.det(np.stack([b - a, c - a], 1))))


def _camera(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Table millimetres -> pixels for a webcam nearly straight above the field of play:
    the field fills most of the picture's height, turned a little, seen a little askew."""
    w, h = size
    x0, x1, y0, y1 = FIELD
    half_w = (x1 - x0 + 1) / 2 * PITCH_MM[0] + 30
    half_h = (y1 - y0 + 1) / 2 * PITCH_MM[1] + 30
    cx, cy = _field_centre_mm()
    scale = 0.95 * min(w / (2 * half_w), h / (2 * half_h))
    turn = math.radians(rng.uniform(-3, 3))
    keystone = rng.uniform(0.03, 0.06)  # the far side looks a little narrower: a slight tilt
    table = np.float32([[cx - half_w, cy + half_h], [cx + half_w, cy + half_h],
                        [cx + half_w, cy - half_h], [cx - half_w, cy - half_h]])
    quad = []
    for (sx, sy) in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        squeeze = 1 - keystone if sy < 0 else 1.0
        px, py = sx * half_w * scale * squeeze, sy * half_h * scale
        quad.append((w / 2 + px * math.cos(turn) - py * math.sin(turn), h / 2 + px * math.sin(turn) + py * math.cos(turn)))
    return cv2.getPerspectiveTransform(table, np.float32(quad))


def _lamp(size: tuple[int, int]) -> np.ndarray:
    """The light over the table (a factor per pixel): brightest a little right of centre."""
    w, h = size
    gx, gy = np.meshgrid(np.linspace(-1, 1, w, dtype=np.float32), np.linspace(-1, 1, h, dtype=np.float32))
    return (1.04 - 0.1 * (gx * gx + gy * gy) + 0.04 * gx)[..., None]


def _felt(rng: np.random.Generator, size: tuple[int, int], lamp: np.ndarray) -> np.ndarray:
    """A plain green table cloth: smooth, so only the cards look busy."""
    w, h = size
    blotches = cv2.resize(rng.normal(0, 1, (9, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return np.float32([52, 88, 40]) * (lamp + 0.03 * blotches[..., None])
