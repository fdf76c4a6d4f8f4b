// Russian runs longest of the three languages: at 1024×700 no text may be cut
// off or spill out of its box, no placeholder may be cut, and no workspace may
// run off the side of the window.
import type { Page } from '@playwright/test';
import { createSession, diagnoseToReport, expect, openSession, showSessionTab, test, unique } from './fixtures';

test.use({ viewport: { width: 1024, height: 700 } });

/** Every visible element whose own text is wider than its box, and every input whose placeholder is cut. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : ''}.${[...el.classList].join('.')}`;
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      // Visually hidden text (for screen readers) is clipped on purpose.
      const clipped = (x: Element) => getComputedStyle(x).clip === 'rect(0px, 0px, 0px, 0px)';
      return (
        r.width > 0 &&
        r.height > 0 &&
        getComputedStyle(el).visibility !== 'hidden' &&
        !clipped(el) &&
        !el.closest('[hidden], .sr-only, details:not([open]) > :not(summary)')
      );
    };
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      if (!visible(el)) continue;
      const style = getComputedStyle(el);
      if (style.display === 'inline' || el.closest('svg')) continue;
      const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
      // Scroll areas scroll by design; what they hold is checked element by element.
      const scrolls = ['auto', 'scroll'].includes(style.overflowX);
      if (ownText && !scrolls && el.scrollWidth > el.clientWidth + 1) {
        found.push(`${describe(el)} "${el.textContent!.trim().slice(0, 40)}" ${el.scrollWidth}>${el.clientWidth}`);
      }
      if ((el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.placeholder && el.value === '') {
        // The placeholder typed in as a value: the input's scroll width is then the text as the browser lays it out.
        // (Set and cleared without an input event, so the page's state never sees it.)
        el.value = el.placeholder;
        const need = el instanceof HTMLTextAreaElement ? el.scrollHeight : el.scrollWidth;
        const room = el instanceof HTMLTextAreaElement ? el.clientHeight : el.clientWidth;
        el.value = '';
        if (need > room + 1) found.push(`${describe(el)} placeholder "${el.placeholder.slice(0, 40)}" ${need}>${room}`);
      }
    }
    // Nothing runs off the side of the window.
    for (const el of document.querySelectorAll<HTMLElement>('main:not([hidden]), .app-header')) {
      const r = el.getBoundingClientRect();
      if (r.right > window.innerWidth + 1) found.push(`${describe(el)} runs off the window: right ${Math.round(r.right)}`);
    }
    if (document.documentElement.scrollWidth > window.innerWidth) found.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}`);
    return found;
  });
}

test('in Russian at 1024×700 no text is cut off or spills out, in any workspace', async ({ page, request }, testInfo) => {
  test.setTimeout(60_000);
  const complaint = unique('Не работает вентилятор в крыше');
  const s = await createSession(request, { complaint, customer: 'Иван Петров', language: 'ru' });
  await diagnoseToReport(request, s.id);
  await page.addInitScript(() => window.localStorage.setItem('servicedesk.locale', 'ru'));
  await openSession(page, complaint);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');

  const found: Record<string, string[]> = {};
  found['sessions: chat'] = await overflowing(page);
  for (const tab of ['progress', 'unit', 'photos'] as const) {
    await showSessionTab(page, tab);
    found[`sessions: ${tab}`] = await overflowing(page);
  }
  await page.getByTestId('new-session-button').click();
  found['sessions: new session form'] = await overflowing(page);
  await page.screenshot({ path: testInfo.outputPath('overflow-ru-sessions.png') });

  await page.getByTestId('nav-knowledge').click();
  await expect(page.getByTestId('source-row').first()).toBeVisible();
  found.knowledge = await overflowing(page);
  await page.screenshot({ path: testInfo.outputPath('overflow-ru-knowledge.png') });

  await page.getByTestId('nav-billing').click();
  await expect(page.getByTestId('rule-row').first()).toBeVisible();
  found.billing = await overflowing(page);
  await page.screenshot({ path: testInfo.outputPath('overflow-ru-billing.png') });

  await page.getByTestId('nav-export').click();
  await expect(page.locator('#workspace-export')).toBeVisible();
  found.export = await overflowing(page);

  await page.getByTestId('open-settings').click();
  found.settings = await overflowing(page);
  await page.keyboard.press('Escape');

  expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual({});
});
