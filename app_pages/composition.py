import streamlit as st

st.title("Composition")
st.write("Being written.")
