"""Tests for calibration.table on synthetic scenes with a known camera.

The sheet is rendered at 127 dpi (exactly 5 px/mm, so marker edges sit on pixel edges),
laid on a textured table, and photographed by a pinhole camera whose homography is the
ground truth; noise, blur and JPEG compression stand in for a webcam.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.markers import SHEET_LAYOUT, render_marker_sheet
from calibration.table import (
    CalibrationError,
    CalibrationFileError,
    CameraCheck,
    TableCalibration,
    calibrate_table,
    detect_markers,
    fit_homography,
    verify,
)

CANVAS_PX_PER_MM = 5.0  # 127 dpi
CANVAS_ORIGIN_MM = (-250.0, -200.0)  # the table extends around the sheet
CANVAS_SIZE_MM = (800.0, 610.0)
FRAME_SIZE = (1280, 960)
SHEET_CENTRE_MM = (148.5, 105.0)


def rotation(axis: str, degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@dataclass(frozen=True)
class Camera:
    """A pinhole camera above the table (table frame: x right, y down the sheet, z into the table).

    ``tilt`` is the angle between the optical axis and the table normal, ``heading`` turns
    the camera about the table normal, ``roll`` turns the picture about the optical axis.
    ``sheet_fraction`` sets the focal length so the sheet's width fills that share of the frame.
    """

    tilt: float = 0.0
    heading: float = 0.0
    roll: float = 0.0
    distance_mm: float = 700.0
    sheet_fraction: float = 0.5
    target_mm: tuple[float, float] = SHEET_CENTRE_MM

    def table_to_image(self) -> np.ndarray:
        width, height = FRAME_SIZE
        focal = self.sheet_fraction * width * self.distance_mm / 297.0
        k = np.array([[focal, 0, (width - 1) / 2], [0, focal, (height - 1) / 2], [0, 0, 1]])
        # Camera axes in the table frame: looking straight down is the identity.
        world_from_camera = rotation("z", self.heading) @ rotation("x", self.tilt) @ rotation("z", self.roll)
        centre = np.array([*self.target_mm, 0.0]) - self.distance_mm * world_from_camera[:, 2]
        camera_from_world = world_from_camera.T
        h = k @ np.column_stack([camera_from_world[:, 0], camera_from_world[:, 1], -camera_from_world @ centre])
        return h / h[2, 2]

    def image_to_table(self) -> np.ndarray:
        return np.linalg.inv(self.table_to_image())


def project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)


@pytest.fixture(scope="module")
def table_canvas() -> np.ndarray:
    """A wood-like table at 5 px/mm with the sheet at the sheet-frame origin and some cards."""
    rng = np.random.default_rng(7)
    width, height = (int(v * CANVAS_PX_PER_MM) for v in CANVAS_SIZE_MM)
    grain = cv2.resize(rng.normal(0, 1, (height // 40, width // 8)), (width, height), interpolation=cv2.INTER_CUBIC)
    canvas = np.clip(120 + 18 * grain, 0, 255).astype(np.uint8)
    for _ in range(12):  # card-sized clutter around the sheet
        x, y = rng.uniform(0, width - 300), rng.uniform(0, height - 450)
        cv2.rectangle(canvas, (int(x), int(y)), (int(x + 280), int(y + 435)), int(rng.uniform(40, 220)), -1)
    sheet = render_marker_sheet(dpi=127)
    left = int(-CANVAS_ORIGIN_MM[0] * CANVAS_PX_PER_MM)
    top = int(-CANVAS_ORIGIN_MM[1] * CANVAS_PX_PER_MM)
    canvas[top : top + sheet.shape[0], left : left + sheet.shape[1]] = np.maximum(sheet, 25)  # ink is not pure black
    # Blur once against aliasing when the camera sees the table smaller than 5 px/mm.
    return cv2.GaussianBlur(canvas, (0, 0), 1.0)


def photograph(canvas: np.ndarray, camera: Camera, seed: int = 0, noise: float = 3.0) -> np.ndarray:
    """What a webcam would see: perspective, a little blur, sensor noise, a warm tint and JPEG."""
    mm_from_canvas = np.array(
        [
            [1 / CANVAS_PX_PER_MM, 0, 0.5 / CANVAS_PX_PER_MM + CANVAS_ORIGIN_MM[0]],
            [0, 1 / CANVAS_PX_PER_MM, 0.5 / CANVAS_PX_PER_MM + CANVAS_ORIGIN_MM[1]],
            [0, 0, 1],
        ]
    )
    gray = cv2.warpPerspective(
        canvas, camera.table_to_image() @ mm_from_canvas, FRAME_SIZE, flags=cv2.INTER_LINEAR, borderValue=60
    )
    gray = cv2.GaussianBlur(gray, (0, 0), 0.7)
    rng = np.random.default_rng(seed)
    noisy = gray.astype(np.float32) + rng.normal(0, noise, gray.shape)
    bgr = np.clip(np.dstack([noisy * 0.85, noisy * 0.95, noisy * 1.05]), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)


def max_error_mm(calibration: TableCalibration, camera: Camera, points_mm: np.ndarray) -> float:
    seen_at = project(camera.table_to_image(), points_mm)
    return float(np.max(np.linalg.norm(calibration.to_table(seen_at) - points_mm, axis=1)))


SHEET_GRID_MM = np.array([(x, y) for x in np.linspace(0, 297, 7) for y in np.linspace(0, 210, 5)])
SHEET_CORNERS_MM = np.array([(0, 0), (297, 0), (297, 210), (0, 210)], dtype=np.float64)
# A maze-sized area around the sheet: a card is about 57 x 88 mm.
TABLE_AROUND_MM = np.array([(x, y) for x in np.linspace(-150, 450, 7) for y in np.linspace(-100, 300, 5)])

CAMERAS = {
    "straight-down": Camera(),
    "turned-90": Camera(roll=90),
    "tilt-25-upside-down": Camera(tilt=25, heading=30, roll=180),
    "tilt-20-far": Camera(tilt=20, heading=-60, roll=15, distance_mm=1200, sheet_fraction=0.35),
    "tilt-25-near": Camera(tilt=25, heading=120, distance_mm=500, sheet_fraction=0.75),
    "tilt-25-small-sheet": Camera(tilt=25, sheet_fraction=0.3),
}


@pytest.fixture(scope="module")
def reference(table_canvas: np.ndarray) -> tuple[np.ndarray, TableCalibration]:
    """One frame of the straight-down camera and its calibration."""
    frame = photograph(table_canvas, Camera())
    return frame, calibrate_table(frame)


# --- fitting --------------------------------------------------------------------------------


@pytest.mark.parametrize("camera", CAMERAS.values(), ids=CAMERAS.keys())
def test_recovered_mapping_matches_the_true_camera(table_canvas: np.ndarray, camera: Camera) -> None:
    frame = photograph(table_canvas, camera, seed=1)
    calibration = calibrate_table(frame)
    assert len(calibration.markers_used) >= 5  # one may leave the frame in the near view
    assert calibration.reprojection_error_px < 0.6
    assert max_error_mm(calibration, camera, SHEET_CORNERS_MM) < 0.5
    assert max_error_mm(calibration, camera, SHEET_GRID_MM) < 0.5
    # Beyond the sheet errors grow with distance, but a card's position stays well within 2 mm.
    assert max_error_mm(calibration, camera, TABLE_AROUND_MM) < 2.0
    assert calibration.image_size == FRAME_SIZE


def test_mapping_both_ways_is_consistent(reference: tuple[np.ndarray, TableCalibration]) -> None:
    _, calibration = reference
    points = np.array([[0.0, 0.0], [148.5, 105.0], [400.0, -80.0]])
    assert np.allclose(calibration.to_table(calibration.to_image(points)), points, atol=1e-6)


def test_a_marker_that_disagrees_is_left_out_of_the_fit(table_canvas: np.ndarray) -> None:
    camera = CAMERAS["tilt-25-upside-down"]
    detections = detect_markers(photograph(table_canvas, camera, seed=2))
    assert set(detections) == set(SHEET_LAYOUT)
    detections[3] = detections[3] + np.float32([14.0, -9.0])  # a second print, or the sheet is torn
    calibration = fit_homography(detections, image_size=FRAME_SIZE)
    assert 3 not in calibration.markers_used and len(calibration.markers_used) == 5
    assert max_error_mm(calibration, camera, SHEET_GRID_MM) < 0.5


def test_two_markers_are_enough_and_one_is_not(table_canvas: np.ndarray) -> None:
    camera = CAMERAS["tilt-20-far"]
    detections = detect_markers(photograph(table_canvas, camera, seed=3))
    pair = {i: detections[i] for i in (0, 3)}  # diagonal corners of the sheet
    assert max_error_mm(fit_homography(pair, image_size=FRAME_SIZE), camera, SHEET_GRID_MM) < 1.5
    with pytest.raises(CalibrationError, match="found 1 of the 6 sheet markers but need at least 2"):
        fit_homography({0: detections[0]}, image_size=FRAME_SIZE)


def test_a_picture_without_the_sheet_is_a_clear_error() -> None:
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="found 0 of the 6 sheet markers"):
        calibrate_table(blank)


def test_an_id_seen_twice_is_ignored() -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    canvas = np.full((300, 700), 255, np.uint8)
    for left, marker_id in ((40, 7), (280, 7), (500, 9)):
        canvas[50:250, left : left + 150] = cv2.resize(
            cv2.aruco.generateImageMarker(dictionary, marker_id, 150), (150, 200), interpolation=cv2.INTER_NEAREST
        )
    assert set(detect_markers(canvas)) == {9}


# --- verify ---------------------------------------------------------------------------------


def test_verify_says_still_for_a_new_frame_from_the_same_camera(
    table_canvas: np.ndarray, reference: tuple[np.ndarray, TableCalibration]
) -> None:
    _, calibration = reference
    result = verify(photograph(table_canvas, Camera(), seed=42), calibration)
    assert result.state is CameraCheck.STILL and not result.moved
    assert result.error_px is not None and result.error_px < 1.0
    assert result.markers_seen == tuple(range(6))


@pytest.mark.parametrize(
    "moved_camera",
    [
        Camera(target_mm=(SHEET_CENTRE_MM[0] + 4.0, SHEET_CENTRE_MM[1])),  # nudged: markers near their windows
        Camera(heading=1.5),  # turned a little about the vertical
        Camera(target_mm=(SHEET_CENTRE_MM[0] - 120.0, SHEET_CENTRE_MM[1] + 60.0)),  # knocked far away
        Camera(tilt=12),  # tipped
    ],
    ids=["nudged-4mm", "turned-1.5deg", "knocked-far", "tipped-12deg"],
)
def test_verify_says_moved_after_the_camera_moves(
    table_canvas: np.ndarray, reference: tuple[np.ndarray, TableCalibration], moved_camera: Camera
) -> None:
    _, calibration = reference
    result = verify(photograph(table_canvas, moved_camera, seed=5), calibration)
    assert result.state is CameraCheck.MOVED and result.moved
    assert result.error_px is not None and result.error_px > 2.0
    assert "calibrate again" in result.message


def test_verify_cannot_tell_when_the_markers_are_covered(
    table_canvas: np.ndarray, reference: tuple[np.ndarray, TableCalibration]
) -> None:
    _, calibration = reference
    frame = photograph(table_canvas, Camera(), seed=6)
    for corners in calibration.predicted_corners().values():  # hands over every marker
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), (90, 110, 160))
    result = verify(frame, calibration)
    assert result.state is CameraCheck.UNKNOWN and not result.moved
    assert result.markers_seen == ()


def test_verify_says_moved_when_the_resolution_changed(reference: tuple[np.ndarray, TableCalibration]) -> None:
    frame, calibration = reference
    result = verify(cv2.resize(frame, (640, 480)), calibration)
    assert result.moved and "640x480" in result.message


# --- stored calibration ---------------------------------------------------------------------


def test_calibration_survives_a_save_and_load(tmp_path: Path, reference: tuple[np.ndarray, TableCalibration]) -> None:
    _, calibration = reference
    path = tmp_path / "nested" / "table.json"
    calibration.save(path)
    loaded = TableCalibration.load(path)
    assert np.array_equal(loaded.homography, calibration.homography)
    assert loaded.image_size == calibration.image_size
    assert dict(loaded.layout) == dict(calibration.layout)
    assert loaded.created_at == calibration.created_at
    assert loaded.reprojection_error_px == calibration.reprojection_error_px
    assert loaded.markers_used == calibration.markers_used
    assert [p.name for p in path.parent.iterdir()] == ["table.json"]  # no temporary file left behind


def valid_json(calibration: TableCalibration) -> dict:
    return json.loads(json.dumps(calibration.to_json()))


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (lambda d: "{ this is not json", "not valid JSON at line 1"),
        (lambda d: json.dumps({"hello": 1}), "is not a Tunnel Vision table calibration"),
        (lambda d: json.dumps({**d, "version": 99}), "format version 99"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "homography"}), "the field 'homography' is missing"),
        (lambda d: json.dumps({**d, "homography": [[0, 0, 0]] * 3}), "singular"),
        (lambda d: json.dumps({**d, "homography": [[1, 2], [3, 4]]}), "not a finite 3x3 matrix"),
        (lambda d: json.dumps({**d, "image_size": "wide"}), "wrong type or shape"),
    ],
    ids=["not-json", "other-json", "newer-version", "missing-field", "singular", "bad-shape", "bad-type"],
)
def test_a_corrupt_calibration_file_is_one_clear_sentence(
    tmp_path: Path, reference: tuple[np.ndarray, TableCalibration], break_it, expected: str
) -> None:
    path = tmp_path / "table.json"
    path.write_text(break_it(valid_json(reference[1])))
    with pytest.raises(CalibrationFileError, match=expected) as caught:
        TableCalibration.load(path)
    message = str(caught.value)
    assert str(path) in message and message.endswith(".") and "\n" not in message


def test_a_missing_calibration_file_says_to_calibrate(tmp_path: Path) -> None:
    with pytest.raises(CalibrationFileError, match=r"there is no table calibration at .*; calibrate the table first\."):
        TableCalibration.load(tmp_path / "nope.json")


def test_an_unwritable_calibration_path_is_a_clear_error(
    tmp_path: Path, reference: tuple[np.ndarray, TableCalibration]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(CalibrationFileError, match="cannot write the table calibration to"):
        reference[1].save(blocker / "table.json")
