"""Vision benchmark: whole table photos and filmed games with ground truth.

    python bench/vision.py [--scenes 200] [--first 0] [--videos 30] [--scans DIR] [--lens K]
                           [--light dim|bright|warm|cool] [--size WxH] [--sheet-photos N] [--draw N]
                           [--defocus PX] [--misregister PX] [--rockfalls N] [--foreign] [--json]
                           [--diagnose] [--photo K ...]

* scenes: synthetic 1080p photos of random legal mazes (unseen seeds; camera pose, tilt,
  lens, light, glare, tables, hands, loose cards, crosswise cards), read from scratch:
  per-card accuracy (a card is right when face and rotation match; a half-turn-symmetric
  card is right in either rotation) over every card and over the cards a photo can show
  (wholly in view, under no hand), abstentions, wrong readings, boards fully right (and
  right as far as the photo shows them: a card under a hand can only be reported
  uncertain), photos whose maze was anchored a cell or more off or turned half a turn
  (every card named wrongly), photos whose report (`tunnelvision check`'s) accuses a card
  (says it breaks a rule or is cut off from the start: every maze is legal and no rockfall
  has cut it, so each is accused wrongly), what `tunnelvision check --contested` answers
  on the card laid last (legal in every maze: legal, legal as far as the cells read show,
  illegal, or not judged when it was not read surely), and the time of a cold single photo
  (model loading included; OpenCV on its default threads and the classifier on one, as
  `tunnelvision check` runs) and of every photo (median, 90th percentile, slowest: a photo whose edges
  mislead the grid is searched by reading, and takes longer); ``--diagnose`` prints one
  line per photo (right, abstained and how many of those in view, wrong, read
  where none lies, ms) to stderr, and ``--photo K`` runs only photo K (repeatable) to look
  into one; ``--lens K`` takes the photos and the films through a stronger barrel lens
  than the scenes' mild one (a corner moved by up to K of the half diagonal: wide webcam
  lenses reach 0.1), ``--light`` through a camera whose exposure or white balance is off
  (a dim room, an exposure set for a darker table, a warm lamp or daylight against the white
  balance it was locked at; the photos read with each warning about the picture, dark,
  burnt out, blurred, small cards or no colour, are counted), ``--defocus PX`` through a lens
  out of focus (a Gaussian blur of PX pixels), and ``--size`` takes the photos at
  another size than 1080p (a 720p webcam: 1280x720);
  ``--sheet-photos N`` reads each photo as a fixed camera calibrated with the ArUco sheet
  would: the sheet photographed N times by the photo's camera (the last in the middle of the
  view, the others in its corners), ``calibrate-table`` on those photos (one photo: the
  plane; two or more: the lens too), the photo read with that calibration; ``--draw N``
  reads the photos with another (seeded) draw of the card-edge pairs the vanishing points
  come from, to see how much a reading hinges on it; ``--first K`` takes the photos from
  number K on: the bench's own 200 have been looked into, one by one, while the pipeline
  was mended, and photos from 1000 on had not been until Session 49 (a check that the
  mending generalises);
* videos: games filmed at 1080p by a fixed camera, hands bringing each card in; every
  frame goes through the pipeline and the tracker: commits that do not match the truth
  (wrong commits, the target is zero: a card read wrongly, a card removed that is not, a
  card of the first view announced as laid), placements committed, the board the tracker
  holds at each film's end against the table (a card of the first view read wrongly shows
  only there), frames per second in steady state on one core (the median frame, and the
  90th percentile frame: a still view keeps its lattice, a moving one is re-judged) and the
  time of each stage; ``--misregister PX`` reads every cell of the films from a lattice PX
  pixels up the frame from where the pipeline fits it (down when negative): a stress test of
  the tracker, since a still view cuts a card alike on every frame and a hold cannot tell a
  crop off its card; ``--rockfalls N`` ends every film with N rockfalls, a hand taking a
  path card away (cutting off any beyond it), each followed by a card laid in the hole when
  one fits: the removals committed are counted, and a legal card laid after one judged
  illegal is a player accused wrongly as any other; it also plays N rockfalls on every
  photo's maze once grown (each hole filled again half the time): the cards they cut off
  lie on, and the report should list them as cut off, never as breaking a rule;
* with ``--scans DIR``, all of it again on tables laid out of a printed deck's scans (the
  base game's faces as the publisher printed them, read from the folder): the fairest
  preview here of real cards, for the grid above all (the shipped classifier has seen
  some of these scans in training; bench/classifier.py holds one scan a face out);
* with ``--foreign``, all of it on tables whose every card is of a printing unlike every
  style the classifier trained on (``vision.scenes.FOREIGN_EDITION``), read twice: as they
  come, and with a deck calibration made from photos of that printing's deck sheets, as
  ``tunnelvision calibrate-deck`` makes it: what a player with another edition gets.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import cv2
import numpy as np

from calibration.deck import DeckCalibration, calibrate
from calibration.table import CalibrationError, calibrate_table
from engine.catalogue import default_catalogue
from tunnelvision import library_versions, versions_text
from vision.cardart import CardStyle
from vision.classes import is_half_turn_symmetric
from vision.classify import DEFAULT_MODEL, Classifier
from vision.grid import Lattice
from vision.observation import breaks_a_rule, maze_report, rule_on
from vision.pipeline import (BLURRED, BURNT, DARK, DIRECTION_GUESSED, NO_COLOUR, SMALL_CARDS, STRAIGHTENED, Pipeline,
                             Step)
from vision.printed import PrintedDeck, PrintedDeckError
from vision.scenes import FOREIGN_EDITION, SceneOptions, deck_sheet_photos, marker_sheet_photo, table_scene, table_video
from vision.track import MazeTracker

CATALOGUE = default_catalogue()
SEED = 7_000_000  # far from every seed the tests and the training use
# the camera's gain per channel (BGR) against a right exposure and white balance (SceneOptions.camera_gains)
LIGHTS = {"right": (1.0, 1.0, 1.0), "dim": (0.4, 0.4, 0.4), "bright": (1.3, 1.3, 1.3),
          "warm": (0.62, 1.0, 1.25), "cool": (1.3, 0.95, 0.78)}
# the warnings about the picture itself that a photo's reading may carry, as the bench counts them
PICTURE_WARNINGS = {"dark": DARK, "burnt out": BURNT, "blurred": BLURRED, "small cards": SMALL_CARDS,
                    "no colour": NO_COLOUR}
# where --sheet-photos lays the marker sheet (shares of the frame), the last where it stays
SHEET_SPOTS = ((0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.25, 0.75), (0.5, 0.5))


def same_card(face: str, rotation: int, truth_face: str, truth_rotation: int) -> bool:
    if face != truth_face:
        return False
    return rotation == truth_rotation or is_half_turn_symmetric(CATALOGUE.face(face))


CONTESTED = ("legal", "legal as far as read", "illegal", "not judged", "none laid")


def ruled_as(ruling) -> str:
    """Which of CONTESTED a ruling on the card laid last is."""
    if ruling is None:
        return "none laid"
    if ruling.verdict is None:
        return "not judged"
    if not ruling.verdict.legal:
        return "illegal"
    return "legal as far as read" if ruling.doubted else "legal"


def _frame_shift(read: dict, truth: dict) -> str | None:
    """How the maze frame lies off the true one, when a frame shifted by a cell or two, or
    turned half a turn (the goals unseen, the maze's shape misleading), puts more read cards
    on their true cards than the frame read: such a frame names every card wrongly."""
    def matches(turn, dx, dy):
        return sum(1 for (x, y), c in read.items() if (t := truth.get((turn * x + dx, turn * y + dy)))
                   and same_card(c.face, (c.rotation + (0 if turn == 1 else 180)) % 360, t.face, t.rotation))
    score = {(turn, dx, dy): matches(turn, dx, dy) for turn in (1, -1) for dx in range(-2, 3) for dy in range(-2, 3)}
    turn, dx, dy = best = max(score, key=score.get)
    if score[best] <= score[(1, 0, 0)]:
        return None
    return ("turned half a turn" + (f" and shifted by {(dx, dy)} cells" if (dx, dy) != (0, 0) else "")
            if turn == -1 else f"shifted by {(dx, dy)} cells")


def scenes(count: int, diagnose: bool = False, only: list[int] | None = None, model=DEFAULT_MODEL,
           printed: PrintedDeck | None = None, options: SceneOptions = SceneOptions(),
           size: tuple[int, int] = (1920, 1080), sheet_photos: int = 0, draw: int = 0, from_photo: int = 0,
           style: CardStyle | None = None, deck: DeckCalibration | None = None) -> dict:
    # as `tunnelvision check` reads a photo: OpenCV on its default threads (videos() sets one
    # before the next deck's photos run), the classifier on one
    cv2.setNumThreads(-1)
    started = time.perf_counter()
    indices = only or list(range(from_photo, from_photo + count))
    first = table_scene(np.random.default_rng(SEED + indices[0]), size=size, printed=printed, options=options,
                        style=style)
    cold_start = time.perf_counter()
    pipeline = Pipeline(_classifier(model, deck), draw=draw)
    pipeline.observe(first.image)
    cold_ms = (time.perf_counter() - cold_start) * 1e3
    cards = right = wrong = abstained = boards_right = boards_right_seen = extra = failed = framed_off = 0
    # the photos read straightened (no maze found, or read weakly, as taken), and what they
    # add to the tallies
    straightened = dict.fromkeys(("photos", "right", "in_view_right", "wrong", "where_none_lies",
                                  "boards_right_as_far_as_seen", "framed_off"), 0)
    readable = readable_right = readable_wrong = hidden = hidden_read = 0
    guessed = guessed_off = 0  # photos read with their direction judged from the maze's shape, and of those framed off
    accusing = accused = 0  # photos whose report accuses a card, and those cards (every maze is legal)
    contested = Counter()  # what `check --contested` answers on the card laid last (it is legal)
    cut_off = Counter()  # cards a rockfall cut off from the start, and those `check` lists so
    told = Counter()  # photos read with a warning about the picture, by PICTURE_WARNINGS
    photo_ms = []
    for k in indices:
        scene = first if k == indices[0] else table_scene(np.random.default_rng(SEED + k), size=size,
                                                          printed=printed, options=options, style=style)
        if sheet_photos:
            # the fixed camera calibrated as a player would: the sheet photographed where
            # SHEET_SPOTS say, through the scene's camera and lens
            sheet_rng = np.random.default_rng(SEED + 50_000 + k)
            photos = [marker_sheet_photo(sheet_rng, scene.camera, at, options) for at in SHEET_SPOTS[-sheet_photos:]]
            try:
                pipeline.calibration = calibrate_table(photos)
            except CalibrationError as exc:
                pipeline.calibration = None
                print(f"photo {k}: the table calibration failed, read without it: {exc}", file=sys.stderr)
            else:
                pipeline.calibration.lens.undistort(scene.image)  # the lens's maps, made once per camera
        observation = pipeline.observe(scene.image)
        before = (right, abstained, wrong, extra)
        tallied = (0, right, readable_right, wrong, extra, boards_right_seen, framed_off)
        photo_ms.append(observation.ms)
        seen = {c for c, t in scene.cells.items() if t.visible > 0.95 and c not in scene.occluded}
        readable += len(seen)
        hidden += len(scene.cells) - len(seen)
        if observation.error:
            failed += 1
            cards += len(scene.cells)
            abstained += len(scene.cells)
            if diagnose:
                print(f"photo {k}: {len(scene.cells)} cards, {observation.error}", file=sys.stderr)
            continue
        read = {c.cell: c for c in observation.cards}
        board_ok = seen_ok = True
        unread_in_view = 0
        for cell, truth in scene.cells.items():
            cards += 1
            card = read.get(cell)
            ok = card is not None and same_card(card.face, card.rotation, truth.face, truth.rotation)
            if cell in seen:
                readable_right += ok
                readable_wrong += card is not None and not ok
            else:
                hidden_read += card is not None and not ok
            if ok:
                right += 1
            elif card is None:
                abstained += 1
                board_ok = False
                seen_ok = seen_ok and cell not in seen
                unread_in_view += cell in seen
            else:
                wrong += 1
                board_ok = seen_ok = False
        spurious = [c for c in read if c not in scene.cells]
        extra += len(spurious)
        boards_right += board_ok and not spurious
        boards_right_seen += seen_ok and not spurious
        shift = _frame_shift(read, scene.cells)
        framed_off += shift is not None
        if DIRECTION_GUESSED in observation.warnings:
            guessed += 1
            guessed_off += shift is not None
        # what `tunnelvision check` says of the maze: every bench maze grew by legal moves, so
        # each card it says breaks a rule is accused wrongly, and so is each card it says is cut
        # off from the start that no rockfall cut off (with --rockfalls, the others are right)
        cut = maze_report(scene.board)
        problems = maze_report(observation.board(), [u.cell for u in observation.uncertain])
        wrongly = [c for c, reasons in problems.items() if c not in cut or breaks_a_rule(reasons)]
        accusing += bool(wrongly)
        accused += len(wrongly)
        cut_off["cards"] += len(cut)
        cut_off["listed"] += sum(c in problems and c not in wrongly for c in cut)
        # the card laid last, when the last move laid one (not a rockfall)
        last_laid = scene.laid and (not scene.rockfalls or scene.laid[-1].cell == scene.rockfalls[-1])
        ruling = rule_on(observation, scene.laid[-1].cell) if last_laid else None
        answered = ruled_as(ruling)
        contested[answered] += 1
        contested["not judged, in view"] += answered == "not judged" and scene.laid[-1].cell in seen
        warned = [name for name, warning in PICTURE_WARNINGS.items() if warning in observation.warnings]
        told.update(warned)
        if STRAIGHTENED in observation.warnings:
            now = (1, right, readable_right, wrong, extra, boards_right_seen, framed_off)
            straightened = {key: total + a - b for (key, total), a, b in zip(straightened.items(), now, tallied)}
        if diagnose:
            r, a, w, x = (now - then for now, then in zip((right, abstained, wrong, extra), before))
            print(f"photo {k}: {len(scene.cells)} cards, {r} right, {a} abstained ({unread_in_view} in view), "
                  f"{w} wrong, {x} read where none lies, {observation.ms:.0f} ms"
                  + (f", frame {shift}" if shift else "")
                  + (f", {len(wrongly)} cards accused" if wrongly else "")
                  + (f", the card laid last {answered}" if answered not in ("legal", "none laid") else "")
                  + (", read straightened" if STRAIGHTENED in observation.warnings else "")
                  + (", direction guessed" if DIRECTION_GUESSED in observation.warnings else "")
                  + "".join(f", {name}" for name in warned), file=sys.stderr)
    count = len(indices)
    return {
        "scenes": count, "cards": cards,
        "per_card_accuracy": round(right / cards, 5),
        # cards wholly in view and under no hand: what a photo can show
        "readable_cards": readable, "readable_accuracy": round(readable_right / max(readable, 1), 5),
        "readable_wrong": readable_wrong,
        # cards under a hand or partly out of the frame, read as a wrong card (not abstained)
        "hidden_cards": hidden, "hidden_read_wrongly": hidden_read,
        "abstained": round(abstained / cards, 5),
        "wrong_readings": wrong, "cards_read_where_none_lies": extra,
        "boards_fully_right": round(boards_right / count, 4),
        # every card the photo can show read right, no card read wrongly or where none lies;
        # a card under a hand or out of the frame reported uncertain (it cannot be read)
        "boards_right_as_far_as_seen": round(boards_right_seen / count, 4),
        "photos_without_a_maze_found": failed,
        # the maze anchored a cell or two off, or turned half a turn: every card it reads is named wrongly
        "photos_framed_off": framed_off,
        # the photos with no maze found, or read weakly, as taken, read straightened as from a wide
        # lens: how many, and what they add to the figures (their cards read right, in view too...)
        "read_straightened": straightened,
        # the photos whose direction the maze's shape alone judged (no goal card read; they
        # carry a warning), and how many of them were framed off
        "direction_guessed": {"photos": guessed, "framed_off": guessed_off},
        "warned": {name: told[name] for name in PICTURE_WARNINGS},
        # photos whose report says a card breaks a rule, or is cut off from the start where no
        # rockfall cut it off, and the cards it says so of: all wrongly (a card read wrongly,
        # or a way back to the start taken for bare table)
        "photos_accusing_a_card": accusing, "cards_accused": accused,
        # what `check --contested` says of the card laid last, legal in every maze: "illegal"
        # is a wrong answer to the dispute; "not judged" when it could not be read surely (and
        # of those, the cards wholly in view and under no hand)
        "card_laid_last": {answer: contested[answer] for answer in (*CONTESTED, "not judged, in view")},
        # with --rockfalls: the cards cut off from the start, and those the report lists so
        # (the others given the doubt of a cell not read, or read wrongly)
        "cut_off_by_rockfalls": {"cards": cut_off["cards"], "listed": cut_off["listed"]},
        "cold_single_photo_ms": round(cold_ms, 1),
        "photo_ms_median": round(float(np.median(photo_ms)), 1),
        "photo_ms_p90": round(float(np.percentile(photo_ms, 90)), 1),
        "photo_ms_max": round(float(np.max(photo_ms)), 1),
        "minutes": round((time.perf_counter() - started) / 60, 1),
    }


@dataclass
class MisregisteredPipeline(Pipeline):
    """The pipeline reading every cell (and confirming every card) from a lattice moved
    ``up_px`` pixels up the frame from where it was fitted or tracked: where a tracked lattice
    settles a little off the cards, or a lens bends them off it. (It overrides the one
    private method every cell's reading goes through: a stress test, not a product option.)"""

    up_px: float = 0.0

    def moved(self, lattice: Lattice) -> Lattice:
        shift = np.array([[1, 0, 0], [0, 1, -self.up_px], [0, 0, 1]])
        return replace(lattice, image_from_maze=shift @ lattice.image_from_maze)

    def _read(self, frame, lattice):
        return super()._read(frame, self.moved(lattice))

    def confirmed(self, step: Step, cards):
        return super().confirmed(replace(step, lattice=step.lattice and self.moved(step.lattice)), cards)


def videos(count: int, fps: float = 10.0, model=DEFAULT_MODEL, printed: PrintedDeck | None = None,
           options: SceneOptions = SceneOptions(), misregister_px: float = 0.0, diagnose: bool = False,
           rockfalls: int = 0, style: CardStyle | None = None, deck: DeckCalibration | None = None) -> dict:
    cv2.setNumThreads(1)
    wrong_commits = commits = placements_expected = removals_expected = removals_committed = frames = 0
    # every card a film lays is legal: a placement committed right but judged illegal is a
    # player accused wrongly; one judged legal only by the doubt given to cells not read is counted too
    accused = given_the_doubt = 0
    held = {"right": 0, "wrong": 0, "missing": 0, "boards_right": 0}
    steady: list[float] = []
    confirmations: list[float] = []  # ms each, as the tracker asked
    stages: dict[str, list[float]] = {}
    for k in range(count):
        video = table_video(np.random.default_rng(SEED + 10_000 + k), size=(1920, 1080), still_frames=12,
                            printed=printed, options=options, rockfalls=rockfalls, style=style)
        classifier = _classifier(model, deck)
        pipeline = (MisregisteredPipeline(classifier, up_px=misregister_px) if misregister_px
                    else Pipeline(classifier))
        tracker = MazeTracker()
        placements_expected += len(video.placements)
        removals_expected += len(video.rockfalls)
        # a move is right once, where the film makes it; a card of the first view announced
        # as laid is a move nobody made
        moves = Counter([("placed", p.cell) for p in video.placements] + [("removed", c) for c in video.rockfalls])
        for i, frame in enumerate(video.frames):
            started = time.perf_counter()
            step = pipeline.step(frame.image)
            stepped = time.perf_counter()
            events = tracker.update(step.observation, step.empty, i / fps, step.busy,
                                    confirm=partial(_timed, confirmations, pipeline.confirmed, step))
            if i >= 3:  # after the first fit: the steady state, the tracker's confirmations included
                steady.append(time.perf_counter() - started)
                for stage, ms in pipeline.timings.items():
                    stages.setdefault(stage, []).append(ms)
                stages.setdefault("track", []).append((time.perf_counter() - stepped) * 1e3)
            frames += 1
            for event in events:
                if event.kind not in ("placed", "removed", "changed"):
                    continue
                commits += 1
                truth = frame.cells.get(event.cell)
                # a removal is right where the film took a card away (committed, maybe, only
                # with the card laid in its hole after: the table did not hold still between)
                ok = moves[(event.kind, event.cell)] > 0 and (
                    event.kind == "removed" or truth is not None
                    and same_card(event.placement.face, event.placement.rotation, truth.face, truth.rotation))
                moves[(event.kind, event.cell)] -= moves[(event.kind, event.cell)] > 0
                removals_committed += ok and event.kind == "removed"
                wrong_commits += not ok
                laid_right = ok and event.kind == "placed"
                accused += laid_right and not event.verdict.legal
                given_the_doubt += laid_right and event.as_far_as_seen
                if diagnose and not ok:
                    print(f"film {k} frame {i}: wrong commit, {event.kind} {event.cell} "
                          f"{event.placement and (event.placement.face, event.placement.rotation)}, on the table "
                          f"{truth and (truth.face, truth.rotation)}", file=sys.stderr)
                elif diagnose and laid_right and not event.verdict.legal:
                    print(f"film {k} frame {i}: a legal card judged illegal: {event.text}", file=sys.stderr)
        board = _held_against(tracker, video.frames[-1].cells)
        for key, n in board.items():
            held[key] += n
        held["boards_right"] += not board["wrong"] and not board["missing"]
    return {
        "videos": count, "frames": frames, "placements_filmed": placements_expected,
        "rockfalls_filmed": removals_expected, "rockfalls_committed": removals_committed,
        "commits": commits, "wrong_commits": wrong_commits,
        "right_commits_judged_illegal": accused, "right_commits_judged_as_far_as_seen": given_the_doubt,
        "held_at_end": held,
        "fps_one_core_1080p": round(1 / float(np.median(steady)), 1),
        # a still view keeps its judged lattice: the frames in which something moved cost more
        "frame_ms_p90": round(float(np.percentile(steady, 90)) * 1e3, 1),
        "stage_ms_median": {stage: round(float(np.median(v)), 2) for stage, v in stages.items()},
        # a card about to be committed read again about its cell, on the frames that ask
        "confirm_ms_median": round(float(np.median(confirmations)), 2) if confirmations else None,
    }


def _classifier(model, deck: DeckCalibration | None) -> Classifier:
    """The classifier on one thread, blended with the deck calibration's prototypes when given."""
    classifier = Classifier(model, threads=1)
    if deck is not None:
        classifier.prototypes = deck.prototypes(classifier)
    return classifier


def _timed(times: list[float], function, *args):
    started = time.perf_counter()
    out = function(*args)
    times.append((time.perf_counter() - started) * 1e3)
    return out


def _held_against(tracker: MazeTracker, truth: dict) -> dict[str, int]:
    """The tracker's board against the cards on the table: right, wrong (a card held that
    is not so, or none lies there) and missing (a card in view, none held; a card mostly out
    of the frame is no camera's to see)."""
    board = {p.cell: p for p in tracker.board.placements()} if tracker.board is not None else {}
    right = sum(1 for cell, p in board.items() if (t := truth.get(cell)) is not None
                and same_card(p.face, p.rotation, t.face, t.rotation))
    in_view = {cell for cell, t in truth.items() if t.visible > 0.95}
    return {"right": right, "wrong": len(board) - right, "missing": len(in_view - set(board))}


def _report(p: dict | None, v: dict | None, title: str) -> None:
    print(f"{title}:")
    if p is not None:
        print(f"  {p['scenes']} photos, {p['cards']} cards: per-card accuracy {p['per_card_accuracy']:.3%}, "
              f"abstained {p['abstained']:.2%}, wrong readings {p['wrong_readings']}, "
              f"cards read where none lies {p['cards_read_where_none_lies']}")
        print(f"  cards wholly in view and under no hand: {p['readable_cards']}, {p['readable_accuracy']:.3%} "
              f"right, {p['readable_wrong']} read wrongly; of the {p['hidden_cards']} others, "
              f"{p['hidden_read_wrongly']} read wrongly")
        print(f"  boards fully right {p['boards_fully_right']:.1%}, right as far as the photo shows them "
              f"{p['boards_right_as_far_as_seen']:.1%}; no maze found in {p['photos_without_a_maze_found']}, "
              f"framed off (a cell or more, or half a turn) in {p['photos_framed_off']}")
        s = p["read_straightened"]
        if s["photos"]:
            print(f"  of these, {s['photos']} photos with no maze found, or read weakly, as taken were read "
                  f"straightened as from a wide lens: {s['right']} cards right ({s['in_view_right']} in view), "
                  f"{s['wrong']} wrongly, {s['where_none_lies']} where none lies; "
                  f"{s['boards_right_as_far_as_seen']} boards right as far as seen, {s['framed_off']} framed off")
        print(f"  photos whose report accuses a card wrongly (says it breaks a rule, or is cut off from the start "
              f"where no rockfall cut it off): {p['photos_accusing_a_card']}, {p['cards_accused']} cards")
        if p["cut_off_by_rockfalls"]["cards"]:
            print(f"  cards a rockfall cut off from the start: {p['cut_off_by_rockfalls']['cards']}, listed so by the "
                  f"report {p['cut_off_by_rockfalls']['listed']}")
        c = p["card_laid_last"]
        print(f"  the card laid last, contested (it is legal): judged legal {c['legal']}, legal as far as the cells "
              f"read show {c['legal as far as read']}, illegal {c['illegal']}, not judged {c['not judged']} "
              f"({c['not judged, in view']} of them wholly in view and under no hand)")
        g = p["direction_guessed"]
        if g["photos"]:
            print(f"  {g['photos']} photos read with a warning that no goal card was read and the maze's direction "
                  f"was judged from its shape: {g['framed_off']} of them framed off")
        print(f"  cold single photo {p['cold_single_photo_ms']:.0f} ms; photos: median {p['photo_ms_median']:.0f} ms, "
              f"90th percentile {p['photo_ms_p90']:.0f} ms, slowest {p['photo_ms_max']:.0f} ms")
    if v is None:
        return
    print(f"  {v['videos']} filmed games, {v['frames']} frames, {v['placements_filmed']} placements"
          + (f" and {v['rockfalls_filmed']} rockfalls ({v['rockfalls_committed']} committed)"
             if v["rockfalls_filmed"] else "") + ": "
          f"{v['commits']} commits, {v['wrong_commits']} wrong; of the right ones, "
          f"{v['right_commits_judged_illegal']} judged illegal (every card laid is legal), "
          f"{v['right_commits_judged_as_far_as_seen']} judged as far as the cells read show")
    h = v["held_at_end"]
    print(f"  the boards held at the films' ends: {h['boards_right']} of {v['videos']} right; {h['right']} cards "
          f"held right, {h['wrong']} wrongly, {h['missing']} in view not held")
    print(f"  steady state at 1080p on one core: {v['fps_one_core_1080p']} frames per second "
          f"(90th percentile frame {v['frame_ms_p90']} ms); "
          + ", ".join(f"{k} {ms} ms" for k, ms in v["stage_ms_median"].items())
          + (f"; a card confirmed before it is committed {v['confirm_ms_median']} ms" if v["confirm_ms_median"] else ""))


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is no size: give WIDTHxHEIGHT, e.g. 1280x720") from None
    if not (320 <= width <= 8000 and 240 <= height <= 8000):
        raise argparse.ArgumentTypeError(f"{text!r}: photos from 320x240 to 8000x8000")
    return width, height


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=200)
    parser.add_argument("--videos", type=int, default=30)
    parser.add_argument("--first", type=int, default=0, metavar="K",
                        help="the photos from number K on (default 0: the bench's own 200); photos from 1000 on "
                             "had not been looked into while the pipeline was mended, until Session 49")
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--scans", help="also lay the tables out of a printed deck: a folder of card scans "
                                        "with a manifest.json (the base game's faces)")
    parser.add_argument("--lens", type=float, default=SceneOptions.barrel,
                        help="the photos' and films' barrel lens: a frame corner moved by up to this share of the "
                             f"half diagonal (default {SceneOptions.barrel}, a mild lens; wide webcam lenses reach 0.1)")
    parser.add_argument("--light", choices=LIGHTS, default="right",
                        help="the camera's exposure and white balance (default right): a dim room (0.4 as bright, "
                             "the sensor's noise as before), an exposure set for a darker table (1.3 as bright, "
                             "the cards' white clipping), a warm lamp with the white balance locked for "
                             "daylight, or daylight with it locked for a lamp")
    parser.add_argument("--defocus", type=float, default=None, metavar="PX",
                        help="the camera's lens out of focus: a Gaussian blur of this many pixels (sigma) on every "
                             f"photo and film (default the scenes' own, {SceneOptions.blur_px[0]} to "
                             f"{SceneOptions.blur_px[1]})")
    parser.add_argument("--size", type=_size, default=(1920, 1080),
                        help="the photos' size, WIDTHxHEIGHT (default 1920x1080; the films stay 1080p)")
    parser.add_argument("--sheet-photos", type=int, default=0, choices=range(len(SHEET_SPOTS) + 1),
                        help="read each photo with a table calibration from this many photos of the marker sheet "
                             "by the photo's camera (1: the plane; 2 or more: the lens too; default 0, markerless)")
    parser.add_argument("--draw", type=int, default=0,
                        help="the photos' vanishing points from another random draw (default 0, as `tunnelvision "
                             "check` reads): how much the readings hinge on it")
    parser.add_argument("--rockfalls", type=int, default=0, metavar="N",
                        help="N rockfalls in every photo's maze (the hole filled again or not) and at every "
                             "film's end (each followed by a card laid in the hole)")
    parser.add_argument("--misregister", type=float, default=0.0, metavar="PX",
                        help="read every cell of the films from a lattice this many pixels up the frame from where "
                             "it was fitted (down when negative; default 0): a stress test of the tracker")
    parser.add_argument("--foreign", action="store_true",
                        help="lay every card in a printing unlike every style trained on, and read the photos and "
                             "films twice: as they come, and with a deck calibration of that printing")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--diagnose", action="store_true",
                        help="one line per photo, and one per wrong commit of a film, on stderr")
    parser.add_argument("--photo", type=int, action="append", help="run only this photo (repeatable)")
    args = parser.parse_args()
    if min(args.scenes, args.videos, args.draw, args.first) < 0:
        parser.error("--scenes and --videos count photos and films, --draw numbers a draw and --first a photo: "
                     "0 or more")
    if abs(args.misregister) > 100:
        parser.error("--misregister moves the lattice by pixels of a 1080p frame: -100 to 100")
    if not 0 <= args.lens <= 0.3:
        parser.error("--lens is a share of the half diagonal a corner moves by: 0 to 0.3")
    if args.foreign and args.scans:
        parser.error("--foreign draws every card in another printing, --scans lays them out of the scans: one or the other")
    try:
        printed = PrintedDeck.load(args.scans) if args.scans else None
    except PrintedDeckError as exc:
        print(f"bench/vision.py: {exc}", file=sys.stderr)
        return 2
    options = SceneOptions(barrel=args.lens, camera_gains=LIGHTS[args.light], rockfalls=args.rockfalls)
    if args.defocus is not None:
        options = replace(options, blur_px=(args.defocus, args.defocus))
    # each run: the printed deck laid, the printing the cards are drawn in, the deck calibration read with
    runs = {"drawn": (None, None, None)} | ({"printed": (printed, None, None)} if printed else {})
    if args.foreign:
        # the player's photos of the deck sheets, their cards laid on them by hand
        sheets = deck_sheet_photos(FOREIGN_EDITION, np.random.default_rng(SEED + 90_000))
        deck = calibrate(Classifier(args.model, threads=1), sheets)
        runs = {"foreign": (None, FOREIGN_EDITION, None), "foreign, deck calibrated": (None, FOREIGN_EDITION, deck)}
    figures = {}
    for name, (laid, style, deck) in runs.items():
        if args.diagnose and len(runs) > 1:
            print(f"-- {name} cards", file=sys.stderr)
        figures[name] = {}
        if args.scenes or args.photo:
            figures[name]["photos"] = scenes(args.scenes, args.diagnose, args.photo, args.model, laid, options,
                                             args.size, args.sheet_photos, args.draw, args.first, style, deck)
        if args.videos:
            figures[name]["video"] = videos(args.videos, model=args.model, printed=laid, options=options,
                                             misregister_px=args.misregister, diagnose=args.diagnose,
                                             rockfalls=args.rockfalls, style=style, deck=deck)
    if args.json:
        print(json.dumps(figures | {"versions": library_versions()}))
        return 0
    titles = {"drawn": "drawn cards", "printed": "the printed deck's scans", "foreign": "a foreign printing",
              "foreign, deck calibrated": "a foreign printing, read with a deck calibration of it"}
    for name, f in figures.items():
        _report(f.get("photos"), f.get("video"), titles[name])
    print(f"measured with {versions_text()}")  # the figures move a little with OpenCV's version
    return 0


if __name__ == "__main__":
    sys.exit(main())
