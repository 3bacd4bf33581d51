// Charts drawn as SVG from data: a line chart, stacked bars over time and
// horizontal bars. Each carries a text title and description for screen
// readers; the numbers are also in a table or list beside it.

const NS = 'http://www.w3.org/2000/svg';

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

// narrow: on a phone a chart is drawn in fewer units, so its labels stay legible.
const narrow = () => window.innerWidth < 600;

export const severityColors = { critical: '#a4161a', high: '#ea580c', medium: '#d4a017', low: '#2f855a', info: '#7b8798' };

function frame(width, height, title, desc) {
  return s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title },
    s('title', {}, title), desc ? s('desc', {}, desc) : null);
}

function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const shortDate = (d) => new Date(d + (d.length === 10 ? 'T00:00:00Z' : '')).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: d.length === 10 ? 'UTC' : undefined });

// lineChart draws one or more series over labelled x values.
// series: [{name, color, values: [number]}]; labels: x labels (dates).
export function lineChart({ title, desc, labels, series, yMax, height = 220, width = narrow() ? 380 : 760 }) {
  const pad = { l: 36, r: 24, t: 10, b: 26 };
  const top = yMax ?? niceMax(Math.max(1, ...series.flatMap((x) => x.values)));
  const svg = frame(width, height, title, desc);
  const iw = width - pad.l - pad.r, ih = height - pad.t - pad.b;
  const x = (i) => pad.l + (labels.length < 2 ? iw / 2 : (i * iw) / (labels.length - 1));
  const y = (v) => pad.t + ih - (v / top) * ih;
  for (let k = 0; k <= 4; k++) {
    const v = (top * k) / 4;
    svg.append(s('line', { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), class: 'grid-line' }),
      s('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end' }, Math.round(v)));
  }
  const step = Math.max(1, Math.ceil(labels.length / 7));
  labels.forEach((l, i) => { if (i % step === 0 || i === labels.length - 1) svg.append(s('text', { x: x(i), y: height - 8, 'text-anchor': 'middle' }, shortDate(l))); });
  for (const ser of series) {
    const pts = ser.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    svg.append(s('polyline', { points: pts, fill: 'none', stroke: ser.color, 'stroke-width': 2.5, 'stroke-linejoin': 'round' }));
    ser.values.forEach((v, i) => svg.append(s('circle', { cx: x(i), cy: y(v), r: 2.5, fill: ser.color }, s('title', {}, `${ser.name} ${labels[i]}: ${v}`))));
  }
  return svg;
}

// stackedBars draws per-label stacks. keys: stack order (bottom first);
// rows: [{label, values: {key: n}}]; colors: {key: colour}.
export function stackedBars({ title, desc, rows, keys, colors, height = 220, width = narrow() ? 380 : 760 }) {
  const pad = { l: 40, r: 24, t: 10, b: 26 };
  const totals = rows.map((r) => keys.reduce((a, k) => a + (r.values[k] || 0), 0));
  const top = niceMax(Math.max(1, ...totals));
  const svg = frame(width, height, title, desc);
  const iw = width - pad.l - pad.r, ih = height - pad.t - pad.b;
  const bw = iw / Math.max(1, rows.length);
  const y = (v) => pad.t + ih - (v / top) * ih;
  for (let k = 0; k <= 4; k++) {
    const v = (top * k) / 4;
    svg.append(s('line', { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), class: 'grid-line' }),
      s('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end' }, Math.round(v)));
  }
  const step = Math.max(1, Math.ceil(rows.length / 7));
  rows.forEach((r, i) => {
    let acc = 0;
    const x0 = pad.l + i * bw + bw * 0.15;
    for (const k of keys) {
      const v = r.values[k] || 0;
      if (v > 0) {
        svg.append(s('rect', { x: x0, y: y(acc + v), width: bw * 0.7, height: Math.max(0.5, y(acc) - y(acc + v)), fill: colors[k] },
          s('title', {}, `${r.label}: ${v} ${k}`)));
      }
      acc += v;
    }
    if (i % step === 0 || i === rows.length - 1) svg.append(s('text', { x: x0 + bw * 0.35, y: height - 8, 'text-anchor': 'middle' }, shortDate(r.label)));
  });
  return svg;
}

// hbars draws labelled horizontal bars of 0..max (percentages by default).
export function hbars({ title, rows, max = 100, unit = '%', width = narrow() ? 380 : 640, color = '#1d4ed8' }) {
  const rowH = 28, pad = { l: width < 500 ? 110 : 150, r: 50 };
  const height = rows.length * rowH + 8;
  const svg = frame(width, height, title);
  const iw = width - pad.l - pad.r;
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
