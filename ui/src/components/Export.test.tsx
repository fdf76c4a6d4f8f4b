import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExportWorkspace } from './ExportWorkspace';
import { fakeExport, installFakeBackend, listed, makeSession, type Handlers } from '../test/fakeBackend';
import { byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';

let view: Rendered | null = null;

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
});

function mount(handlers: Handlers) {
  const backend = installFakeBackend({
    session_list: () => ({ sessions: [makeSession({ technician: 'Sam' }), makeSession({ technician: 'Ana' }), makeSession({ technician: 'Sam' })].map((s) => listed(s)) }),
    ...handlers,
  });
  view = render(<ExportWorkspace />);
  return { backend, root: view.container };
}

describe('manager export workspace', () => {
  it('starts an export for a range and technician, shows progress, then the download link', async () => {
    const job = fakeExport(4);
    const { root, backend } = mount(job.handlers);
    await waitFor(() => root.querySelectorAll('datalist option').length === 2);
    expect(Array.from(root.querySelectorAll('datalist option')).map((o) => o.getAttribute('value'))).toEqual(['Ana', 'Sam']);
    typeInto(byTestId(root, 'export-from')!, '2026-11-01');
    typeInto(byTestId(root, 'export-to')!, '2026-11-30');
    typeInto(byTestId(root, 'export-technician')!, 'Sam');
    click(byTestId(root, 'export-start'));
    await waitFor(() => backend.callsOf('reports_export_start').length === 1);
    expect(backend.callsOf('reports_export_start')[0]).toEqual({ from: '2026-11-01', to: '2026-11-30', technician: 'Sam' });

    await waitFor(() => byTestId(root, 'export-result')!.dataset.state === 'running');
    expect(byTestId(root, 'export-start')!.hasAttribute('disabled')).toBe(true);
    job.advance(1);
    await waitFor(() => byTestId(root, 'export-count')!.textContent === '1 of 4 reports');
    expect((byTestId(root, 'export-progress') as HTMLProgressElement).value).toBeCloseTo(0.25);
    job.advance(3);
    const link = await waitFor(() => byTestId(root, 'export-download') as HTMLAnchorElement | null);
    expect(link.getAttribute('href')).toBe('/exports/job-1.zip');
    expect(link.getAttribute('download')).toBe('reports-2026-11-01-2026-11-30.zip');
    expect(byTestId(root, 'export-start')!.hasAttribute('disabled')).toBe(false);
  });

  it('shows the saved path (desktop) and a failed job', async () => {
    const job = fakeExport(1, { download_url: null, path: '/home/sam/Downloads/reports.zip' });
    const { root } = mount(job.handlers);
    click(await waitFor(() => byTestId(root, 'export-start')));
    await waitFor(() => byTestId(root, 'export-result')!.dataset.state === 'running');
    job.advance(1);
    const path = await waitFor(() => byTestId(root, 'export-path'));
    expect(path.textContent).toBe('/home/sam/Downloads/reports.zip');
    expect(byTestId(root, 'export-download')).toBeNull();

    click(byTestId(root, 'export-start'));
    await waitFor(() => byTestId(root, 'export-result')!.dataset.state === 'running');
    job.fail('disk full');
    const failed = await waitFor(() => byTestId(root, 'export-failed'));
    expect(failed.textContent).toContain('disk full');
  });

  it('catches a reversed range next to the field, and shows a backend error next to the form', async () => {
    const { root, backend } = mount({
      reports_export_start: () => {
        throw { code: 'unknown_command', message: 'unknown command "reports_export_start"' };
      },
    });
    typeInto(await waitFor(() => byTestId(root, 'export-from')), '2026-12-01');
    typeInto(byTestId(root, 'export-to')!, '2026-11-01');
    click(byTestId(root, 'export-start'));
    expect(byTestId(root, 'export-to-error')!.textContent).toBe('The last day is before the first day.');
    expect(byTestId(root, 'export-to')!.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('reports_export_start')).toEqual([]);
    typeInto(byTestId(root, 'export-to')!, '2026-12-31');
    click(byTestId(root, 'export-start'));
    const err = await waitFor(() => byTestId(root, 'export-start-error'));
    expect(err.dataset.code).toBe('unknown_command');
  });
});
