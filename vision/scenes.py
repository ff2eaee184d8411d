"""Synthetic photos with known ground truth, for tests and benchmarks.

``deck_sheet_photo``: a deck-calibration sheet with cards of a given style on its slots,
seen by a tilted camera under uneven light.

``table_scene``: a whole table in front of a webcam. The maze is a random *legal* maze
grown with the engine (start, three face-down goals, then path cards from the deck at
places ``Board.legal_placements`` allows), so every picture is a position that can happen
in a game. It is laid out physically, in millimetres: portrait cards 57 x 88 mm at a pitch
of card + gap, each card a little off its place, then photographed by a pinhole camera
(any turn about the vertical, tilted up to 25 degrees) with a mild barrel lens, focus
blur, noise and JPEG. Around the maze lie what a real table holds: the draw pile, loose
cards in front of the players, maybe a hand reaching over the maze, maybe a card laid
crosswise. ``Scene`` carries the exact truth the vision stages are judged against.

``table_video``: a game being played in front of a fixed camera: between placements a
hand brings the next card in, lays it and withdraws; the truth follows every frame.

Conventions: the table plane is measured in millimetres with X toward the goals (maze x)
and Y north (maze y), the maze cell (x, y) centred at (x * pitch_x, y * pitch_y). Image
pixel centres sit at integer coordinates, as in OpenCV. Every random choice comes from
the caller's generator, so a seed gives the same picture, whatever ran before.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.board import Board, Cell, Placement
from engine.catalogue import default_catalogue
from vision import augment, cardart
from vision.cardart import CARD_MM, CardStyle, draw_face
from vision.printed import PrintedDeck

# A printing deliberately unlike every trained style: sandy brown rock, yellowed narrow
# tunnels, heavy walls. Used to show what deck calibration buys.
FOREIGN_EDITION = CardStyle(rock_hue=32.0, rock_saturation=0.32, rock_lightness=0.46, wash=0.2, wall_darkness=0.85,
                            wall_width=0.06, ink_darkness=0.9, ink_warmth=0.9, tunnel_whiteness=0.9,
                            tunnel_cream=0.45, tunnel_width=0.22, waviness=0.9, border=True,
                            border_colour=(60, 90, 120), border_width=0.05, decoration_prob=0.2)


def _camera(image: np.ndarray, rng: np.random.Generator, out_size: tuple[int, int], tilt: float = 0.12) -> np.ndarray:
    """Place ``image`` on a table and photograph it: perspective, light gradient, blur, noise, JPEG."""
    h, w = image.shape[:2]
    out_w, out_h = out_size
    table = np.empty((out_h, out_w, 3), np.float32)
    table[:] = rng.uniform(40, 110, 3)
    scale = min(out_w / w, out_h / h) * rng.uniform(0.75, 0.9)
    cx, cy = out_w / 2 + rng.uniform(-0.05, 0.05) * out_w, out_h / 2 + rng.uniform(-0.05, 0.05) * out_h
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        jitter = 1 + rng.uniform(-tilt, tilt)
        dst.append([cx + sx * w * scale / 2 * jitter, cy + sy * h * scale / 2 * jitter])
    warp = cv2.getPerspectiveTransform(src, np.float32(dst))
    seen = cv2.warpPerspective(image.astype(np.float32), warp, (out_w, out_h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((h, w), np.float32), warp, (out_w, out_h))[..., None]
    photo = table * (1 - mask) + seen * mask
    gx, gy = np.meshgrid(np.linspace(-1, 1, out_w), np.linspace(-1, 1, out_h))
    light = 1 + 0.25 * (rng.uniform(-1, 1) * gx + rng.uniform(-1, 1) * gy)
    photo = photo * light[..., None] * rng.uniform(0.85, 1.1, 3)
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.5, 1.2))
    photo += rng.normal(0, 3, photo.shape)
    ok, jpeg = cv2.imencode(".jpg", np.clip(photo, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def deck_sheet_photos(style: CardStyle, rng: np.random.Generator, sets: tuple[str, ...] = ("base",)) -> list[np.ndarray]:
    """A photo of every deck sheet of ``sets`` with the cards of a printing in ``style`` on
    them: what ``tunnelvision calibrate-deck`` is given."""
    from calibration.deck import SLOTS, deck_faces

    faces = deck_faces(default_catalogue(), sets)
    return [deck_sheet_photo(page, faces, style, rng) for page in range((len(faces) + SLOTS - 1) // SLOTS)]


def deck_sheet_photo(page: int, faces: list[str], style: CardStyle, rng: np.random.Generator,
                     out_size: tuple[int, int] = (1600, 1200)) -> np.ndarray:
    """A photo of deck sheet ``page`` with a card of ``style`` on each slot (``faces`` as the sheet lists)."""
    from calibration.deck import CARD_MM, SLOTS, render_deck_sheet, slot_centre

    dpi = 120
    px = dpi / 25.4
    on_page = faces[page * SLOTS:(page + 1) * SLOTS]
    sheet = cv2.cvtColor(render_deck_sheet(page, on_page, dpi), cv2.COLOR_GRAY2BGR)
    catalogue = default_catalogue()
    card_px = (round(CARD_MM[0] * px), round(CARD_MM[1] * px))
    for slot, face in enumerate(on_page):
        card = draw_face(catalogue.face(face), 0, style, rng, size=card_px)
        cx, cy = slot_centre(slot)
        # the user lays the card by hand: a millimetre or two off, a degree or two turned
        cx, cy = cx + rng.uniform(-1.2, 1.2), cy + rng.uniform(-1.2, 1.2)
        rot = cv2.getRotationMatrix2D((card_px[0] / 2, card_px[1] / 2), rng.uniform(-2, 2), 1.0)
        rot[:, 2] += (cx * px - card_px[0] / 2, cy * px - card_px[1] / 2)
        placed = cv2.warpAffine(card, rot, (sheet.shape[1], sheet.shape[0]), flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.full(card.shape[:2], 255, np.uint8), rot, (sheet.shape[1], sheet.shape[0]))
        sheet[mask > 127] = placed[mask > 127]
    return _camera(sheet, rng, out_size)


# =========================================================================== table scenes

GAME_SETS = {"saboteur": ("base",), "saboteur2": ("base", "saboteur2")}
GOAL_FACES = ("goal-gold", "goal-stone-nw", "goal-stone-ne")
# Cards are drawn at one of a few sizes (the renderer keeps noise banks per size), the
# smallest at least as fine as the card appears in the photo.
SPRITE_WIDTHS = (40, 56, 80, 112, 160, 224)
# A hand over more than this fraction of a cell hides the card: the cell is reported occluded.
OCCLUDED_FRACTION = 0.3
# Half the diagonal of a card: the radius a loose card at any angle may reach.
CARD_RADIUS_MM = 0.5 * math.hypot(*CARD_MM)
# Pixels the ideal photo reaches beyond what the lens shows of it: a camera shake's shift and
# the interpolation's neighbours.
IDEAL_PAD = 4
# Lattice cell corners in the maze frame, as seen with north up: NW, NE, SE, SW.
CELL_CORNERS = np.array([(-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)])


@dataclass(frozen=True)
class SceneOptions:
    """How wide reality may stray; the defaults are what the tests and the benchmark use.

    Lengths are millimetres on the table unless they say px (pixels of the photo).
    """

    gap_mm: tuple[float, float] = (0.0, 2.0)
    jitter_mm: float = 3.0  # each card off its lattice place by up to this, per axis
    jitter_deg: float = 3.0
    tilt_deg: float = 25.0
    hfov_deg: tuple[float, float] = (50.0, 75.0)
    fill: tuple[float, float] = (0.4, 0.9)  # the maze's share of the frame's width or height
    p_cropped: float = 0.15  # the maze runs over an edge of the frame
    barrel: float = 0.012  # largest lens k: a frame corner moves by k of the half diagonal
    p_mixed_style: float = 0.15  # cards from several printings instead of one deck
    style_split: str | None = None  # CardStyle.sample's split
    p_reveal: float = 0.1  # one goal turned over by hand (a map peek left face up) besides tunnels
    rockfalls: int = 0  # rockfalls after the maze grew: a path card taken away, its hole filled again or not
    p_hand: float = 0.3
    p_crosswise: float = 0.3
    p_draw_pile: float = 0.85
    loose_cards: tuple[int, int] = (1, 6)
    distractor_margin_mm: float = 35.0  # loose cards keep at least this far from the maze
    p_wear: float = 0.2
    blur_px: tuple[float, float] = (0.3, 1.2)
    noise: tuple[float, float] = (0.003, 0.02)
    jpeg_quality: tuple[int, int] = (55, 95)
    light: augment.Augment = field(default_factory=lambda: augment.Augment(
        light_gradient=0.45, p_glare=0.0, p_shadow=0.35))  # the lamp's gradient and shadows
    p_glare: float = 0.45  # glare spots, milder than a cell crop's (a whole card washed out reads as nothing)
    glare: tuple[float, float] = (0.08, 0.3)
    # the camera's gain per channel (BGR) against a right exposure and white balance, before
    # its sensor noise: 0.4 each is a photo taken in a dim room, (0.62, 1, 1.25) a warm lamp
    # with the white balance locked for daylight (``bench/vision.py --light``)
    camera_gains: tuple[float, float, float] = (1.0, 1.0, 1.0)


@dataclass(frozen=True, eq=False)
class CellTruth:
    """What lies on one maze cell and where the photo shows it.

    ``corners``: the lattice cell (card + gap) at its nominal place, NW, NE, SE, SW as seen
    in the maze frame, through the lens. ``card_corners``: the card as it actually lies
    (its own offset and turn), same order. ``visible``: the share of the cell in the frame.
    """

    face: str
    rotation: int
    corners: np.ndarray
    card_corners: np.ndarray
    visible: float


@dataclass(frozen=True, eq=False)
class SceneCamera:
    """A pinhole camera over the table with a one-parameter barrel lens.

    ``plane_to_image`` maps table millimetres to pixels of an ideal (undistorted) photo; the
    lens then moves a pixel at distance r from the centre inward: an undistorted point u and
    its distorted image d satisfy u = c + (d - c) * (1 + barrel * |d - c|^2 / R^2), R the
    half diagonal.
    """

    size: tuple[int, int]
    plane_to_image: np.ndarray
    barrel: float
    yaw_deg: float
    tilt_deg: float
    focal_px: float

    @property
    def centre(self) -> np.ndarray:
        return np.array([(self.size[0] - 1) / 2, (self.size[1] - 1) / 2])

    @property
    def radius(self) -> float:
        return 0.5 * math.hypot(*self.size)

    @property
    def margin(self) -> tuple[int, int]:
        """How far (pixels, across and down) the ideal photo reaches beyond the frame on each
        side. A barrel lens shows more of the table than a pinhole of its focal length: a
        frame corner sees ``barrel`` of the half diagonal further out. An ideal photo only
        the frame's size left the photo's edges to show its own edge mirrored: cards
        mirrored where none lies, and the cards truly there missing."""
        k = max(self.barrel, 0.0)
        return (math.ceil(k * self.size[0] / 2) + IDEAL_PAD, math.ceil(k * self.size[1] / 2) + IDEAL_PAD)

    @property
    def ideal_size(self) -> tuple[int, int]:
        """The ideal photo's size: the frame and its margin."""
        mx, my = self.margin
        return self.size[0] + 2 * mx, self.size[1] + 2 * my

    @property
    def frame_box(self) -> tuple[int, int, int, int]:
        """Where the frame lies in the ideal photo's array: (x, y, width, height)."""
        return (*self.margin, *self.size)

    @property
    def plane_to_ideal(self) -> np.ndarray:
        """Table millimetres -> pixels of the ideal photo's array (``plane_to_image`` moved by the margin)."""
        return _translation(*self.margin) @ self.plane_to_image

    def undistorted(self, points_mm) -> np.ndarray:
        return _apply(self.plane_to_image, points_mm)

    def distort(self, points_px) -> np.ndarray:
        """Ideal pixels -> pixels of the photo (through the lens)."""
        p = np.asarray(points_px, np.float64).reshape(-1, 2) - self.centre
        r_u = np.linalg.norm(p, axis=1) / self.radius
        r_d = r_u.copy()
        for _ in range(8):  # r_u = r_d (1 + k r_d^2), a contraction for a mild lens
            r_d = r_u / (1 + self.barrel * r_d * r_d)
        scale = np.where(r_u > 0, r_d / np.maximum(r_u, 1e-12), 1.0)
        return p * scale[:, None] + self.centre

    def project(self, points_mm) -> np.ndarray:
        return self.distort(self.undistorted(points_mm))

    def px_per_mm(self, point_mm) -> float:
        """The photo's local scale at a table point (the geometric mean of the two axes)."""
        p = np.asarray(point_mm, np.float64).reshape(2)
        q = self.undistorted(np.array([p, p + (1, 0), p + (0, 1)]))
        jac = np.stack([q[1] - q[0], q[2] - q[0]], 1)
        return math.sqrt(abs(np.linalg.det(jac)))


