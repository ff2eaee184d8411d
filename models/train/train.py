"""Train the card classifier on the CPU and export it to ONNX with its metadata.

    pip install -e ".[train]"            # torch==2.13.0 (CPU build) and onnx
    python -m models.train.train [--scans DIR] [--seed 0] [--out models]

Steps: render a balanced training set (procedural cards, plus heavily augmented scans when
``--scans`` names a folder with a manifest, and a quarter of the crops cut out of whole
rendered table photos, ``--scene-share``), train the small CNN (``net.py``), fit a
temperature on a validation set so confidences mean what they say, measure the embedding
centroids that let the runtime notice inputs unlike anything seen, export ONNX (opset 17)
and write ``models/tunnel-cards.json``: classes, input size, normalisation, how the model
was trained, and its measured accuracy on a held-out set (unseen seeds, unseen styles).
The defaults finish in well under 45 minutes on 2 cores and are reproducible for a seed.
``--widths`` and ``--int8`` (8-bit weights and activations, ``quantise.py``) train other
networks than the shipped one, for comparison.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from engine.catalogue import default_catalogue
from vision.classes import card_classes, half_turn_index

from .data import render_dataset, scene_cells
from .net import WIDTHS, CardNet, Exported
from .quantise import CALIBRATION_CROPS, quantise

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
MODEL_NAME = "tunnel-cards"


def to_tensor(images: np.ndarray) -> torch.Tensor:
    x = torch.from_numpy(images[..., ::-1].copy()).permute(0, 3, 1, 2).float().div_(255)
    # in place: the training set as floats is gigabytes, and a copy of it would not fit in memory
    return x.sub_(torch.tensor(MEAN).view(1, 3, 1, 1)).div_(torch.tensor(STD).view(1, 3, 1, 1))


def augment_batch(x: torch.Tensor, y: torch.Tensor, turn: torch.Tensor, gen: torch.Generator):
    """Cheap extra variety on top of the renders: a half turn (with its label), shifts, tone."""
    n = x.shape[0]
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip.view(-1, 1, 1, 1), torch.flip(x, dims=(2, 3)), x)
    y = torch.where(flip, turn[y], y)
    pad = 2
    padded = nn.functional.pad(x, (pad, pad, pad, pad), mode="replicate")
    dx, dy = (int(v) for v in torch.randint(0, 2 * pad + 1, (2,), generator=gen))
    x = padded[:, :, dy:dy + x.shape[2], dx:dx + x.shape[3]]
    gain = 1 + 0.15 * (torch.rand(n, 1, 1, 1, generator=gen) * 2 - 1)
    bias = 0.15 * (torch.rand(n, 3, 1, 1, generator=gen) * 2 - 1)
    return x * gain + bias, y


def fit_temperature(logits: torch.Tensor, labels: torch.Tensor) -> float:
    log_t = torch.zeros(1, requires_grad=True)
    optimiser = torch.optim.LBFGS([log_t], lr=0.1, max_iter=100)
    loss_fn = nn.CrossEntropyLoss()

    def closure():
        optimiser.zero_grad()
        loss = loss_fn(logits / log_t.exp(), labels)
        loss.backward()
        return loss

    optimiser.step(closure)
    return float(log_t.detach().exp())


def predict(net: nn.Module, x: torch.Tensor, batch: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    net.eval()
    device = next(net.parameters()).device
    logits, embeddings = [], []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            lo, em = net(x[i:i + batch].to(device))
            logits.append(lo.cpu())
            embeddings.append(em.cpu())
    return torch.cat(logits), torch.cat(embeddings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the card classifier and export it to ONNX.")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent), help="folder for the model files")
    parser.add_argument("--scans", help="folder of card scans with a manifest.json (face id per file)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-size", type=int, default=140_000)
    parser.add_argument("--val-size", type=int, default=8_000)
    parser.add_argument("--test-size", type=int, default=8_000)
    parser.add_argument("--scene-share", type=float, default=0.25,
                        help="share of the crops cut out of rendered table photos (models.train.data.scene_cells)")
    parser.add_argument("--epochs", type=int, default=28)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--input", default="40x60", help="model input WIDTHxHEIGHT")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering the data")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)), help="channels of the five conv layers")
    parser.add_argument("--device", default="cpu", help="torch device (the recipe is made for the CPU)")
    parser.add_argument("--int8", action="store_true", help="quantise the exported network to 8 bits (quantise.py)")
    args = parser.parse_args(argv)

    started = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    width, height = (int(v) for v in args.input.lower().split("x"))
    classes = card_classes(default_catalogue())
    turn = torch.tensor(half_turn_index(classes))
    scans = str(Path(args.scans).resolve()) if args.scans else None

    def log(message: str) -> None:
        print(f"[{time.time() - started:7.1f}s] {message}", flush=True)

    log(f"rendering {args.train_size} training crops ({len(classes)} classes, {args.scene_share:.0%} cut out of "
        "table photos)" + (f", scans from {scans}" if scans else ""))

    def crops(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        from_scenes = round(count * args.scene_share)
        cells = render_dataset(count - from_scenes, seed, size=(width, height), workers=args.workers,
                               scans_dir=scans, style_split="train")
        if not from_scenes:
            return cells
        cut = scene_cells(from_scenes, seed + 500, size=(width, height), workers=args.workers, scans_dir=scans)
        return np.concatenate([cells[0], cut[0]]), np.concatenate([cells[1], cut[1]])

    train_x, train_y = crops(args.train_size, args.seed * 1000 + 1)
    val_x, val_y = crops(args.val_size, args.seed * 1000 + 2)
    log("rendered")
    x_train, y_train = to_tensor(train_x), torch.from_numpy(train_y)
    x_val, y_val = to_tensor(val_x), torch.from_numpy(val_y)
    del train_x, val_x

    widths = tuple(int(v) for v in args.widths.split(","))
    device = torch.device(args.device)
    net = CardNet(len(classes), height, width, widths).to(device)
    steps = args.epochs * (len(x_train) // args.batch)
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        net.train()
        order = torch.randperm(len(x_train), generator=gen)
        total = 0.0
        for i in range(0, len(order) - args.batch + 1, args.batch):
            idx = order[i:i + args.batch]
            xb, yb = augment_batch(x_train[idx], y_train[idx], turn, gen)
            logits, _ = net(xb.to(device))
            yb = yb.to(device)
            loss = loss_fn(logits, yb)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(idx)
        logits, _ = predict(net, x_val)
        accuracy = float((logits.argmax(1) == y_val).float().mean())
        log(f"epoch {epoch + 1}/{args.epochs}: loss {total / len(order):.4f}, validation accuracy {accuracy:.4%}")

    logits, embedding = predict(net, x_val)
    temperature = fit_temperature(logits, y_val)
    unit = nn.functional.normalize(embedding, dim=1)
    centroids = torch.stack([
        nn.functional.normalize(unit[y_val == k].mean(0), dim=0) if (y_val == k).any() else torch.zeros(unit.shape[1])
        for k in range(len(classes))])
    predicted = logits.argmax(1)
    distance = (unit - centroids[predicted]).norm(dim=1)
    correct = predicted == y_val
    # Beyond the farthest correct validation crop (plus a margin) an input is unlike the training data.
    max_distance = float(torch.quantile(distance[correct], 0.999)) * 1.15
    log(f"temperature {temperature:.3f}; embedding distance limit {max_distance:.3f}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    onnx_path = out / f"{MODEL_NAME}.onnx"
    exported = Exported(net.cpu().eval(), temperature).eval()
    torch.onnx.export(exported, torch.zeros(1, 3, height, width), str(onnx_path), input_names=["image"],
                      output_names=["probabilities", "embedding"], dynamic_axes={"image": {0: "batch"},
                      "probabilities": {0: "batch"}, "embedding": {0: "batch"}}, opset_version=17, dynamo=False)
    if args.int8:
        quantise(onnx_path, x_val[::max(1, len(x_val) // CALIBRATION_CROPS)][:CALIBRATION_CROPS].numpy())
        log("quantised to 8 bits")
    meta = {
        "format": "tunnelvision.card-classifier",
        "version": 1,
        "model": onnx_path.name,
        "classes": [c.to_json() for c in classes],
        "input": {"width": width, "height": height, "channels": "RGB", "scale": 1 / 255, "mean": list(MEAN),
                  "std": list(STD), "crop": "one lattice cell (card plus gap), portrait, maze north up"},
        "outputs": {"probabilities": "calibrated softmax over classes", "embedding": "penultimate layer (64)"},
        "abstain": {"min_confidence": 0.9, "max_distance": round(max_distance, 4),
                    "centroids": [[round(float(v), 5) for v in c] for c in centroids]},
        "training": {
            "command": "python -m models.train.train" + (" --scans DIR" if scans else "")
                       + (f" --widths {args.widths}" if widths != WIDTHS else "") + (" --int8" if args.int8 else "")
                       + (f" --scene-share {args.scene_share}"
                          if args.scene_share != parser.get_default("scene_share") else ""),
            "seed": args.seed, "train_size": args.train_size, "val_size": args.val_size, "epochs": args.epochs,
            "batch": args.batch, "scene_share": args.scene_share, "scans": bool(scans),
            "temperature": round(temperature, 4),
            "widths": list(widths), "int8": args.int8, "device": args.device,
            "data": "procedural card renders (vision.cardart) with camera augmentation (vision.augment)"
                    + (", plus augmented scans of printed cards" if scans else "")
                    + (", and cells cut out of rendered table photos (vision.scenes)" if args.scene_share else ""),
            "torch": torch.__version__, "machine": f"{platform.machine()}, {args.threads} threads",
            "minutes": None,
        },
        "metrics": {"validation_accuracy": round(float(correct.float().mean()), 5)},
    }
    meta_path = onnx_path.with_suffix(".json")
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    log(f"wrote {onnx_path} ({onnx_path.stat().st_size // 1024} KB) and {meta_path}")

    from bench.classifier import evaluate  # the same evaluation the benchmark reports

    figures = evaluate(onnx_path, count=args.test_size, seed=args.seed * 1000 + 3, workers=args.workers,
                       scans_dir=scans)
    meta["metrics"].update(figures)
    meta["training"]["minutes"] = round((time.time() - started) / 60, 1)
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    log(f"held-out: {json.dumps(figures)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
