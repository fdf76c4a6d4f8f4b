// WCAG 2.2 AA by axe-core on every workspace, in both themes and the three
// interface languages: no serious or critical violation. The session
// workspace is checked with a diagnosed session open (chat, report, steps),
// the others as a person first sees them.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { createSession, diagnoseToReport, expect, openSession, showSessionTab, test, unique } from './fixtures';

const THEMES = ['light', 'dark'] as const;
const LOCALES = ['en', 'es', 'ru'] as const;
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The serious and critical violations on the page as it is now: per rule, how many nodes, the first three. */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(WCAG_TAGS)
    // Experimental in axe, so off by default: a control whose accessible name does not contain its visible text
    // (WCAG 2.5.3, label in name) cannot be spoken to by voice control.
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}, ${v.nodes.length} nodes): ` +
        v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1).join(' ').trim()}`)
          .join(' | '),
    );
}

let complaint = '';

test.beforeAll(async ({ request }) => {
  complaint = unique('Roof vent fan dead a11y');
  const s = await createSession(request, { complaint, customer: 'Ana Accesible' });
  await diagnoseToReport(request, s.id);
});

for (const theme of THEMES) {
  for (const locale of LOCALES) {
    test(`no serious or critical violation: ${theme} theme, ${locale}`, async ({ page }, testInfo) => {
      // Ten axe runs over full pages: about 25 s on an idle 2-core machine, several times that when it is busy.
      test.setTimeout(300_000);
      await page.addInitScript(
        ([l, th]) => {
          window.localStorage.setItem('servicedesk.locale', l);
          window.localStorage.setItem('servicedesk.theme', th);
        },
        [locale, theme],
      );
      await openSession(page, complaint);
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await expect(page.locator('html')).toHaveAttribute('lang', locale);
      await expect(page.getByTestId('report-preview')).toBeVisible();

      const found: Record<string, string[]> = {};
      found['sessions: chat and progress'] = await seriousViolations(page);
      await showSessionTab(page, 'unit');
      found['sessions: unit'] = await seriousViolations(page);
      await showSessionTab(page, 'photos');
      found['sessions: photos'] = await seriousViolations(page);
      await page.getByTestId('new-session-button').click();
      found['sessions: new session form'] = await seriousViolations(page);

      await page.getByTestId('nav-knowledge').click();
      await expect(page.getByTestId('source-row').first()).toBeVisible();
      // With search results: highlighted words on tinted rows.
      await page.getByTestId('knowledge-query').fill('warranty');
      await page.getByTestId('knowledge-query').press('Enter');
      await expect(page.getByTestId('search-result').first()).toBeVisible();
      found.knowledge = await seriousViolations(page);

      await page.getByTestId('nav-billing').click();
      await expect(page.getByTestId('rule-row').first()).toBeVisible();
      // A version's payload open, and a simulation drawn as its timeline.
      await page.locator('[data-testid="rule-row"][data-rule-code="SH-DAYNIGHT-STD"]').getByTestId('version-bar').first().click();
      const sim = page.getByTestId('billing-simulator');
      await sim.getByTestId('sim-rule').selectOption('SH-DAYNIGHT-STD');
      await sim.getByTestId('sim-entry').fill('2026-02-10T10:00');
      await sim.getByTestId('sim-exit').fill('2026-02-13T09:10');
      await sim.getByTestId('sim-run').click();
      await expect(sim.getByTestId('sim-total')).toBeVisible();
      found.billing = await seriousViolations(page);

      await page.getByTestId('nav-export').click();
      await expect(page.locator('#workspace-export')).toBeVisible();
      found.export = await seriousViolations(page);

      await page.getByTestId('open-settings').click();
      await expect(page.getByTestId('settings-dialog')).toBeVisible();
      found.settings = await seriousViolations(page);
      await page.keyboard.press('Escape');

      await page.getByTestId('open-about').click();
      await expect(page.getByTestId('about-dialog')).toBeVisible();
      found.about = await seriousViolations(page);
      await page.keyboard.press('Escape');

      await page.screenshot({ path: testInfo.outputPath(`a11y-${theme}-${locale}.png`) });
      const failing = Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
      expect(failing).toEqual({});
    });
  }
}
