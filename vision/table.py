"""The table stage: from a frame to the table plane, seen from straight above.

Markerless by default: the maze itself defines the plane. Its cards are rectangles of a
known size laid edge to edge, so their edges fall into two families of lines that are
orthogonal on the table and, in the photo, run toward two vanishing points. The method:

1. Line segments (OpenCV's LSD) in a frame shrunk to about ``WORK_WIDTH`` pixels.
2. The two families: the pair of directions, roughly a right angle apart in the photo,
   that most segments follow. Pairing matters, and so does capping each segment's say:
   wood grain, a table seam or an arm is one strong direction, only cards give a second
   one across it, in many short pieces.
3. A vanishing point per family (RANSAC over pairs of segments, then least squares), kept
   only where a camera tilted 25 degrees at most could put one. Their horizon and a
   camera matrix (square pixels, principal point at the centre, the focal length from the
   families' orthogonality when measurable, else a webcam's) give the plane's normal; a
   virtual rotation of the camera onto it rectifies the view, and an affine turn puts the
   families on the axes. The same without perspective is tried too; the view in which
   the segments lie closer to the axes wins, so a vanishing point thrown off by a hand
   cannot spoil it.
4. Scale: lone cards (a draw pile, a card in front of a player, a goal not yet reached)
   show the card size outright; otherwise the commonest edge lengths do. Edge positions
   folded at that pitch give the period and phase along each axis (``comb_support``); the
   long one becomes the plane's Y.

Why edges and not card quads: cards in a maze touch, so only the loose cards are separate
quadrilaterals, and the maze's inner edges are faint. The estimate is rough (a wrong pitch
harmonic or axis now and then, the perspective only as good as a few dozen segments); the
grid stage treats it as one starting point among others and refines the perspective from
hundreds of card edges. ``TablePlane.quality`` says how far to trust it.

Fixed-camera mode: a ``calibration.table.TableCalibration`` (ArUco sheet) gives the plane
exactly; the cards' direction in it is then unknown and left to the grid stage.

``TablePlane`` is the value handed on: the homography frame pixels -> table millimetres, a
quality in [0, 1], whether its axes run along the cards, and a top-down view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cardart import CARD_MM

WORK_WIDTH = 800
VIEW_PX_PER_MM = 0.4
NOMINAL_GAP_MM = 1.0
PITCH_MM = (CARD_MM[0] + NOMINAL_GAP_MM, CARD_MM[1] + NOMINAL_GAP_MM)
PITCH_RATIO = PITCH_MM[1] / PITCH_MM[0]
# Photo angle between the two families' directions: a right angle on the table can look
# this far from one under a 25 degree tilt and a wide lens.
FAMILY_ANGLE_RANGE_DEG = (62.0, 118.0)
FAMILY_HALF_WIDTH_DEG = 14.0
VP_INLIER_DEG = 3.0  # cards lie up to 3 degrees off the lattice
# A camera tilted at most ~25 degrees with a webcam lens has its horizon and every
# vanishing point of the table at least this far from the centre (in image sizes); a
# nearer one comes from something else (an arm, a table edge) and is not taken.
MIN_VP_DISTANCE = 1.1
HORIZON_FAR = 40.0  # beyond this many image sizes the perspective cannot be measured
DEFAULT_FOCAL = 0.85  # of the image width: a 60 degree webcam
MAX_VIEW_SIDE = 1400
MIN_CARD_PX = 15.0  # a card's short side in the working picture below which it is enlarged


class TableError(RuntimeError):
    """No table plane can be found in this frame; the message says why in one sentence."""


@dataclass(frozen=True, eq=False)
class TopDownView:
    """A picture of the table from straight above: ``plane_to_view`` maps table mm to its
    pixels (pixel centres at integers), at ``px_per_mm`` along both axes."""

    image: np.ndarray
    plane_to_view: np.ndarray
    px_per_mm: float

    def to_view(self, points_mm) -> np.ndarray:
        return apply_homography(self.plane_to_view, points_mm)

    def to_plane(self, points_px) -> np.ndarray:
        return apply_homography(np.linalg.inv(self.plane_to_view), points_px)


@dataclass(frozen=True, eq=False)
class TablePlane:
    """The table plane as the camera sees it.

    ``image_to_plane``: frame pixels -> table millimetres. Markerless, the rotation in the
    plane is the cards' own: X along their short side, Y along their long side
    (``cards_aligned``); with a calibration it is the marker sheet's. ``quality`` in [0, 1]:
    near 1 when many segments agree on both vanishing points and the pitch comb is sharp.
    ``view`` is the top-down picture of the card area the grid stage works in.
    """

    image_to_plane: np.ndarray
    frame_size: tuple[int, int]
    quality: float
    source: str  # "cards" | "calibration"
    cards_aligned: bool
    view: TopDownView | None
    segments_used: int = 0

    def to_plane(self, points_px) -> np.ndarray:
        return apply_homography(self.image_to_plane, points_px)

    def to_image(self, points_mm) -> np.ndarray:
        return apply_homography(np.linalg.inv(self.image_to_plane), points_mm)


# --------------------------------------------------------------------------- small helpers


def apply_homography(h: np.ndarray, points) -> np.ndarray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    q = p @ h[:2, :2].T + h[:2, 2]
    w = p @ h[2, :2] + h[2, 2]
    return q / w[:, None]


def scaling(sx: float, sy: float | None = None) -> np.ndarray:
    return np.diag([sx, sx if sy is None else sy, 1.0])


def translation(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1]])


def shrink(frame: np.ndarray, width: int) -> tuple[np.ndarray, float]:
    """The frame at about ``width`` pixels wide (never enlarged) and the factor small/frame.
    Pixel centres stay at integers: a frame point p is at (p + 0.5) * f - 0.5 in the small one."""
    h, w = frame.shape[:2]
    f = min(1.0, width / w)
    if f >= 1.0:
        return frame, 1.0
    size = (max(1, round(w * f)), max(1, round(h * f)))
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA), size[0] / w


def frame_to_small(f: float) -> np.ndarray:
    """Homography frame pixels -> shrunk pixels for shrink factor ``f``."""
    return translation(0.5 * f - 0.5, 0.5 * f - 0.5) @ scaling(f)


def gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


# --------------------------------------------------------------------------- segments and families


def line_segments(gray_image: np.ndarray, min_length: float) -> np.ndarray:
    """LSD segments (x0, y0, x1, y1) at least ``min_length`` long."""
    found = cv2.createLineSegmentDetector().detect(gray_image)[0]
    if found is None:
        return np.zeros((0, 4))
    seg = found.reshape(-1, 4).astype(np.float64)
    return seg[np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]) >= min_length]


def _angles_and_lengths(seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = seg[:, 2:] - seg[:, :2]
    return np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180.0, np.hypot(d[:, 0], d[:, 1])


def _circular_smooth(hist: np.ndarray, sigma: float) -> np.ndarray:
    n = len(hist)
    k = np.arange(-3 * int(sigma + 1), 3 * int(sigma + 1) + 1)
    kernel = np.exp(-0.5 * (k / sigma) ** 2)
    padded = np.concatenate([hist[-len(k):], hist, hist[:len(k)]])
    return np.convolve(padded, kernel / kernel.sum(), mode="same")[len(k):len(k) + n]


def direction_pair(seg: np.ndarray) -> tuple[float, float, float]:
    """The two segment directions (degrees, mod 180) a card lattice would show: the pair
    about a right angle apart with the most length, and that length's share of all."""
    return direction_pairs(seg, 1)[0]


