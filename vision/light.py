"""The picture's light: a photo taken too dark brought up to what the classifier and the grid
were made for.

A photo taken in a dim room, or by a webcam whose exposure was locked before the lamp went
down, shows every card far darker than any the classifier was trained on, and in its noise
the grid finds edges that are none. A photo of the table holds white (the cards' tunnels, a
glare, the marker sheet), so its brightest pixels say how far the exposure fell short. Where
even those lie below what any of the bench's photos shows, the picture is brought up to
that; otherwise it is left exactly as it is, so a photo the renderer's cameras could have
taken reads as before.
"""

from __future__ import annotations

import cv2
import numpy as np

# The brightest channel of the white (below) of the bench's photos is 149 at the least
# (drawn and printed cards, photos 0 to 199 and 1000 to 1299; 220 for the median photo).
LEAST_LEVEL = 140.0
MOST_GAIN = 3.0  # a picture of next to nothing bright is not brightened without end
CLIPPED = 250  # a pixel with a channel this bright is no measure of the exposure
WHITE_SHARE = 1.0  # per cent: the brightest pixels not clipped are the picture's white


def white(frame: np.ndarray) -> np.ndarray | None:
    """The mean colour (BGR) of the brightest pixels not clipped, on a pixel in 256 (0.1 ms a
    1080p frame: the live path asks it of every frame); None where nearly every pixel is
    clipped."""
    sample = frame[::16, ::16]
    b, g, r = (sample[..., i].ravel() for i in range(3))  # (reducing over a 3-wide axis is slower)
    unclipped = np.maximum(np.maximum(b, g), r) < CLIPPED
    b, g, r = b[unclipped], g[unclipped], r[unclipped]
    if b.size < 100:
        return None
    brightness = b.astype(np.int16) + g + r
    first = brightness.size - max(1, round(brightness.size * WHITE_SHARE / 100))
    brightest = np.argpartition(brightness, first)[first:]
    return np.array([b[brightest].mean(), g[brightest].mean(), r[brightest].mean()], np.float32)


def exposure_gain(frame: np.ndarray) -> float:
    """How much brighter the picture must be for its white's brightest channel to reach
    LEAST_LEVEL (1 where it does; at most MOST_GAIN)."""
    w = white(frame)
    level = 0.0 if w is None else float(w.max())
    if w is None or level >= LEAST_LEVEL:
        return 1.0
    return min(LEAST_LEVEL / max(level, 1.0), MOST_GAIN)


def brightened(frame: np.ndarray) -> np.ndarray:
    """The picture (BGR, 8 bits) brought up to LEAST_LEVEL where it is darker; the same array
    where it is not."""
    gain = exposure_gain(frame)
    if gain == 1.0:
        return frame
    return cv2.convertScaleAbs(frame, alpha=gain)
