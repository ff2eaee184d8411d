"""A stable maze over frames: commit a change only once it has held still long enough.

Per cell the tracker keeps what is committed and what it has been seeing lately. A
different reading becomes a candidate; the candidate is committed when it has been seen
in every frame for ``hold_s`` seconds and at least ``min_frames`` frames, none of them
busy. A busy frame (motion over the maze, a hand, an occluded cell) resets every
candidate, so nothing is ever committed while hands move; something on a cell that is no
maze card holds back the cells round it while it is new and only its own once it has lain
still (a loose card over a cell's corner), and a hand passing does not make it new again;
an uncertain cell keeps its committed content. Because a commit needs a full quiet hold,
a still board never flip-flops. Cards that steady just after the first view belong to it
(read late, they were there all along), unless the first view saw their cell bare: then
they were laid. So does, however late, a card on a cell the first view read as uncertain,
or read but not held still yet, and no view has seen bare since (a card too worn or too
glared at to read until the light changed). A card about to be committed is first
confirmed where the caller can read the frame again (``Pipeline.confirmed``: read from
crops shifted about its cell, since on a still view every frame cuts a card alike, and a
lattice a little off can read a T as a crossroads on all of them); one that does not hold
waits another hold.

Commits become events carrying the engine's verdict: a card placed (judged against the
maze as it was), a card removed (a rockfall), a goal reached by a tunnel, a goal turned
over. A card is not called illegal for lacking a way to the start, or a neighbour, that a
card the tracker does not hold might give it: one of the first view not read yet, one this
frame reads unsurely, or one laid just before and not held still long enough yet
(``vision.observation.given_the_doubt``); its verdict then holds "as far as the cells read
show".

A card laid touches the maze: a new card apart from every card of it (held, read, or of the
first view and not read yet) is a card lying on the table that the lattice lines up with,
and no move.

A card read in place of another is no move either (a card does not change in place: a
misreading, reported as a change for the player to see to), unless its cell was seen bare
in between on ``min_frames`` quiet frames (hands may have passed between them): then a card
was taken away (a rockfall) and another laid in the hole before the table held still for a
hold.

One move touches one card. A quiet view that contradicts several committed cards at once
(gone or read as another face) is no move: the lattice slipped by a cell or turned, or the
maze was rebuilt by hand. Nothing is committed from it; if it holds for ``resync_s`` the
tracker starts over from it as a first view, without verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from engine.board import Board, BoardError, Placement, Verdict
from engine.catalogue import Catalogue, default_catalogue, neighbours

from .observation import MAYBE_EMPTY, Observation, filled_in, given_the_doubt

Cell = tuple[int, int]
Content = tuple[str, int] | None  # (face, rotation), or None for an empty cell
# cards about to be committed (cell -> face, rotation) -> the cells whose card holds
Confirm = Callable[[dict[Cell, tuple[str, int]]], set[Cell]]


@dataclass(frozen=True)
class TrackEvent:
    kind: str  # maze-seen | placed | removed | changed | goal-reached | goal-revealed
    text: str
    cell: Cell | None = None
    placement: Placement | None = None
    verdict: Verdict | None = None
    time: float = 0.0
    as_far_as_seen: bool = False  # the verdict gave a card the doubt for cells not read

    def to_json(self) -> dict:
        out = {"kind": self.kind, "text": self.text, "time": round(self.time, 3)}
        if self.cell is not None:
            out["cell"] = list(self.cell)
        if self.placement is not None:
            out["placement"] = self.placement.to_dict()
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        if self.as_far_as_seen:
            out["as_far_as_seen"] = True
        return out


@dataclass
class _Candidate:
    content: Content
    since: float
    frames: int = 1


@dataclass
class MazeTracker:
    hold_s: float = 0.8
    min_frames: int = 4
    catalogue: Catalogue = field(default_factory=default_catalogue)
    board: Board | None = None  # the committed physical maze; None until the first quiet view
    settle_s: float = 2.0  # after the first view, cards that steady within this long were there all along
    resync_s: float = 5.0
    _candidates: dict[Cell, _Candidate] = field(default_factory=dict)
    _settled_at: float = 0.0
    _seen_empty: set[Cell] = field(default_factory=set)  # cells the first view saw bare
    _unread: set[Cell] = field(default_factory=set)  # cards of the first view not read yet, never seen bare
    _alien_since: dict[Cell, float] = field(default_factory=dict)  # cells read as no maze card, since when
    _at_odds_since: float | None = None  # since when the quiet view contradicts several committed cards
    # cells this frame reads unsurely, or reads a card on that is not held yet
    _unsettled: set[Cell] = field(default_factory=set)
    # committed cards' cells seen bare since, on how many quiet frames (a hand between them
    # does not reset the count; the card read there again does)
    _seen_bare: dict[Cell, int] = field(default_factory=dict)

    def update(self, seen: Observation, empty: set[Cell], now: float, busy: bool,
               confirm: Confirm | None = None) -> list[TrackEvent]:
        """Feed one frame's reading; returns the events committed by it. ``confirm``, when
        given, is asked about the cards about to be committed (cell -> face, rotation) and
        answers the cells whose card it reads so again (``Pipeline.confirmed``); the others
        are not committed, and wait a full hold again."""
        view: dict[Cell, Content] = {c.cell: (c.face, c.rotation) for c in seen.cards}
        view.update({cell: None for cell in empty})
        # a cell read unsurely as bare holds no card read unsurely: no card of the first view
        # to wait for there, no candidate to keep (it let a crossroads misread on a T's
        # frames between such readings hold, and be committed, on a bench film)
        unsure = {u.cell for u in seen.uncertain if u.reason != MAYBE_EMPTY}
        if busy or any(u.reason == "occluded" for u in seen.uncertain):
            self._candidates.clear()
            # what was still new waits again; what had lain still for a hold (a loose card, a
            # misread card) stays settled while a hand passes, or it would hold back its
            # neighbours after every move
            self._alien_since = {c: t for c, t in self._alien_since.items() if now - t >= self.hold_s}
            return []
        read = {c for c, v in view.items() if v is not None}
        # Something that is no maze card on a cell holds back the cells round it while it is
        # new (a hand, fingers over the next cell), and only its own cell once it has lain
        # still for a hold (a loose card over a cell's corner, a card back).
        self._alien_since = {u.cell: self._alien_since.get(u.cell, now)
                             for u in seen.uncertain if u.reason == "not-a-maze-card"}
        if self._alien_since:
            reach = {a: 0 if now - since >= self.hold_s else 1 for a, since in self._alien_since.items()}

            def held_back(c: Cell) -> bool:
                return any(max(abs(c[0] - a[0]), abs(c[1] - a[1])) <= r for a, r in reach.items())

            view = {c: v for c, v in view.items() if not held_back(c)}
            for cell in [c for c in self._candidates if held_back(c)]:
                del self._candidates[cell]
        committed = {} if self.board is None else {p.cell: (p.face, p.rotation) for p in self.board.placements()}
        self._unsettled = unsure | (read - set(committed))
        self._seen_bare = {c: n for c, n in self._seen_bare.items() if c in committed}
        for cell, content in committed.items():
            shown = view.get(cell, ...)  # ...: not read this frame (unsure, held back)
            if shown == content:
                self._seen_bare.pop(cell, None)  # the card read there again: the bare readings were a glitch
            elif shown is None:
                self._seen_bare[cell] = self._seen_bare.get(cell, 0) + 1
        ready: dict[Cell, Content] = {}
        for cell, content in view.items():
            if committed.get(cell) == content:
                self._candidates.pop(cell, None)
                continue
            candidate = self._candidates.get(cell)
            if candidate is None or candidate.content != content:
                self._candidates[cell] = _Candidate(content, now)
                continue
            candidate.frames += 1
            if now - candidate.since >= self.hold_s and candidate.frames >= self.min_frames:
                ready[cell] = content
        # A cell read as uncertain this frame keeps its candidate (neither confirmed nor contradicted);
        # a cell no longer in view at all loses it.
        for cell in [c for c in self._candidates if c not in view and c not in unsure]:
            del self._candidates[cell]
        cards = {c: v for c, v in ready.items() if v is not None}
        if confirm is not None and cards:
            for cell in set(cards) - confirm(cards):
                del ready[cell], self._candidates[cell]
        if self.board is None:
            # a card this frame reads that is not ready (held back, not held still long enough
            # or not confirmed) lies there as much as one it reads unsurely
            return self._settle_first(ready, {c for c, v in view.items() if v is None}, unsure | read, now)
        self._unread -= {c for c, v in view.items() if v is None}  # bare after all: a card there is laid
        events = []
        if now - self._settled_at < self.settle_s:
            # a card steadying on a cell the first view saw bare was laid since: a move
            late = {c: v for c, v in ready.items() if c not in self._seen_empty}
        else:
            late = {c: v for c, v in ready.items() if c in self._unread}
        if late:
            events = self._join_first_view(late, committed, now)
            self._unread -= set(late)
            ready = {c: v for c, v in ready.items() if c not in late}
        contradicted = [c for c, v in ready.items() if c in committed and not self._reveals(committed[c], v)]
        if len(contradicted) > 1:
            if self._at_odds_since is None:
                self._at_odds_since = now
            if now - self._at_odds_since >= self.resync_s:
                self.board, self._at_odds_since = None, None
                self._candidates.clear()  # the first view is taken again, after a full hold
            return events
        self._at_odds_since = None
        maze = set(committed) | read | self._unread
        for cell, content in sorted(ready.items()):
            del self._candidates[cell]
            if cell not in committed and self._is_goal(content):
                # goal cards are laid at set-up, never played: one seen late was missed at first
                self.board.put(Placement(cell[0], cell[1], *content))
                events.append(TrackEvent("maze-seen", f"also in view: the goal card at ({cell[0]},{cell[1]})", cell,
                                         time=now))
                continue
            if cell not in committed and content is not None and not self._touches(cell, maze):
                # a card laid touches the maze: one apart from every card is a card lying on
                # the table (put down, dropped) that the lattice happens to line up with
                continue
            was = committed.get(cell)
            if self._refilled(cell, was, content):
                # taken away and another laid in the hole before the table held still: both moves
                events += self._commit(cell, was, None, now)
                was = None
            events += self._commit(cell, was, content, now)
        return events

    def _join_first_view(self, ready: dict[Cell, Content], committed: dict, now: float) -> list[TrackEvent]:
        """Cards that steadied just after the first view belong to it: no verdict, they were already there."""
        joined = []
        for cell, content in sorted(ready.items()):
            del self._candidates[cell]
            if content is not None and cell not in committed:
                self.board.put(Placement(cell[0], cell[1], *content))
                joined.append(cell)
        if not joined:
            return []
        return [TrackEvent("maze-seen", f"also in view from the start: {len(joined)} more card"
                           + ("s" if len(joined) > 1 else ""), time=now)]

    def _settle_first(self, ready: dict[Cell, Content], bare: set[Cell], unsure: set[Cell],
                      now: float) -> list[TrackEvent]:
        """The first quiet view: every card that has held still becomes the maze at once;
        ``bare``: the cells this frame reads as bare table, ``unsure``: those with a card it
        has not read surely yet (a card there, not read yet)."""
        cards = {c: v for c, v in ready.items() if v is not None}
        if not any(face == "start" for face, _ in cards.values()):
            return []  # the start card anchors the maze; wait until it has held still
        board = Board(self.catalogue)
        for cell, (face, rotation) in sorted(cards.items(), key=lambda kv: kv[1][0] != "start"):
            board.put(Placement(cell[0], cell[1], face, rotation))
            del self._candidates[cell]
        self.board = board
        self._settled_at = now
        self._seen_empty = bare
        self._unread = unsure - set(cards)
        return [TrackEvent("maze-seen", f"the maze is in view: {len(cards)} cards", time=now)]

    def _refilled(self, cell: Cell, was: Content, now_content: Content) -> bool:
        """Whether a path card read in place of another was laid in the hole a rockfall left:
        the cell seen bare in between on enough quiet frames."""
        return (was is not None and now_content is not None and was != now_content
                and self.catalogue.face(was[0]).kind == "path"
                and self._seen_bare.get(cell, 0) >= self.min_frames)

    @staticmethod
    def _touches(cell: Cell, maze: set[Cell]) -> bool:
        return any(n in maze for n in neighbours(cell))

    def _is_goal(self, content: Content) -> bool:
        return content is not None and self.catalogue.face(content[0]).kind in ("goal", "goal-back")

    def _reveals(self, was: Content, now_content: Content) -> bool:
        """Whether the change is a goal card turned over."""
        return (was is not None and self.catalogue.face(was[0]).kind == "goal-back"
                and now_content is not None and self.catalogue.face(now_content[0]).kind == "goal")

    def _commit(self, cell: Cell, was: Content, now_content: Content, now: float) -> list[TrackEvent]:
        board = self.board
        x, y = cell
        if now_content is None:
            try:
                removed = board.remove(cell)
            except BoardError:
                return []  # the start and the goals do not leave the table; it was a misreading
            return [TrackEvent("removed", f"{removed.face} removed from ({x},{y}) (rockfall)", cell, removed,
                               time=now)]
        face, rotation = now_content
        placement = Placement(x, y, face, rotation)
        if self._reveals(was, now_content):
            board.reveal(cell, face, rotation)
            words = "the gold" if self.catalogue.face(face).gold else "stone"
            return [TrackEvent("goal-revealed", f"the goal at ({x},{y}) is {words}", cell, placement, time=now)]
        if was is not None:
            try:
                board.remove(cell)
            except BoardError:
                return []
        verdict, doubted = self._judge(placement)
        growth = board.put(placement)
        said = ("legal" if verdict.legal else "illegal") + (" as far as the cells read show" if doubted else "")
        reasons = "" if verdict.legal else ": " + "; ".join(r.message for r in verdict.reasons)
        if was is not None:
            return [TrackEvent("changed", f"({x},{y}) now reads {placement.face}: {said}{reasons}",
                               cell, placement, verdict, now, doubted)]
        events = [TrackEvent("placed", f"{said}: {placement}{reasons}", cell, placement, verdict, now, doubted)]
        for goal in growth.pending:
            events.append(TrackEvent("goal-reached", f"a tunnel reaches the goal at ({goal[0]},{goal[1]}): turn it over",
                                     goal, time=now))
        return events

    def _judge(self, placement: Placement) -> tuple[Verdict, bool]:
        """The engine's verdict on a card about to be laid, given the doubt where cells could
        not be read; and whether any reason was dropped for them."""
        verdict = self.board.check(placement)
        filled = filled_in(self.board, (self._unread | self._unsettled) - {placement.cell})
        if filled is None:
            return verdict, False
        kept = given_the_doubt(verdict.reasons, lambda: filled.check(placement))
        return replace(verdict, reasons=tuple(kept)), len(kept) < len(verdict.reasons)
