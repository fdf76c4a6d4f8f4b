// The session screen as a technician at a bench and a writer at a keyboard
// use it: the chat input on screen without scrolling at the sizes the shop's
// screens and tablets have, focus where the next keystroke belongs, a skip
// link, and dialogs that keep Tab inside.
import type { Page } from '@playwright/test';
import { apiCall, createSession, expect, openSession, rowFor, showSessionTab, test, unique } from './fixtures';

const VIEWPORTS = [
  { name: 'laptop', width: 1024, height: 700 },
  { name: 'desktop', width: 1366, height: 768 },
  { name: 'tablet', width: 768, height: 1024 },
];

/** The element's box lies wholly inside the window (nothing to scroll to reach it). */
async function expectInView(page: Page, testId: string) {
  const box = await page.getByTestId(testId).boundingBox();
  const vp = page.viewportSize()!;
  expect(box, testId).not.toBeNull();
  expect(box!.y, `${testId} top`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${testId} bottom`).toBeLessThanOrEqual(vp.height);
  expect(box!.x + box!.width, `${testId} right`).toBeLessThanOrEqual(vp.width);
}

/** Nothing outside the panes scrolls: the page itself and the detail pane fit the window. */
async function expectNoPageScroll(page: Page) {
  const sizes = await page.evaluate(() => {
    const pane = document.querySelector('.detail-pane') as HTMLElement;
    return {
      page: document.documentElement.scrollHeight - window.innerHeight,
      pane: pane.scrollHeight - pane.clientHeight,
    };
  });
  expect(sizes.page).toBeLessThanOrEqual(0);
  expect(sizes.pane).toBeLessThanOrEqual(0);
}

for (const vp of VIEWPORTS) {
  test.describe(`${vp.name} ${vp.width}x${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } });

    test('an opened session shows the chat input without scrolling, focused', async ({ page, request }, testInfo) => {
      const complaint = unique('Slide-out motor stalls halfway');
      const s = await createSession(request, { complaint, customer: 'Pat Bench' });
      // Enough history to overflow the chat: it must scroll inside its own pane, not push the input down.
      for (const text of ["roof vent fan doesn't work", 'where is the fan fuse?', 'back to the step', 'panel fuse blown']) {
        await apiCall(request, 'chat_turn', { session_id: s.id, text, attachments: [] });
      }
      await openSession(page, complaint);
      await expect(page.getByTestId('chat-turn')).toHaveCount(4);
      await expect(page.getByTestId('chat-input')).toBeFocused();
      await expectInView(page, 'chat-input');
      await expectInView(page, 'chat-send');
      await expectNoPageScroll(page);
      // The newest reply is what the history shows.
      await expect(page.getByTestId('chat-turn').last()).toBeInViewport();
      await page.screenshot({ path: testInfo.outputPath(`layout-session-${vp.width}x${vp.height}.png`) });

      // The unit card, the steps and the photos are a tab away, each in one scroll area, and the input stays put
      // where they sit beside the chat.
      for (const tab of ['unit', 'photos', 'progress'] as const) {
        await showSessionTab(page, tab);
        await expect(page.getByTestId(`side-${tab}`)).toBeVisible();
        await expectNoPageScroll(page);
      }
      await expect(page.getByTestId('context-system')).toContainText('12 V DC circuits');
      const layout = await page.getByTestId('diagnosis').getAttribute('data-layout');
      if (layout === 'side-by-side') {
        await expectInView(page, 'chat-input');
      } else {
        await expect(page.getByTestId('chat-input')).toBeHidden();
        await showSessionTab(page, 'chat');
        await expectInView(page, 'chat-input');
      }
    });

    test('every workspace fits the window, nothing sideways', async ({ page }, testInfo) => {
      await page.goto('/');
      for (const w of ['sessions', 'knowledge', 'billing', 'export'] as const) {
        await page.getByTestId(`nav-${w}`).click();
        await expect(page.locator(`#workspace-${w}`)).toBeVisible();
        await expect(page.getByTestId(`nav-${w}`)).toBeInViewport();
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(sideways, w).toBeLessThanOrEqual(0);
        await page.screenshot({ path: testInfo.outputPath(`layout-${w}-${vp.width}x${vp.height}.png`) });
      }
    });
  });
}

