"""Domain randomisation: what a camera sees of one maze cell.

Why this exists: the card classifier is trained on synthetic crops but judged on real
photos of real decks (other printings, webcams, phones, barrel lenses, hands in the way).
``vision.cardart`` draws a clean card; this module puts it on a table among neighbouring
cards and then degrades it the way a table, a lamp and a cheap camera do, so the crop a
training sample shows is what ``vision.grid`` hands to ``vision.classify`` at run time: a
roughly rectified portrait crop of one cell, never perfectly aligned.

How the pieces fit (one call of ``render_cell``):

1. scene, in millimetres scaled to canvas pixels: a table texture (wood, cloth, plain),
   neighbouring cards (a cached pool of drawn cards) at the grid pitch with 0-2 mm gaps and
   small misalignments, the centre card (freshly drawn with a sampled ``CardStyle``, maybe
   worn: bent, creased, dirty, rounded corners), a lamp's gradient and glare, and maybe a hand;
2. camera geometry: the crop window is jittered (shift, scale, rotation, perspective) and
   bent by the residual of a barrel lens, all in one ``cv2.remap`` from the canvas into a
   camera-resolution image (so low-resolution cameras lose detail for real);
3. sensor: defocus or motion blur (applied before sampling), vignetting, exposure and
   white balance, noise, tone curve, sharpening, JPEG; then resampling to ``out_size``.

Abstain samples (``render_abstain``) reuse the same path with a centre the classifier must
not name: a hand over most of the cell, an action card, a card laid crosswise, a card back,
a card half off its cell, a cell cut at the wrong pitch (part of a card and its neighbours,
as a lattice at half the pitch or turned a quarter cuts them). Every random choice comes
from the caller's ``numpy.random.Generator``; the caches hold only things derived from
fixed seeds, so a seed gives the same image whatever was rendered before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from engine.catalogue import Catalogue, default_catalogue
from vision import cardart
from vision.cardart import CARD_MM, CardStyle

# The kinds the classifier is trained to abstain on (one is drawn when none is asked for).
ABSTAIN_KINDS = ("hand", "action", "crosswise", "back", "offset")
# A cell cut at the wrong pitch, which the benchmark measures but training leaves out: a
# model trained on such crops too (tried) grew stricter about a crop a fifth of a cell off
# its card, and the grid, which finds where cards lie by reading shifted crops, lost
# lattices it had found (on the bench photos: more right of the drawn cards, fewer of the
# printed ones, and more read wrongly).
MISSCUT = "misscut"

# canvas pixels per output pixel: the scene is drawn a little finer than the crop so the
# camera stage has detail to lose
_OVERSAMPLE = 1.25
# how far around the cell the canvas reaches, in cell pitches on each side
_MARGIN = 0.42
_POOL = 640

SKIN_TONES = (  # BGR, light to dark; jittered per hand
    (185, 205, 240), (160, 185, 230), (135, 165, 215), (110, 145, 200), (85, 120, 180),
    (65, 95, 150), (50, 72, 118), (38, 55, 90),
)


@dataclass(frozen=True)
class Augment:
    """Knobs of the randomisation. Ranges are (low, high); probabilities are per cell.

    Lengths are fractions of the cell unless they say mm or px (px: output pixels).
    """

    # misregistration of the crop: the grid fit is never exact
    shift: float = 0.06
    scale: float = 0.06
    rotation_deg: float = 4.0
    perspective: float = 0.025
    barrel: float = 0.35  # largest k1 of the virtual lens (mild)
    # the table and the cards on it
    gap_mm: tuple[float, float] = (0.0, 2.0)
    card_misalign_deg: float = 1.5
    card_misalign: float = 0.012
    p_neighbour: float = 0.75
    tables: tuple[str, ...] = ("wood", "cloth", "plain")
    table_colour: tuple[int, int, int] | None = None  # forces a plain table of this BGR colour
    p_wear: float = 0.35
    p_hand: float = 0.12
    hand_depth: float = 0.14  # how far fingers reach into a labelled cell
    # light
    light_gradient: float = 0.35
    p_glare: float = 0.3
    p_shadow: float = 0.2
    vignette: float = 0.45
    exposure: float = 0.2  # sigma of log exposure
    white_balance: float = 0.12  # sigma of the log warm/cool gain (green/magenta: a third of it)
    saturation: tuple[float, float] = (0.6, 1.25)
    gamma: tuple[float, float] = (0.75, 1.35)
    # optics and sensor
    camera_scale: tuple[float, float] = (0.5, 1.25)  # camera pixels per output pixel
    blur_px: tuple[float, float] = (0.0, 1.3)  # defocus sigma in camera pixels
    p_motion: float = 0.12
    motion_px: tuple[float, float] = (2.0, 6.0)
    noise: tuple[float, float] = (0.0, 0.045)
    p_sharpen: float = 0.3
    p_jpeg: float = 0.75
    jpeg_quality: tuple[int, int] = (22, 95)

    @classmethod
    def camera(cls) -> Augment:
        """A realistic webcam or phone over a table, for evaluation: the card at least as many
        camera pixels wide as the crop (a 1080p view of a whole maze gives 60-150), ordinary
        JPEG, moderate blur, noise and light. Training keeps the wider defaults, so the
        model has seen worse than what it is judged on."""
        return cls(camera_scale=(1.0, 1.25), blur_px=(0.0, 1.0), p_motion=0.05, motion_px=(1.5, 4.0),
                   noise=(0.0, 0.03), jpeg_quality=(50, 95), exposure=0.15, white_balance=0.08)

    @classmethod
    def clean(cls) -> Augment:
        """No randomisation at all: the exact cell, square on, under flat light."""
        return cls(shift=0, scale=0, rotation_deg=0, perspective=0, barrel=0, gap_mm=(1.0, 1.0),
                   card_misalign_deg=0, card_misalign=0, p_neighbour=0, p_wear=0, p_hand=0,
                   light_gradient=0, p_glare=0, p_shadow=0, vignette=0, exposure=0, white_balance=0,
                   saturation=(1, 1), gamma=(1, 1), camera_scale=(_OVERSAMPLE, _OVERSAMPLE),
                   blur_px=(0, 0), p_motion=0, noise=(0, 0), p_sharpen=0, p_jpeg=0)


# --------------------------------------------------------------------------- sizes and caches


@dataclass(frozen=True)
class _Geom:
    out: tuple[int, int]
    ppm: float  # canvas pixels per millimetre
    card: tuple[int, int]  # card size on the canvas, pixels
    canvas: tuple[int, int]


@lru_cache(maxsize=16)
def _geom(out_size: tuple[int, int]) -> _Geom:
    ow, oh = int(out_size[0]), int(out_size[1])
    if ow < 8 or oh < 8:
        raise ValueError(f"a cell crop needs at least 8x8 pixels, not {ow}x{oh}")
    ppm = ow * _OVERSAMPLE / CARD_MM[0]
    card = (int(round(CARD_MM[0] * ppm)), int(round(CARD_MM[1] * ppm)))
    pitch_w, pitch_h = (CARD_MM[0] + 2) * ppm, (CARD_MM[1] + 2) * ppm
    canvas = (int(math.ceil(pitch_w * (1 + 2 * _MARGIN))), int(math.ceil(pitch_h * (1 + 2 * _MARGIN))))
    return _Geom((ow, oh), ppm, card, canvas)


@lru_cache(maxsize=2048)
def _pool_card(key: int, w: int, h: int) -> np.ndarray:
    """A neighbour card (BGRA). Drawn from a seed of its own, so the pool's content never
    depends on the order of calls; the caller's generator only picks keys."""
    rng = np.random.default_rng([key, w, h, 0x7AB1E])
    u = rng.random()
    if u < 0.05:
        img, alpha = cardart._action_rgba(rng, (w, h))
        out = np.dstack([img, alpha])
    elif u < 0.08:
        img, alpha = cardart._back_rgba(rng, (w, h))
        out = np.dstack([img, alpha])
    else:
        faces = list(default_catalogue().faces.values())
        face = faces[int(rng.integers(len(faces)))]
        out = cardart.draw_face_rgba(face, 0, CardStyle.sample(rng), rng, (w, h))
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------- scene pieces


