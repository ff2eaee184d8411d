"""The replayable commands of a round, and building engine moves from request bodies.

Everything that changes the engine during a round is one of these JSON commands; the
companion keeps them in ``Tabletop.round_log``. A correction (who placed a card, a misread
cell, undo) edits that log and replays the round from its start, so the engine recomputes
the finisher, the goals and the scoring itself: there are no rules here, only calls.
"""

from __future__ import annotations

import json
import random
import secrets
from typing import Any

from engine.board import Placement
from engine.catalogue import ROTATIONS, TOOLS, Catalogue, CatalogueError
from engine.game import Event, Game, Move, MoveError

from .errors import GameError, bad_request, engine_refused

# What each action card's move needs besides its card (the engine checks everything else).
ACTION_NEEDS: dict[str, tuple[str, ...]] = {
    "break": ("target",),
    "repair": ("target", "tool"),
    "rockfall": ("cell",),
    "map": ("cell",),
    "theft": (),
    "hands-off": ("target",),
    "swap-hats": ("target",),
    "swap-hands": ("target",),
    "trap": ("target",),
    "free": ("target",),
    "inspection": ("target",),
}
# Saboteur 2: what may be cleared from in front of oneself by discarding two cards.
REMOVABLE_OWN = tuple(f"broken-{tool}" for tool in TOOLS) + ("trapped", "theft")
# Commands that move gold between players (after the round has been scored).
GOLD_OPS = ("pick", "steal", "skip-theft")
# A table-mode pass discards a card the engine never sees; this stands for it.
FACE_DOWN = "face-down"


# ------------------------------------------------------------------ applying


def apply(game: Game, command: dict) -> list[Event]:
    """Carry out one round-log command on ``game``. Raises MoveError if the engine refuses."""
    op = command["op"]
    if op == "move":
        # Seeded per command so that a replay draws exactly what the first run drew (swap hats).
        return game.play(Move.from_json(command["move"]), random.Random(command["seed"]))
    if op == "exhausted":
        return game.end_round_exhausted()
    if op == "pick":
        return game.pick_gold(command["seat"], command["index"])
    if op == "steal":
        return game.steal(command["seat"], command["victim"])
    if op == "skip-theft":
        return game.skip_theft(command["seat"])
    if op == "turn":
        if game.round is None:
            raise MoveError("nobody has a turn: the round is over")
        game.round.set_turn(command["seat"])
        return []
    raise ValueError(f"unknown round-log command {op!r}")


def replay(round_start: str, log: list[dict]) -> tuple[Game, list[Event]]:
    """The round replayed from its start. Raises GameError naming the first command that no longer works."""
    game = Game.from_json(json.loads(round_start))
    events: list[Event] = []
    for number, command in enumerate(log, start=1):
        try:
            events += apply(game, command)
        except MoveError as exc:
            raise GameError(409, "error.replay", number=number, text=str(exc)) from None
    return game, events


def run(game: Game, command: dict) -> list[Event]:
    """``apply`` with the engine's refusal turned into a 409 answer."""
    try:
        return apply(game, command)
    except MoveError as exc:
        raise engine_refused(exc, game.names) from None


def move_command(move: Move) -> dict:
    return {"op": "move", "move": move.to_json(), "seed": secrets.randbits(63)}


# ------------------------------------------------------------------ request bodies


def integer(body: dict, key: str, *, low: int | None = None, high: int | None = None) -> int:
    value = body.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise bad_request("error.field-int", field=key)
    if (low is not None and value < low) or (high is not None and value > high):
        raise bad_request("error.field-range", field=key)
    return value


def text(body: dict, key: str, *, max_len: int = 64) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > max_len:
        raise bad_request("error.field-text", field=key)
    return value.strip()


def placement(body: dict, catalogue: Catalogue) -> Placement:
    face = text(body, "face")
    rotation = body.get("rotation", 0)
    if rotation not in ROTATIONS or isinstance(rotation, bool):
        raise bad_request("error.rotation")
    try:
        catalogue.face(face)
    except CatalogueError:
        raise bad_request("error.unknown-card", card=face) from None
    coordinate = {"low": -50, "high": 50}  # far beyond any real maze; keeps the SVG bounded
    return Placement(integer(body, "x", **coordinate), integer(body, "y", **coordinate), face, rotation)


def cell(body: dict) -> tuple[int, int]:
    value = body.get("cell")
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise bad_request("error.cell")
    return value[0], value[1]


def action_move(body: dict, seat: int, players: int, game: Game) -> Move:
    """A recorded action card from a request body: {card, target?, tool?, cell?}."""
    card = text(body, "card")
    try:
        action = game.catalogue.action(card)
    except CatalogueError:
        raise bad_request("error.unknown-card", card=card) from None
    if action.set not in game.rules.sets:
        raise bad_request("error.unknown-card", card=card)
    needs = ACTION_NEEDS.get(action.effect, ())
    fields: dict[str, Any] = {}
    if "target" in needs:
        fields["target"] = integer(body, "target", low=0, high=players - 1)
    if "tool" in needs and len(action.tools) > 1:
        tool = text(body, "tool")
        if tool not in action.tools:
            raise bad_request("error.tool")
        fields["tool"] = tool
    if "cell" in needs:
        fields["cell"] = cell(body)
    return Move(seat, action.effect, card, **fields)


def remove_own_move(body: dict, seat: int) -> Move:
    what = text(body, "card")
    if what not in REMOVABLE_OWN:
        raise bad_request("error.remove-own")
    return Move(seat, "remove", tool=what, discards=(FACE_DOWN, FACE_DOWN))


def pass_move(seat: int) -> Move:
    return Move(seat, "pass", discards=(FACE_DOWN,))
