"""Streamlit-facing helpers shared by every page: course registry, theme, widgets, lessons."""
