"""Refusals with an HTTP status and one sentence, translated when it is shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.game import MoveError

from .i18n import EN, translate
from .reasons import in_words as reason_in_words


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


class InWords:
    """A refusal's parameter put in words only when it is shown, in the viewer's language."""

    def __init__(self, words: Callable[[str], str]):
        self.words = words

    def in_lang(self, lang: str) -> str:
        return self.words(lang)


def engine_refused(exc: MoveError, names: Sequence[str]) -> GameError:
    """The engine's refusal in the viewer's words: its code's sentence, seats by name,
    tools and a placement's reasons translated. A reason without a sentence of its own is
    the engine's English behind a translated lead-in."""
    key = f"refusal.{exc.code}"
    if key not in EN:
        return GameError(409, "error.engine", text=str(exc))
    params = {}
    for name, value in exc.params.items():
        if name == "seat":
            params[name] = names[value] if 0 <= value < len(names) else str(value)
        elif name == "tool":
            params[name] = InWords(lambda lang, tool=value: translate(lang, f"tool.{tool}"))
        elif name == "reasons":
            params[name] = InWords(lambda lang, reasons=value: "; ".join(
                reason_in_words(r.code, r.message, lang) for r in reasons))
    return GameError(409, key, **params)
