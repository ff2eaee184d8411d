"""The tracker commits only what holds still, never while hands move, and never flip-flops."""

from engine.board import Board, Placement
from vision.observation import MAYBE_EMPTY, Observation, SeenCard, Unsure
from vision.track import MazeTracker

START = [SeenCard(0, 0, "start", 0, 0.99), SeenCard(8, 2, "goal-back", 0, 0.99),
         SeenCard(8, 0, "goal-back", 0, 0.99), SeenCard(8, -2, "goal-back", 0, 0.99)]


def seen(*extra: SeenCard, uncertain=()) -> Observation:
    return Observation(cards=list(START) + list(extra), uncertain=list(uncertain))


def run(tracker: MazeTracker, frames, start=0.0, dt=0.1):
    events = []
    t = start
    for obs, empty, busy in frames:
        events += tracker.update(obs, empty, t, busy)
        t += dt
    return events, t


def settled() -> tuple[MazeTracker, float]:
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    events, t = run(tracker, [(seen(), {(1, 0)}, False)] * 18)
    assert [e.kind for e in events] == ["maze-seen"]
    return tracker, t


def test_cards_that_steady_just_after_the_first_view_join_it_without_a_verdict():
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    late = SeenCard(5, 0, "cross", 0, 0.95)  # cut off from the start: judged, it would be illegal
    frames = [(seen(), set(), False)] * 7 + [(seen(late), set(), False)] * 8
    events, _ = run(tracker, frames)
    assert [e.kind for e in events] == ["maze-seen", "maze-seen"] and "1 more card" in events[1].text
    assert tracker.board.at((5, 0)) is not None


def test_a_card_on_a_cell_the_first_view_saw_bare_is_a_move_even_just_after_it():
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    # the hand need not be seen over the maze (it may come in from the side): the cell was bare
    frames = [(seen(), {(1, 0)}, False)] * 7 + [(seen(), {(1, 0)}, True)] + [(seen(card), set(), False)] * 7
    events, _ = run(tracker, frames)
    assert [e.kind for e in events] == ["maze-seen", "placed"] and events[1].verdict.legal


def test_a_card_of_the_first_view_read_late_joins_it_even_after_a_hand_passed():
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    late = SeenCard(1, 0, "straight-ew", 0, 0.98)  # unsure at first (not bare), then read
    frames = [(seen(uncertain=[Unsure(1, 0, "low-confidence")]), set(), False)] * 7 + \
             [(seen(), set(), True)] + [(seen(late), set(), False)] * 7
    events, _ = run(tracker, frames)
    assert [e.kind for e in events] == ["maze-seen", "maze-seen"]  # no move announced


def test_a_card_of_the_first_view_read_only_much_later_joins_it_unless_its_cell_was_seen_bare():
    late = SeenCard(1, 0, "straight-ew", 0, 0.98)
    unread = seen(uncertain=[Unsure(1, 0, "low-confidence")])
    # unsure for long after the first view (worn, or under glare), then read: no move
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    events, _ = run(tracker, [(unread, set(), False)] * 40 + [(seen(late), set(), False)] * 7)
    assert [e.kind for e in events] == ["maze-seen", "maze-seen"] and tracker.board.at((1, 0)) is not None
    # seen bare in between: whatever lies there now was laid
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    frames = [(unread, set(), False)] * 40 + [(seen(), {(1, 0)}, False)] * 3 + [(seen(late), set(), False)] * 7
    events, _ = run(tracker, frames)
    assert [e.kind for e in events] == ["maze-seen", "placed"]


def test_something_that_is_no_maze_card_holds_back_its_neighbours_only_while_it_is_new():
    tracker, t = settled()
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    loose = Unsure(-2, 3, "not-a-maze-card")  # a loose card over the corner of a cell off the maze
    events, t = run(tracker, [(seen(card, uncertain=[loose]), set(), False)] * 8, start=t)
    assert [e.kind for e in events] == ["placed"]
    # fingers on (2,1) as the next card is laid beside them: nothing there commits while new
    beside = Unsure(2, 1, "not-a-maze-card")
    card2 = SeenCard(2, 0, "straight-ew", 0, 0.98)
    events, t = run(tracker, [(seen(card, card2, uncertain=[beside]), set(), False)] * 5, start=t)
    assert events == []
    # lying still for a hold, it is a loose card: the card beside it commits after its own hold
    events, _ = run(tracker, [(seen(card, card2, uncertain=[beside]), set(), False)] * 8, start=t)
    assert [e.kind for e in events] == ["placed"] and events[0].cell == (2, 0)


