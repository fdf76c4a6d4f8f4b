import { apiCall, createSession, expect, rowFor, showSessionTab, test, unique } from './fixtures';

test('header shows the app name and version; the data dir and how it runs are in About', async ({ page, request }) => {
  const info = await apiCall(request, 'app_info');
  await page.goto('/');
  await expect(page.getByTestId('app-name')).toHaveText('RV Service Desk');
  await expect(page.getByTestId('app-version')).toHaveText(`v${info.version}`);
  // No path or transport badge in the header a technician looks at all day.
  await expect(page.getByTestId('app-header')).not.toContainText(info.data_dir);
  await expect(page.getByTestId('app-header')).not.toContainText('Browser');
  await page.getByTestId('open-about').click();
  const about = page.getByTestId('about-dialog');
  await expect(about.getByTestId('app-data-dir')).toHaveText(info.data_dir);
  await expect(about.getByTestId('app-transport')).toHaveText('Browser');
  await page.keyboard.press('Escape');
  await expect(about).toHaveCount(0);
  await expect(page.getByTestId('open-about')).toBeFocused();
});

test('creating a session through the form shows it in the list and opens it', async ({ page, request }) => {
  const complaint = unique('Furnace blows cold air');
  await page.goto('/');
  await page.getByTestId('new-session-button').click();
  await page.getByTestId('new-complaint').fill(complaint);
  await page.getByTestId('new-customer').fill('Jane Doe');
  await page.getByTestId('new-technician').fill('Sam');
  await page.getByTestId('new-language').selectOption('es');
  await page.getByTestId('new-vin').fill('1fuja6cv94lm12345');
  await page.getByTestId('new-plate').fill('7abc123');
  await page.getByTestId('new-make-model').fill('Winnebago View 24D');
  await page.getByTestId('new-odometer').fill('41250');
  await page.getByTestId('new-engine-hours').fill('812.5');
  await page.getByTestId('create-session').click();

  const row = rowFor(page, complaint);
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('row-customer')).toHaveText('Jane Doe');
  await expect(row.getByTestId('row-unit')).toHaveText('Winnebago View 24D');
  await expect(row.getByTestId('status-badge')).toHaveText('Open');
  await expect(row.getByTestId('row-photos')).toHaveText('0 photos');
  await expect(row.getByTestId('row-updated')).toContainText('Updated');
  // Newest first: the new session is the top row of the unfiltered list.
  await expect(page.getByTestId('session-row').first()).toContainText(complaint);

  // It is selected, and the detail shows what the backend stored.
  await expect(page.getByTestId('detail-complaint')).toHaveText(complaint);
  await expect(page.getByTestId('detail-vin')).toHaveText('1FUJA6CV94LM12345');
  await expect(page.getByTestId('detail-plate')).toHaveText('7ABC123');
  await expect(page.getByTestId('detail-odometer')).toHaveText(/41,?250 mi/);
  await expect(page.getByTestId('detail-engine-hours')).toHaveText('812.5 h');
  await expect(page.getByTestId('detail-language')).toHaveText('Español');
  await expect(page.getByTestId('turns-empty')).toBeVisible();
  // Opening the new session puts the cursor in the chat input.
  await expect(page.getByTestId('chat-input')).toBeFocused();
  await showSessionTab(page, 'photos');
  await expect(page.getByTestId('photos-empty')).toBeVisible();

  const { sessions } = await apiCall(request, 'session_list', { query: complaint });
  expect(sessions).toHaveLength(1);
  expect(sessions[0]).toMatchObject({
    customer: 'Jane Doe',
    technician: 'Sam',
    language: 'es',
    unit: { odometer: 41250, engine_hours: 812.5, make_model: 'Winnebago View 24D' },
  });
});

