// Charts drawn as SVG from data: a line chart (linear or logarithmic),
// stacked bars over time and horizontal bars. fit() draws one at its
// card's width, one SVG unit a CSS pixel, and again whenever that width
// changes, so text stays the same size on a phone and a wide screen and
// the chart fills its card. Each carries a text title and description for
// screen readers; the numbers are also in a table or list beside it.

const NS = 'http://www.w3.org/2000/svg';

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export const severityColors = { critical: '#a4161a', high: '#ea580c', medium: '#d4a017', low: '#2f855a', info: '#7b8798' };

// fit is a box that draws draw(width) at its own width, height px tall,
// and draws again when the width changes. The box's height is set before
// drawing, so a drawing never resizes what is being observed.
export function fit(draw, height) {
  const box = document.createElement('div');
  box.className = 'chart-box';
  box.style.setProperty('height', height + 'px');
  let drawn = 0, frame = 0;
  const ro = new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const w = Math.floor(box.clientWidth);
      if (!w || w === drawn) return;
      drawn = w;
      box.replaceChildren(draw(w, height));
      box.dataset.width = String(w);
    });
  });
  ro.observe(box);
  return box;
}

function frame(width, height, title, desc) {
  return s('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'chart', role: 'img', 'aria-label': title, preserveAspectRatio: 'xMinYMin meet' },
    s('title', {}, title), desc ? s('desc', {}, desc) : null);
}

function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export const shortDate = (d) => new Date(d + (d.length === 10 ? 'T00:00:00Z' : '')).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: d.length === 10 ? 'UTC' : undefined });

// compact writes an axis number briefly: 1500 → 1.5k.
export const compact = (v) => (v >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : `${+v.toFixed(v < 1 ? 2 : 1)}`);

// scale maps values to heights: linear from 0 to a round maximum (or
// max), or logarithmic from the power of ten at or below the smallest
// value above 0 to the one at or above the largest, gridlines at each
// power (and at 2 and 5 times it when the range spans two decades or
// less); values of 0 sit on a line of their own at the bottom.
function scale(kind, values, ih, top, max) {
  if (kind === 'log') {
    const positive = values.filter((v) => v > 0);
    const L = Math.floor(Math.log10(positive.length ? Math.min(...positive) : 1));
    const H = Math.max(L + 1, Math.ceil(Math.log10(Math.max(10 ** L, ...positive))));
    const zero = values.some((v) => v <= 0) ? 0.1 : 0; // the share of the height below the lowest power
    const f = (v) => (v <= 0 ? 0 : zero + ((1 - zero) * (Math.log10(Math.max(v, 10 ** L)) - L)) / (H - L));
    const ticks = zero ? [0] : [];
    for (let d = L; d <= H; d++) {
      ticks.push(10 ** d);
      if (H - L <= 2 && d < H) ticks.push(2 * 10 ** d, 5 * 10 ** d);
    }
    return { y: (v) => top + ih - f(v) * ih, ticks, lo: 10 ** L, hi: 10 ** H };
  }
  const hi = max ?? niceMax(Math.max(1, ...values));
  return { y: (v) => top + ih - (v / hi) * ih, ticks: [0, 1, 2, 3, 4].map((k) => (hi * k) / 4), lo: 0, hi };
}

// grid draws the scale's gridlines and labels them, leaving out a label
// too close to the one below to be read.
function grid(svg, sc, x1, x2) {
  let lastY = Infinity;
  for (const v of sc.ticks) {
    const y = sc.y(v);
    svg.append(s('line', { x1, x2, y1: y, y2: y, class: 'grid-line' }));
    if (lastY - y >= 12) {
      svg.append(s('text', { x: x1 - 6, y: y + 4, 'text-anchor': 'end' }, compact(v)));
      lastY = y;
    }
  }
}

// every says how many labels apart those shown are, for n labels across
// iw pixels, about 64 px apart.
const every = (n, iw) => Math.max(1, Math.ceil(n / Math.max(2, Math.floor(iw / 64))));

// lineChart draws one or more series over labelled x values.
// series: [{name, color, values: [number], tip(i) (the point's hover text)}];
// labels: x labels (dates); yScale 'linear' (from 0, yMax or a round
// maximum) or 'log'; yTitle names the axis; mark: {value, label}, a
// dashed level across the chart (its label goes in the legend beside it).
export function lineChart({ title, desc, labels, series, yMax, yScale = 'linear', yTitle, mark, width = 760, height = 240 }) {
  const pad = { l: 44, r: 16, t: yTitle ? 22 : 10, b: 26 };
  const svg = frame(width, height, title, desc);
  const iw = width - pad.l - pad.r, ih = height - pad.t - pad.b;
  const sc = scale(yScale, series.flatMap((x) => x.values), ih, pad.t, yMax);
  const x = (i) => pad.l + (labels.length < 2 ? iw / 2 : (i * iw) / (labels.length - 1));
  if (yTitle) svg.append(s('text', { x: 4, y: 12, class: 'axis-title' }, yTitle));
  grid(svg, sc, pad.l, width - pad.r);
  if (mark && mark.value <= sc.hi && mark.value >= sc.lo) {
    const ym = sc.y(mark.value);
    svg.append(s('line', { x1: pad.l, x2: width - pad.r, y1: ym, y2: ym, class: 'mark-line' }, s('title', {}, mark.label)));
  }
  const step = every(labels.length, iw);
  const gap = labels.length > 1 ? iw / (labels.length - 1) : iw;
  labels.forEach((l, i) => {
    // The last day is labelled too when it stands clear of the label before.
    if (i % step === 0 || (i === labels.length - 1 && ((labels.length - 1) % step) * gap >= 64)) {
      svg.append(s('text', { x: x(i), y: height - 8, 'text-anchor': i === 0 && labels.length > 1 ? 'start' : i === labels.length - 1 && labels.length > 1 ? 'end' : 'middle' }, shortDate(l)));
    }
  });
  for (const ser of series) {
    const pts = ser.values.map((v, i) => `${x(i).toFixed(1)},${sc.y(v).toFixed(1)}`).join(' ');
    svg.append(s('polyline', { points: pts, fill: 'none', stroke: ser.color, 'stroke-width': 2.5, 'stroke-linejoin': 'round' }));
    ser.values.forEach((v, i) => svg.append(s('circle', { cx: x(i), cy: sc.y(v), r: 3, fill: ser.color },
      s('title', {}, ser.tip ? ser.tip(i) : `${ser.name} ${labels[i]}: ${v}`))));
  }
  return svg;
}

