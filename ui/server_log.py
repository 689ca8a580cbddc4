"""Keep the server log readable when a script sends malformed widget states on purpose.

Streamlit logs every uncaught exception with its full traceback (about 2 kB). A client
that sends a malformed widget state (a slider value of the wrong type, say) raises inside
Streamlit's widget code before the page can check anything, so one script could write
megabytes of identical tracebacks a minute. The filter below keeps the first traceback of
each kind (exception type and the line that raised it) in every `WINDOW` seconds, drops the
repeats, and says how many it dropped when that kind next appears.

The browser never sees any of this: client.showErrorDetails = "none" in
.streamlit/config.toml shows a generic line instead of the exception.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback

WINDOW = 60.0  # seconds
MAX_KINDS = 1000  # distinct kinds remembered; beyond this the memory starts afresh

# Streamlit's loggers do not propagate, so the filter goes on each logger that writes
# client-triggered tracebacks: uncaught exceptions, and the data editor's skipped rows.
LOGGERS = ("streamlit.error_util", "streamlit.elements.widgets.data_editor")


class RepeatedTracebackFilter(logging.Filter):
    def __init__(self, window: float = WINDOW, clock=time.monotonic) -> None:
        super().__init__()
        self.window, self.clock = window, clock
        self.kinds: dict[tuple, list] = {}  # kind -> [time first logged in this window, dropped]
        self.lock = threading.Lock()

    @staticmethod
    def kind(record: logging.LogRecord) -> tuple | None:
        if not record.exc_info or record.exc_info[1] is None:
            return None
        error = record.exc_info[1]
        frames = traceback.extract_tb(error.__traceback__)
        where = (frames[-1].filename, frames[-1].lineno) if frames else None
        return record.name, str(record.msg), type(error).__name__, where

    def filter(self, record: logging.LogRecord) -> bool:
        kind = self.kind(record)
        if kind is None:
            return True
        now = self.clock()
        with self.lock:
            seen = self.kinds.get(kind)
            if seen is not None and now - seen[0] < self.window:
                seen[1] += 1
                return False
            if len(self.kinds) >= MAX_KINDS:
                self.kinds.clear()
            dropped = seen[1] if seen is not None else 0
            self.kinds[kind] = [now, 0]
        if dropped:
            record.msg = f"{record.msg} ({dropped} more like this in the last {self.window:.0f} s, not logged)"
        return True


_FILTER = RepeatedTracebackFilter()


def limit_repeated_tracebacks() -> None:
    """Install the filter on Streamlit's loggers (once per process; safe to call every run)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
