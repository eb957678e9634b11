// Times as the API writes them (RFC 3339 UTC) and as the page shows them (durations, "ago").

import {h} from './dom.js';

// Milliseconds since the epoch, or null for an empty or unreadable time.
export function parseTime(s) {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? null : t;
}

// Items with an `at`, oldest first.
export function byTime(a, b) {
  return (parseTime(a.at) || 0) - (parseTime(b.at) || 0);
}

export function formatDuration(ms) {
  let s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + 's';
  const d = Math.floor(s / 86400); s -= d * 86400;
  const hrs = Math.floor(s / 3600); s -= hrs * 3600;
  const m = Math.floor(s / 60);
  if (d > 0) return d + 'd ' + hrs + 'h';
  if (hrs > 0) return hrs + 'h ' + m + 'm';
  return m + 'm ' + (s - m * 60) + 's';
}

// A <time> saying how long ago (or until), with the exact UTC time as its title.
export function when(iso) {
  const t = parseTime(iso);
  if (t === null) return '—';
  const diff = Date.now() - t;
  const text = Math.abs(diff) < 1500 ? 'now'
    : diff > 0 ? formatDuration(diff) + ' ago' : 'in ' + formatDuration(-diff);
  return h('time', {datetime: iso, title: iso}, text);
}

// A duration as the API reads it: 30m, 1h, 1h30m, 500ms, 2d.
export const DURATION = /^(\d+(ms|s|m|h|d))+$/;

// "2026-12-04T18:00" (local), an RFC 3339 time, or empty -> RFC 3339 UTC without fractions.
export function toRfc3339(text) {
  const t = Date.parse(text);
  if (Number.isNaN(t)) return null;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
