"""Cell crops to card readings with the shipped ONNX model (onnxruntime only, no torch).

One ``Classifier`` holds one inference session, created once; every crop of a frame goes
through it in one batch. A reading is honest about its confidence: it is ``uncertain``
when the top probability is low, when the model says "other" (a hand, an action card, a
card laid crosswise) or "empty", or when the crop's embedding lies far from everything
seen in training (an unknown card face, something the model has never seen).

A deck calibration (``calibration.deck``) adds per-class prototypes taken from photos of
the user's own cards; readings then blend the model's head with the nearest prototype on
the embedding, which adapts to another printing without retraining.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from .classes import EMPTY, OTHER, CardClass

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_MODEL = MODELS_DIR / "tunnel-cards.onnx"


class ModelError(RuntimeError):
    """The model or its metadata cannot be used; the message is one sentence for the user."""


class ImageError(ValueError):
    """A photo that cannot be read; the message is one sentence for the user."""


REASON_WORDS = {
    "not-a-maze-card": "not a maze card (a hand, an action card, a card laid crosswise...)",
    "low-confidence": "low confidence",
    "unknown-card": "unlike any card the model knows",
}


@dataclass(frozen=True)
class Reading:
    card: CardClass
    confidence: float
    uncertain: bool
    reason: str | None  # why it is uncertain: a key of REASON_WORDS
    probabilities: np.ndarray
    embedding: np.ndarray

    @property
    def face(self) -> str | None:
        return self.card.face

    @property
    def rotation(self) -> int:
        return self.card.rotation

    def to_json(self) -> dict:
        return {"face": self.card.face if self.card.name != EMPTY else EMPTY, "rotation": self.card.rotation,
                "tunnels": list(self.card.tunnels), "confidence": round(float(self.confidence), 4),
                "uncertain": self.uncertain}


@dataclass(frozen=True)
class Prototypes:
    """Unit-length embeddings of the user's own cards, by class index."""

    vectors: np.ndarray  # (P, D) float32, rows unit length
    labels: np.ndarray  # (P,) class index of each row
    weight: float = 0.5  # how much the prototypes count against the model's own head
    temperature: float = 0.05


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    z = x - x.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


