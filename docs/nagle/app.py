"""The smallest page that shows the stall: one slider, one line of text."""

import streamlit as st

x = st.slider("x", 0, 100, 50)
st.write(f"x = {x}")
