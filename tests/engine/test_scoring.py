"""Who wins a round and what each player is paid (rules/saboteur.md, rules/saboteur2.md)."""

from __future__ import annotations

import pytest

from engine.options import Rules
from engine.scoring import (
    BasePayout,
    base_payout,
    counter_clockwise_from,
    door_winners,
    ranking,
    saboteur2_payout,
    take_worth,
    theft_order,
)

M, S, SD = "miner", "saboteur", "selfish-dwarf"
BLUE, GREEN, BOSS, PROF, GEO = "blue-digger", "green-digger", "boss", "profiteer", "geologist"

CLASSIC = Rules.parse("saboteur")
MINERS = Rules.parse("saboteur", "gold-count=miners")
FORFEIT = Rules.parse("saboteur", "broken-tools-forfeit")
SELFISH = Rules.parse("saboteur", "selfish-dwarf")
SELFISH_MINERS = Rules.parse("saboteur", "selfish-dwarf,gold-count=miners")

NONE: frozenset = frozenset()
B, G, BG = frozenset({"blue"}), frozenset({"green"}), frozenset({"blue", "green"})


def payout(roles, rules=CLASSIC, *, finisher=0, gold=True, broken=None) -> BasePayout:
    return base_payout(roles, rules, gold_reached=gold, finisher=finisher if gold else None,
                       broken=broken or [set() for _ in roles])


# ----------------------------------------------------------------- base game: the draft


def test_counter_clockwise_is_to_the_right_starting_with_oneself():
    assert counter_clockwise_from(0, 5) == [0, 4, 3, 2, 1]
    assert counter_clockwise_from(2, 4) == [2, 1, 0, 3]


