"""Numbers written for a reader: never e-notation on a page.

Python's `g` formats switch to e-notation for small and large numbers ('6.7e-05',
'2.22e+03'). A lesson's {{placeholders}} (ui.lessons.fill), chart legends and captions, and
st.metric values all go through this one formatter instead: 6.7 × 10⁻⁵ and 2,220.

No Streamlit here, so chart builders (ui/charts) can use it too.
"""

from __future__ import annotations

import re

_EXPONENT = re.compile(r"^([-+]?\d(?:\.\d+)?)e([-+]\d+)$")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def readable(text: str, in_math: bool = False) -> str:
    """What a `g` format gives for large or small numbers, written for a reader.

    '2.22e+03' becomes 2,220 and '6.7e-05' becomes 6.7 × 10⁻⁵ (inside KaTeX maths,
    6.7 \\times 10^{-5}); any other text is returned unchanged.
    """
    match = _EXPONENT.match(text)
    if not match:
        return text
    mantissa, exponent = match.group(1), int(match.group(2))
    if 0 < exponent < 16:
        return f"{float(text):,.0f}".replace(",", "{,}" if in_math else ",")
    if in_math:
        return f"{mantissa} \\times 10^{{{exponent}}}"
    return f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"


def number(value: float, spec: str = ".3g") -> str:
    """format(value, spec), with any e-notation written out: number(2.7e-05, ".2g") == "2.7 × 10⁻⁵"."""
    return readable(format(value, spec))
