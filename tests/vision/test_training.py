"""The training recipe end to end, in miniature: render, train, export, load at run time.

Needs the optional `train` extra (torch); skipped without it. The shipped model's own
figures come from the full recipe and `bench/classifier.py`, never from this test.
"""

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from models.train import train  # noqa: E402
from vision.augment import render_cell  # noqa: E402
from vision.classify import Classifier  # noqa: E402


def test_a_tiny_training_run_exports_a_model_the_runtime_reads(tmp_path):
    assert train.main(["--out", str(tmp_path), "--train-size", "512", "--val-size", "256", "--test-size", "128",
                       "--epochs", "1", "--workers", "1", "--threads", "1", "--scene-share", "0.25"]) == 0
    meta = json.loads((tmp_path / "tunnel-cards.json").read_text("utf-8"))
    assert meta["input"] == {**meta["input"], "width": 40, "height": 60}
    assert meta["training"]["train_size"] == 512 and meta["training"]["minutes"] is not None
    assert meta["training"]["scene_share"] == 0.25 and "table photos" in meta["training"]["data"]
    assert 0.0 <= meta["metrics"]["heldout_synthetic"]["top1"] <= 1.0
    assert len(meta["abstain"]["centroids"]) == len(meta["classes"])

    classifier = Classifier(tmp_path / "tunnel-cards.onnx")
    rng = np.random.default_rng(5)
    readings = classifier.classify([render_cell("cross", 0, rng), render_cell(None, 0, rng)])
    assert len(readings) == 2
    assert all(0.0 <= r.confidence <= 1.0 for r in readings)
    _, embedding = classifier.run([render_cell("cross", 0, rng)])
    assert embedding.shape == (1, 64)
