"""Table calibration for a fixed camera: image pixels <-> the table plane in millimetres.

The marker sheet (``calibration.markers``) lies flat on the table. ``calibrate_table`` (or
``detect_markers`` + ``fit_homography``) finds its markers and fits the homography from the
image to the sheet's millimetre frame; ``TableCalibration`` stores it as JSON so the next
session starts without calibrating; ``verify`` cheaply re-checks a live frame and says
whether the camera (or the sheet) moved, so the caller knows when to fit again. The
table stage (``vision.table.plane_from_calibration``) renders the top-down view from it.

Why millimetres: card sizes are physical, so the grid stage can size its lattice without
guessing from the picture, and the stored calibration stays meaningful if the caller
changes the resolution of the top-down view.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.lens import MAX_K, MIN_K, Lens, LensFitError, fit_lens
from calibration.markers import SHEET, SHEET_LAYOUT, MarkerCorners, MarkerLayout

FloatArray = npt.NDArray[np.float64]
MarkerDetections = dict[int, npt.NDArray[np.float32]]

CALIBRATION_FORMAT = "tunnelvision.table-calibration"
CALIBRATION_VERSION = 1
# Fewer markers than this leaves the fit to four corners 40 mm apart, and every error in
# them is multiplied by the distance to the far side of the maze.
MIN_MARKERS = 2
# A marker whose corners disagree with the consensus by more than this is left out of the
# fit: it was moved, bent, or is a second print of the same id.
RANSAC_THRESHOLD_PX = 3.0
# Default for verify(): one table millimetre is about 2 px in a 1080p view of a whole maze,
# so 2 px of drift is about a millimetre, small against a card's 56 mm.
MOVED_THRESHOLD_PX = 2.0
# verify()'s fallback search runs on a frame shrunk so its long side is at most this.
FALLBACK_LONG_SIDE_PX = 960


class CalibrationError(RuntimeError):
    """The table cannot be calibrated from this picture; the message says why in one sentence."""


class CalibrationFileError(CalibrationError):
    """A stored calibration is missing, unreadable or corrupt; one sentence naming the file."""


def _gray(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def make_detector(dictionary: int = SHEET.dictionary) -> cv2.aruco.ArucoDetector:
    """An ArUco detector with sub-pixel corner refinement (the homography is only as good as
    the corners; refinement takes them from about half a pixel to a tenth)."""
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), parameters)


def detect_markers(image: npt.NDArray[np.uint8], detector: cv2.aruco.ArucoDetector | None = None) -> MarkerDetections:
    """Marker id -> its four image corners (float32, shape (4, 2), ArUco order TL, TR, BR, BL).

    An id seen twice is dropped: with two candidates there is no telling which one the
    layout means, and a wrong correspondence spoils the whole fit.
    """
    corners, ids, _rejected = (detector or make_detector()).detectMarkers(_gray(image))
    if ids is None:
        return {}
    found: MarkerDetections = {}
    duplicates: set[int] = set()
    for marker_id, marker_corners in zip((int(i) for i in ids.ravel()), corners, strict=True):
        if marker_id in found:
            duplicates.add(marker_id)
        found[marker_id] = marker_corners.reshape(4, 2).astype(np.float32)
    for marker_id in duplicates:
        del found[marker_id]
    return found


def _apply_homography(homography: FloatArray, points: npt.ArrayLike) -> FloatArray:
    array = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    mapped = cv2.perspectiveTransform(array.reshape(-1, 1, 2), homography)
    return mapped.reshape(-1, 2)


@dataclass(frozen=True)
class TableCalibration:
    """The fitted mapping from one camera's image to the table plane.

    ``homography`` maps image pixels (pixel centres at integer coordinates, as OpenCV) to
    table millimetres; with a lens measured (``lens_k`` not 0), the images are the photos
    undistorted by ``lens`` (every frame goes through ``lens.undistort`` first), and
    ``image_size`` is theirs (a little larger than the photos'). ``reprojection_error_px``
    is the RMS distance between detected marker corners and where the fit puts them: a few
    tenths of a pixel is a good fit.
    """

    homography: FloatArray
    image_size: tuple[int, int]
    layout: MarkerLayout
    created_at: str
    reprojection_error_px: float
    markers_used: tuple[int, ...]
    lens_k: float = 0.0  # calibration.lens: 0 when calibrated from one photo (no lens measured)

    @property
    def lens(self) -> Lens:
        return Lens(self.lens_k)

    def to_table(self, points_px: npt.ArrayLike) -> FloatArray:
        """Image pixels (N, 2) -> table millimetres (N, 2)."""
        return _apply_homography(self.homography, points_px)

    def to_image(self, points_mm: npt.ArrayLike) -> FloatArray:
        """Table millimetres (N, 2) -> image pixels (N, 2)."""
        return _apply_homography(np.linalg.inv(self.homography), points_mm)

    def predicted_corners(self) -> dict[int, FloatArray]:
        """Where each layout marker's corners should appear in the image."""
        return {marker_id: self.to_image(corners) for marker_id, corners in self.layout.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CALIBRATION_FORMAT,
            "version": CALIBRATION_VERSION,
            "created_at": self.created_at,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "reprojection_error_px": self.reprojection_error_px,
            "markers_used": list(self.markers_used),
            "lens_k": self.lens_k,
            "layout": {str(marker_id): [list(c) for c in corners] for marker_id, corners in self.layout.items()},
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "the table calibration") -> TableCalibration:
        """Rebuild from ``to_json`` output; CalibrationFileError names ``source`` if it is wrong."""

        def corrupt(detail: str) -> CalibrationFileError:
            return CalibrationFileError(f"{source} is corrupt: {detail}; calibrate the table again.")

        if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT:
            raise CalibrationFileError(f"{source} is not a Tunnel Vision table calibration.")
        version = data.get("version")
        if version != CALIBRATION_VERSION:
            raise CalibrationFileError(
                f"{source} has format version {version!r}, this program reads version {CALIBRATION_VERSION}."
            )
        try:
            homography = np.array(data["homography"], dtype=np.float64)
            width, height = (int(v) for v in data["image_size"])
            layout: dict[int, MarkerCorners] = {}
            for key, corners in data["layout"].items():
                points = np.array(corners, dtype=np.float64)
                if points.shape != (4, 2):
                    raise ValueError
                layout[int(key)] = tuple((float(x), float(y)) for x, y in points)  # type: ignore[assignment]
            error = float(data["reprojection_error_px"])
            markers_used = tuple(int(v) for v in data["markers_used"])
            created_at = str(data["created_at"])
            lens_k = float(data.get("lens_k", 0.0))  # files from before the lens was measured lack it
        except KeyError as missing:
            raise corrupt(f"the field {missing} is missing") from None
        except (TypeError, ValueError, AttributeError):
            raise corrupt("a field has the wrong type or shape") from None
        if homography.shape != (3, 3) or not np.all(np.isfinite(homography)):
            raise corrupt("the homography is not a finite 3x3 matrix")
        if abs(np.linalg.det(homography)) < 1e-12:
            raise corrupt("the homography is singular")
        if width <= 0 or height <= 0 or not layout:
            raise corrupt("the image size or the marker layout is empty")
        if not MIN_K <= lens_k <= MAX_K:
            raise corrupt("the lens is out of range")
        return cls(homography, (width, height), MappingProxyType(layout), created_at, error, markers_used, lens_k)

    def save(self, path: str | Path) -> None:
        """Write as JSON, atomically: a crash or a full disk never leaves half a file."""
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    json.dump(self.to_json(), stream, indent=2)
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise CalibrationFileError(
                f"cannot write the table calibration to {target}: {exc.strerror or exc}."
            ) from exc

    @classmethod
    def load(cls, path: str | Path) -> TableCalibration:
        source = Path(path)
        try:
            text = source.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CalibrationFileError(
                f"there is no table calibration at {source}; calibrate the table first."
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is not UTF-8 text"
            raise CalibrationFileError(f"cannot read the table calibration {source}: {reason}.") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationFileError(
                f"the table calibration {source} is corrupt: not valid JSON at line {exc.lineno}; "
                "calibrate the table again."
            ) from None
        return cls.from_json(data, source=f"the table calibration {source}")


def _corner_arrays(
    detections: Mapping[int, npt.ArrayLike], layout: MarkerLayout, ids: list[int]
) -> tuple[FloatArray, FloatArray]:
    table = np.array([layout[i] for i in ids], dtype=np.float64).reshape(-1, 2)
    image = np.array([np.asarray(detections[i], dtype=np.float64).reshape(4, 2) for i in ids]).reshape(-1, 2)
    return table, image


def fit_homography(
    detections: Mapping[int, npt.ArrayLike],
    layout: MarkerLayout = SHEET_LAYOUT,
    *,
    image_size: tuple[int, int],
    ransac_threshold_px: float = RANSAC_THRESHOLD_PX,
    created_at: str | None = None,
) -> TableCalibration:
    """Fit the image -> table mapping from detected markers of ``layout``.

    The fit runs table -> image so its residuals are in image pixels, where the detection
    noise is. With four or more markers, RANSAC over all corners picks the consensus and a
    marker is kept only if all four of its corners agree; the final homography is a
    least-squares fit (refined by Levenberg-Marquardt inside OpenCV) over every corner of
    the kept markers. ``image_size`` is (width, height) of the frame the markers came from.
    """
    ids = sorted(set(detections) & set(layout))
    if len(ids) < MIN_MARKERS:
        raise CalibrationError(
            f"found {len(ids)} of the {len(layout)} sheet markers but need at least {MIN_MARKERS}; "
            "check that the whole sheet is in view, flat and well lit."
        )
    table, image = _corner_arrays(detections, layout, ids)
    if len(ids) >= 4:
        _, inliers = cv2.findHomography(table, image, cv2.RANSAC, ransac_threshold_px, maxIters=2000, confidence=0.999)
        if inliers is not None:
            agreeing = inliers.reshape(-1, 4).all(axis=1)
            ids = [marker_id for marker_id, ok in zip(ids, agreeing, strict=True) if ok]
        if len(ids) < MIN_MARKERS:
            raise CalibrationError(
                "the sheet markers do not agree with each other; lay the sheet flat and make sure it is not bent."
            )
        table, image = _corner_arrays(detections, layout, ids)
    table_to_image, _ = cv2.findHomography(table, image, 0)
    if table_to_image is None or abs(np.linalg.det(table_to_image)) < 1e-12:
        raise CalibrationError("the markers found give no usable mapping; show the whole sheet to the camera.")
    residuals = _apply_homography(table_to_image, table) - image
    rms = float(np.sqrt(np.mean(np.sum(residuals**2, axis=1))))
    image_to_table = np.linalg.inv(table_to_image)
    image_to_table /= image_to_table[2, 2]
    return TableCalibration(
        homography=image_to_table,
        image_size=(int(image_size[0]), int(image_size[1])),
        layout=MappingProxyType(dict(layout)),
        created_at=created_at or datetime.now(UTC).isoformat(timespec="seconds"),
        reprojection_error_px=rms,
        markers_used=tuple(ids),
    )


def calibrate_table(
    images: npt.NDArray[np.uint8] | Sequence[npt.NDArray[np.uint8]], layout: MarkerLayout = SHEET_LAYOUT
) -> TableCalibration:
    """Detect the sheet and fit; CalibrationError if the sheet is not usable.

    One photo gives the homography, the lens taken for a pinhole. Several photos from the
    fixed camera, the sheet moved between them (the corners of the view and its middle) and
    left where the last one shows it, measure the lens as well (``calibration.lens``).
    """
    photos = [images] if isinstance(images, np.ndarray) else list(images)
    if not photos:
        raise CalibrationError("no photo of the marker sheet was given.")
    height, width = photos[0].shape[:2]
    if len(photos) == 1:
        return fit_homography(detect_markers(photos[0]), layout, image_size=(width, height))
    if any(p.shape[:2] != (height, width) for p in photos):
        raise CalibrationError("the photos differ in size; take them all with the one camera at one resolution.")
    try:
        fit = fit_lens([detect_markers(p) for p in photos], layout, (width, height),
                       outlier_px=RANSAC_THRESHOLD_PX, min_markers=MIN_MARKERS)
    except LensFitError as exc:
        raise CalibrationError(str(exc)) from None
    image_to_table = np.linalg.inv(fit.table_to_canvas)
    return TableCalibration(
        homography=image_to_table / image_to_table[2, 2],
        image_size=fit.lens.canvas_size((width, height)),
        layout=MappingProxyType(dict(layout)),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        reprojection_error_px=fit.rms_px,
        markers_used=fit.markers_used[-1],
        lens_k=fit.lens.k,
    )


class CameraCheck(Enum):
    STILL = "still"
    MOVED = "moved"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class VerifyResult:
    """Whether a frame still fits the calibration.

    ``error_px`` is the median over the markers found of their mean corner distance from
    where the calibration predicts them (None when no marker was found). UNKNOWN means too
    few markers were visible to tell, typically hands or cards over the sheet: keep the
    calibration and check a later frame.
    """

    state: CameraCheck
    error_px: float | None
    markers_seen: tuple[int, ...]
    message: str

    @property
    def moved(self) -> bool:
        return self.state is CameraCheck.MOVED


def _find_near_predictions(
    gray: npt.NDArray[np.uint8],
    predicted: dict[int, FloatArray],
    margin_px: float,
    detector: cv2.aruco.ArucoDetector,
) -> MarkerDetections:
    """Look for each marker only in a small window around where it should be: the whole
    check costs a few small detections instead of one over the full frame."""
    height, width = gray.shape
    found: MarkerDetections = {}
    for marker_id, corners in predicted.items():
        side = float(np.max(np.ptp(corners, axis=0)))
        pad = max(margin_px, 0.5 * side)
        left, top = np.floor(corners.min(axis=0) - pad).astype(int)
        right, bottom = np.ceil(corners.max(axis=0) + pad).astype(int)
        left, top, right, bottom = max(left, 0), max(top, 0), min(right, width), min(bottom, height)
        if right - left < 16 or bottom - top < 16:
            continue
        window = detect_markers(gray[top:bottom, left:right], detector)
        if marker_id in window:
            found[marker_id] = window[marker_id] + np.array([left, top], dtype=np.float32)
    return found


def _find_anywhere(gray: npt.NDArray[np.uint8], detector: cv2.aruco.ArucoDetector) -> MarkerDetections:
    scale = min(1.0, FALLBACK_LONG_SIDE_PX / max(gray.shape))
    if scale == 1.0:
        return detect_markers(gray, detector)
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    # Pixel centres: x_full + 0.5 = (x_small + 0.5) / scale.
    return {i: (c + 0.5) / scale - 0.5 for i, c in detect_markers(small, detector).items()}


def verify(
    image: npt.NDArray[np.uint8],
    calibration: TableCalibration,
    *,
    threshold_px: float = MOVED_THRESHOLD_PX,
    detector: cv2.aruco.ArucoDetector | None = None,
) -> VerifyResult:
    """Check cheaply whether the camera (or the sheet) moved since ``calibration``.

    Markers are looked for near their predicted positions first; only if too few are found
    there is the whole (downscaled) frame searched, to tell a big move (markers elsewhere)
    from markers that are merely covered (not found at all).
    """
    height, width = image.shape[:2]
    if (width, height) != calibration.image_size:
        expected = "x".join(map(str, calibration.image_size))
        return VerifyResult(
            CameraCheck.MOVED, None, (), f"the frame is {width}x{height} but the calibration was made at {expected}."
        )
    detector = detector or make_detector()
    gray = _gray(image)
    predicted = {i: c for i, c in calibration.predicted_corners().items() if i in calibration.markers_used}
    found = _find_near_predictions(gray, predicted, margin_px=4 * threshold_px, detector=detector)
    if len(found) < MIN_MARKERS:
        found = {i: c for i, c in _find_anywhere(gray, detector).items() if i in predicted}
    if not found:
        return VerifyResult(CameraCheck.UNKNOWN, None, (), "no calibration marker is visible; is the sheet covered?")
    per_marker = [float(np.mean(np.linalg.norm(found[i] - predicted[i], axis=1))) for i in found]
    error = float(np.median(per_marker))
    seen = tuple(sorted(found))
    if len(found) < MIN_MARKERS:
        return VerifyResult(
            CameraCheck.UNKNOWN,
            error,
            seen,
            f"only {len(found)} calibration marker is visible; cannot tell whether the camera moved.",
        )
    if error > threshold_px:
        return VerifyResult(
            CameraCheck.MOVED, error, seen, f"the markers are {error:.1f} px from where they were; calibrate again."
        )
    return VerifyResult(CameraCheck.STILL, error, seen, f"the camera is still ({error:.2f} px).")
