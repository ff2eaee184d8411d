"""One game's whole state at one version, as immutable values.

A ``Snapshot`` is what the store loads and what every view is built from. The engine part
is kept as the JSON text of ``Game.to_json()``: each change parses a fresh ``Game`` from it
(so a rejected change cannot leave a half-changed object behind), and views read a copy
parsed once per version.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cached_property

from engine.catalogue import Catalogue, default_catalogue
from engine.game import Game
from engine.options import Rules

LOBBY, PLAYING, SCORING, BETWEEN, OVER = "lobby", "playing", "scoring", "between", "over"


@dataclass(frozen=True)
class SeatInfo:
    id: int  # the seats row: stable from joining to the end of the game
    slot: int  # position around the table, clockwise; seats are numbered in slot order
    name: str
    # sha256 of the seat's token, so an open stream can tell that its seat was handed to
    # another phone; None while the host has freed the seat for a new phone.
    token_hash: str | None = field(default=None, repr=False)

    @property
    def claimable(self) -> bool:
        return self.token_hash is None


@dataclass(frozen=True)
class LogEntry:
    """A line of the event log: a kind and its parameters, rendered in words per viewer."""

    kind: str
    params: dict = field(default_factory=dict)
    private_to: int | None = None  # a seat number; None: everyone may read it
    id: int = 0  # assigned by the store

    def to_json(self) -> dict:
        return {"kind": self.kind, "params": self.params, "private_to": self.private_to}


@dataclass(frozen=True)
class Contested:
    """A card lying on the table that the engine refused; it stays marked until taken back."""

    x: int
    y: int
    face: str
    rotation: int
    seat: int
    reasons: tuple[tuple[str, str], ...]  # (code, English message) as the engine gave them

    def to_json(self) -> dict:
        return {"x": self.x, "y": self.y, "face": self.face, "rotation": self.rotation, "seat": self.seat,
                "reasons": [list(r) for r in self.reasons]}

    @classmethod
    def from_json(cls, doc: dict) -> Contested:
        return cls(doc["x"], doc["y"], doc["face"], doc["rotation"], doc["seat"],
                   tuple((code, message) for code, message in doc["reasons"]))


@dataclass(frozen=True)
class Tabletop:
    """What the companion keeps beside the engine.

    ``round_start`` and ``round_log`` let the host correct the current round: the round is
    replayed from its start with the corrected log (see ``commands.replay``).
    """

    round_start: str | None = None  # Game.to_json() text right after the round was dealt
    round_log: tuple[dict, ...] = ()  # replayable commands since then (commands.apply)
    contested: tuple[Contested, ...] = ()
    next_game: str | None = None  # the game the host set up after this one

    def to_json(self) -> dict:
        return {"round_start": self.round_start, "round_log": list(self.round_log),
                "contested": [c.to_json() for c in self.contested], "next_game": self.next_game}

    @classmethod
    def from_json(cls, doc: dict) -> Tabletop:
        return cls(doc.get("round_start"), tuple(doc.get("round_log", ())),
                   tuple(Contested.from_json(c) for c in doc.get("contested", ())), doc.get("next_game"))

    def contested_at(self, x: int, y: int) -> Contested | None:
        return next((c for c in self.contested if (c.x, c.y) == (x, y)), None)

    def without_contested(self, x: int, y: int) -> Tabletop:
        return replace(self, contested=tuple(c for c in self.contested if (c.x, c.y) != (x, y)))


@dataclass(frozen=True)
class Snapshot:
    game_id: str
    edition: str
    options: tuple[str, ...]
    version: int
    engine_text: str | None  # Game.to_json() as JSON text; None before the first round
    tabletop: Tabletop
    seats: tuple[SeatInfo, ...]
    log: tuple[LogEntry, ...]  # the newest entries, oldest first
    # Public parts of views computed from this version, shared by all its viewers (views._memo).
    derived: dict = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def rules(self) -> Rules:
        return Rules.parse(self.edition, list(self.options))

    @cached_property
    def game(self) -> Game | None:
        """The engine state, parsed once per version. Read it, never change it."""
        return self.fresh_game() if self.engine_text is not None else None

    def fresh_game(self) -> Game:
        """A private copy of the engine state for a change to work on."""
        return Game.from_json(json.loads(self.engine_text))

    @property
    def catalogue(self) -> Catalogue:
        return self.game.catalogue if self.game is not None else default_catalogue()

    @property
    def phase(self) -> str:
        game = self.game
        if game is None or game.round is None:
            return LOBBY
        if game.over:
            return OVER
        if not game.round.ended:
            return PLAYING
        return BETWEEN if game.settled else SCORING

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def seat_index(self, seat_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.id == seat_id), None)
