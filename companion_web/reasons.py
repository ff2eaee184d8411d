"""The engine's legality reasons in the viewer's language.

The engine explains a verdict in English sentences with a code per reason. English is
shown as given. For other languages the common sentences are translated by pattern (their
numbers and edges carried over); a sentence no pattern knows is shown in English behind a
translated lead-in, so a new engine message is never lost, only untranslated.
"""

from __future__ import annotations

import re

from .i18n import translate

_CELL = r"\((-?\d+),(-?\d+)\)"

# code -> (pattern of the English message, translation key); the groups become {g1}, {g2}...
PATTERNS: dict[str, tuple[re.Pattern, str]] = {
    "broken-tool": (re.compile(r"the player has a broken (\w+) in front of them"), "reason.broken-tool"),
    "trapped": (re.compile(r"the player is trapped"), "reason.trapped"),
    "not-a-path-card": (re.compile(r"(\S+) is laid at set-up"), "reason.not-a-path-card"),
    "occupied": (re.compile(_CELL + r" already holds (.+)"), "reason.occupied"),
    "not-adjacent": (re.compile(_CELL + r" does not touch any card"), "reason.not-adjacent"),
    "crosswise": (re.compile(r"crosswise"), "reason.crosswise"),
    "edge-mismatch": (re.compile(r"the (north|east|south|west) edge is (a tunnel|rock) but the card at "
                                 + _CELL + r" has (a tunnel|rock) there"), "reason.edge-mismatch"),
    "ladder-next-to-goal": (re.compile(r"next to the goal card at " + _CELL), "reason.ladder-next-to-goal"),
    "ladder-not-touching-path": (re.compile(r"must meet an open edge"), "reason.ladder-not-touching-path"),
    "not-connected": (re.compile(r"no tunnel of this card meets"), "reason.not-connected"),
}

# English fragments inside the messages that need words of their own.
_FRAGMENTS = {"a tunnel": "tunnel", "rock": "rock", "north": "north", "east": "east", "south": "south",
              "west": "west", "pickaxe": "pickaxe", "lantern": "lantern", "cart": "cart",
              "the start card": "start-card", "a goal card": "goal-card"}


def in_words(code: str, message: str, lang: str) -> str:
    if lang == "en":
        return message
    known = PATTERNS.get(code)
    match = known[0].search(message) if known else None
    if match is None:
        return translate(lang, "reason.untranslated", text=message)
    groups = {f"g{i}": _fragment(value, lang) for i, value in enumerate(match.groups(), start=1)}
    return translate(lang, known[1], **groups)


def _fragment(value: str, lang: str) -> str:
    key = _FRAGMENTS.get(value)
    if key is not None:
        return translate(lang, f"word.{key}")
    card = re.fullmatch(r"a card \((.+)\)", value)
    if card:
        return translate(lang, "word.a-card", face=card.group(1))
    return value
