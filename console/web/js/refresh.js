// Automatic refresh of a page's data, every 30 or 60 seconds: off unless
// chosen, shown on or off beside its control, kept in the address
// (?refresh=30) so a reload keeps it. One refresh at a time: the next is
// timed from the end of the last, so a slow answer never has another
// stacked behind it. None while the tab is hidden (looking back at it
// refreshes at once if one came due) or while a dialog is open (a bulk
// change being confirmed keeps the rows it names).

import { h, uid } from './dom.js';
import { withParams } from './list.js';

export const intervals = [30, 60];

// autoRefresh returns the control. tick() reads the page's data again
// (quietly: what is shown stays until the new data arrives). The control
// is part of its page: once it has left the document (another page is
// shown), the refreshing ends.
export function autoRefresh({ q, tick }) {
  let every = intervals.includes(Number(q.get('refresh'))) ? Number(q.get('refresh')) : 0;
  let timer = 0, running = false, due = false, last = null;
  const id = uid('refresh');
  const select = h('select', { id, name: 'refresh' },
    h('option', { value: '0' }, 'Off'), intervals.map((s) => h('option', { value: String(s) }, `Every ${s} seconds`)));
  select.value = String(every);
  const light = h('span', { class: 'refresh-light', 'aria-hidden': 'true' });
  const words = h('span', {});
  const status = h('span', { class: 'refresh-state', id: id + '-state' }, light, words);
  select.setAttribute('aria-describedby', status.id);
  const now = h('button', { type: 'button', class: 'secondary small', onclick: async () => { await run(); schedule(); } }, 'Refresh now');

  const clock = (d) => d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  function show() {
    const state = running ? 'busy' : !every ? 'off' : document.hidden ? 'paused' : 'on';
    status.setAttribute('data-state', state);
    words.textContent = {
      off: 'Auto-refresh is off',
      on: `Auto-refresh is on, every ${every} s`,
      paused: 'Auto-refresh is paused while this tab is hidden',
      busy: 'Refreshing…',
    }[state] + (last && state !== 'busy' ? ` · updated ${clock(last)}` : '');
    now.disabled = running;
  }

  function stop() {
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibility);
  }
  let el = null;
  const gone = () => {
    if (el.isConnected) return false;
    stop();
    return true;
  };

  function schedule() {
    clearTimeout(timer);
    timer = every ? setTimeout(fire, every * 1000) : 0;
    show();
  }

  async function fire() {
    if (gone()) return;
    if (document.hidden) { due = true; show(); return; } // the tab's return refreshes
    if (document.querySelector('dialog[open]')) { timer = setTimeout(fire, 2000); return; }
    await run();
    if (!gone()) schedule();
  }

  async function run() {
    if (running) return; // never two at once
    running = true;
    show();
    try {
      await tick();
      last = new Date();
    } catch { /* each part shows its own error */ } finally {
      running = false;
      show();
    }
  }

  function onVisibility() {
    if (gone()) return;
    if (!document.hidden && due && every) {
      due = false;
      fire();
      return;
    }
    show();
  }
  document.addEventListener('visibilitychange', onVisibility);

  select.addEventListener('change', () => {
    every = Number(select.value) || 0;
    due = false;
    history.replaceState(history.state, '', withParams({ refresh: every || '' }));
    schedule();
  });
  el = h('div', { class: 'refresh' },
    h('div', { class: 'field' }, h('label', { for: id }, 'Auto-refresh'), select),
    h('div', { class: 'refresh-side' }, status, now));
  schedule();
  return el;
}
