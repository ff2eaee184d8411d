"""What each screen may see: ``view_for`` is the only function that reads secrets.

Every page, JSON answer and SSE event is built by ``view_for(snapshot, viewer, context)``.
The table and the host get the public view; a seat gets the public view plus its own
``me`` block (role, peeks, gold, its gold pick or theft). Public parts are computed from a
public projection of the board (face-down goals without their faces), so a route that
draws the maze or checks a placement cannot learn a goal's secret by accident. When a
round ends its roles are turned over for everyone, as the dwarf cards are at the table;
after the last round everything is revealed to everyone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from engine.board import Board, Placement
from engine.catalogue import with_neighbours
from engine.game import ROUNDS

from . import reasons
from .board_svg import Mark, board_svg
from .commands import ACTION_NEEDS, GOLD_OPS, REMOVABLE_OWN
from .i18n import translate
from .logbook import describe, entry_for_command
from .snapshot import BETWEEN, LOBBY, OVER, PLAYING, SCORING, Snapshot

LOG_LINES = 40
SEAT, TABLE, HOST = "seat", "table", "host"


@dataclass(frozen=True)
class Viewer:
    kind: str  # seat | table | host
    seat_id: int | None = None  # the seats row, for a seat


TABLE_VIEWER = Viewer(TABLE)
HOST_VIEWER = Viewer(HOST)


@dataclass(frozen=True)
class Context:
    """What a view needs besides the game: language, who is connected, where to join."""

    lang: str = "en"
    connected: frozenset[int] = field(default_factory=frozenset)  # seat ids with a live stream
    join_url: str = ""
    event_id: str = ""


# ------------------------------------------------------------------ public projection


def public_board(snap: Snapshot) -> Board:
    """The maze as everyone sees it: face-down goals stay face down and their faces unknown."""
    game = snap.game
    if game is None or game.round is None:
        return Board.standard(None, snap.catalogue)
    board = game.round.board
    return Board.from_json({
        "board": [p.to_dict() for p in board.placements()],
        "hidden_goals": [{"x": x, "y": y, "face": None} for x, y in board.hidden_goals],
    }, board.catalogue)


def _frontier(board: Board) -> list[tuple[int, int]]:
    # Cells next to a face-down goal only can never take a card (hidden goals do not conduct).
    cells = with_neighbours(p.cell for p in board.placements() if not board.is_hidden_goal(p.cell))
    return sorted(c for c in cells if c not in board)


def _board(snap: Snapshot, lang: str) -> dict:
    def build() -> dict:
        board = public_board(snap)
        placements = list(board.placements())
        marks = [Mark(Placement(c.x, c.y, c.face, c.rotation), "contested") for c in snap.tabletop.contested]
        last = _last_placement(snap)
        if last is not None and board.at(last.cell) == last:
            marks.append(Mark(last, "last"))
        goals = [{"x": x, "y": y,
                  "state": "hidden" if board.is_hidden_goal((x, y)) else
                  "gold" if board.shape_at((x, y)).face.gold else "stone"}
                 for x, y in sorted(board.goal_cells, key=lambda c: -c[1])]
        return {
            "svg": board_svg(placements, board.catalogue, marks=marks, frontier=_frontier(board),
                             label=translate(lang, "ui.maze")),
            "cells": [p.to_dict() for p in placements],
            "goals": goals,
            "path_cells": [[p.x, p.y] for p in placements if board.catalogue.face(p.face).is_path],
        }

    return _memo(snap, ("board", lang), build)


def _memo(snap: Snapshot, key, build):
    # Views of one version share their public parts (the SVG above all): a snapshot never
    # changes, so what was built for one viewer is right for every viewer of that version.
    cache = snap.derived
    if key not in cache:
        cache[key] = build()
    return cache[key]


def _last_placement(snap: Snapshot) -> Placement | None:
    game = snap.game
    if game is None or game.round is None:
        return None
    placed = [m for m in game.round.history if m.kind == "place"]
    return placed[-1].placement if placed else None


# ------------------------------------------------------------------ the view


def view_for(snap: Snapshot, viewer: Viewer, ctx: Context) -> dict:
    """Everything ``viewer`` may see of the game, in ``ctx.lang``; nothing more."""
    lang = ctx.lang
    game = snap.game
    me = snap.seat_index(viewer.seat_id) if viewer.kind == SEAT and viewer.seat_id is not None else None
    phase = snap.phase
    view = {
        "event_id": ctx.event_id,
        "lang": lang,
        "viewer": {"kind": viewer.kind, "seat": me, "name": snap.seats[me].name if me is not None else None},
        "game": _game_info(snap, ctx),
        "seats": _seats(snap, ctx),
        "turn": _turn(snap),
        "board": _board(snap, lang),
        "contested": [{"x": c.x, "y": c.y, "face": c.face, "rotation": c.rotation, "name": _name(snap, c.seat),
                       "reasons": [reasons.in_words(code, msg, lang) for code, msg in c.reasons]}
                      for c in snap.tabletop.contested],
        "verdict": _latest(snap, lang, ("placed", "illegal")),
        "sharing": _sharing(snap),
        "result": _result(snap, lang),
        "status": _status(snap, me, lang),
        "log": _log(snap, me, lang),
    }
    if me is not None:
        view["me"] = _private(snap, me, lang) if game is not None else {"seat": me, "name": snap.seats[me].name}
    if viewer.kind == HOST:
        view["host"] = _host(snap, lang)
    if phase == OVER:
        view["final"] = _final(snap, lang)
    return view


def _name(snap: Snapshot, seat: int | None) -> str | None:
    return snap.seats[seat].name if seat is not None and 0 <= seat < len(snap.seats) else None


def _game_info(snap: Snapshot, ctx: Context) -> dict:
    lang = ctx.lang
    game = snap.game
    low, high = players_range(snap)
    return {
        "id": snap.game_id,
        "edition": snap.edition,
        "title": translate(lang, f"edition.{snap.edition}"),
        "options": list(snap.options),
        "phase": snap.phase,
        "round": game.round_number if game else 0,
        "rounds": ROUNDS,
        "min_players": low,
        "max_players": high,
        "join_url": ctx.join_url,
        "next_game": snap.tabletop.next_game,
        **_memo(snap, ("cards", lang), lambda: _cards(snap, lang)),
    }


def players_range(snap: Snapshot) -> tuple[int, int]:
    """How many players this edition seats (from the catalogue's tables)."""
    table = snap.catalogue.tables[snap.rules.game if snap.rules.expansion else "base"]
    low, high = table["players"]
    return low, high


def _cards(snap: Snapshot, lang: str) -> dict:
    """The action cards and path faces of this edition, for the forms (public, from the catalogue)."""
    catalogue = snap.catalogue
    sets = snap.rules.sets
    actions = [{"id": a.id, "name": translate(lang, f"card.{a.id}"), "effect": a.effect,
                "needs": list(ACTION_NEEDS.get(a.effect, ())), "tools": list(a.tools),
                "tool_names": [translate(lang, f"tool.{t}") for t in a.tools]}
               for a in catalogue.action_cards(sets)]
    own = [c for c in REMOVABLE_OWN if c != "theft" or snap.rules.expansion]
    return {
        "actions": actions,
        "faces": [f.id for f in catalogue.path_faces(sets)],
        "removable": [{"id": c, "name": translate(lang, f"card.{c}")} for c in own] if snap.rules.expansion else [],
    }


def _seats(snap: Snapshot, ctx: Context) -> list[dict]:
    game = snap.game
    round_ = game.round if game else None
    playing = snap.phase == PLAYING
    out = []
    for i, seat in enumerate(snap.seats):
        state = round_.seats[i] if round_ is not None and i < round_.players else None
        out.append({
            "seat": i,
            "slot": seat.slot,
            "name": seat.name,
            "connected": seat.id in ctx.connected,
            "claimable": seat.claimable,
            "turn": playing and round_.turn == i,
            # Cards lying face up in front of a player are public.
            "broken": [translate(ctx.lang, f"tool.{t}") for t in sorted(state.broken)] if state else [],
            "broken_ids": sorted(state.broken) if state else [],
            "trapped": bool(state and state.trapped),
            "theft": bool(state and state.theft is not None),
        })
    return out


def _turn(snap: Snapshot) -> dict | None:
    if snap.phase != PLAYING:
        return None
    seat = snap.game.round.turn
    return {"seat": seat, "name": _name(snap, seat)}


def _sharing(snap: Snapshot) -> dict:
    """The gold being handed out, as the table sees it: how much is left, who is stealing."""
    game = snap.game
    if game is None:
        return {"active": False, "cards_left": 0, "thief": None}
    thief = game.thefts[0] if game.thefts else None
    return {
        "active": game.draft is not None or thief is not None,
        # The draft's order is never shown: it would tell who the miners are.
        "cards_left": len(game.draft.cards) if game.draft else 0,
        "thief": {"seat": thief, "name": _name(snap, thief)} if thief is not None else None,
    }


def _result(snap: Snapshot, lang: str) -> dict | None:
    """The public facts of the round that ended: was the gold reached, by whom, and who was
    what. The dwarf cards are turned over when a round ends (the rules' own words: "En el
    momento en que se acaba la ronda se descubren las cartas de enano"); the gold stays
    secret until the game ends."""
    game = snap.game
    if game is None or game.round is None or not game.round.ended:
        return None
    r = game.round
    gold = r.end_reason == "gold"
    return {"round": game.round_number, "gold_reached": gold, "finisher": _name(snap, r.finisher) if gold else None,
            "roles": [{"seat": s, "name": _name(snap, s), "role": role, "role_name": translate(lang, f"role.{role}")}
                      for s, role in enumerate(r.roles)]}


def _status(snap: Snapshot, me: int | None, lang: str) -> str:
    """One line saying what happens now, addressed to the viewer."""
    game, phase = snap.game, snap.phase
    if phase == LOBBY:
        if not snap.seats:
            return translate(lang, "status.lobby-empty")
        return translate(lang, "status.lobby", count=len(snap.seats))
    if phase == PLAYING:
        seat = game.round.turn
        return translate(lang, "status.your-turn") if seat == me else translate(lang, "status.turn", name=_name(snap, seat))
    if phase == SCORING:
        if game.draft is not None:
            if me is not None and game.draft.picker == me:
                return translate(lang, "status.your-pick")
            return translate(lang, "status.sharing", cards=len(game.draft.cards))
        thief = game.thefts[0]
        if thief == me:
            return translate(lang, "status.your-theft")
        return translate(lang, "status.theft", name=_name(snap, thief))
    if phase == BETWEEN:
        return translate(lang, "status.between", round=game.round_number, next=game.round_number + 1)
    return translate(lang, "status.over")


def _latest(snap: Snapshot, lang: str, kinds: tuple[str, ...]) -> dict | None:
    """The newest public entry of these kinds in the current round."""
    for entry in reversed(snap.log):
        if entry.kind == "round-started":
            return None
        if entry.kind in kinds and entry.private_to is None:
            return describe(entry, snap.names, lang)
    return None


def _log(snap: Snapshot, me: int | None, lang: str) -> list[dict]:
    visible = [e for e in snap.log if e.private_to is None or e.private_to == me][-LOG_LINES:]
    # Public lines are the same for every viewer of a version: put them into words once.
    public = _memo(snap, ("log", lang), lambda: {e.id: describe(e, snap.names, lang)
                                                for e in snap.log[-LOG_LINES * 3:] if e.private_to is None})
    return [public.get(e.id) or describe(e, snap.names, lang) for e in visible]


# ------------------------------------------------------------------ one seat's secrets


def _round_start_gold(snap: Snapshot) -> list[list[int]]:
    def build():
        start = snap.tabletop.round_start
        return json.loads(start)["gold"] if start else [[] for _ in snap.seats]

    return _memo(snap, "round_start_gold", build)


def _private(snap: Snapshot, me: int, lang: str) -> dict:
    game = snap.game
    r = game.round
    mine = r.seats[me]
    gold = list(game.gold[me])
    start_gold = _round_start_gold(snap)
    before = len(start_gold[me]) if me < len(start_gold) else 0
    draft = game.draft
    stealing = bool(game.thefts) and game.thefts[0] == me
    won = me in game.results[-1]["winners"] if game.settled else None
    return {
        "seat": me,
        "name": snap.seats[me].name,
        "role": mine.role,
        "role_name": translate(lang, f"role.{mine.role}"),
        "role_hint": translate(lang, f"role-hint.{mine.role}"),
        "peeks": [_peek_words(snap, p, lang) for p in mine.peeks],
        "gold": gold,
        "gold_total": sum(gold),
        "round_gold": sum(gold[before:]),
        "my_turn": snap.phase == PLAYING and r.turn == me,
        "pick": {"cards": list(draft.cards)} if draft is not None and draft.picker == me else None,
        "steal": {"victims": [{"seat": s, "name": _name(snap, s)} for s in range(game.players) if s != me]}
        if stealing else None,
        "won": won,
    }


def _peek_words(snap: Snapshot, peek: dict, lang: str) -> dict:
    if peek.get("kind") == "role":
        return {"kind": "role", "text": translate(lang, "peek.role", name=_name(snap, peek["seat"]),
                                                   role=translate(lang, f"role.{peek['role']}"))}
    x, y = peek["cell"]
    what = translate(lang, "goal.gold" if peek["face"] == "goal-gold" else "goal.stone")
    return {"kind": "goal", "x": x, "y": y, "gold": peek["face"] == "goal-gold",
            "text": translate(lang, "peek.goal", cell=f"({x},{y})", what=what)}


# ------------------------------------------------------------------ host and the end


def _host(snap: Snapshot, lang: str) -> dict:
    low, high = players_range(snap)
    phase = snap.phase
    can_start = (phase == LOBBY and low <= len(snap.seats) <= high) or phase == BETWEEN
    blocker = None
    if phase == LOBBY and not can_start:
        blocker = translate(lang, "host.need-players", low=low, high=high)
    log = snap.tabletop.round_log
    correctable = not any(c["op"] in GOLD_OPS for c in log)  # the service refuses corrections after that
    moves = []
    for number, command in enumerate(log, start=1):
        entry = entry_for_command(command, snap.catalogue)
        if entry is not None:
            moves.append({"number": number, "seat": entry.params.get("seat"),
                          "reattributable": correctable and command["op"] == "move",
                          "text": describe(entry, snap.names, lang)["text"]})
    return {"can_start": can_start, "start_blocker": blocker, "moves": moves, "can_undo": correctable and bool(log)}


def _final(snap: Snapshot, lang: str) -> dict:
    """The end-of-game reveal: every role of every round, everyone's gold, the ranking."""
    game = snap.game
    players = [{"seat": s, "name": _name(snap, s), "gold": list(game.gold[s]), "total": sum(game.gold[s]),
                "roles": [translate(lang, f"role.{result['roles'][s]}") for result in game.results]}
               for s in range(game.players)]
    return {"ranking": [{"rank": row["rank"], "name": _name(snap, row["seat"]), "gold": row["gold"]}
                        for row in game.ranking()],
            "players": players}