test.describe('tablet', () => {
  test.use({ viewport: { width: 768, height: 1024 } });

  test('the list and the open session take the whole screen in turn', async ({ page, request }) => {
    const complaint = unique('Water pump cycles');
    await createSession(request, { complaint });
    await openSession(page, complaint);
    await expect(page.getByTestId('sessions-pane')).toBeHidden();
    await expect(page.getByTestId('chat-input')).toBeFocused();
    const back = page.getByTestId('back-to-list');
    const box = (await back.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    await back.click();
    await expect(page.getByTestId('sessions-pane')).toBeVisible();
    await expect(page.getByTestId('session-detail')).toHaveCount(0);
    // Focus is back on the row of the session just left.
    await expect(rowFor(page, complaint)).toBeFocused();
  });
});

test.describe('keyboard', () => {
  test.use({ viewport: { width: 1024, height: 700 } });

  test('a whole diagnosis by keyboard only: create, answer, report', async ({ page }) => {
    const complaint = unique("Roof vent fan doesn't work");
    await page.goto('/');
    // Tab from the top of the page: the skip link comes first.
    await page.keyboard.press('Tab');
    await expect(page.getByTestId('skip-link')).toBeFocused();
    await expect(page.getByTestId('skip-link')).toBeInViewport();

    await page.getByTestId('new-session-button').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('new-session-form')).toBeVisible();
    await page.getByTestId('new-complaint').focus();
    await page.keyboard.type(complaint);
    await page.getByTestId('create-session').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('detail-complaint')).toHaveText(complaint);

    // Creating a session leaves the cursor in its chat input.
    const input = page.getByTestId('chat-input');
    await expect(input).toBeFocused();
    const turns = page.getByTestId('chat-turn');
    const say = async (text: string, n: number) => {
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
      await expect(turns).toHaveCount(n);
      await expect(input).toBeFocused();
    };
    await say("roof vent fan doesn't work", 1);
    await say('panel fuse blown', 2);
    await say('make it 1.5', 3);
    await say('write the report', 4);
    await expect(turns.nth(3).getByTestId('reply-kind')).toHaveText('Report');

    // The side tabs are one tab stop; the arrow keys move between them.
    await showSessionTab(page, 'progress');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('tab-unit')).toBeFocused();
    await expect(page.getByTestId('tab-unit')).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('side-unit')).toBeVisible();
    await page.keyboard.press('Home');
    await expect(page.getByTestId('tab-chat')).toBeFocused();
    await expect(input).toBeVisible();

    // The skip link goes straight to the chat input from anywhere.
    await page.getByTestId('skip-link').focus();
    await page.keyboard.press('Enter');
    await expect(input).toBeFocused();
  });

  test('the session list is one Tab stop; the arrow keys move in it and Enter opens a session', async ({ page, request }) => {
    const tag = unique('kb').replace(' ', '');
    for (const c of ['Furnace', 'Awning', 'Fridge']) await createSession(request, { complaint: `${c} ${tag}` });
    await page.goto('/');
    await page.getByTestId('session-search').fill(tag);
    await expect(page.getByTestId('session-row')).toHaveCount(3);
    const rows = page.getByTestId('session-row');
    // From the search box: the status filter, the New session button, then the list, once.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(rows.nth(0)).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(rows.nth(1)).toBeFocused();
    await page.keyboard.press('End');
    await expect(rows.nth(2)).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(rows.nth(1)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('detail-complaint')).toHaveText(`Awning ${tag}`);
    await expect(page.getByTestId('chat-input')).toBeFocused();
    // Back in the list, Tab leaves it instead of walking every row.
    await rows.nth(1).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).not.toBe('session-row');
  });

  test('Settings keeps Tab inside, past the theme radios and back', async ({ page }) => {
    await page.goto('/');
    await page.keyboard.press('Control+Comma');
    const dialog = page.getByTestId('settings-dialog');
    await expect(dialog).toBeVisible();
    const inside = () => page.evaluate(() => !!document.activeElement?.closest('[data-testid="settings-dialog"]'));
    // Forward through every stop twice over, then backwards: focus never leaves the dialog.
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      expect(await inside(), `Tab ${i + 1}`).toBe(true);
      seen.add(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80) ?? ''));
    }
    expect([...seen].some((h) => h.includes('type="radio"'))).toBe(true);
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await inside(), `Shift+Tab ${i + 1}`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
  });
});