@dataclass(frozen=True, eq=False)
class Scene:
    """A synthetic table photo and its ground truth.

    ``cells``: maze cell -> CellTruth for every card of ``board`` (face-down goals as
    'goal-back'). ``crosswise``: cell -> image quad of a card laid crosswise there (never
    part of the board). ``occluded``: maze or crosswise cells a hand covers by more than
    OCCLUDED_FRACTION. ``distractors``: image quads of the cards off the maze (draw pile,
    loose cards). ``image_from_maze``: maze cell coordinates (cell (x, y) centred at (x, y),
    a cell 1 x 1) -> pixels, ignoring the lens and each card's own offset.
    """

    image: np.ndarray
    board: Board
    cells: dict[Cell, CellTruth]
    crosswise: dict[Cell, np.ndarray]
    occluded: frozenset[Cell]
    distractors: tuple[np.ndarray, ...]
    image_from_maze: np.ndarray
    pitch_mm: tuple[float, float]
    camera: SceneCamera
    style: CardStyle
    game: str
    hand: bool
    laid: tuple[Placement, ...]  # the path cards on the table in the order they were laid
    rockfalls: tuple[Cell, ...] = ()  # the cells rockfalls emptied after the maze grew (filled again or not)


@dataclass(frozen=True, eq=False)
class VideoFrame:
    """One frame of ``table_video`` and what it shows.

    ``committed``: index into ``TableVideo.boards`` of the board the table shows once the
    current move (if any) is over; ``cells``: the cards lying on lattice places in this frame
    (a card being laid counts from the moment it touches the table); ``hand``: a hand is in
    view; ``occluded``: cells the hand covers by more than OCCLUDED_FRACTION.
    """

    image: np.ndarray
    committed: int
    cells: dict[Cell, CellTruth]
    hand: bool
    occluded: frozenset[Cell]
    image_from_maze: np.ndarray


