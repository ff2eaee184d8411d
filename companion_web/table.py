"""The table screen (a laptop or a TV by the table), the host's login link and the join QR."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for

from . import auth
from .access import join_url, view
from .app import companion
from .board_svg import card_svg
from .db import get_db
from .errors import GameError
from .i18n import client_strings, pick_language, translate
from .qr import qr_svg
from .views import HOST_VIEWER, TABLE_VIEWER

bp = Blueprint("table", __name__)


@bp.get("/")
def index():
    game_id = companion().service.current_game_id()
    if game_id is not None:
        return redirect(url_for("table.table", game_id=game_id))
    lang = pick_language(request)
    return render_template("error.html", lang=lang, status=200, message=translate(lang, "ui.no-game"))


@bp.get("/host/<code>")
def host_login(code: str):
    """Redeem the one-time host link: set the host cookie, then leave the code behind at once."""
    session = auth.redeem_host_link(get_db(), code)
    if session is None:
        raise GameError(403, "error.host-link")
    response = redirect(url_for("table.index"))
    auth.set_cookie(response, auth.HOST_COOKIE, session)
    return response


@bp.get("/g/<game_id>/table")
def table(game_id: str):
    snap = companion().service.snapshot(game_id)
    host = auth.is_host(get_db(), request)
    viewer = HOST_VIEWER if host else TABLE_VIEWER
    lang = pick_language(request)
    shown = view(snap, viewer)
    # The host's palette of path cards, drawn once here: it never changes during a game.
    palette = [(face, card_svg(snap.catalogue.face(face).shape(0), face, size=34))
               for face in shown["game"]["faces"]] if host else []
    return render_template("table.html", lang=lang, page="table", game_id=game_id, viewer_kind=viewer.kind,
                           view=shown, strings=client_strings(lang), palette=palette,
                           has_video=companion().feed.has_video)


@bp.get("/g/<game_id>/qr.svg")
def join_qr(game_id: str):
    companion().service.snapshot(game_id)
    url = join_url(game_id)
    svg = qr_svg(url, label=translate(pick_language(request), "ui.qr-label", url=url))
    return Response(svg, mimetype="image/svg+xml")


@bp.get("/g/<game_id>/feed.mjpeg")
def live_picture(game_id: str):
    """The camera's picture of the physical table (the grid drawn over it), for the table screen."""
    companion().service.snapshot(game_id)
    feed = companion().feed
    if not feed.has_video:
        raise GameError(404, "error.no-video")
    frames = feed.frames()
    if frames is None:  # every viewer holds a server thread; a few are enough for a table
        raise GameError(503, "error.too-many-streams")

    def multipart():
        try:
            for jpeg in frames:
                yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n"
        finally:
            close = getattr(frames, "close", None)
            if close is not None:  # a viewer that went away gives its place back at once
                close()

    return Response(multipart(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"X-Accel-Buffering": "no"})


@bp.get("/g/<game_id>/feed.json")
def feed_status(game_id: str):
    """How the camera is doing (a state, one sentence, and what makes its readings less
    sure), for the line under the live picture."""
    companion().service.snapshot(game_id)
    feed = companion().feed
    status = feed.status()
    return jsonify(video=feed.has_video, state=status.state, message=status.message, warnings=list(status.warnings))
