"""Issue 18: a hostile student with a laptop and a script (docs/SECURITY.md).

- Crafted links: every echoed link value is short, inert text (AppTest, and Chromium for
  what the browser actually draws); repeated and unknown keys are worded correctly.
- The exponential page's editable tables: a crafted widget state with thousands of added
  rows is refused before Streamlit applies it (loopback server, scripted client).
- Uploads, oversized frames, malformed widget states: refused, closed, or shown as a
  generic line without details, and logged once per kind (loopback server).
"""

from __future__ import annotations

import concurrent.futures
import logging
import re
import sys
import tomllib
import urllib.parse

import pytest

from tests.conftest import ROOT, app_test, assert_clean, lesson, run_coroutine, wait_for_app
from ui.course import LESSONS
from ui.params import is_known_link_key
from ui.server_log import RepeatedTracebackFilter
from ui.tables import edit_problem
from ui.text import plain, quoted

SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:&")
JOINER = "\u2060"

# Values a hostile link might carry: an image that phones home, a phishing link, raw HTML,
# code spans and formulas that try to break out, bare addresses that GFM would autolink.
PAYLOADS = [
    "![x](https://evil.example/t.png)",
    "[Session expired: sign in](https://evil.example)",
    "<img src=https://evil.example/i.png onerror=alert(1)>",
    "`` ` ``![x](https://evil.example/t.png)``",
    "https://evil.example/login",
    "www.evil.example",
    "WWW.EVIL.EXAMPLE",
    "mail me: someone@evil.example",
    "$\\href{https://evil.example}{click}$",
    ":red[**Your grade is F**]",
    "line one\n# A heading\n> a quote",
]


