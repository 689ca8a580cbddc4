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