@dataclass(frozen=True, eq=False)
class TableVideo:
    """A game filmed by a fixed camera: ``boards[0]`` is the maze before the first move,
    ``boards[k]`` after the k-th move, which is complete (card down or taken away, hand gone)
    from frame ``commits[k - 1]`` on. ``placements``: the cards laid, in order; ``rockfalls``:
    the cells rockfalls emptied, in order."""

    frames: list[VideoFrame]
    boards: list[Board]
    placements: list[Placement]
    commits: list[int]
    pitch_mm: tuple[float, float]
    camera: SceneCamera
    rockfalls: list[Cell] = field(default_factory=list)


# --------------------------------------------------------------------------- geometry helpers


def _apply(h: np.ndarray, points) -> np.ndarray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ np.asarray(h, np.float64).T
    return q[:, :2] / q[:, 2:3]


def _translation(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1]])


def _pose(centre_mm, angle_deg: float) -> np.ndarray:
    """Card frame (mm from the card's centre, y north) -> table mm."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, centre_mm[0]], [s, c, centre_mm[1]], [0, 0, 1]])


def _sprite_to_card(w: int, h: int) -> np.ndarray:
    """Sprite pixels (north at the top row, pixel centres at integers) -> card mm, y north."""
    sx, sy = CARD_MM[0] / w, CARD_MM[1] / h
    return np.array([[sx, 0, 0.5 * sx - CARD_MM[0] / 2], [0, -sy, CARD_MM[1] / 2 - 0.5 * sy], [0, 0, 1]])


def _card_outline(centre_mm, angle_deg: float) -> np.ndarray:
    """A card's corners on the table, NW NE SE SW of the card itself."""
    half = np.array(CARD_MM) / 2
    return _apply(_pose(centre_mm, angle_deg), CELL_CORNERS * 2 * half)


def maze_to_plane(pitch_mm: tuple[float, float]) -> np.ndarray:
    return np.diag([pitch_mm[0], pitch_mm[1], 1.0])


# --------------------------------------------------------------------------- the maze


def grow_maze(rng: np.random.Generator, n_cards: int, game: str = "saboteur") -> tuple[Board, list[Placement]]:
    """A legal maze: the standard layout, then up to ``n_cards`` path cards from a shuffled
    deck, each at a place (and rotation) drawn from ``Board.legal_placements``. Goals the
    tunnels reach are turned over as in play; growth stops when the gold is reached.
    Returns the board and the placements in the order they were made."""
    goals, laid = _grow(rng, n_cards, game)
    return _replay(goals, laid), laid


def _grow(rng: np.random.Generator, n_cards: int, game: str) -> tuple[list[str], list[Placement]]:
    if game not in GAME_SETS:
        raise ValueError(f"unknown game {game!r}: choose saboteur or saboteur2")
    catalogue = default_catalogue()
    goals = [GOAL_FACES[i] for i in rng.permutation(len(GOAL_FACES))]
    board = Board.standard(goals, catalogue)
    deck = [f.id for f in catalogue.path_faces(GAME_SETS[game]) for _ in range(f.copies)]
    laid: list[Placement] = []
    # a card with no legal place when drawn goes back and is tried again in a second pass;
    # no face is laid more often than the deck has copies, as at a real table (the reading
    # uses the copy counts as a prior)
    for _ in range(2):
        left = []
        for i in rng.permutation(len(deck)):
            if len(laid) >= n_cards or board.gold_reached:
                return goals, laid
            options = board.legal_placements(deck[i])
            if options:
                placement = options[int(rng.integers(len(options)))]
                board.put(placement)
                laid.append(placement)
            else:
                left.append(deck[i])
        deck = left
    return goals, laid


def _replay(goals: list[str], laid: list[Placement]) -> Board:
    board = Board.standard(goals)
    for placement in laid:
        board.put(placement)
    return board


def _rockfall(rng: np.random.Generator, board: Board) -> Placement | None:
    """A rockfall on ``board`` (changed in place): a path card drawn at random taken away,
    the cards beyond it left lying, cut off. None when there is no path card."""
    path = [p for p in board.placements() if board.catalogue.face(p.face).is_path]
    if not path:
        return None
    gone = path[int(rng.integers(len(path)))]
    board.remove(gone.cell)
    return gone


def _laid_in_hole(rng: np.random.Generator, board: Board, hole: Cell, game: str) -> Placement | None:
    """A card laid in the hole a rockfall left: one the deck still holds (no face more often
    than its copies) that fits there by the rules, drawn at random; None when none fits."""
    used = Counter(p.face for p in board.placements())
    faces = [f.id for f in default_catalogue().path_faces(GAME_SETS[game]) if used[f.id] < f.copies]
    fits = [p for face in faces for p in board.legal_placements(face) if p.cell == hole]
    return fits[int(rng.integers(len(fits)))] if fits else None


def _reveal_one_goal(rng: np.random.Generator, board: Board) -> None:
    """A goal left face up after a peek (some tables play that way): any rotation."""
    hidden = sorted(board.hidden_goals)
    if hidden:
        cell = hidden[int(rng.integers(len(hidden)))]
        board.reveal(cell, rotation=int(rng.choice([0, 180])))


def _maze_cards(board: Board) -> dict[Cell, tuple[str, int]]:
    return {p.cell: (p.face, p.rotation) for p in board.placements()}


# --------------------------------------------------------------------------- the camera


def _camera_rotation(yaw: float, tilt: float, tilt_dir: float) -> np.ndarray:
    """World -> camera rotation: looking straight down with the image's x axis along the
    table direction ``yaw``, then tilted by ``tilt`` about an image-plane axis."""
    c, s = math.cos(yaw), math.sin(yaw)
    nadir = np.array([[c, s, 0.0], [s, -c, 0.0], [0.0, 0.0, -1.0]])
    axis = np.array([math.cos(tilt_dir), math.sin(tilt_dir), 0.0]) * tilt
    return cv2.Rodrigues(axis)[0] @ nadir


def _plane_to_image(rotation: np.ndarray, focal: float, size, target_mm, distance: float) -> np.ndarray:
    k = np.array([[focal, 0, (size[0] - 1) / 2], [0, focal, (size[1] - 1) / 2], [0, 0, 1]])
    centre = np.array([target_mm[0], target_mm[1], 0.0]) - distance * rotation.T @ np.array([0, 0, 1.0])
    h = k @ np.column_stack([rotation[:, 0], rotation[:, 1], -rotation @ centre])
    return h / h[2, 2]


