"""The application factory: ``create_app(config)`` (after the Flask tutorial).

Blueprints: ``table`` (the table screen, the host's login link, the join QR), ``player``
(the phone pages) and ``api`` (JSON and server-sent events). The app carries one
``Companion``: the game service, the SSE hub and the table feed.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from flask import Flask, current_app, has_app_context, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from engine.board import Placement

from . import db
from .errors import GameError, InWords
from .feed import CardPlaced, CardRemoved, FeedChange, FeedOutcome, GoalTurned, ManualFeed, TableFeed, TableView
from .hub import Hub
from .i18n import LANGUAGES, pick_language, translate
from .service import GameService
from .snapshot import PLAYING
from .views import public_board

DEFAULTS = {
    "DATABASE": "tunnelvision.db",
    "MAX_CONTENT_LENGTH": 16 * 1024,  # the largest real request (a join, a correction) is a few hundred bytes
    "PUBLIC_URL": None,  # base URL phones use (http://192.168.1.20:8000); default: the URL of the request
    "COOKIE_SECURE": False,  # the table's LAN is plain HTTP; set True behind TLS
    "SSE_HEARTBEAT": 15.0,
    "SSE_LIFETIME": 600.0,
    "SSE_POLL": 1.0,
    "SSE_MAX_STREAMS": 32,
    "FEED": None,  # a TableFeed; default ManualFeed
    "DEAL_SEED": None,  # tests only: deal roles and goals from a seeded generator
}

# What any page may load: everything is served from here (the table has no internet).
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


@dataclass
class Companion:
    service: GameService
    hub: Hub
    feed: TableFeed


def companion() -> Companion:
    return current_app.extensions["tunnelvision"]


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(DEFAULTS)
    if config:
        app.config.update(config)
    db.init_app(app)

    hub = Hub(max_streams=app.config["SSE_MAX_STREAMS"])
    service = GameService(hub, rng=_dealer(app.config["DEAL_SEED"]))
    feed = app.config["FEED"] or ManualFeed()
    feed.connect(_feed_sink(app, service), _table_view(app, service))
    app.extensions["tunnelvision"] = Companion(service, hub, feed)

    # Imported here because the blueprints import ``companion`` from this module.
    from .api import bp as api_bp
    from .player import bp as player_bp
    from .table import bp as table_bp

    app.register_blueprint(table_bp)
    app.register_blueprint(player_bp)
    app.register_blueprint(api_bp)
    app.context_processor(_template_words)
    app.register_error_handler(GameError, _game_error)
    app.register_error_handler(HTTPException, _http_error)
    app.after_request(_security_headers)
    return app


def _dealer(seed: int | None):
    if seed is None:
        return random.SystemRandom
    counter = itertools.count(seed)
    return lambda: random.Random(next(counter))


def _feed_sink(app: Flask, service: GameService):
    """Changes from the feed go to the game on the table (the newest one)."""

    def apply(change: FeedChange) -> FeedOutcome:
        game_id = service.current_game_id()
        if game_id is None:
            raise GameError(409, "error.no-game")
        if isinstance(change, CardPlaced):
            snap, contested = service.place_seen(game_id, change.placement)
            if contested is not None:
                return FeedOutcome(False, contested.reasons, contested.seat)
            return FeedOutcome(True, (), snap.game.round.history[-1].seat)
        if isinstance(change, CardRemoved):
            service.removal_seen(game_id, change.x, change.y)
        elif isinstance(change, GoalTurned):
            service.goal_turn_seen(game_id, change.x, change.y)
        return FeedOutcome(None)

    def sink(change: FeedChange) -> FeedOutcome:
        if has_app_context():  # the host's entry, inside its request: use that request's connection
            return apply(change)
        with app.app_context():  # a camera's own thread
            return apply(change)

    return sink


def _table_view(app: Flask, service: GameService):
    """What the game on the table holds, for a feed that must report only what is new.

    Public parts only: a feed never needs a goal's secret, so it is never given one.
    """

    def view() -> TableView | None:
        with app.app_context():
            game_id = service.current_game_id()
            if game_id is None:
                return None
            snap = service.snapshot(game_id)
            if snap.phase != PLAYING:
                return TableView(snap.edition)
            contested = tuple(Placement(c.x, c.y, c.face, c.rotation) for c in snap.tabletop.contested)
            return TableView(snap.edition, public_board(snap), contested)

    return view


def _template_words() -> dict:
    lang = pick_language(request)
    return {"t": lambda key, **params: translate(lang, key, **params), "languages": LANGUAGES}


def wants_json() -> bool:
    return request.path.startswith("/api/")


def error_body(status: int, key: str, **params):
    lang = pick_language(request)
    sentence = translate(lang, key, **{k: v.in_lang(lang) if isinstance(v, InWords) else v for k, v in params.items()})
    if wants_json():
        return jsonify(error=sentence, code=key), status
    return render_template("error.html", lang=lang, message=sentence, status=status), status


def _game_error(exc: GameError):
    return error_body(exc.status, exc.key, **exc.params)


_HTTP_KEYS = {400: "error.bad-request", 404: "error.not-found", 405: "error.method",
              413: "error.too-large", 415: "error.content-type"}


def _http_error(exc: HTTPException):
    if exc.code is None or exc.code < 400:
        return exc
    return error_body(exc.code, _HTTP_KEYS.get(exc.code, "error.generic"), limit=current_app.config["MAX_CONTENT_LENGTH"])


def _security_headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    if not request.path.startswith("/static/"):
        # Pages and answers carry a seat's secrets: never keep them in a shared cache or the back button.
        response.headers["Cache-Control"] = "no-store"
    return response
