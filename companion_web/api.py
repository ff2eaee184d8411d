"""The JSON and SSE interface used by the phones and the table screen.

Every answer that shows the game is ``view_for`` of the asking viewer. A phone acts for
its own seat (its token says which) and, during a round, on its own turn; the host acts for
any seat by naming it (``for_seat``). Refusals are JSON ``{"error": sentence, "code": key}``
with a 4xx status, and change nothing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, jsonify, request

from engine.game import Move

from . import auth, commands
from .access import context_for, view, viewer_for
from .app import companion
from .db import get_db
from .errors import GameError, bad_request
from .feed import CardPlaced, CardRemoved, GoalTurned
from .hub import EventStream, TooManyStreams
from .i18n import pick_language
from .reasons import in_words
from .service import HOST, seat_actor
from .snapshot import Snapshot
from .views import HOST_VIEWER, SEAT, Viewer, public_board, view_for

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.before_request
def same_origin_only():
    # Cookies are SameSite=Strict already; this also stops a page on another origin from
    # driving the API with a seat token it somehow holds.
    origin = request.headers.get("Origin")
    if request.method == "POST" and origin and urlsplit(origin).netloc != request.host:
        raise GameError(403, "error.origin")


def body() -> dict:
    if not request.is_json:
        raise GameError(415, "error.content-type")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise bad_request("error.json")
    return data


def answer(snap: Snapshot, viewer: Viewer, status: int = 200, **extra):
    return jsonify(view=view(snap, viewer), **extra), status


def service():
    return companion().service


def seat_viewer(game_id: str) -> tuple[Viewer, int]:
    """The asking phone's viewer and its seat number now."""
    snap = service().snapshot(game_id)  # an unknown game is 404 before any question of tokens
    seat_id = auth.seat_of(get_db(), request, game_id)
    index = snap.seat_index(seat_id)
    return Viewer(SEAT, seat_id), index


def acting_seat(game_id: str, data: dict) -> tuple[Viewer, int, str, bool]:
    """(viewer, seat acted for, actor, whether it must be that seat's turn).

    ``for_seat`` in the body means the host records for that seat; otherwise a phone acts for itself.
    """
    if "for_seat" in data:
        host_only(game_id)
        players = len(service().snapshot(game_id).seats)
        return HOST_VIEWER, commands.integer(data, "for_seat", low=0, high=players - 1), HOST, False
    viewer, seat = seat_viewer(game_id)
    return viewer, seat, seat_actor(viewer.seat_id), True


def host_only(game_id: str) -> None:
    service().snapshot(game_id)  # 404 for an unknown game before 401/403
    auth.require_host(get_db(), request, game_id)


# ------------------------------------------------------------------ reading


@bp.get("/g/<game_id>/state")
def state(game_id: str):
    snap = service().snapshot(game_id)
    return answer(snap, viewer_for(game_id, request.args.get("view", SEAT)))