def test_something_that_lay_still_stays_settled_while_a_hand_lays_a_card_beside_it():
    tracker, t = settled()
    still = Unsure(1, 1, "not-a-maze-card")  # a card read as no maze card, lying there all along
    events, t = run(tracker, [(seen(uncertain=[still]), set(), False)] * 8, start=t)
    assert events == []
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    frames = [(seen(uncertain=[still]), set(), True)] * 5 + [(seen(card, uncertain=[still]), set(), False)] * 6
    events, t = run(tracker, frames, start=t)
    # committed after the card's own hold: the hand did not make the still neighbour new again
    assert [e.kind for e in events] == ["placed"] and events[0].cell == (1, 0)
    # something that turned up while the hand moved is new: it holds back the cell beside it
    fresh = Unsure(2, 1, "not-a-maze-card")
    card2 = SeenCard(2, 0, "straight-ew", 0, 0.98)
    frames = [(seen(card, uncertain=[still, fresh]), set(), True)] * 5 + \
             [(seen(card, card2, uncertain=[still, fresh]), set(), False)] * 6
    events, _ = run(tracker, frames, start=t)
    assert events == []


def test_a_quiet_change_is_committed_once_with_the_engine_verdict():
    tracker, t = settled()
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    events, _ = run(tracker, [(seen(card), set(), False)] * 12, start=t)
    assert [e.kind for e in events] == ["placed"]
    assert events[0].verdict.legal and events[0].placement == Placement(1, 0, "straight-ew", 0)
    assert tracker.board.at((1, 0)) == Placement(1, 0, "straight-ew", 0)


def test_a_card_is_committed_only_once_it_is_read_so_again_about_its_cell():
    """The tracker asks ``confirm`` about each card it is about to commit; a card that does
    not hold (a T read as a crossroads on a lattice a little off) waits, however long the
    view holds, and is committed once it holds."""
    tracker, t = settled()
    card = SeenCard(1, 0, "cross", 0, 0.99)
    asked = []

    def doubts(cards):
        asked.append(dict(cards))
        return set()

    events = []
    for _ in range(30):
        events += tracker.update(seen(card), set(), t, False, confirm=doubts)
        t += 0.1
    assert events == [] and tracker.board.at((1, 0)) is None
    # asked once a hold (0.5 s, three frames) is over, about the card alone, and again after each
    assert asked[0] == {(1, 0): ("cross", 0)} and 4 <= len(asked) <= 6
    for _ in range(6):
        events += tracker.update(seen(card), set(), t, False, confirm=lambda cards: set(cards))
        t += 0.1
    assert [e.kind for e in events] == ["placed"] and tracker.board.at((1, 0)) == Placement(1, 0, "cross", 0)


def test_a_card_of_the_first_view_that_does_not_hold_joins_it_once_it_holds():
    """A card the confirmation doubts before the first view (the start not yet held still)
    is a card not read yet, not a bare cell: read so later, it joins the first view instead
    of being announced as laid."""
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    no_start = Observation(cards=START[1:] + [card])
    events, t = [], 0.0
    for i in range(60):
        sure = i >= 40
        events += tracker.update(no_start if i < 10 else seen(card), set(), t, False,
                                 confirm=lambda cards, sure=sure: set(cards) if sure else set(cards) - {(1, 0)})
        t += 0.1
    assert [e.kind for e in events] == ["maze-seen", "maze-seen"] and "1 more card" in events[1].text
    assert tracker.board.at((1, 0)) == Placement(1, 0, "straight-ew", 0)


def test_a_card_held_back_at_the_first_view_joins_it_once_read():
    """Something flickering beside a card (read as no maze card on some frames) holds the card
    back through the first view; once it lies still, the card joins the first view: it was
    in view, read, all along, and no move laid it."""
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    flicker = seen(card, uncertain=[Unsure(2, 0, "not-a-maze-card")])
    events, t = [], 0.0
    for i in range(60):
        events += tracker.update(flicker if i < 40 and i % 4 < 2 else seen(card), set(), t, False)
        t += 0.1
    assert [e.kind for e in events] == ["maze-seen", "maze-seen"] and "1 more card" in events[1].text
    assert tracker.board.at((1, 0)) == Placement(1, 0, "straight-ew", 0)


