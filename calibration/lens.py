"""The camera's lens, measured from photos of the marker sheet lying in several places.

A webcam's wide lens bends straight lines (barrel distortion): a card at the frame's edge
lies several pixels from where a single homography puts it, and a lattice extrapolated eight
cells out to the goals drifts by a card. The maze alone cannot measure this (each card lies
a few millimetres off its place, about as much as the lens bends a maze's lines), but the
marker sheet can: its corners are exact.

The model has one parameter (Fitzgibbon's division model, centred on the frame): a photo
pixel d at distance r from the centre c shows what a pinhole camera would show at
u = c + (d - c) (1 + k r^2 / R^2), R the frame's half diagonal. k is a share of the half
diagonal, so it is the same at every resolution of one camera. An undistorted frame (the
*canvas*) keeps the scale of the photo's middle and is larger than the photo by the share
its corners move out, so all of the photo stays in view: shrunk to the photo's size
instead, small cards far from the camera came out too small for the grid to find.

One photo cannot tell a bent sheet from a lens (a homography absorbs much of the bend over
the sheet's small patch), but a fixed camera looks at one table plane: every photo's sheet
lies on it, turned and moved. ``fit_lens`` fits one plane homography, each photo's sheet
pose on the table and k together, so sheets in different parts of the view must line up
through one lens; two photos give k to about 0.01, three or more to a few thousandths.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.markers import MarkerLayout

FloatArray = npt.NDArray[np.float64]
# Beyond these the model stops being one-to-one inside the frame (k < -1/3) or the lens is
# a fisheye, which one parameter does not describe.
MIN_K, MAX_K = -0.3, 0.6


def _centre_and_radius(size: tuple[int, int]) -> tuple[np.ndarray, float]:
    w, h = size
    return np.array([(w - 1) / 2, (h - 1) / 2]), 0.5 * math.hypot(w, h)


@dataclass(frozen=True)
class Lens:
    """A one-parameter barrel lens (``k`` > 0; pincushion < 0; 0 is a pinhole).

    ``inscribed``: the canvas holds only what the photo shows (the largest one, centred, within
    the photo's outline, which a barrel lens undone bows in at each side's middle), not all of
    the photo. Beyond the outline a canvas shows the photo's edge repeated, which a reading
    cannot tell from cards at the edge drawn out into stripes; a lens measured from the marker
    sheet keeps all of the photo, the corners' cards too."""

    k: float
    inscribed: bool = False

    def canvas_size(self, size: tuple[int, int]) -> tuple[int, int]:
        """The canvas of a ``size`` photo: (width, height)."""
        if not self.inscribed:
            grow = 1.0 + max(self.k, 0.0)  # a corner (r = R) moves out by k of the half diagonal
            return math.ceil((size[0] - 1) * grow) + 1, math.ceil((size[1] - 1) * grow) + 1
        radius = _centre_and_radius(size)[1]

        def side(half: float) -> int:
            # of a side's middle (r = half) and its ends (r = R), the one nearer the centre
            reach = half * min(1 + self.k * half**2 / radius**2, 1 + self.k)
            return 2 * math.floor(reach) + 1
        return side((size[0] - 1) / 2), side((size[1] - 1) / 2)

    def _shift(self, size: tuple[int, int]) -> np.ndarray:
        """The canvas's centre minus the photo's."""
        return _centre_and_radius(self.canvas_size(size))[0] - _centre_and_radius(size)[0]

    def undistort_points(self, points_px: npt.ArrayLike, size: tuple[int, int]) -> FloatArray:
        """Photo pixels (N, 2) of a ``size`` photo -> canvas pixels."""
        c, radius = _centre_and_radius(size)
        p = np.asarray(points_px, np.float64).reshape(-1, 2) - c
        gain = 1 + self.k * np.sum(p * p, axis=1, keepdims=True) / radius**2
        return c + self._shift(size) + p * gain

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The canvas of a photo: what a pinhole camera would have shown."""
        if self.k == 0:
            return frame
        h, w = frame.shape[:2]
        map1, map2 = _canvas_maps(self.k, w, h, self.inscribed)
        # beyond the photo, its edge's pixels repeated: a black border looks to the grid like
        # cards (flat, sharp-edged), and lattices grew over it (drawn 16 of the bench: 43
        # cells seen as cards, not 25, and no maze)
        return cv2.remap(frame, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=4)
def _canvas_maps(k: float, w: int, h: int, inscribed: bool) -> tuple[np.ndarray, np.ndarray]:
    """remap() maps (fixed point, the fast kind): for each canvas pixel, the photo pixel it shows."""
    lens = Lens(k, inscribed)
    c, radius = _centre_and_radius((w, h))
    cw, ch = lens.canvas_size((w, h))
    middle = c + lens._shift((w, h))
    ux, uy = np.meshgrid(np.arange(cw, dtype=np.float32) - np.float32(middle[0]),
                         np.arange(ch, dtype=np.float32) - np.float32(middle[1]))
    r_u = np.sqrt(ux * ux + uy * uy) / np.float32(radius)
    r_d = r_u.copy()
    for _ in range(8):  # Newton on r_d (1 + k r_d^2) = r_u, from r_d = r_u
        r_d -= (r_d * (1 + k * r_d * r_d) - r_u) / (1 + 3 * k * r_d * r_d)
    ratio = np.where(r_u > 0, r_d / np.maximum(r_u, 1e-12), 1).astype(np.float32)
    return cv2.convertMaps(ux * ratio + np.float32(c[0]), uy * ratio + np.float32(c[1]), cv2.CV_16SC2)


# ----------------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class LensFit:
    lens: Lens
    table_to_canvas: FloatArray  # sheet millimetres of the last photo -> canvas pixels
    rms_px: float  # corner residuals, canvas pixels
    markers_used: tuple[tuple[int, ...], ...]  # per photo


class LensFitError(ValueError):
    """The photos do not measure a lens; the message is one sentence for the user."""


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2), h).reshape(-1, 2)


def _rigid(theta: float, tx: float, ty: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, tx], [s, c, ty]])


class _Problem:
    """Parameters: k, the table -> undistorted-pixel homography (8, its last entry 1), and a
    rigid pose on the table (turn, shift) for every photo's sheet but the last, whose sheet
    frame is the table's."""

    def __init__(self, views: list[tuple[np.ndarray, np.ndarray]], size: tuple[int, int]):
        self.views = views  # (sheet mm (N, 2), photo px (N, 2)) per photo
        self.centre, self.radius = _centre_and_radius(size)

    def residuals(self, x: np.ndarray) -> np.ndarray:
        k, h = x[0], np.append(x[1:9], 1.0).reshape(3, 3)
        out = []
        last = len(self.views) - 1
        for i, (sheet, photo) in enumerate(self.views):
            if i == last:
                table = sheet
            else:
                pose = _rigid(*x[9 + 3 * i:12 + 3 * i])
                table = sheet @ pose[:, :2].T + pose[:, 2]
            p = photo - self.centre
            undistorted = self.centre + p * (1 + k * np.sum(p * p, axis=1, keepdims=True) / self.radius**2)
            out.append((undistorted - _apply(h, table)).ravel())
        return np.concatenate(out)

    def start(self) -> np.ndarray:
        sheet, photo = self.views[-1]
        h, _ = cv2.findHomography(sheet, photo, 0)
        if h is None:
            raise LensFitError("the last photo's markers give no usable mapping; show the whole sheet to the camera.")
        h = h / h[2, 2]
        x = [0.0, *h.ravel()[:8]]
        back = np.linalg.inv(h)
        for sheet, photo in self.views[:-1]:
            pose, _ = cv2.estimateAffinePartial2D(sheet, _apply(back, photo), method=cv2.LMEDS)
            if pose is None:
                raise LensFitError("a photo's markers give no usable mapping; show the whole sheet to the camera.")
            x += [math.atan2(pose[1, 0], pose[0, 0]), pose[0, 2], pose[1, 2]]
        return np.array(x)