@pytest.mark.parametrize("players,draw", [(3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (10, 9)])
def test_classic_draws_one_card_per_player_at_most_nine(players, draw):
    roles = [M] * (players - 1) + [S]
    p = payout(roles)
    assert p.winners == "miners"
    assert p.draw == draw
    assert p.fixed == {}


@pytest.mark.parametrize("roles,draw", [
    ([M, S, M, M, S], 3),
    ([M, M, M, S], 3),
    ([M] * 7 + [S] * 3, 7),  # 10 players, 7 miners: 7 cards, not 9
    ([M, M, M], 3),
])
def test_miners_mode_draws_one_card_per_miner(roles, draw):
    p = payout(roles, MINERS)
    assert p.draw == draw
    assert len(p.draft_order) == draw  # so each miner gets exactly one


def test_draft_goes_counter_clockwise_from_the_finisher_skipping_saboteurs():
    roles = [M, S, M, M, S]
    assert payout(roles, finisher=0).draft_order == (0, 3, 2)
    assert payout(roles, finisher=2).draft_order == (2, 0, 3)
    assert payout(roles, finisher=3).draft_order == (3, 2, 0)


def test_saboteur_finisher_starts_with_the_first_miner_to_their_right():
    roles = [M, M, S, M]
    p = payout(roles, finisher=2)
    assert p.winners == "miners"  # the miners still win
    assert p.draft_order == (1, 0, 3)
    roles = [M, S, S, M, M]
    assert payout(roles, finisher=2).draft_order == (0, 4, 3)  # seat 1 (saboteur) skipped too


def test_broken_tools_forfeit_skips_broken_miners_only_with_the_option():
    roles = [M, M, S, M, M]
    broken = [set(), {"pickaxe"}, {"cart"}, set(), {"lantern", "cart"}]
    assert payout(roles, finisher=0, broken=broken).draft_order == (0, 4, 3, 1)
    assert payout(roles, FORFEIT, finisher=0, broken=broken).draft_order == (0, 3)
    # a broken finisher forfeits too; the draft starts with the next unbroken miner
    assert payout(roles, FORFEIT, finisher=1, broken=broken).draft_order == (0, 3)


def test_broken_tools_forfeit_does_not_touch_saboteurs():
    roles = [S, M, S, M]
    broken = [{"pickaxe"}, set(), {"cart"}, set()]
    p = payout(roles, FORFEIT, gold=False, broken=broken)
    assert p.winners == "saboteurs" and p.fixed == {0: 3, 2: 3}


def test_selfish_dwarf_alone_gets_four():
    roles = [M, SD, S, M]
    p = payout(roles, SELFISH, finisher=1)
    assert p.winners == "selfish-dwarf"
    assert p.fixed == {1: 4}
    assert p.draft_order == () and p.draw == 0


def test_selfish_dwarf_is_skipped_and_one_card_fewer_is_drawn():
    roles = [M, SD, S, M, M]
    p = payout(roles, SELFISH, finisher=0)
    assert p.winners == "miners"
    assert p.draft_order == (0, 4, 3)
    assert p.draw == 4  # players - 1
    p = payout(roles, SELFISH_MINERS, finisher=0)
    assert p.draw == 3  # miners in play (4, him included) - 1
    # a saboteur finishing: he is still skipped
    p = payout(roles, SELFISH, finisher=2)
    assert p.draft_order == (0, 4, 3) and p.draw == 4


def test_selfish_dwarf_only_in_the_deal_pile_changes_nothing():
    # with the option on but his card the undealt extra, the count is the ordinary one
    assert payout([M, M, S, M], SELFISH).draw == 4


@pytest.mark.parametrize("saboteurs,each", [(1, 4), (2, 3), (3, 3), (4, 2)])
def test_saboteurs_win_four_three_three_two_by_count(saboteurs, each):
    roles = [S] * saboteurs + [M] * 4
    p = payout(roles, gold=False)
    assert p.winners == "saboteurs"
    assert p.fixed == {s: each for s in range(saboteurs)}
    assert p.draft_order == () and p.draw == 0


def test_no_saboteur_and_no_gold_pays_nobody():
    p = payout([M, M, M], gold=False)
    assert p == BasePayout("nobody")
    p = payout([M, SD, M, M], SELFISH, gold=False)
    assert p.winners == "nobody" and p.fixed == {}


def test_gold_reached_needs_a_finisher():
    with pytest.raises(ValueError, match="someone finished"):
        base_payout([M, S, M], CLASSIC, gold_reached=True, finisher=None, broken=[set()] * 3)


# ----------------------------------------------------------------- making change


@pytest.mark.parametrize("deck,value,taken,left", [
    ([1, 1, 2, 3, 3], 4, [3, 1], [1, 2, 3]),
    ([1, 1, 1, 1, 2, 2], 4, [2, 2], [1, 1, 1, 1]),  # fewest cards
    ([3, 2, 2], 4, [2, 2], [3]),  # exact change rather than the biggest card
    ([3, 3, 1, 1, 1], 2, [1, 1], [3, 3, 1]),
    ([3, 2, 1], 3, [3], [2, 1]),
    ([3, 3, 2], 6, [3, 3], [2]),
    ([3, 3, 3], 4, [3], [3, 3]),  # no exact change: as close below as possible
    ([3], 2, [], [3]),
    ([1, 2, 3], 0, [], [1, 2, 3]),
])
def test_take_worth_makes_exact_change_with_fewest_cards(deck, value, taken, left):
    deck = list(deck)
    got = take_worth(deck, value)
    assert sorted(got, reverse=True) == sorted(taken, reverse=True)
    assert sorted(deck) == sorted(left)


def test_take_worth_from_a_full_gold_deck():
    deck = [1] * 16 + [2] * 8 + [3] * 4
    assert sorted(take_worth(deck, 4)) == [1, 3]
    assert sorted(take_worth(deck, 4)) == [1, 3]
    assert sorted(take_worth(deck, 3)) == [3]
    assert sorted(take_worth(deck, 3)) == [3]
    assert sorted(take_worth(deck, 3)) == [1, 2]  # no 3s left
    assert sum(deck) == 44 - 17 and len(deck) == 28 - 8


# ----------------------------------------------------------------- Saboteur 2: doors

# Finishers who are not gold-diggers behave alike.
OTHER_ROLES = [BOSS, PROF, S, GEO]
# (name, door sets of the routes, finisher, (blue wins, green wins)), spelled out from the digest:
# blue wins if the finisher is not green and some route has no green door, or the finisher is
# green and every route passes a blue door and one of those has no green door; green likewise.
DOOR_TABLE = [
    ("no doors", {NONE}, BLUE, (True, False)),
    ("no doors", {NONE}, GREEN, (False, True)),
    ("no doors", {NONE}, "other", (True, True)),
    ("blue on every route", {B}, BLUE, (True, False)),
    ("blue on every route", {B}, GREEN, (True, False)),
    ("blue on every route", {B}, "other", (True, False)),
    ("green on every route", {G}, BLUE, (False, True)),
    ("green on every route", {G}, GREEN, (False, True)),
    ("green on every route", {G}, "other", (False, True)),
    ("a blue route and a green route", {B, G}, BLUE, (True, False)),
    ("a blue route and a green route", {B, G}, GREEN, (False, True)),
    ("a blue route and a green route", {B, G}, "other", (True, True)),
    ("both colours on every route", {BG}, BLUE, (False, False)),
    ("both colours on every route", {BG}, GREEN, (False, False)),
    ("both colours on every route", {BG}, "other", (False, False)),
]


@pytest.mark.parametrize("name,doors,finisher,expected", DOOR_TABLE,
                         ids=[f"{n}-{f}" for n, _, f, _ in DOOR_TABLE])
def test_door_winners_truth_table(name, doors, finisher, expected):
    for role in (OTHER_ROLES if finisher == "other" else [finisher]):
        assert door_winners(set(doors), role) == expected, (name, role)


def test_door_winners_blue_door_route_and_green_finisher_from_the_worked_example():
    # "Had a green digger completed the same tunnel, blue would still win because of the blue door."
    assert door_winners({B}, GREEN) == (True, False)
    assert door_winners({B}, BOSS) == (True, False)


# ----------------------------------------------------------------- Saboteur 2: payouts


def s2(roles, *, gold=True, finisher=0, doors=None, trapped=None, crystals=0):
    return saboteur2_payout(roles, gold_reached=gold, finisher=finisher if gold else None,
                            door_sets=(doors if doors is not None else {NONE}) if gold else set(),
                            trapped=trapped or [False] * len(roles), crystals=crystals)


WORKED = [BLUE, GREEN, GREEN, BOSS, PROF, S, S]


def test_worked_example_boss_completes_through_a_blue_door():
    p = s2(WORKED, finisher=3, doors={B})
    assert p.winners == (0, 3, 4)
    assert p.pay == {0: 3, 3: 2, 4: 1}
    assert p.geologists == {}


def test_worked_example_green_finisher_variant():
    p = s2(WORKED, finisher=1, doors={B})
    assert p.winners == (0, 3, 4)
    assert p.pay == {0: 3, 3: 2, 4: 1}


def test_worked_example_only_the_untrapped_saboteur_steals():
    # both saboteurs (seats 5 and 6) laid a theft card; seat 5 is trapped
    trapped = [False] * 5 + [True, False]
    p = s2(WORKED, finisher=3, doors={B}, trapped=trapped)
    assert p.pay == {0: 3, 3: 2, 4: 1}  # saboteurs were not winners anyway
    assert theft_order({5: 10, 6: 12}, trapped, 7) == [6]
    assert theft_order({5: 12, 6: 10}, trapped, 7) == [6]


def test_lone_boss_gets_four():
    p = s2([BOSS, S, GEO], finisher=0, doors={BG})  # every route blocked by both colours
    assert p.winners == (0,) and p.pay[0] == 4 and p.pay.get(2, 0) == 0  # no crystals for the geologist
    p = s2([BOSS, S], finisher=1, doors={NONE})  # the teams win but nobody plays them
    assert p.winners == (0,) and p.pay == {0: 4}


def test_lone_profiteer_gets_three_when_no_gold_and_no_saboteur():
    p = s2([PROF, BLUE, GREEN], gold=False)
    assert p.winners == (0,) and p.pay == {0: 3}


def test_lone_profiteer_when_only_blue_diggers_play_and_a_green_door_blocks_every_route():
    p = s2([BLUE, BLUE, PROF], finisher=0, doors={G})
    assert p.winners == (2,) and p.pay == {2: 3}
    p = s2([BLUE, PROF, BLUE], finisher=1, doors={G})
    assert p.winners == (1,) and p.pay == {1: 3}


def test_both_colours_everywhere_boss_and_profiteer_win_alone():
    p = s2([BLUE, GREEN, S, PROF], finisher=0, doors={BG})
    assert p.winners == (3,) and p.pay == {3: 3}
    p = s2([BLUE, GREEN, S, PROF, BOSS], finisher=0, doors={BG})
    assert p.winners == (3, 4) and p.pay == {3: 2, 4: 3}


def test_both_colours_everywhere_and_no_boss_or_profiteer_the_saboteurs_win():
    p = s2([BLUE, GREEN, S, S], finisher=0, doors={BG})
    assert p.winners == (2, 3) and p.pay == {2: 4, 3: 4}


def test_gold_not_reached_saboteurs_and_profiteer_win():
    p = s2([S, BLUE, PROF, S, GREEN, BOSS], gold=False)
    assert p.winners == (0, 2, 3)
    assert p.pay == {0: 3, 2: 1, 3: 3}


def test_gold_reached_saboteurs_lose():
    p = s2([S, BLUE, GREEN], finisher=1, doors={NONE})
    assert p.winners == (1,)  # the blue finisher on a doorless route: green does not win
    assert p.pay == {1: 5}
    p = s2([S, BLUE, GREEN], finisher=0, doors={NONE})
    assert p.winners == (1, 2) and p.pay == {1: 4, 2: 4}


@pytest.mark.parametrize("winners,each", [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1), (6, 1), (8, 1)])
def test_gold_per_winner_count(winners, each):
    roles = [S] * winners + [BLUE]
    p = s2(roles, gold=False)
    assert p.pay == {s: each for s in range(winners)}