def test_an_illegal_card_is_committed_and_judged_illegal_in_words():
    tracker, t = settled()
    card = SeenCard(1, 0, "straight-ns", 0, 0.98)
    events, _ = run(tracker, [(seen(card), set(), False)] * 12, start=t)
    assert events[0].kind == "placed" and not events[0].verdict.legal
    assert "the west edge is rock but the card at (0,0) has a tunnel there" in events[0].text


def test_nothing_commits_while_hands_move_even_for_long():
    tracker, t = settled()
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    frames = [(seen(card), set(), i % 3 == 0) for i in range(60)]  # a busy frame every third frame
    events, _ = run(tracker, frames, start=t)
    assert events == []
    assert tracker.board.at((1, 0)) is None


def test_an_occluding_hand_resets_the_hold():
    tracker, t = settled()
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    hand = Unsure(2, 0, "not-a-maze-card")
    frames = [(seen(card), set(), False)] * 4 + [(seen(card, uncertain=[hand]), set(), False)] + \
             [(seen(card), set(), False)] * 4
    events, _ = run(tracker, frames, start=t)
    assert events == []  # 0.4 s of quiet after the hand is less than the hold


def test_a_flickering_reading_never_commits():
    tracker, t = settled()
    a, b = SeenCard(1, 0, "straight-ew", 0, 0.9), SeenCard(1, 0, "cross", 0, 0.9)
    frames = [(seen(a if i % 2 else b), set(), False) for i in range(40)]
    events, _ = run(tracker, frames, start=t)
    assert events == []


def test_a_reading_seen_only_between_readings_of_bare_table_never_holds():
    # a cell read unsurely as bare table holds no card read unsurely, which would keep the
    # candidate: a crossroads misread on some frames of a T would hold, and be committed
    tracker, t = settled()
    misread = SeenCard(1, 0, "cross", 0, 0.95)
    maybe_bare = seen(uncertain=[Unsure(1, 0, MAYBE_EMPTY)])
    events, _ = run(tracker, [(seen(misread) if i % 2 else maybe_bare, set(), False) for i in range(40)], start=t)
    assert events == []


def test_an_uncertain_cell_keeps_what_was_committed():
    tracker, t = settled()
    card = SeenCard(1, 0, "straight-ew", 0, 0.98)
    run(tracker, [(seen(card), set(), False)] * 12, start=t)
    events, _ = run(tracker, [(seen(uncertain=[Unsure(1, 0, "low-confidence")]), set(), False)] * 20, start=t + 2)
    assert events == [] and tracker.board.at((1, 0)) is not None


def test_rockfall_and_a_goal_reached_then_turned_over():
    tracker, t = settled()
    path = [SeenCard(x, 0, "straight-ew", 0, 0.98) for x in range(1, 8)]
    events, t = run(tracker, [(seen(*path), set(), False)] * 12, start=t)
    placed = [e for e in events if e.kind == "placed"]
    assert len(placed) == 7 and all(e.verdict.legal for e in placed)
    assert [e.cell for e in events if e.kind == "goal-reached"] == [(8, 0)]
    # the players turn the goal over: the camera sees the gold
    turned = [c for c in START if c.cell != (8, 0)] + [SeenCard(8, 0, "goal-gold", 0, 0.97)]
    events, t = run(tracker, [(Observation(cards=turned + path), set(), False)] * 12, start=t)
    assert [e.kind for e in events] == ["goal-revealed"] and "gold" in events[0].text
    assert tracker.board.gold_reached
    # a rockfall takes (3,0) away
    without = [c for c in path if c.x != 3]
    events, _ = run(tracker, [(Observation(cards=turned + without), {(3, 0)}, False)] * 12, start=t)
    assert [e.kind for e in events] == ["removed"]
    assert not tracker.board.is_reachable((5, 0))


