"""How a waiting phone learns that the instructor moved on, without a script run per tick.

A phone on *Live class — join* shows the session's current question. The question changes only
when the instructor acts, and every instructor action bumps the session's version counter
(classroom.live). So the phone's browser asks a tiny HTTP route for that counter every few
seconds and reruns its `follow` fragment only when the counter differs from the one it drew:
one small request instead of a fragment rerun, five to eight times cheaper for the server
(docs/PERFORMANCE.md, "Lecture on one process"). The route is served beside the app (app.py,
`st.App(..., routes=...)`; ui.live.version_route).

This module is the route's logic, with no Streamlit and no web framework:

- **Tickets.** Each browser session (a phone) gets a random ticket with its page; the route
  answers only for tickets this process issued, with the version of the one session the ticket
  was issued for. A ticket names no session and carries no secret of the class: it tells its
  holder a number the holder's page already shows. An unknown ticket costs a dictionary look-up
  and is answered 404, so guessing tickets reads nothing, and no request can make the route read
  the database for a session no phone of this process follows.
- **Bounded work.** A known ticket's answer comes from the process's SessionCache: a dictionary
  look-up while the cached view is fresh, and at most one version read per session and
  CACHE_SECONDS otherwise (the same read the phones' ticks made before), whatever the number of
  requests.
- **Limits that belong to a browser.** Each ticket may ask at twice the honest rate (a token
  bucket), so a script hammering with its ticket is refused (429) without touching anyone else's
  allowance, and a refused request costs no database work. The address as a whole has a ceiling
  sized for a full hall (classroom.limits.HALL_SEATS phones asking at twice the honest rate), so
  many tickets from one address cannot ask without bound either, while a lecture hall behind one
  NAT address never reaches it. A ticket's own refusals do not count against its address.
- **Held requests.** A request that names the version its page drew (`?v=`) is answered when
  the version moves, or after HOLD_SECONDS with the same number (VersionWatch): a waiting phone
  then asks about three times a minute instead of thirty, and a push reaches it at once instead
  of at its next ask. One task per followed session reads its version (at most once per
  CACHE_SECONDS, the read the asks made before) and wakes every request held on it; an
  instructor action in this process wakes them at once (`poke`). A ticket holds at most one
  request: a newer one releases the older (a page whose fragment reran asks again), so a script
  cannot pile up held requests with its ticket.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from sqlalchemy import Engine

from classroom.limits import HALL_SEATS, WindowLimiter
from classroom.live import SessionCache

TICKET_BYTES = 16  # 128 random bits: a ticket cannot be guessed
# How many tickets a process remembers: the most recently used stay. A lecture of HALL_SEATS
# phones (and their reloads) fits several times over; a forgotten ticket's phone is answered 404
# and falls back to a rerun, which issues its ticket again.
MAX_TICKETS = 8 * HALL_SEATS
# A ticket may ask this many times at once (a tab woken from the background, a retry) and, on
# average, HONEST_FACTOR times as often as the page asks.
TICKET_BURST = 4
HONEST_FACTOR = 2.0
ADDRESS_WINDOW_SECONDS = 10.0
# How long a request with the drawn version is held at most. Under the idle timeouts of what may
# stand in front of the server (nginx's proxy_read_timeout is 60 s by default; deploy/ keeps it),
# and short enough that a dropped connection's request does not linger.
HOLD_SECONDS = 20.0


class Status(Enum):
    ANSWERED = 200
    UNKNOWN = 404  # a ticket this process did not issue (or has forgotten): rerun to get one
    LIMITED = 429  # too many requests from this ticket or this address: wait `retry_after`


@dataclass(frozen=True)
class Answer:
    status: Status
    version: int | None = None  # ANSWERED: the session's version; None when the session is gone
    retry_after: float = 0.0  # LIMITED: seconds until a request would be answered


@dataclass
class _Ticket:
    session_id: int
    views: SessionCache  # the process's shared cache the phone's page reads, and its database
    engine: Engine
    tokens: float
    refilled_at: float
    held: asyncio.Event | None = None  # set to release this ticket's held request

    def cached_version(self, now: float) -> tuple[bool, int | None]:
        """(True, version) from a fresh cached view, or (False, None): the cache is stale and
        `read_version` would read the database."""
        fresh = self.views.cached(self.engine, self.session_id, now)
        return (False, None) if fresh is None else (True, fresh.session.version)

    def read_version(self) -> int | None:
        """The version through the cache (at most one read per session and cache age);
        None when the session is gone."""
        current = self.views.view(self.engine, self.session_id)
        return None if current is None else current.session.version


@dataclass
class FollowTickets:
    """The tickets this process issued, with each ticket's session and rate allowance.

    `ask_every`: how often an honest page asks (seconds). Thread-safe: the route runs on the
    server's event loop and in its thread pool, the pages in their script threads.
    """

    ask_every: float
    max_tickets: int = MAX_TICKETS
    _tickets: OrderedDict[str, _Ticket] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _addresses: WindowLimiter | None = None

    def __post_init__(self) -> None:
        if not self.ask_every > 0:
            raise ValueError("ask_every must be > 0 seconds")
        self._addresses = WindowLimiter(self.address_limit(), ADDRESS_WINDOW_SECONDS)

    @property
    def ticket_rate(self) -> float:
        """Requests per second a ticket may make on average."""
        return HONEST_FACTOR / self.ask_every

    def address_limit(self) -> int:
        """Requests one address may make per ADDRESS_WINDOW_SECONDS: a full hall's pages at
        twice their honest rate (rounded up)."""
        return math.ceil(HALL_SEATS * HONEST_FACTOR * ADDRESS_WINDOW_SECONDS / self.ask_every)

    @staticmethod
    def new_ticket() -> str:
        return secrets.token_urlsafe(TICKET_BYTES)

    def register(self, ticket: str, session_id: int, views: SessionCache, engine: Engine,
                 now: float) -> None:
        """Make `ticket` answer for `session_id` (again): called at every run of the phone's
        follow fragment, so a forgotten ticket comes back with the next rerun. Its allowance is
        kept if it was already known."""
        with self._lock:
            known = self._tickets.get(ticket)
            if known is not None and known.session_id == session_id:
                known.views, known.engine = views, engine
                self._tickets.move_to_end(ticket)
                return
            self._tickets[ticket] = _Ticket(session_id, views, engine, float(TICKET_BURST), now)
            while len(self._tickets) > self.max_tickets:
                self._tickets.popitem(last=False)

    def forget(self, ticket: str) -> None:
        with self._lock:
            self._tickets.pop(ticket, None)

    def __len__(self) -> int:
        return len(self._tickets)

    def admit(self, ticket: str, address: str, now: float) -> tuple[Answer | None, _Ticket | None]:
        """Check a request's ticket and limits: (a refusal, None) or (None, the ticket)."""
        with self._lock:
            known = self._tickets.get(ticket)
            if known is None:
                return Answer(Status.UNKNOWN), None
            known.tokens = min(float(TICKET_BURST),
                               known.tokens + (now - known.refilled_at) * self.ticket_rate)
            known.refilled_at = now
            if known.tokens < 1:
                return Answer(Status.LIMITED, retry_after=(1 - known.tokens) / self.ticket_rate), None
        wait = self._addresses.take(address, now)
        if wait > 0:
            return Answer(Status.LIMITED, retry_after=wait), None
        with self._lock:
            known.tokens -= 1
        return None, known