class Classifier:
    def __init__(self, model_path: str | Path | None = None, *, threads: int = 1,
                 prototypes: Prototypes | None = None):
        import onnxruntime as ort

        path = Path(model_path) if model_path else DEFAULT_MODEL
        self.model_path = path
        meta_path = path.with_suffix(".json")
        if not path.is_file():
            raise ModelError(f"no model file at {path}")
        try:
            self.meta = json.loads(meta_path.read_text("utf-8"))
            self.classes = [CardClass.from_json(c) for c in self.meta["classes"]]
            spec = self.meta["input"]
            self.width, self.height = int(spec["width"]), int(spec["height"])
            mean = np.array(spec["mean"], np.float32).reshape(1, 3, 1, 1)
            std = np.array(spec["std"], np.float32).reshape(1, 3, 1, 1)
            # (x * scale - mean) / std as one multiply and one add, done in place
            self.gain, self.offset = float(spec.get("scale", 1 / 255)) / std, -mean / std
            abstain = self.meta["abstain"]
            self.min_confidence = float(abstain["min_confidence"])
            self.max_distance = float(abstain["max_distance"])
            self.centroids = np.array(abstain["centroids"], np.float32)
        except FileNotFoundError:
            raise ModelError(f"the model's metadata file {meta_path} is missing") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"the model's metadata file {meta_path} is corrupt ({exc.__class__.__name__})") from None
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, int(threads))
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for a damaged file
            raise ModelError(f"the model file {path} cannot be loaded; it may be corrupt "
                             f"({str(exc).splitlines()[0][:120]})") from None
        outputs = [o.name for o in self.session.get_outputs()]
        if outputs[:2] != ["probabilities", "embedding"] or len(self.classes) != self.session.get_outputs()[0].shape[1]:
            raise ModelError(f"the model file {path} does not match its metadata")
        self.input_name = self.session.get_inputs()[0].name
        self.prototypes = prototypes
        self.index = {c.name: i for i, c in enumerate(self.classes)}
        self.allowed = np.ones(len(self.classes), bool)

    def restrict_to(self, faces: set[str]) -> None:
        """Only these faces can be on this table (the game's deck): the others get no probability."""
        self.allowed = np.array([c.face is None or c.face in faces for c in self.classes])

    # ------------------------------------------------------------------ batches

    def preprocess(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """BGR crops of any size to the model's normalised NCHW batch."""
        crops = [cv2.cvtColor(c, cv2.COLOR_GRAY2BGR) if c.ndim == 2 else c for c in crops]
        if len({c.shape for c in crops}) == 1:
            # crops of one size stacked and resized at once (the pipeline's always are): each
            # crop's rows map onto whole rows of the result, so nothing bleeds between them,
            # and the pixels are those of resizing each alone
            stack = cv2.resize(np.concatenate(crops), (self.width, self.height * len(crops)),
                               interpolation=cv2.INTER_AREA)
            batch = stack.reshape(len(crops), self.height, self.width, 3)
        else:
            batch = np.stack([cv2.resize(c, (self.width, self.height), interpolation=cv2.INTER_AREA) for c in crops])
        # copying the RGB planes contiguous first makes the float arithmetic several times faster
        x = np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2)).astype(np.float32)
        x *= self.gain
        x += self.offset
        return x

    def run(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities (N, classes) and embeddings (N, D) for a batch of crops."""
        if not len(crops):
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, self.centroids.shape[1]), np.float32)
        probs, embedding = self.session.run(None, {self.input_name: self.preprocess(crops)})
        return probs, embedding

    def classify(self, crops: Sequence[np.ndarray]) -> list[Reading]:
        probs, embedding = self.run(crops)
        return [self.reading(p, e) for p, e in zip(self.blend(probs, embedding), embedding)]

    def reading(self, probs: np.ndarray, embedding: np.ndarray) -> Reading:
        """The decision for one crop: its best class, and whether (and why) to abstain."""
        best = int(probs.argmax())
        card = self.classes[best]
        confidence = float(probs[best])
        reason = None
        if card.name == OTHER:
            reason = "not-a-maze-card"
        elif confidence < self.min_confidence:
            reason = "low-confidence"
        elif self.is_unfamiliar(embedding, best):
            reason = "unknown-card"
        return Reading(card, confidence, reason is not None, reason, probs, embedding)

    def is_unfamiliar(self, embedding: np.ndarray, class_index: int) -> bool:
        """Whether an embedding lies farther from its class's centroid than anything seen in validation."""
        unit = embedding / max(float(np.linalg.norm(embedding)), 1e-6)
        return float(np.linalg.norm(unit - self.centroids[class_index])) > self.max_distance

    def blend(self, probs: np.ndarray, embedding: np.ndarray) -> np.ndarray:
        """The model's probabilities under the table's priors.

        Faces the game's deck lacks get nothing. With a deck calibration, the calibrated
        faces are the deck: the model's probability for each is pooled with a softmax over
        the nearest prototype of each class, and "empty" and "other" keep the model's say.
        """
        if not len(probs):
            return probs
        allowed = self.allowed.copy()
        proto = self.prototypes
        if proto is not None:
            covered = np.zeros(len(self.classes), bool)
            covered[np.unique(proto.labels)] = True
            allowed &= covered | np.array([c.face is None for c in self.classes])
        out = np.where(allowed, probs, 0.0)
        if proto is not None:
            unit = embedding / np.maximum(np.linalg.norm(embedding, axis=1, keepdims=True), 1e-6)
            similarity = unit @ proto.vectors.T  # (N, P)
            per_class = np.full((len(unit), len(self.classes)), -np.inf, np.float32)
            for j, label in enumerate(proto.labels):
                per_class[:, label] = np.maximum(per_class[:, label], similarity[:, j])
            known = np.isfinite(per_class[0]) & allowed
            mass = out[:, known].sum(axis=1, keepdims=True)
            proto_probs = _softmax(per_class[:, known] / proto.temperature)
            # a weighted geometric mean, not an average: where head and prototypes agree the
            # reading grows surer instead of being pulled down by the softer of the two (an
            # average left more of a calibrated printing's cards uncertain than no calibration)
            pooled = out[:, known] ** (1 - proto.weight) * proto_probs ** proto.weight
            out[:, known] = pooled / np.maximum(pooled.sum(axis=1, keepdims=True), 1e-30) * mass
        return out / np.maximum(out.sum(axis=1, keepdims=True), 1e-12)


# The opening of a HEIF file (an iPhone's photos by default): its type box and brand.
HEIF_BRANDS = {b"ftyp" + brand for brand in (b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1", b"msf1")}


def load_image(path: str | Path) -> np.ndarray:
    """Read a photo; one clear sentence when it cannot be read. (np.fromfile + imdecode, not
    imread: non-ASCII paths work on Windows too.)"""
    if Path(path).is_dir():
        raise ImageError(f"{path} is a folder, not a photo")
    if not Path(path).is_file():
        raise ImageError(f"no such image file: {path}")
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ImageError(f"{path} cannot be opened ({exc.strerror or exc})") from None
    if not data.size:  # (imdecode asserts on an empty buffer)
        raise ImageError(f"{path} is empty: no photo was saved in it")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        if bytes(data[4:12]) in HEIF_BRANDS:
            raise ImageError(f"{path} is a HEIC photo, which OpenCV cannot read: export it as JPEG (or set the "
                             "phone's camera to take JPEG, 'Most Compatible' on an iPhone)")
        raise ImageError(f"{path} is not an image that can be read")
    return image
