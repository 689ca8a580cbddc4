""""Copy link to this view": a link that reopens a demo with its parameters and its seed.

Every main widget is bound to the URL (bind="query-params"), so the browser's address bar
follows the view, but Streamlit leaves a parameter out of the address while it sits at its
default. The copied link therefore writes out every URL-bound parameter of the page, and
the seed, defaults included (ui.params registers each widget): an old link keeps its
picture even after a later version changes a default.

A link is for students unless the instructor asks otherwise: it never carries presenter
mode, except from the deck's own link popover with "Link for the projector" switched on
(then it carries present=1 and the step on screen).
"""

from __future__ import annotations

import html
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.course import HOME, LESSONS
from ui.params import link_params
from ui.presenter import PRESENT_KEY, presenter_mode
from ui.seeds import SEED_KEY, current_seed

STEP_KEY = "step"  # ui.lessons' deck parameter (ui.lessons imports this module's callers)
PRESENTER_ONLY = (PRESENT_KEY, STEP_KEY)


def view_link(slug: str, *, projector_step: int | None = None, demo: str | None = None) -> str:
    """The page's address with every parameter of this view and the seed.

    With `projector_step`, the link opens presenter mode at that step of the deck; with
    `demo`, it ends in #demo and opens scrolled to that demo (SCROLL_TO_DEMO).
    """
    params = {key: st.query_params.get_all(key) for key in st.query_params
              if key not in PRESENTER_ONLY}
    params.update(link_params())
    params[SEED_KEY] = [str(current_seed())]
    if projector_step is not None:
        params[PRESENT_KEY] = ["1"]
        params[STEP_KEY] = [str(projector_step)]
    anchor = f"#{demo}" if demo else ""
    return f"{app_root()}/{'' if slug == HOME.slug else slug}?{urlencode(params, doseq=True)}{anchor}"


def app_root() -> str:
    """The app's address without the page path ("" outside a browser session, e.g. in AppTest).

    st.context.url is documented to trim the page path but, under st.navigation in 1.67,
    does not, so the page's slug is trimmed here.
    """
    url = (st.context.url or "").rstrip("/")
    for lesson in LESSONS:
        if lesson is not HOME and url.endswith(f"/{lesson.slug}"):
            return url.removesuffix(f"/{lesson.slug}")
    return url


# st.code's own copy icon appears on hover, which a touch screen does not have; this button
# is always visible. One listener for every copy button of the page, installed once.
_COPY_SCRIPT = """
<script>
(() => {
  if (window.__dplabCopy) return;
  window.__dplabCopy = true;
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element && event.target.closest('button[data-dplab-link]');
    if (!button) return;
    const link = button.getAttribute('data-dplab-link');
    const status = button.parentElement.querySelector('[role=status]');
    let copied = false;
    try {
      await navigator.clipboard.writeText(link);
      copied = true;
    } catch (error) {  // no clipboard API outside https and localhost: the old way
      const area = document.createElement('textarea');
      area.value = link;
      document.body.appendChild(area);
      area.select();
      try { copied = document.execCommand('copy'); } catch (ignored) { copied = false; }
      area.remove();
    }
    if (status) status.textContent = copied ? 'Copied.' : 'Copying failed: select the link above.';
  });
})();
</script>
"""


def _copy_button(link: str) -> None:
    st.html(
        '<div style="display:flex;gap:.75rem;align-items:center">'
        f'<button type="button" data-dplab-link="{html.escape(link, quote=True)}" '
        'style="font:inherit;padding:.3rem .8rem;border:1px solid #b0b0b0;border-radius:.5rem;'
        'background:#fff;color:#161616;cursor:pointer">📋 Copy the link</button>'
        '<span role="status" aria-live="polite"></span></div>' + _COPY_SCRIPT,
        unsafe_allow_javascript=True)


_PENDING = "_dplab_pending_links"


