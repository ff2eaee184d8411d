"""Procedural Saboteur card art, drawn from the catalogue's topology.

Why this exists: the ONNX card classifier (and the synthetic table photos the vision
pipeline is tested on) need many thousands of labelled card images, and the publisher's
art may not ship with the product. So every card is *drawn*: the tunnels come from the
face's data (``engine.catalogue.Face``), never from a per-card picture, which means a face
added to ``cards.json`` renders without code, and the picture is right by construction
(an open edge has a tunnel meeting its midpoint, a stub ends in a rounded cap inside the
card, two tunnels of one card stay apart).

How the pieces fit:

* ``CardStyle`` holds everything that differs between printings, scanners and lighting at
  print time (rock colour, tunnel width, wall darkness, border, corners, print contrast...).
  ``CardStyle.sample(rng)`` draws a wide range for domain randomisation;
  ``CardStyle.reference()`` is one fixed plausible look for tests and previews.
* ``_plan_tunnels`` turns a face into centre lines with radii (arms to a hub, curves,
  straights, stubs), ``_tunnel_masks`` rasterises, warps and separates them.
* ``_paint_rock`` is the watercolour look: smoothed noise washes, Voronoi stone blocks with
  darker outlines, cracks, hatching, dark wall bands along the tunnels. The noise fields are
  expensive, so they live in a per-size ``_Bank`` built once from a fixed seed; a card picks
  and flips entries with its own generator, so output depends only on the caller's seed.
* features (boulders in stub caps, start ladder and lantern, gold nugget, coal lump, doors,
  ladders, crystals) and decorations (mice, spiders, lanterns, pebbles) are drawn on top;
  decorations are small and kept away from edge midpoints so they never block a tunnel.
* ``draw_action_card`` and ``draw_card_back`` draw the non-maze cards the classifier must
  abstain on. ``vision.augment`` puts all of this on a table in front of a camera.

Coordinates: image x to the right, y down; an upright card has its north edge at the top.
A face at rotation 180 is the upright picture turned half a turn.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from engine.catalogue import E, EDGE_BITS, N, S, W, Face, Tunnel

CARD_MM = (57.0, 88.0)
CARD_ASPECT = CARD_MM[1] / CARD_MM[0]
DEFAULT_SIZE = (120, 185)

# cv2 drawing with sub-pixel precision: coordinates are passed multiplied by 2**_SHIFT.
_SHIFT = 4
_ONE = 1 << _SHIFT
_AA = cv2.LINE_AA

# edge bit -> (midpoint as fractions of (width, height), unit vector pointing into the card)
_EDGE_GEOM = {
    N: ((0.5, 0.0), (0.0, 1.0)),
    E: ((1.0, 0.5), (-1.0, 0.0)),
    S: ((0.5, 1.0), (0.0, -1.0)),
    W: ((0.0, 0.5), (1.0, 0.0)),
}
_CYCLE = (N, E, S, W)


# --------------------------------------------------------------------------- style


@dataclass(frozen=True)
class CardStyle:
    """The look of one printing of the cards; every field is a knob for randomisation.

    Fractions are of the card width unless said otherwise; colours are BGR 0..255.
    """

    rock_hue: float = 185.0  # degrees; pale blue-grey in the publisher's printing
    rock_saturation: float = 0.10
    rock_lightness: float = 0.72
    wash: float = 0.12  # strength of the watercolour blotches
    block_scale: float = 0.5  # 0: many small stone blocks, 1: few large ones
    wall_darkness: float = 0.45  # the darker stone rim along every tunnel
    wall_width: float = 0.045
    ink_darkness: float = 0.65  # outlines and cracks
    ink_warmth: float = 0.1  # 0 graphite grey, 1 sepia
    tunnel_whiteness: float = 0.97
    tunnel_cream: float = 0.05
    tunnel_width: float = 0.33  # at the edge midpoints, of the card width
    waviness: float = 0.5
    crack_density: float = 0.5
    border: bool = False
    border_colour: tuple[int, int, int] = (240, 246, 248)
    border_width: float = 0.03
    corner_radius: float = 0.06
    decoration_prob: float = 0.35
    line_sharpness: float = 0.8  # 1: crisp print, 0: soft
    print_saturation: float = 1.0
    print_contrast: float = 1.0
    print_gamma: float = 1.0
    paper_grain: float = 0.02
    swell: float = 0.0  # how much wider than at the edges a tunnel gets inside the card
    drift: float = 0.0  # how far (of the width) openings and junctions stray from the middle
    boulders: float = 0.0  # how likely big stones lie on the rock masses (the printed cards have them)

    @classmethod
    def reference(cls) -> CardStyle:
        """A fixed look close to the publisher's printing (tests, previews)."""
        return cls()

    @classmethod
    def sample(cls, rng: np.random.Generator, split: str | None = None) -> CardStyle:
        """A random printing; deliberately wider than any one real deck.

        ``split`` keeps training and evaluation styles apart: 'train' and 'test' draw from
        two disjoint halves of style space (see ``held_out``), None draws from all of it.
        An evaluation on 'test' styles then measures what unseen printings would do.
        """
        if split not in (None, "train", "test"):
            raise ValueError(f"a style split is 'train' or 'test' (or None for any), not {split!r}")
        while True:
            style = cls._draw(rng)
            if split is None or style.held_out() == (split == "test"):
                return style

    def held_out(self) -> bool:
        """Whether this style belongs to the 'test' half of style space: a checkerboard over
        rock hue (20° bins), rock lightness (0.08 bins) and tunnel width (0.05 bins), so every
        test style differs from every training style in the combination of all three."""
        cells = (int(self.rock_hue % 360 // 20) + int((self.rock_lightness - 0.5) // 0.08)
                 + int((self.tunnel_width - 0.25) // 0.05))
        return cells % 2 == 1

    @classmethod
    def _draw(cls, rng: np.random.Generator) -> CardStyle:
        u = rng.uniform
        if rng.random() < 0.75:
            hue = float(np.clip(rng.normal(192, 18), 140, 245))
            sat = u(0.02, 0.18)
        else:  # other printings and scanners: warm, green or neutral greys
            hue = u(0, 360)
            sat = u(0.0, 0.08)
        border = bool(rng.random() < 0.4)
        whiteness = u(0.82, 1.0)
        cream = u(0, 1)
        border_colour = (int(250 - 40 * cream * u(0.5, 1)), int(250 - 18 * cream), int(252 - 4 * cream))
        return cls(
            rock_hue=hue,
            rock_saturation=sat,
            rock_lightness=u(0.52, min(0.84, whiteness - 0.1)),
            wash=u(0.03, 0.24),
            block_scale=u(0, 1),
            wall_darkness=u(0.2, 0.7),
            wall_width=u(0.02, 0.065),
            ink_darkness=u(0.3, 0.9),
            ink_warmth=u(0, 0.7),
            tunnel_whiteness=whiteness,
            tunnel_cream=u(0.0, 0.18),
            tunnel_width=u(0.25, 0.40),
            waviness=u(0.05, 1.0),
            crack_density=u(0.05, 1.0),
            border=border,
            border_colour=border_colour,
            border_width=u(0.012, 0.055),
            corner_radius=u(0.025, 0.10),
            decoration_prob=u(0.0, 0.8),
            line_sharpness=u(0.15, 1.0),
            print_saturation=u(0.5, 1.4),
            print_contrast=u(0.72, 1.28),
            print_gamma=u(0.75, 1.3),
            paper_grain=u(0.0, 0.07),
            swell=u(0.0, 0.5) if rng.random() < 0.5 else u(0.0, 0.1),
            drift=u(0.0, 0.22) if rng.random() < 0.5 else u(0.0, 0.05),
            boulders=u(0.0, 0.8) if rng.random() < 0.6 else 0.0,
        )


@dataclass(frozen=True)
class CardRender:
    """A drawn card: colour, coverage and, for maze faces, where the tunnel floor is."""

    image: np.ndarray  # uint8 BGR (h, w, 3)
    alpha: np.ndarray  # uint8 (h, w): 0 outside the rounded corners
    tunnels: tuple[np.ndarray, ...] = ()  # uint8 masks of each visible tunnel (catalogue order)


# --------------------------------------------------------------------------- noise bank


def _smooth_noise(rng: np.random.Generator, w: int, h: int, feature: float) -> np.ndarray:
    feature = max(feature, 1.5)
    gw, gh = int(math.ceil(w / feature)) + 3, int(math.ceil(h / feature)) + 3
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    # smooth at a quarter of the feature size, then enlarge: the same look as blurring the
    # full image, at a cost that does not grow with the feature size
    step = min(4.0, feature)
    mid = cv2.resize(small, (int(gw * step), int(gh * step)), interpolation=cv2.INTER_CUBIC)
    mid = cv2.GaussianBlur(mid, (0, 0), step / 3.0)
    big = cv2.resize(mid, (int(gw * feature), int(gh * feature)), interpolation=cv2.INTER_CUBIC)
    ox = int(rng.integers(0, big.shape[1] - w + 1))
    oy = int(rng.integers(0, big.shape[0] - h + 1))
    out = big[oy:oy + h, ox:ox + w]
    return ((out - out.mean()) / (out.std() + 1e-6)).astype(np.float32)


def _blocks(rng: np.random.Generator, w: int, h: int, spacing: float):
    """Voronoi stone blocks: per-pixel shade, distance to the nearest joint, joint priority."""
    pad = int(spacing) + 2
    w2, h2 = w + 2 * pad, h + 2 * pad
    nx, ny = int(w2 / spacing) + 1, int(h2 / (spacing * 1.15)) + 1
    gx, gy = np.meshgrid(np.arange(nx), np.arange(ny))
    px = np.clip(((gx + rng.uniform(0.1, 0.9, gx.shape)) * spacing).astype(int), 0, w2 - 1).ravel()
    py = np.clip(((gy + rng.uniform(0.1, 0.9, gy.shape)) * spacing * 1.15).astype(int), 0, h2 - 1).ravel()
    src = np.full((h2, w2), 255, np.uint8)
    src[py, px] = 0
    _, labels = cv2.distanceTransformWithLabels(src, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL)
    nlab = int(labels.max()) + 1
    sx = np.zeros(nlab, np.float32)
    sy = np.zeros(nlab, np.float32)
    sx[labels[py, px]] = px
    sy[labels[py, px]] = py
    # wobbly joints: warp the label map before finding its boundaries
    dx = _smooth_noise(rng, w2, h2, spacing * 0.6) * spacing * 0.12
    dy = _smooth_noise(rng, w2, h2, spacing * 0.6) * spacing * 0.12
    xs, ys = np.meshgrid(np.arange(w2, dtype=np.float32), np.arange(h2, dtype=np.float32))
    lab = cv2.remap(labels.astype(np.float32), xs + dx, ys + dy, cv2.INTER_NEAREST,
                    borderMode=cv2.BORDER_REPLICATE).astype(np.int32)
    lab = lab[pad:pad + h, pad:pad + w]
    joint = np.zeros((h, w), bool)
    joint[:, :-1] |= lab[:, :-1] != lab[:, 1:]
    joint[:-1, :] |= lab[:-1, :] != lab[1:, :]
    prio = rng.integers(1, 256, nlab).astype(np.uint8)
    joint_prio = np.where(joint, prio[lab], 0).astype(np.uint8)
    dist = cv2.distanceTransform((~joint).astype(np.uint8), cv2.DIST_L2, 3)
    theta = rng.uniform(0, 2 * np.pi)
    xx, yy = np.meshgrid(np.arange(w, dtype=np.float32) + pad, np.arange(h, dtype=np.float32) + pad)
    grad = ((xx - sx[lab]) * math.cos(theta) + (yy - sy[lab]) * math.sin(theta)) / spacing
    shade = np.clip(0.6 * rng.standard_normal(nlab).astype(np.float32)[lab] + 1.2 * grad, -1.6, 1.6)
    shade = cv2.GaussianBlur(shade.astype(np.float32), (0, 0), max(0.5, 0.006 * w))
    return shade, dist.astype(np.float32), joint_prio


def _cracks(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    img = np.zeros((h, w), np.uint8)
    thick = max(1, int(round(w / 170)))
    for _ in range(22):
        p = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        ang = rng.uniform(0, 2 * np.pi)
        pts = [p.copy()]
        for _ in range(int(rng.integers(2, 7))):
            ang += rng.normal(0, 0.6)
            p = p + rng.uniform(0.03, 0.09) * w * np.array([math.cos(ang), math.sin(ang)])
            pts.append(p.copy())
        arr = (np.array(pts) * _ONE).astype(np.int32)
        cv2.polylines(img, [arr], False, int(rng.integers(1, 256)), thick, cv2.LINE_8, _SHIFT)
    return img


def _hatch(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    k = max(5, int(w * 0.07) | 1)
    kern = np.zeros((k, k), np.float32)
    for i in range(k):  # pencil strokes run diagonally, as in the printed shading
        kern[i, k - 1 - i] = 1.0 / k
    noise = rng.standard_normal((h, w)).astype(np.float32)
    out = cv2.filter2D(noise, -1, kern, borderType=cv2.BORDER_REFLECT)
    return ((out - out.mean()) / (out.std() + 1e-6)).astype(np.float32)


@dataclass(frozen=True, eq=False)
class _Bank:
    low: tuple
    mid: tuple
    fine: tuple
    warp: tuple
    blocks: tuple  # per block-size group: tuple of (shade, dist, prio)
    cracks: tuple
    hatch: tuple
    damp: np.ndarray
    grid: tuple


_BLOCK_SPACING = (0.2, 0.28, 0.38)


@lru_cache(maxsize=6)
def _bank(w: int, h: int) -> _Bank:
    """Noise fields for one card size, from a fixed seed so that renders never depend on
    which cards were drawn before (the caller's generator only picks and flips entries).
    Big cards (whole-table renders) get fewer entries, to bound memory (~10 MB at 120x185,
    ~60 MB at 570x880); each entry has four flips and entries combine freely."""
    rng = np.random.default_rng([w, h, 0x5AB0])
    k = int(np.clip(2.2e6 / (w * h), 3, 10))
    kb = 4 if k >= 6 else 2

    def low():
        return (_smooth_noise(rng, w, h, w * 0.45) + 0.5 * _smooth_noise(rng, w, h, w * 0.2)
                + 0.25 * _smooth_noise(rng, w, h, w * 0.09)) / 1.15

    lows = tuple(low() for _ in range(k))
    mids = tuple(_smooth_noise(rng, w, h, w * 0.05) for _ in range(k))
    fines = tuple(_smooth_noise(rng, w, h, 1.2) for _ in range(k))
    # walls wander at two scales: slow bends and a jagged rim of stones
    warps = tuple(tuple(_smooth_noise(rng, w, h, w * 0.22) + 0.55 * _smooth_noise(rng, w, h, w * 0.06)
                        for _ in range(2)) for _ in range(k))
    blocks = tuple(tuple(_blocks(rng, w, h, sp * w) for _ in range(kb)) for sp in _BLOCK_SPACING)
    cracks = tuple(_cracks(rng, w, h) for _ in range(k))
    hatch = tuple(_hatch(rng, w, h) for _ in range(kb))
    # the warp that makes walls wavy fades out near the border, so openings stay at midpoints
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    edge = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys))
    t = np.clip(edge / (0.16 * w), 0, 1)
    damp = (t * t * (3 - 2 * t)).astype(np.float32)
    for arr in (*lows, *mids, *fines, *cracks, *hatch, damp, xs, ys, *(a for pair in warps for a in pair),
                *(a for group in blocks for entry in group for a in entry)):
        arr.setflags(write=False)  # shared by every card of this size
    return _Bank(lows, mids, fines, warps, blocks, cracks, hatch, damp, (xs, ys))


def _pick(rng: np.random.Generator, fields: tuple, flip: int | None = None):
    arr = fields[int(rng.integers(len(fields)))]
    f = int(rng.integers(4)) if flip is None else flip
    if f & 1:
        arr = arr[:, ::-1]
    if f & 2:
        arr = arr[::-1, :]
    return arr


def _flip_all(arrs, f):
    out = []
    for a in arrs:
        if f & 1:
            a = a[:, ::-1]
        if f & 2:
            a = a[::-1, :]
        out.append(a)
    return out


# --------------------------------------------------------------------------- small helpers


def _hls_bgr(hue_deg: float, light: float, sat: float) -> np.ndarray:
    r, g, b = colorsys.hls_to_rgb((hue_deg % 360) / 360.0, float(np.clip(light, 0, 1)), float(np.clip(sat, 0, 1)))
    return np.array([b, g, r], np.float32)


def _ip(p) -> tuple[int, int]:
    return int(round(float(p[0]) * _ONE)), int(round(float(p[1]) * _ONE))


def _ipts(pts) -> np.ndarray:
    return np.round(np.asarray(pts, np.float64) * _ONE).astype(np.int32)


def _col(c) -> tuple[int, int, int]:
    c = np.clip(np.asarray(c, np.float64), 0, 255)
    return int(c[0]), int(c[1]), int(c[2])


def _blob_poly(rng, c, rx, ry, n=9, jag=0.18, angle=0.0) -> np.ndarray:
    a = np.arange(n) / n * 2 * np.pi + rng.uniform(-0.25, 0.25, n)
    rr = 1 + rng.uniform(-jag, jag, n)
    x, y = np.cos(a) * rx * rr, np.sin(a) * ry * rr
    ca, sa = math.cos(angle), math.sin(angle)
    return np.stack([c[0] + x * ca - y * sa, c[1] + x * sa + y * ca], 1)


def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


@lru_cache(maxsize=64)
def _corner_alpha(w: int, h: int, radius_px: int) -> np.ndarray:
    a = np.zeros((h, w), np.uint8)
    r = max(0, min(radius_px, w // 2 - 1, h // 2 - 1))
    _fill_round_rect(a, 0, 0, w, h, r, 255)
    a.setflags(write=False)
    return a


def _fill_round_rect(img, x0, y0, x1, y1, r, colour):
    """Rounded rectangle covering [x0, x1) x [y0, y1), anti-aliased."""
    x1 -= 1
    y1 -= 1
    if r <= 0:
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), colour, -1)
        return
    pts = []
    for cx, cy, a0 in ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90), (x0 + r, y0 + r, 180)):
        for a in np.linspace(a0, a0 + 90, 8):
            pts.append((cx + 0.5 + (r + 0.5) * math.cos(math.radians(a)) - 0.5,
                        cy + 0.5 + (r + 0.5) * math.sin(math.radians(a)) - 0.5))
    cv2.fillPoly(img, [_ipts(pts)], colour, _AA, _SHIFT)


# --------------------------------------------------------------------------- tunnel geometry


@dataclass
class _Path:
    pts: np.ndarray  # (n, 2) centre line, pixels
    rad: np.ndarray  # (n,) half-width along it


@dataclass
class _Plan:
    tunnel: Tunnel
    paths: list = field(default_factory=list)
    blobs: list = field(default_factory=list)  # (centre, rx, ry, angle_deg)
    anchor: tuple = (0.0, 0.0)  # where this tunnel's feature (door, ladder...) goes
    anchor_dir: tuple = (0.0, 1.0)  # tunnel direction at the anchor
    anchor_rad: float = 1.0
    stub_end: tuple | None = None  # (point, inward direction, cap radius, depth)
    bend_out: tuple | None = None  # for curves: unit vector from the corner through the bend


def _mid(bit, w, h):
    (fx, fy), d = _EDGE_GEOM[bit]
    return np.array([fx * w, fy * h]), np.array(d, np.float64)


def _bezier(p0, p1, p2, p3, t):
    t = t[:, None]
    u = 1 - t
    return u ** 3 * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t ** 3 * p3


def _wave(rng, s, amp):
    f1, f2 = rng.uniform(0.5, 1.3), rng.uniform(1.6, 3.2)
    return amp * (np.sin(2 * np.pi * (f1 * s + rng.uniform())) + 0.45 * np.sin(2 * np.pi * (f2 * s + rng.uniform())))


def _make_path(rng, ctrl, r0, style, w, fixed_end: bool, spacing=None, swell: float = 0.0) -> _Path:
    dense = _bezier(*ctrl, np.linspace(0, 1, 80))
    seg = np.hypot(*np.diff(dense, axis=0).T)
    arc = np.concatenate([[0], np.cumsum(seg)])
    length = arc[-1]
    n = max(6, int(length / max(1.0, (spacing or r0 / 3.0))))
    s = np.linspace(0, 1, n)
    pts = np.stack([np.interp(s * length, arc, dense[:, 0]), np.interp(s * length, arc, dense[:, 1])], 1)
    tang = np.gradient(pts, axis=0)
    tang /= np.linalg.norm(tang, axis=1, keepdims=True) + 1e-9
    normal = np.stack([-tang[:, 1], tang[:, 0]], 1)
    # both ends fixed (edge to edge): offsets vanish with zero slope at each end, so the
    # tunnel meets every edge square on, at its midpoint
    env = np.sin(np.pi * s) ** 2 if fixed_end else np.sin(np.pi * s / 2) ** 2
    wav = style.waviness
    pts = pts + normal * (_wave(rng, s, 0.028 * w * wav * min(1.0, length / w)) * env)[:, None]
    env_r = _smoothstep(0.0, 0.22, s) * (_smoothstep(0.0, 0.22, 1 - s) if fixed_end else 1)
    rad = r0 * (1 + 0.16 * wav * _wave(rng, s, 1.0) / 1.45 * env_r)
    # Some printings open the tunnel wide inside the card and leave thin rock walls; the
    # width at the edge midpoints stays, so the card still meets its neighbours the same.
    rad = rad * (1 + swell * (np.sin(np.pi * s) ** 2 if fixed_end else _smoothstep(0.2, 1.0, s)))
    return _Path(pts, rad)


def _interleaved(a: int, b: int) -> bool:
    """Two tunnels whose edges alternate around the card must cross (one over the other)."""
    seq = [1 if a & bit else 2 for bit in _CYCLE if (a | b) & bit]
    changes = sum(seq[i] != seq[(i + 1) % len(seq)] for i in range(len(seq)))
    return changes >= 4


def _plan_tunnels(face: Face, style: CardStyle, rng: np.random.Generator, w: int, h: int) -> list[_Plan]:
    r0 = style.tunnel_width * w / 2
    centre = np.array([w / 2, h / 2])
    tunnels = face.tunnels
    opened = 0
    for t in tunnels:
        opened |= t.edges
    # Hand-painted printings place an opening a little off the midpoint (it still covers
    # it, so the card still connects) and push junctions toward one side, even a closed
    # one, leaving that wall thin: a classifier trained on centred tunnels reads such a
    # card's thin wall as an opening.
    drift = style.drift * w
    shifted = {}
    for b in _CYCLE:
        p, d = _mid(b, w, h)
        off = float(np.clip(rng.normal(0, 0.5 * drift), -0.85 * r0, 0.85 * r0)) if drift else 0.0
        shifted[b] = (p + np.array([-d[1], d[0]]) * off, d)
    plans = []
    for t in tunnels:
        bits = [b for b in _CYCLE if t.edges & b]
        plan = _Plan(t)
        crossing = any(o is not t and _interleaved(t.edges, o.edges) for o in tunnels)
        others = [b for b in _CYCLE if (opened & b) and not (t.edges & b)]
        if len(bits) == 1:
            _plan_stub(plan, bits[0], shifted[bits[0]], r0, style, rng, w, h,
                       alone=len(tunnels) == 1 or all(o.is_stub for o in tunnels) or t.ladder)
        else:
            mids = [shifted[b][0] for b in bits]
            hub = centre + 0.3 * (np.mean(mids, axis=0) - centre)
            if not crossing:
                for b in others:  # leave room for the card's other tunnels and stubs
                    d = shifted[b][0] - centre
                    hub = hub - d / (np.linalg.norm(d) + 1e-9) * 0.1 * w
                hub = hub + rng.normal(0, 0.025 * w, 2) * style.waviness
                if drift and not others:
                    # about the card's middle, not the openings': a junction pushed toward
                    # its closed side leaves the thinnest wall there
                    hub = centre + rng.uniform(-1, 1, 2) * drift * (1.0 if len(bits) > 2 else 0.5)
            if len(bits) == 2:
                (p0, d0), (p1, d1) = shifted[bits[0]], shifted[bits[1]]
                if np.dot(d0, d1) < -0.5:  # straight through
                    k0 = np.linalg.norm(p1 - p0) / 3
                    bias = (hub - centre) * 1.5
                    ctrl = (p0 - d0 * 0.4 * r0, p0 + d0 * k0 + bias, p1 + d1 * k0 + bias, p1 - d1 * 0.4 * r0)
                    path = _make_path(rng, ctrl, r0, style, w, True, swell=style.swell)
                    plan.paths.append(path)
                    i = len(path.pts) // 2
                    plan.anchor = tuple(path.pts[i])
                    plan.anchor_dir = tuple(d0)
                    plan.anchor_rad = float(path.rad[i])
                else:  # a curve around the corner between the two edges
                    kappa = rng.uniform(0.5, 0.72) if not others else rng.uniform(0.36, 0.5)
                    k0 = np.linalg.norm(centre - p0) * kappa
                    k1 = np.linalg.norm(centre - p1) * kappa
                    ctrl = (p0 - d0 * 0.4 * r0, p0 + d0 * k0, p1 + d1 * k1, p1 - d1 * 0.4 * r0)
                    path = _make_path(rng, ctrl, r0, style, w, True, swell=style.swell)
                    plan.paths.append(path)
                    i = len(path.pts) // 2
                    plan.anchor = tuple(path.pts[i])
                    tang = path.pts[min(i + 1, len(path.pts) - 1)] - path.pts[max(i - 1, 0)]
                    plan.anchor_dir = tuple(tang / (np.linalg.norm(tang) + 1e-9))
                    plan.anchor_rad = float(path.rad[i])
                    corner = np.array([w if (E in (bits[0], bits[1])) else 0.0, h if (S in (bits[0], bits[1])) else 0.0])
                    out = corner - path.pts[i]
                    plan.bend_out = tuple(-out / (np.linalg.norm(out) + 1e-9))  # away from the corner
            else:  # a junction: arms from each edge to a chamber
                # a swollen chamber still leaves rock at every closed edge's midpoint
                rx, ry = (min(r0 * (1 + style.swell) * rng.uniform(1.0, 1.45), 0.33 * w) for _ in range(2))
                hub = _clear_of_closed_edges(hub, max(rx, ry) + 0.06 * w, opened, w, h)
                for b in bits:
                    p, d = shifted[b]
                    dist = np.linalg.norm(hub - p)
                    ctrl = (p - d * 0.4 * r0, p + d * 0.5 * dist, hub - (hub - p) * 0.2, hub)
                    plan.paths.append(_make_path(rng, ctrl, r0, style, w, False, swell=style.swell))
                plan.blobs.append((hub, rx, ry, rng.uniform(0, 180)))
                plan.anchor = tuple(hub)
                plan.anchor_rad = float(min(rx, ry))
        plans.append(plan)
    return plans


def _clear_of_closed_edges(hub, room: float, opened: int, w: int, h: int) -> np.ndarray:
    """``hub`` moved, if need be, so a chamber of radius ``room`` leaves rock at every
    closed edge (a drifted junction must not open the card where it is closed)."""
    x, y = hub
    x = max(x, room) if not opened & W else x
    x = min(x, w - room) if not opened & E else x
    y = max(y, room) if not opened & N else y
    y = min(y, h - room) if not opened & S else y
    return np.array([x, y])


def _plan_stub(plan, bit, end, r0, style, rng, w, h, alone):
    p, d = end
    ext = h / 2 if bit in (N, S) else w / 2
    r_end = r0 * rng.uniform(0.82, 1.0)
    hi = 0.8 * ext  # the cap's far side never gets near the centre of the card
    # a ladder's hole needs a deep cap, clear of the opening
    lo = min(hi, (0.65 if plan.tunnel.ladder else 0.55 if alone else 0.4) * ext)
    reach = rng.uniform(lo, hi) if alone else rng.uniform(0.9 * lo, lo)
    depth = max(0.3 * r0, reach - r_end)
    perp = np.array([-d[1], d[0]])
    side_room = (w / 2 if bit in (N, S) else h / 2) - r_end * 1.2
    lat = float(np.clip(rng.normal(0, 0.05 * w) * style.waviness, -side_room, side_room)) * min(1.0, depth / r0)
    end = p + d * depth + perp * lat
    ctrl = (p - d * 0.4 * r0, p + d * 0.55 * depth, end - d * 0.2 * depth, end)
    path = _make_path(rng, ctrl, r0, style, w, False, spacing=r0 / 3)
    path.rad[-max(1, len(path.rad) // 4):] = np.minimum(path.rad[-max(1, len(path.rad) // 4):], r_end)
    path.rad[-1] = r_end
    plan.paths.append(path)
    plan.stub_end = (end, d, r_end, depth)
    plan.anchor = tuple(end)
    plan.anchor_dir = tuple(d)
    plan.anchor_rad = float(r_end)


def _raster(plan: _Plan, w: int, h: int) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    for path in plan.paths:
        for (x, y), r in zip(path.pts, path.rad):
            cv2.circle(m, _ip((x, y)), int(max(r, 0.5) * _ONE), 255, -1, _AA, _SHIFT)
    for c, rx, ry, ang in plan.blobs:
        cv2.ellipse(m, _ip(c), (int(rx * _ONE), int(ry * _ONE)), ang, 0, 360, 255, -1, _AA, _SHIFT)
    return m


def _tunnel_masks(plans, style, rng, bank: _Bank, w, h):
    """Rasterise, make the walls wavy, and keep separate tunnels visibly apart."""
    xs, ys = bank.grid
    dx, dy = _flip_all(bank.warp[int(rng.integers(len(bank.warp)))], int(rng.integers(4)))
    amp = 0.026 * w * (0.35 + style.waviness)
    mapx = xs + dx * (amp * bank.damp)
    mapy = ys + dy * (amp * bank.damp)
    masks = [cv2.remap(_raster(p, w, h), mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
             for p in plans]
    gap = max(2, int(round(0.065 * w)))
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * gap + 1, 2 * gap + 1))
    rail = max(2, int(round(0.035 * w)))
    rail_ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rail + 1, 2 * rail + 1))
    binary = [(m > 127).astype(np.uint8) for m in masks]
    decks = []  # (over index, where the upper tunnel spans the lower one)
    for i in range(len(plans)):
        for j in range(i + 1, len(plans)):
            if _interleaved(plans[i].tunnel.edges, plans[j].tunnel.edges):
                # a bridge: the lower tunnel runs up to the upper one's rails and on beyond
                # it, so it reads as one tunnel passing under rather than as two stubs
                o, u = (i, j) if rng.random() < 0.5 else (j, i)
                decks.append((o, binary[o] & binary[u]))
                masks[u][cv2.dilate(binary[o], rail_ker) > 0] = 0
            else:
                grown_i = cv2.dilate(binary[i], ker) > 0
                grown_j = cv2.dilate(binary[j], ker) > 0
                masks[j][grown_i & (binary[j] > 0)] = 0
                masks[i][grown_j & (binary[i] > 0)] = 0
    return masks, decks


