"""The classifier's classes, and what a mirrored picture of a card shows."""

from engine.catalogue import default_catalogue
from vision.classes import is_half_turn_symmetric, mirror_image

CATALOGUE = default_catalogue()


def test_a_mirror_image_swaps_east_and_west():
    assert mirror_image(CATALOGUE, CATALOGUE.face("curve-ne"), 0) == ("curve-nw", 0)
    assert mirror_image(CATALOGUE, CATALOGUE.face("t-nes"), 0) == ("t-nes", 180)  # N, S and now W
    assert mirror_image(CATALOGUE, CATALOGUE.face("goal-stone-nw"), 180) == ("goal-stone-ne", 180)
    assert mirror_image(CATALOGUE, CATALOGUE.face("straight-ew"), 0) == ("straight-ew", 0)


def test_mirroring_twice_gives_the_card_back_and_keeps_its_features():
    for face in CATALOGUE.faces.values():
        for rotation in (0, 180):
            seen = mirror_image(CATALOGUE, face, rotation)
            if seen is None:  # no face of the catalogue looks like it (a door on one side of a curve)
                continue
            other = CATALOGUE.face(seen[0])
            assert (other.kind, other.crystals, other.gold, other.has_ladder) == \
                   (face.kind, face.crystals, face.gold, face.has_ladder)
            back_face, back_rotation = mirror_image(CATALOGUE, other, seen[1])
            assert back_face == face.id
            assert back_rotation == rotation or is_half_turn_symmetric(face)
