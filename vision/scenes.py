"""Synthetic photos with known ground truth, for tests and benchmarks.

``deck_sheet_photo``: a deck-calibration sheet with cards of a given style on its slots,
seen by a tilted camera under uneven light. (Whole-table photos of random mazes live
here too as the vision pipeline grows.)
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.catalogue import default_catalogue
from vision.cardart import CardStyle, draw_face

# A printing deliberately unlike every trained style: sandy brown rock, yellowed narrow
# tunnels, heavy walls. Used to show what deck calibration buys.
FOREIGN_EDITION = CardStyle(rock_hue=32.0, rock_saturation=0.32, rock_lightness=0.46, wash=0.2, wall_darkness=0.85,
                            wall_width=0.06, ink_darkness=0.9, ink_warmth=0.9, tunnel_whiteness=0.9,
                            tunnel_cream=0.45, tunnel_width=0.22, waviness=0.9, border=True,
                            border_colour=(60, 90, 120), border_width=0.05, decoration_prob=0.2)


def _camera(image: np.ndarray, rng: np.random.Generator, out_size: tuple[int, int], tilt: float = 0.12) -> np.ndarray:
    """Place ``image`` on a table and photograph it: perspective, light gradient, blur, noise, JPEG."""
    h, w = image.shape[:2]
    out_w, out_h = out_size
    table = np.empty((out_h, out_w, 3), np.float32)
    table[:] = rng.uniform(40, 110, 3)
    scale = min(out_w / w, out_h / h) * rng.uniform(0.75, 0.9)
    cx, cy = out_w / 2 + rng.uniform(-0.05, 0.05) * out_w, out_h / 2 + rng.uniform(-0.05, 0.05) * out_h
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        jitter = 1 + rng.uniform(-tilt, tilt)
        dst.append([cx + sx * w * scale / 2 * jitter, cy + sy * h * scale / 2 * jitter])
    warp = cv2.getPerspectiveTransform(src, np.float32(dst))
    seen = cv2.warpPerspective(image.astype(np.float32), warp, (out_w, out_h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((h, w), np.float32), warp, (out_w, out_h))[..., None]
    photo = table * (1 - mask) + seen * mask
    gx, gy = np.meshgrid(np.linspace(-1, 1, out_w), np.linspace(-1, 1, out_h))
    light = 1 + 0.25 * (rng.uniform(-1, 1) * gx + rng.uniform(-1, 1) * gy)
    photo = photo * light[..., None] * rng.uniform(0.85, 1.1, 3)
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.5, 1.2))
    photo += rng.normal(0, 3, photo.shape)
    ok, jpeg = cv2.imencode(".jpg", np.clip(photo, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def deck_sheet_photo(page: int, faces: list[str], style: CardStyle, rng: np.random.Generator,
                     out_size: tuple[int, int] = (1600, 1200)) -> np.ndarray:
    """A photo of deck sheet ``page`` with a card of ``style`` on each slot (``faces`` as the sheet lists)."""
    from calibration.deck import CARD_MM, SLOTS, render_deck_sheet, slot_centre

    dpi = 120
    px = dpi / 25.4
    on_page = faces[page * SLOTS:(page + 1) * SLOTS]
    sheet = cv2.cvtColor(render_deck_sheet(page, on_page, dpi), cv2.COLOR_GRAY2BGR)
    catalogue = default_catalogue()
    card_px = (round(CARD_MM[0] * px), round(CARD_MM[1] * px))
    for slot, face in enumerate(on_page):
        card = draw_face(catalogue.face(face), 0, style, rng, size=card_px)
        cx, cy = slot_centre(slot)
        # the user lays the card by hand: a millimetre or two off, a degree or two turned
        cx, cy = cx + rng.uniform(-1.2, 1.2), cy + rng.uniform(-1.2, 1.2)
        rot = cv2.getRotationMatrix2D((card_px[0] / 2, card_px[1] / 2), rng.uniform(-2, 2), 1.0)
        rot[:, 2] += (cx * px - card_px[0] / 2, cy * px - card_px[1] / 2)
        placed = cv2.warpAffine(card, rot, (sheet.shape[1], sheet.shape[0]), flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.full(card.shape[:2], 255, np.uint8), rot, (sheet.shape[1], sheet.shape[0]))
        sheet[mask > 127] = placed[mask > 127]
    return _camera(sheet, rng, out_size)
