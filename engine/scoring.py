"""Who wins a round and what each player is paid.

Pure functions of the round's facts (roles, finisher, whether the gold was reached, the
door colours of the routes, handicaps). Seats are numbered clockwise (to the left), so
"counter-clockwise" (to the right) is the seat before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .options import Rules

MINER = "miner"
SABOTEUR = "saboteur"
SELFISH = "selfish-dwarf"
BLUE, GREEN = "blue-digger", "green-digger"
BOSS, PROFITEER, GEOLOGIST = "boss", "profiteer", "geologist"

# Saboteurs' payout in the base game by how many saboteurs were in play.
SABOTEUR_PAY = {1: 4, 2: 3, 3: 3, 4: 2}
# Saboteur 2: gold for each winner by how many winners (5 or more: 1 each).
WINNER_PAY = {1: 5, 2: 4, 3: 3, 4: 2}
SELFISH_PAY = 4


def counter_clockwise_from(start: int, players: int) -> list[int]:
    """Seats to the right, beginning with ``start`` itself."""
    return [(start - i) % players for i in range(players)]


@dataclass(frozen=True)
class BasePayout:
    """The base game's outcome: either a gold draft among miners, or fixed payments."""

    winners: str  # "miners" | "saboteurs" | "selfish-dwarf" | "nobody"
    draft_order: tuple[int, ...] = ()  # miners who pick in turn, around and around
    draw: int = 0  # gold cards the finisher draws for the draft
    fixed: dict[int, int] = field(default_factory=dict)  # seat -> nuggets owed


def base_payout(roles: list[str], rules: Rules, *, gold_reached: bool, finisher: int | None,
                broken: list[set[str]]) -> BasePayout:
    players = len(roles)
    if not gold_reached:
        saboteurs = [s for s, r in enumerate(roles) if r == SABOTEUR]
        if not saboteurs:
            return BasePayout("nobody")
        pay = SABOTEUR_PAY.get(len(saboteurs), 2)
        return BasePayout("saboteurs", fixed={s: pay for s in saboteurs})
    if finisher is None:
        raise ValueError("the gold was reached, so someone finished the tunnel")
    selfish_in_play = SELFISH in roles
    if roles[finisher] == SELFISH:
        return BasePayout("selfish-dwarf", fixed={finisher: SELFISH_PAY})
    miners = sum(1 for r in roles if r in (MINER, SELFISH))
    draw = min(players, 9) if rules.gold_count == "classic" else miners
    if selfish_in_play:
        draw -= 1  # he is skipped, so one gold card fewer is drawn
    order = tuple(
        s for s in counter_clockwise_from(finisher, players)
        if roles[s] == MINER and not (rules.broken_tools_forfeit and broken[s])
    )
    if not order:
        return BasePayout("miners")
    return BasePayout("miners", draft_order=order, draw=draw)


def take_worth(deck: list[int], value: int) -> list[int]:
    """Gold cards from the deck worth exactly ``value`` (fewest cards), or as close below as the deck allows.

    Saboteurs are paid "gold cards worth N nuggets"; the table makes change from the
    remaining gold cards, so the engine does the same deterministically.
    """
    best: list[int] | None = None
    values = sorted(deck, reverse=True)

    def search(i: int, chosen: list[int], total: int) -> None:
        nonlocal best
        if total == value:
            if best is None or len(chosen) < len(best):
                best = list(chosen)
            return
        if i >= len(values) or total > value or (best is not None and len(chosen) >= len(best)):
            return
        # Skip equal values already tried at this depth: the deck has many copies of each.
        tried = set()
        for j in range(i, len(values)):
            v = values[j]
            if v in tried or total + v > value:
                continue
            tried.add(v)
            chosen.append(v)
            search(j + 1, chosen, total + v)
            chosen.pop()

    search(0, [], 0)
    if best is None:  # the deck cannot make exact change: take the largest cards that fit
        best, total = [], 0
        for v in values:
            if total + v <= value:
                best.append(v)
                total += v
    for v in best:
        deck.remove(v)
    return best


# ------------------------------------------------------------------ Saboteur 2


def door_winners(door_sets: set[frozenset[str]], finisher_role: str) -> tuple[bool, bool]:
    """Which gold-digger teams win, from the door colours of the start-to-gold routes.

    ``door_sets`` holds the minimal door-colour sets of the routes: a route avoiding
    colour X exists when some set lacks X.
    """
    avoids_green = any("green" not in d for d in door_sets)
    avoids_blue = any("blue" not in d for d in door_sets)
    # "every route passes a blue door" is the negation of "some route avoids blue"
    if finisher_role == GREEN:
        blue = not avoids_blue and avoids_green
    else:
        blue = avoids_green
    if finisher_role == BLUE:
        green = not avoids_green and avoids_blue
    else:
        green = avoids_blue
    return blue, green


@dataclass(frozen=True)
class Saboteur2Payout:
    winners: tuple[int, ...]
    pay: dict[int, int]  # seat -> gold this round, before thefts
    geologists: dict[int, int]


def saboteur2_payout(roles: list[str], *, gold_reached: bool, finisher: int | None,
                     door_sets: set[frozenset[str]], trapped: list[bool], crystals: int) -> Saboteur2Payout:
    players = range(len(roles))
    # Geologists are paid first, one gold per crystal, split (rounded down) between them.
    # A trapped player "is not counted in the calculation" (Czech seed), so a trapped
    # geologist takes nothing and the free one is paid as if alone.
    geologists = [s for s in players if roles[s] == GEOLOGIST and not trapped[s]]
    geo_pay = {s: crystals // len(geologists) for s in geologists}
    winning_roles: set[str] = {PROFITEER}
    if not gold_reached:
        winning_roles.add(SABOTEUR)
    else:
        blue, green = door_winners(door_sets, roles[finisher] if finisher is not None else "")
        if blue:
            winning_roles.add(BLUE)
        if green:
            winning_roles.add(GREEN)
        winning_roles.add(BOSS)  # the boss passes every door, so he wins whenever the gold is reached
        if not (blue or green) and BOSS not in roles and PROFITEER not in roles:
            winning_roles.add(SABOTEUR)  # every route blocked by both colours and nobody to pass them
    winners = tuple(s for s in players if roles[s] in winning_roles and not trapped[s])
    each = WINNER_PAY.get(len(winners), 1) if winners else 0
    pay = {}
    for s in winners:
        cut = {BOSS: 1, PROFITEER: 2}.get(roles[s], 0)
        pay[s] = max(0, each - cut)
    for s, g in geo_pay.items():
        pay[s] = pay.get(s, 0) + g
    return Saboteur2Payout(winners, pay, geo_pay)


def theft_order(theft_laid: dict[int, int], trapped: list[bool], players: int) -> list[int]:
    """Thieves in the order they steal: the last to lay a theft card first, then clockwise."""
    thieves = [s for s in theft_laid if not trapped[s]]
    if not thieves:
        return []
    last = max(thieves, key=lambda s: theft_laid[s])
    return [s for s in ((last + i) % players for i in range(players)) if s in thieves]


def ranking(totals: list[int]) -> list[tuple[int, int, int]]:
    """(rank, seat, gold) best first; equal gold shares a rank (and a victory)."""
    order = sorted(range(len(totals)), key=lambda s: (-totals[s], s))
    out = []
    for i, s in enumerate(order):
        rank = out[-1][0] if i and totals[s] == out[-1][2] else i + 1
        out.append((rank, s, totals[s]))
    return out