# --------------------------------------------------------------------------- painting


def _paint_rock(tunnel: np.ndarray, style: CardStyle, rng, bank: _Bank, w: int, h: int,
                shadow: np.ndarray | None = None) -> np.ndarray:
    """The watercolour picture for a tunnel mask (float32 0..255 in, BGR float 0..1 out)."""
    t = tunnel.astype(np.float32) * (1 / 255.0)
    binary = (tunnel > 127).astype(np.uint8)
    d_rock = cv2.distanceTransform(1 - binary, cv2.DIST_L2, 3)
    d_tun = cv2.distanceTransform(binary, cv2.DIST_L2, 3)
    low = _pick(rng, bank.low)
    mid = _pick(rng, bank.mid)
    group = min(2, int(style.block_scale * 3))
    variants = bank.blocks[group]
    shade, bdist, bprio = _flip_all(variants[int(rng.integers(len(variants)))], int(rng.integers(4)))
    cracks = _pick(rng, bank.cracks)
    hatch = _pick(rng, bank.hatch)

    ww = max(1.5, style.wall_width * w)
    # watercolour: blotchy washes whose rims are a little darker (pigment pools at the edge)
    bloom = np.abs(low + 0.3) < 0.18
    wash = 0.75 * low + 0.35 * mid
    wash = np.where(wash > 0, 0.5 * wash, wash)  # pigment pools darker; paper shows through less
    light = 1 + style.wash * wash - style.wash * 0.35 * bloom
    light += 0.055 * shade - 0.14 * np.exp(-bdist / (0.035 * w))
    light -= 0.05 * np.maximum(hatch, 0) * (0.4 + style.wash * 2)
    near = np.exp(-np.maximum(d_rock - ww, 0) / (0.09 * w))
    light -= 0.16 * near
    band = 1 - _smoothstep(ww * 0.65, ww * 1.25, d_rock)
    light *= 1 - band * style.wall_darkness * (0.8 + 0.25 * mid)
    if shadow is not None:
        light *= 1 - shadow
    base = _hls_bgr(style.rock_hue, style.rock_lightness, style.rock_saturation)
    # tunnel floor: near-white paper, cream in some printings, a bluish shade by the walls
    cream = style.tunnel_cream
    floor = np.array([1 - cream * 0.9, 1 - cream * 0.35, 1.0], np.float32) * style.tunnel_whiteness
    # however wild the washes, rock stays clearly darker than the floor: that contrast is
    # the one thing every printing shares and the classifier must rely on
    light = np.minimum(light, (float(floor.mean()) - 0.13) / max(float(base.mean()), 1e-3))
    rock = base[None, None, :] * light[..., None]
    by_wall = np.exp(-d_tun / (0.045 * w))
    tint = 0.10 * by_wall + 0.012 * mid
    floor_img = floor[None, None, :] * (1 - tint)[..., None] + base[None, None, :] * (0.10 * by_wall)[..., None]

    img = floor_img * t[..., None] + rock * (1 - t)[..., None]

    # ink: the crisp outline of every tunnel, stone-block joints and cracks in the rock
    lw = max(0.7, 0.011 * w)
    outline = np.clip(1.2 - np.abs(d_rock - d_tun) / lw * 0.8, 0, 1)
    rim = np.clip(1 - np.abs(d_rock - ww * 1.15) / (lw * 0.9), 0, 1) * 0.45
    # most block joints are drawn (an undrawn joint would leave a bare step in the shading)
    thr = int(255 * (0.6 + 0.4 * style.crack_density))
    joints = ((bprio > 0) & (bprio < thr)).astype(np.float32)
    cthr = int(255 * style.crack_density)
    crack = ((cracks > 0) & (cracks < cthr)).astype(np.float32) * 0.5
    lines = cv2.GaussianBlur(np.maximum(joints * 0.8, crack), (0, 0), max(0.45, 0.0055 * w))
    ink_a = np.clip(outline + rim + lines * 1.6 * (1 - t) * (1 - 0.6 * band), 0, 1) * style.ink_darkness
    ink = (1 - style.ink_warmth) * np.array([0.32, 0.33, 0.33]) + style.ink_warmth * np.array([0.16, 0.24, 0.33])
    ink = (ink * (1.0 - 0.5 * style.ink_darkness)).astype(np.float32)
    img = img * (1 - ink_a)[..., None] + ink[None, None, :] * ink_a[..., None]
    return img


