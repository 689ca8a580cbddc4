"""Screenshots of every page at desktop, phone and projector size, into docs/screenshots/.

    python docs/screenshots.py              # every page
    python docs/screenshots.py laplace home # only these slugs
    python docs/screenshots.py --presenter  # only this view (--desktop, --phone, --presenter)

- desktop (1440×900): the whole page, at half size; phone (390×844): its first three screens
  (docs/screenshots/<slug>-<desktop|phone>.jpg, JPEG: the folder stays a few MB);
- presenter (1280×720, present=1): the deck as the projector shows it, one screen per shot:
  the first step that has a chart (<slug>-presenter.jpg), and with --all-steps every step
  (<slug>-presenter-<n>.jpg).

Viewport-sized PNG slices of the full pages, for looking at closely, go to /tmp/dplab-shots/.
Starts its own server on a free port and drives Debian's Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.conftest import CHROMIUM, CHROMIUM_ARGS, serve_app, wait_for_app  # noqa: E402
from ui.course import HOME, LESSONS  # noqa: E402

VIEWS = {"desktop": (1440, 900), "phone": (390, 844), "presenter": (1280, 720)}
OUT = ROOT / "docs" / "screenshots"
REVIEW = Path("/tmp/dplab-shots")  # slices for close inspection, not committed
QUALITY = 70  # JPEG: the folder stays a few MB

DRAWN = """() => !document.querySelector('[data-testid=stSkeleton], [data-stale=true]')
  && [...document.querySelectorAll('[data-testid=stPlotlyChart]')].every(c => c.querySelector('.main-svg'))"""


def _settle(page) -> None:
    wait_for_app(page)
    page.wait_for_function(DRAWN, timeout=60_000)
    page.wait_for_timeout(800)  # Plotly's last relayout


def _page_url(url: str, lesson) -> str:
    return url + ("/" if lesson is HOME else f"/{lesson.slug}")


def full_page(page, url: str, lesson, name: str) -> None:
    width, height = VIEWS[name]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(_page_url(url, lesson))
    _settle(page)
    # Streamlit scrolls inside its own container, so a "full page" shot would stop at the
    # viewport: grow the viewport to the content instead.
    content = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": width, "height": max(height, content)})
    page.wait_for_timeout(1000)
    path = OUT / f"{lesson.slug}-{name}.jpg"
    if name == "phone":  # the first three screens, at full size
        page.screenshot(path=path, type="jpeg", quality=QUALITY,
                        clip={"x": 0, "y": 0, "width": width, "height": min(content, 3 * height)})
    else:  # the whole page, at half size
        page.screenshot(path=path, full_page=True, type="jpeg", quality=QUALITY)
        with Image.open(path) as shot:
            small = shot.resize((shot.width // 2, shot.height // 2), Image.LANCZOS)
        small.save(path, "JPEG", quality=60, optimize=True, progressive=True)
    print(path.relative_to(ROOT))
    for i, top in enumerate(range(0, max(height, content), height)):
        part = REVIEW / f"{lesson.slug}-{name}-{i + 1}.png"
        page.screenshot(path=part, clip={"x": 0, "y": top, "width": width,
                                         "height": min(height, content - top) or height})


def presenter(page, url: str, lesson, every_step: bool) -> None:
    width, height = VIEWS["presenter"]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(_page_url(url, lesson) + "?present=1")
    _settle(page)
    page.wait_for_timeout(500)  # a first visit may run the page twice (ui.lessons.demo)
    _settle(page)
    step, saved = 1, False
    while True:
        has_chart = page.locator("[data-testid=stPlotlyChart]").count() > 0
        if every_step:
            path = OUT / f"{lesson.slug}-presenter-{step}.jpg"
            page.screenshot(path=path, type="jpeg", quality=QUALITY)
            print(path.relative_to(ROOT))
        if not saved and (has_chart or lesson is HOME or lesson.section == "Classroom"):
            path = OUT / f"{lesson.slug}-presenter.jpg"
            page.screenshot(path=path, type="jpeg", quality=QUALITY)
            print(path.relative_to(ROOT))
            saved = True
            if not every_step:
                return
        following = page.locator(".st-key-dplab_deck_next button").first
        if not following.count() or following.is_disabled():
            break
        label = page.locator(".st-key-dplab_deck strong").inner_text()
        page.keyboard.press("PageDown")
        page.wait_for_function(
            "(before) => (document.querySelector('.st-key-dplab_deck strong')?.innerText || '')"
            " !== before", arg=label, timeout=60_000)
        _settle(page)
        step += 1


def main(args: list[str]) -> None:
    views = [name for name in VIEWS if f"--{name}" in args] or list(VIEWS)
    slugs = [arg for arg in args if not arg.startswith("--")]
    OUT.mkdir(parents=True, exist_ok=True)
    REVIEW.mkdir(parents=True, exist_ok=True)
    chosen = [lesson for lesson in LESSONS if not slugs or lesson.slug in slugs]
    with serve_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        for name in views:
            for lesson in chosen:
                if name == "presenter":
                    presenter(page, url, lesson, "--all-steps" in args)
                else:
                    full_page(page, url, lesson, name)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