def test_a_card_laid_in_a_rockfalls_hole_before_the_table_held_still_is_both_moves():
    # a rockfall takes (1,0) away: its cell shows bare on four quiet frames, too short a
    # hold, then a hand lays a crossroads there; a card does not change in place, so the
    # tracker commits the removal and then the placement, judged on the maze without it
    def replaced(bare_frames: int, card_between: bool = False):
        tracker, t = settled()
        straight = SeenCard(1, 0, "straight-ew", 0, 0.98)
        _, t = run(tracker, [(seen(straight), set(), False)] * 12, start=t)
        between = [(seen(), {(1, 0)}, False)] * bare_frames + [(seen(), set(), True)]
        if card_between:  # the card read there again after all: the bare readings were a glitch
            between += [(seen(straight), set(), False)] * 2
        events, _ = run(tracker, between + [(seen(SeenCard(1, 0, "cross", 0, 0.98)), set(), False)] * 12, start=t)
        return [(e.kind, e.cell) for e in events], tracker.board.at((1, 0))

    assert replaced(4) == ([("removed", (1, 0)), ("placed", (1, 0))], Placement(1, 0, "cross", 0))
    assert replaced(2) == ([("changed", (1, 0))], Placement(1, 0, "cross", 0))  # a glance: a misreading
    assert replaced(4, card_between=True)[0] == [("changed", (1, 0))]


def test_a_view_at_odds_with_several_committed_cards_is_no_move_until_it_holds_long():
    tracker, t = settled()
    path = [SeenCard(x, 0, "straight-ew", 0, 0.98) for x in (1, 2, 3)]
    events, t = run(tracker, [(seen(*path), set(), False)] * 12, start=t)
    assert [e.kind for e in events] == ["placed"] * 3
    # the lattice turned half a turn about the start: the path seems to leave east and grow west
    turned = [SeenCard(-x, 0, "straight-ew", 0, 0.98) for x in (1, 2, 3)]
    view = (Observation(cards=[START[0]] + turned), {(1, 0), (2, 0), (3, 0)}, False)
    events, t = run(tracker, [view] * 45, start=t)  # 4.5 s: no rockfall, no placement
    assert events == [] and tracker.board.at((2, 0)) is not None
    events, _ = run(tracker, [view] * 20, start=t)  # past resync_s: taken as a new first view
    assert [e.kind for e in events] == ["maze-seen"] and "4 cards" in events[0].text
    assert tracker.board.at((-2, 0)) is not None and tracker.board.at((2, 0)) is None


def test_a_goal_card_seen_late_joins_the_maze_without_a_verdict():
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    without_top_goal = Observation(cards=[c for c in START if c.cell != (8, 2)])
    events, t = run(tracker, [(without_top_goal, set(), False)] * 18)
    assert [e.kind for e in events] == ["maze-seen"] and tracker.board.at((8, 2)) is None
    events, _ = run(tracker, [(seen(), set(), False)] * 12, start=t)  # a hand no longer hides it
    assert [e.kind for e in events] == ["maze-seen"] and events[0].verdict is None
    assert tracker.board.at((8, 2)).face == "goal-back"


def test_the_start_never_leaves_on_a_misreading():
    tracker, t = settled()
    others = [c for c in START if c.face != "start"]
    events, _ = run(tracker, [(Observation(cards=others), {(0, 0)}, False)] * 12, start=t)
    assert events == [] and tracker.board.at((0, 0)).face == "start"


def test_observation_json_follows_the_contract():
    obs = seen(SeenCard(1, 0, "t-nes", 180, 0.998), uncertain=[Unsure(3, -1, "occluded")])
    obs.width, obs.height, obs.ms = 1920, 1080, 18.44
    doc = obs.to_json()
    card = next(c for c in doc["cards"] if (c["x"], c["y"]) == (1, 0))
    assert card == {"x": 1, "y": 0, "face": "t-nes", "rotation": 180, "tunnels": ["NSW"], "features": [],
                    "confidence": 0.998}
    assert {"x": 8, "y": 2, "state": "hidden"} in doc["goals"]
    assert doc["uncertain"] == [{"x": 3, "y": -1, "reason": "occluded"}]
    assert doc["frame"] == {"width": 1920, "height": 1080, "ms": 18.4}
    assert isinstance(obs.board(), Board) and len(obs.board()) == 5