def as_read(markdown: str) -> str:
    """Markdown source as a reader sees the text: backslash escapes resolved, word joiners
    (which break autolinks, ui/text.py) removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(JOINER, "")


def _inert(markdown: str) -> bool:
    """True if every Markdown-special character is escaped and no autolink can start."""
    unescaped = re.sub(r"\\.", "", markdown)
    return (not SPECIAL & set(unescaped) and "\n" not in markdown
            and not re.search(r"(?i)www\\?\.|:\\?/\\?/|@[^\u2060]", markdown))


# ── ui/text.py ────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("value", PAYLOADS)
def test_quoted_link_values_are_inert_and_read_as_written(value):
    shown = quoted(value)
    assert _inert(shown), shown
    assert as_read(shown) == repr(value) or as_read(shown).startswith(repr(value[:40])[:-1])


def test_a_5000_digit_value_is_cut_to_about_40_characters():
    shown = as_read(quoted("9" * 5000))
    assert shown == f"'{'9' * 40}…' (5,000 characters)"


def test_plain_keeps_typed_text_readable():
    text = "Did you vote? (yes/no) — 50% of 2 people, e.g. a@b"
    assert as_read(plain(text)) == text and _inert(plain(text))


# ── Link notes through the app (AppTest) ─────────────────────────────────────────────────────


def _notes(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("⚠️")]


def test_crafted_link_values_are_echoed_as_inert_text():
    keys = ["lap_eps", "lap_hist_eps", "lap_hist_k", "lap_pp_eps", "lap_clip_eps", "lap_acc_conf",
            "lap_acc_delta", "lap_audit_eps", "lap_relation", "lap_query", "seed"]
    query = {key: PAYLOADS[i % len(PAYLOADS)] for i, key in enumerate(keys)}
    at = app_test(lesson("laplace"), query)
    assert_clean(at)
    notes = _notes(at)
    assert len(notes) == len(keys)
    for note in notes:
        echoed = note.split("=", 1)[1].split(" is not a valid")[0]
        assert _inert(echoed), note
    assert "Session expired: sign in" in as_read(" ".join(notes))


def test_a_5000_digit_seed_falls_back_with_a_short_note():
    at = app_test(lesson("laplace"), {"seed": "9" * 5000, "lap_eps": "1" * 5000})
    assert_clean(at)
    notes = as_read(" ".join(_notes(at)))
    assert "seed='" in notes and "lap_eps='" in notes and notes.count("(5,000 characters)") == 2
    assert len(notes) < 400


@pytest.mark.parametrize(("values", "shown"), [(["0.5", "2"], "1"), (["1", "2", "5", "7"], "1")])
def test_a_repeated_key_is_called_repeated_not_invalid(values, shown):
    at = app_test(lesson("laplace"), {"lap_eps": values})
    assert_clean(at)
    notes = as_read(" ".join(_notes(at)))
    times = "twice" if len(values) == 2 else f"{len(values)} times"
    assert f"The link gives lap_eps {times} ('{values[0]}', '{values[1]}'" in notes
    assert f"a link can set it only once; showing {shown}." in notes
    assert "is not a valid" not in notes


def test_a_bad_resample_count_gets_a_note_and_leaves_the_link():
    at = app_test(lesson("laplace"), {"lap_hist_draw": "abc"})
    assert_clean(at)
    assert "lap_hist_draw='abc' is not a valid number of resamples" in as_read(" ".join(_notes(at)))
    assert "lap_hist_draw" not in at.query_params
    at.button(key="lap_hist_resample").click().run()
    assert not any("lap_hist_draw" in as_read(n) for n in _notes(at))
    assert at.query_params["lap_hist_draw"] == "1"


def test_an_unknown_key_gets_a_note_and_leaves_the_link():
    at = app_test(lesson("composition"), {"comp_post": "Bogus", "comp_eps": "0.5"})
    assert_clean(at)
    notes = as_read(" ".join(_notes(at)))
    assert "This page has no setting called 'comp_post', so the link's value 'Bogus'" in notes
    assert "comp_post" not in at.query_params and at.query_params["comp_eps"] == "0.5"


def test_a_link_with_many_unknown_keys_gets_three_notes_and_a_count():
    at = app_test(lesson("home"), {f"junk{i}": "x" for i in range(50)})
    assert_clean(at)
    notes = as_read(" ".join(_notes(at)))
    assert notes.count("This page has no setting called") == 3 and "… and 47 more names" in notes


@pytest.mark.parametrize("page", [lesson for lesson in LESSONS if lesson.section != "Classroom"],
                         ids=lambda lesson: lesson.slug)
def test_every_key_a_page_binds_to_its_link_is_a_known_key(page):
    # The unknown-key note drops a name from the link: it must never drop a real setting.
    tabs = ["Selection", "Most common disease", "Private median", "Auction", "Coin bias",
            "Check the guarantee"] if page.slug == "exponential" else [None]
    for tab in tabs:
        at = app_test(page, {"exp_tab": tab} if tab else {})
        bound = {node.proto.query_param_key for node in _widgets(at) if node.proto.query_param_key}
        assert not [key for key in bound if not is_known_link_key(page.script, key)]
        assert bound or page.slug == "home"
        assert not _notes(at)


def _widgets(at):
    stack = [at._tree]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "children", {}).values())
        if hasattr(getattr(node, "proto", None), "query_param_key"):
            yield node


# ── In Chromium: what the browser draws from a crafted link ──────────────────────────────────


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_crafted_links_draw_no_image_link_or_html_in_chromium(page, app_url):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    query = {"lap_eps": PAYLOADS[0], "lap_hist_eps": PAYLOADS[1], "lap_pp_eps": PAYLOADS[2],
             "lap_clip_eps": PAYLOADS[3], "lap_acc_conf": PAYLOADS[4], "lap_acc_delta": PAYLOADS[5],
             "lap_audit_eps": PAYLOADS[6], "lap_hist_k": PAYLOADS[7], "seed": PAYLOADS[8],
             "lap_relation": PAYLOADS[9], "lap_query": PAYLOADS[10]}
    page.goto(f"{app_url}/laplace?{urllib.parse.urlencode(query)}")
    wait_for_app(page)
    page.wait_for_timeout(500)
    main = page.locator("[data-testid=stMain]")
    assert main.get_by_text("Session expired: sign in", exact=False).first.is_visible()
    assert page.locator("a[href*='evil'], img[src*='evil'], [data-testid=stException]").count() == 0
    assert page.locator("[data-testid=stCaptionContainer] a, [data-testid=stCaptionContainer] img, "
                        "[data-testid=stCaptionContainer] code, [data-testid=stCaptionContainer] h1, "
                        "[data-testid=stCaptionContainer] .katex").count() == 0
    assert not [url for url in requests if "evil" in (urllib.parse.urlsplit(url).hostname or "")]


# ── Config ────────────────────────────────────────────────────────────────────────────────────


def test_server_limits_in_the_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"
    assert config["server"]["maxUploadSize"] == 0
    assert 1 <= config["server"]["maxMessageSize"] <= 5


# ── ui/tables.py and ui/server_log.py, directly ───────────────────────────────────────────────


@pytest.mark.parametrize(("state", "problem"), [
    (None, None),
    ({"edited_rows": {0: {"score": 3}}, "added_rows": [{"candidate": "x"}], "deleted_rows": [5]}, None),
    ({"added_rows": [{"score": 1.0}] * 31}, "adds 31 rows"),
    ({"added_rows": [{"score": 1.0}] * 4000}, "adds 4,000 rows, and this table takes at most 30"),
    ({"edited_rows": {6: {"score": 1}}}, "names a row or a column"),
    ({"edited_rows": {"-1": {"score": 1}}}, "names a row or a column"),
    ({"edited_rows": {0: {"nope": 1}}}, "names a row or a column"),
    ({"edited_rows": {0: {"score": [1, 2]}}}, "names a row or a column"),
    ({"added_rows": [{"nope": 1}]}, "names a column"),
    ({"deleted_rows": [10**6]}, "deletes a row"),
    ({"deleted_rows": list(range(7))}, "more rows than the table has"),
    ({"added_rows": "abc"}, "form the table does not understand"),
    ([1, 2], "form the table does not understand"),
    ((), "form the table does not understand"),
])
def test_edit_states_are_checked_before_streamlit_applies_them(state, problem):
    found = edit_problem(state, rows=6, columns=["candidate", "score"], max_rows=30)
    assert (found is None) if problem is None else (problem in found), found


def _record(error: Exception) -> logging.LogRecord:
    try:
        raise error
    except type(error):
        return logging.LogRecord("streamlit.error_util", logging.ERROR, __file__, 1,
                                 "Uncaught app execution", None, sys.exc_info())


def test_repeated_tracebacks_are_logged_once_per_window():
    now = [0.0]
    log_filter = RepeatedTracebackFilter(window=60, clock=lambda: now[0])
    passed = [log_filter.filter(_record(TypeError("bad slider value"))) for _ in range(100)]
    assert passed.count(True) == 1
    assert log_filter.filter(_record(ValueError("another kind")))
    now[0] = 61.0
    record = _record(TypeError("bad slider value"))
    assert log_filter.filter(record) and "(99 more like this in the last 60 s" in record.msg
    plain_record = logging.LogRecord("x", logging.INFO, __file__, 1, "no traceback", None, None)
    assert all(log_filter.filter(plain_record) for _ in range(3))


# ── A live server on loopback, attacked by a scripted client (bench/attacks.py) ──────────────

CPU_BOUND = 1.0  # seconds of server CPU per message; the attack cost 9.5 s before the fix


def _in_thread(call, *args, **kwargs):
    """Run a client in its own thread: Playwright's sync API keeps an event loop running in
    this one once a browser test has run, and asyncio.run refuses to nest."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(call, *args, **kwargs).result()


