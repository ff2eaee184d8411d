"""A whole game on phone-sized Chromium pages: join by the QR code, see the role, peek at a
goal, draft gold, see the results; and the table screen shows no secret all along."""

from __future__ import annotations

import re
import threading
import time

import pytest
from playwright.sync_api import expect

from companion_web.i18n import EN, PL

from .conftest import PHONE

pytestmark = pytest.mark.browser

EDITIONS = {v for table in (EN, PL) for k, v in table.items() if k.startswith("edition.")}
ROLE_NAMES = sorted({v for table in (EN, PL) for k, v in table.items() if k.startswith("role.")}, key=len, reverse=True)


def read_qr(page, screens) -> str:
    """The URL the table's QR code encodes, decoded from a screenshot of it."""
    import cv2
    import numpy as np

    # the picture must be loaded when it is taken, and the first view's render can move it
    # as it is taken: one that does not decode is taken again. OpenCV's classic detector
    # also fails on some codes outright (their content, the port and game id, varies from
    # run to run: a clean picture of one, saved from a failed run, decodes only with the
    # ArUco-based detector), so each picture is tried with both.
    page.wait_for_function("() => { const qr = document.querySelector('#join-qr');"
                           " return qr && qr.complete && qr.naturalWidth > 0; }")
    text = ""
    for _ in range(3):
        png = page.locator("#join-qr").screenshot(path=str(screens / "qr.png"))
        image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
        image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
        detectors = (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())
        text = next((found for d in detectors if (found := d.detectAndDecode(image)[0])), "")
        if text:
            break
        page.wait_for_timeout(200)
    assert text, "the QR code on the table screen could not be read"
    return text


class Secrets:
    """What the table screen must never show, gathered from what the phones showed their owners."""

    def __init__(self):
        self.texts: set[str] = set()

    def add(self, text: str) -> None:
        if text:
            self.texts.add(text)

    def check(self, table_page) -> None:
        # One look at the page, so that an update arriving meanwhile cannot mix two states.
        # The dwarf cards turned over at a round's end (#round-roles) are public; nothing else.
        final, shown, html = table_page.evaluate("""() => {
            const roles = document.getElementById('round-roles');
            return [!document.getElementById('final-panel').hidden,
                    document.querySelector('main').innerText.replace(roles.innerText, ''),
                    document.documentElement.outerHTML.replace(roles.outerHTML, '')]; }""")
        if final:
            return  # the end-of-game reveal: everything is public now
        for name in ROLE_NAMES:
            assert name not in shown, f"the table shows the role {name!r}"
            # "Saboteur" is also the base game's title, which the page carries
            assert name in EDITIONS or name not in html, f"the table's page holds the role {name!r}"
        for text in self.texts:
            assert text not in shown and text not in html, f"the table shows a secret: {text!r}"


def join(browser, url: str, name: str, slot: int, locale: str = "en-GB", screenshot=None):
    context = browser.new_context(**PHONE, locale=locale)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.fill("#join-name", name)
    if screenshot:
        page.screenshot(path=str(screenshot), full_page=True)
    page.locator(f"label.slot:has(input[value='{slot}'])").click()
    page.locator("#join-form button[type=submit]").click()
    expect(page.locator("#seat-panel")).to_be_visible()
    page.errors = errors
    return page


