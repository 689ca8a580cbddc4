import streamlit as st

st.title("Privacy for graphs")
st.write("Being written.")
