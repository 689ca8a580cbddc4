"""Limits that keep one hostile client from wrecking a live class: who the client is (its network
address, as the proxy saw it), how long a new session waits before it may answer, how failed
attempts slow down, and how often one address may do something.

No Streamlit here: ui.poll reads st.context and st.session_state and calls these functions, so
the rules can be tested directly and reused by every live-class question.

What these limits can and cannot do (docs/SECURITY.md has the measured figures):
- A browser session is free to make, so nothing here can tell a second private window or a
  script's hundredth session from a new student. The class size the instructor states is the
  one hard bound on how many answers a question takes.
- The per-address cap cannot be tighter than the class size, because a whole lecture hall
  behind one NAT address must be able to answer. It bounds a flooder only where students come
  from several addresses (phones on mobile data, several Wi-Fi networks).
- In-memory limits (failed joins and poll creation per address) are per server process: with
  several replicas each keeps its own count.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
import threading
from collections import OrderedDict, deque
from collections.abc import Iterable

# A new browser session may answer only after this many seconds: a person reads the question
# first, while a script that opens a session, answers and reconnects must now wait each time.
SESSION_WARMUP_SECONDS = 5.0

# Failed attempts (codes that match no open poll, wrong admin tokens) per browser session:
# the first FREE_FAILURES cost nothing, then each further try waits twice as long, up to a minute.
FREE_FAILURES = 5
MAX_FAILURE_WAIT_SECONDS = 60.0

# A full lecture hall behind one NAT address: the address-wide ceilings below are sized so that
# this many students doing honest things never reach them (tests/test_classroom_limits.py checks
# the arithmetic). A ceiling never refuses a right join code, nor an instructor who holds a valid
# admin token: it only makes things harder for whoever is failing or creating from that address.
HALL_SEATS = 400
# Wrong join codes: a student who mistypes the code may try again at once, a few times. Reaching
# the ceiling takes every one of HALL_SEATS students mistyping it this often in the same minute.
HONEST_TYPOS_PER_MINUTE = 3
FAILED_JOINS_PER_ADDRESS = (HALL_SEATS * HONEST_TYPOS_PER_MINUTE, 60.0)
# Over that ceiling, a session from the address has no free failures left: its first wrong code
# already waits (failure_wait(1, free=0) = 2 s), its right code still joins at once.
FREE_FAILURES_OVER_CEILING = 0
# New polls and live sessions: one browser session makes at most CREATIONS_PER_SESSION (one per
# question of a lecture, and then some); an address at most CREATIONS_PER_ADDRESS, that is
# INSTRUCTORS_PER_ADDRESS instructors each at their own session's limit. A session that holds a
# valid admin token (it runs a poll or a live session) is never held back by its address.
CREATIONS_PER_SESSION = (10, 600.0)
INSTRUCTORS_PER_ADDRESS = 12
CREATIONS_PER_ADDRESS = (INSTRUCTORS_PER_ADDRESS * CREATIONS_PER_SESSION[0], CREATIONS_PER_SESSION[1])

# What the client address is called when there is none to read (a local run, a test harness).
UNKNOWN_ADDRESS = "unknown"
# IPv6 hosts get a whole /64 from their network, so one device can pick any address in it.
IPV6_PREFIX = 64


# ── Who is asking ───────────────────────────────────────────────────────────────────────────

def _parse(raw: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not raw:
        return None
    raw = raw.strip().strip('"')
    if raw.startswith("[") and "]" in raw:  # "[2001:db8::1]:443"
        raw = raw[1:raw.index("]")]
    elif raw.count(":") == 1:  # "203.0.113.7:51234"
        raw = raw.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(raw.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _key(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


def client_address(peer: str | None, forwarded_for: Iterable[str] = (),
                   real_ip: str | None = None) -> str:
    """The address a limit should count this client under.

    `peer` is the TCP peer as the server reports it (st.context.ip_address: None when the peer
    is loopback). Streamlit's server (uvicorn) already replaces a 127.0.0.1 peer with the last
    X-Forwarded-For entry, so a proxy on the same machine is usually resolved before this runs.

    Forwarded headers are trusted only when the peer is loopback, that is our own reverse proxy
    on the same machine (deploy: nginx with `proxy_set_header X-Forwarded-For
    $proxy_add_x_forwarded_for` or `X-Real-IP $remote_addr`). From any other peer they are
    ignored, since a client can write whatever it likes in them. Of X-Forwarded-For only the
    last entry counts: it is the one our proxy appended; entries before it came from the client.

    An IPv6 address counts as its /64 network. Returns UNKNOWN_ADDRESS when nothing is usable.
    """
    direct = _parse(peer)
    if direct is not None and not direct.is_loopback:
        return _key(direct)
    entries = [part for header in forwarded_for for part in header.split(",") if part.strip()]
    for candidate in ([entries[-1]] if entries else []) + [real_ip]:
        parsed = _parse(candidate)
        if parsed is not None and not parsed.is_loopback:
            return _key(parsed)
    return UNKNOWN_ADDRESS


def address_hash(key: str, address: str) -> str:
    """HMAC-SHA256 of the address under a key: the only form in which an address is kept.

    With a key per poll, the same address gives unrelated hashes in two polls. An IPv4 address
    has only 2^32 values, so whoever holds both the key and the hash can find the address by
    trying them all: the hash hides the address from a glance, not from a determined reader of
    the database (which is why per-poll address counts are deleted when the poll expires).
    """
    return hmac.new(key.encode(), address.encode(), hashlib.sha256).hexdigest()


# ── New sessions wait a moment ──────────────────────────────────────────────────────────────

def warmup_remaining(started: float, now: float, warmup: float | None = None) -> float:
    """Seconds until a session that started at `started` may answer (0 when it may)."""
    warmup = SESSION_WARMUP_SECONDS if warmup is None else warmup
    return max(0.0, started + warmup - now)


def whole_seconds(seconds: float) -> int:
    """A wait as the page says it: rounded up, so that trying again then always works."""
    return max(1, math.ceil(seconds - 1e-9))


# ── Failed attempts slow down ───────────────────────────────────────────────────────────────

def failure_wait(failures: int, free: int = FREE_FAILURES) -> float:
    """Seconds to wait after this many failures: 0 for the first `free` − 1, then 2, 4, 8 …
    up to MAX_FAILURE_WAIT_SECONDS."""
    if failures < free:
        return 0.0
    return min(2.0 ** (failures - max(free, 1) + 1), MAX_FAILURE_WAIT_SECONDS)


def attempt_wait(state: dict, now: float) -> float:
    """Seconds before this session may try again (state: its record, kept in the session)."""
    return max(0.0, state.get("next_at", 0.0) - now)


def record_failure(state: dict, now: float, free: int = FREE_FAILURES) -> float:
    """Count one more failure in `state` (changed in place); returns the wait it now imposes.
    `free`: FREE_FAILURES, or FREE_FAILURES_OVER_CEILING when the address is over its ceiling."""
    state["failures"] = state.get("failures", 0) + 1
    wait = failure_wait(state["failures"], free)
    state["next_at"] = now + wait
    return wait


def creation_wait(created_at: Iterable[float], now: float, address_wait: float,
                  holds_admin_token: bool) -> float:
    """Seconds before a session may create another poll or live session (0: now).

    `created_at`: when this session created its recent ones; `address_wait`: what the address's
    WindowLimiter says. A session holding a valid admin token is held back only by its own count.
    """
    limit, window = CREATIONS_PER_SESSION
    recent = sorted(t for t in created_at if t > now - window)
    own = recent[-limit] + window - now if len(recent) >= limit else 0.0
    return own if holds_admin_token else max(own, address_wait)


# ── So many per address per time window ─────────────────────────────────────────────────────

class WindowLimiter:
    """At most `limit` events per key in any `window` seconds, kept in this process's memory.

    Keys are HMACs of the address under a random key made when the process starts, so not even
    memory holds an address. At most `max_keys` keys are remembered (the least recently used
    are dropped first), so a flood of addresses cannot grow memory without bound.
    """

    def __init__(self, limit: int, window: float, max_keys: int = 10_000) -> None:
        if limit < 1 or window <= 0:
            raise ValueError("limit must be ≥ 1 and window > 0")
        self.limit, self.window, self.max_keys = limit, window, max_keys
        self._secret = secrets.token_hex(16)
        self._events: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _bucket(self, address: str, now: float) -> deque[float]:
        key = address_hash(self._secret, address)
        events = self._events.setdefault(key, deque())
        self._events.move_to_end(key)
        while events and events[0] <= now - self.window:
            events.popleft()
        while len(self._events) > self.max_keys:
            self._events.popitem(last=False)
        return events

    def wait(self, address: str, now: float) -> float:
        """Seconds until this address may act again (0: now)."""
        with self._lock:
            events = self._bucket(address, now)
            return 0.0 if len(events) < self.limit else events[0] + self.window - now

    def record(self, address: str, now: float) -> None:
        with self._lock:
            self._bucket(address, now).append(now)

    def take(self, address: str, now: float) -> float:
        """Record one event if allowed and return 0; otherwise record nothing, return the wait."""
        with self._lock:
            events = self._bucket(address, now)
            if len(events) >= self.limit:
                return events[0] + self.window - now
            events.append(now)
            return 0.0