def test_a_game_on_phones(server, browser, screens):
    base, app, game_id, host_link = server
    service = app.extensions["tunnelvision"].service

    def game():
        with app.app_context():
            return service.snapshot(game_id).game

    screen = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    screen.goto(f"{base}/g/{game_id}/table")
    url = read_qr(screen, screens)
    assert url == f"{base}/g/{game_id}/join"
    screen.screenshot(path=str(screens / "table-lobby.png"), full_page=True)
    secrets = Secrets()

    host = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    host.goto(host_link)
    expect(host.locator("#host-panel")).to_be_visible()
    assert "/host/" not in host.url

    phones = [join(browser, url, "Ana", 1), join(browser, url, "Bartek", 2, "pl-PL"),
              join(browser, url, "Cleo", 4, screenshot=screens / "phone-join.png")]
    phones[0].screenshot(path=str(screens / "phone-lobby.png"), full_page=True)
    expect(screen.locator("#seats li")).to_have_count(3)
    expect(host.locator("#start-round")).to_be_enabled()
    host.locator("#start-round").click()

    # Each phone reveals its own role, behind a tap.
    for seat, phone in enumerate(phones):
        card = phone.locator("#role-card")
        expect(card).to_be_visible()
        expect(phone.locator("#role-name")).to_be_hidden()
        card.click()
        role = game().round.seats[seat].role
        table = PL if seat == 1 else EN
        expect(phone.locator("#role-name")).to_have_text(table[f"role.{role}"])
        secrets.add(phone.locator("#role-hint").inner_text())
    phones[1].screenshot(path=str(screens / "phone-role-pl.png"), full_page=True)
    expect(phones[1].locator("#status")).to_contain_text(re.compile("kolej|Twoja", re.I))
    secrets.check(screen)

    # The player whose turn it is plays a map card and alone sees the goal.
    turn = game().round.turn
    peeker = phones[turn]
    peeker.locator("#open-action").click()
    expect(peeker.locator("#action-form")).to_be_visible()
    peeker.screenshot(path=str(screens / "phone-action-form.png"), full_page=True)
    peeker.locator("#action-form [data-close]").click()
    peeker.locator("#open-peek").click()
    peeker.locator("#peek-goals button").nth(1).click()
    peek = peeker.locator("#my-peeks li").first
    expect(peek).to_be_visible()
    face = game().round.seats[turn].peeks[0]["face"]
    expect(peek).to_contain_text(("złoto" if face == "goal-gold" else "kamień") if turn == 1 else
                                 ("the gold" if face == "goal-gold" else "stone"))
    secrets.add(peek.inner_text())
    peeker.screenshot(path=str(screens / "phone-peek.png"), full_page=True)
    for other in phones:
        if other is not peeker:
            expect(other.locator("#peeks-block")).to_be_hidden()
    expect(screen.locator("#log")).to_contain_text("looked at the goal")
    secrets.check(screen)

    # The host enters the cards laid on the table: the first with the form, the rest through the same API.
    host.locator(".swatch:has(input[value='cross'])").click()
    host.locator("#maze [data-x='1'][data-y='0']").click()
    host.locator("#cell-form button[data-op='placed']").click()
    expect(screen.locator("#verdict")).to_contain_text("legal")
    gold = next(c for c, f in game().round.board.hidden_goals.items() if f == "goal-gold")
    step = 1 if gold[1] > 0 else -1
    route = [(x, 0) for x in range(2, 8)] + [(7, y) for y in range(step, gold[1] + step, step)]
    for x, y in route:
        if game().round.ended:
            break
        host.evaluate("""([game, x, y]) => fetch(`/api/g/${game}/feed`, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({change: 'placed', face: 'cross', x, y})})
            .then(r => r.status)""", [game_id, x, y])
    assert game().round.ended and game().draft is not None
    expect(screen.locator("#result")).to_contain_text("reached the gold")
    # the round is over: its dwarf cards are turned over, on the table screen and on every phone
    roles = game().round.roles
    for page, table in ((screen, EN), (phones[0], EN), (phones[1], PL), (phones[2], EN)):
        expect(page.locator("#round-roles .seat-name")).to_have_text(["Ana", "Bartek", "Cleo"])
        expect(page.locator("#round-roles .role")).to_have_text([table[f"role.{r}"] for r in roles])
    screen.screenshot(path=str(screens / "table-gold.png"), full_page=True)
    secrets.check(screen)

    # The gold draft runs on the phones: whoever must pick sees the cards; the others wait.
    pictured = False
    for _ in range(10):
        draft = game().draft
        if draft is None:
            break
        picker = phones[draft.picker]
        expect(picker.locator("#pick-panel")).to_be_visible()
        for other in phones:
            if other is not picker:
                expect(other.locator("#pick-panel")).to_be_hidden()
        assert screen.locator(".gold-card").count() == 0  # the cards on offer are the picker's alone
        if not pictured:
            picker.screenshot(path=str(screens / "phone-pick.png"), full_page=True)
            pictured = True
        taken = len(draft.picks)
        picker.locator("#pick-cards button").first.click()
        deadline = time.monotonic() + 5
        while game().draft is not None and len(game().draft.picks) == taken and time.monotonic() < deadline:
            time.sleep(0.05)
    assert game().draft is None
    for seat, phone in enumerate(phones):
        total = sum(game().gold[seat])
        if total:
            expect(phone.locator("#my-gold")).to_contain_text(str(total))
    secrets.check(screen)

    # Rounds 2 and 3 end with an empty draw pile; then the full reveal and the ranking.
    for number in (2, 3):
        expect(host.locator("#start-round")).to_be_visible()
        host.locator("#start-round").click()
        expect(host.locator("#exhausted")).to_be_enabled()
        host.locator("#exhausted").click()
        expect(screen.locator("#result")).to_contain_text(f"Round {number}: The gold was not reached")
        secrets.check(screen)
    for phone in phones:
        expect(phone.locator("#final-panel")).to_be_visible()
        expect(phone.locator("#final .ranking li")).to_have_count(3)
    expect(screen.locator("#final-panel")).to_be_visible()
    totals = sorted((sum(g) for g in game().gold), reverse=True)
    expect(screen.locator(".ranking li").first).to_contain_text(str(totals[0]))
    phones[0].screenshot(path=str(screens / "phone-final.png"), full_page=True)
    screen.screenshot(path=str(screens / "table-final.png"), full_page=True)
    host.screenshot(path=str(screens / "host.png"), full_page=True)
    assert all(not phone.errors for phone in phones), [phone.errors for phone in phones]