test('an empty complaint is refused inline and nothing is created', async ({ page, request }) => {
  const before = (await apiCall(request, 'app_info')).sessions;
  await page.goto('/');
  await page.getByTestId('new-session-button').click();
  await page.getByTestId('new-customer').fill('No Complaint Customer');
  await page.getByTestId('new-complaint').fill('   ');
  await page.getByTestId('create-session').click();
  await expect(page.getByTestId('complaint-error')).toHaveText(/Complaint is required/);
  await expect(page.getByTestId('new-complaint')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('new-session-form')).toBeVisible();
  expect((await apiCall(request, 'app_info')).sessions).toBe(before);

  // Typing a complaint clears the error and creating works.
  const complaint = unique('Water heater pilot will not stay lit');
  await page.getByTestId('new-complaint').fill(complaint);
  await expect(page.getByTestId('complaint-error')).toHaveCount(0);
  await page.getByTestId('create-session').click();
  await expect(rowFor(page, complaint)).toHaveCount(1);
});

test('search narrows the list (debounced, server side) and the status filter applies', async ({ page, request }) => {
  const tag = unique('zq').replace(' ', '');
  const alpha = `Slide-out stuck ${tag}`;
  const bravo = `Awning motor dead ${tag}`;
  await createSession(request, { complaint: alpha, customer: 'Ann Alpha' });
  await createSession(request, { complaint: bravo, customer: 'Bob Bravo', plate: `P${tag}` });

  await page.goto('/');
  await expect(rowFor(page, alpha)).toHaveCount(1);
  await expect(rowFor(page, bravo)).toHaveCount(1);

  await page.getByTestId('session-search').fill(tag);
  await expect(page.getByTestId('session-row')).toHaveCount(2);

  await page.getByTestId('session-search').fill(`Slide-out stuck ${tag}`);
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  await expect(rowFor(page, alpha)).toHaveCount(1);

  // Matches customer and plate too (the backend's search).
  await page.getByTestId('session-search').fill('Bob Bravo');
  await expect(rowFor(page, bravo)).toHaveCount(1);
  await expect(rowFor(page, alpha)).toHaveCount(0);
  await page.getByTestId('session-search').fill(`p${tag}`);
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  await expect(rowFor(page, bravo)).toHaveCount(1);

  await page.getByTestId('session-search').fill(`nothing-matches-${tag}`);
  await expect(page.getByTestId('session-row')).toHaveCount(0);
  await expect(page.getByTestId('sessions-empty')).toBeVisible();

  // Status filter: both are open.
  await page.getByTestId('session-search').fill(tag);
  await expect(page.getByTestId('session-row')).toHaveCount(2);
  await page.getByTestId('status-filter').selectOption('finalized');
  await expect(page.getByTestId('session-row')).toHaveCount(0);
  await page.getByTestId('status-filter').selectOption('escalated');
  await expect(page.getByTestId('session-row')).toHaveCount(0);
  await page.getByTestId('status-filter').selectOption('open');
  await expect(page.getByTestId('session-row')).toHaveCount(2);
  await page.getByTestId('status-filter').selectOption('all');
  await page.getByTestId('session-search').fill('');
  await expect(rowFor(page, alpha)).toHaveCount(1);
  await expect(rowFor(page, bravo)).toHaveCount(1);
});

test('a backend error is shown to the user (session deleted elsewhere)', async ({ page, request }) => {
  const complaint = unique('Generator surges under load');
  const s = await createSession(request, { complaint });
  await page.goto('/');
  await page.getByTestId('session-search').fill(complaint);
  // The search's own answer, not the unfiltered list it replaces (where the newest row shows too):
  // otherwise that answer can arrive after the delete and take the row away before the click.
  await expect(page.getByTestId('sessions-count')).toHaveText('1 session match');
  await expect(rowFor(page, complaint)).toHaveCount(1);
  await apiCall(request, 'session_delete', { session_id: s.id });
  await rowFor(page, complaint).click();
  const err = page.getByTestId('detail-error');
  await expect(err).toBeVisible();
  await expect(err).toHaveAttribute('data-code', 'not_found');
  await expect(err).toContainText(`session ${s.id} not found`);
});
