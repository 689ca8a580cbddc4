import streamlit as st

st.title("Randomized response")
st.write("Being written.")
