"""`tunnelvision check`'s report in words: what a player reads to settle a placement."""

from tunnelvision.vision_cli import describe
from vision.observation import Observation, SeenCard, Unsure


def test_the_report_marks_the_cells_it_could_not_read_on_the_map_and_says_why_in_words():
    # a hand over two cells beyond the cards read: on the map they must not look like bare
    # table; the words name them once for their reason (a maze running out of the photo
    # leaves a score of cells for one)
    observation = Observation(cards=[SeenCard(0, 0, "start", 0, 1.0), SeenCard(1, 0, "straight-ew", 0, 0.99)],
                              uncertain=[Unsure(3, 1, "occluded"), Unsure(1, -1, "low-confidence"),
                                         Unsure(2, 1, "occluded")], ms=5.0)
    lines = describe(observation, "table.jpg").splitlines()
    assert lines[0] == "table.jpg: 2 cards read, 3 uncertain (5 ms)"
    row = {line[:4].strip(): line for line in lines[2:] if line[:4].strip().lstrip("-").isdigit()}
    assert row["1"].endswith("~~~  ~~~") and "~~~" in row["-1"]
    assert "  (2,1), (3,1) uncertain (occluded): under a hand" in lines
    assert "  (1,-1) uncertain (low-confidence): low confidence" in lines


CUT_OFF = "Cut off from the start (legal only if a rockfall has cut them off since they were laid):"


def test_a_card_whose_way_to_the_start_may_run_under_a_hand_is_not_said_to_break_the_rules():
    # a straight two cells east of the start, the cell between them under a hand: a card may
    # lie there and join them, so the report must not accuse the straight; the same maze with
    # that cell seen bare has the straight cut off from the start (it touches no card of the
    # maze), which a rockfall on the card between them, since it was laid, would explain
    cards = [SeenCard(0, 0, "start", 0, 1.0), SeenCard(2, 0, "straight-ew", 0, 0.99)]
    hidden = describe(Observation(cards=cards, uncertain=[Unsure(1, 0, "occluded")]), "table.jpg").splitlines()
    assert "The maze breaks the rules:" not in hidden and CUT_OFF not in hidden
    assert "Every card agrees with its neighbours and, as far as the cells read show, connects to the start." in hidden
    seen = describe(Observation(cards=cards), "table.jpg").splitlines()
    assert "The maze breaks the rules:" not in seen and "Every card agrees with its neighbours." in seen
    assert seen[seen.index(CUT_OFF) + 1] == "  (2,0): (2,0) does not touch any card of the maze"


def test_a_card_that_meets_a_tunnel_with_rock_breaks_the_rules_beside_one_cut_off():
    # a straight east-west cut off from the start, and one north of the start whose south
    # edge is rock against the start's tunnel: no rockfall explains that one
    cards = [SeenCard(0, 0, "start", 0, 1.0), SeenCard(2, 0, "straight-ew", 0, 0.99),
             SeenCard(0, 1, "straight-ew", 0, 0.99)]
    lines = describe(Observation(cards=cards), "table.jpg").splitlines()
    broken = lines.index("The maze breaks the rules:")
    assert lines[broken + 1].startswith("  (0,1): ") and "the south edge is rock" in lines[broken + 1]
    assert lines[lines.index(CUT_OFF) + 1].startswith("  (2,0): ")


def test_a_card_that_meets_rock_beside_it_breaks_the_rules_whatever_could_not_be_read():
    # a straight north-south east of a straight east-west: its west edge is rock against a
    # tunnel, between two cards read, and a hand over the cell north of it does not excuse that
    cards = [SeenCard(0, 0, "start", 0, 1.0), SeenCard(1, 0, "straight-ew", 0, 0.99),
             SeenCard(2, 0, "straight-ns", 0, 0.99)]
    lines = describe(Observation(cards=cards, uncertain=[Unsure(2, 1, "occluded")]), "table.jpg").splitlines()
    (accused,) = [line for line in lines if line.startswith("  (2,0): ")]
    assert "the west edge is rock but the card at (1,0) has a tunnel there" in accused


def answer(observation, cell) -> str:
    """The line of the report that answers on the contested card."""
    from vision.observation import rule_on

    (line,) = [line for line in describe(observation, "table.jpg", rule_on(observation, cell)).splitlines()
               if line.startswith("The card ")]
    return line


