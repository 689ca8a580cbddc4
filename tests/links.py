"""Test helper: open a page's lazy "Copy link to this view" popovers and read their links.

A closed link popover holds nothing (ui.share.copy_link builds its link only when it is
open), so a test opens them, as a reader's click would, before reading the links.
"""

from __future__ import annotations

LABEL = "🔗 Copy link to this view"


def link_popover_keys(at) -> list[str]:
    """The session-state keys of the page's link popovers (element ids end in the user key)."""
    return [block.proto.popover.id.split("-", 2)[2] for block in at.get("popover")
            if block.proto.popover.label == LABEL]


def open_links(at):
    """Open every link popover of the page (a rerun, as after a click) and return `at`.

    After a fragment's rerun AppTest's tree can hide the popovers of demos that did not
    run, so this reruns until none is closed.
    """
    for _ in range(3):
        keys = [key for key in link_popover_keys(at)
                if key not in at.session_state or not at.session_state[key]]
        if not keys:
            break
        for key in keys:
            at.session_state[key] = True
        at.run()
    return at


def links(at) -> list[str]:
    """The links the page's link popovers show, once opened."""
    return [code.value for code in open_links(at).get("code") if "seed=" in code.value]


def open_folds(at):
    """Open every lazy fold of the page (ui.show.fold: keys ending in "_fold"), rerun, return `at`."""
    folds = [key for key in at.session_state.keys() if str(key).endswith("_fold") and not at.session_state[key]]
    for key in folds:
        at.session_state[key] = True
    return at.run() if folds else at