def _run(coroutine_function, *args, **kwargs):
    return run_coroutine(coroutine_function(*args, **kwargs))


@pytest.fixture(scope="module")
def server():
    from bench.attacks import logged_server

    with logged_server() as (pid, port, log):
        yield pid, port, log


def test_a_crafted_table_state_is_refused_in_well_under_a_second(server):
    from bench.attacks import editor_attack, editor_baseline

    pid, port, _ = server
    _run(editor_baseline, port, pid)  # warm: imports and caches
    result = _run(editor_attack, port, pid, rows=4000, messages=2)
    assert max(result["attack_cpu"]) < CPU_BOUND, result["attack_cpu"]
    assert result["resend_cpu"] < CPU_BOUND and result["fresh_cpu"] < CPU_BOUND
    assert not result["exceptions"] and not result["fresh_exceptions"]
    assert any("That edit was undone: the edit adds 4,000 rows, and this table takes at most 30"
               in text for text in result["texts"])
    # A normal visitor afterwards: the page opens and an edit applies, at normal cost.
    assert result["visitor_cpu"] < CPU_BOUND
    normal = _run(editor_baseline, port, pid)
    assert normal["edit_cpu"] < CPU_BOUND and not normal["refused"]


def test_a_frame_over_the_message_limit_closes_only_that_connection(server):
    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from websockets.exceptions import ConnectionClosed

    from bench.attacks import WatchingSession, editor_state

    _, port, _ = server

    async def attack() -> tuple[int | None, float]:
        attacker = WatchingSession(port, "exponential")
        await attacker.open()
        state = WidgetState(id=attacker.editor_id(), string_value=editor_state(60_000))
        code = None
        try:
            await attacker.send_run(attacker.rerun_with([state]))
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
        visitor = WatchingSession(port, "exponential")
        seconds = await visitor.open()
        await visitor.close()
        return code, seconds

    code, seconds = _run(attack)
    assert code == 1009  # message too big (2.6 MB against maxMessageSize = 2)
    assert seconds < 30


def test_uploads_are_refused_and_memory_stays_flat(server):
    from bench.attacks import upload_attack

    pid, port, _ = server
    for chunked in (False, True):
        result = _in_thread(upload_attack, port, pid, uploads=30, megabytes=1, chunked=chunked)
        assert "204" not in result["statuses"], result["statuses"]
        assert result["rss_after"] - result["rss_before"] < 20  # 30 accepted files: +30 MB


def test_a_malformed_widget_state_shows_no_details_and_is_logged_once(server):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    from bench.attacks import WatchingSession

    _, port, log = server

    async def attack() -> list[list[str]]:
        shown = []
        for _ in range(20):
            session = WatchingSession(port, "laplace")
            await session.open()
            state = WidgetState(id=session.slider_id, string_value="not a slider value")
            await session.send_run(session.rerun_with([state]))
            shown.append(session.exceptions)
            await session.close()
        return shown

    start = log.seek(0, 2)
    shown = _run(attack)
    logged = log.seek(0, 2) - start
    assert all(len(exceptions) == 1 for exceptions in shown)
    for exceptions in shown:
        kind, message, *trace = exceptions[0].split(" | ")
        assert not kind and not trace and "/" not in message and ".py" not in message
        assert message.startswith("This app has encountered an error.")
    assert logged < 8_000, logged  # one traceback (~2 kB), not 20
