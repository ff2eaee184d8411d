"""Pictures of a real printing of the cards (scans or photos), read from a folder at run time.

Why this exists: the procedural art (``vision.cardart``) is our drawing of the cards; the
printed cards are the publisher's. Training mixes in scans of printed cards, and the
benchmarks lay whole tables out of them, to preview how the pipeline does on real art.
The pictures are the publisher's art: they are read from the folder the user names and
never copied into this repository.

The folder holds a ``manifest.json``: a list of ``{"file", "face", "rotation_as_drawn"}``
(a face id of the catalogue and the rotation the picture shows it in), and optionally
``{"file", "kind": "action"}`` entries for action cards. Entries naming no known face
and files that cannot be read are skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.catalogue import default_catalogue


class PrintedDeckError(ValueError):
    """A folder of card pictures that cannot be used; the message is one sentence."""


@dataclass(frozen=True)
class Scan:
    face: str
    rotation: int  # the rotation the scan is drawn in
    image: np.ndarray  # BGR or BGRA

    def upright(self) -> np.ndarray:
        """The picture turned to show the face at rotation 0."""
        return self.image if self.rotation % 360 == 0 else cv2.rotate(self.image, cv2.ROTATE_180)


def _manifest(folder: str | Path) -> tuple[Path, list[dict]]:
    root = Path(folder)
    manifest = root / "manifest.json"
    if not manifest.is_file():
        raise PrintedDeckError(f"{root} has no manifest.json mapping its pictures to face ids")
    try:
        entries = json.loads(manifest.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise PrintedDeckError(f"{manifest} cannot be read as JSON ({exc.__class__.__name__})") from None
    if not isinstance(entries, list):
        raise PrintedDeckError(f"{manifest} must hold a list of entries")
    return root, [e for e in entries if isinstance(e, dict) and "file" in e]


def _read(path: Path) -> np.ndarray | None:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is not None and image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image


def _face_scans(root: Path, entries: list[dict]) -> list[Scan]:
    catalogue = default_catalogue()
    scans = []
    for entry in entries:
        if entry.get("face") not in catalogue.faces:
            continue
        image = _read(root / entry["file"])
        if image is not None:
            scans.append(Scan(entry["face"], int(entry.get("rotation_as_drawn", 0)), image))
    return scans


def load_scans(folder: str | Path, split: str | None = None) -> list[Scan]:
    """The face pictures of a folder, in manifest order.

    ``split`` keeps evaluation honest: for every face with several scans, the last one is
    'test' and the others are 'train'; a face scanned once is 'train' only.
    """
    return _split(_face_scans(*_manifest(folder)), split)


def _split(scans: list[Scan], split: str | None) -> list[Scan]:
    if split is None:
        return scans
    last = {scan.face: i for i, scan in enumerate(scans)}
    several = {face for face in last if sum(s.face == face for s in scans) > 1}
    if split == "test":
        return [s for i, s in enumerate(scans) if s.face in several and last[s.face] == i]
    return [s for i, s in enumerate(scans) if not (s.face in several and last[s.face] == i)]


@dataclass(frozen=True, eq=False)
class PrintedDeck:
    """A printing to lay tables out of: upright pictures of each face, and of action cards."""

    faces: dict[str, tuple[np.ndarray, ...]]
    actions: tuple[np.ndarray, ...] = ()

    @classmethod
    def load(cls, folder: str | Path, split: str | None = None) -> PrintedDeck:
        """The printing of ``folder``; ``split`` keeps to one half of its scans (``load_scans``)."""
        root, entries = _manifest(folder)
        scans = _split(_face_scans(root, entries), split)
        if not scans:
            raise PrintedDeckError(f"{folder} holds no readable picture of a known card face")
        faces: dict[str, list[np.ndarray]] = {}
        for scan in scans:
            faces.setdefault(scan.face, []).append(scan.upright())
        actions = [image for e in entries if e.get("kind") == "action" and (image := _read(root / e["file"])) is not None]
        return cls({face: tuple(images) for face, images in faces.items()}, tuple(actions))

    def picture(self, face: str, rotation: int, rng: np.random.Generator) -> np.ndarray:
        """One of the face's pictures (chosen by ``rng``), turned to ``rotation``."""
        options = self.faces[face]
        image = options[int(rng.integers(len(options)))]
        return image if rotation % 360 == 0 else cv2.rotate(image, cv2.ROTATE_180)