def _frame_maze(rng, opts: SceneOptions, size, maze_mm: np.ndarray, card_px_hint: float) -> SceneCamera:
    """A camera that sees the maze (points ``maze_mm``) filling the asked share of the frame,
    placed anywhere in the frame's slack, sometimes running over one edge."""
    w, h = size
    yaw = rng.uniform(0, 2 * math.pi)
    tilt = math.radians(rng.uniform(0, opts.tilt_deg))
    tilt_dir = rng.uniform(0, 2 * math.pi)
    focal = (w / 2) / math.tan(math.radians(rng.uniform(*opts.hfov_deg)) / 2)
    fill = rng.uniform(*opts.fill)
    rotation = _camera_rotation(yaw, tilt, tilt_dir)
    target = (maze_mm.min(0) + maze_mm.max(0)) / 2
    distance = 1000.0
    for _ in range(5):  # the image shrinks about as 1/distance
        p = _apply(_plane_to_image(rotation, focal, size, target, distance), maze_mm)
        extent = max((p[:, 0].max() - p[:, 0].min()) / w, (p[:, 1].max() - p[:, 1].min()) / h)
        distance *= extent / fill
    frame = np.array([w, h], float)
    cropped = rng.random() < opts.p_cropped
    side = int(rng.integers(4))
    spill = rng.uniform(0.3, 1.2)
    slack_draw = rng.uniform(-0.85, 0.85, 2)
    for _ in range(4):  # slide the camera along the table until the maze sits where chosen
        hm = _plane_to_image(rotation, focal, size, target, distance)
        p = _apply(hm, maze_mm)
        lo, hi = p.min(0), p.max(0)
        slack = np.maximum(frame - (hi - lo), 0) / 2
        wanted = (frame - 1) / 2 + slack_draw * slack
        if cropped:  # one side of the maze beyond the edge by part of a card
            axis, half, over = side % 2, (hi - lo)[side % 2] / 2, spill * card_px_hint
            wanted[axis] = half - over if side < 2 else frame[axis] - 1 + over - half
        origin = _apply(hm, [target])[0]
        jac = np.stack([_apply(hm, [target + (1, 0)])[0] - origin, _apply(hm, [target + (0, 1)])[0] - origin], 1)
        target = target - np.linalg.solve(jac, wanted - (lo + hi) / 2)
    hm = _plane_to_image(rotation, focal, size, target, distance)
    barrel = rng.uniform(0, opts.barrel)
    return SceneCamera((int(w), int(h)), hm, barrel, math.degrees(yaw), math.degrees(tilt), focal)


def _footprint(camera: SceneCamera, reach_mm: float, around_mm) -> np.ndarray:
    """The table the frame shows, as a polygon in mm (clipped to ``reach_mm`` around a point)."""
    w, h = camera.size
    corners = np.array([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], float)
    poly = _apply(np.linalg.inv(camera.plane_to_image), corners)
    around = np.asarray(around_mm, float)
    return np.clip(poly, around - reach_mm, around + reach_mm)


# --------------------------------------------------------------------------- drawing


def _sprite_size(width_px: float) -> tuple[int, int]:
    w = next((s for s in SPRITE_WIDTHS if s >= 1.1 * width_px), SPRITE_WIDTHS[-1])
    return w, round(w * CARD_MM[1] / CARD_MM[0])


def _paste(image: np.ndarray, cover: np.ndarray, rgba: np.ndarray, sprite_to_image: np.ndarray,
           contact: float = 0.3) -> None:
    """Lay a card (BGRA sprite) into the ideal photo through its homography; a hair of
    contact shadow shows around it, as a real card's edge does."""
    hgt, wid = rgba.shape[:2]
    outline = _apply(sprite_to_image, [(-0.5, -0.5), (wid - 0.5, -0.5), (wid - 0.5, hgt - 0.5), (-0.5, hgt - 0.5)])
    ih, iw = image.shape[:2]
    x0, y0 = np.floor(outline.min(0)).astype(int) - 3
    x1, y1 = np.ceil(outline.max(0)).astype(int) + 4
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, iw), min(y1, ih)
    if x1 <= x0 or y1 <= y0:
        return
    m = _translation(-x0, -y0) @ sprite_to_image
    warped = cv2.warpPerspective(rgba, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3].astype(np.float32) * (1 / 255.0)
    roi = image[y0:y1, x0:x1]
    if contact > 0:
        shade = cv2.GaussianBlur(a, (0, 0), 1.2)
        roi *= (1 - contact * shade * (1 - a))[..., None]
    roi[:] = roi * (1 - a)[..., None] + warped[..., :3].astype(np.float32) * (1 / 255.0) * a[..., None]
    np.maximum(cover[y0:y1, x0:x1], a, out=cover[y0:y1, x0:x1])


@dataclass(frozen=True, eq=False)
class _Card:
    """A card lying on the table: its picture and its pose in mm."""

    rgba: np.ndarray
    centre_mm: tuple[float, float]
    angle_deg: float

    def sprite_to_plane(self) -> np.ndarray:
        h, w = self.rgba.shape[:2]
        return _pose(self.centre_mm, self.angle_deg) @ _sprite_to_card(w, h)

    def outline_mm(self) -> np.ndarray:
        return _card_outline(self.centre_mm, self.angle_deg)


def _render_table(rng, camera: SceneCamera, opts: SceneOptions, around_mm) -> np.ndarray:
    """The bare table (float32 BGR 0..1) as the ideal photo shows it: a texture drawn on the
    table plane at a modest resolution, then seen in perspective."""
    poly = _footprint(camera, 2500.0, around_mm)
    lo, hi = poly.min(0) - 20, poly.max(0) + 20
    span = hi - lo
    ppm = min(0.8 * camera.px_per_mm(around_mm), math.sqrt(1.2e6 / (span[0] * span[1])))
    tw, th = max(16, int(span[0] * ppm)), max(16, int(span[1] * ppm))
    texture = augment.table_texture(rng, tw, th, opts.light)
    # texture pixel (u, v) shows table point (lo.x + u/ppm, hi.y - v/ppm): rows run south
    texture_to_plane = np.array([[1 / ppm, 0, lo[0]], [0, -1 / ppm, hi[1]], [0, 0, 1]])
    m = camera.plane_to_ideal @ texture_to_plane
    return cv2.warpPerspective(texture, m, camera.ideal_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _glare(image: np.ndarray, cover: np.ndarray, rng, strength: tuple[float, float], frame) -> None:
    """One or two soft specular spots of the lamp, stronger on the glossy cards. ``frame``:
    where in the image the photo's frame lies, (x, y, width, height)."""
    xs, ys = augment.frame_coordinates(image.shape, frame)
    w, h = frame[2:]
    ys = ys * (h / w)
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8) * (h / w)
        sx, sy = rng.uniform(0.05, 0.3, 2)
        t = rng.uniform(0, np.pi)
        u = (xs - cx) * math.cos(t) + (ys - cy) * math.sin(t)
        v = -(xs - cx) * math.sin(t) + (ys - cy) * math.cos(t)
        blob = np.exp(-(u * u / (2 * sx * sx) + v * v / (2 * sy * sy)))
        image += (rng.uniform(*strength) * blob * (0.4 + 0.6 * cover))[..., None]