// stackedBars draws per-label stacks. keys: stack order (bottom first);
// rows: [{label, values: {key: n}}]; colors: {key: colour}.
export function stackedBars({ title, desc, rows, keys, colors, yTitle, width = 760, height = 220 }) {
  const pad = { l: 44, r: 16, t: yTitle ? 22 : 10, b: 26 };
  const totals = rows.map((r) => keys.reduce((a, k) => a + (r.values[k] || 0), 0));
  const sc = scale('linear', totals, height - pad.t - pad.b, pad.t);
  const svg = frame(width, height, title, desc);
  const iw = width - pad.l - pad.r;
  const bw = iw / Math.max(1, rows.length);
  if (yTitle) svg.append(s('text', { x: 4, y: 12, class: 'axis-title' }, yTitle));
  grid(svg, sc, pad.l, width - pad.r);
  const step = every(rows.length, iw);
  rows.forEach((r, i) => {
    let acc = 0;
    const x0 = pad.l + i * bw + bw * 0.15;
    for (const k of keys) {
      const v = r.values[k] || 0;
      if (v > 0) {
        svg.append(s('rect', { x: x0, y: sc.y(acc + v), width: Math.max(1, bw * 0.7), height: Math.max(0.5, sc.y(acc) - sc.y(acc + v)), fill: colors[k] },
          s('title', {}, `${shortDate(r.label)}: ${v} ${k}`)));
      }
      acc += v;
    }
    if (i % step === 0) svg.append(s('text', { x: x0 + bw * 0.35, y: height - 8, 'text-anchor': 'middle' }, shortDate(r.label)));
  });
  return svg;
}

// hbars draws labelled horizontal bars of 0..max (percentages by default).
export const hbarsHeight = (rows) => rows.length * 28 + 8;
export function hbars({ title, rows, max = 100, unit = '%', width = 640, color = '#1d4ed8' }) {
  const rowH = 28, pad = { l: Math.min(180, Math.max(110, width * 0.3)), r: 50 };
  const height = hbarsHeight(rows);
  const svg = frame(width, height, title);
  const iw = Math.max(20, width - pad.l - pad.r);
  rows.forEach((r, i) => {
    const yy = 4 + i * rowH;
    const w = Math.max(0, Math.min(1, r.value / max)) * iw;
    svg.append(s('text', { x: pad.l - 8, y: yy + 17, 'text-anchor': 'end' }, r.label),
      s('rect', { x: pad.l, y: yy + 5, width: iw, height: 16, fill: '#e5e9f0', rx: 3 }),
      s('rect', { x: pad.l, y: yy + 5, width: w, height: 16, fill: r.color || color, rx: 3 }, s('title', {}, `${r.label}: ${r.value}${unit}`)),
      s('text', { x: pad.l + iw + 6, y: yy + 17 }, `${r.value}${unit}`));
  });
  return svg;
}

// gauge draws a score of 0..100 as a ring.
export function gauge(score, label) {
  const r = 42, c = 2 * Math.PI * r;
  const color = score >= 80 ? '#2f855a' : score >= 60 ? '#d4a017' : score >= 40 ? '#ea580c' : '#a4161a';
  return s('svg', { viewBox: '0 0 100 100', width: 120, height: 120, role: 'img', 'aria-label': `${label}: ${score} of 100` },
    s('circle', { cx: 50, cy: 50, r, fill: 'none', stroke: '#e5e9f0', 'stroke-width': 10 }),
    s('circle', { cx: 50, cy: 50, r, fill: 'none', stroke: color, 'stroke-width': 10, 'stroke-dasharray': `${(c * score) / 100} ${c}`, transform: 'rotate(-90 50 50)', 'stroke-linecap': 'round' }),
    s('text', { x: 50, y: 57, 'text-anchor': 'middle', 'font-size': 24, 'font-weight': 700, fill: '#1a2230' }, score));
}

// legend names the colours of a chart.
export function legend(entries) {
  const div = document.createElement('div');
  div.className = 'legend';
  for (const [name, color] of entries) {
    const span = document.createElement('span');
    span.style.setProperty('--c', color);
    span.textContent = name;
    div.append(span);
  }
  return div;
}
