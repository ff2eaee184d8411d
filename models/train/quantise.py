"""8-bit weights and activations for the exported network.

onnxruntime's static quantisation (QDQ, weights per output channel), calibrated on crops of
the validation set. A wider network runs faster in 8 bits (channels 24 to 128: 4.7 to 4.9
against 5.6 ms a batch of 60 crops on one core; twice the shipped widths: 5.8 against 8.1
ms), and its file shrinks to about a quarter, at a tenth of a point of accuracy. The
shipped widths run slower in 8 bits (the quantising steps cost more than their small
convolutions save), so it is an option of the recipe (``--int8``), not a default;
``docs/benchmark-history.md`` has the measurements.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

CALIBRATION_CROPS = 600
CALIBRATION_BATCH = 60  # the pipeline's batches are a maze's cells: tens of crops


def quantise(model: Path, calibration: np.ndarray) -> None:
    """Replace the ONNX file ``model`` by its 8-bit version. ``calibration``: inputs as the
    model takes them (normalised NCHW float32), whose activations set the ranges."""
    name = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).get_inputs()[0].name
    batches = [{name: calibration[i:i + CALIBRATION_BATCH]} for i in range(0, len(calibration), CALIBRATION_BATCH)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = iter(batches)

        def get_next(self):
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(model), str(prepared))  # shapes inferred and nodes fused, as the quantiser wants
        quantize_static(str(prepared), str(model), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        op_types_to_quantize=["Conv", "Gemm", "MatMul"])
