"""DP Lab: an interactive course on differential privacy.  Run: streamlit run app.py"""

import streamlit as st

from ui.course import navigation
from ui.seeds import seed_controls

st.set_page_config(page_icon="🔒", layout="wide")
page = st.navigation(navigation(), expanded=True)
with st.sidebar:
    seed_controls()
page.run()
