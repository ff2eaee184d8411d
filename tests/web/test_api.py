"""The HTTP interface: joining, turns, the host's powers, corrections, and every kind of bad request."""

from __future__ import annotations

import hashlib
import json

import pytest

from companion_web import auth
from companion_web.db import get_db

from .conftest import Table


def db_rows(app, sql, *args):
    with app.app_context():
        return [dict(r) for r in get_db().execute(sql, args).fetchall()]


def footprint(table: Table) -> tuple:
    """Everything a request could have changed."""
    app, game = table.app, table.game_id
    return (db_rows(app, "SELECT version, engine, tabletop FROM games WHERE id = ?", game),
            db_rows(app, "SELECT count(*) AS n FROM events"), db_rows(app, "SELECT count(*) AS n FROM changes"),
            db_rows(app, "SELECT id, slot, name, token_hash FROM seats ORDER BY id"), table.snapshot().version)


# ------------------------------------------------------------------ joining and tokens


def test_join_issues_a_strong_token_kept_only_as_a_hash(table):
    phone, = table.join("Ana")
    assert len(phone.token) >= 43  # token_urlsafe(32): 256 bits
    rows = db_rows(table.app, "SELECT token_hash FROM seats")
    assert rows == [{"token_hash": hashlib.sha256(phone.token.encode()).hexdigest()}]
    with table.app.app_context():
        dump = "\n".join(get_db().iterdump())
    assert phone.token not in dump


def test_the_seat_cookie_is_httponly_and_strict(table, app):
    client = app.test_client()
    response = client.post(f"/api/g/{table.game_id}/join", json={"name": "Ana", "slot": 3})
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    token = response.get_json()["token"]
    assert token in cookie
    # the phone's page, from the cookie alone, is its seat
    page = client.get(f"/g/{table.game_id}/join").get_data(as_text=True)
    assert 'data-view="seat"' in page and token not in page


