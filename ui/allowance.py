"""How much uncached computing one browser session may ask of the server (issue 25, item 4).

A heavy page at a setting no cache holds (the reconstruction attack at n = 200, k = 400; a
2,000-person network; a model trained with a new seed) costs a tenth of a CPU second to a
second, drawing included (ui.heavy charges whole runs). A script can ask for one after another
without end, and Python runs one thread at a time, so
three such sessions slowed every other visitor's page several times over. Each session therefore
has an allowance of CPU seconds, a token bucket: it holds at most CAPACITY_SECONDS and refills at
REFILL_PER_SECOND. A computation is charged what it cost once it has run; while the allowance
is spent, the session's next one waits (ui.heavy sleeps, which costs the server nothing) until
the bucket is back above zero.

What a student notices: a burst of new settings worth CAPACITY_SECONDS of CPU with no wait (a
few cold reruns of the heaviest pages, more of the others), then new settings at the refill
rate: a 0.3 s rerun about every 6 s. Settings seen before come from the cache, free and at once.

No Streamlit here: the bucket is a dict kept in the session (ui.heavy), tested directly.
"""

from __future__ import annotations

CAPACITY_SECONDS = 2.0
# Three sessions that keep their buckets empty use 3 × 0.05 = 0.15 of a core between them, so a
# visitor's page still gets most of the interpreter (tests/test_hall.py measures the effect;
# at 0.1 a visitor's open was already 1.6 times slower).
REFILL_PER_SECOND = 0.05


def level(bucket: dict, now: float) -> float:
    """CPU seconds this session may spend now (negative: in debt), refilled up to `now`."""
    if "at" not in bucket:
        return CAPACITY_SECONDS
    refilled = bucket["level"] + REFILL_PER_SECOND * (now - bucket["at"])
    return min(CAPACITY_SECONDS, refilled)


def wait(bucket: dict, now: float) -> float:
    """Seconds before this session may start another uncached computation (0: now)."""
    available = level(bucket, now)
    return 0.0 if available > 0 else -available / REFILL_PER_SECOND + 1e-6


def charge(bucket: dict, cpu_seconds: float, now: float) -> None:
    """Take what a computation cost from the bucket (changed in place)."""
    if cpu_seconds < 0:
        raise ValueError("cpu_seconds must be ≥ 0")
    bucket["level"] = level(bucket, now) - cpu_seconds
    bucket["at"] = now
