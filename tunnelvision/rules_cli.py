"""Command-line front of the rules engine: ``rules check``, ``rules cards`` and the text demo."""

from __future__ import annotations

import json
import random
import sys
from typing import IO, Iterable

from engine.board import Board, BoardError, placement_from_dict
from engine.catalogue import TOOLS, CatalogueError, default_catalogue
from engine.drawing import LEGEND, draw_board
from engine.game import Game, MoveError
from engine.options import OptionError, Rules

from .errors import UserError


def judge_line(line: str) -> dict:
    """One conformance-format line to its answer. Raises ValueError with a sentence on bad input."""
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(doc, dict) or "placement" not in doc:
        raise ValueError("expected an object with \"board\", \"hidden_goals\" and \"placement\"")
    player = doc.get("player") or {}
    broken = player.get("broken", [])
    if not isinstance(broken, list) or any(t not in TOOLS for t in broken):
        raise ValueError(f"player.broken lists tools among {', '.join(TOOLS)}")
    try:
        board = Board.from_json(doc)
        placement = placement_from_dict(doc["placement"])
        verdict = board.check(placement, broken_tools=broken, trapped=bool(player.get("trapped", False)))
    except (CatalogueError, BoardError) as exc:
        raise ValueError(str(exc)) from None
    return verdict


def _lines(path: str) -> Iterable[str]:
    if path == "-":
        yield from sys.stdin
        return
    try:
        with open(path, encoding="utf-8") as handle:
            yield from handle
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path}: {exc.__class__.__name__}") from None


def check(path: str, *, as_json: bool, out: IO[str] | None = None) -> int:
    """Answer every line; a bad line gets a one-line error naming it and the rest go on."""
    out = out or sys.stdout
    failures = 0
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        try:
            verdict = judge_line(line)
        except ValueError as exc:
            failures += 1
            message = f"line {number}: {exc}"
            print(f"tunnelvision: {message}", file=sys.stderr)
            if as_json:
                out.write(json.dumps({"line": number, "error": str(exc)}) + "\n")
            continue
        if as_json:
            out.write(json.dumps(verdict.to_dict()) + "\n")
        else:
            out.write(f"line {number}: {verdict}\n")
    return 1 if failures else 0


def cards(*, as_json: bool) -> int:
    catalogue = default_catalogue()
    if as_json:
        for face in catalogue.faces.values():
            print(json.dumps({"id": face.id, "set": face.set, "kind": face.kind, "copies": face.copies,
                              "tunnels": [t.letters for t in face.tunnels], "crystals": face.crystals}))
        for action in catalogue.actions.values():
            print(json.dumps({"id": action.id, "set": action.set, "effect": action.effect,
                              "copies": action.copies, "tools": list(action.tools)}))
        return 0
    print(f"{'id':18s} {'set':10s} {'kind':9s} copies  tunnels (one-edge tunnels are stubs)")
    for face in catalogue.faces.values():
        print(f"{face.id:18s} {face.set:10s} {face.kind:9s} {face.copies:>6d}  "
              + ", ".join(t.letters + (f" ({t.door} door)" if t.door else "") + (" (ladder)" if t.ladder else "")
                          for t in face.tunnels))
    print()
    print(f"{'action':24s} {'set':10s} copies")
    for action in catalogue.actions.values():
        print(f"{action.id:24s} {action.set:10s} {action.copies:>6d}")
    return 0


def demo(*, game: str, players: int, options: str, seed: int, quiet: bool) -> int:
    """A whole game between computer players, every move judged and explained by the engine."""
    from engine.autoplay import choose_move, settle

    try:
        rules = Rules.parse(game, options)
        match = Game(rules, [f"Dwarf {i + 1}" for i in range(players)])
    except (OptionError, MoveError) as exc:
        raise UserError(str(exc)) from None
    rng = random.Random(seed)
    print(f"Tunnel Vision engine demo: {game}, {players} players, seed {seed}"
          + (f", options {', '.join(rules.options())}" if rules.options() else ""))
    while not match.over:
        r = match.start_round(rng)
        print(f"\n=== Round {match.round_number}: {match.names[r.turn]} starts; "
              f"roles (secret at a real table): {', '.join(r.roles)}")
        while not r.ended:
            for event in match.play(choose_move(r, rng), rng):
                if event.private_to is None and (not quiet or event.kind in ("goal-revealed", "round-end")):
                    print(f"  {event.text}")
        print(draw_board(r.board))
        settle(match)
        result = match.results[-1]
        print(f"  winners: {', '.join(match.names[s] for s in result['winners']) or 'nobody'}; "
              f"gold so far: {', '.join(f'{n} {g}' for n, g in zip(match.names, match.totals()))}")
    print(f"\n{LEGEND}\n\nFinal ranking:")
    for row in match.ranking():
        print(f"  {row['rank']}. {row['name']}: {row['gold']} gold")
    return 0
