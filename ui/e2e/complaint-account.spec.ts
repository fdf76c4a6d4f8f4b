// What the complaint says of a check is the customer's account: the real
// engine records nothing from it, and the context panel shows it on its step
// as said, to confirm, until the technician confirms it.
import { createSession, expect, openSession, test, unique } from './fixtures';

test("a complaint's 'blower doesnt even come on' is shown to confirm on its step, and a yes records it", async ({ page, request }) => {
  const complaint = unique('Furnace no heat');
  await createSession(request, { complaint, customer: 'Pat Lee' });
  await openSession(page, complaint);

  const input = page.getByTestId('chat-input');
  const turns = page.getByTestId('chat-turn');
  await input.fill('furnace wont heat, blower doesnt even come on per cust');
  await input.press('Enter');
  await expect(turns).toHaveCount(1);
  await expect(page.getByTestId('context-system')).toContainText('LP furnace');
  const blower = page.locator('[data-testid="context-step"][data-step-id="fur_blower_runs"]');
  await expect(blower.getByTestId('step-reported')).toHaveText('Said, to confirm: no');
  await expect(blower).toHaveAttribute('data-status', 'open');

  await input.fill('12.5 at the board');
  await input.press('Enter');
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(1).getByTestId('chat-reply')).toContainText('Per the complaint, furnace blower start: no. Is that what you find?');
  await expect(blower).toHaveAttribute('data-status', 'active');
  await expect(blower.getByTestId('step-reported')).toHaveText('Said, to confirm: no');

  await input.fill('yep');
  await input.press('Enter');
  await expect(turns).toHaveCount(3);
  await expect(blower).toHaveAttribute('data-status', 'completed');
  await expect(blower.getByTestId('step-reported')).toHaveCount(0);
});
