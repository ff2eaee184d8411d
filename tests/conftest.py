"""Shared test fixtures: where the shared folder (rules, conformance cases, card scans) is."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path | None:
    """``../shared`` beside the checkout (as in CI), or $TUNNELVISION_SHARED."""
    candidate = Path(os.environ.get("TUNNELVISION_SHARED", REPO.parent / "shared"))
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("../shared is not beside this checkout (set TUNNELVISION_SHARED)")
    return path