def _hand_mask(shape, centre, angle: float, ppm: float, rng) -> tuple[np.ndarray, float, np.ndarray, list]:
    """A flat hand reaching in along ``angle`` (palm at ``centre``, arm running out of the
    frame): its mask, finger width, direction and fingertips, for ``augment.shade_skin``."""
    mask = np.zeros(shape[:2], np.uint8)
    d = np.array([math.cos(angle), math.sin(angle)])
    n = np.array([-d[1], d[0]])
    c = np.asarray(centre, float)
    fw = rng.uniform(14, 20) * ppm
    palm = (rng.uniform(30, 42) * ppm, rng.uniform(36, 50) * ppm)
    ip, one = cardart._ip, cardart._ONE
    cv2.ellipse(mask, ip(c), (int(palm[0] * one), int(palm[1] * one)), math.degrees(angle) + 90, 0, 360, 255, -1,
                cv2.LINE_AA, cardart._SHIFT)
    tips = []
    curl = rng.uniform(0.75, 1.05)
    for i, length in enumerate((65, 75, 72, 58)):
        base = c + d * palm[1] * 0.7 + n * (i - 1.5) * fw * 1.05
        tip = base + (d + n * (i - 1.5) * 0.12) * length * ppm * curl
        tips.append(tip)
        cv2.line(mask, ip(base), ip(tip), 255, max(1, int(fw)), cv2.LINE_AA, cardart._SHIFT)
    side = 1 if rng.random() < 0.5 else -1
    thumb = c + n * side * palm[0] * 0.8
    cv2.line(mask, ip(thumb), ip(thumb + (n * side * 0.8 + d * 0.6) * 55 * ppm), 255, max(1, int(fw * 1.1)),
             cv2.LINE_AA, cardart._SHIFT)
    reach = float(np.hypot(*shape[:2])) * 1.5
    cv2.line(mask, ip(c), ip(c - d * reach), 255, max(1, int(palm[0] * 1.6)), cv2.LINE_AA, cardart._SHIFT)
    return mask, fw, d, tips


def _covered(mask: np.ndarray, quad: np.ndarray) -> float:
    """Share of a quad (ideal-photo pixels) that the mask covers."""
    h, w = mask.shape
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1c <= x0c or y1c <= y0c:
        return 0.0
    poly = np.zeros((y1c - y0c, x1c - x0c), np.uint8)
    cv2.fillConvexPoly(poly, np.round((quad - (x0c, y0c)) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    area = poly.sum()
    return float((poly * (mask[y0c:y1c, x0c:x1c] > 127)).sum() / area) if area else 0.0


def _lens_maps(camera: SceneCamera, shake: np.ndarray | None):
    """remap() maps: for each photo pixel, the ideal-photo pixel it shows (the lens, and
    for video a small camera shake ``shake``, a 3x3 on ideal pixels)."""
    w, h = camera.size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    cx, cy = camera.centre
    dx, dy = xs - np.float32(cx), ys - np.float32(cy)
    gain = 1 + np.float32(camera.barrel / camera.radius ** 2) * (dx * dx + dy * dy)
    ux, uy = dx * gain + np.float32(cx), dy * gain + np.float32(cy)
    if shake is not None:
        inv = np.linalg.inv(shake)
        den = inv[2, 0] * ux + inv[2, 1] * uy + inv[2, 2]
        ux, uy = ((inv[0, 0] * ux + inv[0, 1] * uy + inv[0, 2]) / den,
                  (inv[1, 0] * ux + inv[1, 1] * uy + inv[1, 2]) / den)
    mx, my = camera.margin
    return (ux + np.float32(mx)).astype(np.float32), (uy + np.float32(my)).astype(np.float32)


@dataclass(frozen=True)
class _Sensor:
    """One camera's optics and electronics, fixed for a scene (or a whole video)."""

    blur: float
    noise: float
    jpeg: int
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)

    @classmethod
    def sample(cls, rng, opts: SceneOptions) -> _Sensor:
        return cls(rng.uniform(*opts.blur_px), rng.uniform(*opts.noise),
                   int(rng.integers(opts.jpeg_quality[0], opts.jpeg_quality[1] + 1)), opts.camera_gains)

    def photograph(self, ideal: np.ndarray, camera: SceneCamera, rng, shake=None) -> np.ndarray:
        """The ideal photo (float32 BGR 0..1) through lens, focus, sensor noise and JPEG."""
        maps = _lens_maps(camera, shake)
        img = cv2.remap(ideal, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if self.blur > 0.25:
            img = cv2.GaussianBlur(img, (0, 0), self.blur)
        if self.gains != (1.0, 1.0, 1.0):
            img = img * np.float32(self.gains)
        h, w = img.shape[:2]
        # noise at half resolution, enlarged: demosaicing and JPEG correlate neighbours anyway
        grain = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32)
        grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
        luma = grain.mean(axis=2, keepdims=True)
        img = img + (0.7 * luma + 0.5 * grain) * self.noise * 2.0
        out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
        ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg])
        return cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else out


# --------------------------------------------------------------------------- laying out the table


