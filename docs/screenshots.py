"""Screenshots of every page at desktop and phone widths, into docs/screenshots/.

    python docs/screenshots.py              # every page
    python docs/screenshots.py laplace home # only these slugs
    python docs/screenshots.py --presenter  # only this view (--desktop, --phone, --presenter)

Full-page images go to docs/screenshots/<slug>-<desktop|phone>.png; viewport-sized
slices of them, for looking at closely, to /tmp/dplab-shots/.

Starts its own server on a free port and drives Debian's Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.conftest import CHROMIUM, CHROMIUM_ARGS, serve_app, wait_for_app  # noqa: E402
from ui.course import HOME, LESSONS  # noqa: E402

# name: (width, height, query). "presenter" is a 1280×720 projector in presenter mode.
VIEWS = {"desktop": (1440, 900, ""), "phone": (390, 844, ""), "presenter": (1280, 720, "?present=1")}
OUT = ROOT / "docs" / "screenshots"
REVIEW = Path("/tmp/dplab-shots")  # slices for close inspection, not committed


def main(args: list[str]) -> None:
    views = [name for name in VIEWS if f"--{name}" in args] or list(VIEWS)
    slugs = [arg for arg in args if not arg.startswith("--")]
    OUT.mkdir(parents=True, exist_ok=True)
    REVIEW.mkdir(parents=True, exist_ok=True)
    chosen = [lesson for lesson in LESSONS if not slugs or lesson.slug in slugs]
    with serve_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name in views:
            width, height, query = VIEWS[name]
            page = browser.new_page(viewport={"width": width, "height": height})
            for lesson in chosen:
                page.goto(url + ("/" if lesson is HOME else f"/{lesson.slug}") + query)
                wait_for_app(page)
                # Streamlit draws grey placeholders until each element arrives.
                page.wait_for_function(
                    "!document.querySelector('[data-testid=stSkeleton]')", timeout=60_000)
                page.wait_for_timeout(1500)  # let Plotly finish drawing
                # Streamlit scrolls inside its own container, so a "full page" shot would
                # stop at the viewport: grow the viewport to the content instead.
                content = page.evaluate(
                    "document.querySelector('[data-testid=stMain]').scrollHeight")
                page.set_viewport_size({"width": width, "height": max(height, content)})
                page.wait_for_timeout(1000)
                path = OUT / f"{lesson.slug}-{name}.png"
                page.screenshot(path=path, full_page=True)
                print(path.relative_to(ROOT))
                # Viewport-sized slices, small enough to inspect at full resolution.
                for i, top in enumerate(range(0, max(height, content), height)):
                    part = REVIEW / f"{lesson.slug}-{name}-{i + 1}.png"
                    page.screenshot(path=part, clip={"x": 0, "y": top, "width": width,
                                                     "height": min(height, content - top) or height})
                    print(part)
                page.set_viewport_size({"width": width, "height": height})
            page.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
