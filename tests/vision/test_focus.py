import cv2
import numpy as np
import pytest

from vision.focus import blur

CARD = [np.array([[50, 50], [250, 50], [250, 250], [50, 250]], float)]


@pytest.fixture(scope="module")
def stripes():
    """Stripes 15 pixels wide, as sharp as a picture can be."""
    picture = np.full((300, 300, 3), 40, np.uint8)
    for x in range(0, 300, 30):
        picture[:, x:x + 15] = 210
    return picture


@pytest.mark.parametrize("sigma", [2.0, 3.0])
def test_the_blur_is_the_gaussian_that_spreads_the_edges_as_a_share_of_a_card(stripes, sigma):
    blurred = cv2.GaussianBlur(stripes, (0, 0), sigma)
    assert blur(blurred, CARD, card_px=100.0) == pytest.approx(sigma / 100, rel=0.1)
    assert blur(blurred, CARD, card_px=50.0) == pytest.approx(2 * blur(blurred, CARD, card_px=100.0))


def test_a_sharp_picture_has_next_to_no_blur_and_no_card_none(stripes):
    assert blur(stripes, CARD, card_px=100.0) < 0.01
    assert blur(stripes, [], card_px=100.0) == 0.0
