"""Command-line front of the vision side: ``classify`` (and, as they land, check/watch)."""

from __future__ import annotations

import json
import sys
from functools import partial

from vision.classify import REASON_WORDS, ImageError, ModelError, load_image

from .errors import UserError


def classify(images: list[str], *, as_json: bool, model: str | None, threads: int, deck: str | None) -> int:
    """One reading per image, in the order given; an unreadable image is reported and the rest go on."""
    from vision.pipeline import load_reading_parts

    try:
        classifier, _ = load_reading_parts(model, deck=deck, threads=threads)
    except (ModelError, ValueError) as exc:
        raise UserError(str(exc)) from None
    loaded: list = []
    for path in images:
        try:
            image = load_image(path)
            if image.shape[1] > image.shape[0]:
                # squeezed into the model's portrait input it reads as anything, even surely
                raise ImageError(f"{path} is wider than tall: a maze cell is portrait, so turn the picture upright")
            loaded.append(image)
        except ImageError as exc:
            loaded.append(exc)
    readings = iter(classifier.classify([x for x in loaded if not isinstance(x, ImageError)]))
    failures = 0
    for path, item in zip(images, loaded):
        if isinstance(item, ImageError):
            failures += 1
            print(f"tunnelvision: {item}", file=sys.stderr)
            if as_json:
                print(json.dumps({"image": path, "error": str(item)}))
            continue
        reading = next(readings)
        if as_json:
            print(json.dumps(reading.to_json()))
        else:
            tunnels = ", ".join(reading.card.tunnels) or "none"
            flag = f"  UNCERTAIN: {REASON_WORDS[reading.reason]}" if reading.uncertain else ""
            print(f"{path}: {reading.card.name} (tunnels {tunnels}), confidence {reading.confidence:.3f}{flag}")
    return 1 if failures else 0


def _pipeline(*, model: str | None, game: str, deck: str | None, calibration: str | None, threads: int = 1):
    from vision.pipeline import Pipeline, load_reading_parts

    try:
        classifier, table = load_reading_parts(model, deck=deck, calibration=calibration, threads=threads)
    except (ModelError, ValueError, RuntimeError) as exc:
        raise UserError(str(exc)) from None
    return Pipeline(classifier, game=game, calibration=table)


def describe(observation, path: str, ruling=None) -> str:
    """The plain-words report of one photo: the maze, each card, what is wrong, which goals are
    reached. With the ``Ruling`` on a contested card, that answer comes first, and the rest of
    the maze is judged as it lay before that card was laid."""
    from engine.drawing import draw_board
    from vision.observation import breaks_a_rule, maze_report

    if observation.error:
        return f"{path}: {observation.error}"
    board = observation.board()
    lines = [f"{path}: {len(observation.cards)} cards read, {len(observation.uncertain)} uncertain "
             f"({observation.ms:.0f} ms)", draw_board(board, unread=[u.cell for u in observation.uncertain])]
    for card in sorted(observation.cards, key=lambda c: (c.x, -c.y)):
        shape = board.shape_at(card.cell)
        lines.append(f"  ({card.x},{card.y}) {card.face}{' turned 180°' if card.rotation else ''}: tunnels "
                     f"{', '.join(shape.tunnel_letters) or 'none'} (confidence {card.confidence:.2f})")
    # one line a reason: a maze running out of the photo leaves a score of cells unseen
    by_reason: dict[str, list] = {}
    for u in sorted(observation.uncertain, key=lambda u: (u.x, -u.y)):
        by_reason.setdefault(u.reason, []).append(u)
    for unsure in by_reason.values():
        lines.append(f"  {', '.join(f'({u.x},{u.y})' for u in unsure)} uncertain ({unsure[0].reason}): "
                     f"{unsure[0].words}")
    before, every = board, "Every card"
    if ruling is not None:
        lines.append(ruled(ruling))
        if ruling.verdict is not None:
            # the other cards were laid before it: judged with it there, each one it meets
            # against the rules would be accused with it
            before, every = board.copy(), "Every card laid before it"
            before.remove(ruling.cell)
    unread = [u.cell for u in observation.uncertain]
    problems = maze_report(before, unread)
    broken = {cell: reasons for cell, reasons in problems.items() if breaks_a_rule(reasons)}
    cut_off = {cell: reasons for cell, reasons in problems.items() if cell not in broken}
    if broken:
        lines.append("The maze breaks the rules:" if before is board else "The maze before it broke the rules:")
        lines += _listed(broken)
    elif cut_off:
        lines.append(f"{every} agrees with its neighbours.")
    elif unread:
        lines.append(f"{every} agrees with its neighbours and, as far as the cells read show, connects to the "
                     "start.")
    else:
        lines.append(f"{every} agrees with its neighbours and connects to the start.")
    if cut_off:
        # a rockfall may have taken their way back since they were laid: which card came
        # last, and what was taken away, a photo does not show
        lines.append("Cut off from the start (legal only if a rockfall has cut them off since they were laid):")
        lines += _listed(cut_off)
    reached = board.goals_touched()
    if board.gold_reached:
        lines.append("The gold is reached.")
    lines += [f"A tunnel reaches the face-down goal at ({x},{y}): turn it over." for x, y in reached]
    if not reached and not board.gold_reached:
        lines.append("No tunnel reaches a goal yet.")
    return "\n".join(lines)