def _noise(rng, w, h, feature):
    gw, gh = max(2, int(w / feature) + 3), max(2, int(h / feature) + 3)
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    big = cv2.resize(small, (int(gw * feature), int(gh * feature)), interpolation=cv2.INTER_CUBIC)
    return big[:h, :w]


def _hls(h, l, s):
    return cardart._hls_bgr(h, l, s)


def table_texture(rng, w, h, aug: Augment) -> np.ndarray:
    if aug.table_colour is not None:
        return np.broadcast_to(np.array(aug.table_colour, np.float32) / 255.0, (h, w, 3)).copy()
    kind = aug.tables[int(rng.integers(len(aug.tables)))]
    low = _noise(rng, w, h, max(w, h) * 0.4)
    if kind == "wood":
        ang = rng.uniform(0, np.pi)
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        across = xs * math.cos(ang) + ys * math.sin(ang)
        along = -xs * math.sin(ang) + ys * math.cos(ang)
        period = rng.uniform(3, 12) * w / 100
        # grain: rings bent by slow noise that is stretched along the boards
        bend = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), w * 0.05) * w * 0.6
        grain = 0.5 + 0.5 * np.sin(2 * np.pi * (across + bend + 0.02 * along) / period)
        grain = grain ** rng.uniform(1, 4)
        dark = _hls(rng.uniform(15, 38), rng.uniform(0.12, 0.45), rng.uniform(0.35, 0.75))
        pale = dark * rng.uniform(1.15, 1.6)
        img = dark + (pale - dark) * (1 - grain)[..., None]
        if rng.random() < 0.6:  # seams between boards
            board = rng.uniform(0.25, 0.8) * w
            seam = np.abs(((across + rng.uniform(0, board)) % board) - board / 2) > board / 2 - 1.0
            img[seam] *= 0.55
        img *= (1 + 0.06 * low)[..., None]
    elif kind == "cloth":
        palette = ((40, 95, 35), (110, 60, 25), (40, 40, 120), (70, 70, 70), (25, 25, 28), (150, 170, 185),
                   (30, 110, 130), (90, 40, 80))
        base = np.array(palette[int(rng.integers(len(palette)))], np.float32) / 255.0 * rng.uniform(0.7, 1.3)
        p = rng.uniform(1.5, 4.0)
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        weave = np.sin(2 * np.pi * xs / p) * np.sin(2 * np.pi * ys / p)
        fibre = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.7)
        img = base * (1 + 0.05 * weave + 0.06 * fibre + 0.05 * low)[..., None]
    else:
        if rng.random() < 0.5:
            v = rng.choice([0.08, 0.25, 0.5, 0.75, 0.92]) * rng.uniform(0.85, 1.15)
            base = np.array([v, v, v], np.float32) * (1 + rng.normal(0, 0.04, 3)).astype(np.float32)
        else:
            base = _hls(rng.uniform(0, 360), rng.uniform(0.1, 0.85), rng.uniform(0.05, 0.6))
        img = base * (1 + 0.03 * low)[..., None]
    return np.clip(img, 0, 1).astype(np.float32)


