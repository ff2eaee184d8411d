"""Helpers shared by the vision tests."""

from datetime import UTC, datetime

import numpy as np

from calibration.markers import SHEET_LAYOUT
from calibration.table import TableCalibration


def sheet_calibration(scene) -> TableCalibration:
    """What a perfect marker sheet on this table would have measured: image -> table mm in
    the sheet's frame, whose y runs down the page (the scenes' plane runs north)."""
    image_to_sheet = np.diag([1.0, -1.0, 1.0]) @ np.linalg.inv(scene.camera.plane_to_image)
    return TableCalibration(image_to_sheet / image_to_sheet[2, 2], scene.image.shape[1::-1], SHEET_LAYOUT,
                            datetime.now(UTC).isoformat(), 0.2, tuple(SHEET_LAYOUT))
