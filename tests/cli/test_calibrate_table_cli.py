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