def _paste(canvas, cover, rgba, cx, cy, angle_deg, contact=0.35):
    """Lay a card (BGRA) on the canvas centred at (cx, cy), turned by angle_deg."""
    h, w = rgba.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    m[:, 2] += (cx - w / 2, cy - h / 2)
    corners = m @ np.array([[0, w, 0, w], [0, 0, h, h], [1, 1, 1, 1]], np.float64)
    ch, cw = canvas.shape[:2]
    x0, y0 = max(0, int(corners[0].min()) - 3), max(0, int(corners[1].min()) - 3)
    x1, y1 = min(cw, int(corners[0].max()) + 4), min(ch, int(corners[1].max()) + 4)
    if x1 <= x0 or y1 <= y0:
        return
    m[:, 2] -= (x0, y0)
    warped = cv2.warpAffine(rgba, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=(0, 0, 0, 0))
    a = warped[..., 3].astype(np.float32) * (1 / 255.0)
    roi = canvas[y0:y1, x0:x1]
    if contact > 0:  # the card's edge and a hair of shadow show in the gaps
        sh = cv2.GaussianBlur(a, (0, 0), 1.0)
        roi *= (1 - contact * sh * (1 - a))[..., None]
    roi[:] = roi * (1 - a)[..., None] + warped[..., :3].astype(np.float32) * (1 / 255.0) * a[..., None]
    np.maximum(cover[y0:y1, x0:x1], a, out=cover[y0:y1, x0:x1])


