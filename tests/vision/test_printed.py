"""A printed deck read from a folder, and tables laid out of it.

The publisher's scans never enter the repository, so these tests make a folder of their
own: one flat picture per face whose colour says which face it is and whose top half is
lighter than its bottom half, so a picture turned the wrong way shows.
"""

import json

import cv2
import numpy as np
import pytest

from engine.catalogue import default_catalogue
from vision.printed import PrintedDeck, PrintedDeckError, load_scans
from vision.augment import Augment
from vision.scenes import SceneOptions, table_scene

CATALOGUE = default_catalogue()
BASE = [f.id for f in CATALOGUE.faces.values() if f.set == "base"]


def colour_of(face: str) -> np.ndarray:
    """A saturated colour of its own for each face (BGR)."""
    hue = int(BASE.index(face) * 170 / len(BASE))
    return cv2.cvtColor(np.uint8([[[hue, 255, 230]]]), cv2.COLOR_HSV2BGR)[0, 0].astype(int)


def hue(bgr) -> int:
    return int(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0, 0])


def picture(face: str, rotation: int) -> np.ndarray:
    """The face's flat picture as drawn at ``rotation``: the face's top half lighter."""
    image = np.empty((88, 57, 3), np.uint8)
    image[:] = colour_of(face)
    image[:44] = np.minimum(255, colour_of(face) + 25)
    return image if rotation == 0 else cv2.rotate(image, cv2.ROTATE_180)


@pytest.fixture
def folder(tmp_path):
    entries = []
    for k, face in enumerate(BASE):
        for copy, rotation in enumerate((0, 180) if k % 3 == 0 else (k % 2 * 180,)):
            name = f"{face}-{copy}.png"
            cv2.imwrite(str(tmp_path / name), picture(face, rotation))
            entries.append({"file": name, "face": face, "rotation_as_drawn": rotation})
    cv2.imwrite(str(tmp_path / "map.png"), np.full((88, 57, 3), 90, np.uint8))
    entries += [{"file": "map.png", "kind": "action", "what": "map"},
                {"file": "gone.png", "face": "cross"},  # missing: skipped
                {"file": "map.png", "face": "no-such-face"}]  # unknown: skipped
    (tmp_path / "manifest.json").write_text(json.dumps(entries))
    return tmp_path


def test_scans_are_read_upright_and_split_one_per_face_for_testing(folder):
    scans = load_scans(folder)
    assert {s.face for s in scans} == set(BASE)
    for scan in scans:
        upright = scan.upright()
        assert upright[10, 28].sum() > upright[70, 28].sum()  # the lighter half on top
    test, train = load_scans(folder, "test"), load_scans(folder, "train")
    several = {f for f in BASE if sum(s.face == f for s in scans) > 1}
    assert sorted(s.face for s in test) == sorted(several)
    assert len(test) + len(train) == len(scans)


def test_a_deck_gives_each_face_at_either_rotation_and_its_action_cards(folder):
    deck = PrintedDeck.load(folder)
    assert set(deck.faces) == set(BASE) and len(deck.actions) == 1
    rng = np.random.default_rng(0)
    for face in BASE:
        turned = deck.picture(face, 180, rng)
        assert turned[70, 28].sum() > turned[10, 28].sum()  # the lighter half now at the bottom
        assert np.abs(turned[70, 28].astype(int) - colour_of(face) - 25).max() <= 1


@pytest.mark.parametrize("content, words", [
    (None, "no manifest.json"),
    ("{not json", "cannot be read as JSON"),
    ('{"file": "x.png"}', "must hold a list"),
    ('[{"file": "x.png", "face": "cross"}]', "no readable picture"),
])
def test_a_folder_that_cannot_be_used_gets_one_sentence(tmp_path, content, words):
    if content is not None:
        (tmp_path / "manifest.json").write_text(content)
    with pytest.raises(PrintedDeckError, match=words):
        PrintedDeck.load(tmp_path)


def test_a_table_laid_out_of_the_printed_deck_shows_its_pictures_the_right_way_round(folder):
    deck = PrintedDeck.load(folder)
    flat = SceneOptions(light=Augment(light_gradient=0.0, p_glare=0.0, p_shadow=0.0), p_glare=0.0, p_wear=0.0)
    scene = table_scene(np.random.default_rng(3), size=(1280, 720), printed=deck, hand=False, crosswise=False,
                        options=flat)
    checked = 0
    for cell, truth in scene.cells.items():
        if truth.visible < 1.0:
            continue
        # a quarter of the way in from the card's north and south edges, as the maze sees it
        nw, ne, se, sw = truth.card_corners
        north = (nw + ne) / 2 * 0.75 + (sw + se) / 2 * 0.25
        south = (nw + ne) / 2 * 0.25 + (sw + se) / 2 * 0.75
        top, bottom = (scene.image[int(round(p[1])), int(round(p[0]))].astype(int) for p in (north, south))
        # the picture of this face: its hue, and the lighter half on the side its rotation says
        off = abs(hue(bottom) - hue(colour_of(truth.face)))
        assert min(off, 180 - off) <= 6, (cell, truth.face)
        assert (top.sum() > bottom.sum()) == (truth.rotation == 0), (cell, truth.face, truth.rotation)
        checked += 1
    assert checked >= 8