@dataclass(eq=False)
class _Table:
    """Everything physical about one table: camera, cards and their poses, the lamp."""

    rng: np.random.Generator
    opts: SceneOptions
    game: str
    pitch: tuple[float, float]
    style: CardStyle
    camera: SceneCamera
    bare: np.ndarray  # the ideal photo of the empty table
    sensor: _Sensor
    light_seed: int
    mixed: bool
    printed: PrintedDeck | None = None  # a real printing's pictures, used for the faces it has
    maze_poses: dict[Cell, tuple[tuple[float, float], float]] = field(default_factory=dict)
    maze_sprites: dict[tuple, np.ndarray] = field(default_factory=dict)
    distractors: list[_Card] = field(default_factory=list)

    def pose(self, cell: Cell) -> tuple[tuple[float, float], float]:
        """Where the card on ``cell`` lies (drawn once per cell: a card stays where it was put)."""
        if cell not in self.maze_poses:
            j = self.opts.jitter_mm
            centre = (cell[0] * self.pitch[0] + self.rng.uniform(-j, j), cell[1] * self.pitch[1] + self.rng.uniform(-j, j))
            self.maze_poses[cell] = (centre, self.rng.uniform(-self.opts.jitter_deg, self.opts.jitter_deg))
        return self.maze_poses[cell]

    def sprite_size(self, centre_mm) -> tuple[int, int]:
        return _sprite_size(self.camera.px_per_mm(centre_mm) * CARD_MM[0])

    def maze_card(self, cell: Cell, face: str, rotation: int) -> _Card:
        centre, angle = self.pose(cell)
        key = (cell, face, rotation)
        if key not in self.maze_sprites:
            style = CardStyle.sample(self.rng, self.opts.style_split) if self.mixed else self.style
            rgba = self.face_sprite(face, rotation, self.sprite_size(centre), style)
            self.maze_sprites[key] = augment.wear(rgba, self.rng) if self.rng.random() < self.opts.p_wear else rgba
        return _Card(self.maze_sprites[key], centre, angle)

    def face_sprite(self, face: str, rotation: int, size, style: CardStyle | None = None) -> np.ndarray:
        """A card face (BGRA) as this table's deck shows it: the printing's picture where
        there is one, else drawn in ``style`` (the table's by default)."""
        if self.printed is not None and face in self.printed.faces:
            return augment.picture_rgba(self.printed.picture(face, rotation, self.rng), size)
        return cardart.draw_face_rgba(default_catalogue().face(face), rotation, style or self.style, self.rng, size)

    def loose_sprite(self, kind: str, size) -> np.ndarray:
        """A card off the maze: an action card, a card back or a path card."""
        if kind == "action" and self.printed is not None and self.printed.actions:
            pictures = self.printed.actions
            return augment.picture_rgba(pictures[int(self.rng.integers(len(pictures)))], size)
        if kind == "action":
            return np.dstack(cardart._action_rgba(self.rng, size))
        if kind == "back":
            return np.dstack(cardart._back_rgba(self.rng, size))
        faces = default_catalogue().path_faces(GAME_SETS[self.game])
        return self.face_sprite(faces[int(self.rng.integers(len(faces)))].id, 0, size)

    def cell_truth(self, cell: Cell, face: str, rotation: int, shake=None) -> CellTruth:
        to_image = self.camera.plane_to_image if shake is None else shake @ self.camera.plane_to_image
        lens = self.camera
        nominal = (np.array(cell, float) + CELL_CORNERS) * self.pitch
        centre, angle = self.pose(cell)
        corners = lens.distort(_apply(to_image, nominal))
        card = lens.distort(_apply(to_image, _card_outline(centre, angle)))
        grid = np.array(cell, float) + np.stack(np.meshgrid(np.linspace(-0.45, 0.45, 5),
                                                            np.linspace(-0.45, 0.45, 5)), -1).reshape(-1, 2)
        seen = lens.distort(_apply(to_image, grid * self.pitch))
        w, h = lens.size
        inside = (seen[:, 0] >= 0) & (seen[:, 0] <= w - 1) & (seen[:, 1] >= 0) & (seen[:, 1] <= h - 1)
        return CellTruth(face, rotation, corners, card, float(inside.mean()))

    def image_from_maze(self, shake=None) -> np.ndarray:
        h = self.camera.plane_to_image @ maze_to_plane(self.pitch)
        if shake is not None:
            h = shake @ h
        return h / h[2, 2]

    def compose(self, cards: list[_Card]) -> np.ndarray:
        """The ideal photo (float32) with the distractors and ``cards`` on the table, lit."""
        image = self.bare.copy()
        cover = np.zeros(image.shape[:2], np.float32)
        for card in list(self.distractors) + cards:
            _paste(image, cover, card.rgba, self.camera.plane_to_ideal @ card.sprite_to_plane())
        lamp = np.random.default_rng(self.light_seed)
        augment.light(image, cover, lamp, self.opts.light, self.camera.frame_box)
        if lamp.random() < self.opts.p_glare:
            _glare(image, cover, lamp, self.opts.glare, self.camera.frame_box)
        return image

    def quad(self, card: _Card) -> np.ndarray:
        return self.camera.project(card.outline_mm())


def _lay_table(rng, opts: SceneOptions, game: str, size, maze_cells: list[Cell], style: CardStyle | None,
               printed: PrintedDeck | None = None) -> _Table:
    gap = rng.uniform(*opts.gap_mm)
    pitch = (CARD_MM[0] + gap, CARD_MM[1] + gap)
    cells = np.array(maze_cells, float)
    maze_mm = np.concatenate([(cells + c) * pitch for c in CELL_CORNERS])
    card_px_hint = 0.6 * size[0] / max(1.0, np.ptp(cells[:, 0]) + 1)
    camera = _frame_maze(rng, opts, size, maze_mm, card_px_hint)
    centre = (maze_mm.min(0) + maze_mm.max(0)) / 2
    bare = _render_table(rng, camera, opts, centre)
    chosen = style or CardStyle.sample(rng, opts.style_split)
    sensor, seed = _Sensor.sample(rng, opts), int(rng.integers(2 ** 31))
    # a style given is one printing's: its cards are never mixed with others' (drawn in this
    # order, the scenes of a seed stay what they were)
    mixed = rng.random() < opts.p_mixed_style and style is None
    return _Table(rng, opts, game, pitch, chosen, camera, bare, sensor, seed, mixed, printed)


def _far_from_maze(point_mm, table: _Table, cells: list[Cell], margin: float) -> bool:
    """A loose card centred here (at any angle) stays ``margin`` away from every maze cell."""
    px, py = table.pitch
    reach = CARD_RADIUS_MM + margin
    for x, y in cells:
        dx = abs(point_mm[0] - x * px) - px / 2
        dy = abs(point_mm[1] - y * py) - py / 2
        if math.hypot(max(dx, 0), max(dy, 0)) < reach:
            return False
    return True


def _scatter_distractors(rng, table: _Table, cells: list[Cell]) -> None:
    """The draw pile and a few loose cards somewhere on the visible table, off the maze."""
    opts = table.opts
    cells_mm = np.array(cells, float) * table.pitch
    poly = _footprint(table.camera, 1500.0, cells_mm.mean(0)).astype(np.float32)
    lo, hi = poly.min(0), poly.max(0)
    taken: list[np.ndarray] = []

    def spot() -> np.ndarray | None:
        for _ in range(80):
            p = rng.uniform(lo, hi)
            if cv2.pointPolygonTest(poly, (float(p[0]), float(p[1])), True) < 10:
                continue  # at least partly in the frame
            if not _far_from_maze(p, table, cells, opts.distractor_margin_mm):
                continue
            if any(np.hypot(*(p - q)) < 1.6 * CARD_RADIUS_MM for q in taken):
                continue
            taken.append(p)
            return p
        return None

    if rng.random() < opts.p_draw_pile:
        p = spot()
        if p is not None:
            base = rng.uniform(0, 360)
            size = table.sprite_size(p)
            for _ in range(int(rng.integers(3, 8))):
                rgba = np.dstack(cardart._back_rgba(rng, size))
                table.distractors.append(_Card(rgba, tuple(p + rng.uniform(-1.5, 1.5, 2)), base + rng.uniform(-3, 3)))
    kinds = ("action", "action", "path", "path", "back")
    for _ in range(int(rng.integers(opts.loose_cards[0], opts.loose_cards[1] + 1))):
        p = spot()
        if p is None:
            break
        kind = kinds[int(rng.integers(len(kinds)))]
        rgba = table.loose_sprite(kind, table.sprite_size(p))
        table.distractors.append(_Card(rgba, (float(p[0]), float(p[1])), rng.uniform(0, 360)))


def _crosswise_cell(rng, board: Board, table: _Table) -> Cell | None:
    """A frontier cell for a card laid crosswise, preferably with room for its overhang."""
    frontier = sorted(board.frontier())
    roomy = [c for c in frontier if (c[0] - 1, c[1]) not in board and (c[0] + 1, c[1]) not in board]
    pool = roomy or frontier
    w, h = table.camera.size
    seen = []
    for c in pool:
        p = table.camera.project([np.array(c, float) * table.pitch])[0]
        if 0.05 * w < p[0] < 0.95 * w and 0.05 * h < p[1] < 0.95 * h:
            seen.append(c)
    return seen[int(rng.integers(len(seen)))] if seen else None


