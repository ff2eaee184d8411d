"""The seam between what is seen on the table and the game: ``TableFeed``.

A feed reports changes on the physical table (a card laid, a card taken away, a goal card
turned over) to a sink the companion connects; the companion attributes a laid card to the
player whose turn it is, asks the engine for its verdict and shows it on every screen. A
feed may also offer a live picture (``frames``, JPEG images) for the table screen.

``ManualFeed`` is the feed without a camera: the host's entries on the table screen are
what it reports. The camera feed (``vision_feed.VisionFeed``) subclasses ``TableFeed``,
runs its own thread from ``start``, turns what the camera commits into changes and reports
them one by one, asking ``table_view`` what the game already holds so that it reports
only what is new; it overrides ``frames`` to stream what the camera sees with the
recognised grid drawn over it, and ``status`` to tell the host how the camera is doing.
"""

from __future__ import annotations

from abc import ABC
from dataclasses import dataclass
from typing import Callable, Iterator, Union

from engine.board import Board, Placement


@dataclass(frozen=True)
class CardPlaced:
    placement: Placement


@dataclass(frozen=True)
class CardRemoved:
    x: int
    y: int


@dataclass(frozen=True)
class GoalTurned:
    x: int
    y: int


FeedChange = Union[CardPlaced, CardRemoved, GoalTurned]


@dataclass(frozen=True)
class FeedOutcome:
    """What the companion made of one change."""

    legal: bool | None  # a laid card: the engine's verdict; None for other changes
    reasons: tuple[tuple[str, str], ...] = ()  # (code, English message) when illegal
    seat: int | None = None  # who the laid card was attributed to


Sink = Callable[[FeedChange], FeedOutcome]


@dataclass(frozen=True)
class TableView:
    """What the game on the table believes lies there: its edition, and while a round is
    being played the public maze (face-down goals without their faces) and the cards it
    refused that still lie on the table."""

    edition: str
    board: Board | None = None  # None between rounds
    contested: tuple[Placement, ...] = ()


@dataclass(frozen=True)
class FeedStatus:
    """How the feed is doing, for the table screen: a state and one sentence."""

    state: str  # manual | starting | searching | watching | reconnecting | ended | failed | stopped
    message: str = ""
    warnings: tuple[str, ...] = ()  # what makes the readings less sure (Observation.warnings)


class FeedNotConnected(RuntimeError):
    pass


class TableFeed(ABC):
    """What is seen on the table, as changes, and optionally as pictures."""

    name = "feed"
    has_video = False  # a feed that overrides ``frames`` says so, and the table screen shows the picture

    def __init__(self) -> None:
        self._sink: Sink | None = None
        self._table: Callable[[], TableView | None] | None = None

    def connect(self, sink: Sink, table: Callable[[], TableView | None] | None = None) -> None:
        """Called once by the companion before ``start``; ``table`` answers ``table_view``."""
        self._sink = sink
        self._table = table

    def table_view(self) -> TableView | None:
        """What the game on the table holds now (None without a game). Safe from any thread."""
        return self._table() if self._table is not None else None

    def start(self) -> None:
        """Begin watching (a camera feed starts its thread here)."""

    def stop(self) -> None:
        """Stop watching and release the source."""

    def report(self, change: FeedChange) -> FeedOutcome:
        """Hand one change to the companion; returns its outcome. Safe to call from any thread.

        Raises ``errors.GameError`` when the game cannot take the change (no round is being
        played, a rockfall on the start card...); the game is then unchanged.
        """
        if self._sink is None:
            raise FeedNotConnected("the feed is not connected to a game")
        return self._sink(change)

    def frames(self) -> Iterator[bytes] | None:
        """JPEG images of the table for a live view, or None when the feed has no picture."""
        return None

    def status(self) -> FeedStatus:
        return FeedStatus("manual")


class ManualFeed(TableFeed):
    """No camera: the host enters each card laid or taken away on the table screen."""

    name = "manual"
