"""The picture's focus: a camera out of focus (a fixed-focus webcam nearer the table than it
was made for, a phone focused past it) blurs the cards' tunnels into their rock.

Unlike a lamp's faults, which leave cards unread, blur gets them misread: 40 bench photos
blurred by a lens out of focus (a Gaussian of 2.5 pixels at 1080p, where a card is 30 to 75
pixels wide) read 10 cards wrongly and 2 where none lies, 4 pixels 30 and 72; as rendered,
none. The classifier cannot say so itself (its wrong readings are sure ones), so the
picture is measured: how far the cards' sharpest edges are spread, as a share of a card.
"""

from __future__ import annotations

import cv2
import numpy as np

from .light import pixels_within, quads_box

# The blur (a Gaussian's sigma, as a share of a card's short side) of the bench's 40 first
# photos as rendered lies between 0.012 and 0.047; blurred 2.5 and 4 pixels, 0.036 to 0.106.
# Of their photos blurred by 0.05 or more, 58 read 32 cards wrongly and 72 where none lies;
# of those less blurred, 120 read 8 wrongly (all on one photo) and 2 where none lies. On the
# 200 drawn photos 2.5 pixels out of focus (`bench/vision.py --defocus 2.5`), the 84 at 0.05
# or more held 37 of the 39 cards read wrongly or where none lies; in focus, none is there
# with cards 25 pixels wide or more, in either deck.
BLURRED_SHARE = 0.05
STEEPEST = 99.0  # per cent: the cards' steepest edges (their tunnels' and walls' outlines)
CONTRAST = (5.0, 95.0)  # per cent: the cards' darkest and brightest, whose difference an edge steps


def blur(frame: np.ndarray, quads: list[np.ndarray], card_px: float) -> float:
    """The blur of the cards within these quadrilaterals (pixels), as a share of a card's
    short side ``card_px``: the sigma of the Gaussian that makes a step of the cards' contrast
    as steep as their steepest edges (0 where the quadrilaterals hold next to nothing)."""
    if not quads or card_px <= 0:
        return 0.0
    # only the quadrilaterals' box (and a pixel round it, for the gradient) is looked at
    x0, y0, x1, y1 = quads_box(quads, frame.shape, margin=1)
    grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    # a Sobel kernel weighs a unit step 8 times
    steepness = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)) / 8
    pixels = pixels_within(np.dstack([grey, steepness]), [q - (x0, y0) for q in quads])
    if len(pixels) < 100:
        return 0.0
    darkest, brightest = np.percentile(pixels[:, 0], CONTRAST)
    steepest = max(float(np.percentile(pixels[:, 1], STEEPEST)), 1e-3)
    # a step of height h blurred by a Gaussian of sigma s is h / (s * sqrt(2 pi)) steep at its middle
    return float(brightest - darkest) / (steepest * np.sqrt(2 * np.pi)) / card_px
