"""The translation table: complete in both languages, used consistently, reasons translated."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from flask import Flask, request

from companion_web.i18n import EN, PL, client_strings, pick_language, translate
from companion_web.reasons import PATTERNS, in_words
from engine.board import Board, Placement

PACKAGE = Path(__file__).resolve().parents[2] / "companion_web"


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_both_languages_have_every_sentence_with_the_same_placeholders():
    assert set(EN) == set(PL)
    for key in EN:
        assert placeholders(EN[key]) == placeholders(PL[key]), key
        assert PL[key].strip(), key


def test_every_key_the_code_and_pages_use_exists():
    sources = [p.read_text() for p in PACKAGE.rglob("*") if p.suffix in (".py", ".html", ".js")]
    used = set()
    for text in sources:
        used |= set(re.findall(r"""["']((?:ui|error|status|host|log|edition|peek|goal)\.[a-z0-9-]+)["']""", text))
    missing = sorted(k for k in used if k not in EN and not k.endswith(".html"))
    assert missing == []
    kinds = set()
    for text in sources:
        kinds |= set(re.findall(r'LogEntry\(\s*"([a-z-]+)"', text))
        kinds |= set(re.findall(r'_by_seat\("([a-z-]+)"', text))
        kinds |= set(re.findall(r'_private\("([a-z-]+)"', text))
    variants = {"peek": ["log.peek", "log.peek-role"], "round-scored": ["log.round-scored-gold", "log.round-scored-none"],
                "corrected": ["log.corrected", "log.corrected-clear"]}
    for kind in kinds:
        for key in variants.get(kind, [f"log.{kind}"]):
            assert key in EN, key


def test_the_browser_gets_page_labels_only():
    for lang in ("en", "pl"):
        labels = client_strings(lang)
        assert labels and all(key.startswith("ui.") for key in labels)
    assert client_strings("pl")["ui.join"] == "Dołącz"
    assert client_strings("xx") == client_strings("en")


def test_translate_falls_back_and_never_raises():
    assert translate("pl", "status.turn", name="Ola") == "Kolej gracza: Ola"
    assert translate("de", "status.turn", name="Ola") == "Ola's turn"
    assert translate("en", "status.turn") == "{name}'s turn"
    assert translate("en", "no.such.key") == "no.such.key"


@pytest.mark.parametrize("header,cookie,expected", [
    ("pl-PL,pl;q=0.9,en;q=0.8", None, "pl"),
    ("en-GB,en;q=0.9", None, "en"),
    ("de-DE,fr;q=0.5", None, "en"),
    ("pl", "en", "en"),
    ("en", "pl", "pl"),
    ("en", "xx", "en"),
])
def test_the_language_comes_from_the_cookie_then_the_browser(header, cookie, expected):
    app = Flask(__name__)
    headers = {"Accept-Language": header}
    if cookie:
        headers["Cookie"] = f"tv_lang={cookie}"
    with app.test_request_context(headers=headers):
        assert pick_language(request) == expected


def real_reasons() -> dict[str, str]:
    """One real engine sentence for every reason code."""
    board = Board.standard(["goal-gold", "goal-stone-ne", "goal-stone-nw"])
    for x in range(1, 7):
        board.put(Placement(x, 0, "cross"))
    found = {}
    probes = [
        (Placement(2, 1, "cross"), {"broken_tools": ["lantern"], "trapped": True}),
        (Placement(1, 1, "goal-gold"), {}),
        (Placement(1, 0, "cross"), {}),
        (Placement(5, 5, "cross"), {}),
        (Placement(1, 1, "cross", 90), {}),
        (Placement(1, 1, "straight-ew"), {}),
        (Placement(7, 2, "ladder-s"), {}),
        (Placement(1, 1, "ladder-e"), {}),
        (Placement(1, -1, "dead-e"), {}),
    ]
    for placement, kwargs in probes:
        for reason in board.check(placement, **kwargs).reasons:
            found.setdefault(reason.code, reason.message)
    return found


def test_every_engine_reason_is_translated_to_polish():
    reasons = real_reasons()
    assert set(reasons) == set(PATTERNS)
    for code, message in reasons.items():
        polish = in_words(code, message, "pl")
        assert "po angielsku" not in polish and polish != message, (code, message, polish)
        assert not re.search(r"\{g\d\}", polish), polish
        assert in_words(code, message, "en") == message
    assert in_words("edge-mismatch", "the east edge is a tunnel but the card at (5,1) has rock there", "pl") == \
        "na krawędzi wschodniej jest tunel, a na karcie na (5,1) jest tam skała"


def test_an_unknown_reason_is_shown_in_english_behind_a_lead_in():
    assert in_words("new-code", "the moon is in the way", "pl") == "(po angielsku) the moon is in the way"
    assert in_words("new-code", "the moon is in the way", "en") == "the moon is in the way"
