"""Domain randomisation keeps the label: the cell's card stays the cell's card.

A magenta table makes "card or table?" a per-pixel question: no card, hand or neighbour
art is magenta, and white balance or glare cannot turn grey into magenta.
"""

from dataclasses import replace

import numpy as np
import pytest

from engine.catalogue import EDGE_BITS, E, N, S, W, default_catalogue
from vision.augment import (
    ABSTAIN_KINDS,
    MISSCUT,
    Augment,
    _misscut_window,
    render_abstain,
    render_cell,
)
from vision.cardart import CardStyle

OUT = (64, 96)
CAT = default_catalogue()
MAGENTA = (255, 0, 255)
PLAIN = replace(CardStyle.reference(), decoration_prob=0.0)


def magenta_fraction(img):
    b, g, r = (img[..., i].astype(int) for i in range(3))
    return float((((b + r) // 2 - g) > 60).mean())


def exact_table_fraction(img, colour=MAGENTA, tolerance=60):
    """Pixels of the clean table colour itself (a magenta gem on a card is not the table)."""
    return float((np.abs(img.astype(int) - np.array(colour)).sum(axis=-1) < tolerance).mean())


def centre(img, frac=0.4):
    h, w = img.shape[:2]
    dy, dx = int(h * (1 - frac) / 2), int(w * (1 - frac) / 2)
    return img[dy:h - dy, dx:w - dx]


def luminance(img):
    return img.astype(np.float64) @ np.array([0.114, 0.587, 0.299])


def edge_box(bit, w, h, inset):
    b = max(2, int(0.04 * w))
    cx, cy = {N: (w // 2, int(inset * h)), S: (w // 2, h - 1 - int(inset * h)),
              E: (w - 1 - int(inset * w), h // 2), W: (int(inset * w), h // 2)}[bit]
    return slice(cy - b, cy + b + 1), slice(cx - b, cx + b + 1)


def test_cells_and_negatives_are_uint8_bgr_of_the_asked_size():
    rng = np.random.default_rng(0)
    for size in [OUT, (48, 72), (96, 144)]:
        assert render_cell("cross", 0, rng, out_size=size).shape == (size[1], size[0], 3)
        assert render_cell(None, 0, rng, out_size=size).dtype == np.uint8
    for kind in ABSTAIN_KINDS:
        img, got = render_abstain(rng, kind, out_size=OUT)
        assert got == kind and img.shape == (OUT[1], OUT[0], 3) and img.dtype == np.uint8


def test_a_picture_of_an_action_card_stands_in_for_a_drawn_one():
    picture = np.zeros((88, 57, 3), np.uint8)
    picture[:] = (40, 200, 40)  # a flat green card no drawing makes
    img, kind = render_abstain(np.random.default_rng(1), "action", out_size=OUT, augment=Augment.clean(),
                               art=picture)
    middle = img[OUT[1] // 3:2 * OUT[1] // 3, OUT[0] // 3:2 * OUT[0] // 3].reshape(-1, 3).mean(axis=0)
    assert kind == "action" and middle[1] > 150 and middle[0] < 90 and middle[2] < 90
    with pytest.raises(ValueError, match="not for 'hand'"):
        render_abstain(np.random.default_rng(1), "hand", art=picture)


def test_same_seed_same_crop_other_seed_other_crop():
    a = render_cell("t-nes", 180, np.random.default_rng(3))
    b = render_cell("t-nes", 180, np.random.default_rng(3))
    c = render_cell("t-nes", 180, np.random.default_rng(4))
    assert np.array_equal(a, b)
    assert np.abs(a.astype(int) - c).mean() > 5
    x, kx = render_abstain(np.random.default_rng(8))
    y, ky = render_abstain(np.random.default_rng(8))
    assert kx == ky and np.array_equal(x, y)


def test_crops_do_not_depend_on_what_was_rendered_before():
    first = render_cell("bridge", 0, np.random.default_rng(12))
    for seed in range(6):  # warms the neighbour pool and the noise banks
        render_cell("cross", 0, np.random.default_rng(100 + seed))
        render_abstain(np.random.default_rng(200 + seed))
    assert np.array_equal(first, render_cell("bridge", 0, np.random.default_rng(12)))


def test_centre_of_a_card_cell_shows_card_under_default_jitter():
    aug = Augment(table_colour=MAGENTA)
    faces = ["cross", "dead-e", "straight-ew", "curve-nw", "goal-back", "start"]
    for seed in range(24):
        rng = np.random.default_rng(seed)
        img = render_cell(faces[seed % len(faces)], int(rng.choice([0, 180])), rng, augment=aug)
        assert magenta_fraction(centre(img)) < 0.02, f"seed {seed}: table shows in the middle of a card cell"


def test_centre_of_an_empty_cell_shows_table():
    aug = Augment(table_colour=MAGENTA)
    fractions = [magenta_fraction(centre(render_cell(None, 0, np.random.default_rng(s), augment=aug)))
                 for s in range(16)]
    assert np.median(fractions) > 0.8


def test_clean_crop_is_the_card_square_on():
    """With no randomisation the crop is the card, north up, with the table in the gap."""
    aug = replace(Augment.clean(), table_colour=MAGENTA, gap_mm=(2.0, 2.0))
    w, h = OUT
    for face in [f for f in CAT.faces.values() if f.kind != "goal-back"]:
        for rotation in (0, 180):
            img = render_cell(face.id, rotation, np.random.default_rng(1), augment=aug, style=PLAIN)
            ring = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])[None]
            assert magenta_fraction(ring) > 0.6  # the gap around the card, corners most of all
            assert exact_table_fraction(img[3:-3, 3:-3]) < 0.01
            lum = luminance(img)
            shape = face.shape(rotation)
            levels = {bit: lum[edge_box(bit, w, h, 0.09)].mean() for bit in EDGE_BITS}
            for bit, level in levels.items():
                if not shape.open & bit:
                    assert all(level < v - 20 for b, v in levels.items() if shape.open & b), (face.id, rotation)


def test_jittered_crops_keep_the_edge_pattern():
    """Misregistration, lens and lighting move things a few percent, never an edge's meaning."""
    aug = replace(Augment(), p_hand=0, p_glare=0)
    w, h = OUT
    wrong = 0
    trials = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        face = ["t-nes", "curve-ne", "dead-ew", "straight-ns"][seed % 4]
        rotation = int(rng.choice([0, 180]))
        img = render_cell(face, rotation, rng, augment=aug, style=PLAIN)
        lum = luminance(img)
        shape = CAT.face(face).shape(rotation)
        levels = {bit: lum[edge_box(bit, w, h, 0.11)].mean() for bit in EDGE_BITS}
        for bit in EDGE_BITS:
            if shape.open & bit:
                continue
            for other in EDGE_BITS:
                if shape.open & other:
                    trials += 1
                    wrong += levels[bit] >= levels[other]
    assert wrong <= trials * 0.02


def test_augmentation_actually_varies_the_crop():
    clean = render_cell("cross", 0, np.random.default_rng(5), augment=Augment.clean(), style=PLAIN)
    crops = [render_cell("cross", 0, np.random.default_rng(s), style=PLAIN) for s in range(8)]
    diffs = [np.abs(c.astype(int) - clean).mean() for c in crops]
    assert min(diffs) > 2
    means = np.array([c.reshape(-1, 3).mean(0) for c in crops])
    assert np.ptp(means, axis=0).max() > 20  # exposure and white balance differ between crops


def test_crosswise_card_leaves_table_above_and_below_it():
    aug = replace(Augment.clean(), table_colour=MAGENTA)
    for seed in range(4):
        img, _ = render_abstain(np.random.default_rng(seed), "crosswise", augment=aug)
        h = img.shape[0]
        assert magenta_fraction(img[: h // 8]) > 0.9 and magenta_fraction(img[-h // 8:]) > 0.9
        assert magenta_fraction(img[h // 2 - 4: h // 2 + 4]) < 0.05  # the card spans the cell sideways


def test_a_misscut_cell_is_never_the_cell_and_lies_inside_the_maze():
    pitch, win_c = (60.0, 90.0), (55.2, 82.8)  # a cell and the canvas middle (margins of 0.42 pitches)
    turned = 0
    for seed in range(300):
        (middle, (w, h)), turn = _misscut_window(np.random.default_rng(seed), win_c, pitch)
        turned += bool(turn)
        along_x, along_y = (h, w) if turn else (w, h)  # the window's extent along the canvas axes
        assert turn or w < 0.71 * pitch[0] or h < 0.71 * pitch[1], "a wrong lattice's cell, not this one"
        assert along_x / 2 <= middle[0] <= 2 * win_c[0] - along_x / 2
        assert along_y / 2 <= middle[1] <= 2 * win_c[1] - along_y / 2
    assert 100 < turned < 200
    aug = replace(Augment.clean(), table_colour=MAGENTA)
    for seed in range(6):  # cards all round: only the gaps between them show the table
        img, _ = render_abstain(np.random.default_rng(seed), MISSCUT, augment=aug)
        assert magenta_fraction(img) < 0.15


def skin_fraction(img):
    b, g, r = (img[..., i].astype(int) for i in range(3))
    return float(((r > g) & (g > b) & (r - b > 0.18 * r)).mean())


def test_fingers_stay_in_the_margin_of_a_labelled_cell():
    aug = replace(Augment.clean(), table_colour=MAGENTA, p_hand=1.0)
    seen = []
    for seed in range(16):
        img = render_cell("cross", 0, np.random.default_rng(seed), augment=aug, style=PLAIN)
        seen.append(skin_fraction(img))
        assert skin_fraction(centre(img)) < 0.02, f"seed {seed}: a finger covers the middle of the card"
    assert np.mean(seen) > 0.01  # there were fingers to see


def test_hand_negative_covers_most_of_the_cell():
    aug = replace(Augment.clean(), table_colour=MAGENTA)
    covered = [skin_fraction(render_abstain(np.random.default_rng(seed), "hand", augment=aug)[0])
               for seed in range(10)]
    assert np.mean(covered) > 0.5
    assert skin_fraction(render_cell("cross", 0, np.random.default_rng(0), augment=aug, style=PLAIN)) < 0.02


def test_bad_requests_fail_clearly():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        render_cell("cross", 90, rng)
    with pytest.raises(ValueError):
        render_abstain(rng, "dog")
    with pytest.raises(ValueError):
        render_cell("no-such-card", 0, rng)


def test_caller_art_replaces_the_drawing_and_keeps_its_orientation():
    """A scan given at training time is what the crop shows, north up, corners rounded."""
    aug = replace(Augment.clean(), table_colour=MAGENTA)
    art = np.zeros((300, 200, 3), np.uint8)
    art[:150] = (0, 200, 0)  # green north half
    art[150:] = (200, 0, 0)  # blue south half
    img = render_cell("t-nes", 0, np.random.default_rng(0), augment=aug, art=art)
    h = img.shape[0]
    top, bottom = img[h // 4].astype(int).mean(0), img[3 * h // 4].astype(int).mean(0)
    assert top[1] > 150 and top[0] < 60 and bottom[0] > 150 and bottom[1] < 60
    rgba = np.dstack([art, np.full((300, 200), 255, np.uint8)])
    rgba[:, :40, 3] = 0  # transparent west strip: the table shows through
    img = render_cell("t-nes", 0, np.random.default_rng(0), augment=aug, art=rgba)
    assert magenta_fraction(img[:, 3:8]) > 0.9
    with pytest.raises(ValueError):
        render_cell("t-nes", 0, np.random.default_rng(0), art=np.zeros((200, 300, 3), np.uint8))