def _finish(img_u8: np.ndarray, style: CardStyle, rng, bank: _Bank, w: int, h: int, border=None) -> np.ndarray:
    """Print and paper: saturation, contrast, tone, grain, softness, the white border."""
    f = img_u8.astype(np.float32) * (1 / 255.0)
    grey = f.mean(axis=2, keepdims=True)
    f = grey + (f - grey) * style.print_saturation
    f = (f - 0.55) * style.print_contrast + 0.55
    f = np.clip(f, 0, 1) ** style.print_gamma
    if style.paper_grain > 0:
        f *= (1 + style.paper_grain * _pick(rng, bank.fine))[..., None]
    sigma = (1 - style.line_sharpness) * 0.008 * w
    if sigma > 0.3:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    out = np.clip(f * 255 + 0.5, 0, 255).astype(np.uint8)
    has_border = style.border if border is None else border
    if has_border:
        bw = max(1, int(round(style.border_width * w)))
        r = int(round(style.corner_radius * w))
        inner = np.zeros((h, w), np.uint8)
        _fill_round_rect(inner, bw, bw, w - bw, h - bw, max(0, r - bw), 255)
        a = inner.astype(np.float32)[..., None] / 255.0
        col = np.array(style.border_colour, np.float32)
        out = (out * a + col * (1 - a) + 0.5).astype(np.uint8)
    return out


