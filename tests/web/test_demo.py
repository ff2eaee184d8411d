"""``tunnelvision demo``: the simulated table, through the real pipeline, on a real server.

A person joins from a "phone" (plain HTTP with the seat token, as the page does), the demo
deals, and a card the film's hand lays shows up in the table's log. Waits are bounded polls.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from companion_web.demo import DemoTiming, main, run_demo

QUICK = DemoTiming(human_turn=0.5, bot_turn=0.2, next_round=None)


def fetch(url: str, body: dict | None = None, token: str | None = None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["X-Seat-Token"] = token
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=10) as answer:
        raw = answer.read()
        return answer.status, (json.loads(raw) if answer.headers.get_content_type() == "application/json" else raw)


def wait_for(read, test, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if test(value):
            return value
        assert time.monotonic() < deadline, f"not reached in {timeout} s; last seen: {value!r}"[:2000]
        time.sleep(0.3)


@pytest.mark.parametrize("argv, says", [
    (["--players", "11"], "Saboteur is played by 3 to 10 players, not 11"),
    (["--players", "13", "--game", "saboteur2"], "Saboteur 2 is played by 2 to 12 players, not 13"),
    (["--players", "4", "--people", "4"], "at least one free seat and one computer player"),
    (["--seed", "-5"], "a seed is a whole number from 0"),
    (["--port", "70000"], "a port is a number from 0 to 65535"),
])
def test_a_table_the_demo_cannot_set_is_one_sentence_and_exit_status_2(argv, says, capsys):
    try:
        status = main(argv + (["--port", "0"] if "--port" not in argv else []))
    except SystemExit as exit_:  # argparse's own refusal
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2 and says in err and "Traceback" not in err


def test_the_demo_plays_a_round_on_its_simulated_table():
    out = io.StringIO()
    started = threading.Event()
    held = {}

    def ready(server, app, game_id):
        held.update(server=server, app=app, game=game_id)
        started.set()

    demo = threading.Thread(target=run_demo, kwargs={"port": 0, "seed": 5, "players": 3, "timing": QUICK, "out": out,
                                                     "ready": ready}, daemon=True)
    demo.start()
    assert started.wait(30), out.getvalue()
    server, app, game = held["server"], held["app"], held["game"]
    base = f"http://127.0.0.1:{server.effective_port}"
    director = app.extensions["tunnelvision.demo"]
    try:
        text = out.getvalue()
        assert f"{base}/g/{game}/table" in text and f"/g/{game}/join" in text and "DEMO" in text
        status, page = fetch(f"{base}/g/{game}/table")
        assert status == 200 and b"feed.mjpeg" in page
        assert fetch(f"{base}/g/{game}/join")[0] == 200

        status, joined = fetch(f"{base}/api/g/{game}/join", {"name": "Newcomer", "slot": 1})
        token = joined["token"]
        assert status == 201 and joined["view"]["viewer"]["kind"] == "seat"
        me = wait_for(lambda: fetch(f"{base}/api/g/{game}/state?view=seat", token=token)[1]["view"],
                      lambda view: view["game"]["phase"] == "playing", 20)["me"]
        assert me["role"] in ("miner", "saboteur") and me["role_name"]

        def table_log():
            return [line["text"] for line in fetch(f"{base}/api/g/{game}/state?view=table")[1]["view"]["log"]]

        def film_card_in(lines):
            laid = [(p.face, f"({p.x},{p.y})") for p in director.laid]
            return any(f" laid {face} at {cell}" in line for line in lines for face, cell in laid)

        wait_for(table_log, film_card_in, 60)
        status, camera = fetch(f"{base}/g/{game}/feed.json")
        # the simulated table is in colour, its cards large: nothing to warn of
        assert camera == {"video": True, "state": "watching", "message": camera["message"], "warnings": []}
        with urllib.request.urlopen(f"{base}/g/{game}/feed.mjpeg", timeout=10) as live:
            assert live.headers.get_content_type() == "multipart/x-mixed-replace"
            first = live.read(4096)
        assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in first
    finally:
        server.close()
        demo.join(15)
    assert not demo.is_alive()
    assert not [t.name for t in threading.enumerate() if t.name == "demo host" or t.name.startswith("vision feed")]
    database = Path(re.search(r"Database: (\S+);", text).group(1))
    assert database.name == "demo.db" and not database.parent.exists()  # the demo leaves nothing behind


def test_a_saboteurs_rockfall_takes_a_card_whose_loss_sets_the_tunnels_back():
    # start, then a run east to (3,0) and a dead end north of (1,0): taking a card of the
    # run leaves the open tunnel ends farther from the goals (its hole, the nearest end, at
    # least a step back from (4,0)); the dead end's loss does not
    from companion_web.demo_film import plan_rockfall
    from engine.board import Board, Placement

    board = Board.standard(None)
    for p in (Placement(1, 0, "cross"), Placement(2, 0, "straight-ew"), Placement(3, 0, "straight-ew"),
              Placement(1, 1, "dead-n", 180)):
        board.place(p)
    taken = {plan_rockfall(board, np.random.default_rng(seed)) for seed in range(20)}
    assert taken == {(1, 0), (2, 0), (3, 0)}
    assert plan_rockfall(Board.standard(None), np.random.default_rng(0)) is None  # nothing to take


def test_the_director_has_a_saboteurs_hand_take_a_card_away_and_the_host_enters_what_the_camera_missed():
    from companion_web.demo_director import Director
    from companion_web.demo_film import Lay, TakeAway, standard_layout
    from companion_web.demo_players import ROCKFALL
    from engine.board import Board, Placement

    board = Board.standard(None)
    for p in (Placement(1, 0, "cross"), Placement(2, 0, "straight-ew")):
        board.place(p)
    cells = [p.to_dict() for p in board.placements()]
    view = {"game": {"phase": "playing", "round": 1}, "contested": [], "turn": {"seat": 1},
            "seats": [{"broken_ids": [], "trapped": False}] * 3, "board": {"cells": cells}}
    director = Director(players=3, humans=0, edition="saboteur", seed=0, timing=DemoTiming(landing=0.0))
    shared = director.shared
    shared.view, shared.film_round, shared.deck = view, 1, ["cross"] * 5
    on_table = {**standard_layout(), (1, 0): ("cross", 0), (2, 0): ("straight-ew", 0)}
    shared.hand_for = (1, 0.0, ROCKFALL)
    move = director.next_move(on_table)
    assert isinstance(move, TakeAway) and move.cell in {(1, 0), (2, 0)} and director.rockfalls == [move.cell]
    assert director.next_move(on_table) is None  # the game has not taken it yet: after `landing`, the host does
    assert shared.enter_by_hand == {"change": "removed", "x": move.cell[0], "y": move.cell[1]}
    # a hand that digs lays a card; once the game shows it, the director stops waiting
    shared.hand_for, shared.enter_by_hand = (1, 0.0, "dig"), None
    move = director.next_move(on_table)
    assert isinstance(move, Lay) and director.laid == [move.placement]
    view["board"]["cells"] = cells + [move.placement.to_dict()]
    assert director.next_move(on_table) is None and shared.pending is None and shared.enter_by_hand is None