def _count(rng, cards) -> int:
    if isinstance(cards, (int, np.integer)):
        return int(cards)
    lo, hi = cards
    return int(rng.integers(lo, hi + 1))


def table_scene(rng: np.random.Generator, *, cards: int | tuple[int, int] = (10, 40),
                size: tuple[int, int] = (1920, 1080), game: str = "saboteur", hand: bool | None = None,
                crosswise: bool | None = None, style: CardStyle | None = None,
                options: SceneOptions | None = None, printed: PrintedDeck | None = None) -> Scene:
    """A photo of a table with a random legal maze of ``cards`` path cards (a number or a
    range), and its ground truth. ``hand``/``crosswise`` force a hand over the maze or a
    card laid crosswise on (True) or off (False); None leaves it to chance. ``style``: every
    card of one printing drawn in it (None: a printing drawn at random, now and then several
    mixed). ``printed``:
    lay the cards from a real printing's pictures (the faces it has; the rest are drawn)."""
    opts = options or SceneOptions()
    board, order = grow_maze(rng, _count(rng, cards), game)
    holes = []
    for _ in range(opts.rockfalls):  # the cards beyond each hole lie on, cut off from the start
        gone = _rockfall(rng, board)
        if gone is None:
            break
        holes.append(gone.cell)
        order = [p for p in order if p.cell != gone.cell]
        refill = _laid_in_hole(rng, board, gone.cell, game) if rng.random() < 0.5 else None
        if refill is not None:
            board.put(refill)
            order.append(refill)
    if rng.random() < opts.p_reveal:
        _reveal_one_goal(rng, board)
    on_table = _maze_cards(board)
    cells = sorted(on_table)
    table = _lay_table(rng, opts, game, size, cells, style, printed)
    _scatter_distractors(rng, table, cells)

    laid = [table.maze_card(c, *on_table[c]) for c in cells]
    crosswise_cards: dict[Cell, _Card] = {}
    want_crosswise = rng.random() < opts.p_crosswise if crosswise is None else crosswise
    if want_crosswise:
        cell = _crosswise_cell(rng, board, table)
        if cell is not None:
            faces = default_catalogue().path_faces(GAME_SETS[game])
            face = faces[int(rng.integers(len(faces)))]
            centre = (cell[0] * table.pitch[0] + rng.uniform(-2, 2), cell[1] * table.pitch[1] + rng.uniform(-2, 2))
            sprite = table.face_sprite(face.id, 0, table.sprite_size(centre))
            crosswise_cards[cell] = _Card(sprite, centre, float(rng.choice([90.0, -90.0]) + rng.uniform(-3, 3)))
    ideal = table.compose(laid + list(crosswise_cards.values()))

    truth = {c: table.cell_truth(c, *on_table[c]) for c in cells}
    occluded: frozenset[Cell] = frozenset()
    want_hand = rng.random() < opts.p_hand if hand is None else hand
    if want_hand:
        occluded = _hand_over_maze(rng, ideal, table, cells, list(crosswise_cards))
    image = table.sensor.photograph(ideal, table.camera, rng)
    return Scene(
        image=image, board=board, cells=truth, laid=tuple(order), rockfalls=tuple(holes),
        crosswise={c: table.quad(card) for c, card in crosswise_cards.items()},
        occluded=occluded,
        distractors=tuple(table.quad(card) for card in table.distractors),
        image_from_maze=table.image_from_maze(), pitch_mm=table.pitch, camera=table.camera,
        style=table.style, game=game, hand=bool(want_hand),
    )


def marker_sheet_photo(rng: np.random.Generator, camera: SceneCamera, at: tuple[float, float],
                       options: SceneOptions | None = None) -> np.ndarray:
    """A photo by ``camera`` (its pose and lens) of the ArUco table-calibration sheet lying
    on a bare table, turned at random, its middle where the photo shows the table at ``at``
    (shares of the width and height): one of the photos ``calibrate-table`` measures the
    lens from."""
    from calibration.markers import SHEET, render_marker_sheet

    opts = options or SceneOptions()
    w, h = camera.size
    centre = _apply(np.linalg.inv(camera.plane_to_image), [(at[0] * (w - 1), at[1] * (h - 1))])[0]
    image = _render_table(rng, camera, opts, centre)
    sheet = render_marker_sheet(127)  # exactly 5 px/mm: the markers' corners lie on pixel corners
    ppm = sheet.shape[1] / SHEET.page_mm[0]
    rgba = cv2.merge([sheet, sheet, sheet, np.full_like(sheet, 255)])
    # sprite pixels -> sheet mm (y down the page) -> mm from the sheet's middle, y north
    sprite_to_sheet = np.array([[1 / ppm, 0, 0.5 / ppm - SHEET.page_mm[0] / 2],
                                [0, -1 / ppm, SHEET.page_mm[1] / 2 - 0.5 / ppm], [0, 0, 1]])
    cover = np.zeros(image.shape[:2], np.float32)
    _paste(image, cover, rgba, camera.plane_to_ideal @ _pose(centre, rng.uniform(0, 360)) @ sprite_to_sheet)
    augment.light(image, cover, rng, opts.light, camera.frame_box)
    return _Sensor.sample(rng, opts).photograph(image, camera, rng)


def _hand_over_maze(rng, ideal: np.ndarray, table: _Table, cells: list[Cell], extra: list[Cell]) -> frozenset[Cell]:
    """A hand over part of the maze, coming in from any side; returns the cells it hides."""
    target = cells[int(rng.integers(len(cells)))]
    centre_mm = (np.array(target, float) + rng.uniform(-0.3, 0.3, 2)) * table.pitch
    centre = table.camera.undistorted([centre_mm])[0]
    ppm = table.camera.px_per_mm(centre_mm) * rng.uniform(1.05, 1.25)  # a hand is nearer the lens
    mask = _shade_hand(rng, ideal, table.camera, centre, rng.uniform(0, 2 * math.pi), ppm)
    return _occluded_cells(mask, table, cells + extra, None)


def _shade_hand(rng, ideal: np.ndarray, camera: SceneCamera, centre, angle: float, ppm: float) -> np.ndarray:
    """A hand shaded into the ideal photo, its palm at ``centre`` (ideal pixels); its mask (the array's)."""
    mask, fw, d, tips = _hand_mask(ideal.shape, centre + camera.margin, angle, ppm, rng)
    augment.shade_skin(ideal, rng, mask, fw, d, tips, camera.frame_box)
    return mask


def _occluded_cells(mask: np.ndarray, table: _Table, cells: list[Cell], shake) -> frozenset[Cell]:
    to_image = _translation(*table.camera.margin) @ table.image_from_maze(shake)  # the ideal photo's array
    return frozenset(c for c in cells if _covered(mask, _apply(to_image, np.array(c, float) + CELL_CORNERS))
                     > OCCLUDED_FRACTION)


# --------------------------------------------------------------------------- video


def _shake(rng, px: float, centre) -> np.ndarray:
    """A tiny camera shake as a similarity on the ideal photo about its centre."""
    a = math.radians(rng.normal(0, 0.03))
    t = rng.normal(0, px, 2)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    return _translation(*(np.asarray(centre) + t)) @ rot @ _translation(*(-np.asarray(centre)))