class WatchFailed(Exception):
    """The session's version could not be read while requests were held on it."""


@dataclass
class _Watched:
    version: int | None
    ticket: _Ticket  # whose cache and engine read the session's version
    waiters: set[asyncio.Event] = field(default_factory=set)
    poked: asyncio.Event = field(default_factory=asyncio.Event)
    failed: bool = False


@dataclass
class VersionWatch:
    """Requests held until their session's version moves (see the module's "Held requests").

    Everything but `poke` runs on the server's event loop. `recheck`: seconds between two reads of
    a watched session's version (another replica's change shows within this plus the cache's
    age); `stopping`: asked at each recheck, True when the server shuts down, which then
    answers every held request at once instead of making the shutdown wait for them.
    """

    recheck: float
    stopping: Callable[[], bool] = lambda: False
    _sessions: dict[tuple[int, int], _Watched] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        """How many requests are held now."""
        return sum(len(watched.waiters) for watched in self._sessions.values())

    def poke(self, session_id: int) -> None:
        """From any thread, after this process changed the session: its held requests learn the
        new version now rather than at the next recheck."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._poke_now, session_id)

    def _poke_now(self, session_id: int) -> None:
        for (_, watched_id), watched in self._sessions.items():
            if watched_id == session_id:
                watched.poked.set()

    async def wait(self, ticket: _Ticket, drawn: int, hold: float = HOLD_SECONDS) -> int | None:
        """The session's version once it differs from `drawn`, or after `hold` seconds (then
        likely `drawn` again); None when the session is gone. Raises WatchFailed when the
        version cannot be read."""
        self._loop = asyncio.get_running_loop()
        key = (id(ticket.engine), ticket.session_id)
        watched = self._sessions.get(key)
        if self.stopping():
            return await _current_version(ticket)
        if watched is None:
            version = await _current_version(ticket)
            if version != drawn or version is None:
                return version
            watched = self._sessions.get(key)  # another request may have started one meanwhile
            if watched is None:
                watched = self._sessions[key] = _Watched(version, ticket)
                asyncio.get_running_loop().create_task(self._watch(key, watched))
        if watched.failed or watched.version is None or watched.version > drawn:
            return self._outcome(watched)  # the page drew an older version: it moved
        if watched.version < drawn:  # the page saw a change before this watch did: read now
            watched.poked.set()
        waiter = asyncio.Event()
        previous, ticket.held = ticket.held, waiter
        if previous is not None:
            previous.set()
        watched.waiters.add(waiter)
        try:
            await asyncio.wait_for(waiter.wait(), hold)
        except TimeoutError:
            pass
        finally:
            watched.waiters.discard(waiter)
            if ticket.held is waiter:
                ticket.held = None
        return self._outcome(watched)

    @staticmethod
    def _outcome(watched: _Watched) -> int | None:
        if watched.failed:
            raise WatchFailed
        return watched.version

    async def _watch(self, key: tuple[int, int], watched: _Watched) -> None:
        """One per session with held requests: re-read its version every `recheck` seconds (or
        when poked), wake every held request when it moved, and end when none is held."""
        try:
            while True:
                try:
                    await asyncio.wait_for(watched.poked.wait(), self.recheck)
                except TimeoutError:
                    pass
                watched.poked.clear()
                if not watched.waiters:
                    break
                if self.stopping():
                    self._release(watched)
                    continue
                try:
                    version = await _current_version(watched.ticket)
                except Exception:  # noqa: BLE001 (the route answers 503; the page shows why)
                    watched.failed = True
                    self._release(watched)
                    break
                if version != watched.version:
                    watched.version = version
                    self._release(watched)
        finally:
            if self._sessions.get(key) is watched:
                del self._sessions[key]

    @staticmethod
    def _release(watched: _Watched) -> None:
        for waiter in watched.waiters:
            waiter.set()


async def _current_version(ticket: _Ticket) -> int | None:
    """The version from the fresh cache, or read off the event loop (at most once per session
    and cache age)."""
    fresh, version = ticket.cached_version(time.monotonic())
    if fresh:
        return version
    return await asyncio.to_thread(ticket.read_version)
