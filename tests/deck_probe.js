// One step of the presenter deck at 1280×720 (tests/test_layout.py): what is on it, where, and
// how large. `fit` is how many screens a step may reach down to (1: none of it below the first).
// Returns {height (in screens), smallestText, smallestChartText, faults}.
(fit) => {
  const PROSE_PX = 24, CHART_PX = 20, TOL = 1;
  const main = document.querySelector('[data-testid=stMain]');
  const bar = document.querySelector('.st-key-dplab_deck');
  const barBox = bar && bar.getBoundingClientRect();
  const screen = window.innerHeight;
  const visible = (el) => el.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const outside = (el) => !(bar && bar.contains(el));
  const faults = [];
  const boxes = [];  // {kind, what, r, el}
  // Text: every line box of every visible text node (KaTeX as one box: its sub- and
  // superscripts are meant to be smaller than the line).
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !outside(el) || el.closest('svg, style, script, .katex, kbd')) continue;
    if (!visible(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width >= 1 && r.height >= 1) texts.push({el, r, text: node.textContent.trim().slice(0, 50)});
    }
  }
  main.querySelectorAll('.katex').forEach((el) => {
    const r = el.getBoundingClientRect();
    if (outside(el) && visible(el) && r.width >= 1 && !el.parentElement.closest('.katex')) {
      texts.push({el, r, text: el.textContent.trim().slice(0, 50)});
    }
  });
  const kindOfText = (el) => {
    if (el.closest('[data-testid=stHeading], h1, h2, h3, h4')) return 'heading';
    if (el.closest('[role=radiogroup]')) return 'option';
    if (el.closest('[data-testid=stCaptionContainer]')) return 'caption';
    if (el.closest('[data-testid=stWidgetLabel], [data-testid=stMetricLabel], [data-testid=stCheckbox]')) return 'label';
    if (el.closest('[data-testid=stSliderThumbValue], [data-testid=stSliderTickBar]')) return 'slider value';
    if (el.closest('button, summary, [data-testid=stMetricValue], [data-testid=stMetricDelta]')) return 'control';
    if (el.closest('[data-testid=stMarkdownContainer], [data-testid=stTable], [data-testid=stAlert]')) return 'prose';
    return 'other';
  };
  let smallestText = null;
  for (const t of texts) {
    const kind = kindOfText(t.el);
    const px = parseFloat(getComputedStyle(t.el).fontSize);
    boxes.push({kind: `${kind} text`, what: t.text, r: t.r, el: t.el});
    if (kind === 'prose' || kind === 'option') {
      if (!smallestText || px < smallestText.px) smallestText = {px, kind, text: t.text};
      if (px < PROSE_PX - 0.5) faults.push(`${kind} text at ${px.toFixed(1)} px (< ${PROSE_PX}): '${t.text}'`);
    }
  }
  // Charts and controls: their boxes.
  const ELEMENTS = '[data-testid=stPlotlyChart], [data-testid=stSlider], [data-testid=stRadio], ' +
    '[data-testid=stButton], [data-testid=stCheckbox], [data-testid=stSelectbox], ' +
    '[data-testid=stNumberInput], [data-testid=stTextInput], [data-testid=stPopover], ' +
    '[data-testid=stDataFrame], [data-testid=stTable], [data-testid=stImage], [data-testid=stMetric], ' +
    '[data-testid=stExpander], [data-testid=stSegmentedControl], [data-testid=stButtonGroup], ' +
    '[data-testid=stCode], [data-testid=stProgress]';
  main.querySelectorAll(ELEMENTS).forEach((el) => {
    const r = el.getBoundingClientRect();
    if (!outside(el) || !visible(el) || r.width < 1 || r.height < 1) return;
    const kind = el.dataset.testid === 'stPlotlyChart' ? 'chart' : 'control';
    boxes.push({kind, what: el.dataset.testid, r, el});
  });
  // Chart text: ticks, legends and annotations (titles are larger).
  let smallestChartText = null;
  main.querySelectorAll('.js-plotly-plot').forEach((gd) => {
    if (!visible(gd) || gd.getBoundingClientRect().width < 2) return;
    gd.querySelectorAll('svg text').forEach((el) => {
      if (el.closest('.hoverlayer') || !(el.textContent || '').trim()) return;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return;
      const kind = el.closest('.legend') ? 'legend' : el.closest('.annotation') ? 'annotation'
        : /tick/.test(el.parentElement.getAttribute('class') || '') ? 'tick' : 'chart text';
      const px = parseFloat(getComputedStyle(el).fontSize);
      const text = el.textContent.trim().slice(0, 40);
      if (!smallestChartText || px < smallestChartText.px) smallestChartText = {px, kind, text};
      if (px < CHART_PX - 0.5) faults.push(`chart ${kind} at ${px.toFixed(1)} px (< ${CHART_PX}): '${text}'`);
    });
  });
  const meet = (a, b) => a.left < b.right - TOL && b.left < a.right - TOL && a.top < b.bottom - TOL && b.top < a.bottom - TOL;
  // Nothing under the deck's bar.
  if (barBox) {
    for (const b of boxes) {
      if (meet(b.r, barBox)) faults.push(`${b.kind} under the deck bar: '${b.what}'`);
    }
  }
  // Something besides the heading.
  const content = boxes.filter((b) => !b.kind.startsWith('heading'));
  if (!content.length) faults.push('nothing but its heading');
  // No empty box: a bordered container with nothing visible inside.
  main.querySelectorAll('[data-testid=stVerticalBlock], [data-testid=stHorizontalBlock], [data-testid=stExpander]').forEach((block) => {
    if (!outside(block) || !visible(block)) return;
    const style = getComputedStyle(block);
    const r = block.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || !(parseFloat(style.borderTopWidth) > 0 && style.borderTopStyle !== 'none')) return;
    if (!boxes.some((b) => block.contains(b.el))) faults.push('an empty bordered box');
  });
  // The step fits the first screen.
  const bottom = Math.max(0, ...boxes.map((b) => b.r.bottom + window.scrollY));
  if (bottom > fit * screen + TOL) {
    const below = boxes.filter((b) => b.r.bottom + window.scrollY > fit * screen + TOL).map((b) => `${b.kind} '${b.what}'`);
    faults.push(`reaches ${(bottom / screen).toFixed(2)} screens: ${[...new Set(below)].slice(0, 3).join(', ')}`);
  }
  // A chart alone in its band of the screen spans the page's width.
  const page = document.querySelector('[data-testid=stMainBlockContainer]');
  const style = getComputedStyle(page);
  const width = page.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  for (const c of boxes.filter((b) => b.kind === 'chart')) {
    if (c.el.closest('[data-testid=stExpander], [data-testid=stPopover]')) continue;  // the odds panel's icons
    const beside = boxes.some((b) => b !== c && !c.el.contains(b.el) && !b.el.contains(c.el)
      && b.r.top < c.r.bottom - TOL && c.r.top < b.r.bottom - TOL
      && (b.r.right <= c.r.left + TOL || b.r.left >= c.r.right - TOL));
    if (!beside && c.r.width < 0.9 * width) {
      faults.push(`a chart alone at ${Math.round(100 * c.r.width / width)}% of the width`);
    }
  }
  return {height: bottom / screen, smallestText, smallestChartText, faults};
}
