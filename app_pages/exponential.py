import streamlit as st

st.title("The exponential mechanism")
st.write("Being written.")