def ruled(ruling) -> str:
    """The answer on the contested card, in one sentence."""
    x, y = ruling.cell
    if ruling.verdict is None:
        return f"The card at ({x},{y}) cannot be judged: {ruling.unjudged}."
    p = ruling.verdict.placement
    said = f"The card laid last, {p.face}{' turned 180°' if p.rotation else ''} at ({x},{y}),"
    if not ruling.verdict.legal:
        return f"{said} is illegal: " + "; ".join(r.message for r in ruling.verdict.reasons) + "."
    if ruling.doubted:
        return (f"{said} is legal as far as the cells read show: its way back to the start may run under a cell "
                "not read surely.")
    return f"{said} is legal."


def _listed(problems) -> list[str]:
    return [f"  ({x},{y}): " + "; ".join(r.message for r in reasons) for (x, y), reasons in sorted(problems.items())]


# What a player can do about a photo whose maze could not be read: what the grid needs most
RETAKE = ("take the photo again from above, the maze filling most of it (the phone turned so the maze runs "
          "along the photo's long side), with the start card and the goal cards in view and no hand over them")


def check(photos: list[str], *, as_json: bool, model: str | None, game: str, deck: str | None,
          calibration: str | None, contested: tuple[int, int] | None = None) -> int:
    """One Observation per photo, in order; a photo that is unreadable or shows no maze fails
    alone, as does one on which the ``contested`` card (its cell) cannot be judged."""
    from vision.observation import Observation, rule_on

    pipeline = _pipeline(model=model, game=game, deck=deck, calibration=calibration)
    failures = 0
    for path in photos:
        unreadable = False
        try:
            observation = pipeline.observe(load_image(path))
        except ImageError as exc:
            observation, unreadable = Observation(error=str(exc)), True
        for warning in observation.warnings:
            print(f"tunnelvision: {path}: {warning}", file=sys.stderr)
        if observation.error:
            failures += 1
            print(f"tunnelvision: {path}: {observation.error}", file=sys.stderr)
            if not unreadable:
                print(f"tunnelvision: {RETAKE}", file=sys.stderr)
        ruling = None if observation.error or contested is None else rule_on(observation, contested)
        if ruling is not None and ruling.verdict is None:
            failures += 1
            print(f"tunnelvision: {path}: {ruled(ruling)}", file=sys.stderr)
        if as_json:
            doc = observation.to_json()
            doc["photo"] = path
            if ruling is not None:
                doc["contested"] = ruling.to_dict()
            print(json.dumps(doc), flush=True)
        else:
            print(describe(observation, path, ruling), flush=True)
    return 1 if failures else 0


def watch(source: str, *, as_json: bool, model: str | None, game: str, deck: str | None,
          calibration: str | None, hold: float) -> int:
    """Print the events of a live table (or a video, or a folder of photos) as they are committed."""
    from vision.capture import CaptureError, EndOfStream, open_source
    from vision.track import MazeTracker

    pipeline = _pipeline(model=model, game=game, deck=deck, calibration=calibration)
    tracker = MazeTracker(hold_s=hold)
    try:
        frames = open_source(source)
    except CaptureError as exc:
        raise UserError(str(exc)) from None
    last_error, last_warnings = None, []
    first = None
    per_frame = frames.seconds_per_frame
    announced = False
    with frames:
        while True:
            try:
                frame = frames.read(timeout=5.0)
            except EndOfStream:
                if not announced:  # a few photos, or a short clip: silence would look like a fault
                    print(f"[vision] nothing was announced: the source ended before a maze had held still for "
                          f"{hold:g} s (to settle a placement from one photo, use check)", file=sys.stderr, flush=True)
                return 0
            for event in frames.drain_events():
                print(f"[camera] {event.message}", file=sys.stderr, flush=True)
            if frame is None:
                continue
            first = frame.timestamp if first is None else first
            # a file or a folder is timed in its own time (its events at the moments it shows
            # them, however fast it is read), a live source as its frames were grabbed
            now = frame.index * per_frame if per_frame else frame.timestamp - first
            step = pipeline.step(frame.image)
            if step.note:
                print(f"[vision] {step.note}", file=sys.stderr, flush=True)
            if step.observation.error != last_error:
                last_error = step.observation.error
                if last_error:
                    print(f"[vision] {last_error}", file=sys.stderr, flush=True)
            for warning in step.observation.warnings:
                if warning not in last_warnings:  # said as they arise, not every frame
                    print(f"[vision] {warning}", file=sys.stderr, flush=True)
            last_warnings = step.observation.warnings
            for event in tracker.update(step.observation, step.empty, now, step.busy,
                                        confirm=partial(pipeline.confirmed, step)):
                print(json.dumps(event.to_json()) if as_json else f"{event.time:8.2f}s  {event.text}", flush=True)
                announced = True