# --------------------------------------------------------------------------- features


# The art's strokes (outlines, ladder rails, lantern frames, legs and tails) are this share
# of the card's width, at least a pixel: the width of the smallest cards the classifier is
# trained on (a 40 x 60 crop's card is 50 pixels wide) draws them one pixel wide. A
# card drawn larger then looks the same brought down, as a printed card does under any
# camera; with strokes of a fixed pixel or two, a card drawn for a 12 MP photo showed the
# start's ladder and hole so faint that the classifier read a crossroads.
STROKE_SHARE = 1 / 50


def _stroke(w: int) -> float:
    """The stroke width unit (pixels) for a card ``w`` pixels wide."""
    return max(1.0, w * STROKE_SHARE)


def _boulder(img, rng, c, r, s, tone=None):
    tone = np.array(tone if tone is not None else (78, 90, 102), np.float64) * rng.uniform(0.8, 1.15)
    poly = _blob_poly(rng, c, r, r * rng.uniform(0.75, 1.0), n=9, jag=0.16, angle=rng.uniform(0, np.pi))
    cv2.fillPoly(img, [_ipts(poly)], _col(tone), _AA, _SHIFT)
    lit = c + (poly - c) * 0.62 + np.array([-0.22, -0.25]) * r
    cv2.fillPoly(img, [_ipts(lit)], _col(tone * 1.35 + 12), _AA, _SHIFT)
    cv2.polylines(img, [_ipts(poly)], True, _col(tone * 0.45), max(1, int(s)), _AA, _SHIFT)


def _nugget(img, rng, c, r, s):
    poly = _blob_poly(rng, c, r, r * 0.85, n=10, jag=0.22, angle=rng.uniform(0, np.pi))
    cv2.fillPoly(img, [_ipts(poly)], (24, 120, 205), _AA, _SHIFT)
    for k in range(3):  # facets catching the light
        q = c + (poly - c) * rng.uniform(0.35, 0.7) + rng.normal(0, 0.15, 2) * r - np.array([0.15, 0.2]) * r
        cv2.fillPoly(img, [_ipts(q)], _col((40 + 30 * k, 175 + 20 * k, 240 + 5 * k)), _AA, _SHIFT)
    cv2.polylines(img, [_ipts(poly)], True, (10, 60, 125), max(1, int(1.4 * s)), _AA, _SHIFT)


def _hole(img, rng, c, rx, ry, ang, s):
    poly = _blob_poly(rng, c, rx * 1.12, ry * 1.12, n=10, jag=0.1, angle=ang)
    cv2.fillPoly(img, [_ipts(poly)], (150, 156, 160), _AA, _SHIFT)
    cv2.ellipse(img, _ip(c), (int(rx * _ONE), int(ry * _ONE)), math.degrees(ang), 0, 360, (38, 36, 40), -1, _AA, _SHIFT)
    cv2.ellipse(img, _ip(c), (int(rx * _ONE), int(ry * _ONE)), math.degrees(ang), 180, 330, (70, 72, 78),
                max(1, int(s)), _AA, _SHIFT)


def _ladder(img, p0, p1, width, s, colour=(40, 95, 170)):
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    L = np.linalg.norm(d) + 1e-9
    n = np.array([-d[1], d[0]]) / L
    dark = _col(np.array(colour) * 0.45)
    th = max(1, int(round(0.16 * width)))
    k = max(2, int(L / (0.42 * width)))
    for i in range(1, k):
        a = p0 + d * i / k
        cv2.line(img, _ip(a - n * width / 2), _ip(a + n * width / 2), dark, th + max(1, int(s)), _AA, _SHIFT)
        cv2.line(img, _ip(a - n * width / 2), _ip(a + n * width / 2), colour, th, _AA, _SHIFT)
    for side in (-0.5, 0.5):
        a, b = p0 + n * width * side, p1 + n * width * side
        cv2.line(img, _ip(a), _ip(b), dark, th + max(2, int(2 * s)), _AA, _SHIFT)
        cv2.line(img, _ip(a), _ip(b), colour, th, _AA, _SHIFT)


def _lantern(img, c, size, s, lit=True):
    c = np.asarray(c, float)
    hw, hh = size * 0.32, size * 0.5
    frame = (70, 70, 75)
    if lit:
        cv2.circle(img, _ip(c), int(size * 0.55 * _ONE), (150, 225, 250), -1, _AA, _SHIFT)
    body = _ipts([c + (-hw, -hh * 0.6), c + (hw, -hh * 0.6), c + (hw * 0.8, hh * 0.7), c + (-hw * 0.8, hh * 0.7)])
    cv2.fillPoly(img, [body], (120, 215, 245) if lit else (225, 228, 230), _AA, _SHIFT)
    cv2.polylines(img, [body], True, frame, max(1, int(s)), _AA, _SHIFT)
    cv2.line(img, _ip(c + (0, -hh * 0.6)), _ip(c + (0, hh * 0.7)), frame, max(1, int(s)), _AA, _SHIFT)
    cv2.ellipse(img, _ip(c + (0, -hh * 0.75)), (int(hw * 0.6 * _ONE), int(hh * 0.3 * _ONE)), 0, 180, 360, frame,
                max(1, int(s)), _AA, _SHIFT)
    cv2.rectangle(img, _ip(c + (-hw, hh * 0.7)), _ip(c + (hw, hh * 0.85)), frame, -1, _AA, _SHIFT)


def _door(img, rng, p, d, half, thick, colour, s):
    p, d = np.asarray(p, float), np.asarray(d, float)
    d = d / (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]])
    col = np.array(colour, float)
    quad = [p - n * half - d * thick / 2, p + n * half - d * thick / 2, p + n * half + d * thick / 2,
            p - n * half + d * thick / 2]
    cv2.fillPoly(img, [_ipts(quad)], _col(col), _AA, _SHIFT)
    k = max(3, int(half * 2 / (0.12 * thick + 3 * s)))
    for i in range(1, k):  # planks
        a = p - n * half + n * (2 * half) * i / k
        cv2.line(img, _ip(a - d * thick / 2), _ip(a + d * thick / 2), _col(col * 0.6), max(1, int(s * 0.8)), _AA, _SHIFT)
    for side in (-0.3, 0.3):  # iron bands
        cv2.line(img, _ip(p - n * half + d * thick * side), _ip(p + n * half + d * thick * side), (55, 55, 60),
                 max(1, int(s)), _AA, _SHIFT)
    cv2.polylines(img, [_ipts(quad)], True, _col(col * 0.35), max(1, int(1.3 * s)), _AA, _SHIFT)
    for side in (-1, 1):  # timber posts in the walls
        q = p + n * side * half
        post = [q - d * thick * 0.75 - n * thick * 0.3, q + d * thick * 0.75 - n * thick * 0.3,
                q + d * thick * 0.75 + n * thick * 0.3, q - d * thick * 0.75 + n * thick * 0.3]
        cv2.fillPoly(img, [_ipts(post)], (40, 80, 125), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(post)], True, (20, 40, 65), max(1, int(s)), _AA, _SHIFT)


# no gold or orange tones: a glowing yellow crystal would read as the gold goal's nugget
_GEM_COLOURS = ((200, 60, 170), (210, 120, 60), (70, 60, 210), (90, 190, 70), (210, 200, 60), (170, 80, 230))


