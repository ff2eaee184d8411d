"""The lens measured from photos of the marker sheet (calibration.lens), on scenes whose
camera and lens are known: the renderer's photos of the sheet lying in several places."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.lens import Lens, LensFitError, fit_lens
from calibration.markers import SHEET_LAYOUT
from calibration.table import CalibrationError, CalibrationFileError, TableCalibration, calibrate_table
from engine.catalogue import default_catalogue
from vision.classes import is_half_turn_symmetric
from vision.scenes import SceneOptions, marker_sheet_photo, table_scene

SPOTS = ((0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.5, 0.5))


@pytest.fixture(scope="module")
def strong_lens():
    """A table photographed through a wide lens, and four photos of the sheet by the same camera."""
    options = SceneOptions(barrel=0.3)
    for seed in range(20):  # the first table whose lens is strong (k is drawn up to 0.3)
        scene = table_scene(np.random.default_rng(seed), cards=(12, 20), hand=False, options=options)
        if scene.camera.barrel > 0.15:
            break
    rng = np.random.default_rng(1)
    return scene, [marker_sheet_photo(rng, scene.camera, at, options) for at in SPOTS]


def table_error_mm(calibration: TableCalibration, scene) -> float:
    """How far the calibration puts the maze's cell corners from a rigid copy of the true ones:
    distances between every pair of corners, table mm (the calibration's table frame is the
    sheet's, turned and moved against the maze's)."""
    cells = sorted(scene.cells)
    photo = np.concatenate([scene.cells[c].corners for c in cells])
    size = scene.camera.size
    seen = calibration.to_table(calibration.lens.undistort_points(photo, size))
    true = np.concatenate([(np.array(c, float) + np.array([(-.5, .5), (.5, .5), (.5, -.5), (-.5, -.5)])) * scene.pitch_mm
                           for c in cells])

    def distances(p):
        return np.linalg.norm(p[:, None] - p[None], axis=2)

    return float(np.abs(distances(seen) - distances(true)).max())


def test_the_lens_is_measured_from_photos_of_the_sheet_in_several_places(strong_lens):
    scene, photos = strong_lens
    calibration = calibrate_table(photos)
    assert calibration.lens_k == pytest.approx(scene.camera.barrel, abs=0.01)
    assert calibration.reprojection_error_px < 1.5
    # the maze's corners, undistorted and mapped to the table, lie as the cards do
    assert table_error_mm(calibration, scene) < 3.0
    # one photo measures no lens, and its plane bends the maze by several millimetres
    single = calibrate_table(photos[-1])
    assert single.lens_k == 0.0
    assert table_error_mm(single, scene) > 3 * table_error_mm(calibration, scene)


def test_undistorting_a_frame_moves_each_pixel_where_its_point_goes():
    lens, size = Lens(0.2), (640, 360)
    frame = np.zeros((size[1], size[0], 3), np.uint8)
    dots = np.array([(40.0, 30.0), (600.0, 50.0), (320.0, 180.0), (100.0, 320.0)])
    for x, y in dots:
        cv2.circle(frame, (int(x), int(y)), 4, (255, 255, 255), -1)
    canvas = lens.undistort(frame)
    expected = lens.undistort_points(dots, size)
    for x, y in expected:
        patch = canvas[int(y) - 12:int(y) + 13, int(x) - 12:int(x) + 13, 0].astype(float)
        ys, xs = np.nonzero(patch > 60)
        assert len(xs), "the dot is not where its point went"
        weights = patch[ys, xs]
        assert np.average(xs, weights=weights) + int(x) - 12 == pytest.approx(x, abs=0.6)
        assert np.average(ys, weights=weights) + int(y) - 12 == pytest.approx(y, abs=0.6)
    # the photo's corners stay in view
    corners = lens.undistort_points([(0, 0), (639, 359)], size)
    canvas_corner = np.array(lens.canvas_size(size)) - 1
    assert np.allclose(corners, [(0, 0), canvas_corner], atol=1.0)


@pytest.mark.parametrize("k", [0.05, 0.2, -0.1])
def test_an_inscribed_canvas_shows_nothing_beyond_the_photo(k):
    # beyond the photo's outline a canvas repeats its edge, cards drawn out into stripes that
    # read as cards; an inscribed canvas is the largest centred one within the outline
    size = (1920, 1080)
    lens = Lens(k, inscribed=True)
    width, height = lens.canvas_size(size)
    along = np.linspace(0, 1, 401)
    w, h = size[0] - 1, size[1] - 1
    outline = np.concatenate([np.c_[along * w, 0 * along], np.c_[along * w, 0 * along + h],
                              np.c_[0 * along, along * h], np.c_[0 * along + w, along * h]])
    x, y = lens.undistort_points(outline, size).T
    sides = {"west": x[outline[:, 0] == 0], "east": x[outline[:, 0] == w],
             "north": y[outline[:, 1] == 0], "south": y[outline[:, 1] == h]}
    assert sides["west"].max() <= 0.5 and sides["north"].max() <= 0.5
    assert sides["east"].min() >= width - 1.5 and sides["south"].min() >= height - 1.5
    # and it is the largest: the outline touches each of its sides
    assert sides["west"].max() > -1.5 and sides["east"].min() < width + 0.5
    assert sides["north"].max() > -1.5 and sides["south"].min() < height + 0.5
    frame = np.zeros((size[1], size[0], 3), np.uint8)
    assert lens.undistort(frame).shape[:2] == (height, width)


def test_a_pinhole_leaves_the_frame_as_it_is():
    frame = np.random.default_rng(0).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    assert Lens(0.0).undistort(frame) is frame


def test_photos_that_cannot_measure_a_lens_are_refused_in_words(strong_lens):
    _, photos = strong_lens
    with pytest.raises(CalibrationError, match="differ in size"):
        calibrate_table([photos[0], cv2.resize(photos[1], (960, 540))])
    blank = np.full_like(photos[0], 128)
    with pytest.raises(CalibrationError, match=r"photo 2 shows 0 of the sheet's markers"):
        calibrate_table([photos[0], blank, photos[2]])
    with pytest.raises(LensFitError, match="two photos or more"):
        fit_lens([{}], SHEET_LAYOUT, (640, 480))


def test_the_lens_survives_a_save_and_load_and_older_files_have_none(tmp_path, strong_lens):
    calibration = calibrate_table(strong_lens[1])
    path = tmp_path / "table.json"
    calibration.save(path)
    assert TableCalibration.load(path).lens_k == calibration.lens_k
    older = json.loads(path.read_text())
    del older["lens_k"]
    path.write_text(json.dumps(older))
    assert TableCalibration.load(path).lens_k == 0.0
    path.write_text(json.dumps({**older, "lens_k": 3.0}))
    with pytest.raises(CalibrationFileError, match="the lens is out of range"):
        TableCalibration.load(path)


def test_a_photo_through_the_wide_lens_is_read_with_the_measured_lens(strong_lens):
    """End to end: the pipeline undistorts the photo and reads every card where it lies."""
    from vision.classify import Classifier
    from vision.pipeline import Pipeline

    scene, photos = strong_lens
    observation = Pipeline(Classifier(), calibration=calibrate_table(photos)).observe(scene.image)
    assert observation.error is None
    catalogue = default_catalogue()

    def right(card) -> bool:
        truth = scene.cells.get(card.cell)
        return truth is not None and card.face == truth.face and (
            card.rotation == truth.rotation or is_half_turn_symmetric(catalogue.face(card.face)))

    assert observation.cards and all(right(card) for card in observation.cards)
    assert len(observation.cards) >= 0.8 * len(scene.cells)
