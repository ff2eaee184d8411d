import numpy as np
import pytest

from vision.light import (LEAST_LEVEL, MOST_GAIN, WARMTH, brightened, burnt_share, cards_white, cast_gains, recoloured,
                          white)
from vision.scenes import SceneOptions, table_scene


@pytest.fixture(scope="module")
def photo():
    return table_scene(np.random.default_rng(41), size=(1280, 720), options=SceneOptions(p_hand=0.0)).image


def test_a_photo_taken_right_is_left_as_it_is(photo):
    assert brightened(photo) is photo


@pytest.mark.parametrize("exposure", [0.25, 0.4, 0.55])
def test_a_photo_taken_too_dark_is_brought_up_to_the_least_white(photo, exposure):
    dark = (photo * exposure).astype(np.uint8)
    assert white(dark).max() < LEAST_LEVEL
    up = brightened(dark)
    assert white(up).max() == pytest.approx(LEAST_LEVEL, abs=2)
    # one gain for every channel: the colours stay as they were
    ratio = up[photo > 100].astype(float) / np.maximum(dark[photo > 100], 1)
    assert np.percentile(ratio, 5) > 0.9 * np.percentile(ratio, 95)


def test_a_picture_of_next_to_nothing_bright_is_brought_up_only_so_far():
    night = np.random.default_rng(0).integers(0, 20, (480, 640, 3)).astype(np.uint8)
    assert brightened(night).max() <= MOST_GAIN * night.max() + 1


def test_a_picture_all_but_wholly_clipped_is_left_as_it_is():
    glare = np.full((480, 640, 3), 255, np.uint8)
    glare[:4, :4] = 30
    assert brightened(glare) is glare


def test_the_cards_white_within_what_the_bench_shows_is_no_cast():
    assert cast_gains(np.array([230.0, 232.0, 240.0])) is None  # a little creamy, as drawn cards are
    assert cast_gains(None) is None


@pytest.mark.parametrize("white", [(140.0, 200.0, 235.0), (240.0, 200.0, 150.0)])
def test_a_cast_in_the_cards_white_is_taken_to_the_nearest_edge_of_grey_at_the_same_brightness(white):
    gains = cast_gains(np.array(white))
    blue, green, red = np.log(np.array(white) * gains)
    assert red - blue == pytest.approx(WARMTH[1] if white[2] > white[0] else WARMTH[0])
    assert np.prod(gains) == pytest.approx(1.0)


def test_a_picture_is_recoloured_channel_by_channel(photo):
    out = recoloured(photo, np.array([1.2, 1.0, 0.5]))
    assert np.abs(out[..., 2].astype(int) - np.round(photo[..., 2] * 0.5)).max() <= 1
    assert np.array_equal(out[..., 1], photo[..., 1])
    assert out[..., 0].max() <= 255


def test_the_share_of_the_cards_clipped_is_counted_within_them_alone():
    """A card (80 x 120 px) half clipped, on a table clipped everywhere else: the table is no
    card; a card partly past the frame's edge counts what is in view."""
    picture = np.full((300, 400, 3), 255, np.uint8)
    picture[100:220, 100:180] = 120
    picture[100:160, 100:180] = (90, 250, 200)  # half of it: clipped in one channel
    card = np.array([[100, 100], [180, 100], [180, 220], [100, 220]], float)
    assert burnt_share(picture, [card]) == pytest.approx(0.5, abs=0.05)
    assert burnt_share(picture, [card - (150, 0)]) == 1.0  # what remains in view is the table's
    assert burnt_share(picture, []) == 0.0


def test_the_cards_white_is_their_brightest_tenth_not_clipped():
    picture = np.zeros((200, 200, 3), np.uint8)
    picture[50:150, 50:150] = 100
    picture[50:60, 50:150] = (200, 210, 220)  # a tenth of the card
    picture[60:70, 50:150] = 255  # clipped: no measure of the white
    card = np.array([[50, 50], [150, 50], [150, 150], [50, 150]], float)
    assert cards_white(picture, [card]) == pytest.approx([200, 210, 220], abs=3)