def direction_pairs(seg: np.ndarray, count: int, apart: float = 6.0,
                    within: tuple[float, float] = FAMILY_ANGLE_RANGE_DEG) -> list[tuple[float, float, float]]:
    """Up to ``count`` pairs of segment directions a card lattice would show, best first
    (``direction_pair``'s, then the next pairs with the most length, each differing from
    every pair before it by more than ``apart`` degrees in one of its directions at least),
    their partners sought ``within`` these angles: among few small cards an arm, a seam or a
    table's stripes can outvote a card side."""
    angles, lengths = _angles_and_lengths(seg)
    # a card edge is short; an arm, a table's edge or a board seam is one long line that
    # must not outvote the many short card edges: cap each segment's say
    weights = np.minimum(lengths, 2.5 * np.median(lengths)) if len(lengths) else lengths
    hist = np.bincount(np.round(angles).astype(int) % 180, weights=weights, minlength=180)
    smooth = _circular_smooth(hist, 2.0)
    lo, hi = within
    second = (np.arange(180)[:, None] + np.arange(int(lo), int(hi) + 1)[None, :]) % 180  # row a: a's partners
    scores = np.sqrt(smooth[:, None] * smooth[second]).ravel()  # both families must be there
    total = max(weights.sum(), 1e-9)
    pairs: list[tuple[float, float, float]] = []
    taken: list[tuple[int, int]] = []
    for i in np.argsort(-scores, kind="stable"):  # the first of equals, as a scan would find
        a, b = int(i // second.shape[1]), int(second.ravel()[i])
        if any(near_pair((a, b), t, apart) for t in taken):
            continue
        share = scores[i] * 2 * 5 / total  # ~ weight share within +-2.5 deg of both peaks
        pairs.append((_peak(hist, a), _peak(hist, b), float(min(share, 1.0))))
        taken.append((a, b))
        if len(pairs) == count:
            break
    return pairs


def near_pair(p: tuple[float, float], q: tuple[float, float], within: float) -> bool:
    """Whether two direction pairs (degrees, mod 180) match, either way round, within this."""
    def d(x, y):
        return abs((x - y + 90.0) % 180.0 - 90.0)
    return (d(p[0], q[0]) <= within and d(p[1], q[1]) <= within) or (d(p[0], q[1]) <= within and d(p[1], q[0]) <= within)


def _peak(hist: np.ndarray, around: float, half: int = 6) -> float:
    """Length-weighted circular mean of the directions near ``around`` (sub-degree)."""
    idx = (np.arange(-half, half + 1) + round(around)) % 180
    w = hist[idx]
    if w.sum() <= 0:
        return around
    offs = np.arange(-half, half + 1) + round(around)
    return float((offs * w).sum() / w.sum()) % 180.0


def family(seg: np.ndarray, direction_deg: float, half_width: float = FAMILY_HALF_WIDTH_DEG) -> np.ndarray:
    angles, _ = _angles_and_lengths(seg)
    diff = np.abs((angles - direction_deg + 90.0) % 180.0 - 90.0)
    return seg[diff <= half_width]


# --------------------------------------------------------------------------- vanishing points


def _segment_lines(seg: np.ndarray, norm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Homogeneous lines (unit normals) of segments in normalised coordinates, midpoints, lengths."""
    a = apply_homography(norm, seg[:, :2])
    b = apply_homography(norm, seg[:, 2:])
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    n = np.stack([-d[:, 1], d[:, 0]], 1) / np.maximum(length, 1e-12)[:, None]
    mid = (a + b) / 2
    lines = np.c_[n, -(n * mid).sum(1)]
    return lines, mid, length


def _vp_inliers(vps: np.ndarray, lines: np.ndarray, mid: np.ndarray, tol_deg: float) -> np.ndarray:
    """For each vanishing point (rows of ``vps``), the mask of the segments whose direction
    points at it within ``tol_deg``."""
    direction = np.stack([lines[:, 1], -lines[:, 0]], 1)  # along each segment
    to_vp = vps[:, None, :2] - mid[None] * vps[:, None, 2:]
    norm = np.linalg.norm(to_vp, axis=2)
    cos = np.abs((direction[None] * to_vp).sum(2)) / np.maximum(norm, 1e-12)
    return cos >= math.cos(math.radians(tol_deg))


def vanishing_point(seg: np.ndarray, norm: np.ndarray, rng: np.random.Generator,
                    trials: int = 250) -> tuple[np.ndarray, np.ndarray]:
    """The vanishing point (homogeneous, normalised coordinates) most of ``seg``'s length
    runs toward, and the inlier mask. RANSAC over segment pairs, then least squares."""
    lines, mid, length = _segment_lines(seg, norm)
    n = len(seg)
    if n < 2:
        raise TableError("too few straight card edges to find the table's perspective")
    # the "parallel" hypothesis: the length-weighted mean direction, at infinity
    d = np.stack([lines[:, 1], -lines[:, 0]], 1)
    d = d * np.sign(d[:, :1] + 1e-12)
    tensor = (d[:, :, None] * d[:, None, :] * length[:, None, None]).sum(0)
    mean_dir = np.linalg.eigh(tensor)[1][:, -1]
    # pairs of segments, each as likely as it is long (the second drawn again, without the
    # first, when the two are one: as rng.choice(n, 2, replace=False, p=...) draws them, and
    # from the same stream, but without its checks of p, which cost most of this function's
    # time a trial); where each pair's lines meet
    p = length / length.sum()
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    pairs = np.empty((trials, 2), np.int64)
    for t in range(trials):
        i, j = cdf.searchsorted(rng.random(2), side="right")
        if i == j:
            rest = np.cumsum(np.where(np.arange(n) == i, 0.0, p))
            j = (rest / rest[-1]).searchsorted(rng.random(1), side="right")[0]
        pairs[t] = i, j
    v = np.cross(lines[pairs[:, 0]], lines[pairs[:, 1]])
    nv = np.linalg.norm(v, axis=1)
    candidates = np.concatenate([[[mean_dir[0], mean_dir[1], 0.0]], v[nv > 1e-12] / nv[nv > 1e-12, None]])
    with np.errstate(divide="ignore", invalid="ignore"):
        near = (np.abs(candidates[:, 2]) > 1e-12) & (
            np.linalg.norm(candidates[:, :2] / candidates[:, 2:], axis=1) < MIN_VP_DISTANCE)
    candidates = candidates[~near]  # the parallel hypothesis (at infinity) is never near
    # every candidate judged at once: the segment length running toward it
    inliers = _vp_inliers(candidates, lines, mid, VP_INLIER_DEG)
    best = int(np.argmax(np.where(inliers, length, 0.0).sum(1)))
    v, inl = candidates[best], inliers[best]
    for _ in range(2):  # least squares on the inliers, then re-select them
        w = length[inl]
        m = (lines[inl] * w[:, None]).T @ lines[inl]
        refined = np.linalg.eigh(m)[1][:, 0]
        if abs(refined[2]) > 1e-12 and np.linalg.norm(refined[:2] / refined[2]) < MIN_VP_DISTANCE:
            break
        v = refined
        inl = _vp_inliers(v[None], lines, mid, VP_INLIER_DEG)[0]
    return v / np.linalg.norm(v), inl


def rectifying_homography(v1: np.ndarray, v2: np.ndarray, norm: np.ndarray, size,
                          with_perspective: bool = True) -> tuple[np.ndarray, float | None]:
    """Image pixels -> a view similar to the table, with the two line families along u, v.

    The horizon (the line through both vanishing points, normalised coordinates) and the
    camera matrix give the plane's normal; a virtual rotation of the camera onto it
    rectifies the view. The focal length comes from the orthogonality of the two families
    (square pixels, principal point at the centre) when the perspective is strong enough
    to measure it, else a typical webcam's. A residual shear (the families not quite at a
    right angle) is then taken out, so that the card edges run along the axes; whatever
    aspect error a wrong focal length leaves, the card pitch fixes later.
    Returns the homography and the focal length used (None: no perspective measured)."""
    w, h = size
    unit = max(w, h)
    horizon = np.cross(v1, v2)
    far = float(abs(horizon[2]) / max(np.linalg.norm(horizon[:2]), 1e-12))
    to_pixels = np.linalg.inv(norm)
    projective = np.eye(3)  # pixels -> rectified pixels
    focal = None
    if with_perspective and far < HORIZON_FAR:
        f_est = _focal_from_orthogonality(v1, v2)
        focal = f_est * unit if f_est is not None and 0.4 * w < f_est * unit < 4.0 * w else None
        f = focal if focal is not None else DEFAULT_FOCAL * w
        k = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
        normal = k.T @ (norm.T @ horizon)
        normal /= np.linalg.norm(normal)
        projective = k @ _rotation_onto_z(normal if normal[2] > 0 else -normal) @ np.linalg.inv(k)
        d1 = _direction_at_infinity(projective @ to_pixels @ v1)
        d2 = _direction_at_infinity(projective @ to_pixels @ v2)
    else:  # no measurable perspective: the directions toward the points seen from the centre
        d1, d2 = _direction_at_infinity(v1), _direction_at_infinity(v2)
    basis = np.column_stack([d1, d2])
    if np.linalg.det(basis) < 0:  # keep the view's handedness the photo's
        basis[:, 1] = -basis[:, 1]
    affine = np.eye(3)
    affine[:2, :2] = np.linalg.inv(basis)
    hm = affine @ projective
    return hm / hm[2, 2], focal


def _focal_from_orthogonality(v1: np.ndarray, v2: np.ndarray) -> float | None:
    """f (normalised units) with (v1 - c).(v2 - c) + f^2 = 0, when both points are finite."""
    if abs(v1[2]) < 1e-9 or abs(v2[2]) < 1e-9:
        return None
    f2 = -float((v1[:2] / v1[2]) @ (v2[:2] / v2[2]))
    return math.sqrt(f2) if f2 > 0 else None


def _rotation_onto_z(n: np.ndarray) -> np.ndarray:
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(n, z)
    s = np.linalg.norm(axis)
    if s < 1e-12:
        return np.eye(3)
    return cv2.Rodrigues(axis / s * math.atan2(s, float(n @ z)))[0]


def _direction_at_infinity(v: np.ndarray) -> np.ndarray:
    """The direction toward a (nearly) ideal point, or toward a finite one from the origin."""
    d = v[:2] if abs(v[2]) < 1e-9 * np.linalg.norm(v) else v[:2] * np.sign(v[2])
    return d / np.linalg.norm(d)


def _normaliser(size) -> np.ndarray:
    w, h = size
    s = 1.0 / max(w, h)
    return scaling(s) @ translation(-(w - 1) / 2, -(h - 1) / 2)


def _local_similarity(h: np.ndarray, at) -> np.ndarray:
    """Scale ``h`` so that near image point ``at`` one pixel stays about one pixel."""
    p = np.asarray(at, float)
    q = apply_homography(h, [p, p + (1, 0), p + (0, 1)])
    jac = np.stack([q[1] - q[0], q[2] - q[0]], 1)
    s = 1.0 / math.sqrt(abs(np.linalg.det(jac)))
    return scaling(s) @ h


# --------------------------------------------------------------------------- card texture


def card_texture(gray_image: np.ndarray) -> np.ndarray:
    """Local contrast (standard deviation of grey in a 5 x 5 window). Card art is busy at
    every scale (stone blocks, walls, tunnels); a table is flat, or striped at a coarser
    scale (wood), and lamp gradients, shadows and glare are smooth: none of those moves it."""
    g = gray_image.astype(np.float32)
    mean = cv2.blur(g, (5, 5))
    return np.sqrt(np.maximum(cv2.blur(g * g, (5, 5)) - mean * mean, 0))


def texture_threshold(texture: np.ndarray) -> float:
    """Contrast above which a pixel is card: well above what a good part of the picture
    (the table, in any photo of a game) shows."""
    return float(max(3.0 * np.percentile(texture, 40), 4.0))


# Texture leaks about this far (px) beyond a card's edge through the 5 x 5 window and the
# closing: what a blob measures wider than the card it shows.
TEXTURE_BLEED_PX = 4.5


def isolated_cards(view_gray: np.ndarray) -> list[tuple[float, float]]:
    """(short, long) sides in view pixels of the lone cards in a top-down view: textured
    blobs whose convex hull is a rectangle of a card's proportions. The draw pile, a card
    in front of a player, a goal not yet reached: each tells the card size outright."""
    texture = card_texture(view_gray)
    mask = (texture > texture_threshold(texture)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for contour in contours:
        if cv2.contourArea(contour) < 60:
            continue
        hull = cv2.convexHull(contour)
        (_, _), (w, h), _ = cv2.minAreaRect(hull)
        if w * h <= 0:
            continue
        short, long_ = sorted((w - TEXTURE_BLEED_PX, h - TEXTURE_BLEED_PX))
        if short > 4 and cv2.contourArea(hull) / (w * h) > 0.88 and 1.38 < long_ / short < 1.75:
            found.append((short, long_))
    return found


# --------------------------------------------------------------------------- the card pitch


@dataclass(frozen=True)
class Periodicity:
    """The card lattice's period along each view axis, in view pixels, with its phase (where
    the card edges fall, in [0, period)), a score (support per lattice line above the
    next best phase, relative) and which view axis runs along the cards' long side."""

    period_u: float
    period_v: float
    phase_u: float
    phase_v: float
    score: float
    long_axis: str  # "u" or "v"

    @property
    def period_long(self) -> float:
        return self.period_v if self.long_axis == "v" else self.period_u

    @property
    def period_short(self) -> float:
        return self.period_u if self.long_axis == "v" else self.period_v


