"""Rule options: which game is played and the named choices where rule texts differ."""

from __future__ import annotations

from dataclasses import dataclass, replace

GAMES = ("saboteur", "saboteur2")
GOLD_COUNTS = ("classic", "miners")
NEXT_STARTERS = ("last-card", "last-path-card")

OPTION_HELP = {
    "gold-count=classic": "the finisher draws one gold card per player, at most 9 (Spanish text, 2004 rules)",
    "gold-count=miners": "the finisher draws one gold card per miner, so each miner gets one (Polish edition 3.0)",
    "next-starter=last-card": "the next round starts left of whoever played the last card (Spanish text; digest default)",
    "next-starter=last-path-card": "the next round starts left of whoever played the last path card (Polish text)",
    "broken-tools-forfeit": "a miner with a broken tool at the end of a won round gets no gold (designer's option)",
    "selfish-dwarf": "the red-jacket miner joins the dwarf cards; he wins alone if he reaches the gold (designer's option)",
}


class OptionError(ValueError):
    pass


@dataclass(frozen=True)
class Rules:
    game: str = "saboteur"
    gold_count: str = "classic"
    broken_tools_forfeit: bool = False
    selfish_dwarf: bool = False
    next_starter: str = "last-card"

    @property
    def expansion(self) -> bool:
        return self.game == "saboteur2"

    @property
    def sets(self) -> tuple[str, ...]:
        return ("base", "saboteur2") if self.expansion else ("base",)

    @classmethod
    def parse(cls, game: str = "saboteur", options: str | list[str] | tuple[str, ...] = ()) -> Rules:
        """Rules from a game name and options such as "gold-count=miners,selfish-dwarf"."""
        if game not in GAMES:
            raise OptionError(f"unknown game {game!r}: choose saboteur or saboteur2")
        if isinstance(options, str):
            options = [o for o in options.split(",")]
        rules = cls(game=game)
        for raw in options:
            option = raw.strip()
            if not option:
                continue
            if option.startswith("gold-count="):
                value = option.split("=", 1)[1]
                if value not in GOLD_COUNTS:
                    raise OptionError(f"gold-count is classic or miners, not {value!r}")
                rules = replace(rules, gold_count=value)
            elif option.startswith("next-starter="):
                value = option.split("=", 1)[1]
                if value not in NEXT_STARTERS:
                    raise OptionError(f"next-starter is last-card or last-path-card, not {value!r}")
                rules = replace(rules, next_starter=value)
            elif option == "broken-tools-forfeit":
                rules = replace(rules, broken_tools_forfeit=True)
            elif option == "selfish-dwarf":
                rules = replace(rules, selfish_dwarf=True)
            else:
                raise OptionError(f"unknown rule option {option!r}; known: {', '.join(OPTION_HELP)}")
        if rules.expansion and (rules.selfish_dwarf or rules.broken_tools_forfeit or rules.gold_count != "classic"):
            raise OptionError("the rule options belong to the base game; Saboteur 2 scores with its own roles")
        return rules

    def options(self) -> list[str]:
        out = []
        if self.gold_count != "classic":
            out.append(f"gold-count={self.gold_count}")
        if self.next_starter != "last-card":
            out.append(f"next-starter={self.next_starter}")
        if self.broken_tools_forfeit:
            out.append("broken-tools-forfeit")
        if self.selfish_dwarf:
            out.append("selfish-dwarf")
        return out

    def to_json(self) -> dict:
        return {"game": self.game, "options": self.options()}

    @classmethod
    def from_json(cls, doc: dict) -> Rules:
        return cls.parse(doc.get("game", "saboteur"), doc.get("options", []))
