"""The watching page: its weight, and how long from opening a link to the board of a finished game, drawn.

    python bench/web_page.py [--quick]

Weight: the bytes of the page's own files (HTML, CSS, our JavaScript modules) raw and gzipped, and apart the vendored
mqtt.js; and what opening a link fetches, on the wire (the relay sends the files gzipped to a browser that takes it).
Time: an embedded relay with its web listener holds protocol/vectors/olix-game.txt (a finished 100-move Olix game);
headless Chromium (Debian's, by its path) opens ``#game=ID`` and the time is taken until the page shows the game's
result with its 100 moves listed (every line verified and judged in the browser on the way): the median and best of
several fresh tabs. Targets: under 150 kB of our own code, under 1 s.
"""

from __future__ import annotations

import asyncio
import gzip
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import options  # noqa: E402
from harness.figures import median  # noqa: E402
from protocol import decode, topic_for  # noqa: E402
from relay import page  # noqa: E402
from relay.embedded import RelaySettings, running  # noqa: E402


def weight() -> None:
    root = page.page_root()
    files = page.page_files(root)
    ours = [name for name in files if name.parts[0] != "vendor"]
    vendored = [name for name in files if name.parts[0] == "vendor" and name.suffix == ".js"]
    for label, names in (("page: our own files", ours), ("page: vendored mqtt.js", vendored)):
        data = b"".join((root / name).read_bytes() for name in names)
        print(f"{label}: {len(names)} files, {len(data):,} bytes ({len(gzip.compress(data)):,} gzipped)")


async def opening(rounds: int) -> None:
    import aiomqtt
    from playwright.async_api import Response, async_playwright

    lines = (ROOT / "protocol" / "vectors" / "olix-game.txt").read_text().splitlines()
    messages = [decode(line) for line in lines if line]
    game = messages[1].game
    async with running(RelaySettings(port=0, web_port=0)) as relay:
        assert relay.port is not None
        async with aiomqtt.Client("127.0.0.1", relay.port) as client:
            for message in messages:
                await client.publish(topic_for(message), message.line.encode(), qos=1, retain=True)
        async with async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium")
            times = []
            for round_ in range(rounds):
                tab = await browser.new_page()
                responses: list[Response] = []
                if round_ == 0:
                    tab.on("response", responses.append)
                started = time.perf_counter()
                await tab.goto(f"{relay.web_url}#game={game}")
                await tab.wait_for_function(
                    "() => document.querySelector('#result[data-code]') && "
                    "document.querySelectorAll('#moves li').length === 100",
                    timeout=30_000,
                )
                times.append(time.perf_counter() - started)
                if responses:  # what opening the link cost on the wire (the relay sends the files gzipped)
                    sizes = [await response.request.sizes() for response in responses]
                    vendored = sum(
                        size["responseBodySize"]
                        for response, size in zip(responses, sizes, strict=True)
                        if "/vendor/" in response.url
                    )
                    print(
                        f"page: on the wire, opening the link: {len(responses)} files, our own "
                        f"{sum(size['responseBodySize'] for size in sizes) - vendored:,} bytes, mqtt.js {vendored:,}"
                    )
                await tab.close()
            await browser.close()
    print(
        f"page: link to the board of a finished 100-move Olix game ({len(messages)} lines), {rounds} fresh tabs: "
        f"median {median(times) * 1000:.0f} ms, best {min(times) * 1000:.0f} ms"
    )


def main() -> None:
    parser = options.parser(__doc__)
    options.add_quick(parser, "3 tabs instead of 10")
    args = parser.parse_args()
    weight()
    asyncio.run(opening(3 if args.quick else 10))


if __name__ == "__main__":
    main()
