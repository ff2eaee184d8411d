"""Labelled cell crops for training and evaluation (numpy only: the benchmark uses it too).

Every class is drawn equally often. A sample of a card class is rendered by
``vision.augment`` from procedural card art or, when scans are given, from a scan of a
printed card (a manifest maps each scan to its face and the rotation it is drawn in), or
for training also from a scan's mirror image, which shows the mirrored face.
Chunks are rendered in worker processes, each from its own child seed, so a dataset is
the same for a seed whatever the number of workers.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np

from engine.catalogue import default_catalogue
from vision import augment
from vision.classes import EMPTY, OTHER, CardClass, card_classes, mirror_image
from vision.printed import Scan, load_scans

CHUNK = 256
PRESETS = {"train": augment.Augment(), "camera": augment.Augment.camera()}


def _render_one(card: CardClass, rng: np.random.Generator, size: tuple[int, int], scans_by_face: dict,
                p_scan: float, style_split: str, aug: augment.Augment) -> np.ndarray:
    if card.name == EMPTY:
        return augment.render_cell(None, 0, rng, out_size=size, augment=aug)
    if card.name == OTHER:
        return augment.render_abstain(rng, out_size=size, augment=aug)[0]
    # a class that covers both rotations (a symmetric face) is shown in either
    rotation = card.rotation if "@" in card.name else int(rng.choice([0, 180]))
    options = scans_by_face.get(card.face)
    if options and rng.random() < p_scan:
        scan = options[int(rng.integers(len(options)))]
        art = scan.image if (scan.rotation - rotation) % 360 == 0 else cv2.rotate(scan.image, cv2.ROTATE_180)
        return augment.render_cell(card.face, rotation, rng, out_size=size, art=art, augment=aug)
    style = augment.CardStyle.sample(rng, split=style_split)
    return augment.render_cell(card.face, rotation, rng, out_size=size, style=style, augment=aug)


def _render_chunk(args) -> tuple[np.ndarray, np.ndarray]:
    seed, labels, size, scans_dir, p_scan, style_split, preset = args
    scan_split = "test" if style_split == "test" else "train"
    classes = card_classes(default_catalogue())
    rng = np.random.default_rng(seed)
    scans_by_face: dict[str, list[Scan]] = {}
    if scans_dir:
        scans = _cached_scans(scans_dir, scan_split)
        for scan in scans + (_mirror_images(scans) if scan_split == "train" else []):
            scans_by_face.setdefault(scan.face, []).append(scan)
    images = np.empty((len(labels), size[1], size[0], 3), np.uint8)
    for i, label in enumerate(labels):
        images[i] = _render_one(classes[label], rng, size, scans_by_face, p_scan, style_split, PRESETS[preset])
    return images, np.asarray(labels, np.int64)


def _mirror_images(scans: list[Scan]) -> list[Scan]:
    """The scans mirrored left to right, each as the face its mirror image shows (a curve
    to the north-east becomes one to the north-west): twice the printed art to train on.
    Evaluation keeps to the scans as printed."""
    catalogue = default_catalogue()
    out = []
    for scan in scans:
        seen = mirror_image(catalogue, catalogue.face(scan.face), scan.rotation)
        if seen is not None:
            out.append(Scan(seen[0], seen[1], np.ascontiguousarray(scan.image[:, ::-1])))
    return out


_SCANS: dict[tuple[str, str], list[Scan]] = {}


def _cached_scans(folder: str, split: str) -> list[Scan]:
    if (folder, split) not in _SCANS:
        _SCANS[(folder, split)] = load_scans(folder, split)
    return _SCANS[(folder, split)]


def render_dataset(count: int, seed: int, *, size: tuple[int, int] = (64, 96), workers: int = 2,
                   scans_dir: str | None = None, p_scan: float = 0.5, style_split: str = "train",
                   scanned_only: bool = False, preset: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """``count`` crops (N, H, W, 3) uint8 with class labels, classes balanced, in a seeded order.

    ``scanned_only`` keeps to the classes of faces that have a scan (to measure scans alone);
    ``preset`` is the augmentation: "train" (wide) or "camera" (a realistic webcam, for evaluation).
    """
    classes = card_classes(default_catalogue())
    rng = np.random.default_rng(seed)
    wanted = np.arange(len(classes))
    if scanned_only:
        faces = {scan.face for scan in _cached_scans(scans_dir, "test" if style_split == "test" else "train")}
        wanted = np.array([i for i, c in enumerate(classes) if c.face in faces])
    labels = np.resize(wanted, count)
    rng.shuffle(labels)
    chunks = [labels[i:i + CHUNK].tolist() for i in range(0, count, CHUNK)]
    seeds = np.random.SeedSequence(seed).spawn(len(chunks))
    jobs = [(s, c, size, scans_dir, p_scan, style_split, preset) for s, c in zip(seeds, chunks)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_render_chunk, jobs))
    else:
        parts = [_render_chunk(j) for j in jobs]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