def wear(rgba: np.ndarray, rng) -> np.ndarray:
    """A played card: bent, creased, dirty, scratched, corners rounded and whitened."""
    h, w = rgba.shape[:2]
    out = rgba.copy()
    img = out[..., :3].astype(np.float32)
    alpha = out[..., 3].astype(np.float32)
    if rng.random() < 0.6:  # a bend: a smooth warp with the light following the slope
        amp = rng.uniform(0.004, 0.02) * w
        dx, dy = _noise(rng, w, h, w * 0.7) * amp, _noise(rng, w, h, w * 0.7) * amp
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        img = cv2.remap(img, xs + dx, ys + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        alpha = cv2.remap(alpha, xs + dx, ys + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        img *= (1 + rng.uniform(0.02, 0.08) * _noise(rng, w, h, w * 0.6))[..., None]
    if rng.random() < 0.3:  # a crease: a fold line, lit on one side
        p = np.array([rng.uniform(0, w), 0.0]) if rng.random() < 0.5 else np.array([0.0, rng.uniform(0, h)])
        q = np.array([rng.uniform(0, w), float(h)]) if p[1] == 0 else np.array([float(w), rng.uniform(0, h)])
        line = np.zeros((h, w), np.float32)
        cv2.line(line, cardart._ip(p), cardart._ip(q), 1.0, 1, cv2.LINE_AA, cardart._SHIFT)
        dark = np.roll(line, 1, axis=1)
        img = img * (1 - 0.25 * dark)[..., None] + 60 * line[..., None]
    if rng.random() < 0.35:  # dirt and smudges
        blot = np.clip(_noise(rng, w, h, w * rng.uniform(0.1, 0.3)) - rng.uniform(0.8, 1.6), 0, 1)
        tone = np.array([0.62, 0.72, 0.8], np.float32) * rng.uniform(0.8, 1.05)
        k = rng.uniform(0.3, 0.8) * blot[..., None]
        img = img * (1 - k) + img * tone * k
    if rng.random() < 0.25:  # scratches
        for _ in range(int(rng.integers(1, 4))):
            p = np.array([rng.uniform(0, w), rng.uniform(0, h)])
            q = p + rng.normal(0, 0.2 * w, 2)
            cv2.line(img, cardart._ip(p), cardart._ip(q), (235, 235, 235), 1, cv2.LINE_AA, cardart._SHIFT)
    if rng.random() < 0.5:  # worn corners and edges: rounder, with the white core showing
        r = int(rng.uniform(0.06, 0.14) * w)
        worn = np.zeros((h, w), np.uint8)
        cardart._fill_round_rect(worn, 0, 0, w, h, r, 255)
        alpha = np.minimum(alpha, worn.astype(np.float32))
        edge = cv2.distanceTransform((alpha > 127).astype(np.uint8), cv2.DIST_L2, 3)
        fray = np.clip(1 - edge / rng.uniform(1.0, 2.5), 0, 1) * np.clip(_noise(rng, w, h, 3.0) + 0.6, 0, 1)
        img = img * (1 - fray[..., None]) + 238 * fray[..., None]
    out[..., :3] = np.clip(img, 0, 255).astype(np.uint8)
    out[..., 3] = np.clip(alpha, 0, 255).astype(np.uint8)
    return out


def _draw_hand(canvas, rng, win_c, win_wh, ppm, mode: str, reach: float = 0.14):
    """A hand over the table. mode 'fingers': fingertips reaching into the cell's margin;
    mode 'cover': a hand over most of the cell."""
    ch, cw = canvas.shape[:2]
    pw, ph = win_wh
    mask = np.zeros((ch, cw), np.uint8)
    fw = rng.uniform(14, 20) * ppm  # finger width
    if mode == "fingers":
        side = int(rng.integers(4))
        normal = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][side], float)  # pointing into the cell
        along = np.array([-normal[1], normal[0]])
        half = np.array([pw, ph]) / 2
        edge_pt = np.asarray(win_c) - normal * np.abs(normal @ half) + along * rng.uniform(-0.4, 0.4) * np.abs(along @ half) * 2
        ang = rng.uniform(-0.6, 0.6)
        d = normal * math.cos(ang) + along * math.sin(ang)
        n = np.array([-d[1], d[0]])
        extent = abs(normal @ np.array([pw, ph]))
        depth = rng.uniform(0.02, max(0.02, reach)) * extent
        k = int(rng.integers(1, 5))
        tips = []
        for i in range(k):
            off = (i - (k - 1) / 2) * fw * 1.05
            tip = edge_pt + n * off + d * depth * (1 - 0.15 * abs(i - (k - 1) / 2)) * rng.uniform(0.85, 1.0)
            tips.append(tip)
            cv2.line(mask, cardart._ip(tip), cardart._ip(tip - d * 140 * ppm), 255,
                     max(1, int(fw * rng.uniform(0.9, 1.1))), cv2.LINE_AA, cardart._SHIFT)
        return shade_skin(canvas, rng, mask, fw, d, tips)
    # cover: palm over the cell, fingers spread toward one side, a thumb
    c = np.asarray(win_c) + rng.uniform(-0.25, 0.25, 2) * np.array([pw, ph])
    ang = rng.uniform(0, 2 * np.pi)
    d = np.array([math.cos(ang), math.sin(ang)])
    n = np.array([-d[1], d[0]])
    palm = (rng.uniform(30, 42) * ppm, rng.uniform(36, 50) * ppm)
    cv2.ellipse(mask, cardart._ip(c), (int(palm[0] * cardart._ONE), int(palm[1] * cardart._ONE)),
                math.degrees(ang) + 90, 0, 360, 255, -1, cv2.LINE_AA, cardart._SHIFT)
    tips = []
    for i, ln in enumerate((65, 75, 72, 58)):
        base = c + d * palm[1] * 0.7 + n * (i - 1.5) * fw * 1.05
        tip = base + (d + n * (i - 1.5) * 0.12) * ln * ppm * rng.uniform(0.8, 1.05)
        tips.append(tip)
        cv2.line(mask, cardart._ip(base), cardart._ip(tip), 255, max(1, int(fw)), cv2.LINE_AA, cardart._SHIFT)
    side = 1 if rng.random() < 0.5 else -1
    thumb = c + n * side * palm[0] * 0.8
    cv2.line(mask, cardart._ip(thumb), cardart._ip(thumb + (n * side * 0.8 + d * 0.6) * 55 * ppm), 255,
             max(1, int(fw * 1.1)), cv2.LINE_AA, cardart._SHIFT)
    cv2.line(mask, cardart._ip(c), cardart._ip(c - d * 150 * ppm), 255, max(1, int(palm[0] * 1.6)),
             cv2.LINE_AA, cardart._SHIFT)  # the wrist and arm
    return shade_skin(canvas, rng, mask, fw, d, tips)


