import streamlit as st

st.title("Averaging attacks and the budget")
st.write("Being written.")