@dataclass(frozen=True, eq=False)
class EdgeEvents:
    """Straight edges of a top-down view, as positions across each axis: ``u``/``wu`` the
    u of segments running along v (and their lengths), ``v``/``wv`` the v of those along u."""

    u: np.ndarray
    wu: np.ndarray
    v: np.ndarray
    wv: np.ndarray
    lengths_u: np.ndarray  # lengths of the segments running along u (they measure u extents)
    lengths_v: np.ndarray


def edge_events(seg_view: np.ndarray, tolerance_deg: float = 6.0) -> EdgeEvents:
    d = seg_view[:, 2:] - seg_view[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    angle = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180
    along_u = np.abs(angle - 90) > 90 - tolerance_deg
    along_v = np.abs(angle - 90) < tolerance_deg
    mid = (seg_view[:, :2] + seg_view[:, 2:]) / 2
    return EdgeEvents(mid[along_v, 0], length[along_v], mid[along_u, 1], length[along_u],
                      length[along_u], length[along_v])


def comb_support(positions: np.ndarray, weights: np.ndarray, periods, bins: int = 48,
                 sigma_px: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """For each period: the edge length per lattice line at the best phase, minus that at
    the best phase at least a fifth of a period away, and that phase (px).

    Why this statistic: card boundaries repeat at the pitch T, tunnel walls sit a third of
    a card either side of the middle. A third of T gathers boundaries and walls but spreads
    them over three times the lines; half of T leaves every other line empty; twice T puts
    true boundaries at its second-best phase; three times T likewise at a third. Only T
    itself has one crowded phase and nothing comparable elsewhere."""
    periods = np.atleast_1d(np.asarray(periods, float))
    score = np.zeros(len(periods))
    phase = np.zeros(len(periods))
    if len(positions) == 0:
        return score, phase
    span = float(np.ptp(positions)) + 1.0
    grid = (np.arange(bins) + 0.5) / bins
    for k, t in enumerate(periods):
        if t * 3 > span:
            continue  # fewer than ~4 lines: any cluster of edges would look like a comb
        p = (positions % t) / t
        sigma = max(sigma_px / t, 0.5 / bins)
        dist = np.abs((grid[:, None] - p[None, :] + 0.5) % 1.0 - 0.5)
        fold = (weights[None, :] * np.exp(-0.5 * (dist / sigma) ** 2)).sum(1) * t / span
        j = int(np.argmax(fold))
        away = np.abs((grid - grid[j] + 0.5) % 1.0 - 0.5) >= 0.2
        score[k] = fold[j] - fold[away].max()
        phase[k] = grid[j] * t
    return score, phase


def _length_mode(lengths: np.ndarray) -> float | None:
    """The most common segment length (length-weighted, on a log scale): a card's side,
    since LSD breaks the maze's outline at every card (each card lies a little askew)."""
    if len(lengths) < 3:
        return None
    grid = np.exp(np.linspace(np.log(4.0), np.log(max(8.0, lengths.max() * 1.1)), 200))
    density = (lengths[None, :] * np.exp(-0.5 * ((np.log(grid)[:, None] - np.log(lengths)[None, :]) / 0.07) ** 2)).sum(1)
    return float(grid[int(np.argmax(density))])


def pitch_estimate(view_gray: np.ndarray, events: EdgeEvents) -> tuple[float, str, str]:
    """A first guess of the short pitch (view px), which axis is long (or "?"), and the cue.

    Lone cards give it outright; without them, the commonest edge lengths along both axes,
    about a card's short and long side (a little less: LSD stops short of round corners)."""
    lone = isolated_cards(view_gray)
    if lone:
        shorts = np.array([c[0] for c in lone])
        short = float(np.median(shorts[shorts <= np.median(shorts) * 1.15]))
        return short * PITCH_MM[0] / CARD_MM[0], "?", "lone cards"
    mode_u, mode_v = _length_mode(events.lengths_u), _length_mode(events.lengths_v)
    modes = [m for m in (mode_u, mode_v) if m is not None]
    if not modes:
        raise TableError("no card edges long enough to tell the card size")
    if mode_u is not None and mode_v is not None:
        ratio = max(mode_u, mode_v) / min(mode_u, mode_v)
        if 1.3 < ratio < 1.8:
            return min(modes) / 0.9, ("u" if mode_u > mode_v else "v"), "edge lengths"
    return min(modes) / 0.9, "?", "edge lengths"


def find_periodicity(events: EdgeEvents, short_guess: float, long_axis_guess: str = "?",
                     slack: float = 0.3) -> Periodicity:
    """Both periods near ``short_guess`` (and PITCH_RATIO times it), and their phases."""
    periods = short_guess * np.exp(np.linspace(math.log(1 - slack), math.log(1 + slack), 61))
    best = None
    axes = ("v", "u") if long_axis_guess == "?" else (long_axis_guess,)
    for long_axis in axes:
        short_pos, short_w = (events.u, events.wu) if long_axis == "v" else (events.v, events.wv)
        long_pos, long_w = (events.v, events.wv) if long_axis == "v" else (events.u, events.wu)
        s_score, s_phase = comb_support(short_pos, short_w, periods)
        k = int(np.argmax(s_score))
        long_periods = periods[k] * PITCH_RATIO * np.exp(np.linspace(-0.12, 0.12, 25))
        l_score, l_phase = comb_support(long_pos, long_w, long_periods)
        j = int(np.argmax(l_score))
        total = math.sqrt(max(s_score[k], 0) * max(l_score[j], 0))
        if best is None or total > best[0]:
            best = (total, long_axis, periods[k], s_phase[k], long_periods[j], l_phase[j])
    total, long_axis, t_s, ph_s, t_l, ph_l = best
    if long_axis == "v":
        return Periodicity(t_s, t_l, ph_s, ph_l, total, "v")
    return Periodicity(t_l, t_s, ph_l, ph_s, total, "u")


# --------------------------------------------------------------------------- the plane


def _view_region(points: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    lo = np.percentile(points, 1, axis=0) - margin
    hi = np.percentile(points, 99, axis=0) + margin
    return lo, hi


def render_view(frame: np.ndarray, frame_to_plane: np.ndarray, lo_mm, hi_mm, px_per_mm: float) -> TopDownView:
    """The top-down view of the plane box [lo, hi] (mm) at ``px_per_mm``, Y up."""
    lo, hi = np.asarray(lo_mm, float), np.asarray(hi_mm, float)
    size = np.ceil((hi - lo) * px_per_mm).astype(int)
    if np.any(size > MAX_VIEW_SIDE):
        px_per_mm = float(px_per_mm * MAX_VIEW_SIDE / size.max())
        size = np.ceil((hi - lo) * px_per_mm).astype(int)
    size = np.maximum(size, 8)
    plane_to_view = np.array([[px_per_mm, 0, -lo[0] * px_per_mm - 0.5],
                              [0, -px_per_mm, hi[1] * px_per_mm - 0.5], [0, 0, 1.0]])
    m = plane_to_view @ frame_to_plane
    image = cv2.warpPerspective(frame, m, (int(size[0]), int(size[1])), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return TopDownView(image, plane_to_view, px_per_mm)


@dataclass(frozen=True, eq=False)
class Rectification:
    """The first half of the markerless plane: the shrunk frame turned so that the card
    edges run along the axes of ``view`` (``small_to_view``), before the scale is known."""

    small_to_view: np.ndarray
    view: np.ndarray
    segments: np.ndarray  # every segment of the shrunk frame, in view coordinates
    segments_used: int
    vp_share: float  # share of the families' segment length that agrees with their vanishing points
    focal_px: float | None  # measured from the vanishing points, None when not measurable
    spread_deg: float  # how far the families' segments stray from the view's axes


def _axis_spread(seg_view: np.ndarray) -> float:
    """Length-weighted mean angle (deg) of the near-axis segments from the nearest axis."""
    d = seg_view[:, 2:] - seg_view[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    off = np.abs((np.degrees(np.arctan2(d[:, 1], d[:, 0])) + 45) % 90 - 45)
    near = off < 12
    return float((off[near] * length[near]).sum() / max(length[near].sum(), 1e-9)) if near.any() else 45.0


def rectify_cards(small_gray: np.ndarray, seed: int = 0) -> Rectification:
    """Segments -> two families -> vanishing points -> a view with the card edges on its axes.

    Two candidate views: with the measured perspective and without it (an affine fix only);
    the one in which the segments of both families lie closer to the axes is kept, so a
    vanishing point thrown off by an arm or a table edge cannot spoil the view."""
    sh, sw = small_gray.shape
    seg = line_segments(small_gray, max(5.0, 0.012 * max(sw, sh)))
    if len(seg) < 8:
        raise TableError("no straight card edges in the picture: is the maze in view?")
    a1, a2, _ = direction_pair(seg)
    fam1, fam2 = family(seg, a1), family(seg, a2)
    if len(fam1) < 3 or len(fam2) < 3:
        raise TableError("the card edges do not form two directions: is the maze in view?")
    rng = np.random.default_rng(seed)
    norm = _normaliser((sw, sh))
    v1, in1 = vanishing_point(fam1, norm, rng)
    v2, in2 = vanishing_point(fam2, norm, rng)
    inliers = np.concatenate([fam1[in1], fam2[in2]])
    ends = np.concatenate([inliers[:, :2], inliers[:, 2:]])
    centre = np.median(ends, axis=0)
    candidates = []
    for with_perspective in (True, False):
        rect, focal = rectifying_homography(v1, v2, norm, (sw, sh), with_perspective)
        view_h = _local_similarity(rect, centre)
        seg_view = _map_segments(view_h, np.concatenate([fam1, fam2]))
        candidates.append((_axis_spread(seg_view), view_h, focal))
    spread, view_h, focal = min(candidates, key=lambda c: c[0])
    pts = apply_homography(view_h, ends)
    lo, hi = _view_region(pts, 0.08 * max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1])) + 10)
    size = np.ceil(hi - lo).astype(int)
    scale = min(1.0, MAX_VIEW_SIDE / max(size))
    view_h = scaling(scale) @ translation(-lo[0], -lo[1]) @ view_h
    size = np.maximum(np.ceil(size * scale).astype(int), 8)
    view = cv2.warpPerspective(small_gray, view_h, (int(size[0]), int(size[1])), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    vp_share = (length_share(fam1, in1) + length_share(fam2, in2)) / 2
    return Rectification(view_h, view, _map_segments(view_h, seg), int(in1.sum() + in2.sum()), vp_share, focal,
                         spread)


def _map_segments(h: np.ndarray, seg: np.ndarray) -> np.ndarray:
    return np.c_[apply_homography(h, seg[:, :2]), apply_homography(h, seg[:, 2:])]


def find_plane(frame: np.ndarray, *, calibration=None, work_width: int = WORK_WIDTH,
               view_px_per_mm: float = VIEW_PX_PER_MM, seed: int = 0) -> TablePlane:
    """The table plane of ``frame`` (BGR): from ``calibration`` (a TableCalibration) when
    given, else from the cards. Raises TableError when the frame shows no card lattice.

    Small cards are measured again in a larger copy of the frame: a card must span about
    MIN_CARD_PX of the working picture for its edges to be found."""
    if calibration is not None:
        return plane_from_calibration(frame, calibration, work_width=work_width, view_px_per_mm=view_px_per_mm)
    plane, short_px = _plane_from_cards(frame, work_width, view_px_per_mm, seed)
    if short_px < MIN_CARD_PX and work_width < frame.shape[1]:
        larger = int(min(frame.shape[1], work_width * MIN_CARD_PX / max(short_px, 1.0) * 1.1))
        try:
            plane, _ = _plane_from_cards(frame, larger, view_px_per_mm, seed)
        except TableError:
            pass
    return plane


def _plane_from_cards(frame, work_width: int, view_px_per_mm: float, seed: int) -> tuple[TablePlane, float]:
    small, f = shrink(frame, work_width)
    rect = rectify_cards(gray(small), seed)
    events = edge_events(rect.segments)
    guess, long_guess, _ = pitch_estimate(rect.view, events)
    periodicity = find_periodicity(events, guess, long_guess)
    small_to_plane = _view_to_plane(periodicity) @ rect.small_to_view
    frame_to_plane = small_to_plane @ frame_to_small(f)
    ratio = periodicity.period_long / periodicity.period_short
    ratio_fit = max(0.0, 1 - abs(ratio / PITCH_RATIO - 1) / 0.15)
    quality = float(np.clip(rect.vp_share * ratio_fit * max(0.0, 1 - rect.spread_deg / 6), 0, 1) ** 0.5)
    vh, vw = rect.view.shape
    corners = apply_homography(np.linalg.inv(rect.small_to_view), [(0, 0), (vw, 0), (vw, vh), (0, vh)])
    corners_mm = apply_homography(small_to_plane, corners)
    top_down = render_view(small, small_to_plane, corners_mm.min(0), corners_mm.max(0), view_px_per_mm)
    plane = TablePlane(frame_to_plane / frame_to_plane[2, 2], (frame.shape[1], frame.shape[0]), quality, "cards",
                       True, top_down, rect.segments_used)
    return plane, periodicity.period_short


def length_share(seg: np.ndarray, inliers: np.ndarray) -> float:
    _, length = _angles_and_lengths(seg)
    return float(length[inliers].sum() / max(length.sum(), 1e-9))


def _view_to_plane(p: Periodicity) -> np.ndarray:
    """View pixels -> table mm: the short axis becomes X, the long axis Y (up), each scaled
    by its own measured pitch, so card edges fall on multiples of the pitch."""
    if p.long_axis == "v":
        sx, sy = PITCH_MM[0] / p.period_u, PITCH_MM[1] / p.period_v
        # X = (u - phase_u) * sx ; Y = -(v - phase_v) * sy
        return np.array([[sx, 0, -p.phase_u * sx], [0, -sy, p.phase_v * sy], [0, 0, 1.0]])
    sx, sy = PITCH_MM[0] / p.period_v, PITCH_MM[1] / p.period_u
    # long side along u: X = -(v - phase_v) * sx, Y = -(u - phase_u) * sy keeps the handedness
    return np.array([[0, -sx, p.phase_v * sx], [-sy, 0, p.phase_u * sy], [0, 0, 1.0]])


def plane_from_calibration(frame: np.ndarray, calibration, *, work_width: int = WORK_WIDTH,
                           view_px_per_mm: float = VIEW_PX_PER_MM) -> TablePlane:
    """The plane of a fixed camera's calibration; the view covers what the camera sees of
    the table (the cards' direction in it is left to the grid stage)."""
    h, w = frame.shape[:2]
    cw, ch = calibration.image_size
    # the sheet's millimetres run down the page (y down, as printed); the plane's run north,
    # as the maze's do: seen from above, the sheet's frame is the plane's mirror image, and
    # a lattice fitted in it would cut every card mirrored
    to_plane = scaling(1.0, -1.0) @ calibration.homography @ scaling(cw / w, ch / h)  # calibrated at another resolution
    small, f = shrink(frame, work_width)
    small_to_plane = to_plane @ np.linalg.inv(frame_to_small(f))
    corners = np.array([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], float)
    corners_mm = apply_homography(to_plane, corners)
    view = render_view(small, small_to_plane, corners_mm.min(0), corners_mm.max(0), view_px_per_mm)
    quality = float(np.clip(1.0 - calibration.reprojection_error_px / 5.0, 0, 1))
    return TablePlane(to_plane / to_plane[2, 2], (w, h), quality, "calibration", False, view)