def shade_skin(canvas, rng, mask, fw, d, tips, frame=None):
    """A hand (``mask``) shaded into ``canvas``: its shadow, skin, nails and motion blur.
    ``frame``: where in the canvas the photo's frame lies, (x, y, width, height), when the
    canvas reaches beyond it; the skin's blotches are drawn for the frame, as they were
    before the canvas had a margin, so that the random draws after them stay the same."""
    ch, cw = canvas.shape[:2]
    tone = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32) / 255.0
    tone = tone * rng.uniform(0.85, 1.12) * (1 + rng.normal(0, 0.04, 3)).astype(np.float32)
    a = mask.astype(np.float32) / 255.0
    # the hand hovers: its soft shadow falls on the cards first
    off = np.float32([[1, 0, rng.uniform(-0.3, 0.3) * fw], [0, 1, rng.uniform(0.1, 0.4) * fw]])
    shadow = cv2.warpAffine(cv2.GaussianBlur(a, (0, 0), 0.35 * fw), off, (cw, ch))
    canvas *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]
    dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    round_ = np.sqrt(np.clip(dist / (0.5 * fw), 0, 1))  # fingers are cylinders
    if frame is None:
        blotch = _noise(rng, cw, ch, fw * 1.5) * 0.05
    else:
        x0, y0, w, h = frame
        blotch = cv2.copyMakeBorder(_noise(rng, w, h, fw * 1.5) * 0.05, y0, ch - h - y0, x0, cw - w - x0,
                                    cv2.BORDER_REFLECT)
    skin = tone[None, None, :] * (0.62 + 0.42 * round_ + blotch)[..., None]
    for t in tips:  # nails
        if rng.random() < 0.7:
            p = np.asarray(t) - d * 0.22 * fw
            cv2.ellipse(skin, cardart._ip(p), (int(0.28 * fw * cardart._ONE), int(0.2 * fw * cardart._ONE)),
                        math.degrees(math.atan2(d[1], d[0])), 0, 360,
                        tuple(float(v) for v in np.clip(tone * 1.15 + 0.08, 0, 1)), -1, cv2.LINE_AA, cardart._SHIFT)
    if rng.random() < 0.35:  # a moving hand is blurred along its motion
        k = max(3, int(rng.uniform(0.1, 0.4) * fw) | 1)
        ker = np.zeros((k, k), np.float32)
        ang = rng.uniform(0, 180)
        cv2.line(ker, (0, k // 2), (k - 1, k // 2), 1.0, 1)
        ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), ang, 1.0), (k, k))
        ker /= max(ker.sum(), 1e-6)
        skin = cv2.filter2D(skin * a[..., None], -1, ker)
        a = cv2.filter2D(a, -1, ker)
        skin = skin / np.maximum(a, 1e-4)[..., None]
    canvas[:] = canvas * (1 - a)[..., None] + np.clip(skin, 0, 1) * a[..., None]


def frame_coordinates(shape, frame=None) -> tuple[np.ndarray, np.ndarray]:
    """x (a row) and y (a column), float32, running from -1 to 1 across ``frame`` (x, y, width,
    height) of an image of this shape and on at the same pace beyond it; across the whole
    image by default. A lamp's light and glare are laid out over the photo's frame."""
    ch, cw = shape[:2]
    x0, y0, w, h = frame or (0, 0, cw, ch)

    def axis(start: int, n: int, total: int) -> np.ndarray:
        inner = np.linspace(-1, 1, n, dtype=np.float32)  # as before there was a margin, to the bit
        step = np.float32(2 / (n - 1))
        before = -1 - step * np.arange(start, 0, -1, dtype=np.float32)
        after = 1 + step * np.arange(1, total - start - n + 1, dtype=np.float32)
        return np.concatenate([before, inner, after])
    return axis(x0, w, cw)[None, :], axis(y0, h, ch)[:, None]


def light(canvas, cover, rng, aug: Augment, frame=None):
    """A lamp's light over ``canvas``: a gradient, maybe a shadow and glare. ``frame``: where
    the photo's frame lies in it (``frame_coordinates``)."""
    xs, ys = frame_coordinates(canvas.shape, frame)
    ang = rng.uniform(0, 2 * np.pi)
    g = 1 + rng.uniform(0, aug.light_gradient) * (xs * math.cos(ang) + ys * math.sin(ang)) * 0.5
    canvas *= g[..., None]
    if rng.random() < aug.p_shadow:  # something between lamp and table
        c = rng.uniform(-1, 1, 2)
        sig = rng.uniform(0.3, 0.9)
        blob = np.exp(-((xs - c[0]) ** 2 + (ys - c[1]) ** 2) / (2 * sig * sig))
        canvas *= (1 - rng.uniform(0.1, 0.4) * blob)[..., None]
    if rng.random() < aug.p_glare:  # specular glare: glossy cards reflect the lamp
        for _ in range(int(rng.integers(1, 3))):
            c = rng.uniform(-0.7, 0.7, 2)
            sx, sy = rng.uniform(0.05, 0.45, 2)
            t = rng.uniform(0, np.pi)
            u = (xs - c[0]) * math.cos(t) + (ys - c[1]) * math.sin(t)
            v = -(xs - c[0]) * math.sin(t) + (ys - c[1]) * math.cos(t)
            blob = np.exp(-(u * u / (2 * sx * sx) + v * v / (2 * sy * sy)))
            strength = rng.uniform(0.15, 0.7) * (0.35 + 0.65 * cover)
            tint = np.array([1.0, 1.0, 1.0], np.float32) + rng.normal(0, 0.04, 3).astype(np.float32)
            canvas += (strength * blob)[..., None] * tint


# --------------------------------------------------------------------------- camera