def test_the_contested_card_is_judged_as_the_card_laid_last():
    # a straight cut off from the start: the report lists it apart (a rockfall may have cut
    # it off since it was laid), but contested, it was laid last, so nothing can have
    # cut it off since: it is illegal; with a hand over the cell between it and the start,
    # legal as far as the cells read show
    from vision.observation import rule_on

    cards = [SeenCard(0, 0, "start", 0, 1.0), SeenCard(2, 0, "straight-ew", 0, 0.99),
             SeenCard(1, 1, "cross", 0, 0.99), SeenCard(0, 1, "curve-nw", 180, 0.99)]
    seen = Observation(cards=cards)
    assert CUT_OFF in describe(seen, "table.jpg").splitlines()
    assert answer(seen, (2, 0)) == ("The card laid last, straight-ew at (2,0), is illegal: (2,0) does not touch "
                                    "any card of the maze.")
    assert answer(seen, (1, 1)) == "The card laid last, cross at (1,1), is legal."
    hidden = Observation(cards=cards, uncertain=[Unsure(1, 0, "occluded")])
    assert answer(hidden, (2, 0)) == (
        "The card laid last, straight-ew at (2,0), is legal as far as the cells read show: its way back to the "
        "start may run under a cell not read surely.")
    assert rule_on(hidden, (2, 0)).to_dict() == {
        "x": 2, "y": 0, "face": "straight-ew", "rotation": 0, "legal": True, "reasons": [], "reveals": [],
        "gold_reached": False, "as_far_as_read": True}


def test_with_a_card_contested_the_cards_it_meets_against_the_rules_are_not_accused_with_it():
    # a crossroads laid north of a straight east-west: judged each as if laid last, both
    # break the rules; the crossroads contested, the maze before it was legal
    cards = [SeenCard(0, 0, "start", 0, 1.0), SeenCard(1, 0, "straight-ew", 0, 0.99),
             SeenCard(1, 1, "cross", 0, 0.99)]
    plain = describe(Observation(cards=cards), "table.jpg").splitlines()
    broken = plain.index("The maze breaks the rules:")
    assert [line[:8] for line in plain[broken + 1:broken + 3]] == ["  (1,0):", "  (1,1):"]
    from vision.observation import rule_on

    seen = Observation(cards=cards)
    lines = describe(seen, "table.jpg", rule_on(seen, (1, 1))).splitlines()
    ruled = lines.index("The card laid last, cross at (1,1), is illegal: the south edge is a tunnel but the card "
                        "at (1,0) has rock there; no tunnel of this card meets a tunnel that leads back to the start.")
    assert lines[ruled + 1] == "Every card laid before it agrees with its neighbours and connects to the start."


def test_a_contested_cell_that_holds_no_card_played_or_one_not_read_surely_is_not_judged():
    from vision.observation import rule_on

    seen = Observation(cards=[SeenCard(0, 0, "start", 0, 1.0), SeenCard(1, 0, "straight-ew", 0, 0.99)],
                       uncertain=[Unsure(2, 0, "occluded")])
    assert {cell: answer(seen, cell) for cell in ((2, 0), (3, 0), (0, 0))} == {
        (2, 0): "The card at (2,0) cannot be judged: the card there could not be read surely (under a hand): take "
                "another photo, nearer, with it in plain view.",
        (3, 0): "The card at (3,0) cannot be judged: no card was read there.",
        (0, 0): "The card at (0,0) cannot be judged: it holds the start card, laid at the set-up, not played."}
    assert rule_on(seen, (3, 0)).to_dict() == {"x": 3, "y": 0, "error": "no card was read there"}


def test_the_contested_cell_is_written_as_the_map_names_it_west_and_south_of_the_start_too():
    from tunnelvision.cli import _cells_attached, build_parser

    def contested(*argv):
        return build_parser().parse_args(_cells_attached(["check", "table.jpg", *argv])).contested

    assert contested("--contested", "3,1") == (3, 1)
    assert contested("--contested", "-1,-2") == (-1, -2)
    assert contested("--contested", "(-1,2)") == (-1, 2)
    assert contested("--contested=2,-1") == (2, -1)
    assert contested() is None
