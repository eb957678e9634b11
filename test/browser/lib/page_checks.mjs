// Checks every page of the operator page must pass (contract: "Accessible"): no horizontal
// scroll at 360 px, an accessible name on every control (as Chromium's accessibility tree
// computes it, the name a screen reader announces), and WCAG AA contrast for text and buttons.

// Roles of controls that must carry a name: what input, select, textarea and button map to,
// and links.
const CONTROL_ROLES = new Set(['button', 'textbox', 'searchbox', 'combobox', 'listbox',
  'checkbox', 'radio', 'spinbutton', 'slider', 'switch', 'link', 'textField']);

export async function unnamedControls(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const {nodes} = await cdp.send('Accessibility.getFullAXTree');
    const bad = [];
    let controls = 0;
    for (const n of nodes) {
      if (n.ignored) continue;
      const role = n.role && n.role.value;
      if (!CONTROL_ROLES.has(role)) continue;
      controls += 1;
      const name = ((n.name && n.name.value) || '').trim();
      if (name) continue;
      let what = role;
      if (n.backendDOMNodeId) {
        const {node} = await cdp.send('DOM.describeNode', {backendNodeId: n.backendDOMNodeId});
        const attrs = node.attributes || [];
        const pairs = [];
        for (let i = 0; i + 1 < attrs.length; i += 2) pairs.push(`${attrs[i]}="${attrs[i + 1]}"`);
        what = `<${node.localName} ${pairs.join(' ')}> (role ${role})`;
      }
      bad.push(what);
    }
    // Cross-check against the DOM: every visible form control is in the tree as a control.
    const domControls = await page.evaluate(() => [...document.querySelectorAll(
      'input:not([type=hidden]), select, textarea, button')].filter((e) => e.getClientRects().length).length);
    return {controls, domControls, bad};
  } finally {
    await cdp.detach();
  }
}

// Runs in the page: for body text and each visible button, link, label and table cell with
// text, the contrast ratio of its colour over the background it is drawn on (the backgrounds of
// the ancestors under its centre composited, the page white under all). Returns the failures of WCAG AA: 4.5:1,
// 3:1 for large text (24 px, or 18.66 px bold).
export async function contrastFailures(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return null;
      const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
    };
    const over = (top, under) => ({
      r: top.r * top.a + under.r * (1 - top.a),
      g: top.g * top.a + under.g * (1 - top.a),
      b: top.b * top.a + under.b * (1 - top.a), a: 1});
    // The backgrounds under the element's centre: an ancestor counts only where its box holds
    // that point (a label positioned outside its parent is drawn on what is under it).
    const background = (el) => {
      const r = el.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const b = e.getBoundingClientRect();
        if (e !== document.documentElement &&
            (x < b.left || x > b.right || y < b.top || y > b.bottom)) continue;
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c.a > 0) layers.push(c);
        if (c && c.a >= 1) break;
      }
      let bg = {r: 255, g: 255, b: 255, a: 1};
      for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
      return bg;
    };
    const lum = (c) => {
      const ch = (v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
      };
      return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
    };
    const ratio = (a, b) => {
      const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
      return (hi + 0.05) / (lo + 0.05);
    };
    const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const elements = [document.body, ...document.querySelectorAll(
      'button, a, label, th, td, p, li, h1, h2, h3, dt, dd, span, summary, legend, caption')];
    const failures = [];
    let checked = 0;
    for (const el of elements) {
      const s = getComputedStyle(el);
      if (!el.getClientRects().length || s.visibility === 'hidden' || el.disabled) continue;
      if (el !== document.body && el.tagName !== 'BUTTON' && !ownText(el)) continue;
      const bg = background(el);
      const fg = over(parse(s.color), bg);
      const size = parseFloat(s.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
      const need = large ? 3 : 4.5;
      const r = ratio(fg, bg);
      checked += 1;
      if (r < need) {
        failures.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}` +
          `${el.className ? '.' + String(el.className).replace(/ +/g, '.') : ''} ` +
          `"${(el.textContent || '').trim().slice(0, 30)}": ${r.toFixed(2)} < ${need} ` +
          `(${s.color} on rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)}))`);
      }
    }
    return {checked, failures};
  });
}

export async function scrollWidth(page) {
  return page.evaluate(() => document.documentElement.scrollWidth);
}
