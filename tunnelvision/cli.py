"""The ``tunnelvision`` command: argument parsing and dispatch, nothing else.

Each subcommand lives with its area (``tunnelvision.rules_cli`` for the engine, ...), and is
imported only when used, so ``tunnelvision rules check`` starts without loading OpenCV.
Errors a user can act on end as one sentence on stderr and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import re
import sys

from engine.options import OPTION_HELP

from . import versions_text
from .errors import UserError


def cell_named(text: str) -> tuple[int, int]:
    """A maze cell written as the check map labels it: ``X,Y`` (or ``(X,Y)``)."""
    try:
        x, y = (int(part) for part in text.strip().strip("()").split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a cell: write X,Y, as 3,-1") from None
    return x, y


def _cells_attached(argv: list[str]) -> list[str]:
    """``--contested -1,2`` read as ``--contested=-1,2``: argparse takes a value starting
    with a minus for an option of its own, and a cell west or south of the start has one."""
    argv = list(argv)
    for i, arg in enumerate(argv[:-1]):
        if arg == "--contested" and re.fullmatch(r"\(?-\d+,-?\d+\)?", argv[i + 1]):
            argv[i:i + 2] = [f"{arg}={argv[i + 1]}"]
    return argv


class _PrintVersions(argparse.Action):
    """``--version`` on one line (argparse's own wraps it at the terminal's width)."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(versions_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tunnelvision",
        description="A camera companion for Saboteur: judges placements, keeps secrets, scores rounds.",
    )
    parser.add_argument("--version", action=_PrintVersions, help="print the version, and those of the libraries "
                        "that decide what it reads, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    rules = sub.add_parser("rules", help="the rules engine on its own")
    rules_sub = rules.add_subparsers(dest="rules_command", metavar="SUBCOMMAND")
    rules_sub.required = True
    check = rules_sub.add_parser(
        "check", help="judge placements given as JSON Lines (see shared conformance format)",
        description="Reads JSON Lines, each {\"board\": [...], \"hidden_goals\": [...], \"placement\": {...}} "
                    "and optionally \"player\": {\"broken\": [tools], \"trapped\": bool}; answers each line.")
    check.add_argument("file", nargs="?", default="-", help="a .jsonl file, or - for standard input (default)")
    check.add_argument("--json", action="store_true", help="answer each line with one JSON object")
    rules_demo = rules_sub.add_parser("demo", help="computer players play a whole game in the terminal, judged by the engine")
    rules_demo.add_argument("--game", choices=["saboteur", "saboteur2"], default="saboteur")
    rules_demo.add_argument("--players", type=int, default=5)
    rules_demo.add_argument("--options", default="", help="comma-separated rule options (see: tunnelvision rules options)")
    rules_demo.add_argument("--seed", type=int, default=7)
    rules_demo.add_argument("--quiet", action="store_true", help="print round summaries only")
    rules_sub.add_parser("options", help="list the rule options")
    cards = rules_sub.add_parser("cards", help="list the card catalogue")
    cards.add_argument("--json", action="store_true", help="print the catalogue entries as JSON")

    classify = sub.add_parser("classify", help="read the card in photos of single maze cells",
                              description="Each image is a roughly rectified photo of one card cell (portrait, "
                                          "either rotation, some table or neighbouring card in the margin).")
    classify.add_argument("images", nargs="+", metavar="IMAGE")
    classify.add_argument("--json", action="store_true", help="one JSON line per image, in the order given")
    classify.add_argument("--model", help="an ONNX model (default: the shipped one)")
    classify.add_argument("--threads", type=int, default=1)
    classify.add_argument("--deck", help="a deck calibration file from calibrate-deck")

    check = sub.add_parser("check", help="read the maze in photos and judge it",
                           description="Prints the maze, each card's tunnels, what breaks the rules and which "
                                       "goals are reached; with --json one Observation per photo, per line.")
    check.add_argument("photos", nargs="+", metavar="PHOTO")
    check.add_argument("--contested", type=cell_named, metavar="X,Y",
                       help="the cell of the card laid last, as the map names it: that card is judged as the "
                            "move it was")
    watch = sub.add_parser("watch", help="print the events of a live table as they happen",
                           description="SOURCE: a webcam index (0), a video file, a photo or folder of photos, "
                                       "or an MJPEG URL (http://phone:8080/video).")
    watch.add_argument("source", metavar="SOURCE")
    watch.add_argument("--hold", type=float, default=0.8, help="seconds a change must hold still (default 0.8)")
    for command in (check, watch):
        command.add_argument("--json", action="store_true")
        command.add_argument("--game", choices=["saboteur", "saboteur2"], default="saboteur")
        command.add_argument("--deck", help="a deck calibration file from calibrate-deck")
        command.add_argument("--calibration", help="a table calibration file (fixed camera with the marker sheet)")
        command.add_argument("--model", help="an ONNX model (default: the shipped one)")

    deck = sub.add_parser("calibrate-deck", help="adapt recognition to your own printing of the cards")
    deck.add_argument("photos", nargs="*", metavar="PHOTO", help="photos of the deck sheets with your cards on them")
    deck.add_argument("--sheets", metavar="DIR", help="write the printable deck sheets (PNG and PDF) here and stop")
    deck.add_argument("--out", default="deck-calibration.json", help="where to write the calibration")
    deck.add_argument("--game", choices=["saboteur", "saboteur2"], default="saboteur",
                      help="which faces the sheets cover (saboteur2 adds the expansion's)")
    deck.add_argument("--model", help="an ONNX model (default: the shipped one)")

    table = sub.add_parser("calibrate-table", help="fit a fixed camera to the table from photos of the marker sheet")
    table.add_argument("photos", metavar="PHOTO", nargs="+",
                       help="one photo, or several with the sheet moved between them (the corners of the view and "
                            "its middle, the last where it stays) to measure the lens too")
    table.add_argument("--out", default="table-calibration.json", help="where to write the calibration")

    marker = sub.add_parser("markers", help="write the printable ArUco table-calibration sheet (PNG and PDF)")
    marker.add_argument("--out", default=".", metavar="DIR")

    from companion_web.serve import add_arguments as add_serve_arguments

    add_serve_arguments(sub.add_parser("serve", help="run the web companion: table screen and phones"))

    from companion_web.demo import add_demo_arguments

    add_demo_arguments(sub.add_parser("demo", help="the companion on a simulated table: no webcam needed"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_cells_attached(sys.argv[1:] if argv is None else argv))
    try:
        if args.command == "rules":
            from . import rules_cli

            if args.rules_command == "check":
                return rules_cli.check(args.file, as_json=args.json)
            if args.rules_command == "demo":
                return rules_cli.demo(game=args.game, players=args.players, options=args.options,
                                      seed=args.seed, quiet=args.quiet)
            if args.rules_command == "options":
                for name, text in OPTION_HELP.items():
                    print(f"{name:24s} {text}")
                return 0
            return rules_cli.cards(as_json=args.json)
        if args.command == "classify":
            from . import vision_cli

            return vision_cli.classify(args.images, as_json=args.json, model=args.model, threads=args.threads,
                                       deck=args.deck)
        if args.command == "check":
            from . import vision_cli

            return vision_cli.check(args.photos, as_json=args.json, model=args.model, game=args.game,
                                    deck=args.deck, calibration=args.calibration, contested=args.contested)
        if args.command == "watch":
            from . import vision_cli

            return vision_cli.watch(args.source, as_json=args.json, model=args.model, game=args.game,
                                    deck=args.deck, calibration=args.calibration, hold=args.hold)
        if args.command == "calibrate-deck":
            from . import calibration_cli

            return calibration_cli.calibrate_deck(args.photos, out=args.out, game=args.game, sheets=args.sheets,
                                                  model=args.model)
        if args.command == "calibrate-table":
            from . import calibration_cli

            return calibration_cli.calibrate_table(args.photos, out=args.out)
        if args.command == "markers":
            from . import calibration_cli

            return calibration_cli.markers(args.out)
        if args.command == "serve":
            from companion_web.serve import run_from_args

            return run_from_args(args)
        if args.command == "demo":
            from companion_web.demo import run_demo_from_args

            return run_demo_from_args(args)
    except UserError as exc:
        print(f"tunnelvision: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
