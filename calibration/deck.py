"""Deck calibration: teach the classifier the user's own printing of the cards.

The user prints the layout sheets (``write_deck_sheets``), lays one of their cards upright
on each labelled slot and photographs each sheet. The ArUco markers of a sheet say which
sheet it is and give the homography, so every card is cut out exactly; its embedding (and
the embedding of the same crop turned 180°, for the other rotation) becomes a prototype
of its class. At run time ``vision.classify`` blends the model's head with the nearest
prototype, which adapts to another edition, a faded or worn deck, without retraining.

Prototypes are embeddings of one particular model, so the file records the model's digest
and refuses to be used with another.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.catalogue import Catalogue, default_catalogue
from vision.classes import MAZE_KINDS
from vision.classify import Classifier, Prototypes
from vision.light import brightened, cast_gains, recoloured, white

from .markers import MM_PER_INCH, SheetGeometry, put_text, pdf_with_image, png_with_dpi
from .table import CalibrationError, detect_markers, fit_homography

DECK_FORMAT = "tunnelvision.deck-calibration"
CARD_MM = (57.0, 88.0)
CELL_MM = (58.0, 89.0)  # what the grid stage crops: the card plus about a millimetre of gap
SLOTS = 8  # two rows of four cards on an A4 landscape page
_PAGE = (297.0, 210.0)
_MARKER = 14.0
_FIRST_MARKER_ID = 20  # the table sheet uses ids 0-5
_SLOT_ORIGIN = (24.0, 13.0)
_SLOT_STEP = (63.0, 95.0)
DPI = 200


class DeckCalibrationError(ValueError):
    """A photo or file that cannot give a deck calibration; one sentence for the user."""


def deck_faces(catalogue: Catalogue, sets: tuple[str, ...]) -> list[str]:
    """The faces a deck calibration covers, in the order the sheets show them."""
    return [f.id for f in catalogue.faces.values() if f.kind in MAZE_KINDS and f.set in sets]


def page_geometry(page: int) -> SheetGeometry:
    first = _FIRST_MARKER_ID + 4 * page
    w, h, m = _PAGE[0], _PAGE[1], _MARKER
    return SheetGeometry(
        page_mm=_PAGE, marker_mm=m, dictionary=cv2.aruco.DICT_4X4_50,
        marker_origins_mm=((first, (4.0, 4.0)), (first + 1, (w - 4.0 - m, 4.0)),
                           (first + 2, (w - 4.0 - m, h - 4.0 - m)), (first + 3, (4.0, h - 4.0 - m))))


def slot_centre(slot: int) -> tuple[float, float]:
    col, row = slot % 4, slot // 4
    return (_SLOT_ORIGIN[0] + col * _SLOT_STEP[0] + CARD_MM[0] / 2,
            _SLOT_ORIGIN[1] + row * _SLOT_STEP[1] + CARD_MM[1] / 2)


def _draw_pictogram(sheet: np.ndarray, face, centre: tuple[float, float], px: float) -> None:
    """A small drawing of the face's tunnels, so the user can match each card to its slot."""
    from engine.catalogue import EDGE_BITS, STEP

    cx, cy = centre
    half = (12.0, 18.0)
    x0, y0, x1, y1 = cx - half[0], cy - half[1], cx + half[0], cy + half[1]
    cv2.rectangle(sheet, (round(x0 * px), round(y0 * px)), (round(x1 * px), round(y1 * px)), 190, -1)
    thick = max(1, round(5.0 * px))
    for tunnel in face.tunnels:
        for bit in EDGE_BITS:
            if tunnel.edges & bit:
                dx, dy = STEP[bit]
                reach = 1.0 if not tunnel.is_stub or tunnel.ladder else 0.55
                end = (cx + dx * half[0], cy - dy * half[1])
                start = (cx + dx * half[0] * (1 - reach), cy - dy * half[1] * (1 - reach))
                cv2.line(sheet, (round(start[0] * px), round(start[1] * px)), (round(end[0] * px), round(end[1] * px)),
                         255, thick)
    if face.kind == "goal-back":
        put_text(sheet, "?", (cx - 2, cy + 3), 6.0, px, bold=True)


