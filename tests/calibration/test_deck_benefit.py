"""Deck calibration adapts the shipped model to a printing unlike anything it trained on."""

import numpy as np

from calibration.deck import calibrate, deck_faces, load_prototypes, save
from engine.catalogue import default_catalogue
from vision.augment import Augment, render_cell
from vision.classify import Classifier
from vision.scenes import FOREIGN_EDITION, deck_sheet_photos

CATALOGUE = default_catalogue()
VIEWS = 5  # photos of each card and rotation: a handful of crops would let one card decide


def test_calibrating_with_sheet_photos_reads_a_foreign_printing_better(tmp_path):
    classifier = Classifier()
    rng = np.random.default_rng(21)
    faces = deck_faces(CATALOGUE, ("base",))
    photos = deck_sheet_photos(FOREIGN_EDITION, rng)
    deck = calibrate(classifier, photos, ("base",))
    assert len(deck.labels) == 2 * len(faces)  # each card upright and turned (a symmetric card: two views)
    save(deck, tmp_path / "deck.json")

    truth, crops = [], []
    for face in [f for f in faces if CATALOGUE.face(f).kind == "path"]:
        for rotation in (0, 180):
            for _ in range(VIEWS):
                crops.append(render_cell(face, rotation, rng, augment=Augment.camera(), style=FOREIGN_EDITION))
                truth.append((face, rotation))

    def tally(readings):
        """(read right, read right and sure, read wrong and sure)"""
        right = [r.card.face == f and (r.card.rotation == rot or "@" not in r.card.name)
                 for r, (f, rot) in zip(readings, truth)]
        return (sum(right), sum(ok and not r.uncertain for ok, r in zip(right, readings)),
                sum(not ok and not r.uncertain for ok, r in zip(right, readings)))

    before = tally(classifier.classify(crops))
    classifier.prototypes = load_prototypes(tmp_path / "deck.json", classifier)
    after = tally(classifier.classify(crops))
    assert after[0] > before[0] and after[0] >= 0.9 * len(truth)
    # and it pays where it counts: more cards read surely, and no more read surely wrong (pooling
    # head and prototypes as an average had left more uncertain than reading without them)
    assert after[1] > before[1] and after[2] <= before[2]
