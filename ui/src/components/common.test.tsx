import { describe, expect, it } from 'vitest';
import { tabbables } from './common';

function dom(html: string): HTMLElement {
  const el = document.createElement('div');
  el.innerHTML = html;
  document.body.appendChild(el);
  return el;
}

describe('tabbables', () => {
  it('counts a radio group as one stop: its checked radio, so a dialog ending in radios wraps from it', () => {
    const root = dom(`
      <input data-n="url">
      <button disabled>off</button>
      <fieldset><input type="radio" name="theme" value="system" checked data-n="system">
        <input type="radio" name="theme" value="light"><input type="radio" name="theme" value="dark"></fieldset>`);
    expect(tabbables(root).map((x) => x.dataset.n)).toEqual(['url', 'system']);
    (root.querySelector('[value="dark"]') as HTMLInputElement).checked = true;
    expect(tabbables(root).map((x) => (x as HTMLInputElement).value)).toEqual(['', 'dark']);
    root.remove();
  });

  it('takes the first radio of a group with none checked, and skips hidden parts and tabindex -1', () => {
    const root = dom(`
      <input type="radio" name="g" value="a"><input type="radio" name="g" value="b">
      <div hidden><button>hidden</button></div>
      <div tabindex="-1">box</div><div tabindex="0" data-n="scroller">log</div>`);
    const stops = tabbables(root);
    expect(stops).toHaveLength(2);
    expect((stops[0] as HTMLInputElement).value).toBe('a');
    expect(stops[1].dataset.n).toBe('scroller');
    root.remove();
  });
});