def render_deck_sheet(page: int, faces: list[str], dpi: int = DPI) -> np.ndarray:
    px = dpi / MM_PER_INCH
    sheet = np.full((round(_PAGE[1] * px), round(_PAGE[0] * px)), 255, np.uint8)
    geometry = page_geometry(page)
    dictionary = cv2.aruco.getPredefinedDictionary(geometry.dictionary)
    for marker_id, (x, y) in geometry.marker_origins_mm:
        side = round(geometry.marker_mm * px)
        top, left = round(y * px), round(x * px)
        sheet[top:top + side, left:left + side] = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
    for slot, face in enumerate(faces):
        cx, cy = slot_centre(slot)
        x0, y0 = cx - CARD_MM[0] / 2, cy - CARD_MM[1] / 2
        cv2.rectangle(sheet, (round(x0 * px), round(y0 * px)),
                      (round((x0 + CARD_MM[0]) * px), round((y0 + CARD_MM[1]) * px)), 150, max(1, round(0.3 * px)))
        put_text(sheet, face, (x0 + 3, y0 + 16), 3.2, px, bold=True)
        _draw_pictogram(sheet, default_catalogue().face(face), (cx, cy + 14), px)
        put_text(sheet, "top edge (north) up", (x0 + 3, y0 + 6), 2.2, px)
    put_text(sheet, f"Tunnel Vision deck sheet {page + 1}: lay each card upright on its slot; "
              "photograph from above, all four markers in view", (22.0, _PAGE[1] - 3.0), 2.6, px)
    return sheet


