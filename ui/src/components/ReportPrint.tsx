// Printing a final report from the app. The revision is laid out as a sheet
// (the shop's letterhead, the repair order and unit, the report's sections)
// in a part of the page only print shows, and the page itself is printed:
// the browser's dialog under `servicedesk serve`, the webview's in the
// desktop app. The top-level page is printed rather than the PDF in a frame,
// because WebKitGTK shows no PDF in a frame and macOS's webview ignores
// print() called on a frame.
import { useEffect } from 'react';
import { createPortal } from 'react-dom';
import { api } from '../api';
import { formatTimestamp } from '../files';
import { t } from '../i18n';
import { ReportText } from './ReportText';

/** What a printed report shows, gathered before the dialog opens. */
export interface PrintJob {
  revision: number;
  finalizedAt: string;
  body: string;
  roNumber: string;
  customer: string | null;
  technician: string | null;
  unit: { vin: string | null; plate: string | null; makeModel: string | null; odometer: number | null };
  shopName: string | null;
  shopAddress: string | null;
}

/** Reads the revision as exported (JSON), the RO number and the shop's letterhead. */
export async function loadPrintJob(sessionId: string, revision: number): Promise<PrintJob> {
  const [exported, order, shop] = await Promise.all([
    api.reportExport(sessionId, revision, 'json'),
    api.roShow(sessionId),
    api.shopSettings({}),
  ]);
  const doc = JSON.parse(exported.content);
  return {
    revision: doc.revision,
    finalizedAt: doc.finalized_at,
    body: doc.body,
    roNumber: order.ro_number,
    customer: doc.customer ?? null,
    technician: doc.technician ?? null,
    unit: {
      vin: doc.unit?.vin ?? null,
      plate: doc.unit?.plate_no ?? null,
      makeModel: doc.unit?.make_model ?? null,
      odometer: doc.unit?.odometer ?? null,
    },
    shopName: shop.name ?? null,
    shopAddress: shop.address ?? null,
  };
}

/**
 * The sheet, outside the app's root (so print can hide everything else),
 * and the print dialog once it is on the page. `onDone` runs when printing
 * is over (`afterprint`), which takes the sheet away again.
 */
export function PrintSheet({ job, onDone }: { job: PrintJob; onDone: () => void }) {
  useEffect(() => {
    document.body.classList.add('printing');
    const done = () => onDone();
    window.addEventListener('afterprint', done);
    // One frame later the sheet is laid out; print() then sees it.
    const frame = requestAnimationFrame(() => window.print());
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('afterprint', done);
      document.body.classList.remove('printing');
    };
  }, [job, onDone]);

  const rows: [string, string | null][] = [
    [t('unit.ro'), job.roNumber],
    [t('unit.customer'), job.customer],
    [t('unit.makeModel'), job.unit.makeModel],
    [t('unit.vin'), job.unit.vin],
    [t('unit.plate'), job.unit.plate],
    [t('unit.odometer'), job.unit.odometer != null ? job.unit.odometer.toLocaleString() : null],
    [t('unit.technician'), job.technician],
  ];
  return createPortal(
    <article className="print-sheet" data-testid="print-sheet">
      {(job.shopName || job.shopAddress) && (
        <header className="print-letterhead" data-testid="print-letterhead">
          {job.shopName && <strong>{job.shopName}</strong>}
          {job.shopAddress && <div className="print-address">{job.shopAddress}</div>}
        </header>
      )}
      <h1>{t('print.title')}</h1>
      <p className="print-revision" data-testid="print-revision">
        {t('print.revision', { revision: job.revision, when: formatTimestamp(job.finalizedAt) })}
      </p>
      <dl className="print-header">
        {rows
          .filter(([, v]) => v)
          .map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
      </dl>
      <ReportText text={job.body} testId="print-report" />
    </article>,
    document.body,
  );
}