@bp.get("/g/<game_id>/events")
def events(game_id: str):
    app = current_app._get_current_object()
    snap = service().snapshot(game_id)
    viewer = viewer_for(game_id, request.args.get("view", SEAT))
    hub = companion().hub
    ctx = context_for(snap)
    token = auth.presented_seat_token(request, game_id)
    holder = auth.token_hash(token) if viewer.kind == SEAT else None
    try:
        stream = hub.open(game_id, viewer.kind, viewer.seat_id)
    except TooManyStreams:
        raise GameError(503, "error.too-many-streams") from None

    def current() -> Snapshot:
        with app.app_context():
            return service().snapshot(game_id)

    def allowed() -> bool:
        # A seat the host freed (or another phone took over) stops streaming at once.
        return holder is None or any(s.id == viewer.seat_id and s.token_hash == holder for s in current().seats)

    def event_id() -> str:
        return f"{current().version}.{hub.presence(game_id)}"

    def render(eid: str) -> str:
        snap_now = current()
        context = replace(ctx, connected=hub.connected_seats(game_id), event_id=eid)
        return json.dumps(view_for(snap_now, viewer, context), separators=(",", ":"))

    disconnected = request.environ.get("waitress.client_disconnected") or (lambda: False)
    config = current_app.config
    stream_body = EventStream(hub, stream, event_id=event_id, render=render, allowed=allowed, disconnected=disconnected,
                              heartbeat=config["SSE_HEARTBEAT"], lifetime=config["SSE_LIFETIME"],
                              poll=config["SSE_POLL"])
    return Response(stream_body, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@bp.post("/g/<game_id>/check")
def check(game_id: str):
    """Judge a placement on the maze as everyone sees it, without changing the game.

    Judged on the public board so that the answer cannot hint at a face-down goal (a check
    on the real board would say whether a tunnel reaches the gold).
    """
    data = body()
    snap = service().snapshot(game_id)
    placement = commands.placement(data, snap.catalogue)
    broken, trapped = (), False
    game = snap.game
    if "seat" in data and game is not None and game.round is not None:
        seat = commands.integer(data, "seat", low=0, high=game.players - 1)
        broken, trapped = sorted(game.round.seats[seat].broken), game.round.seats[seat].trapped
    verdict = public_board(snap).check(placement, broken_tools=broken, trapped=trapped)
    lang = pick_language(request)
    return jsonify(legal=verdict.legal, placement=placement.to_dict(),
                   reasons=[in_words(r.code, r.message, lang) for r in verdict.reasons],
                   turns_over=[list(c) for c in verdict.reveals])


# ------------------------------------------------------------------ seats


@bp.post("/g/<game_id>/join")
def join(game_id: str):
    data = body()
    seat_id, token = service().join(game_id, commands.text(data, "name", max_len=200),
                                    commands.integer(data, "slot"))
    return _seated(game_id, seat_id, token, 201)


@bp.post("/g/<game_id>/claim")
def claim(game_id: str):
    data = body()
    seat_id, token = service().claim(game_id, commands.integer(data, "seat", low=0))
    return _seated(game_id, seat_id, token, 201)


def _seated(game_id: str, seat_id: int, token: str, status: int):
    response, status = answer(service().snapshot(game_id), Viewer(SEAT, seat_id), status, token=token)
    auth.set_cookie(response, auth.seat_cookie(game_id), token)
    return response, status


@bp.post("/g/<game_id>/resume")
def resume(game_id: str):
    """A phone back from sleep or a reload: its localStorage token restores the cookie."""
    viewer, _ = seat_viewer(game_id)
    response, status = answer(service().snapshot(game_id), viewer)
    auth.set_cookie(response, auth.seat_cookie(game_id), auth.presented_seat_token(request, game_id))
    return response, status


@bp.post("/g/<game_id>/leave")
def leave(game_id: str):
    viewer, _ = seat_viewer(game_id)
    service().leave(game_id, viewer.seat_id, seat_actor(viewer.seat_id))
    response = jsonify(left=True)
    response.delete_cookie(auth.seat_cookie(game_id), path="/")
    return response


# ------------------------------------------------------------------ turns


@bp.post("/g/<game_id>/peek")
def peek(game_id: str):
    """A map card: the goal's face goes to the seat that played it, and only there."""
    data = body()
    viewer, seat, actor, own = acting_seat(game_id, data)
    move = Move(seat, "map", "map", cell=commands.cell(data))
    return answer(service().record(game_id, move, actor, own_turn=own), viewer)


@bp.post("/g/<game_id>/action")
def action(game_id: str):
    data = body()
    viewer, seat, actor, own = acting_seat(game_id, data)
    snap = service().snapshot(game_id)
    if snap.game is None:
        raise GameError(409, "error.phase-lobby")
    move = commands.action_move(data, seat, len(snap.seats), snap.game)
    return answer(service().record(game_id, move, actor, own_turn=own), viewer)


@bp.post("/g/<game_id>/remove-own")
def remove_own(game_id: str):
    data = body()
    viewer, seat, actor, own = acting_seat(game_id, data)
    return answer(service().record(game_id, commands.remove_own_move(data, seat), actor, own_turn=own), viewer)


@bp.post("/g/<game_id>/pass")
def pass_turn(game_id: str):
    data = body()
    viewer, seat, actor, own = acting_seat(game_id, data)
    return answer(service().record(game_id, commands.pass_move(seat), actor, own_turn=own), viewer)


# ------------------------------------------------------------------ gold


@bp.post("/g/<game_id>/pick")
def pick(game_id: str):
    data = body()
    viewer, seat = seat_viewer(game_id)
    snap = service().pick(game_id, seat, commands.integer(data, "index", low=0), seat_actor(viewer.seat_id))
    return answer(snap, viewer)


@bp.post("/g/<game_id>/steal")
def steal(game_id: str):
    """{"victim": seat} steals 1 gold; {"victim": null} gives the theft up."""
    data = body()
    viewer, seat = seat_viewer(game_id)
    if "victim" not in data:
        raise bad_request("error.field-int", field="victim")
    victim = None if data["victim"] is None else commands.integer(data, "victim", low=0)
    return answer(service().steal(game_id, seat, victim, seat_actor(viewer.seat_id)), viewer)


# ------------------------------------------------------------------ the host


@bp.post("/g/<game_id>/start")
def start(game_id: str):
    body()
    host_only(game_id)
    return answer(service().start_round(game_id), HOST_VIEWER)


@bp.post("/g/<game_id>/exhausted")
def exhausted(game_id: str):
    body()
    host_only(game_id)
    return answer(service().declare_exhausted(game_id), HOST_VIEWER)


@bp.post("/g/<game_id>/turn")
def set_turn(game_id: str):
    data = body()
    host_only(game_id)
    return answer(service().set_turn(game_id, commands.integer(data, "seat")), HOST_VIEWER)


@bp.post("/g/<game_id>/feed")
def feed(game_id: str):
    """The host's entry of what happened on the table, reported through the manual feed."""
    data = body()
    host_only(game_id)
    if service().current_game_id() != game_id:
        raise GameError(409, "error.not-on-table")
    kind = data.get("change")
    snap = service().snapshot(game_id)
    if kind == "placed":
        change = CardPlaced(commands.placement(data, snap.catalogue))
    elif kind == "removed":
        change = CardRemoved(commands.integer(data, "x"), commands.integer(data, "y"))
    elif kind == "goal-turned":
        change = GoalTurned(commands.integer(data, "x"), commands.integer(data, "y"))
    else:
        raise bad_request("error.feed-change")
    outcome = companion().feed.report(change)
    lang = pick_language(request)
    return answer(service().snapshot(game_id), HOST_VIEWER, legal=outcome.legal,
                  reasons=[in_words(code, message, lang) for code, message in outcome.reasons])


@bp.post("/g/<game_id>/correct")
def correct(game_id: str):
    """{"x", "y", "face", "rotation"} sets what the recorded card at (x, y) really is; without "face", it was never there."""
    data = body()
    host_only(game_id)
    snap = service().snapshot(game_id)
    x, y = commands.integer(data, "x"), commands.integer(data, "y")
    placement = commands.placement(data, snap.catalogue) if data.get("face") is not None else None
    if placement is not None and (placement.x, placement.y) != (x, y):
        raise bad_request("error.cell")
    return answer(service().correct_cell(game_id, x, y, placement), HOST_VIEWER)


@bp.post("/g/<game_id>/reattribute")
def reattribute(game_id: str):
    data = body()
    host_only(game_id)
    snap = service().reattribute(game_id, commands.integer(data, "number", low=1), commands.integer(data, "seat"))
    return answer(snap, HOST_VIEWER)


@bp.post("/g/<game_id>/undo")
def undo(game_id: str):
    body()
    host_only(game_id)
    return answer(service().undo(game_id), HOST_VIEWER)


@bp.post("/g/<game_id>/free-seat")
def free_seat(game_id: str):
    data = body()
    host_only(game_id)
    service().free_seat(game_id, commands.integer(data, "seat"))
    return answer(service().snapshot(game_id), HOST_VIEWER)


@bp.post("/g/<game_id>/new-game")
def new_game(game_id: str):
    data = body()
    host_only(game_id)
    options = data.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise bad_request("error.options", text="options is a list of names")
    new_id = service().new_game_after(game_id, commands.text(data, "edition"), options)
    return jsonify(game=new_id, table_url=f"/g/{new_id}/table"), 201


@bp.post("/g/<game_id>/host-link")
def host_link(game_id: str):
    """A fresh one-time link to open the host screen on another device (shown to the host only)."""
    body()
    host_only(game_id)
    code = auth.issue_host_link(get_db(), ttl_s=600)
    return jsonify(url=f"{request.host_url.rstrip('/')}/host/{code}")
