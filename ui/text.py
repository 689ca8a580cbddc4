"""Text that someone else wrote, shown inside Markdown as inert text.

Two sources reach the page: a question an instructor typed for the class poll, and the
value of a URL parameter, which anyone can put in a link they send round. Both are shown
with st.markdown or st.caption, which render Markdown: without care a link could show
`![x](https://evil.example/t.png)` (every visitor's browser fetches a tracking image) or
`[Session expired: sign in](https://…)` (a phishing link on a real page).

`plain` escapes every Markdown, HTML, KaTeX and colour-directive character, and breaks
GitHub-style autolinks, which escapes alone do not stop. `quoted` is for echoing a link
value: cut to about 40 characters, written as a Python string literal (so newlines,
control and bidirectional characters show as escapes), then made plain.
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")

# GFM autolinks ("http://…", "www.…", "a@b.c") are found after escapes are resolved, so an
# invisible word joiner is what stops them. GFM matches "www." in any case ("WWW.", "Www.").
_AUTOLINK_STARTS = re.compile(r"(://)|(www)(\.)|(@)", re.IGNORECASE)
_JOINER = "\u2060"


def _break_autolink(match: re.Match) -> str:
    scheme, www, dot, at = match.groups()
    if scheme:
        return f":{_JOINER}//"
    if www:
        return f"{www}{_JOINER}{dot}"
    return f"@{_JOINER}"


def plain(text: str) -> str:
    """Text shown literally by Markdown: no links, images, HTML, formulas, colour
    directives or autolinked addresses."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _AUTOLINK_STARTS.sub(_break_autolink, text))


def quoted(value: str, limit: int = 40) -> str:
    """A value from a link, for a note: at most `limit` characters (then "…" and the full
    length), quoted like a Python string, and inert as Markdown."""
    shown = value if len(value) <= limit else f"{value[:limit]}…"
    text = repr(shown)
    if len(value) > limit:
        text += f" ({len(value):,} characters)"
    return plain(text)