def _camera_maps(rng, aug: Augment, cam_w, cam_h, win_c, win_wh, turn_deg: float = 0.0):
    """Where each camera pixel samples the canvas: jittered window (turned by ``turn_deg``
    more), barrel residual."""
    pw, ph = win_wh
    u = (np.arange(cam_w, dtype=np.float64) + 0.5) / cam_w
    v = (np.arange(cam_h, dtype=np.float64) + 0.5) / cam_h
    uu, vv = np.meshgrid(u, v)
    frame_c = rng.uniform(-0.8, 0.8, 2)  # where the cell sits in the camera's frame
    cell_f = rng.uniform(0.08, 0.3)  # the cell's width in the frame's half-diagonal units
    k1 = rng.uniform(0, aug.barrel)
    if k1 > 0:
        # a grid fit removes the lens's local linear part; what is left bends straight lines
        px = frame_c[0] + cell_f * (uu - 0.5)
        py = frame_c[1] + cell_f * (ph / pw) * (vv - 0.5)
        r2 = px * px + py * py
        c2 = frame_c @ frame_c
        dpx, dpy = px - frame_c[0], py - frame_c[1]
        lin = 1 + k1 * c2
        # first-order expansion of p * (1 + k1 |p|^2) about the cell centre
        dot = frame_c[0] * dpx + frame_c[1] * dpy
        rx = px * (1 + k1 * r2) - (frame_c[0] * lin + lin * dpx + 2 * k1 * frame_c[0] * dot)
        ry = py * (1 + k1 * r2) - (frame_c[1] * lin + lin * dpy + 2 * k1 * frame_c[1] * dot)
        uu = uu + rx / (cell_f * lin)
        vv = vv + ry / (cell_f * (ph / pw) * lin)
    ang = math.radians(turn_deg + rng.uniform(-aug.rotation_deg, aug.rotation_deg))
    s = 1 + rng.uniform(-aug.scale, aug.scale)
    sx, sy = s * (1 + rng.uniform(-0.02, 0.02) * (aug.scale > 0)), s
    shift = rng.uniform(-aug.shift, aug.shift, 2) * np.array([pw, ph])
    ca, sa = math.cos(ang), math.sin(ang)
    dst = []
    for cx, cy in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
        x, y = cx * pw * sx, cy * ph * sy
        p = np.array([win_c[0] + x * ca - y * sa, win_c[1] + x * sa + y * ca]) + shift
        p += np.clip(rng.normal(0, aug.perspective / 2, 2), -aug.perspective, aug.perspective) * pw
        dst.append(p)
    src = np.float32([(0, 0), (1, 0), (1, 1), (0, 1)])
    hm = cv2.getPerspectiveTransform(src, np.float32(dst)).astype(np.float64)
    den = hm[2, 0] * uu + hm[2, 1] * vv + hm[2, 2]
    mx = (hm[0, 0] * uu + hm[0, 1] * vv + hm[0, 2]) / den
    my = (hm[1, 0] * uu + hm[1, 1] * vv + hm[1, 2]) / den
    return mx.astype(np.float32), my.astype(np.float32), frame_c, cell_f


