"""Changes to a game: checked, applied to a fresh engine copy, committed, announced.

All changes to one game are serialised by a lock; each works on a fresh ``Game`` parsed
from the latest snapshot, commits the result in one transaction (``Store.commit``), then
replaces the cached snapshot and wakes the SSE streams. A change that raises leaves the
cache, the database and the engine state as they were.

The engine decides every rule. This module only says who may ask for what, and when:
a phone acts for its own seat and on its own turn; the host acts for anyone.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
from contextlib import contextmanager
from dataclasses import replace
from typing import Callable, Iterator

from engine.board import Placement
from engine.game import Game, Move
from engine.options import OptionError, Rules

from . import commands, logbook
from .auth import new_token, token_hash
from .db import get_db
from .errors import GameError, bad_request, conflict
from .hub import Hub
from .snapshot import BETWEEN, LOBBY, PLAYING, SCORING, Contested, LogEntry, Snapshot, Tabletop
from .store import Change, SeatOp, Store
from .views import players_range

HOST, FEED = "host", "feed"
NAME_MAX = 24
# Game ids appear in the join URL (someone may type it): no look-alike letters, no punctuation.
GAME_ID_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


def seat_actor(seat_id: int) -> str:
    return f"seat:{seat_id}"


class GameService:
    def __init__(self, hub: Hub, rng: Callable[[], random.Random] = random.SystemRandom):
        self.hub = hub
        self._rng = rng  # deals roles and goals; SystemRandom so nobody can predict a deal
        self._cache: dict[str, Snapshot] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -------------------------------------------------------------- reading

    def store(self) -> Store:
        return Store(get_db())

    def snapshot(self, game_id: str) -> Snapshot:
        snap = self._cache.get(game_id)
        if snap is None:
            snap = self.store().load(game_id)
            if snap is None:
                raise GameError(404, "error.no-game")
            self._cache.setdefault(game_id, snap)
        return snap

    def current_game_id(self) -> str | None:
        """The game on the table: the newest one."""
        return self.store().latest_game_id()

    # -------------------------------------------------------------- plumbing

    def _lock(self, game_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(game_id, threading.Lock())

    @contextmanager
    def _changing(self, game_id: str) -> Iterator[Snapshot]:
        with self._lock(game_id):
            yield self.snapshot(game_id)

    def _commit(self, before: Snapshot, change: Change) -> tuple[Snapshot, dict]:
        # A game the host replaced by a new one counts as finished, so a restart resumes the new one.
        change = replace(change, finished=change.finished or change.tabletop.next_game is not None)
        try:
            after, extra = self.store().commit(before, change)
        except GameError:
            self._cache.pop(before.game_id, None)  # someone else wrote: read again next time
            raise
        self._cache[before.game_id] = after
        self.hub.publish(before.game_id)
        return after, extra

    def _commit_beside(self, snap: Snapshot, actor: str, command: dict, entries: list[LogEntry], *,
                       seat_ops: tuple[SeatOp, ...] = (), tabletop: Tabletop | None = None) -> tuple[Snapshot, dict]:
        """A change beside the engine (seats, refused cards, notes): the engine state stays as it is."""
        return self._commit(snap, Change(actor, command, snap.engine_text, tabletop or snap.tabletop, tuple(entries),
                                         seat_ops))

    def _commit_game(self, before: Snapshot, actor: str, command: dict, game: Game, tabletop: Tabletop,
                     entries: list[LogEntry]) -> Snapshot:
        change = Change(actor, command, json.dumps(game.to_json()), tabletop, tuple(entries), finished=game.over)
        return self._commit(before, change)[0]

    def _apply(self, snap: Snapshot, actor: str, command: dict, entries: list[LogEntry] = (),
               tabletop: Tabletop | None = None) -> Snapshot:
        """Run one round-log command on a fresh engine copy and commit it."""
        game = snap.fresh_game()
        events = commands.run(game, command)
        tabletop = tabletop or snap.tabletop
        tabletop = replace(tabletop, round_log=tabletop.round_log + (command,))
        return self._commit_game(snap, actor, command, game, tabletop, list(entries) + logbook.from_engine(events))

    @staticmethod
    def _require(snap: Snapshot, *phases: str) -> None:
        if snap.phase not in phases:
            raise conflict(f"error.phase-{snap.phase}")

    # -------------------------------------------------------------- games

    def create_game(self, edition: str, options: list[str] | str = ()) -> str:
        try:
            rules = Rules.parse(edition, options)
        except OptionError as exc:
            raise bad_request("error.options", text=str(exc)) from None
        game_id = "".join(secrets.choice(GAME_ID_LETTERS) for _ in range(8))
        self.store().create_game(game_id, rules.game, rules.options())
        return game_id

    def new_game_after(self, game_id: str, edition: str, options: list[str] | str) -> str:
        """The host sets up the next game; phones of this one are offered a link to it."""
        new_id = self.create_game(edition, options)
        with self._changing(game_id) as snap:
            self._commit_beside(snap, HOST, {"op": "new-game", "game": new_id}, [LogEntry("new-game", {})],
                                tabletop=replace(snap.tabletop, next_game=new_id))
        return new_id

    # -------------------------------------------------------------- seats

    def join(self, game_id: str, name: str, slot: int) -> tuple[int, str]:
        """A phone takes a free seat in the lobby. Returns (seat id, token)."""
        name = _clean_name(name)
        with self._changing(game_id) as snap:
            self._require(snap, LOBBY)
            _, high = players_range(snap)
            if not 1 <= slot <= high:
                raise bad_request("error.slot-range", high=high)
            if any(s.slot == slot for s in snap.seats):
                raise conflict("error.slot-taken")
            if any(s.name.casefold() == name.casefold() for s in snap.seats):
                raise conflict("error.name-taken", name=name)
            token = new_token()
            _, extra = self._commit_beside(snap, "guest", {"op": "join", "slot": slot, "name": name},
                                           [LogEntry("joined", {"name": name})],
                                           seat_ops=(SeatOp("add", slot=slot, name=name, token_hash=token_hash(token)),))
            return extra["seat_id"], token

    def leave(self, game_id: str, seat_id: int, actor: str) -> None:
        with self._changing(game_id) as snap:
            self._require(snap, LOBBY)
            seat = _seat_by_id(snap, seat_id)
            self._commit_beside(snap, actor, {"op": "leave", "seat_id": seat_id}, [LogEntry("left", {"name": seat.name})],
                                seat_ops=(SeatOp("remove", seat_id=seat_id),))

    def free_seat(self, game_id: str, seat: int) -> None:
        """Host: in the lobby a seat is emptied; once playing it waits for a new phone (the old token dies)."""
        with self._changing(game_id) as snap:
            info = _seat_at(snap, seat)
            if snap.phase == LOBBY:
                op, entry = SeatOp("remove", seat_id=info.id), LogEntry("left", {"name": info.name})
            else:
                op, entry = SeatOp("token", seat_id=info.id, token_hash=None), LogEntry("seat-freed", {"seat": seat})
            self._commit_beside(snap, HOST, {"op": "free-seat", "seat": seat}, [entry], seat_ops=(op,))

    def claim(self, game_id: str, seat: int) -> tuple[int, str]:
        """A new phone takes over a seat the host freed. Returns (seat id, token)."""
        with self._changing(game_id) as snap:
            if snap.phase == LOBBY:
                raise conflict("error.claim-lobby")
            info = _seat_at(snap, seat)
            if not info.claimable:
                raise conflict("error.not-claimable", name=info.name)
            token = new_token()
            self._commit_beside(snap, "guest", {"op": "claim", "seat": seat}, [LogEntry("seat-claimed", {"seat": seat})],
                                seat_ops=(SeatOp("token", seat_id=info.id, token_hash=token_hash(token)),))
            return info.id, token

    # -------------------------------------------------------------- rounds

    def start_round(self, game_id: str) -> Snapshot:
        with self._changing(game_id) as snap:
            self._require(snap, LOBBY, BETWEEN)
            if snap.phase == LOBBY:
                low, high = players_range(snap)
                if not low <= len(snap.seats) <= high:
                    raise conflict("error.player-count", low=low, high=high)
                if any(s.claimable for s in snap.seats):
                    raise conflict("error.seat-free")
                game = Game(snap.rules, snap.names, tracked=False)
            else:
                game = snap.fresh_game()
            game.start_round(self._rng())
            text = json.dumps(game.to_json())
            tabletop = Tabletop(round_start=text, next_game=snap.tabletop.next_game)
            entry = LogEntry("round-started", {"round": game.round_number, "seat": game.round.turn})
            return self._commit(snap, Change(HOST, {"op": "start-round"}, text, tabletop, (entry,)))[0]

    def record(self, game_id: str, move: Move, actor: str, *, own_turn: bool) -> Snapshot:
        """A move told by a phone (``own_turn``: it must be that seat's turn) or by the host."""
        with self._changing(game_id) as snap:
            self._require(snap, PLAYING)
            turn = snap.game.round.turn
            if own_turn and move.seat != turn:
                raise conflict("error.not-your-turn", name=snap.seats[turn].name)
            return self._apply(snap, actor, commands.move_command(move))

    def declare_exhausted(self, game_id: str) -> Snapshot:
        with self._changing(game_id) as snap:
            self._require(snap, PLAYING)
            return self._apply(snap, HOST, {"op": "exhausted"})

    def set_turn(self, game_id: str, seat: int) -> Snapshot:
        with self._changing(game_id) as snap:
            self._require(snap, PLAYING)
            _seat_at(snap, seat)
            return self._apply(snap, HOST, {"op": "turn", "seat": seat}, [LogEntry("turn-set", {"seat": seat})])

    # -------------------------------------------------------------- gold

    def pick(self, game_id: str, seat: int, index: int, actor: str) -> Snapshot:
        with self._changing(game_id) as snap:
            self._require(snap, SCORING)
            draft = snap.game.draft
            if draft is None or draft.picker != seat:
                raise conflict("error.not-your-pick")
            return self._apply(snap, actor, {"op": "pick", "seat": seat, "index": index})

    def steal(self, game_id: str, seat: int, victim: int | None, actor: str) -> Snapshot:
        """A thief steals 1 gold from ``victim``, or gives the theft up (``victim`` None)."""
        with self._changing(game_id) as snap:
            self._require(snap, SCORING)
            if not snap.game.thefts or snap.game.thefts[0] != seat:
                raise conflict("error.not-your-theft")
            if victim is None:
                command = {"op": "skip-theft", "seat": seat}
                return self._apply(snap, actor, command, [LogEntry("theft-skipped", {"seat": seat})])
            _seat_at(snap, victim)
            return self._apply(snap, actor, {"op": "steal", "seat": seat, "victim": victim})

    # -------------------------------------------------------------- what the table shows (the feed)

    def place_seen(self, game_id: str, placement: Placement) -> tuple[Snapshot, Contested | None]:
        """A card appeared on the table: the player whose turn it is laid it.

        A card the engine refuses stays on the table until it is taken back, so it is kept
        as contested (drawn in red, reasons in the log) and the turn does not move.
        """
        with self._changing(game_id) as snap:
            self._require(snap, PLAYING)
            r = snap.game.round
            seat = r.turn
            state = r.seats[seat]
            verdict = r.board.check(placement, broken_tools=sorted(state.broken), trapped=state.trapped)
            tabletop = snap.tabletop.without_contested(placement.x, placement.y)
            if verdict.legal:
                move = Move(seat, "place", placement.face, placement)
                return self._apply(snap, FEED, commands.move_command(move), tabletop=tabletop), None
            contested = Contested(placement.x, placement.y, placement.face, placement.rotation, seat,
                                  tuple((r.code, r.message) for r in verdict.reasons))
            tabletop = replace(tabletop, contested=tabletop.contested + (contested,))
            entry = LogEntry("illegal", {"seat": seat, **placement.to_dict(), "reasons": [list(x) for x in contested.reasons]})
            after, _ = self._commit_beside(snap, FEED, {"op": "contested", "placement": placement.to_dict()}, [entry],
                                           tabletop=tabletop)
            return after, contested

    def removal_seen(self, game_id: str, x: int, y: int) -> Snapshot:
        """A card left the table: a refused card taken back, or a rockfall by the player whose turn it is."""
        with self._changing(game_id) as snap:
            if snap.tabletop.contested_at(x, y) is not None:
                return self._commit_beside(snap, FEED, {"op": "taken-back", "cell": [x, y]},
                                           [LogEntry("taken-back", {"x": x, "y": y})],
                                           tabletop=snap.tabletop.without_contested(x, y))[0]
            self._require(snap, PLAYING)
            move = Move(snap.game.round.turn, "rockfall", "rockfall", cell=(x, y))
            return self._apply(snap, FEED, commands.move_command(move))

    def goal_turn_seen(self, game_id: str, x: int, y: int) -> Snapshot:
        """The camera saw a goal card turned over. The physical goals are placeholders whose
        secrets the engine keeps, so this is noted for the players and changes nothing else."""
        with self._changing(game_id) as snap:
            return self._commit_beside(snap, FEED, {"op": "goal-turn-seen", "cell": [x, y]},
                                       [LogEntry("goal-turn-seen", {"x": x, "y": y})])[0]

    # -------------------------------------------------------------- corrections (host)

    @staticmethod
    def _correctable(snap: Snapshot) -> list[dict]:
        """The round log, for a correction to edit; refused before a round or once gold changed hands."""
        if snap.tabletop.round_start is None:
            raise conflict("error.nothing-to-correct")
        # A replay after a pick or a theft could fail on it, and its reason ("it is seat 2's
        # pick") would tell the host who the miners are.
        if any(c["op"] in commands.GOLD_OPS for c in snap.tabletop.round_log):
            raise conflict("error.after-gold")
        return list(snap.tabletop.round_log)

    def _replayed(self, snap: Snapshot, log: list[dict], command: dict, entry: LogEntry) -> Snapshot:
        game, _events = commands.replay(snap.tabletop.round_start, log)
        tabletop = replace(snap.tabletop, round_log=tuple(log))
        # Only the correction is logged: the replayed events already stand in the log.
        return self._commit_game(snap, HOST, command, game, tabletop, [entry])

    def reattribute(self, game_id: str, number: int, seat: int) -> Snapshot:
        """Host: the move number ``number`` of this round was made by ``seat``."""
        with self._changing(game_id) as snap:
            _seat_at(snap, seat)
            log = self._correctable(snap)
            if not 1 <= number <= len(log) or log[number - 1]["op"] != "move":
                raise bad_request("error.no-such-move")
            doc = dict(log[number - 1]["move"], seat=seat)
            log[number - 1] = {**log[number - 1], "move": doc}
            return self._replayed(snap, log, {"op": "reattribute", "number": number, "seat": seat},
                                  LogEntry("reattributed", {"number": number, "seat": seat}))

    def correct_cell(self, game_id: str, x: int, y: int, placement: Placement | None) -> Snapshot:
        """Host: the card recorded at (x, y) was misread; it is ``placement``, or was never there (None)."""
        with self._changing(game_id) as snap:
            log = self._correctable(snap)
            found = [i for i, c in enumerate(log) if c["op"] == "move" and c["move"]["kind"] == "place"
                     and (c["move"]["placement"]["x"], c["move"]["placement"]["y"]) == (x, y)]
            if not found:
                raise conflict("error.no-recorded-card", cell=f"({x},{y})")
            index = found[-1]
            if placement is None:
                del log[index]
            else:
                doc = dict(log[index]["move"], card=placement.face, placement=placement.to_dict())
                log[index] = {**log[index], "move": doc}
            params = {"x": x, "y": y, "face": placement.face if placement else None,
                      "rotation": placement.rotation if placement else 0}
            return self._replayed(snap, log, {"op": "correct-cell", **params}, LogEntry("corrected", params))

    def undo(self, game_id: str) -> Snapshot:
        """Host: take back the last thing recorded this round (before any gold has changed hands)."""
        with self._changing(game_id) as snap:
            log = self._correctable(snap)
            if not log:
                raise conflict("error.nothing-to-undo")
            undone = logbook.entry_for_command(log.pop(), snap.catalogue)
            return self._replayed(snap, log, {"op": "undo"}, LogEntry("undone", {"entry": undone.to_json()}))


def _clean_name(name: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX or not name.isprintable():
        raise bad_request("error.name", max=NAME_MAX)
    return name


def _seat_by_id(snap: Snapshot, seat_id: int):
    for seat in snap.seats:
        if seat.id == seat_id:
            return seat
    raise GameError(404, "error.no-seat")


def _seat_at(snap: Snapshot, seat: int):
    if not isinstance(seat, int) or not 0 <= seat < len(snap.seats):
        raise GameError(404, "error.no-seat")
    return snap.seats[seat]