def _crystal(img, rng, c, r, s):
    col = np.array(_GEM_COLOURS[int(rng.integers(len(_GEM_COLOURS)))], float) * rng.uniform(0.8, 1.1)
    c = np.asarray(c, float)
    glow = np.zeros(img.shape[:2], np.float32)
    cv2.circle(glow, _ip(c), int(r * 1.3 * _ONE), 1.0, -1, _AA, _SHIFT)
    glow = cv2.GaussianBlur(glow, (0, 0), max(1.0, r * 0.5))[..., None] * 0.55
    img[:] = (img * (1 - glow) + (col * 0.6 + 100) * glow).astype(img.dtype)
    for _ in range(int(rng.integers(2, 5))):  # a cluster of prisms
        ang = rng.uniform(-0.8, 0.8) - np.pi / 2
        ln, wd = r * rng.uniform(0.9, 1.4), r * rng.uniform(0.35, 0.5)
        base = c + rng.normal(0, 0.25 * r, 2)
        d = np.array([math.cos(ang), math.sin(ang)])
        n = np.array([-d[1], d[0]])
        tip = base + d * ln
        pts = [base - n * wd, base - n * wd + d * ln * 0.72, tip, base + n * wd + d * ln * 0.72, base + n * wd]
        cv2.fillPoly(img, [_ipts(pts)], _col(col), _AA, _SHIFT)
        half = [base, base - n * wd, base - n * wd + d * ln * 0.72, tip]
        cv2.fillPoly(img, [_ipts(half)], _col(col * 0.5 + 127), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(pts)], True, _col(col * 0.4), max(1, int(s)), _AA, _SHIFT)


def _mouse(img, rng, c, r, s):
    c = np.asarray(c, float)
    ang = rng.uniform(0, 360)
    a = math.radians(ang)
    d = np.array([math.cos(a), math.sin(a)])
    tone = (120, 125, 135) if rng.random() < 0.6 else (70, 95, 120)
    cv2.ellipse(img, _ip(c), (int(r * _ONE), int(r * 0.6 * _ONE)), ang, 0, 360, tone, -1, _AA, _SHIFT)
    head = c + d * r * 0.9
    cv2.circle(img, _ip(head), int(r * 0.45 * _ONE), tone, -1, _AA, _SHIFT)
    cv2.circle(img, _ip(head - d * r * 0.2 + np.array([-d[1], d[0]]) * r * 0.35), int(r * 0.25 * _ONE), (150, 150, 200), -1, _AA, _SHIFT)
    tail = [c - d * r * (1 + 0.4 * i) + np.array([-d[1], d[0]]) * r * 0.3 * math.sin(i) for i in range(5)]
    cv2.polylines(img, [_ipts(tail)], False, (60, 60, 70), max(1, int(s)), _AA, _SHIFT)


def _spider(img, rng, c, r, s):
    c = np.asarray(c, float)
    tone = (110, 50, 80) if rng.random() < 0.5 else (40, 40, 45)
    for k in range(8):
        a = (k + 0.5) / 8 * 2 * np.pi
        knee = c + np.array([math.cos(a), math.sin(a)]) * r * 1.1
        foot = knee + np.array([math.cos(a), math.sin(a) + 0.6]) * r * 0.6
        cv2.polylines(img, [_ipts([c, knee, foot])], False, tone, max(1, int(s)), _AA, _SHIFT)
    cv2.circle(img, _ip(c), int(r * 0.65 * _ONE), tone, -1, _AA, _SHIFT)
    cv2.circle(img, _ip(c - (0, r * 0.55)), int(r * 0.35 * _ONE), tone, -1, _AA, _SHIFT)
    if rng.random() < 0.5:
        cv2.circle(img, _ip(c + (r * 0.2, -r * 0.1)), max(1, int(r * 0.15 * _ONE)), (230, 230, 230), -1, _AA, _SHIFT)


def _cart(img, rng, c, r, s):
    """A mine cart on its wheels, heaped with rock; the printed cards park them against a wall."""
    c = np.asarray(c, float)
    body = np.array((0.45, 0.5, 0.58), float) * 255 * rng.uniform(0.6, 1.15)
    wheel = (40, 40, 170) if rng.random() < 0.6 else (40, 45, 55)
    hw, hh = r * 1.1, r * 0.6
    tub = [c + (-hw, -hh), c + (hw, -hh), c + (hw * 0.8, hh * 0.6), c + (-hw * 0.8, hh * 0.6)]
    heap = _blob_poly(rng, c - (0, hh), hw * 0.85, hh * 0.7, n=9, jag=0.2)
    cv2.fillPoly(img, [_ipts(heap)], (70, 78, 86), _AA, _SHIFT)
    cv2.fillPoly(img, [_ipts(tub)], _col(body), _AA, _SHIFT)
    cv2.polylines(img, [_ipts(tub)], True, _col(body * 0.4), max(1, int(s)), _AA, _SHIFT)
    for side in (-0.5, 0.5):
        cv2.circle(img, _ip(c + (hw * side, hh * 0.75)), int(r * 0.32 * _ONE), wheel, -1, _AA, _SHIFT)


def _boots(img, rng, c, r, s):
    """A pair of boots (or one): a small warm-coloured object in the tunnel."""
    c = np.asarray(c, float)
    tone = np.array(((30, 90, 200), (40, 70, 150), (30, 50, 110), (60, 60, 170))[int(rng.integers(4))], float)
    tone = tone * rng.uniform(0.8, 1.15)
    for k in range(int(rng.integers(1, 3))):
        q = c + (k * r * 0.6, k * r * 0.15)
        boot = [q + (-r * 0.25, -r * 0.8), q + (r * 0.2, -r * 0.8), q + (r * 0.25, r * 0.2), q + (r * 0.7, r * 0.3),
                q + (r * 0.7, r * 0.6), q + (-r * 0.3, r * 0.6)]
        cv2.fillPoly(img, [_ipts(boot)], _col(tone), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(boot)], True, _col(tone * 0.45), max(1, int(s)), _AA, _SHIFT)


def _tool(img, rng, c, r, s):
    """A pickaxe or shovel lying in the tunnel: a wooden shaft and a grey iron head."""
    c = np.asarray(c, float)
    a = rng.uniform(0, np.pi)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-d[1], d[0]])
    cv2.line(img, _ip(c - d * r * 1.3), _ip(c + d * r * 1.3), (40, 85, 140), max(1, int(1.6 * s)), _AA, _SHIFT)
    head = c + d * r * 1.3
    if rng.random() < 0.5:
        arc = [head + n * r * 0.9 - d * r * 0.3, head, head - n * r * 0.9 - d * r * 0.3]
        cv2.polylines(img, [_ipts(arc)], False, (95, 95, 100), max(1, int(2 * s)), _AA, _SHIFT)
    else:
        blade = _blob_poly(rng, head + d * r * 0.3, r * 0.45, r * 0.35, n=7, jag=0.05, angle=a)
        cv2.fillPoly(img, [_ipts(blade)], (110, 112, 118), _AA, _SHIFT)


def _pebbles(img, rng, c, r, s, rock_bgr):
    for _ in range(int(rng.integers(1, 3))):
        q = np.asarray(c, float) + rng.normal(0, r * 0.6, 2)
        rr = r * rng.uniform(0.25, 0.45)
        poly = _blob_poly(rng, q, rr, rr * 0.7, n=7, jag=0.15)
        cv2.fillPoly(img, [_ipts(poly)], _col(rock_bgr * 255 * 1.08), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(poly)], True, _col(rock_bgr * 255 * 0.55), max(1, int(s)), _AA, _SHIFT)


# --------------------------------------------------------------------------- faces


def _free_spot(rng, d_tun, lo, hi, avoid):
    """A tunnel pixel close to a wall (distance lo..hi) away from the points in avoid."""
    cand = (d_tun >= lo) & (d_tun <= hi)
    ys, xs = np.nonzero(cand)
    if len(xs) == 0:
        return None
    keep = np.ones(len(xs), bool)
    for (ax, ay), rad in avoid:
        keep &= (xs - ax) ** 2 + (ys - ay) ** 2 > rad * rad
    if not keep.any():
        return None
    i = int(rng.choice(np.flatnonzero(keep)))
    return np.array([xs[i], ys[i]], float)


