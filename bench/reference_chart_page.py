"""The reference page plus one trivial Plotly chart, for bench/browser.py.

Against the bare page (bench/reference_page.py) it prices what any Plotly chart costs in
the browser; against it, a lesson page's extra time is our own figures and compute.
"""

import streamlit as st

value = st.slider("Reference value", min_value=0, max_value=100, value=50, key="bench_value")
st.metric("Twice the value", 2 * value)
st.plotly_chart({"data": [{"type": "scatter", "x": [0, 1], "y": [0, value]}],
                 "layout": {"title": {"text": "Reference chart"}}})
