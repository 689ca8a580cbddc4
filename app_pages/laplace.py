import streamlit as st

st.title("The Laplace mechanism")
st.write("Being written.")
