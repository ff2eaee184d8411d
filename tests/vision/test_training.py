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


def test_quantising_keeps_the_readings_and_shrinks_the_file(tmp_path):
    import onnx
    import onnxruntime as ort
    import torch

    from models.train.net import CardNet, Exported
    from models.train.quantise import quantise

    torch.manual_seed(0)
    net = CardNet(12, 60, 40).eval()
    path = tmp_path / "net.onnx"
    torch.onnx.export(Exported(net, 1.0).eval(), torch.zeros(1, 3, 60, 40), str(path), input_names=["image"],
                      output_names=["probabilities", "embedding"], dynamic_axes={"image": {0: "batch"}},
                      opset_version=17, dynamo=False)
    images = np.random.default_rng(1).normal(size=(120, 3, 60, 40)).astype(np.float32)

    def probabilities():
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": images})[0]

    before, size = probabilities(), path.stat().st_size
    quantise(path, images)
    after = probabilities()
    assert {n.op_type for n in onnx.load(str(path)).graph.node} >= {"QuantizeLinear", "DequantizeLinear"}
    assert path.stat().st_size < 0.5 * size
    assert (before.argmax(1) == after.argmax(1)).mean() >= 0.9
    assert np.abs(before - after).max() < 0.1
