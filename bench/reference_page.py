"""The bare reference page for bench/browser.py: one slider and one number, nothing else.

Served (hidden) by the app's own server when DPLAB_BENCH=1, so a key press on it pays the
same websocket, app.py and React round trip as a lesson page, and none of our compute.
"""

import streamlit as st

value = st.slider("Reference value", min_value=0, max_value=100, value=50, key="bench_value")
st.metric("Twice the value", 2 * value)