def write_deck_sheets(out_dir: str | Path, sets: tuple[str, ...] = ("base",),
                      catalogue: Catalogue | None = None) -> list[Path]:
    catalogue = catalogue or default_catalogue()
    faces = deck_faces(catalogue, sets)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in range((len(faces) + SLOTS - 1) // SLOTS):
        image = render_deck_sheet(page, faces[page * SLOTS:(page + 1) * SLOTS])
        png = out / f"tunnelvision-deck-sheet-{page + 1}.png"
        png.write_bytes(png_with_dpi(image, DPI))
        pdf = png.with_suffix(".pdf")
        pdf.write_bytes(pdf_with_image(image, DPI, _PAGE, f"Tunnel Vision deck sheet {page + 1}"))
        written += [png, pdf]
    return written


def crops_from_photo(image: np.ndarray, faces: list[str], crop_size: tuple[int, int] = (64, 96)) -> list[tuple[str, np.ndarray]]:
    """Find the sheet in a photo and cut out every card lying on it, upright."""
    found = detect_markers(image)
    pages = {(i - _FIRST_MARKER_ID) // 4 for i in found if i >= _FIRST_MARKER_ID}
    if len(pages) != 1:
        raise DeckCalibrationError("no deck sheet found in the photo: all four markers of one sheet must be in view"
                                   if not pages else "the photo shows markers of more than one deck sheet")
    page = pages.pop()
    if page * SLOTS >= len(faces):
        raise DeckCalibrationError(f"the photo shows deck sheet {page + 1}, which this deck does not have")
    try:
        fit = fit_homography(found, page_geometry(page).layout(), image_size=(image.shape[1], image.shape[0]))
    except CalibrationError as exc:
        raise DeckCalibrationError(str(exc)) from None
    table_to_image = np.linalg.inv(fit.homography)
    w, h = crop_size
    crops = []
    for slot, face in enumerate(faces[page * SLOTS:(page + 1) * SLOTS]):
        cx, cy = slot_centre(slot)
        hw, hh = CELL_MM[0] / 2, CELL_MM[1] / 2
        corners_mm = np.float32([[cx - hw, cy - hh], [cx + hw, cy - hh], [cx + hw, cy + hh], [cx - hw, cy + hh]])
        corners_px = cv2.perspectiveTransform(corners_mm[None], table_to_image)[0]
        warp = cv2.getPerspectiveTransform(corners_px.astype(np.float32),
                                           np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
        crops.append((face, cv2.warpPerspective(image, warp, (w, h), flags=cv2.INTER_AREA)))
    return crops


@dataclass(frozen=True)
class DeckCalibration:
    model_digest: str
    labels: list[str]  # class names
    vectors: np.ndarray

    def prototypes(self, classifier: Classifier) -> Prototypes:
        """The prototypes for ``classifier.prototypes``, of the classes its model has."""
        index = {c.name: i for i, c in enumerate(classifier.classes)}
        known = [i for i, n in enumerate(self.labels) if n in index]
        return Prototypes(self.vectors[known], np.array([index[self.labels[i]] for i in known]))

    def to_json(self) -> dict:
        return {"format": DECK_FORMAT, "version": 1, "model_digest": self.model_digest,
                "prototypes": [{"class": c, "embedding": [round(float(v), 5) for v in e]}
                               for c, e in zip(self.labels, self.vectors)]}


def model_digest(classifier: Classifier) -> str:
    return hashlib.sha256(classifier.model_path.read_bytes()).hexdigest()[:16]


def calibrate(classifier: Classifier, photos: list[np.ndarray], sets: tuple[str, ...] = ("base",)) -> DeckCalibration:
    faces = deck_faces(default_catalogue(), sets)
    names, crops = [], []
    by_face = {}
    for c in classifier.classes:
        if c.face is not None:
            by_face.setdefault(c.face, {})[c.rotation] = c.name
    for photo in photos:
        # in the light the pipeline reads the maze in: a dim room brought up alike, and a
        # lamp's cast taken out (the sheet's paper is the photo's white)
        photo = brightened(photo)
        gains = cast_gains(white(photo))
        for face, crop in crops_from_photo(photo if gains is None else recoloured(photo, gains), faces):
            for rotation, view in ((0, crop), (180, cv2.rotate(crop, cv2.ROTATE_180))):
                rotations = by_face.get(face, {})
                name = rotations.get(rotation) or rotations.get(0)
                if name is None:
                    continue  # the model has no class for this face
                names.append(name)
                crops.append(view)
    if not crops:
        raise DeckCalibrationError("no card could be cut out of the photos")
    _, embedding = classifier.run(crops)
    unit = embedding / np.maximum(np.linalg.norm(embedding, axis=1, keepdims=True), 1e-6)
    return DeckCalibration(model_digest(classifier), names, unit.astype(np.float32))


def save(calibration: DeckCalibration, path: str | Path) -> None:
    target = Path(path)
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_text(json.dumps(calibration.to_json()), "utf-8")
    tmp.replace(target)


def load_prototypes(path: str | Path, classifier: Classifier) -> Prototypes:
    """Prototypes for ``Classifier(prototypes=...)``; checks the file belongs to this model."""
    source = Path(path)
    try:
        doc = json.loads(source.read_text("utf-8"))
        if doc.get("format") != DECK_FORMAT:
            raise ValueError
        entries = doc["prototypes"]
        names = [e["class"] for e in entries]
        vectors = np.array([e["embedding"] for e in entries], np.float32)
    except FileNotFoundError:
        raise DeckCalibrationError(f"there is no deck calibration at {source}") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise DeckCalibrationError(f"{source} is not a deck calibration file (or it is corrupt)") from None
    if doc.get("model_digest") != model_digest(classifier):
        raise DeckCalibrationError(f"{source} was made with another model; run calibrate-deck again")
    return DeckCalibration(doc["model_digest"], names, vectors).prototypes(classifier)