def test_a_card_apart_from_every_card_of_the_maze_is_no_move():
    # a card lying on the table two cells from the maze, that the lattice lines up with once
    # a hand has passed (a drawn bench film through a strong lens announced it as laid, and
    # illegal): a card laid touches the maze
    tracker, t = settled()
    loose = SeenCard(3, 2, "dead-ns", 0, 0.99)
    events, t = run(tracker, [(seen(), set(), True)] * 3 + [(seen(loose), set(), False)] * 12, start=t)
    assert events == [] and tracker.board.at((3, 2)) is None
    # one laid beside the start is a move, and then one beside that card too
    card, next_card = SeenCard(1, 0, "straight-ew", 0, 0.98), SeenCard(2, 0, "straight-ew", 0, 0.98)
    events, t = run(tracker, [(seen(loose, card), set(), False)] * 12, start=t)
    events2, _ = run(tracker, [(seen(loose, card, next_card), set(), False)] * 12, start=t)
    assert [(e.kind, e.cell) for e in events + events2] == [("placed", (1, 0)), ("placed", (2, 0))]


def test_a_card_laid_beside_a_card_of_the_first_view_not_read_yet_is_a_move():
    tracker = MazeTracker(hold_s=0.5, min_frames=3, settle_s=1.0)
    unread = Unsure(1, 0, "low-confidence")  # a card there since the start, not read yet
    events, t = run(tracker, [(seen(uncertain=[unread]), {(2, 0)}, False)] * 18)
    card = SeenCard(2, 0, "straight-ew", 0, 0.98)
    events, _ = run(tracker, [(seen(card, uncertain=[unread]), set(), False)] * 12, start=t)
    assert [(e.kind, e.cell) for e in events] == [("placed", (2, 0))]
    # its way to the start runs through the card not read: given the doubt, not called illegal
    assert events[0].verdict.legal and events[0].text.startswith("legal as far as the cells read show")
    assert events[0].to_json()["as_far_as_seen"] is True


def test_a_card_whose_way_to_the_start_runs_under_a_card_read_unsurely_is_given_the_doubt_on_that_alone():
    tracker, t = settled()
    north = SeenCard(0, 1, "straight-ns", 0, 0.98)
    events, t = run(tracker, [(seen(north), set(), False)] * 12, start=t)
    unsure = Unsure(1, 0, "low-confidence")  # a card laid since, read surely in no frame
    # beside the start's north card, and its only way to the start runs through (1,0)
    fits = SeenCard(1, 1, "straight-ns", 0, 0.98)
    events, _ = run(tracker, [(seen(north, fits, uncertain=[unsure]), set(), False)] * 12, start=t)
    assert [(e.kind, e.cell) for e in events] == [("placed", (1, 1))]
    assert events[0].verdict.legal and events[0].text.startswith("legal as far as the cells read show")
    # its west tunnel runs into the rock of the start's north card: that stands
    tracker, t = settled()
    events, t = run(tracker, [(seen(north), set(), False)] * 12, start=t)
    clashes = SeenCard(1, 1, "curve-ne", 180, 0.98)
    events, _ = run(tracker, [(seen(north, clashes, uncertain=[unsure]), set(), False)] * 12, start=t)
    assert [r.code for r in events[0].verdict.reasons] == ["edge-mismatch"]
    assert events[0].text.startswith("illegal as far as the cells read show")


def test_a_card_whose_way_to_the_start_runs_through_a_card_not_held_yet_is_given_the_doubt():
    tracker, t = settled()
    inner, outer = SeenCard(1, 0, "straight-ew", 0, 0.98), SeenCard(2, 0, "straight-ew", 0, 0.98)
    refused = []

    def confirm(cards):  # the inner card does not read so again the first time it is asked
        if (1, 0) in cards and not refused:
            refused.append((1, 0))
            return set(cards) - {(1, 0)}
        return set(cards)

    events = []
    for _ in range(20):
        events += tracker.update(seen(inner, outer), set(), t, False, confirm=confirm)
        t += 0.1
    assert [(e.kind, e.cell) for e in events] == [("placed", (2, 0)), ("placed", (1, 0))]
    assert events[0].verdict.legal and events[0].as_far_as_seen and events[1].verdict.legal
