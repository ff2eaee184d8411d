import numpy as np
import pytest

from vision.light import LEAST_LEVEL, MOST_GAIN, brightened, white
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