def _draw_path_face(face: Face, style: CardStyle, rng, w: int, h: int):
    bank = _bank(w, h)
    plans = _plan_tunnels(face, style, rng, w, h)
    masks, decks = _tunnel_masks(plans, style, rng, bank, w, h)
    tunnel = np.maximum.reduce(masks) if masks else np.zeros((h, w), np.uint8)
    s = _stroke(w)

    img = _paint_rock(tunnel, style, rng, bank, w, h)
    for o, deck in decks:
        # the lower tunnel is in shade beside the bridge; the deck is planks or stone
        upper = masks[o].astype(np.float32) / 255.0
        shade = cv2.GaussianBlur(upper, (0, 0), 0.05 * w) * (1 - upper) * 0.35
        img *= (1 - shade)[..., None]
        if rng.random() < 0.6 and deck.any():
            # a plank deck, square to the upper tunnel, spanning the lower one
            d = np.asarray(plans[o].anchor_dir, np.float32)
            xs, ys = bank.grid
            along = xs * d[0] + ys * d[1]
            sel = along[deck > 0]
            pad = 0.03 * w
            span = _smoothstep(sel.min() - pad - 1, sel.min() - pad + 1, along) * \
                (1 - _smoothstep(sel.max() + pad - 1, sel.max() + pad + 1, along))
            period = 0.07 * w * rng.uniform(0.8, 1.2)
            phase = along / period
            joint = np.clip(1 - np.abs(phase - np.round(phase)) * 2 / 0.18, 0, 1)
            wood = np.array([0.36, 0.55, 0.72], np.float32) * rng.uniform(0.8, 1.1)
            plank = wood[None, None, :] * (1 - 0.45 * joint)[..., None]
            dm = (span * upper)[..., None]
            img = img * (1 - dm) + plank * dm
    if face.gold:
        hub = np.array(plans[0].anchor) if plans else np.array([w / 2, h / 2])
        glow = np.zeros((h, w), np.float32)
        cv2.circle(glow, _ip(hub), int(0.3 * w * _ONE), 1.0, -1, cv2.LINE_8, _SHIFT)
        glow = cv2.GaussianBlur(glow, (0, 0), 0.09 * w)
        img = img + glow[..., None] * np.array([-0.35, 0.05, 0.12], np.float32)
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)

    binary = (tunnel > 127).astype(np.uint8)
    d_tun = cv2.distanceTransform(binary, cv2.DIST_L2, 3)
    rock_bgr = _hls_bgr(style.rock_hue, style.rock_lightness, style.rock_saturation)
    avoid = []  # decorations keep clear of the edge midpoints and of the big features
    for bit in EDGE_BITS:
        if any(t.edges & bit for t in face.tunnels):
            p, _ = _mid(bit, w, h)
            avoid.append((p, 0.3 * w))
    mids = [p for p, _ in avoid]

    # boulders sit in the rounded caps where stubs end
    for plan in plans:
        if plan.stub_end is None:
            continue
        end, d, r_end, depth = plan.stub_end
        ext = h if abs(d[1]) > 0.5 else w
        rb = r_end * rng.uniform(0.45, 0.62)
        room = depth + 0.3 * r_end - (0.14 * ext + 0.04 * w)
        rb = min(rb, room)
        if face.has_ladder and plan.tunnel.ladder:
            continue
        if rb > 0.22 * r_end and rng.random() < 0.85:
            c = np.asarray(end) + np.asarray(d) * 0.3 * r_end
            _boulder(out, rng, c, rb, s)
            avoid.append((c, rb + 0.05 * w))

    for plan in plans:
        a = np.asarray(plan.anchor, float)
        if plan.tunnel.ladder:
            # a hole at the dead end (or in the bend) with a ladder leaning out of it,
            # pointing away from the openings so it never hides one
            if plan.stub_end is not None:
                end, d, r_end, depth = plan.stub_end
                c = np.asarray(end) + np.asarray(d) * 0.3 * r_end
                away = np.asarray(d, float)
            else:
                away = np.asarray(plan.bend_out or (0.0, 1.0), float)
                c = a + away * 0.1 * w
            rx = 0.45 * plan.anchor_rad
            _hole(out, rng, c, rx, rx * 0.75, rng.uniform(0, np.pi), s)
            ang = math.atan2(away[1], away[0]) + rng.uniform(-0.7, 0.7)
            top = c + np.array([math.cos(ang), math.sin(ang)]) * 0.22 * w
            _ladder(out, c, top, 0.1 * w, s)
            avoid.append((c, 0.25 * w))
        if plan.tunnel.door:
            colour = (170, 95, 35) if plan.tunnel.door == "blue" else (45, 140, 55)
            colour = tuple(int(v * rng.uniform(0.85, 1.1)) for v in colour)
            p = a
            if len(plan.paths) > 1:  # a junction: the door goes on its first arm, halfway out
                path = plan.paths[0]
                i = int(len(path.pts) * 0.45)
                p = path.pts[i]
                dvec = path.pts[min(i + 1, len(path.pts) - 1)] - path.pts[i - 1]
                half = path.rad[i] + 0.45 * style.wall_width * w
            else:
                dvec = np.asarray(plan.anchor_dir)
                half = plan.anchor_rad + 0.45 * style.wall_width * w
            _door(out, rng, p, dvec, half, 0.11 * w, colour, s)
            avoid.append((p, half + 0.05 * w))

    first = plans[0] if plans else None
    hubs = [p for p in plans if p.blobs] or plans
    centre = np.asarray(hubs[0].anchor, float) if hubs else np.array([w / 2, h / 2])
    if face.kind == "start":
        c = centre + np.array([-0.06 * w, -0.13 * w])
        _hole(out, rng, c, 0.13 * w, 0.11 * w, rng.uniform(-0.4, 0.4), s)
        top = c + np.array([0.02 * w, 0.02 * w])
        bottom = c + np.array([0.26 * w, -0.3 * w])
        _ladder(out, bottom, top, 0.11 * w, s)
        _lantern(out, centre + np.array([0.0, 0.11 * w]), 0.13 * w, s, lit=False)
        avoid.append((centre, 0.35 * w))
    if face.gold:
        _nugget(out, rng, centre, 0.16 * w, s)
        avoid.append((centre, 0.3 * w))
    if face.kind == "goal" and not face.gold and first is not None:
        # the coal lump sits in the bend, against the outer wall
        out_dir = np.asarray(first.bend_out if first.bend_out else (0.0, 0.0))
        r = 0.11 * w
        c = np.asarray(first.anchor) + out_dir * (first.anchor_rad - r * 0.9)
        _boulder(out, rng, c, r, s, tone=(52, 58, 64))
        avoid.append((c, r + 0.2 * w))
    # Crystals are what tell crystal-dead-e from dead-e, so they are drawn big and glowing, as
    # on the printed expansion: they must survive a webcam's 40-pixel-wide view of a card.
    r = 0.16 * w / max(1, face.crystals) ** 0.5  # several crystals share the rock
    placed = []
    inner = d_tun.copy()  # a crystal wholly on the card, not cut off by its edge
    m = int(math.ceil(r))
    inner[:m], inner[-m:], inner[:, :m], inner[:, -m:] = 0, 0, 0, 0
    for _ in range(face.crystals):
        # a crystal sits on a tunnel wall; on a crowded card the keep-out zones shrink
        # rather than the crystal going missing (it is what tells crystal-dead-e from dead-e)
        lo, hi = 0.5 * s, 2.5 * s
        spot = _free_spot(rng, inner, lo, hi, avoid)
        if spot is None:
            spot = _free_spot(rng, inner, lo, hi, [(p, 0.18 * w) for p in mids] + [(p, 2 * r) for p in placed])
        if spot is None:
            spot = _free_spot(rng, inner, lo, hi, [(p, 2 * r) for p in placed])
        if spot is None:
            break
        _crystal(out, rng, spot, r, s)
        placed.append(spot)
        avoid.append((spot, 3 * r))

    _rock_decorations(out, rng, tunnel, style, avoid, w, s)

    # decorations: small, in the tunnel near a wall, never across it
    if style.decoration_prob > 0:
        for kind in ("pebbles", "pebbles", "mouse", "spider", "lantern", "cart", "boots", "tool"):
            if rng.random() >= style.decoration_prob * (1.0 if kind == "pebbles" else 0.35):
                continue
            r = {"pebbles": 0.035, "cart": 0.09, "boots": 0.075, "tool": 0.07}.get(kind, 0.045) * w
            # the printed props (carts, boots, tools) often stand over the wall's edge
            near = 0.5 if kind in ("cart", "boots", "tool") else 1.3
            spot = _free_spot(rng, d_tun, r * near, r * 2.2, avoid)
            if spot is None:
                continue
            if kind == "pebbles":
                _pebbles(out, rng, spot, r, s, rock_bgr)
            elif kind == "mouse":
                _mouse(out, rng, spot, r, s)
            elif kind == "spider":
                _spider(out, rng, spot, r * 0.8, s)
            elif kind == "lantern":
                _lantern(out, spot, 2 * r, s, lit=True)
            else:
                {"cart": _cart, "boots": _boots, "tool": _tool}[kind](out, rng, spot, r, s)
            avoid.append((spot, 3 * r))

    out = _finish(out, style, rng, bank, w, h)
    return out, tuple(masks)


def _rock_decorations(out, rng, tunnel: np.ndarray, style: CardStyle, avoid: list, w: int, s: float) -> None:
    """What the printed cards show on the rock rather than in the tunnels: big brown-grey
    stones lying on the rock masses (up to a fifth of the card wide, often against a wall),
    and small coloured bits (a broken cart's red wreckage, a gem's chip) on a wall's edge.
    Neither ever reaches into a tunnel far enough to narrow it, so neither changes the topology,
    and a classifier must learn to look past them."""
    if style.boulders <= 0 and style.decoration_prob <= 0:
        return
    d_rock = cv2.distanceTransform((tunnel <= 127).astype(np.uint8), cv2.DIST_L2, 3)
    for _ in range(3):
        if rng.random() >= style.boulders * 0.6:
            break
        r = w * rng.uniform(0.06, 0.12)
        # the middle inside the rock, the stone at most grazing the wall band
        spot = _free_spot(rng, d_rock, r * 0.9, r * 3.0, avoid)
        if spot is None:
            break
        tone = np.array((80, 92, 104)) * rng.uniform(0.75, 1.25) + rng.normal(0, 6, 3)
        _boulder(out, rng, spot, r, s, tone=tone)
        second, r2 = spot + rng.normal(0, 0.5 * r, 2), r * rng.uniform(0.5, 0.8)
        x2, y2 = int(np.clip(second[0], 0, w - 1)), int(np.clip(second[1], 0, d_rock.shape[0] - 1))
        if rng.random() < 0.4 and d_rock[y2, x2] >= 0.9 * r2:  # a second stone leaning on the first
            _boulder(out, rng, second, r2, s, tone=tone * 0.95)
        avoid.append((spot, r * 1.6))
    if rng.random() < style.decoration_prob * 0.4:
        r = w * rng.uniform(0.025, 0.05)
        spot = _free_spot(rng, d_rock, 1.0, r * 0.8, avoid)
        if spot is not None:
            colour = np.array(((40, 60, 200), (40, 120, 225), (150, 60, 120), (160, 110, 220))[int(rng.integers(4))])
            for _ in range(int(rng.integers(1, 4))):  # a few shards
                q = spot + rng.normal(0, 0.6 * r, 2)
                poly = _blob_poly(rng, q, r * rng.uniform(0.4, 0.9), r * rng.uniform(0.3, 0.6), n=6, jag=0.3,
                                  angle=rng.uniform(0, np.pi))
                cv2.fillPoly(out, [_ipts(poly)], _col(colour * rng.uniform(0.8, 1.1)), _AA, _SHIFT)
                cv2.polylines(out, [_ipts(poly)], True, _col(colour * 0.45), max(1, int(s)), _AA, _SHIFT)
            avoid.append((spot, 3 * r))


