"""Chart builders: numbers in, plotly Figure out, no Streamlit calls (so tests can call them).

One module per lesson; all of them draw with ui.theme (figure, series_style, PALETTE).
"""
