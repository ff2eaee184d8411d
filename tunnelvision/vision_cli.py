"""Command-line front of the vision side: ``classify`` (and, as they land, check/watch)."""

from __future__ import annotations

import json
import sys

from vision.classify import REASON_WORDS, Classifier, ImageError, ModelError, load_image

from .errors import UserError


def classify(images: list[str], *, as_json: bool, model: str | None, threads: int, deck: str | None) -> int:
    """One reading per image, in the order given; an unreadable image is reported and the rest go on."""
    try:
        classifier = Classifier(model, threads=threads)
        if deck:
            from calibration.deck import load_prototypes

            classifier.prototypes = load_prototypes(deck, classifier)
    except (ModelError, ValueError) as exc:
        raise UserError(str(exc)) from None
    loaded: list = []
    for path in images:
        try:
            loaded.append(load_image(path))
        except ImageError as exc:
            loaded.append(exc)
    readings = iter(classifier.classify([x for x in loaded if not isinstance(x, ImageError)]))
    failures = 0
    for path, item in zip(images, loaded):
        if isinstance(item, ImageError):
            failures += 1
            print(f"tunnelvision: {item}", file=sys.stderr)
            if as_json:
                print(json.dumps({"image": path, "error": str(item)}))
            continue
        reading = next(readings)
        if as_json:
            print(json.dumps(reading.to_json()))
        else:
            tunnels = ", ".join(reading.card.tunnels) or "none"
            flag = f"  UNCERTAIN: {REASON_WORDS[reading.reason]}" if reading.uncertain else ""
            print(f"{path}: {reading.card.name} (tunnels {tunnels}), confidence {reading.confidence:.3f}{flag}")
    return 1 if failures else 0
