// The live refresh of the view on screen: one timer at a time, stopped when the view changes.

export const REFRESH_MS = 5000;

let timer = null;

// Runs `fn` every `ms` while the tab is visible, never two at once; replaces any earlier timer.
export function every(ms, fn) {
  clearInterval(timer);
  let busy = false;
  timer = setInterval(async () => {
    if (busy || document.hidden) return;
    busy = true;
    try { await fn(); } finally { busy = false; }
  }, ms);
}

export function stopRefresh() {
  clearInterval(timer);
  timer = null;
}