def test_a_phone_that_reloads_is_back_in_its_seat_with_its_secrets(server, browser):
    base, app, game_id, host_link = server
    url = f"{base}/g/{game_id}/join"
    phones = [join(browser, url, name, slot) for slot, name in enumerate(["Ana", "Bo", "Cy"], start=1)]
    host = browser.new_context().new_page()
    host.goto(host_link)
    host.locator("#start-round").click()
    phone = phones[2]
    phone.locator("#role-card").click()
    role = phone.locator("#role-name").inner_text()
    # A browser that lost its cookie still holds the token in localStorage: it resumes the seat.
    phone.context.clear_cookies()
    phone.reload()
    phone.locator("#role-card").click(timeout=3000)
    expect(phone.locator("#role-name")).to_have_text(role, timeout=3000)
    expect(phone.locator("#conn")).to_have_attribute("data-live", "yes", timeout=3000)


def test_a_refused_tap_is_told_on_the_page_and_raises_no_page_error(server, browser):
    """A tap the server refuses (a gold card tapped again after the pick was taken, a seat
    freed meanwhile...) is shown to the player as a message, and is no uncaught error in
    the page: the refusal is answered here by the browser's router, as the server would."""
    base, app, game_id, host_link = server
    for slot, name in enumerate(["Ana", "Bo", "Cy"], start=1):
        join(browser, f"{base}/g/{game_id}/join", name, slot)
    host = browser.new_context().new_page()
    errors = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(host_link)
    host.route("**/start", lambda route: route.fulfill(status=409, json={"error": "Refused."}))
    host.locator("#start-round").click()
    expect(host.locator("#toast")).to_have_text("Refused.")
    host.wait_for_timeout(300)
    assert errors == []


def test_the_camera_line_says_what_makes_its_readings_less_sure(tmp_path, browser):
    """A camera in its night mode (here a black picture: no colour, and no maze) shows on the
    table screen's camera line why it reads less surely, besides its state."""
    import itertools

    import numpy as np

    from companion_web.serve import make_server, prepare
    from companion_web.vision_feed import VisionFeed, pipeline_maker

    feed = VisionFeed.from_pictures(itertools.repeat(np.zeros((360, 640, 3), np.uint8)), pipeline_maker(), fps=10)
    app, game_id, _ = prepare(str(tmp_path / "camera.db"), "saboteur", None, False, feed=feed)
    http = make_server(app, "127.0.0.1", 0, threads=8)
    thread = threading.Thread(target=http.run, daemon=True)
    thread.start()
    feed.start()
    try:
        screen = browser.new_context().new_page()
        screen.goto(f"http://127.0.0.1:{http.effective_port}/g/{game_id}/table")
        expect(screen.locator("#camera-status")).to_contain_text("the picture has no colour", timeout=15000)
    finally:
        feed.stop()
        http.close()
        thread.join(10)