def table_video(rng: np.random.Generator, *, start_cards: int | tuple[int, int] = (4, 14),
                moves: int | tuple[int, int] = (3, 5), frames_per_move: int = 6, still_frames: int = 3,
                size: tuple[int, int] = (1280, 720), game: str = "saboteur", shake_px: float = 0.4,
                options: SceneOptions | None = None, printed: PrintedDeck | None = None,
                rockfalls: int = 0, style: CardStyle | None = None) -> TableVideo:
    """Frames of a game: a maze of ``start_cards`` path cards, then ``moves`` placements,
    then ``rockfalls`` times a rockfall on a path card (a hand takes it away, leaving any
    cards beyond it cut off), each followed by a card laid in the hole when one fits there.
    Each move is ``frames_per_move`` frames (a hand brings the card in from off the maze,
    lays it, withdraws; or reaches the card and takes it away) followed by ``still_frames``
    frames of the settled table. The camera is fixed; it shakes by about ``shake_px``. No
    crosswise card: every move is a real one. ``style`` and ``printed`` as for ``table_scene``. The
    rockfalls are drawn after everything else, so a film is the same up to them with or
    without."""
    opts = options or SceneOptions()
    n_start, n_moves = _count(rng, start_cards), _count(rng, moves)
    goals, laid = _grow(rng, n_start + n_moves, game)
    n_moves = min(n_moves, len(laid))
    moves_list = laid[len(laid) - n_moves:]
    boards = [_replay(goals, laid[:len(laid) - n_moves + k]) for k in range(n_moves + 1)]
    all_cells = sorted(_maze_cards(boards[-1]))
    table = _lay_table(rng, opts, game, size, all_cells, style, printed)
    _scatter_distractors(rng, table, all_cells)

    frames: list[VideoFrame] = []
    commits: list[int] = []
    base_cache: dict[int, np.ndarray] = {}

    def base(k: int, extra: list[_Card] = ()) -> np.ndarray:
        on_table = _maze_cards(boards[k])
        cards = [table.maze_card(c, *on_table[c]) for c in sorted(on_table)]
        if not extra and k in base_cache:
            return base_cache[k].copy()
        image = table.compose(cards + list(extra))
        if not extra:
            base_cache[k] = image.copy()
        return image

    def emit(ideal, committed: int, on_table: Board, hand_mask, shake):
        cards = _maze_cards(on_table)
        truth = {c: table.cell_truth(c, *cards[c], shake=shake) for c in sorted(cards)}
        occluded = (_occluded_cells(hand_mask, table, sorted(cards), shake) if hand_mask is not None
                    else frozenset())
        image = table.sensor.photograph(ideal, table.camera, rng, shake=shake)
        frames.append(VideoFrame(image, committed, truth, hand_mask is not None, occluded,
                                 table.image_from_maze(shake)))

    centre_px = table.camera.centre
    for _ in range(still_frames):
        emit(base(0), 0, boards[0], None, _shake(rng, shake_px, centre_px))

    def hand(k: int, ideal: np.ndarray, palm_mm, away: float) -> np.ndarray | None:
        """The hand of move ``k``, its palm at ``palm_mm``, or None once it has left the frame."""
        centre = table.camera.undistorted([palm_mm])[0]
        if not _near_frame(centre, table.camera.size):
            return None
        ppm = table.camera.px_per_mm(palm_mm) * 1.15
        hand_rng = np.random.default_rng([table.light_seed, k])  # the same hand all move long
        return _shade_hand(hand_rng, ideal, table.camera, centre, away + math.pi, ppm)

    def settle(k: int) -> None:
        commits.append(len(frames))
        for _ in range(still_frames):
            emit(base(k), k, boards[k], None, _shake(rng, shake_px, centre_px))

    def lay(k: int, move: Placement) -> None:
        """Move ``k``: a hand brings the card in from the player's side, lays it, withdraws."""
        target_mm = np.array(move.cell, float) * table.pitch
        away = rng.uniform(0, 2 * math.pi)  # the player's side of the table
        start_mm = target_mm + 3.5 * CARD_MM[1] * np.array([math.cos(away), math.sin(away)])
        card = table.maze_card(move.cell, move.face, move.rotation)
        spin = rng.uniform(-25, 25)
        for f in range(frames_per_move):
            t = (f + 1) / max(1, frames_per_move // 2)
            shake = _shake(rng, shake_px, centre_px)
            if t < 1:  # the card travels in the hand, above the table
                pos = start_mm + (np.asarray(card.centre_mm) - start_mm) * t
                held = _Card(card.rgba, (float(pos[0]), float(pos[1])), card.angle_deg + spin * (1 - t))
                ideal, showing = base(k - 1, [held]), boards[k - 1]
                palm = pos + 0.35 * CARD_MM[1] * np.array([math.cos(away), math.sin(away)])
            else:  # laid; the hand lets go and withdraws
                back = min(1.0, (t - 1) * 1.5)
                ideal, showing = base(k), boards[k]
                palm = (np.asarray(card.centre_mm) + (0.35 + 3.5 * back) * CARD_MM[1]
                        * np.array([math.cos(away), math.sin(away)]))
            emit(ideal, k, showing, hand(k, ideal, palm, away), shake)
        settle(k)

    def take_away(k: int, gone: Placement) -> None:
        """Move ``k``, a rockfall: the empty hand reaches the card and takes it away."""
        card = table.maze_card(gone.cell, gone.face, gone.rotation)
        away = rng.uniform(0, 2 * math.pi)
        direction = np.array([math.cos(away), math.sin(away)])
        for f in range(frames_per_move):
            t = (f + 1) / max(1, frames_per_move // 2)
            shake = _shake(rng, shake_px, centre_px)
            if t < 1:
                palm = np.asarray(card.centre_mm) + (0.35 + 3.5 * (1 - t)) * CARD_MM[1] * direction
                ideal, showing = base(k - 1), boards[k - 1]
            else:
                pos = np.asarray(card.centre_mm) + 3.5 * min(1.0, t - 1) * CARD_MM[1] * direction
                ideal, showing = base(k, [_Card(card.rgba, (float(pos[0]), float(pos[1])), card.angle_deg)]), boards[k]
                palm = pos + 0.35 * CARD_MM[1] * direction
            emit(ideal, k, showing, hand(k, ideal, palm, away), shake)
        settle(k)

    for k, move in enumerate(moves_list, start=1):
        lay(k, move)
    holes: list[Cell] = []
    for _ in range(rockfalls):
        after = boards[-1].copy()
        gone = _rockfall(rng, after)
        if gone is None:
            break
        boards.append(after)
        holes.append(gone.cell)
        take_away(len(boards) - 1, gone)
        refill = _laid_in_hole(rng, after, gone.cell, game)
        if refill is not None:
            filled = after.copy()
            filled.put(refill)
            boards.append(filled)
            moves_list.append(refill)
            lay(len(boards) - 1, refill)
    return TableVideo(frames, boards, moves_list, commits, table.pitch, table.camera, holes)


def _near_frame(point, size) -> bool:
    """Whether a palm here still shows in the frame (a withdrawing hand leaves it)."""
    w, h = size
    return -0.15 * w < point[0] < 1.15 * w and -0.15 * h < point[1] < 1.15 * h
