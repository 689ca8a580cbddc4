import streamlit as st

st.title("Laplace vs Gaussian")
st.write("Being written.")