def test_the_qr_code_holds_the_join_url_and_nothing_else(table):
    phone, = table.join("Ana")
    svg = table.host.get(f"/g/{table.game_id}/qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    view = phone.state()
    assert view["game"]["join_url"] == f"http://table.test:8000/g/{table.game_id}/join"
    assert phone.token not in svg.get_data(as_text=True)


def test_joining_refusals(table):
    table.join("Ana")
    newcomer = table.app.test_client()
    url = f"/api/g/{table.game_id}/join"
    assert newcomer.post(url, json={"name": "Bo", "slot": 1}).status_code == 409  # seat taken
    assert newcomer.post(url, json={"name": "ana", "slot": 2}).status_code == 409  # name taken
    assert newcomer.post(url, json={"name": "Bo", "slot": 11}).status_code == 400  # base game: 10 seats
    assert newcomer.post(url, json={"name": "   ", "slot": 2}).status_code == 400
    assert newcomer.post(url, json={"name": "x" * 40, "slot": 2}).status_code == 400
    assert newcomer.post(url, json={"name": "Bo", "slot": "2"}).status_code == 400
    assert newcomer.post(url, json={"name": "Bo", "slot": True}).status_code == 400
    table.join("Bo", "Cy")
    table.start()
    late = newcomer.post(url, json={"name": "Di", "slot": 5})
    assert late.status_code == 409 and late.get_json()["error"] == "A round is being played."


def test_leaving_the_lobby_frees_the_seat(table):
    ana, bo = table.join("Ana", "Bo")
    ana.post("leave")
    assert [s.name for s in table.snapshot().seats] == ["Bo"]
    assert ana.client.get(f"/api/g/{table.game_id}/state?view=seat").status_code == 401


@pytest.mark.parametrize("how", ["missing", "forged", "malformed"])
def test_missing_or_forged_tokens_are_401(table, how):
    table.join("Ana", "Bo", "Cy")
    table.start()
    stranger = table.app.test_client()
    headers = {"missing": {}, "forged": {auth.SEAT_HEADER: auth.new_token()},
               "malformed": {auth.SEAT_HEADER: "<script>"}}[how]
    for method, path, body in [("get", "state?view=seat", None), ("get", "events?view=seat", None),
                               ("post", "pass", {}), ("post", "peek", {"cell": [8, 0]}), ("post", "resume", {})]:
        response = getattr(stranger, method)(f"/api/g/{table.game_id}/{path}", headers=headers, json=body)
        assert response.status_code == 401, (path, response.status_code)
        assert response.get_json()["error"].endswith(".")


def test_a_token_of_another_game_is_403(table):
    first, = table.join("Ana")
    first_game = table.game_id
    other_game = table.new_game("saboteur")
    response = first.client.get(f"/api/g/{other_game}/state?view=seat", headers=first.headers())
    assert response.status_code == 403
    assert first.client.get(f"/api/g/{first_game}/state?view=seat").status_code == 200


def test_a_seat_handed_to_a_new_phone_leaves_the_old_token_stale(table):
    phones = table.join("Ana", "Bo", "Cy")
    table.start()
    role = phones[1].me()["role"]
    table.do("free-seat", {"seat": 1})
    assert phones[1].client.get(f"/api/g/{table.game_id}/state?view=seat").status_code == 401
    newcomer = table.app.test_client()
    claimed = newcomer.post(f"/api/g/{table.game_id}/claim", json={"seat": 1})
    assert claimed.status_code == 201
    view = claimed.get_json()["view"]
    assert view["me"]["role"] == role and view["me"]["name"] == "Bo"
    stale = phones[1].client.get(f"/api/g/{table.game_id}/state?view=seat", headers=phones[1].headers())
    assert stale.status_code == 401
    assert newcomer.post(f"/api/g/{table.game_id}/claim", json={"seat": 1}).status_code == 409


def test_the_host_link_works_once_and_leaves_no_code_in_the_url(app, table):
    with app.app_context():
        code = auth.issue_host_link(get_db())
    browser = app.test_client()
    first = browser.get(f"/host/{code}")
    assert first.status_code == 302 and code not in first.headers["Location"]
    cookie = first.headers["Set-Cookie"]
    assert "tv_host=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie and code not in cookie
    assert app.test_client().get(f"/host/{code}").status_code == 403
    assert app.test_client().get("/host/not-a-real-code-at-all-xxxxxxxx").status_code == 403
    rows = db_rows(app, "SELECT code_hash FROM host_links")
    assert all(code not in r["code_hash"] for r in rows)


def test_host_powers_need_the_host(table):
    phones = table.join("Ana", "Bo", "Cy")
    nobody = table.app.test_client()
    for path, body in [("start", {}), ("exhausted", {}), ("turn", {"seat": 0}), ("undo", {}),
                       ("feed", {"change": "removed", "x": 1, "y": 0}), ("free-seat", {"seat": 0}),
                       ("new-game", {"edition": "saboteur"}), ("host-link", {})]:
        assert nobody.post(f"/api/g/{table.game_id}/{path}", json=body).status_code == 401, path
        assert phones[0].post(path, body, status=403)["error"]
    assert phones[0].client.get(f"/api/g/{table.game_id}/state?view=host").status_code == 403
    assert nobody.get(f"/api/g/{table.game_id}/state?view=host").status_code == 401
    assert nobody.get(f"/api/g/{table.game_id}/state?view=table").status_code == 200
    phones[0].post("pass", {"for_seat": 1}, status=403)


# ------------------------------------------------------------------ bad input


def test_bad_requests_get_one_sentence_and_change_nothing(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    before = footprint(table)
    turn = table.turn()
    waiting = table.phone_of((turn + 1) % 3)
    url = f"/api/g/{table.game_id}"
    client = waiting.client
    cases = [
        (client.post(f"{url}/pass", data="{not json", headers={**waiting.headers(), "Content-Type": "application/json"}), 400),
        (client.post(f"{url}/pass", data="x=1", headers={**waiting.headers(), "Content-Type": "application/x-www-form-urlencoded"}), 415),
        (client.post(f"{url}/pass", json=[1, 2], headers=waiting.headers()), 400),
        (client.post(f"{url}/pass", json={"pad": "x" * 20000}, headers=waiting.headers()), 413),
        (client.post(f"{url}/pass", json={}, headers=waiting.headers()), 409),  # not their turn
        (client.post(f"{url}/peek", json={"cell": [8, 0]}, headers=waiting.headers()), 409),
        (client.post(f"{url}/peek", json={"cell": "8,0"}, headers=waiting.headers()), 400),
        (client.post(f"{url}/action", json={"card": "dragon", "target": 0}, headers=waiting.headers()), 400),
        (client.post(f"{url}/pick", json={"index": 0}, headers=waiting.headers()), 409),
        (client.post(f"{url}/steal", json={"victim": 0}, headers=waiting.headers()), 409),
        (client.post("/api/g/nosuchgame/state?view=table"), 405),
        (client.post("/api/g/nosuchgame/pass", json={}, headers=waiting.headers()), 404),
        (client.get("/api/g/nosuchgame/state?view=table"), 404),
        (client.get(f"{url}/state?view=everything"), 400),
        (client.get(f"{url}/nothing-here"), 404),
        (client.get(f"{url}/pass"), 405),
        (table.host.post(f"{url}/turn", json={"seat": 7}), 404),  # unknown seat
        (table.host.post(f"{url}/free-seat", json={"seat": -1}), 404),
        (table.host.post(f"{url}/reattribute", json={"number": 1, "seat": 9}), 404),
        (table.host.post(f"{url}/reattribute", json={"number": 99, "seat": 0}), 400),
        (table.host.post(f"{url}/feed", json={"change": "placed", "face": "cross", "x": 1, "y": 0, "rotation": 90}), 400),
        (table.host.post(f"{url}/feed", json={"change": "teleported"}), 400),
        (table.host.post(f"{url}/feed", json={"change": "removed", "x": 5, "y": 5}), 409),  # nothing there
        (table.host.post(f"{url}/correct", json={"x": 3, "y": 3}), 409),  # nothing recorded there
        (table.host.post(f"{url}/undo", json={}), 409),  # nothing to undo
        (table.host.post(f"{url}/start", json={}), 409),  # a round is on
        (table.host.post(f"{url}/new-game", json={"edition": "chess"}), 400),
        (table.host.post(f"{url}/action", json={"for_seat": 0, "card": "broken-pickaxe", "target": 0, "x": 1}), 200),
    ]
    for number, (response, status) in enumerate(cases[:-1]):
        assert response.status_code == status, (number, response.status_code, response.get_data(as_text=True)[:200])
        error = response.get_json()["error"]
        assert error and error.count(".") >= 1 and "Traceback" not in error, error
    assert footprint(table)[:4] != before[:4]  # only the last, valid request changed the game


def test_a_refused_request_leaves_the_database_exactly_as_it_was(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    before = footprint(table)
    waiting = table.phone_of((table.turn() + 1) % 3)
    waiting.post("pass", status=409)
    waiting.post("action", {"card": "broken-pickaxe", "target": 0}, status=409)
    table.do("feed", {"change": "removed", "x": 0, "y": 0}, status=409)  # the start card cannot go
    table.do("exhausted", {"extra": "ignored"}, status=200)
    table.do("exhausted", status=409)  # already over
    assert footprint(table)[4] == before[4] + 1


def test_cross_origin_posts_are_refused(table):
    phone, = table.join("Ana")
    response = phone.client.post(f"/api/g/{table.game_id}/leave", json={}, headers={
        **phone.headers(), "Origin": "http://evil.example"})
    assert response.status_code == 403
    same = phone.client.post(f"/api/g/{table.game_id}/leave", json={}, headers={
        **phone.headers(), "Origin": "http://localhost"})
    assert same.status_code == 200


def test_pages_and_answers_carry_protective_headers(table):
    table.join("Ana")
    for path in [f"/g/{table.game_id}/join", f"/g/{table.game_id}/table", f"/api/g/{table.game_id}/state?view=table"]:
        response = table.host.get(path)
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
        assert response.headers["Cache-Control"] == "no-store"
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert table.host.get("/g/nosuchgame/table").status_code == 404


# ------------------------------------------------------------------ playing


def test_wrong_turn_answers_name_whose_turn_it_is(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    turn = table.turn()
    other = table.phone_of((turn + 1) % 3)
    error = other.post("pass", status=409)["error"]
    assert error == f"It is {table.snapshot().seats[turn].name}'s turn, not yours."


def test_turns_follow_the_table_clockwise_and_the_host_can_set_them(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    first = table.turn()
    table.pass_turn()
    assert table.turn() == (first + 1) % 3
    table.lay("cross", 1, 0)
    assert table.game().round.history[-1].seat == (first + 1) % 3
    assert table.turn() == (first + 2) % 3
    table.do("turn", {"seat": first})
    assert table.turn() == first
    assert "The host says" in table.phone_of(first).state()["log"][-1]["text"]


def test_a_broken_tool_makes_the_players_placements_illegal_until_repaired(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    breaker = table.turn()
    victim = (breaker + 1) % 3
    table.phone_of(breaker).post("action", {"card": "broken-pickaxe", "target": victim})
    assert table.turn() == victim
    answer = table.lay("cross", 1, 0)
    assert answer["legal"] is False and "broken pickaxe" in answer["reasons"][0]
    assert answer["view"]["contested"][0]["name"] == table.snapshot().seats[victim].name
    assert table.turn() == victim  # a refused card does not end the turn
    assert table.phone_of(victim).state()["seats"][victim]["broken"] == ["pickaxe"]
    table.phone_of(victim).post("action", {"card": "repair-pickaxe-lantern", "target": victim, "tool": "pickaxe"})
    table.pass_turn()
    table.pass_turn()
    assert table.turn() == victim
    answer = table.lay("cross", 1, 0)
    assert answer["legal"] is True and answer["view"]["contested"] == []


def test_the_engines_refusals_are_told_in_the_players_language_with_names(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    player = table.phone_of(table.turn())
    other = (table.turn() + 1) % 3
    name = table.snapshot().seats[other].name
    # a lantern nobody broke is mended: in English, then in Polish, the seat by its name
    repair = {"card": "repair-pickaxe-lantern", "target": other, "tool": "lantern"}
    assert player.post("action", repair, status=409)["error"] == f"{name} has no broken lantern to repair."
    player.client.set_cookie("tv_lang", "pl")
    answer = player.post("action", repair, status=409)
    assert answer["error"] == f"Gracz {name} nie ma zepsutego narzędzia do naprawy: latarnia."
    assert answer["code"] == "refusal.nothing-to-repair"


def test_peeking_is_the_map_card_of_the_player_whose_turn_it_is(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    turn = table.turn()
    phone = table.phone_of(turn)
    me = phone.post("peek", {"cell": [8, 2]})["view"]["me"]
    face = table.game().round.board.hidden_goals[(8, 2)]
    assert me["peeks"] == [{"kind": "goal", "x": 8, "y": 2, "gold": face == "goal-gold",
                            "text": f"The goal at (8,2) is {'the gold' if face == 'goal-gold' else 'stone'}."}]
    assert table.turn() == (turn + 1) % 3
    table.phone_of(table.turn()).post("peek", {"cell": [3, 3]}, status=409)  # not a goal: the engine says no


def test_reaching_the_gold_scores_the_round_and_the_draft_runs_on_the_phones(table):
    phones = table.join("Ana", "Bo", "Cy", "Di")
    table.start()
    table.dig_to_gold()
    game = table.game()
    assert game.round.ended and game.draft is not None
    picker = table.phone_of(game.draft.picker)
    cards = picker.me()["pick"]["cards"]
    assert cards == game.draft.cards
    others = [p for p in phones if p is not picker]
    assert all(p.me()["pick"] is None for p in others)
    others[0].post("pick", {"index": 0}, status=409)
    picker.post("pick", {"index": 99}, status=409)
    table.settle()
    assert table.snapshot().phase == "between"
    assert sum(p.me()["gold_total"] for p in phones) == sum(cards)


def test_the_host_declares_the_draw_pile_empty(table):
    table.join("Ana", "Bo", "Cy", "Di", "Ed")
    table.start()
    view = table.do("exhausted")["view"]
    game = table.game()
    assert view["result"] == {"round": 1, "gold_reached": False, "finisher": None, "roles": [
        {"seat": s, "name": name, "role": role, "role_name": {"miner": "Gold-digger", "saboteur": "Saboteur"}[role]}
        for s, (name, role) in enumerate(zip(["Ana", "Bo", "Cy", "Di", "Ed"], game.round.roles))]}
    saboteurs = [s for s, r in enumerate(game.round.roles) if r == "saboteur"]
    for seat, phone in enumerate(table.phones):
        assert phone.me()["won"] is (seat in saboteurs)


def test_the_host_corrects_who_placed_the_last_card_and_the_scoring_follows(table):
    table.join("Ana", "Bo", "Cy", "Di")
    table.start()
    table.dig_to_gold()
    game = table.game()
    finisher = game.round.finisher
    number = len(table.snapshot().tabletop.round_log)
    new = (finisher + 1) % 4
    view = table.do("reattribute", {"number": number, "seat": new})["view"]
    assert table.game().round.finisher == new
    assert view["result"]["finisher"] == table.snapshot().seats[new].name
    assert "Correction: move" in view["log"][-1]["text"]


def test_a_misread_cell_is_corrected_by_replaying_the_round(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    table.lay("cross", 1, 0)
    table.lay("cross", 2, 0)
    view = table.do("correct", {"x": 2, "y": 0, "face": "t-new", "rotation": 0})["view"]
    assert {"x": 2, "y": 0, "face": "t-new", "rotation": 0} in view["board"]["cells"]
    table.do("correct", {"x": 2, "y": 0})
    assert (2, 0) not in table.game().round.board
    # a correction that would make a later card illegal is refused, and changes nothing
    table.lay("cross", 2, 0)
    table.lay("cross", 3, 0)
    before = footprint(table)
    error = table.do("correct", {"x": 2, "y": 0, "face": "straight-ns", "rotation": 0}, status=409)["error"]
    assert "move" in error and footprint(table) == before


def test_undo_takes_back_the_last_move_until_gold_changes_hands(table):
    table.join("Ana", "Bo", "Cy", "Di")
    table.start()
    first = table.turn()
    table.lay("cross", 1, 0)
    table.do("undo")
    assert (1, 0) not in table.game().round.board and table.turn() == first
    table.dig_to_gold()
    game = table.game()
    assert game.draft is not None  # four players: at least two miners
    table.do("undo")  # the gold-reaching card is taken back: no scoring yet
    assert not table.game().round.ended
    table.dig_to_gold()
    table.phone_of(table.game().draft.picker).post("pick", {"index": 0})
    before = footprint(table)
    for path, body in [("undo", {}), ("reattribute", {"number": 1, "seat": 0}), ("correct", {"x": 1, "y": 0})]:
        error = table.do(path, body, status=409)["error"]
        assert error == "The gold has begun to change hands; this round can no longer be corrected."
        assert "seat" not in error
    assert footprint(table) == before


def test_feed_removals_take_back_refused_cards_or_are_rockfalls(table):
    table.join("Ana", "Bo", "Cy")
    table.start()
    table.lay("straight-ns", 1, 0)
    assert table.snapshot().tabletop.contested
    table.do("feed", {"change": "removed", "x": 1, "y": 0})
    assert not table.snapshot().tabletop.contested
    table.lay("cross", 1, 0)
    remover = table.turn()
    view = table.do("feed", {"change": "removed", "x": 1, "y": 0})["view"]
    assert (1, 0) not in table.game().round.board
    assert view["log"][-1]["text"].startswith(f"{table.snapshot().seats[remover].name}: rockfall")
    view = table.do("feed", {"change": "goal-turned", "x": 8, "y": 0})["view"]
    assert "camera saw the goal at (8,0)" in view["log"][-1]["text"]
    assert table.game().round.board.is_hidden_goal((8, 0))


def test_check_judges_without_changing_anything(table):
    phones = table.join("Ana", "Bo", "Cy")
    table.start()
    before = footprint(table)
    answer = table.host.post(f"/api/g/{table.game_id}/check", json={"face": "straight-ns", "x": 1, "y": 0,
                                                                    "rotation": 0}).get_json()
    assert answer["legal"] is False
    assert answer["reasons"] == ["the west edge is rock but the card at (0,0) has a tunnel there",
                                 "no tunnel of this card meets a tunnel that leads back to the start"]
    polish = phones[0].client.post(f"/api/g/{table.game_id}/check", json={"face": "straight-ns", "x": 1, "y": 0},
                                   headers={"Accept-Language": "pl-PL,pl;q=0.9"}).get_json()
    assert polish["reasons"][0] == "na krawędzi zachodniej jest skała, a na karcie na (0,0) jest tam tunel"
    assert table.host.post(f"/api/g/{table.game_id}/check",
                           json={"face": "cross", "x": 1, "y": 0}).get_json() == {
        "legal": True, "placement": {"x": 1, "y": 0, "face": "cross", "rotation": 0}, "reasons": [], "turns_over": []}
    assert footprint(table) == before


def test_saboteur2_thefts_and_removing_a_card_in_front_of_oneself(app):
    table = Table(app, "saboteur2")
    table.join("Ana", "Bo", "Cy", "Di", "Ed")
    table.start()
    thief = table.turn()
    table.phone_of(thief).post("action", {"card": "theft"})
    trapper = table.turn()
    victim = (trapper + 1) % 5
    table.phone_of(trapper).post("action", {"card": "trapped", "target": victim})
    assert table.phone_of(victim).state()["seats"][victim]["trapped"] is True
    table.phone_of(victim).post("remove-own", {"card": "trapped"})
    assert table.phone_of(victim).state()["seats"][victim]["trapped"] is False
    table.phone_of(table.turn()).post("remove-own", {"card": "trapped"}, status=409)
    table.phone_of(table.turn()).post("remove-own", {"card": "dragon"}, status=400)
    table.dig_to_gold()
    assert table.game().thefts == [thief]
    steal = table.phone_of(thief).me()["steal"]
    assert len(steal["victims"]) == 4
    table.settle()
    assert table.snapshot().phase == "between"


def test_new_game_offers_every_phone_the_next_game(table):
    phones = table.join("Ana", "Bo", "Cy")
    old = table.game_id
    answer = table.do("new-game", {"edition": "saboteur2", "options": []}, status=201)
    assert answer["table_url"] == f"/g/{answer['game']}/table"
    assert phones[0].state()["game"]["next_game"] == answer["game"]
    assert table.host.get("/").headers["Location"].endswith(f"/g/{answer['game']}/table")
    assert old != answer["game"]


def test_the_language_follows_the_browser_and_the_choice(table):
    phone, = table.join("Ana")
    polish = {"Accept-Language": "pl,en;q=0.5"}
    page = phone.client.get(f"/g/{table.game_id}/join", headers=polish).get_data(as_text=True)
    assert '<html lang="pl">' in page and "Dołącz do gry" in page
    choose = phone.client.get(f"/lang/en?next=/g/{table.game_id}/join")
    assert choose.status_code == 302 and choose.headers["Location"].endswith(f"/g/{table.game_id}/join")
    page = phone.client.get(f"/g/{table.game_id}/join", headers=polish).get_data(as_text=True)
    assert '<html lang="en">' in page
    for target in ["http://evil.example/", "//evil.example/x", "javascript:alert(1)"]:
        away = phone.client.get("/lang/pl", query_string={"next": target})
        assert away.headers["Location"] in ("/", "http://localhost/")


def test_views_in_answers_are_for_the_asker(table):
    phones = table.join("Ana", "Bo", "Cy")
    table.start()
    turn = table.turn()
    answer = table.phone_of(turn).post("pass")
    assert answer["view"]["viewer"]["kind"] == "seat" and answer["view"]["me"]["seat"] == turn
    host_answer = table.do("pass", {"for_seat": table.turn()})
    assert host_answer["view"]["viewer"]["kind"] == "host" and "me" not in host_answer["view"]
    assert json.dumps(phones[0].state()["seats"])
