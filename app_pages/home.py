import streamlit as st

from ui import lessons
from ui.course import HOME, SECTIONS, lessons_in

st.title("🔒 DP Lab")
lessons.instructor_notes(HOME.slug)
lessons.render(HOME.slug, "intro")

for section in SECTIONS[1:]:
    course = lessons_in(section)
    if not course:
        continue
    st.header(section)
    columns = st.columns(3)
    for i, lesson in enumerate(course):
        with columns[i % 3], st.container(border=True):
            st.page_link(lesson.script, label=lesson.title, icon=lesson.icon)
            st.caption(lesson.blurb)

lessons.step("Using DP Lab in a lecture")
lessons.render(HOME.slug, "lecture")
