"""Headless Chromium for the page's tests: Debian's, driven by Playwright by its path (no browser download)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from relay_fixtures import TOOLS_REQUIRED

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

try:
    import playwright.async_api as playwright
except ImportError:  # scripts/test installs it; a bare checkout may not have it
    playwright = None  # type: ignore[assignment]

needs_browser = pytest.mark.skipif(
    (playwright is None or not Path(CHROMIUM).exists()) and not TOOLS_REQUIRED,
    reason="needs Debian's chromium and Playwright (scripts/test installs both, and makes their absence a failure)",
)


@pytest.fixture
async def browser():
    """A headless Chromium, closed after the test."""
    assert playwright is not None, "Playwright is not installed"
    async with playwright.async_playwright() as driver:
        launched = await driver.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield launched
        finally:
            await launched.close()
