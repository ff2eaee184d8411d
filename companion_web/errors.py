"""Refusals with an HTTP status and one sentence, translated when it is shown."""

from __future__ import annotations


class GameError(Exception):
    """A request the companion refuses. ``key`` names a sentence in ``i18n``; nothing was changed."""

    def __init__(self, status: int, key: str, **params):
        super().__init__(key)
        self.status = status
        self.key = key
        self.params = params

    def __repr__(self) -> str:
        return f"GameError({self.status}, {self.key!r}, {self.params!r})"


def bad_request(key: str, **params) -> GameError:
    return GameError(400, key, **params)


def conflict(key: str, **params) -> GameError:
    return GameError(409, key, **params)


def engine_refused(message: str) -> GameError:
    """The engine's own reason (an English sentence), shown with a translated lead-in."""
    return GameError(409, "error.engine", text=message)