def _emboss(img: np.ndarray, mask: np.ndarray, w: int, depth: float, light=(-1.0, -1.0)) -> np.ndarray:
    m = cv2.GaussianBlur(mask, (0, 0), max(0.6, 0.008 * w))
    gx = cv2.Sobel(m, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(m, cv2.CV_32F, 0, 1, ksize=3)
    lx, ly = light
    relief = (gx * lx + gy * ly) / math.hypot(lx, ly)
    img = img * (1 - 0.18 * m)[..., None]  # the carved groove is in shadow
    return img + depth * relief[..., None] * np.array([1.0, 0.95, 0.85], np.float32)


def _draw_goal_back(style: CardStyle, rng, w: int, h: int) -> np.ndarray:
    """A carved brown-orange stone slab with a groove frame and crossed hammer and pick."""
    bank = _bank(w, h)
    low, mid = _pick(rng, bank.low), _pick(rng, bank.mid)
    hue = rng.uniform(22, 36)
    base = _hls_bgr(hue, rng.uniform(0.36, 0.5), rng.uniform(0.45, 0.7))
    light = 1 + 0.12 * low + 0.05 * mid
    img = base[None, None, :] * light[..., None]
    cracks = _pick(rng, bank.cracks)
    cr = cv2.GaussianBlur(((cracks > 0) & (cracks < 120)).astype(np.float32), (0, 0), 0.6)
    img *= (1 - 0.45 * cr)[..., None]
    groove = np.zeros((h, w), np.float32)
    inset = rng.uniform(0.08, 0.12) * w
    th = max(1, int(0.025 * w))
    pts = [(inset, inset), (w - inset, inset), (w - inset, h - inset), (inset, h - inset)]
    wob = [np.array(p) + rng.normal(0, 0.006 * w, 2) for p in pts]
    cv2.polylines(groove, [_ipts(wob)], True, 1.0, th, _AA, _SHIFT)
    c = np.array([w / 2, h * rng.uniform(0.46, 0.52)])
    u = 0.27 * w * rng.uniform(0.9, 1.1)
    hw = max(1, int(0.07 * w))
    # hammer: handle bottom-right to top-left, a block head; pick: the other diagonal, a curved head
    a0, a1 = c + np.array([u, u]), c + np.array([-u * 0.8, -u * 0.8])
    cv2.line(groove, _ip(a0), _ip(a1), 1.0, hw, _AA, _SHIFT)
    head = cv2.boxPoints(((float(a1[0]), float(a1[1])), (0.17 * w, 0.28 * w), -45.0))
    cv2.fillPoly(groove, [_ipts(head)], 1.0, _AA, _SHIFT)
    b0, b1 = c + np.array([-u, u]), c + np.array([u * 0.75, -u * 0.75])
    cv2.line(groove, _ip(b0), _ip(b1), 1.0, hw, _AA, _SHIFT)
    cv2.ellipse(groove, _ip(b1 + np.array([-0.05, 0.05]) * w), (int(0.25 * w * _ONE), int(0.16 * w * _ONE)), -45, 190,
                350, 1.0, max(1, int(0.05 * w)), _AA, _SHIFT)
    img = _emboss(img, groove, w, rng.uniform(0.12, 0.22))
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    return _finish(out, style, rng, bank, w, h, border=style.border or rng.random() < 0.6)


# --------------------------------------------------------------------------- public API


def _size(size) -> tuple[int, int]:
    w, h = int(size[0]), int(size[1])
    if w < 8 or h < 8:
        raise ValueError(f"a card needs at least 8x8 pixels, not {w}x{h}")
    return w, h


def render_card(face: Face, rotation: int, style: CardStyle, rng: np.random.Generator,
                size: tuple[int, int] = DEFAULT_SIZE) -> CardRender:
    """Draw a catalogue face as it lies in the maze (rotation 0 or 180), with its coverage
    mask and each tunnel's floor mask in the same frame."""
    if rotation not in (0, 180):
        raise ValueError(f"a card lies upright (0) or turned half a turn (180), not {rotation}")
    w, h = _size(size)
    if face.kind == "goal-back":
        img, masks = _draw_goal_back(style, rng, w, h), ()
    else:
        img, masks = _draw_path_face(face, style, rng, w, h)
    alpha = _corner_alpha(w, h, int(round(style.corner_radius * w)))
    if rotation == 180:
        img = np.ascontiguousarray(img[::-1, ::-1])
        masks = tuple(np.ascontiguousarray(m[::-1, ::-1]) for m in masks)
        alpha = alpha[::-1, ::-1]
    return CardRender(img, np.array(alpha), masks)


def _on_background(img: np.ndarray, alpha: np.ndarray, background) -> np.ndarray:
    a = alpha.astype(np.float32)[..., None] / 255.0
    bg = np.array(background, np.float32)
    return (img * a + bg * (1 - a) + 0.5).astype(np.uint8)


def draw_face(face: Face, rotation: int, style: CardStyle, rng: np.random.Generator,
              size: tuple[int, int] = DEFAULT_SIZE, background=(255, 255, 255)) -> np.ndarray:
    """uint8 BGR portrait image of ``face`` at ``rotation`` (0|180); outside the rounded
    corners shows ``background``."""
    r = render_card(face, rotation, style, rng, size)
    return _on_background(r.image, r.alpha, background)


def draw_face_rgba(face: Face, rotation: int, style: CardStyle, rng: np.random.Generator,
                   size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """Like ``draw_face`` but BGRA, transparent outside the rounded corners."""
    r = render_card(face, rotation, style, rng, size)
    return np.dstack([r.image, r.alpha])


# --------------------------------------------------------------------------- non-maze cards


def _cave_background(rng, w, h, bank, s) -> np.ndarray:
    low, mid = _pick(rng, bank.low), _pick(rng, bank.mid)
    tone = rng.uniform(0.55, 0.8)
    warm = rng.uniform(-0.04, 0.08)
    base = np.array([tone - warm, tone, tone + warm], np.float32)
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    light = 1 + 0.1 * low + 0.06 * mid - 0.25 * np.exp(-((yy - 0.3) ** 2) / 0.05)
    img = base[None, None, :] * light[..., None]
    img = np.clip(img * 255, 0, 255).astype(np.uint8)
    # the dark mouth of a tunnel, pillars, a floor of stones
    cx, cy = w * rng.uniform(0.35, 0.65), h * rng.uniform(0.25, 0.4)
    mouth = _blob_poly(rng, (cx, cy), w * rng.uniform(0.18, 0.3), h * rng.uniform(0.16, 0.24), n=12, jag=0.15)
    m = np.zeros((h, w), np.float32)
    cv2.fillPoly(m, [_ipts(mouth)], 1.0, _AA, _SHIFT)
    m = cv2.GaussianBlur(m, (0, 0), 0.03 * w) * rng.uniform(0.55, 0.85)  # the dark, soft-edged depth
    img = (img.astype(np.float32) * (1 - m)[..., None] + 30 * m[..., None]).astype(np.uint8)
    for side in (0, 1):
        x = w * (rng.uniform(0.0, 0.15) if side == 0 else rng.uniform(0.85, 1.0))
        pill = _blob_poly(rng, (x, h * 0.4), w * 0.1, h * 0.45, n=12, jag=0.08)
        cv2.fillPoly(img, [_ipts(pill)], _col(np.array([120, 125, 130]) * rng.uniform(0.7, 1.2)), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(pill)], True, (60, 62, 66), max(1, int(s)), _AA, _SHIFT)
    for _ in range(int(rng.integers(6, 16))):
        q = (rng.uniform(0, w), h * rng.uniform(0.7, 1.0))
        rr = w * rng.uniform(0.03, 0.07)
        poly = _blob_poly(rng, q, rr, rr * 0.6, n=7, jag=0.2)
        cv2.fillPoly(img, [_ipts(poly)], _col(np.array([150, 155, 160]) * rng.uniform(0.7, 1.2)), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(poly)], True, (70, 72, 76), max(1, int(s)), _AA, _SHIFT)
    return img


def _tool_glyph(img, rng, kind, c, r, colour, s):
    c = np.asarray(c, float)
    th = max(1, int(r * 0.16))
    if kind == "pickaxe":
        cv2.line(img, _ip(c + (-r * 0.6, r * 0.6)), _ip(c + (r * 0.5, -r * 0.5)), colour, th, _AA, _SHIFT)
        cv2.ellipse(img, _ip(c + (r * 0.3, -r * 0.3)), (int(r * 0.7 * _ONE), int(r * 0.35 * _ONE)), -45, 180, 360,
                    colour, th, _AA, _SHIFT)
    elif kind == "lantern":
        _lantern(img, c, r * 1.4, s, lit=False)
    elif kind == "cart":
        body = [c + (-r * 0.7, -r * 0.3), c + (r * 0.7, -r * 0.3), c + (r * 0.5, r * 0.35), c + (-r * 0.5, r * 0.35)]
        cv2.fillPoly(img, [_ipts(body)], colour, _AA, _SHIFT)
        for x in (-0.35, 0.35):
            cv2.circle(img, _ip(c + (r * x, r * 0.5)), int(r * 0.2 * _ONE), colour, -1, _AA, _SHIFT)
    elif kind == "map":
        quad = [c + (-r * 0.7, -r * 0.5), c + (r * 0.7, -r * 0.55), c + (r * 0.65, r * 0.5), c + (-r * 0.7, r * 0.45)]
        cv2.polylines(img, [_ipts(quad)], True, colour, th, _AA, _SHIFT)
        cv2.line(img, _ip(c + (-r * 0.2, -r * 0.2)), _ip(c + (r * 0.2, r * 0.2)), colour, th, _AA, _SHIFT)
        cv2.line(img, _ip(c + (r * 0.2, -r * 0.2)), _ip(c + (-r * 0.2, r * 0.2)), colour, th, _AA, _SHIFT)
    else:  # rocks
        for k in range(3):
            q = c + np.array([(k - 1) * r * 0.45, (0.2 if k != 1 else -0.2) * r])
            cv2.circle(img, _ip(q), int(r * 0.33 * _ONE), colour, -1, _AA, _SHIFT)


_MOTIFS = ("pickaxe", "lantern", "cart", "map", "rocks")


def _big_motif(img, rng, kind, w, h, s):
    """The action card's main picture, big and colourful, in the lower half of the scene."""
    c = np.array([w * rng.uniform(0.4, 0.6), h * rng.uniform(0.55, 0.7)])
    wood = np.array([40, 120, 200], float) * rng.uniform(0.8, 1.1)
    dark = _col(wood * 0.4)
    if kind == "pickaxe":
        ang = rng.uniform(-0.9, -0.3)
        d = np.array([math.cos(ang), math.sin(ang)])
        a, b = c - d * 0.38 * w, c + d * 0.3 * w
        cv2.line(img, _ip(a), _ip(b), dark, max(2, int(0.06 * w)), _AA, _SHIFT)
        cv2.line(img, _ip(a), _ip(b), _col(wood), max(1, int(0.04 * w)), _AA, _SHIFT)
        n = np.array([-d[1], d[0]])
        head = [b - n * 0.22 * w, b + d * 0.05 * w, b + n * 0.22 * w, b - d * 0.03 * w]
        cv2.fillPoly(img, [_ipts(head)], (200, 205, 210), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(head)], True, (60, 60, 65), max(1, int(s)), _AA, _SHIFT)
    elif kind == "lantern":
        _lantern(img, c, 0.35 * w, s, lit=rng.random() < 0.7)
    elif kind == "cart":
        bw, bh = 0.32 * w, 0.16 * w
        body = [c + (-bw, -bh), c + (bw, -bh), c + (bw * 0.8, bh), c + (-bw * 0.8, bh)]
        if rng.random() < 0.5:  # a broken cart lies tilted
            m = cv2.getRotationMatrix2D((0, 0), rng.uniform(-35, 35), 1.0)[:, :2]
            body = [c + m @ (p - c) for p in body]
        for _ in range(5):
            q = c + np.array([rng.uniform(-bw, bw) * 0.7, -bh * rng.uniform(0.9, 1.4)])
            cv2.circle(img, _ip(q), int(0.06 * w * _ONE), (170, 175, 180), -1, _AA, _SHIFT)
        cv2.fillPoly(img, [_ipts(body)], _col(wood), _AA, _SHIFT)
        for k in range(1, 4):
            y0 = body[0] + (body[3] - body[0]) * k / 4
            y1 = body[1] + (body[2] - body[1]) * k / 4
            cv2.line(img, _ip(y0), _ip(y1), dark, max(1, int(s)), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(body)], True, dark, max(1, int(1.5 * s)), _AA, _SHIFT)
        for x in (-0.55, 0.55):
            q = c + np.array([bw * x, bh * 1.25])
            cv2.circle(img, _ip(q), int(0.07 * w * _ONE), _col(wood * 0.8), -1, _AA, _SHIFT)
            cv2.circle(img, _ip(q), int(0.07 * w * _ONE), dark, max(1, int(s)), _AA, _SHIFT)
    elif kind == "map":
        quad = [c + (-0.33 * w, -0.15 * w), c + (0.3 * w, -0.19 * w), c + (0.36 * w, 0.14 * w), c + (-0.3 * w, 0.18 * w)]
        cv2.fillPoly(img, [_ipts(quad)], (205, 228, 238), _AA, _SHIFT)
        cv2.polylines(img, [_ipts(quad)], True, (90, 110, 130), max(1, int(s)), _AA, _SHIFT)
        inner = _blob_poly(rng, c, 0.2 * w, 0.1 * w, n=10, jag=0.2)
        cv2.fillPoly(img, [_ipts(inner)], (140, 180, 205), _AA, _SHIFT)
        for _ in range(4):
            p0 = c + rng.normal(0, 0.08 * w, 2)
            cv2.line(img, _ip(p0), _ip(p0 + rng.normal(0, 0.05 * w, 2)), (60, 70, 90), max(1, int(s)), _AA, _SHIFT)
    else:
        for _ in range(int(rng.integers(6, 12))):
            q = c + rng.normal(0, [0.15 * w, 0.1 * w])
            _boulder(img, rng, q, 0.07 * w * rng.uniform(0.7, 1.3), s, tone=(175, 178, 182))
        for _ in range(int(rng.integers(1, 4))):
            q = c + rng.normal(0, [0.15 * w, 0.12 * w])
            plank = cv2.boxPoints(((float(q[0]), float(q[1])), (0.2 * w, 0.05 * w), float(rng.uniform(0, 180))))
            cv2.fillPoly(img, [_ipts(plank)], _col(wood), _AA, _SHIFT)