def _levenberg_marquardt(problem: _Problem, x: np.ndarray, iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Least squares with a forward-difference Jacobian: a few dozen parameters, a few
    hundred residuals, so plain numpy is quick enough."""
    r = problem.residuals(x)
    cost, damping = r @ r, 1e-3
    # steps scaled to each parameter: the homography's perspective terms are ~1e-4
    steps = np.maximum(np.abs(x), 1.0) * 1e-6
    steps[7:9] = 1e-9
    for _ in range(iterations):
        jac = np.empty((len(r), len(x)))
        for j in range(len(x)):
            moved = x.copy()
            moved[j] += steps[j]
            jac[:, j] = (problem.residuals(moved) - r) / steps[j]
        a, g = jac.T @ jac, jac.T @ r
        while damping < 1e9:
            step = np.linalg.solve(a + damping * np.diag(np.diag(a) + 1e-12), -g)
            r_new = problem.residuals(x + step)
            if r_new @ r_new < cost:
                x, r, cost = x + step, r_new, r_new @ r_new
                damping = max(damping / 3, 1e-9)
                break
            damping *= 4
        else:
            break
        if np.abs(step).max() < 1e-10:
            break
    return x, r


def fit_lens(detections: Sequence[Mapping[int, npt.ArrayLike]], layout: MarkerLayout, size: tuple[int, int],
             outlier_px: float = 3.0, min_markers: int = 2) -> LensFit:
    """The lens and the table plane from the markers found in several photos of one fixed
    camera (``size`` = (width, height)), the sheet moved between them; the last photo's
    sheet is the table's frame. A marker whose corners lie more than ``outlier_px`` from
    the fit (moved, bent, a second print) is left out and the fit repeated."""
    if len(detections) < 2:
        raise LensFitError("measuring the lens takes two photos or more, the sheet in a different place in each.")
    used = [sorted(set(found) & set(layout)) for found in detections]
    for attempt in range(2):
        for n, ids in enumerate(used, 1):
            if len(ids) < min_markers:
                raise LensFitError(f"photo {n} shows {len(ids)} of the sheet's markers but the fit needs "
                                   f"{min_markers}; lay the sheet flat, wholly in view.")
        views = [(np.array([layout[i] for i in ids], np.float64).reshape(-1, 2),
                  np.array([np.asarray(found[i], np.float64).reshape(4, 2) for i in ids]).reshape(-1, 2))
                 for found, ids in zip(detections, used)]
        problem = _Problem(views, size)
        x, r = _levenberg_marquardt(problem, problem.start())
        per_corner = np.linalg.norm(r.reshape(-1, 2), axis=1)
        bad, at = [], 0
        for ids in used:
            marker_error = per_corner[at:at + 4 * len(ids)].reshape(-1, 4).mean(axis=1)
            bad.append({i for i, e in zip(ids, marker_error) if e > outlier_px})
            at += 4 * len(ids)
        if attempt or not any(bad):
            break
        used = [[i for i in ids if i not in out] for ids, out in zip(used, bad)]
    k = float(x[0])
    if not MIN_K <= k <= MAX_K or not np.all(np.isfinite(x)):
        raise LensFitError("the photos do not fit one lens and one table; keep the camera still and the sheet flat.")
    lens = Lens(k)
    dx, dy = lens._shift(size)
    table_to_canvas = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]]) @ np.append(x[1:9], 1.0).reshape(3, 3)
    rms = float(np.sqrt(np.mean(per_corner**2)))
    return LensFit(lens, table_to_canvas / table_to_canvas[2, 2], rms, tuple(tuple(ids) for ids in used))