def _fill(popover, slug: str, demo: str) -> None:
    with popover:
        link = view_link(slug, demo=demo)
        st.code(link, language=None, wrap_lines=True)
        _copy_button(link)
        st.caption("It reopens this page with the same settings and the same seed, so the same "
                   "random pictures, for anyone who opens it.")


def share_key(demo: str) -> str:
    """The session-state key of a demo's link popover (True while it is open)."""
    return f"{demo}_share"


def copy_link(slug: str, demo: str) -> None:
    """A small popover with the link to this view and a copy button.

    The popover is lazy: opening it reruns its demo, and only an open popover holds the
    link, its copy button and its caption. A closed one is one element, so moving a slider
    does not resend three elements per demo that nobody is looking at (issue 16).

    The popover sits at the top of its demo, but on a page run its link is written at the
    end (fill_links), once every widget of the page has run: a demo's link then carries the
    settings of the demos below it too. A demo's own rerun writes it at once.
    In presenter mode the deck's controls hold the page's one link popover instead.
    """
    if presenter_mode():
        return
    popover = st.popover("🔗 Copy link to this view", key=share_key(demo), on_change="rerun")
    if not popover.open:
        return
    ctx = get_script_run_ctx()
    if ctx and ctx.fragment_ids_this_run:
        _fill(popover, slug, demo)
    else:
        st.session_state.setdefault(_PENDING, []).append((popover, slug, demo))


# A copied link ends in #<demo>: once the page has run, scroll to that demo's link popover
# (at the top of the demo), so that a phone opens at the demo, not at the lesson's title.
# Charts above it still settle after the first draw, so it scrolls again for a moment,
# until the reader scrolls or touches the page themselves.
SCROLL_TO_DEMO = """
<script>
(() => {
  if (window.__dplabToDemo) return;
  window.__dplabToDemo = true;
  // Streamlit rewrites the address (leaving default values out) and drops the # with it:
  // the address the page was opened at is still the navigation's.
  const opened = (performance.getEntriesByType('navigation')[0] || {}).name || location.href;
  const demo = decodeURIComponent((location.hash || new URL(opened).hash).slice(1));
  if (!/^[A-Za-z0-9_-]+$/.test(demo)) return;
  let started = null, stopped = false;
  const stop = () => { stopped = true; };
  ['wheel', 'touchstart', 'keydown', 'mousedown'].forEach((kind) =>
    window.addEventListener(kind, stop, {once: true, capture: true}));
  const tick = () => {
    if (stopped) return;
    const target = document.querySelector(`.st-key-${demo}_share`);
    const running = document.querySelector('[data-test-script-state=running]');
    if (target && !running) {
      started = started || Date.now();
      target.style.scrollMarginTop = '4.5rem';  // clear of the page's header
      target.scrollIntoView({block: 'start'});
      if (Date.now() - started > 2500) return;
    }
    setTimeout(tick, 250);
  };
  setTimeout(tick, 250);
  setTimeout(stop, 30000);
})();
</script>
"""


def fill_links() -> None:
    """app.py, after the page ran: write the links of this run's popovers (and, for a link
    that names a demo, scroll to it)."""
    for popover, slug, demo in st.session_state.pop(_PENDING, []):
        _fill(popover, slug, demo)
    if not presenter_mode():
        st.html(SCROLL_TO_DEMO, unsafe_allow_javascript=True)


def deck_link(slug: str, step: int) -> None:
    """The deck's link popover: the student view, or (switched on) this step on a projector."""
    with st.popover("🔗 Link", key="dplab_deck_link"):
        projector = st.toggle("Link for the projector", key="dplab_deck_link_projector",
                              help="Off: the link opens the lesson as students see it. "
                                   "On: it opens presenter mode at this step.")
        link = view_link(slug, projector_step=step if projector else None)
        st.code(link, language=None, wrap_lines=True)
        _copy_button(link)
        st.caption("Same settings and seed, so the same pictures. "
                   + ("Opens presenter mode at this step." if projector
                      else "Opens the full lesson, as students see it."))
