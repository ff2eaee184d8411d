"""Deck calibration sheets: printing, finding the sheet in a photo, cutting the cards out."""

import cv2
import numpy as np
import pytest

from calibration.deck import (
    SLOTS,
    DeckCalibrationError,
    crops_from_photo,
    deck_faces,
    render_deck_sheet,
    write_deck_sheets,
)
from calibration.table import detect_markers
from engine.catalogue import EDGE_BITS, default_catalogue
from vision.cardart import CardStyle
from vision.scenes import deck_sheet_photo

CATALOGUE = default_catalogue()


def test_sheets_cover_every_maze_face_once():
    faces = deck_faces(CATALOGUE, ("base",))
    assert len(faces) == len(set(faces)) == 21
    assert {"start", "goal-gold", "goal-stone-nw", "goal-stone-ne", "goal-back"} <= set(faces)
    assert len(deck_faces(CATALOGUE, ("base", "saboteur2"))) == 21 + 20  # 24 expansion cards, 20 faces


def test_written_sheets_are_png_and_pdf_per_page(tmp_path):
    paths = write_deck_sheets(tmp_path)
    assert [p.suffix for p in paths] == [".png", ".pdf"] * 3
    assert all(p.stat().st_size > 1000 for p in paths)
    assert paths[1].read_bytes().startswith(b"%PDF")


def test_each_page_has_its_own_markers():
    seen = []
    for page in range(3):
        found = detect_markers(cv2.cvtColor(render_deck_sheet(page, ["cross"] * SLOTS), cv2.COLOR_GRAY2BGR))
        assert len(found) == 4
        seen.append(set(found))
    assert not (seen[0] & seen[1]) and not (seen[1] & seen[2])


def _open_edges_bright(crop: np.ndarray, face_id: str) -> bool:
    """The tunnel's edge midpoints are brighter than the rock's, as the face says."""
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(float)
    h, w = gray.shape
    spots = {1: (w // 2, int(h * 0.06)), 2: (int(w * 0.92), h // 2), 4: (w // 2, int(h * 0.94)),
             8: (int(w * 0.08), h // 2)}
    shape = CATALOGUE.face(face_id).shape(0)
    values = {bit: gray[y - 2:y + 3, x - 2:x + 3].mean() for bit, (x, y) in spots.items()}
    open_values = [values[b] for b in EDGE_BITS if shape.open & b]
    rock_values = [values[b] for b in EDGE_BITS if not shape.open & b]
    return not open_values or not rock_values or min(open_values) > max(rock_values)


@pytest.mark.parametrize("seed", [1, 2])
def test_cards_are_cut_out_of_a_tilted_photo_upright_and_in_order(seed):
    rng = np.random.default_rng(seed)
    faces = deck_faces(CATALOGUE, ("base",))
    page = seed - 1  # the first two sheets hold the path cards
    photo = deck_sheet_photo(page, faces, CardStyle.reference(), rng)
    crops = crops_from_photo(photo, faces)
    assert [f for f, _ in crops] == faces[page * SLOTS:(page + 1) * SLOTS]
    checked = [f for f, c in crops if CATALOGUE.face(f).kind == "path"]
    assert checked and all(_open_edges_bright(c, f) for f, c in crops if f in checked)


def test_a_photo_without_a_sheet_is_refused_in_words():
    with pytest.raises(DeckCalibrationError, match="no deck sheet found"):
        crops_from_photo(np.full((480, 640, 3), 90, np.uint8), deck_faces(CATALOGUE, ("base",)))


def test_a_sheet_photographed_dim_under_a_warm_lamp_gives_the_prototypes_of_one_in_good_light(monkeypatch):
    """The prototypes are cut in the light the pipeline reads the maze in: a dim photo
    brought up, a lamp's cast taken out (the sheet's paper is its white); as it came, they
    lie further from those of the same sheet photographed in good light."""
    import calibration.deck as deck
    from vision.classify import Classifier

    classifier = Classifier()
    faces = deck_faces(CATALOGUE, ("base",))
    photo = deck_sheet_photo(0, faces, CardStyle.reference(), np.random.default_rng(1))
    lamp = np.clip(photo * np.float32([0.25, 0.4, 0.5]), 0, 255).astype(np.uint8)
    good = deck.calibrate(classifier, [photo]).vectors

    def likeness(vectors):
        return float(np.mean(np.sum(good * vectors, axis=1)))

    mended = likeness(deck.calibrate(classifier, [lamp]).vectors)
    monkeypatch.setattr(deck, "brightened", lambda picture: picture)
    monkeypatch.setattr(deck, "cast_gains", lambda white: None)
    assert mended > likeness(deck.calibrate(classifier, [lamp]).vectors) + 0.02
