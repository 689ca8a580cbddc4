import streamlit as st

st.title("Why anonymisation fails")
st.write("Being written.")
