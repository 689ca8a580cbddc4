import streamlit as st

st.title("Local sensitivity and its traps")
st.write("Being written.")