def test_boss_one_less_profiteer_two_less_never_below_zero():
    p = s2([BLUE, BLUE, BOSS, PROF], finisher=0, doors={NONE})  # 4 winners: 2 each
    assert p.pay == {0: 2, 1: 2, 2: 1, 3: 0}
    p = s2([BLUE] * 4 + [BOSS, PROF], finisher=0, doors={NONE})  # 6 winners: 1 each
    assert p.pay == {0: 1, 1: 1, 2: 1, 3: 1, 4: 0, 5: 0}


def test_geologists_are_paid_per_crystal_and_are_not_winners():
    p = s2([GEO, BLUE, S], finisher=1, doors={NONE}, crystals=7)
    assert p.geologists == {0: 7}
    assert p.winners == (1,)
    assert p.pay == {0: 7, 1: 5}


def test_two_geologists_split_the_crystals_rounding_down():
    p = s2([GEO, BLUE, GEO, S], finisher=1, doors={NONE}, crystals=7)
    assert p.geologists == {0: 3, 2: 3}
    assert p.pay == {0: 3, 1: 5, 2: 3}
    p = s2([GEO, GEO, S], gold=False, crystals=1)
    assert p.geologists == {0: 0, 1: 0}
    assert p.pay.get(0, 0) == 0 and p.pay.get(1, 0) == 0 and p.pay[2] == 5


