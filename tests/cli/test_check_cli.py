"""`tunnelvision check`'s report in words: what a player reads to settle a placement."""

from tunnelvision.vision_cli import describe
from vision.observation import Observation, SeenCard, Unsure


def test_the_report_marks_the_cells_it_could_not_read_on_the_map_and_says_why_in_words():
    # a hand over a cell beyond the cards read: on the map it must not look like bare table
    observation = Observation(cards=[SeenCard(0, 0, "start", 0, 1.0), SeenCard(1, 0, "straight-ew", 0, 0.99)],
                              uncertain=[Unsure(2, 1, "occluded"), Unsure(1, -1, "low-confidence")], ms=5.0)
    lines = describe(observation, "table.jpg").splitlines()
    assert lines[0] == "table.jpg: 2 cards read, 2 uncertain (5 ms)"
    row = {line[:4].strip(): line for line in lines[2:] if line[:4].strip().lstrip("-").isdigit()}
    assert row["1"].endswith("~~~") and "~~~" in row["-1"]
    assert "  (2,1) uncertain (occluded): under a hand" in lines
    assert "  (1,-1) uncertain (low-confidence): low confidence" in lines
