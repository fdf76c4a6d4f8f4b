// The repair order's header against the real backend: a VIN with a wrong
// check digit is refused with the reason, a real one is decoded (maker and
// model year), a correction is logged with who made it, and the unit's
// other visits are listed by VIN; the RO number's prefix set in Settings.
import { apiCall, expect, showSessionTab, test, unique } from './fixtures';

// A Ford E-450 cutaway, model year 2021 (check digit by the rule).
const VIN = '1FDXE4FN1MDC12345';

test('open an RO with a VIN, correct it, and see the change log and the earlier visit', async ({ page }) => {
  const first = unique('Awning motor dead');
  const second = unique('Fridge no LP');
  await page.goto('/');
  for (const complaint of [first, second]) {
    await page.getByTestId('new-session-button').click();
    await page.getByTestId('new-complaint').fill(complaint);
    await page.getByTestId('new-customer').fill('José Núñez');
    await page.getByTestId('new-vin').fill(complaint === first ? VIN : '1FDXE4FN2MDC12345');
    await page.getByTestId('create-session').click();
    if (complaint === second) {
      // The wrong check digit is refused with what is wrong, and nothing is created.
      await expect(page.getByTestId('new-session-error')).toContainText('check digit');
      await page.getByTestId('new-vin').fill(VIN);
      await page.getByTestId('new-customer-phone').fill('+1 (555) 010-2233');
      await page.getByTestId('new-odometer').fill('41200');
      await page.getByTestId('new-odometer-unit').selectOption('km');
      await page.getByTestId('create-session').click();
    }
    await expect(page.getByTestId('detail-complaint')).toHaveText(complaint);
  }

  // The unit card is a tab of the session's side panel, beside the chat.
  await showSessionTab(page, 'unit');
  await expect(page.getByTestId('detail-ro')).toHaveText(/^RO-\d{6}$/);
  await expect(page.getByTestId('detail-maker')).toHaveText('Ford');
  await expect(page.getByTestId('detail-year')).toHaveText('2021');
  await expect(page.getByTestId('detail-odometer')).toHaveText(/41,?200 km/);
  await expect(page.getByTestId('other-visit')).toHaveCount(1);
  await expect(page.getByTestId('other-visit')).toContainText(first);

  await page.getByTestId('edit-header').click();
  await page.getByTestId('edit-customer-email').fill('jose@');
  await page.getByTestId('edit-by').fill('Marta');
  await page.getByTestId('save-header').click();
  await expect(page.getByTestId('header-error')).toContainText('e-mail');
  await page.getByTestId('edit-customer-email').fill('jose.nunez@example.com');
  await page.getByTestId('edit-customer-phone').fill('');
  await page.getByTestId('save-header').click();
  await expect(page.getByTestId('detail-email')).toHaveText('jose.nunez@example.com');
  await expect(page.getByTestId('detail-phone')).toHaveText('—');
  await page.getByTestId('header-changes').locator('summary').click();
  const changes = page.getByTestId('header-change');
  await expect(changes).toHaveCount(2);
  await expect(page.locator('[data-testid="header-change"][data-field="customer_phone"]')).toContainText('Marta: Phone +1 (555) 010-2233 → —');
  await expect(page.locator('[data-testid="header-change"][data-field="customer_email"]')).toContainText('— → jose.nunez@example.com');
});

test('the RO number prefix is set in Settings; a bad one is refused with what is wrong', async ({ page, request }) => {
  await page.goto('/');
  try {
    await page.keyboard.press('Control+Comma');
    const money = page.getByTestId('settings-dialog').getByTestId('settings-money');
    await expect(money.getByTestId('settings-ro-prefix')).toHaveValue('RO-');
    await expect(money.getByTestId('settings-ro-prefix-hint')).toContainText('RO-000001');
    await money.getByTestId('settings-ro-prefix').fill('SVC1');
    await money.getByTestId('settings-money-save').click();
    await expect(money.getByTestId('settings-money-error')).toContainText('ro_prefix: "SVC1" ends in a digit');
    await expect(money.getByTestId('settings-ro-prefix')).toHaveAttribute('aria-invalid', 'true');
    await money.getByTestId('settings-ro-prefix').fill('SVC-');
    await expect(money.getByTestId('settings-ro-prefix-hint')).toContainText('SVC-000001');
    await money.getByTestId('settings-money-save').click();
    await expect(money.getByTestId('settings-money-note')).toHaveText('Repair order settings saved.');
    await page.keyboard.press('Escape');

    const complaint = unique('Slide stuck out');
    await page.getByTestId('new-session-button').click();
    await page.getByTestId('new-complaint').fill(complaint);
    await page.getByTestId('create-session').click();
    await expect(page.getByTestId('detail-complaint')).toHaveText(complaint);
    await showSessionTab(page, 'unit');
    await expect(page.getByTestId('detail-ro')).toHaveText(/^SVC-\d{6}$/);
  } finally {
    // One backend serves every spec: the others expect the default prefix.
    await apiCall(request, 'ro_settings', { ro_prefix: 'RO-' });
  }
});
