import { afterEach, describe, expect, it } from 'vitest';
import { appError, installFakeBackend } from '../test/fakeBackend';
import { byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';
import { ShopSettings } from './ShopSettings';

let view: Rendered | null = null;

afterEach(() => {
  view?.unmount();
  view = null;
});

describe('the shop in Settings', () => {
  it('shows the stored name and address, saves changes, and names a refused field', async () => {
    let stored = { name: 'Sunbelt RV' as string | null, address: '1200 Desert Rd' as string | null, logo: null };
    let refuse = false;
    const backend = installFakeBackend({
      shop_settings: (p) => {
        if (refuse) throw appError('invalid_input', 'name: is 201 characters long; at most 200');
        stored = { ...stored, ...(p.name != null ? { name: p.name } : {}), ...(p.address != null ? { address: p.address } : {}) };
        return stored;
      },
    });
    view = render(<ShopSettings />);
    const root = view.container;
    const name = await waitFor(() => {
      const el = byTestId(root, 'settings-shop-name') as HTMLInputElement | null;
      return el && el.value === 'Sunbelt RV' ? el : null;
    });
    expect((byTestId(root, 'settings-shop-address') as HTMLTextAreaElement).value).toBe('1200 Desert Rd');
    typeInto(name, 'Sunbelt RV Service');
    typeInto(byTestId(root, 'settings-shop-address') as HTMLTextAreaElement, '1200 Desert Rd\nMesa, AZ 85201');
    click(byTestId(root, 'settings-shop-save'));
    await waitFor(() => byTestId(root, 'settings-shop-note')?.hidden === false);
    expect(byTestId(root, 'settings-shop-note')!.textContent).toBe('Shop saved.');
    expect(backend.callsOf('shop_settings').at(-1)).toEqual({ name: 'Sunbelt RV Service', address: '1200 Desert Rd\nMesa, AZ 85201' });

    refuse = true;
    click(byTestId(root, 'settings-shop-save'));
    const err = await waitFor(() => byTestId(root, 'settings-shop-error'));
    expect(err.textContent).toContain('at most 200');
  });
});
