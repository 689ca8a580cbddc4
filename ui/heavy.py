"""Heavy cached computations, paid for by the session that asks for them (ui.allowance).

    @heavy.cache_data(max_entries=32)
    def _reconstruct(n, k, noise_bounds, seed): ...

is st.cache_data(max_entries=32, show_spinner=False) with one difference: a call that misses
the cache waits while the session's allowance is spent (a spinner says why), then computes.
Nobody is refused, and a hit never waits. Waiting sleeps, so it costs the server nothing.

What is charged is the session's CPU time, not only the cached function's: a cold rerun of a
heavy page costs more in drawing its charts and text than in its cached computation (graphs
at n = 2,000: about 0.04 s of 0.3 s). So once a session has missed a heavy cache, its runs are
charged whole: up to each heavy miss (charged before it waits), and at the end of the run
(run_finished, called by app.py). A session that never misses a heavy cache is never charged.
"""

from __future__ import annotations

import functools
import threading
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui import allowance

BUCKET_KEY = "heavy_allowance"
WAIT_NOTE = ("Computing at a fair pace: this page has computed many new settings in the last "
             "seconds, and the server shares its time among everyone. Settings you have seen "
             "before show at once.")

# Per script thread: (session id, the thread's CPU time already charged). A run is one thread.
_charged_so_far = threading.local()


class _Spent(Exception):
    """Raised inside the cache (so nothing is cached) when the session must wait first."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def _charge_this_run(bucket: dict) -> None:
    """Charge the session the CPU its current run has used since it was last charged."""
    ctx = get_script_run_ctx()
    session = ctx.session_id if ctx else ""
    cpu = time.thread_time()
    mark = getattr(_charged_so_far, "mark", None)
    spent = cpu - mark[1] if mark is not None and mark[0] == session else cpu
    _charged_so_far.mark = (session, cpu)
    allowance.charge(bucket, max(0.0, spent), time.monotonic())


def run_finished() -> None:
    """At the end of a run (app.py): charge its CPU since the last charge, if the session pays."""
    bucket = st.session_state.get(BUCKET_KEY)
    if bucket is not None:
        _charge_this_run(bucket)


def _gated(function):
    """Runs only on a cache miss: charge the run so far, wait if the allowance is spent."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        if getattr(_charged_so_far, "computing", False):  # called by another heavy function
            return function(*args, **kwargs)
        bucket = st.session_state.setdefault(BUCKET_KEY, {})
        _charge_this_run(bucket)
        wait = 0.0 if getattr(_charged_so_far, "waited", False) else allowance.wait(bucket, time.monotonic())
        if wait > 0:
            raise _Spent(wait)
        _charged_so_far.computing = True
        try:
            return function(*args, **kwargs)
        finally:
            _charged_so_far.computing = False
    return run


def _cached(cache, max_entries: int):
    def decorate(function):
        cached = cache(max_entries=max_entries, show_spinner=False)(_gated(function))

        @functools.wraps(function)
        def call(*args, **kwargs):
            try:
                return cached(*args, **kwargs)
            except _Spent as spent:
                with st.spinner(WAIT_NOTE):
                    time.sleep(spent.seconds)
                # It has waited its turn: this miss now computes. (Checking the allowance again
                # would charge the check's own CPU first and could find it a hair short, again
                # and again: it once recursed until Python's recursion limit.)
                _charged_so_far.waited = True
                try:
                    return cached(*args, **kwargs)
                finally:
                    _charged_so_far.waited = False

        call.clear = cached.clear
        return call
    return decorate


def cache_data(*, max_entries: int):
    """st.cache_data for a heavy function, whose misses wait for the session's allowance."""
    return _cached(st.cache_data, max_entries)


def cache_resource(*, max_entries: int):
    """st.cache_resource for a heavy function, whose misses wait for the session's allowance."""
    return _cached(st.cache_resource, max_entries)