def test_a_trapped_geologist_takes_nothing_and_the_other_is_paid_as_if_alone():
    # The digest leaves the split open; the engine's documented reading (scoring.py): a trapped
    # player "is not counted in the calculation", so the free geologist takes every crystal.
    p = s2([GEO, BLUE, GEO], finisher=1, doors={NONE}, trapped=[True, False, False], crystals=7)
    assert p.geologists == {2: 7}
    assert 0 not in p.pay and p.pay[2] == 7


def test_trapped_players_are_not_winners_and_take_no_share():
    trapped = [True, False, False, False, False, False, False]  # the blue digger is trapped
    p = s2(WORKED, finisher=3, doors={B}, trapped=trapped)
    assert p.winners == (3, 4)  # two winners: 4 each, less the cuts
    assert p.pay == {3: 3, 4: 2}
    p = s2([S, S, BLUE], gold=False, trapped=[False, True, False])
    assert p.winners == (0,) and p.pay == {0: 5}


# ----------------------------------------------------------------- thefts and ranking


def test_theft_order_last_laid_first_then_clockwise():
    assert theft_order({2: 5, 0: 9, 4: 7}, [False] * 5, 5) == [0, 2, 4]
    assert theft_order({2: 5, 4: 9, 0: 7}, [False] * 5, 5) == [4, 0, 2]
    assert theft_order({1: 3}, [False] * 3, 3) == [1]
    assert theft_order({}, [False] * 3, 3) == []


def test_trapped_thieves_do_not_steal():
    trapped = [False, False, False, False, True]
    assert theft_order({2: 5, 4: 9, 0: 7}, trapped, 5) == [0, 2]
    assert theft_order({4: 9}, trapped, 5) == []


def test_ranking_with_shared_ranks():
    assert ranking([5, 7, 7, 0]) == [(1, 1, 7), (1, 2, 7), (3, 0, 5), (4, 3, 0)]
    assert ranking([3, 3, 3]) == [(1, 0, 3), (1, 1, 3), (1, 2, 3)]
    assert ranking([0, 9, 4, 4, 2]) == [(1, 1, 9), (2, 2, 4), (2, 3, 4), (4, 4, 2), (5, 0, 0)]
