"""The databases the poll tests run against: a temporary SQLite file, and PostgreSQL when given.

PostgreSQL comes from DPLAB_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster and sets it).
Without it those tests skip with a reason; under REQUIRE_POSTGRES=1 (set by .ci/run) they fail.
"""

from __future__ import annotations

import contextlib
import os
import secrets

import pytest
from sqlalchemy import text

from classroom import store

POSTGRES_URL = os.environ.get("DPLAB_TEST_POSTGRES_URL")
REQUIRE_POSTGRES = os.environ.get("REQUIRE_POSTGRES") == "1"
BACKENDS = ["sqlite", "postgresql"]


def sqlite_url(directory) -> str:
    return f"sqlite:///{directory / 'poll.sqlite3'}"


def database_url(backend: str, tmp_path) -> str:
    if backend == "sqlite":
        return sqlite_url(tmp_path)
    if POSTGRES_URL:
        return POSTGRES_URL
    reason = ("DPLAB_TEST_POSTGRES_URL is not set (e.g. postgresql+psycopg://user@127.0.0.1:5433/db); "
              ".ci/run starts a throwaway PostgreSQL and sets it")
    if REQUIRE_POSTGRES:
        pytest.fail(f"REQUIRE_POSTGRES=1 but {reason}")
    pytest.skip(reason)


def open_engine(url: str):
    engine = store.make_engine(url)
    store.ensure_schema(engine)
    return engine


@contextlib.contextmanager
def empty_database(backend: str, tmp_path):
    """The URL of an empty database: a new SQLite file, or a new PostgreSQL schema (dropped after)."""
    url = database_url(backend, tmp_path)
    if backend == "sqlite":
        yield url
        return
    schema = f"dplab_test_{secrets.token_hex(4)}"
    admin = store.make_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
