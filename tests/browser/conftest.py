"""A real companion server (waitress, on 127.0.0.1) and Debian's Chromium, driven by Playwright.

The machine has no network: the browser is the system's /usr/bin/chromium, never a
downloaded one. Without it these tests are skipped, saying why.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SCREENS = Path(os.environ.get("TUNNELVISION_SCREENSHOTS", "/tmp/tunnelvision-screens"))


def pytest_collection_modifyitems(items):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):  # CI installs chromium: a missing browser there is a failure, not a skip
            raise pytest.UsageError(f"{CHROMIUM} is missing; .ci/run installs Debian's chromium")
        skip = pytest.mark.skip(reason=f"{CHROMIUM} is missing (install Debian's chromium; no browser is downloaded)")
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(skip)


@pytest.fixture
def server(tmp_path):
    """The companion on a free port: (base URL, app, game id, one-time host link)."""
    from companion_web.auth import issue_host_link
    from companion_web.db import get_db
    from companion_web.serve import make_server, prepare

    app, game_id, _ = prepare(str(tmp_path / "browser.db"), "saboteur", None, False,
                              config={"DEAL_SEED": 5, "SSE_HEARTBEAT": 2.0})
    http = make_server(app, "127.0.0.1", 0, threads=24)
    base = f"http://127.0.0.1:{http.effective_port}"
    app.config["PUBLIC_URL"] = base
    with app.app_context():
        link = f"{base}/host/{issue_host_link(get_db())}"
    thread = threading.Thread(target=http.run, daemon=True)
    thread.start()
    yield base, app, game_id, link
    http.close()
    thread.join(10)


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def screens() -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    return SCREENS
