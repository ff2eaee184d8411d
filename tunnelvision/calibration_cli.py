"""Command-line front of calibration: the printable sheets and the deck calibration."""

from __future__ import annotations

from pathlib import Path

from .errors import UserError


def markers(out_dir: str) -> int:
    from calibration.markers import write_marker_sheet

    try:
        for path in write_marker_sheet(out_dir):
            print(path)
    except OSError as exc:
        raise UserError(f"cannot write the marker sheet to {out_dir}: {exc.strerror or exc}") from None
    print("Print at actual size (100 %); the scale bar must measure 100 mm.")
    return 0


def calibrate_deck(photos: list[str], *, out: str, game: str, sheets: str | None, model: str | None) -> int:
    from calibration.deck import DeckCalibrationError, calibrate, save, write_deck_sheets
    from vision.classify import Classifier, ImageError, ModelError, load_image

    sets = ("base", "saboteur2") if game == "saboteur2" else ("base",)
    if sheets:
        try:
            written = write_deck_sheets(sheets, sets)
        except OSError as exc:
            raise UserError(f"cannot write the deck sheets to {sheets}: {exc.strerror or exc}") from None
        for path in written:
            print(path)
        print("Print the sheets at actual size, lay one card of each kind upright on its slot, and photograph "
              "each sheet from above; then run: tunnelvision calibrate-deck PHOTO...")
        return 0
    if not photos:
        raise UserError("give the photos of the deck sheets (or --sheets DIR to print the sheets first)")
    try:
        classifier = Classifier(model)
        images = [load_image(p) for p in photos]
        calibration = calibrate(classifier, images, sets)
    except (ModelError, ImageError, DeckCalibrationError) as exc:
        raise UserError(str(exc)) from None
    try:
        save(calibration, out)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    covered = sorted({name.split("@")[0] for name in calibration.labels})
    print(f"wrote {Path(out)}: {len(calibration.labels)} prototypes of {len(covered)} faces; "
          f"use it with --deck {out}")
    return 0


def calibrate_table(photos: list[str], *, out: str) -> int:
    """Fit the table homography (and, from several photos, the lens) and save it for --calibration."""
    from calibration.table import CalibrationError, calibrate_table as fit
    from vision.classify import ImageError, load_image

    try:
        calibration = fit([load_image(p) for p in photos])
        calibration.save(out)
    except (ImageError, CalibrationError) as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    lens = (f", lens k = {calibration.lens_k:.3f} (a frame corner moves {100 * calibration.lens_k:.1f} % of the "
            f"half diagonal)" if len(photos) > 1 else "")
    print(f"wrote {out}: {len(calibration.markers_used)} markers, reprojection error "
          f"{calibration.reprojection_error_px:.2f} px{lens}; use it with --calibration {out}")
    return 0
