// A technician on a tablet takes photos with its camera: the capture inputs
// of the chat and the photo gallery. Headless Chromium has no camera app, so
// the photo is handed to the capture input the way the camera app hands it.
import { createHash } from 'node:crypto';
import { apiCall, createSession, expect, FIXTURE_JPEG, fixtureJpegBytes, openSession, showSessionTab, test, unique } from './fixtures';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test.describe('tablet', () => {
  test.use({ viewport: { width: 768, height: 1024 }, hasTouch: true });

  test('a photo taken with the camera goes with a chat message and into the gallery, byte for byte', async ({ page, request }) => {
    const complaint = unique('Water heater will not light');
    const s = await createSession(request, { complaint });
    await openSession(page, complaint);

    // The camera button is a real touch target, and its input asks for the rear camera.
    const camera = page.getByTestId('chat-camera');
    await expect(camera).toBeVisible();
    expect((await camera.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await expect(page.getByTestId('chat-camera-input')).toHaveAttribute('capture', 'environment');
    await expect(page.getByTestId('chat-camera-input')).toHaveAttribute('accept', 'image/*');

    await page.getByTestId('chat-camera-input').setInputFiles(FIXTURE_JPEG);
    await expect(page.getByTestId('chat-pick')).toHaveAttribute('data-name', 'photo_exif.jpg');
    await page.getByTestId('chat-input').fill('burner tube sooted, photo attached');
    await page.getByTestId('chat-input').press('Enter');
    await expect(page.getByTestId('chat-turn')).toHaveCount(1);
    await expect(page.getByTestId('chat-turn').getByTestId('turn-photo')).toHaveCount(1);

    await showSessionTab(page, 'photos');
    await expect(page.getByTestId('take-photo')).toBeVisible();
    await page.getByTestId('photo-camera-input').setInputFiles({ name: 'camera.jpg', mimeType: 'image/jpeg', buffer: fixtureJpegBytes() });
    await expect(page.getByTestId('upload-item').filter({ hasText: 'camera.jpg' })).toHaveAttribute('data-status', 'done');

    // What was stored is the camera's photo unchanged.
    const { artifacts } = await apiCall(request, 'artifact_list', { session_id: s.id });
    expect(artifacts.map((a: { sha256: string }) => a.sha256)).toEqual([sha256(fixtureJpegBytes()), sha256(fixtureJpegBytes())]);
  });
});

test('on a desktop window the camera buttons stay out of the way (Attach photo is there)', async ({ page, request }) => {
  const complaint = unique('Awning will not extend');
  await createSession(request, { complaint });
  await openSession(page, complaint);
  await expect(page.getByTestId('chat-attach')).toBeVisible();
  await expect(page.getByTestId('chat-camera')).toBeHidden();
});