def draw_action_card(rng: np.random.Generator, size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """A generic action card (framed cave picture, a tool/map/rockfall motif, round icons in
    the top corners, sometimes text): a card in the maze area the classifier must abstain on."""
    return _on_background(*_action_rgba(rng, size), (255, 255, 255))


def _action_rgba(rng, size):
    w, h = _size(size)
    bank = _bank(w, h)
    s = _stroke(w)
    style = CardStyle.sample(rng)
    img = _cave_background(rng, w, h, bank, s)
    kind = _MOTIFS[int(rng.integers(len(_MOTIFS)))]
    _big_motif(img, rng, kind, w, h, s)
    broken = rng.random() < 0.45
    for side in ((0.17, 0.1), (0.83, 0.1)) if rng.random() < 0.85 else ((0.17, 0.1),):
        c = np.array([side[0] * w, side[1] * h + 0.03 * w])
        r = 0.12 * w
        ring = (40, 40, 200) if broken else (60, 150, 60)
        cv2.circle(img, _ip(c), int(r * _ONE), (245, 245, 245), -1, _AA, _SHIFT)
        cv2.circle(img, _ip(c), int(r * _ONE), ring, max(1, int(0.02 * w)), _AA, _SHIFT)
        _tool_glyph(img, rng, kind if rng.random() < 0.8 else _MOTIFS[int(rng.integers(5))], c, r * 0.6, (25, 25, 25), s)
        if broken:
            cv2.line(img, _ip(c + (-0.7 * r, 0.7 * r)), _ip(c + (0.7 * r, -0.7 * r)), ring, max(1, int(0.02 * w)), _AA, _SHIFT)
    if rng.random() < 0.5:  # some editions print the rule text on the card
        y0 = h * rng.uniform(0.78, 0.85)
        cv2.rectangle(img, (int(0.08 * w), int(y0)), (int(0.92 * w), int(0.95 * h)), (232, 240, 244), -1)
        y = y0 + 0.03 * h
        while y < 0.93 * h:
            x = 0.11 * w
            while x < 0.86 * w:
                ln = rng.uniform(0.03, 0.12) * w
                cv2.line(img, _ip((x, y)), _ip((min(x + ln, 0.89 * w), y)), (50, 50, 50), max(1, int(0.012 * w)), _AA, _SHIFT)
                x += ln + 0.03 * w
            y += 0.035 * h
    img = _finish(img, style, rng, bank, w, h, border=False)
    # the printed frame: white (most decks) or dark
    frame = np.array((250, 250, 250) if rng.random() < 0.8 else (40, 45, 55), np.float32)
    bw = int(round(rng.uniform(0.035, 0.07) * w))
    inner = np.zeros((h, w), np.uint8)
    _fill_round_rect(inner, bw, bw, w - bw, h - bw, int(0.06 * w), 255)
    a = inner.astype(np.float32)[..., None] / 255.0
    img = (img * a + frame * (1 - a) + 0.5).astype(np.uint8)
    alpha = _corner_alpha(w, h, int(round(style.corner_radius * w)))
    return img, np.array(alpha)


def draw_card_back(rng: np.random.Generator, size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """The common back of path and action cards (an invented brown/orange mine-entrance
    motif, varied), distinct from the goal back drawn by ``draw_face`` for 'goal-back'."""
    return _on_background(*_back_rgba(rng, size), (255, 255, 255))


def _letters(img, rng, x0, x1, y, height, colour):
    """A row of letter-like marks: a title that reads as text without being any."""
    x = x0
    while x < x1:
        lw = height * rng.uniform(0.35, 0.8)
        lh = height * rng.uniform(0.75, 1.0)
        box = ((float(x + lw / 2), float(y)), (float(lw), float(lh)), 0.0)
        if rng.random() < 0.3:
            cv2.ellipse(img, box, colour, max(1, int(lw * 0.28)), _AA)
        else:
            cv2.fillPoly(img, [_ipts(cv2.boxPoints(box))], colour, _AA, _SHIFT)
        x += lw + height * rng.uniform(0.12, 0.25) + (height * 0.5 if rng.random() < 0.12 else 0)


def _back_rgba(rng, size):
    w, h = _size(size)
    bank = _bank(w, h)
    s = _stroke(w)
    low, mid = _pick(rng, bank.low), _pick(rng, bank.mid)
    hue = rng.uniform(15, 38)
    base = _hls_bgr(hue, rng.uniform(0.22, 0.42), rng.uniform(0.4, 0.75))
    xx = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    yy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    radial = 1.25 - rng.uniform(0.2, 0.6) * (xx ** 2 + yy ** 2)
    planks = 0.06 * np.sin(xx * np.pi * rng.integers(3, 7)) if rng.random() < 0.5 else 0 * xx
    img = base[None, None, :] * (radial + 0.1 * low + 0.05 * mid + planks)[..., None]
    img = np.clip(img * 255, 0, 255).astype(np.uint8)
    timber = _col(np.array([30, 70, 120]) * rng.uniform(0.8, 1.2))
    light = _col(np.array([110, 200, 240]) * rng.uniform(0.8, 1.05))
    layout = int(rng.integers(3))
    cx, cy = w * 0.5, h * rng.uniform(0.5, 0.6)
    if layout == 0:  # a timbered mine entrance with the dark tunnel behind it
        aw, ah = w * rng.uniform(0.26, 0.36), h * rng.uniform(0.2, 0.3)
        cv2.ellipse(img, _ip((cx, cy)), (int(aw * _ONE), int(ah * _ONE)), 0, 180, 360, (28, 30, 38), -1, _AA, _SHIFT)
        cv2.rectangle(img, _ip((cx - aw, cy)), _ip((cx + aw, cy + ah * 0.9)), (22, 24, 30), -1, _AA, _SHIFT)
        th = max(2, int(0.06 * w))
        for x in (cx - aw, cx + aw):
            cv2.line(img, _ip((x, cy - ah * 0.4)), _ip((x, cy + ah * 0.9)), timber, th, _AA, _SHIFT)
        cv2.line(img, _ip((cx - aw * 1.15, cy - ah * 0.45)), _ip((cx + aw * 1.15, cy - ah * 0.45)), timber, th, _AA,
                 _SHIFT)
        if rng.random() < 0.7:  # rails running out of the mine
            for side in (-1, 1):
                cv2.line(img, _ip((cx + side * aw * 0.25, cy + ah * 0.3)), _ip((cx + side * aw * 0.9, h * 0.95)),
                         (140, 150, 160), max(1, int(s)), _AA, _SHIFT)
        if rng.random() < 0.7:
            _lantern(img, (cx, cy - ah * 0.15), 0.12 * w, s, lit=True)
    elif layout == 1:  # a medallion with a dwarf in a miner's helmet
        r = w * rng.uniform(0.3, 0.38)
        cv2.circle(img, _ip((cx, cy)), int(r * _ONE), light, -1, _AA, _SHIFT)
        cv2.circle(img, _ip((cx, cy)), int(r * _ONE), timber, max(2, int(0.04 * w)), _AA, _SHIFT)
        skin = _col(np.array([120, 160, 215]) * rng.uniform(0.8, 1.1))
        cv2.circle(img, _ip((cx, cy)), int(r * 0.45 * _ONE), skin, -1, _AA, _SHIFT)
        beard = _blob_poly(rng, (cx, cy + r * 0.45), r * 0.5, r * 0.4, n=10, jag=0.12)
        cv2.fillPoly(img, [_ipts(beard)], _col(np.array([200, 205, 210]) * rng.uniform(0.5, 1.0)), _AA, _SHIFT)
        cv2.ellipse(img, _ip((cx, cy - r * 0.2)), (int(r * 0.55 * _ONE), int(r * 0.45 * _ONE)), 0, 180, 360,
                    (60, 120, 170), -1, _AA, _SHIFT)
        cv2.rectangle(img, _ip((cx - r * 0.65, cy - r * 0.22)), _ip((cx + r * 0.65, cy - r * 0.1)), (40, 80, 120), -1,
                      _AA, _SHIFT)
        cv2.circle(img, _ip((cx, cy - r * 0.45)), int(r * 0.12 * _ONE), (150, 235, 255), -1, _AA, _SHIFT)
        for ex in (-0.17, 0.17):
            cv2.circle(img, _ip((cx + ex * r, cy + r * 0.02)), max(1, int(r * 0.05 * _ONE)), (20, 20, 20), -1, _AA,
                       _SHIFT)
    else:  # crossed picks under a lamp's glow
        glow = np.zeros((h, w), np.float32)
        cv2.circle(glow, _ip((cx, cy)), int(0.3 * w * _ONE), 1.0, -1, cv2.LINE_8, _SHIFT)
        glow = cv2.GaussianBlur(glow, (0, 0), 0.12 * w)
        img = np.clip(img + glow[..., None] * np.array([40, 90, 120], np.float32), 0, 255).astype(np.uint8)
        for sign in (-1, 1):
            a, b = (cx - sign * 0.3 * w, cy + 0.3 * w), (cx + sign * 0.28 * w, cy - 0.28 * w)
            cv2.line(img, _ip(a), _ip(b), timber, max(2, int(0.05 * w)), _AA, _SHIFT)
            cv2.ellipse(img, _ip(b), (int(0.2 * w * _ONE), int(0.07 * w * _ONE)), -sign * 45, 0, 360, (150, 155, 160),
                        -1, _AA, _SHIFT)
    if rng.random() < 0.85:  # the game's title on a band
        by = h * (rng.uniform(0.1, 0.2) if rng.random() < 0.7 else rng.uniform(0.84, 0.9))
        band_w, band_h = 0.42 * w, 0.07 * h
        cv2.ellipse(img, _ip((w / 2, by)), (int(band_w * _ONE), int(band_h * _ONE)), 0, 0, 360, light, -1, _AA, _SHIFT)
        _letters(img, rng, w / 2 - band_w * 0.72, w / 2 + band_w * 0.65, by, band_h * 0.9,
                 _col(np.array([25, 35, 60]) * rng.uniform(0.6, 1.4)))
    if rng.random() < 0.5:  # an engraved frame
        inset = rng.uniform(0.05, 0.1) * w
        cv2.rectangle(img, _ip((inset, inset)), _ip((w - inset, h - inset)), timber, max(1, int(0.015 * w)), _AA,
                      _SHIFT)
    style = replace(CardStyle.sample(rng), border_colour=(245, 248, 250))
    img = _finish(img, style, rng, bank, w, h)
    alpha = _corner_alpha(w, h, int(round(style.corner_radius * w)))
    return img, np.array(alpha)
