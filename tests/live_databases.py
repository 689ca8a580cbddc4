"""Databases for the live-class tests: a temporary SQLite file, or a PostgreSQL schema of its own.

PostgreSQL comes from DPLAB_TEST_POSTGRES_URL, as for the poll (tests/poll_databases.py: without
it those tests skip with a reason, and under REQUIRE_POSTGRES=1 they fail). Each test gets a
fresh schema on that server, dropped afterwards, so tests never see each other's sessions.
"""

from __future__ import annotations

import contextlib
import secrets

from sqlalchemy import Engine, text

from classroom import live, store
from tests.poll_databases import database_url


@contextlib.contextmanager
def live_engine(backend: str, tmp_path):
    """An engine on an empty database with the poll and live tables created."""
    url = database_url(backend, tmp_path)
    if backend == "sqlite":
        engine = store.make_engine(url)
        live.ensure_schema(engine)
        try:
            yield engine
        finally:
            engine.dispose()
        return
    schema = f"dplab_live_{secrets.token_hex(4)}"
    admin = store.make_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = store.make_engine(url + ("&" if "?" in url else "?")
                               + f"options=-csearch_path%3D{schema}")
    try:
        live.ensure_schema(engine)
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def rows(engine: Engine, table) -> list:
    with engine.connect() as conn:
        return conn.execute(table.select()).all()
