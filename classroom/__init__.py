"""Live-class state: polls, answers and their limits, stored through SQLAlchemy.

No Streamlit here (see DESIGN.md, "Layers"): the Streamlit side is ui.poll, and the tests use
this package directly against SQLite and PostgreSQL.
"""
