"""The picture's light: a photo taken too dark, or under a lamp's cast that the camera's white
balance left, brought back to what the classifier and the grid were made for.

A photo taken in a dim room, or by a webcam whose exposure was locked before the lamp went
down, shows every card far darker than any the classifier was trained on, and in its noise
the grid finds edges that are none. A photo of the table holds white (the cards' tunnels, a
glare, the marker sheet), so its brightest pixels say how far the exposure fell short
(``brightened``, before anything is read). A warm lamp with the white balance locked for
daylight turns the blue-grey cards tan, where the classifier is unsure and the skin test
sees hands. Which colour the brightest pixels have says nothing of that (a bright orange
cloth looks the same), but the white of the maze's cards, once the grid has found them,
does (``cast_gains``: the pipeline reads a photo again with it taken out). A picture
exposed too long clips the cards' white, which nothing brings back: ``burnt_share`` says
how much of the cards did, and the reading warns of it. Within what the bench's own photos
show, a picture is left exactly as it came, so a photo the renderer's cameras could have
taken reads as before.
"""

from __future__ import annotations

import cv2
import numpy as np

# The brightest channel of the white (below) of the bench's photos is 142 at the least (the
# 200 photos of both decks at 1080p, and drawn at 720p, 4:3, 3:4, 640 x 480, 12 MP and
# through lenses up to 0.2; photos 1000 to 1499 at 1080p), about 220 for the median photo.
LEAST_LEVEL = 140.0
MOST_GAIN = 3.0  # a picture of next to nothing bright is not brightened without end
CLIPPED = 250  # a pixel with a channel this bright is no measure of the exposure
WHITE_SHARE = 1.0  # per cent: the brightest pixels not clipped are the picture's white


def _brightest(b: np.ndarray, g: np.ndarray, r: np.ndarray, share: float) -> np.ndarray | None:
    """The mean colour (BGR) of the brightest ``share`` per cent of the pixels not clipped,
    given one array per channel (reducing over a 3-wide axis is several times slower); None
    where fewer than 100 are not clipped."""
    unclipped = np.maximum(np.maximum(b, g), r) < CLIPPED
    b, g, r = b[unclipped], g[unclipped], r[unclipped]
    if b.size < 100:
        return None
    brightness = b.astype(np.int16) + g + r
    first = brightness.size - max(1, round(brightness.size * share / 100))
    brightest = np.argpartition(brightness, first)[first:]
    return np.array([b[brightest].mean(), g[brightest].mean(), r[brightest].mean()], np.float32)


def white(frame: np.ndarray) -> np.ndarray | None:
    """The mean colour (BGR) of the brightest pixels not clipped, on a pixel in 256 (0.1 ms a
    1080p frame: the live path asks it of every frame); None where nearly every pixel is
    clipped."""
    sample = frame[::16, ::16]
    return _brightest(*(sample[..., i].ravel() for i in range(3)), WHITE_SHARE)


def exposure_gain(frame: np.ndarray) -> float:
    """How much brighter the picture must be for its white's brightest channel to reach
    LEAST_LEVEL (1 where it does; at most MOST_GAIN)."""
    w = white(frame)
    if w is None or w.max() >= LEAST_LEVEL:
        return 1.0
    return min(LEAST_LEVEL / max(float(w.max()), 1.0), MOST_GAIN)


def brightened(frame: np.ndarray) -> np.ndarray:
    """The picture (BGR, 8 bits) brought up to LEAST_LEVEL where it is darker; the same array
    where it is not."""
    gain = exposure_gain(frame)
    if gain == 1.0:
        return frame
    return cv2.convertScaleAbs(frame, alpha=gain)


# The white of the maze's cards (their tunnels: the brightest tenth of their pixels not
# clipped) in the bench's photos lies between -0.13 and 0.27 in log(red / blue) (drawn cards
# are a little creamy, printed ones within 0.03 of grey) and within 0.05 of grey in
# log(green / sqrt(red * blue)) (700 photos: 0 to 99 of both decks, 1000 to 1499 drawn).
# Beyond that it is a lamp's cast that the camera's white balance left: a warm lamp with the
# white balance locked for daylight gives 0.52 to 0.81 (`bench/vision.py --light warm`),
# daylight with it locked for a lamp -0.46 to -0.1. Unlike a photo's brightest pixels,
# which may be a bright cloth's, the cards' white is nearly grey under any neutral light.
WARMTH = (-0.15, 0.3)
TINT = (-0.08, 0.1)
CARD_WHITE_SHARE = 10.0  # per cent of the cards' pixels not clipped


