"""classroom.limits: who the client is, the new-session wait, failed-attempt back-off, windows."""

from __future__ import annotations

import threading

import pytest

from classroom import limits
from classroom.limits import UNKNOWN_ADDRESS, WindowLimiter, client_address


@pytest.mark.parametrize("peer, forwarded, real_ip, expected", [
    # A direct peer that is not loopback is the client: its forwarded headers are ignored,
    # since anyone can write them.
    ("203.0.113.7", ["198.51.100.1"], "198.51.100.2", "203.0.113.7"),
    # Loopback (our nginx): the last X-Forwarded-For entry is the one nginx appended.
    (None, ["6.6.6.6, 198.51.100.1"], None, "198.51.100.1"),
    (None, ["6.6.6.6", "198.51.100.1"], None, "198.51.100.1"),  # repeated header lines
    ("127.0.0.1", ["198.51.100.1"], "6.6.6.6", "198.51.100.1"),
    ("::1", [], "198.51.100.9", "198.51.100.9"),  # X-Real-IP when there is no X-Forwarded-For
    (None, ["198.51.100.1:52100"], None, "198.51.100.1"),  # with a port
    (None, ['"[2001:db8::7]:443"'], None, "2001:db8::/64"),
    # IPv6 counts per /64 (a device can take any address in its network's /64).
    ("2001:db8:aa:bb:1:2:3:4", [], None, "2001:db8:aa:bb::/64"),
    ("::ffff:203.0.113.7", [], None, "203.0.113.7"),
    # Nothing usable: every such client shares one bucket.
    (None, [], None, UNKNOWN_ADDRESS),
    (None, ["not an address"], "also not", UNKNOWN_ADDRESS),
    (None, ["127.0.0.1"], None, UNKNOWN_ADDRESS),
    ("garbage", [], None, UNKNOWN_ADDRESS),
])
def test_client_address_trusts_forwarded_headers_only_from_loopback(peer, forwarded, real_ip, expected):
    assert client_address(peer, forwarded, real_ip) == expected


def test_address_hashes_are_keyed():
    one, two = limits.address_hash("key-1", "203.0.113.7"), limits.address_hash("key-2", "203.0.113.7")
    assert one != two and len(one) == 64 and "203.0.113.7" not in one
    assert one == limits.address_hash("key-1", "203.0.113.7")


def test_a_new_session_waits_before_answering():
    assert limits.warmup_remaining(100.0, 100.0) == limits.SESSION_WARMUP_SECONDS
    assert limits.warmup_remaining(100.0, 103.0) == pytest.approx(limits.SESSION_WARMUP_SECONDS - 3)
    assert limits.warmup_remaining(100.0, 100.0 + limits.SESSION_WARMUP_SECONDS) == 0
    assert limits.warmup_remaining(100.0, 1e9) == 0
    assert limits.whole_seconds(4.2) == 5 and limits.whole_seconds(0.01) == 1 and limits.whole_seconds(3.0) == 3


def test_failed_attempts_wait_longer_and_longer():
    waits = [limits.failure_wait(n) for n in range(1, 15)]
    assert waits[: limits.FREE_FAILURES - 1] == [0] * (limits.FREE_FAILURES - 1)
    assert waits[limits.FREE_FAILURES - 1: limits.FREE_FAILURES + 4] == [2, 4, 8, 16, 32]
    assert max(waits) == limits.MAX_FAILURE_WAIT_SECONDS == waits[-1]
    state: dict = {}
    for _ in range(limits.FREE_FAILURES - 1):
        assert limits.record_failure(state, now=0.0) == 0
        assert limits.attempt_wait(state, now=0.0) == 0
    assert limits.record_failure(state, now=10.0) == 2
    assert limits.attempt_wait(state, now=11.0) == 1
    assert limits.attempt_wait(state, now=12.0) == 0


def test_window_limiter_allows_limit_per_window_per_address():
    limiter = WindowLimiter(limit=3, window=60)
    assert [limiter.take("a", now=t) for t in (0, 1, 2)] == [0, 0, 0]
    assert limiter.take("a", now=3) == 57  # until the first of the three leaves the window
    assert limiter.take("b", now=3) == 0  # another address is counted apart
    assert limiter.wait("a", now=60) == 0
    limiter.record("c", now=0)
    assert limiter.wait("c", now=1) == 0
    with pytest.raises(ValueError):
        WindowLimiter(limit=0, window=1)


def test_window_limiter_memory_is_bounded_and_thread_safe():
    limiter = WindowLimiter(limit=1000, window=60, max_keys=50)
    for i in range(500):
        limiter.record(f"10.0.{i // 256}.{i % 256}", now=0)
    assert len(limiter._events) == 50
    shared = WindowLimiter(limit=100, window=60)
    allowed = []

    def hammer():
        allowed.extend(1 for _ in range(50) if shared.take("same", now=1) == 0)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 100  # 400 tries, exactly the limit let through


def most_failures_in(window: float, free: int = limits.FREE_FAILURES) -> int:
    """The most wrong codes one session can send in any `window` seconds: it tries again the
    moment each wait is over (computed here from failure_wait, independently of the limiter)."""
    now, times = 0.0, []
    while now < 10 * window:
        times.append(now)
        now += limits.failure_wait(len(times), free)
    return max(sum(1 for t in times if start <= t < start + window) for start in times)


def test_the_failed_join_ceiling_fits_a_full_hall_of_honest_typos():
    ceiling, window = limits.FAILED_JOINS_PER_ADDRESS
    assert window == 60.0
    # Every student of a full hall mistyping the code HONEST_TYPOS_PER_MINUTE times in the same
    # minute stays under the ceiling...
    assert limits.HALL_SEATS >= 300
    assert limits.HALL_SEATS * limits.HONEST_TYPOS_PER_MINUTE <= ceiling
    # ... and honest typos are free: fewer than one session's free tries.
    assert limits.HONEST_TYPOS_PER_MINUTE < limits.FREE_FAILURES
    # One session alone, as fast as its own back-off lets it, cannot reach the ceiling.
    assert most_failures_in(window) == 9 < ceiling
    # Over the ceiling a session's first wrong code already waits; a right code never does.
    assert limits.failure_wait(1, limits.FREE_FAILURES_OVER_CEILING) == 2
    assert most_failures_in(window, limits.FREE_FAILURES_OVER_CEILING) == 5


def test_the_creation_ceiling_fits_a_building_of_instructors():
    per_session, window = limits.CREATIONS_PER_SESSION
    ceiling, address_window = limits.CREATIONS_PER_ADDRESS
    assert address_window == window
    assert ceiling == limits.INSTRUCTORS_PER_ADDRESS * per_session >= 30  # the attack of issue 25
    address_full = 600.0
    # A session's own creations: the 11th in ten minutes waits until the first is ten minutes old.
    made = [float(t) for t in range(per_session)]
    assert limits.creation_wait(made[:-1], 20.0, 0.0, False) == 0
    assert limits.creation_wait(made, 20.0, 0.0, False) == pytest.approx(window - 20.0)
    assert limits.creation_wait(made, window + 1.0, 0.0, False) == 0
    # Someone else filled the address: a session without an admin token waits, one holding a
    # valid token does not (its own count still holds it).
    assert limits.creation_wait([], 20.0, address_full, False) == address_full
    assert limits.creation_wait([], 20.0, address_full, True) == 0
    assert limits.creation_wait(made, 20.0, address_full, True) == pytest.approx(window - 20.0)
