// Plotly text on the page: overlaps and clipping (tests/test_layout.py). Returns {charts, faults}.
() => {
  const TOL = 2;
  const kindOf = (el) => {
    if (el.closest('.hoverlayer')) return null;
    if (el.closest('.legend')) return 'legend';
    if (el.closest('.annotation')) return 'annotation';
    const cls = el.getAttribute('class') || '';
    if (cls.includes('gtitle')) return 'title';
    if (/^[xy]\d*title$/.test(cls)) return cls.startsWith('x') ? 'xtitle' : 'ytitle';
    const g = el.parentElement && el.parentElement.getAttribute('class') || '';
    if (/^[xy]\d*tick$/.test(g)) return 'tick';
    return null;
  };
  const corners = (el) => {
    const b = el.getBBox(), m = el.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const axes = (q) => [0, 1].map((i) => {
    const [x0, y0] = q[i], [x1, y1] = q[i + 1];
    const len = Math.hypot(x1 - x0, y1 - y0) || 1;
    return [(y0 - y1) / len, (x1 - x0) / len];
  });
  const depth = (p, q) => {  // separating-axis test: how deep two convex quads overlap (px)
    let least = Infinity;
    for (const [nx, ny] of [...axes(p), ...axes(q)]) {
      const pa = p.map(([x, y]) => x * nx + y * ny), qa = q.map(([x, y]) => x * nx + y * ny);
      const o = Math.min(Math.max(...pa), Math.max(...qa)) - Math.max(Math.min(...pa), Math.min(...qa));
      least = Math.min(least, o);
    }
    return least;
  };
  const faults = [];
  let charts = 0;
  document.querySelectorAll('.js-plotly-plot').forEach((gd) => {
    const box = gd.getBoundingClientRect();
    // a chart in a closed expander or tab is not on screen (and not laid out again)
    if (box.width < 2 || box.height < 2 || !gd.checkVisibility({visibilityProperty: true})) return;
    charts += 1;
    const name = ((gd.layout && gd.layout.title && gd.layout.title.text) || 'untitled').replace(/<br>/g, ' ').slice(0, 60);
    const items = [];
    gd.querySelectorAll('svg text').forEach((el) => {
      const kind = kindOf(el);
      const text = (el.textContent || '').trim();
      if (!kind || !text) return;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return;
      items.push({kind, text: text.slice(0, 40), q: corners(el)});
    });
    for (const a of items) {
      const xs = a.q.map((c) => c[0]), ys = a.q.map((c) => c[1]);
      const clip = [];
      if (Math.min(...xs) < box.left - TOL) clip.push('left');
      if (Math.max(...xs) > box.right + TOL) clip.push('right');
      if (Math.min(...ys) < box.top - TOL) clip.push('top');
      if (Math.max(...ys) > box.bottom + TOL) clip.push('bottom');
      if (clip.length) faults.push(`${name} | clipped ${clip} | ${a.kind} '${a.text}'`);
    }
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const d = depth(items[i].q, items[j].q);
        if (d > TOL) {
          faults.push(`${name} | overlap ${d.toFixed(0)}px | ${items[i].kind} '${items[i].text}' ~ ${items[j].kind} '${items[j].text}'`);
        }
      }
    }
  });
  return {charts, faults};
}
