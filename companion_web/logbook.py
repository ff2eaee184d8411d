"""The event log: engine events turned into log entries, and log entries put into words.

Engine events carry whatever the engine found useful (the draft's order, the round's
roles...), so they are never stored as they are: each kind has a builder that copies only
the parameters everyone may know, and the kinds that are secret keep the engine's
``private_to``. An engine event of a kind not listed here is left out of the log.
"""

from __future__ import annotations

import logging
from typing import Callable

from engine.game import Event, Move

from . import reasons
from .i18n import translate
from .snapshot import LogEntry

log = logging.getLogger(__name__)


def _cell(data_cell) -> dict:
    return {"x": data_cell[0], "y": data_cell[1]}


def _by_seat(kind: str, *keys: str) -> Callable[[Event], LogEntry]:
    """An entry naming the acting seat and the listed public parameters."""
    return lambda e: LogEntry(kind, {"seat": e.seat, **{k: e.data[k] for k in keys}})


def _private(kind: str, params: Callable[[dict], dict]) -> Callable[[Event], LogEntry | None]:
    # An event the engine did not mark private is dropped rather than shown to all: a
    # secret kind without an owner means the engine changed, and silence is the safe side.
    return lambda e: LogEntry(kind, params(e.data), e.private_to) if e.private_to is not None else None


_FROM_ENGINE: dict[str, Callable[[Event], LogEntry | None]] = {
    "placed": lambda e: LogEntry("placed", {"seat": e.seat, **e.data["placement"]}),
    "goal-revealed": lambda e: LogEntry("goal-revealed", {**_cell(e.data["cell"]),
                                                          "gold": e.data["face"] == "goal-gold"}),
    "round-end": lambda e: LogEntry("round-end", {"reason": e.data["reason"], "finisher": e.data["finisher"]}),
    "tool-broken": _by_seat("tool-broken", "target", "tool"),
    "tool-repaired": _by_seat("tool-repaired", "target", "tool"),
    "card-removed": lambda e: LogEntry("rockfall", {"seat": e.seat, **e.data["placement"]}),
    "map": lambda e: LogEntry("map", {"seat": e.seat, **_cell(e.data["cell"])}),
    "peek": _private("peek", lambda d: {**_cell(d["cell"]), "gold": d["face"] == "goal-gold"} if "cell" in d
                     else {"target": d["seat"], "role": d["role"]}),
    "role": _private("new-role", lambda d: {"role": d["role"]}),
    "gold": _private("gold", lambda d: {"amount": d["amount"] if "amount" in d else sum(d["cards"])}),
    "theft-laid": _by_seat("theft-laid"),
    "theft-removed": _by_seat("theft-removed", "target"),
    "hat-swapped": _by_seat("hat-swapped", "target"),
    "hands-swapped": _by_seat("hands-swapped", "target"),
    "trapped": _by_seat("trapped", "target"),
    "freed": _by_seat("freed", "target"),
    "inspection": _by_seat("inspection", "target"),
    "removed-own": _by_seat("removed-own", "card"),
    "passed": _by_seat("passed"),
    # The draft's order would tell who the miners are: only the number of cards is public.
    "draft": lambda e: LogEntry("draft", {"cards": e.data["cards"]}),
    "round-scored": lambda e: LogEntry("round-scored", {"gold_reached": e.data["gold_reached"],
                                                        "finisher": e.data["finisher"]}),
    "game-over": lambda e: LogEntry("game-over", {}),
    "theft": lambda e: LogEntry("theft", {"seat": e.seat, "victim": e.data["victim"]}),
}


# Move kinds and the log kind that says the same thing.
_MOVE_KINDS = {"place": "placed", "break": "tool-broken", "repair": "tool-repaired", "rockfall": "rockfall",
               "map": "map", "theft": "theft-laid", "hands-off": "theft-removed", "swap-hats": "hat-swapped",
               "swap-hands": "hands-swapped", "trap": "trapped", "free": "freed", "inspection": "inspection",
               "remove": "removed-own", "pass": "passed"}


def entry_for_command(command: dict, catalogue) -> LogEntry | None:
    """A round-log command in the log's terms, for the host's list of this round's moves.

    Gold picks are left out: who picks tells who the miners are.
    """
    op = command["op"]
    if op == "move":
        move = Move.from_json(command["move"])
        params: dict = {"seat": move.seat}
        if move.placement is not None:
            params.update(move.placement.to_dict())
        if move.cell is not None:
            params.update(x=move.cell[0], y=move.cell[1], face=move.card)
        if move.target is not None:
            params["target"] = move.target
        if move.kind in ("break", "repair"):
            params["tool"] = move.tool or catalogue.action(move.card).tools[0]
        if move.kind == "remove":
            params["card"] = move.tool
        return LogEntry(_MOVE_KINDS.get(move.kind, "passed"), params)
    if op == "turn":
        return LogEntry("turn-set", {"seat": command["seat"]})
    if op == "exhausted":
        return LogEntry("exhausted", {})
    if op == "steal":
        return LogEntry("theft", {"seat": command["seat"], "victim": command["victim"]})
    if op == "skip-theft":
        return LogEntry("theft-skipped", {"seat": command["seat"]})
    return None


def from_engine(events: list[Event]) -> list[LogEntry]:
    entries = []
    for event in events:
        build = _FROM_ENGINE.get(event.kind)
        entry = build(event) if build else None
        if entry is None:
            log.warning("engine event %r left out of the log", event.kind)
            continue
        entries.append(entry)
    return entries


# ------------------------------------------------------------------ words

TONES = {"placed": "good", "goal-revealed": "good", "illegal": "bad", "round-end": "round",
         "round-scored": "round", "game-over": "round", "round-started": "round"}


def describe(entry: LogEntry, names: list[str], lang: str) -> dict:
    """The entry in words for one viewer: {"id", "text", "tone"}."""
    p = dict(entry.params)
    if entry.kind == "undone":
        inner = p.pop("entry")
        p["what"] = describe(LogEntry(inner["kind"], inner["params"]), names, lang)["text"]

    def name(seat) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"

    words = {k: name(p[k]) for k in ("seat", "target", "victim", "finisher") if k in p}
    if "x" in p:
        words["cell"] = f"({p['x']},{p['y']})"
    if "tool" in p:
        words["tool"] = translate(lang, f"tool.{p['tool']}")
    if "role" in p:
        words["role"] = translate(lang, f"role.{p['role']}")
    if "card" in p:
        words["card"] = translate(lang, f"card.{p['card']}")
    if "reasons" in p:
        words["reasons"] = "; ".join(reasons.in_words(code, message, lang) for code, message in p["reasons"])
    if "reason" in p:
        words["why"] = translate(lang, "log.why-gold" if p["reason"] == "gold" else "log.why-exhausted")
    if "gold" in p:
        words["what"] = translate(lang, "goal.gold" if p["gold"] else "goal.stone")
    if entry.kind == "round-scored" and not p.get("gold_reached"):
        words["finisher"] = ""
    key = f"log.{entry.kind}"
    if entry.kind == "peek" and "target" in p:
        key = "log.peek-role"
    if entry.kind == "round-scored":
        key = "log.round-scored-gold" if p.get("gold_reached") else "log.round-scored-none"
    if entry.kind == "corrected" and p.get("face") is None:
        key = "log.corrected-clear"
    text = translate(lang, key, **{**{k: v for k, v in p.items() if k not in words}, **words})
    tone = "private" if entry.private_to is not None else TONES.get(entry.kind, "info")
    return {"id": entry.id, "text": text, "tone": tone}
