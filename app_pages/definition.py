import streamlit as st

st.title("What DP promises")
st.write("Being written.")
