"""`tunnelvision rules check` on every shared conformance case, and on bad input."""

import json
import subprocess
import sys

from tunnelvision.cli import main


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tunnelvision", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_every_conformance_case_passes_through_one_process(shared):
    cases = (shared / "conformance" / "placements.jsonl").read_text().splitlines()
    done = run_cli("rules", "check", "--json", str(shared / "conformance" / "placements.jsonl"))
    assert done.returncode == 0, done.stderr
    answers = done.stdout.splitlines()
    assert len(answers) == len(cases) > 1000
    wrong = []
    for number, (case, answer) in enumerate(zip(cases, answers), start=1):
        expect = json.loads(case)["expect"]
        got = json.loads(answer)
        if {k: got[k] for k in expect} != expect:
            wrong.append((number, expect, got))
        assert got["legal"] == (got["reasons"] == [])
    assert not wrong, wrong[:3]


def test_illegal_answer_names_edge_and_neighbour_in_words():
    line = json.dumps({"board": [{"x": 0, "y": 0, "face": "start", "rotation": 0}],
                       "placement": {"x": 1, "y": 0, "face": "straight-ns", "rotation": 0}})
    done = run_cli("rules", "check", "--json", stdin=line + "\n")
    answer = json.loads(done.stdout)
    assert answer["legal"] is False
    assert "the west edge is rock but the card at (0,0) has a tunnel there" in answer["reasons"]


def test_bad_lines_get_one_line_errors_and_the_rest_are_answered():
    good = json.dumps({"board": [{"x": 0, "y": 0, "face": "start", "rotation": 0}],
                       "placement": {"x": 1, "y": 0, "face": "cross", "rotation": 0}})
    lines = [
        "{not json",
        good.replace('"cross"', '"no-such-card"'),
        good.replace('"rotation": 0}}', '"rotation": 90}}'),
        good,
    ]
    done = run_cli("rules", "check", "--json", stdin="\n".join(lines) + "\n")
    assert done.returncode == 1
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert [o.get("line") for o in out[:3]] == [1, 2, 3]
    assert out[3] == {"legal": True, "reasons": [], "reveals": [], "gold_reached": False}
    errors = done.stderr.strip().splitlines()
    assert len(errors) == 3 and "Traceback" not in done.stderr
    assert errors[0].startswith("tunnelvision: line 1: not valid JSON")
    assert "unknown card id 'no-such-card'" in errors[1] and errors[1].startswith("tunnelvision: line 2:")
    assert "rotation must be 0 or 180, got 90" in errors[2]


def test_plain_words_output_and_player_handicaps(capsys, tmp_path):
    line = {"board": [{"x": 0, "y": 0, "face": "start", "rotation": 0}],
            "placement": {"x": 1, "y": 0, "face": "cross", "rotation": 0},
            "player": {"broken": ["cart"], "trapped": False}}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert main(["rules", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "line 1: cross at (1,0): illegal: the player has a broken cart in front of them"


def test_missing_file_is_one_sentence(capsys):
    assert main(["rules", "check", "/no/such/file.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "tunnelvision: no such file: /no/such/file.jsonl"


def test_demo_plays_a_whole_game(capsys):
    assert main(["rules", "demo", "--players", "4", "--seed", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("=== Round") == 3 and "Final ranking:" in out


def test_demo_rejects_bad_player_count(capsys):
    assert main(["rules", "demo", "--players", "11"]) == 2
    assert "played by 3 to 10 players, not 11" in capsys.readouterr().err