def quads_box(quads: list[np.ndarray], shape: tuple[int, ...], margin: int = 0) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1: pixels, clipped to a frame of this shape) that holds these
    quadrilaterals (a maze covers a small part of the frame), ``margin`` pixels wider each way."""
    h, w = shape[:2]
    corners = np.concatenate(quads)
    x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int) - margin, 0, [w, h])
    x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int) + 1 + margin, 0, [w, h])
    return int(x0), int(y0), int(x1), int(y1)


def pixels_within(frame: np.ndarray, quads: list[np.ndarray], step: int = 1) -> np.ndarray:
    """The pixels (N x channels) of the frame within these quadrilaterals (pixels of the
    frame), every ``step``-th one each way."""
    if not quads:
        return np.empty((0, *frame.shape[2:]), frame.dtype)
    # only the quadrilaterals' box is masked
    x0, y0, x1, y1 = quads_box(quads, frame.shape)
    x0, y0 = x0 // step * step, y0 // step * step
    box = frame[y0:y1:step, x0:x1:step]
    mask = np.zeros(box.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round((q - (x0, y0)) / step).astype(np.int32) for q in quads], 1)
    return box[mask.astype(bool)]


def cards_white(frame: np.ndarray, quads: list[np.ndarray]) -> np.ndarray | None:
    """The mean colour (BGR) of the brightest tenth of the pixels not clipped within these
    quadrilaterals (the maze's cards, pixels); None where they hold next to none."""
    return _brightest(*pixels_within(frame, quads).T, CARD_WHITE_SHARE)


# A picture exposed for a dark table (a webcam's automatic exposure over a dark cloth), or a
# lamp close over the maze, clips the cards' tunnels and, past them, the rock's pale wash:
# what told a tunnel from the rock is gone, and the classifier leaves such cards unread.
# On the bench's photos the cards' pixels clip up to 0.26 (drawn) and 0.34 (printed) of
# them, and read as well as any. 1.3 times as bright (`bench/vision.py --light bright`),
# drawn photos whose cards clip 0.4 or more lost 3 to 5 of their cards in view each, those
# clipping 0.35 to 0.4 under 1; printed ones 1.2, against 0.4 for those clipping less.
BURNT_SHARE = 0.4


def burnt_share(frame: np.ndarray, quads: list[np.ndarray]) -> float:
    """The share of the pixels within these quadrilaterals (the maze's cards, pixels) with a
    channel clipped, from every fourth pixel each way; 0 where they hold none."""
    pixels = pixels_within(frame, quads, step=4)
    return float(np.count_nonzero(pixels.max(axis=1) >= CLIPPED)) / len(pixels) if len(pixels) else 0.0


def cast_gains(white_of_cards: np.ndarray | None) -> np.ndarray | None:
    """The gain per channel (BGR) that brings the cards' white within WARMTH and TINT (to the
    nearest edge: which grey the cards were printed in is not known) at the same brightness;
    None where it lies within already."""
    if white_of_cards is None or white_of_cards.min() < 1:
        return None
    blue, green, red = np.log(white_of_cards)
    warmth, tint = red - blue, green - (red + blue) / 2
    d_warmth = float(np.clip(warmth, *WARMTH)) - warmth
    d_tint = float(np.clip(tint, *TINT)) - tint
    if d_warmth == d_tint == 0:
        return None
    return np.exp([-d_warmth / 2 - d_tint / 3, 2 * d_tint / 3, d_warmth / 2 - d_tint / 3])


def recoloured(frame: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The picture (BGR, 8 bits) with each channel multiplied by its gain."""
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * np.float32(gains)[None, :], 0, 255)
    return cv2.LUT(frame, lut.astype(np.uint8).reshape(256, 1, 3))
