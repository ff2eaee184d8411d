"""`tunnelvision calibrate-table` writes the file that --calibration reads."""

import cv2
import numpy as np

from calibration.markers import render_marker_sheet
from calibration.table import TableCalibration
from tunnelvision.cli import main


def test_a_photo_of_the_sheet_gives_a_calibration_file(tmp_path, capsys):
    sheet = cv2.cvtColor(render_marker_sheet(100), cv2.COLOR_GRAY2BGR)
    photo = np.full((1080, 1920, 3), 90, np.uint8)
    photo[200:200 + sheet.shape[0], 300:300 + sheet.shape[1]] = sheet
    cv2.imwrite(str(tmp_path / "sheet.png"), photo)
    out = tmp_path / "table.json"
    assert main(["calibrate-table", str(tmp_path / "sheet.png"), "--out", str(out)]) == 0
    assert len(TableCalibration.load(out).markers_used) == 6


def test_a_photo_without_the_sheet_is_one_sentence(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "table.png"), np.full((480, 640, 3), 90, np.uint8))
    assert main(["calibrate-table", str(tmp_path / "table.png"), "--out", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tunnelvision: found 0 of the 6 sheet markers") and "Traceback" not in err
    assert not (tmp_path / "t.json").exists()


def test_photos_of_the_sheet_in_several_places_measure_the_lens_and_check_uses_it(tmp_path, capsys):
    """End to end, as a player with a wide-angle webcam: photograph the sheet in the corners
    of the view and beside the maze, calibrate, then settle a photo with --calibration."""
    import json

    from vision.scenes import SceneOptions, marker_sheet_photo, table_scene

    options = SceneOptions(barrel=0.12, p_hand=0.0, p_crosswise=0.0, p_cropped=0.0, p_reveal=0.0)
    scene = table_scene(np.random.default_rng(5), cards=(12, 16), options=options)
    rng = np.random.default_rng(0)
    photos = []
    for n, at in enumerate(((0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.5, 0.5))):
        photos.append(str(tmp_path / f"sheet{n}.png"))
        cv2.imwrite(photos[-1], marker_sheet_photo(rng, scene.camera, at, options))
    out = tmp_path / "table.json"
    assert main(["calibrate-table", *photos, "--out", str(out)]) == 0
    assert "lens k = " in capsys.readouterr().out
    assert abs(TableCalibration.load(out).lens_k - scene.camera.barrel) < 0.01
    cv2.imwrite(str(tmp_path / "maze.png"), scene.image)
    assert main(["check", str(tmp_path / "maze.png"), "--calibration", str(out), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    truth = {(x, y): t.face for (x, y), t in scene.cells.items()}
    assert read["cards"] and all(truth.get((c["x"], c["y"])) == c["face"] for c in read["cards"])