def _camera(canvas, rng, aug: Augment, g: _Geom, win_c, win_wh, turn_deg: float = 0.0) -> np.ndarray:
    ow, oh = g.out
    lo, hi = aug.camera_scale
    scale = math.exp(rng.uniform(math.log(lo), math.log(hi)))  # as many cheap cameras as good ones
    cam_w, cam_h = max(8, int(round(ow * scale))), max(8, int(round(oh * scale)))
    f = win_wh[0] / cam_w  # canvas pixels per camera pixel
    defocus = rng.uniform(*aug.blur_px) * rng.random()  # skewed toward sharp
    sigma = math.sqrt(max(0.0, (0.5 * f) ** 2 - 0.25) + (defocus * f) ** 2)
    img = cv2.GaussianBlur(canvas, (0, 0), sigma) if sigma > 0.3 else canvas
    if rng.random() < aug.p_motion:
        ln = rng.uniform(*aug.motion_px) * f
        k = max(3, int(ln) | 1)
        ker = np.zeros((k, k), np.float32)
        cv2.line(ker, (0, k // 2), (k - 1, k // 2), 1.0, 1)
        ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0), (k, k))
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    mx, my, frame_c, cell_f = _camera_maps(rng, aug, cam_w, cam_h, win_c, win_wh, turn_deg)
    cam = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)

    # sensor and processing
    if aug.vignette > 0:
        u = (np.arange(cam_w, dtype=np.float32) + 0.5) / cam_w - 0.5
        v = (np.arange(cam_h, dtype=np.float32) + 0.5) / cam_h - 0.5
        px = frame_c[0] + cell_f * u[None, :]
        py = frame_c[1] + cell_f * (oh / ow) * v[:, None]
        cam *= (1 - rng.uniform(0, aug.vignette) * 0.5 * (px * px + py * py))[..., None]
    # white balance errs mostly along the lamp's warm-cool axis, a little along green-magenta
    warm, green = rng.normal(0, aug.white_balance), rng.normal(0, aug.white_balance * 0.35)
    log_gain = np.array([-warm - green / 2, green, warm - green / 2]) + rng.normal(0, aug.exposure)
    gains = np.exp(log_gain).astype(np.float32)
    cam *= gains
    sat = rng.uniform(*aug.saturation)
    if sat != 1:
        grey = cam.mean(axis=2, keepdims=True)
        cam = grey + (cam - grey) * sat
    cam = np.clip(cam, 0, 1)
    lo, hi = aug.noise
    if hi > 0:
        read, shot = rng.uniform(lo, hi), rng.uniform(lo, hi)
        luma = rng.standard_normal((cam_h, cam_w, 1)).astype(np.float32)
        chroma = rng.standard_normal((cam_h, cam_w, 3)).astype(np.float32)
        mix = rng.uniform(0.2, 0.8)
        n = luma * mix + chroma * (1 - mix)
        cam = cam + n * (read + shot * np.sqrt(cam))
    gamma = rng.uniform(*aug.gamma)
    cam = np.clip(cam, 0, 1) ** (1 / gamma)
    if rng.random() < aug.p_sharpen:  # webcams sharpen, leaving halos
        blur = cv2.GaussianBlur(cam, (0, 0), rng.uniform(0.8, 1.6))
        cam = cam + rng.uniform(0.3, 1.0) * (cam - blur)
    out = np.clip(cam * 255 + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < aug.p_jpeg:
        q = int(rng.integers(aug.jpeg_quality[0], aug.jpeg_quality[1] + 1))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if (cam_w, cam_h) != (ow, oh):
        interp = (cv2.INTER_LINEAR, cv2.INTER_CUBIC, cv2.INTER_AREA)[int(rng.integers(3))]
        out = cv2.resize(out, (ow, oh), interpolation=interp)
    return out


# --------------------------------------------------------------------------- the cell


@dataclass(frozen=True)
class _Centre:
    kind: str  # face | empty | action | back | crosswise | offset | misscut
    face_id: str | None = None
    rotation: int = 0
    hand: str | None = None  # None | 'cover'
    art: np.ndarray | None = None  # a picture of the face to use instead of drawing it


def picture_rgba(art: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A caller's picture of a card (BGR, BGRA or grey, portrait, any size) as BGRA at size."""
    art = np.asarray(art)
    if art.dtype != np.uint8 or art.ndim not in (2, 3) or (art.ndim == 3 and art.shape[2] not in (3, 4)):
        raise ValueError("card art must be a uint8 grey, BGR or BGRA image")
    h, w = art.shape[:2]
    if w > h:
        raise ValueError(f"card art must be portrait (it is {w}x{h}); turn it to the rotation it shows")
    if art.ndim == 2:
        art = cv2.cvtColor(art, cv2.COLOR_GRAY2BGR)
    if art.shape[2] == 3:  # a photo or scan without transparency: round its corners
        alpha = np.zeros((h, w), np.uint8)
        cardart._fill_round_rect(alpha, 0, 0, w, h, int(0.05 * w), 255)
        art = np.dstack([art, alpha])
    return cv2.resize(art, size, interpolation=cv2.INTER_AREA)


def _render(centre: _Centre, rng, out_size, catalogue: Catalogue, aug: Augment, style: CardStyle | None):
    g = _geom(tuple(out_size))
    cw, ch = g.canvas
    gap = rng.uniform(*aug.gap_mm)
    pitch = ((CARD_MM[0] + gap) * g.ppm, (CARD_MM[1] + gap) * g.ppm)
    win_c = (cw / 2, ch / 2)
    canvas = table_texture(rng, cw, ch, aug)
    cover = np.zeros((ch, cw), np.float32)

    def jitter():
        return (rng.normal(0, aug.card_misalign) * pitch[0], rng.normal(0, aug.card_misalign) * pitch[0],
                rng.normal(0, aug.card_misalign_deg))

    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            if (i, j) == (0, 0):
                continue
            p = aug.p_neighbour * (0.8 if i and j else 1.0)
            if rng.random() >= p and centre.kind != MISSCUT:  # a misscut cell lies inside a maze
                continue
            card = _pool_card(int(rng.integers(_POOL)), *g.card)
            if rng.random() < 0.5:
                card = card[::-1, ::-1]
            dx, dy, da = jitter()
            _paste(canvas, cover, card, win_c[0] + i * pitch[0] + dx, win_c[1] + j * pitch[1] + dy, da)

    card = None
    angle, shift = 0.0, (0.0, 0.0)
    if centre.kind in ("face", "action", "back", MISSCUT) and centre.art is not None:
        card = picture_rgba(centre.art, g.card)
    elif centre.kind == "face":
        face = catalogue.face(centre.face_id)
        st = style if style is not None else CardStyle.sample(rng)
        card = cardart.draw_face_rgba(face, centre.rotation, st, rng, g.card)
    elif centre.kind in ("crosswise", "offset", MISSCUT):
        faces = [f for f in catalogue.faces.values() if f.kind != "goal-back"]
        face = faces[int(rng.integers(len(faces)))]
        card = cardart.draw_face_rgba(face, int(rng.choice([0, 180])), CardStyle.sample(rng), rng, g.card)
        if centre.kind == "crosswise":
            angle = 90.0 if rng.random() < 0.5 else -90.0
        elif centre.kind == "offset":
            a = rng.uniform(0, 2 * np.pi)
            mag = rng.uniform(0.3, 0.5)
            shift = (math.cos(a) * mag * pitch[0], math.sin(a) * mag * pitch[1])
    elif centre.kind == "action":
        card = np.dstack(cardart._action_rgba(rng, g.card))
    elif centre.kind == "back":
        card = np.dstack(cardart._back_rgba(rng, g.card))
    if card is not None:
        if rng.random() < aug.p_wear:
            card = wear(card, rng)
        dx, dy, da = jitter()
        _paste(canvas, cover, np.ascontiguousarray(card), win_c[0] + dx + shift[0], win_c[1] + dy + shift[1],
               angle + da)

    if aug.light_gradient > 0 or aug.p_glare > 0 or aug.p_shadow > 0:
        light(canvas, cover, rng, aug)
    if centre.hand == "cover":
        _draw_hand(canvas, rng, win_c, pitch, g.ppm, "cover")
    elif rng.random() < aug.p_hand:
        _draw_hand(canvas, rng, win_c, pitch, g.ppm, "fingers", aug.hand_depth)
    window, turn = _misscut_window(rng, win_c, pitch) if centre.kind == MISSCUT else ((win_c, pitch), 0.0)
    return _camera(np.clip(canvas, 0, 1.5), rng, aug, g, *window, turn)


def _misscut_window(rng, win_c, pitch) -> tuple[tuple, float]:
    """A cell of a wrong lattice over a maze: ((centre, (width, height)) on the canvas, turn
    in degrees). One side or both at about half the pitch (where edge cues put a lattice
    line along a tunnel or a card's middle), or the cell turned a quarter, half the card's
    long side by its short one, or both whole (a lattice with its axes swapped); the
    middle anywhere within half a pitch of the card's, inside the canvas."""
    turn = 0.0
    if rng.random() < 0.5:
        spans = ((rng.uniform(0.45, 0.7), 1.0), (1.0, rng.uniform(0.45, 0.7)),
                 tuple(rng.uniform(0.45, 0.7, 2)))[int(rng.integers(3))]  # pitches, canvas x and y
        size = (spans[0] * pitch[0], spans[1] * pitch[1])
    else:
        turn = 90.0 if rng.random() < 0.5 else -90.0
        long_side = rng.uniform(0.45, 0.7) if rng.random() < 0.75 else 1.0
        spans = (1.0, long_side)
        size = (long_side * pitch[1], pitch[0])  # the crop's width runs along the card's long side
    reach = np.minimum(0.5, 0.5 + _MARGIN - 0.5 * np.array(spans) - 0.02)
    centre = np.array(win_c) + rng.uniform(-reach, reach) * np.array(pitch)
    return (tuple(centre), size), turn


def render_cell(face_id: str | None, rotation: int, rng: np.random.Generator, *,
                out_size: tuple[int, int] = (64, 96), catalogue: Catalogue | None = None,
                augment: Augment | None = None, style: CardStyle | None = None,
                art: np.ndarray | None = None) -> np.ndarray:
    """A camera's crop (uint8 BGR, ``out_size`` = (width, height)) of the cell holding
    ``face_id`` at ``rotation`` (0|180), or of an empty cell when ``face_id`` is None.

    The crop nominally spans the cell's pitch (one card plus the gap), portrait, north up;
    ``augment`` (default ``Augment()``) says how far reality strays from that. The card is
    drawn with ``style`` (default: a sampled one), or is ``art`` when given: the caller's
    picture of this face already turned to ``rotation`` (a scan read at training time).
    """
    cat = catalogue or default_catalogue()
    aug = augment or Augment()
    if face_id is None:
        return _render(_Centre("empty"), rng, out_size, cat, aug, style)
    if rotation not in (0, 180):
        raise ValueError(f"a card lies upright (0) or turned half a turn (180), not {rotation}")
    cat.face(face_id)  # an unknown id fails here, with the catalogue's message
    return _render(_Centre("face", face_id, rotation, art=art), rng, out_size, cat, aug, style)


def render_abstain(rng: np.random.Generator, kind: str | None = None, *, out_size: tuple[int, int] = (64, 96),
                   catalogue: Catalogue | None = None, augment: Augment | None = None,
                   art: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """A hard negative for the classifier's abstain class, and which kind it is: 'hand'
    (a hand over most of the cell), 'action' (an action card), 'crosswise' (a path card
    turned 90°), 'back' (a card back), 'offset' (a card far off its cell), 'misscut' (a
    cell cut at the wrong pitch, see ``_misscut_window``). ``art``: for an 'action', a
    'back' or the card in the middle of a 'misscut', the caller's picture of the card (a
    scan) instead of a drawn one."""
    cat = catalogue or default_catalogue()
    aug = augment or Augment()
    if kind is None:
        kind = ABSTAIN_KINDS[int(rng.integers(len(ABSTAIN_KINDS)))]
    kinds = (*ABSTAIN_KINDS, MISSCUT)
    if kind not in kinds:
        raise ValueError(f"unknown abstain kind {kind!r}; use one of {', '.join(kinds)}")
    if art is not None and kind not in ("action", "back", MISSCUT):
        raise ValueError(f"a picture can stand in for an action card, a card back or the card a "
                         f"misscut crop cuts, not for {kind!r}")
    if kind == "hand":
        faces = [f.id for f in cat.faces.values()]
        if rng.random() < 0.8:
            centre = _Centre("face", faces[int(rng.integers(len(faces)))], int(rng.choice([0, 180])), hand="cover")
        else:
            centre = _Centre("empty", hand="cover")
    else:
        centre = _Centre(kind, art=art)
    return _render(centre, rng, out_size, cat, aug, None), kind
