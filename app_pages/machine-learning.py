import streamlit as st

st.title("Privacy in machine learning")
st.write("Being written.")
