// A breakdown's pieces, as a table and as a timeline over days and windows.
// Shared by the simulator and the fee verification.

import type { Piece } from '../api';
import {
  clock,
  dayLabel,
  formatMinutes,
  formatMoney,
  formatWall,
  pieceDescription,
  pieceLinesText,
  pieceTimeline,
  segmentTypeLabel,
  sumMoney,
  formatCents,
} from '../billing';
import { t as tr } from '../i18n';

const HOURS = [0, 3, 6, 9, 12, 15, 18, 21, 24];

/** A colour slot per segment index (the CSS has 6). */
const slot = (segmentIndex: number) => `seg-${segmentIndex % 6}`;

export function PieceTimeline({ pieces, entry, exit, label }: { pieces: Piece[]; entry?: string; exit?: string; label: string }) {
  const t = pieceTimeline(pieces, entry, exit);
  if (t.rows.length === 0) return <p className="muted small">{tr('breakdown.noTime')}</p>;
  return (
    <figure className="piece-timeline" aria-label={label} data-testid="piece-timeline">
      <ul className="timeline-legend" aria-label={tr('breakdown.windows')}>
        {t.legend.map((l) => (
          <li key={l.segmentIndex} data-testid="timeline-legend-item">
            <span className={`legend-swatch ${slot(l.segmentIndex)} type-${l.type}`} aria-hidden="true" />
            {l.segment} <span className="muted">{l.window.replace('-', '–')}</span> <span className="muted small">({segmentTypeLabel(l.type)})</span>
          </li>
        ))}
        <li>
          <span className="legend-swatch capped-swatch" aria-hidden="true" /> {tr('breakdown.capped')}
        </li>
      </ul>
      <div className="timeline-grid">
        <div className="timeline-axis" aria-hidden="true">
          <span className="timeline-day" />
          <div className="timeline-track axis">
            {HOURS.map((h) => (
              <span key={h} className="hour-tick" style={{ left: `${(h / 24) * 100}%` }}>
                {String(h).padStart(2, '0')}
              </span>
            ))}
          </div>
        </div>
        <ol className="timeline-rows">
          {t.rows.map((row) => (
            <li key={row.date} className="timeline-row" data-testid="timeline-row" data-date={row.date}>
              <span className="timeline-day">{dayLabel(row.date)}</span>
              <div className="timeline-track">
                {t.bands.map((b, i) => (
                  <span
                    key={`b${i}`}
                    className={`window-band ${slot(b.segmentIndex)} type-${b.type}`}
                    style={{ left: `${b.left}%`, width: `${b.width}%` }}
                    aria-hidden="true"
                  />
                ))}
                {HOURS.slice(1, -1).map((h) => (
                  <span key={`g${h}`} className="hour-line" style={{ left: `${(h / 24) * 100}%` }} aria-hidden="true" />
                ))}
                {row.bars.map((bar) => {
                  const p = pieces[bar.piece];
                  return (
                    <span
                      key={`${bar.piece}-${bar.fromMinute}`}
                      className={`piece-bar ${slot(p.segment_index)} type-${p.type}${p.cap_applied ? ' capped' : ''}${
                        bar.continuesBefore ? ' cont-before' : ''
                      }${bar.continuesAfter ? ' cont-after' : ''}`}
                      style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
                      title={pieceDescription(p)}
                      role="img"
                      aria-label={bar.labelled ? pieceDescription(p) : `${p.segment} continued, ${clock(bar.fromMinute)} to ${clock(bar.toMinute)}`}
                      data-testid="piece-bar"
                      data-piece={bar.piece}
                      data-capped={p.cap_applied ? 'true' : 'false'}
                      data-amount={p.amount}
                      data-from={clock(bar.fromMinute)}
                      data-to={clock(bar.toMinute)}
                    >
                      {bar.labelled && (
                        <span className="bar-label">
                          {formatMoney(p.amount)}
                          {p.cap_applied && <span className="cap-mark"> · {tr('breakdown.cap').toLowerCase()}</span>}
                        </span>
                      )}
                    </span>
                  );
                })}
                {t.entry?.date === row.date && (
                  <span className="stay-mark entry" style={{ left: `${t.entry.left}%` }} title={tr('breakdown.entry')} aria-hidden="true" />
                )}
                {t.exit?.date === row.date && <span className="stay-mark exit" style={{ left: `${t.exit.left}%` }} title={tr('breakdown.exit')} aria-hidden="true" />}
              </div>
            </li>
          ))}
        </ol>
      </div>
      {t.hiddenDays > 0 && (
        <figcaption className="muted small">
          {tr('breakdown.hiddenDays', { n: t.hiddenDays })}
        </figcaption>
      )}
    </figure>
  );
}

export function PieceTable({ pieces, total, caption }: { pieces: Piece[]; total: string; caption: string }) {
  const sum = sumMoney(pieces.map((p) => p.amount));
  return (
    <div className="table-scroll pieces-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table className="sources-table pieces-table" data-testid="piece-table">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{tr('breakdown.day')}</th>
            <th scope="col">{tr('breakdown.segment')}</th>
            <th scope="col">{tr('export.from')}</th>
            <th scope="col">{tr('export.to')}</th>
            <th scope="col" className="num">
              {tr('breakdown.time')}
            </th>
            <th scope="col" className="num">
              {tr('breakdown.units')}
            </th>
            <th scope="col">{tr('breakdown.pricing')}</th>
            <th scope="col" className="num">
              {tr('breakdown.beforeCap')}
            </th>
            <th scope="col" className="num">
              {tr('breakdown.cap')}
            </th>
            <th scope="col" className="num">
              {tr('breakdown.amount')}
            </th>
          </tr>
        </thead>
        <tbody>
          {pieces.map((p, i) => (
            <tr
              key={i}
              data-testid="piece-row"
              data-segment={p.segment}
              data-capped={p.cap_applied ? 'true' : 'false'}
              className={p.type === 'free' ? 'piece-free' : undefined}
            >
              <td className="nowrap">{p.occurrence}</td>
              <th scope="row" className="nowrap">
                {p.segment} <span className="muted small">{p.window}</span>
                <div className="muted small">{p.type}</div>
              </th>
              <td className="nowrap">{formatWall(p.start)}</td>
              <td className="nowrap">{formatWall(p.end)}</td>
              <td className="num nowrap">{formatMinutes(p.minutes)}</td>
              <td className="num">{p.units}</td>
              <td className="small">{pieceLinesText(p)}</td>
              <td className="num">{formatMoney(p.uncapped_amount)}</td>
              <td className="num">{p.cap ? formatMoney(p.cap) : '—'}</td>
              <td className="num amount" data-testid="piece-amount">
                {formatMoney(p.amount)}
                {p.cap_applied && (
                  <span className="badge capped-badge" data-testid="piece-capped" title={tr('breakdown.cappedTitle', { from: formatMoney(p.uncapped_amount), to: formatMoney(p.cap) })}>
                    {tr('breakdown.capped')}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={9}>
              {tr('breakdown.total', { n: pieces.length })}
            </th>
            <td className="num amount" data-testid="piece-total">
              {formatMoney(total)}
              {sum !== null && formatCents(sum) !== formatMoney(total) && (
                <span className="muted small" title={tr('breakdown.sumDiffers')}>
                  {' '}
                  ({tr('breakdown.pieces', { sum: formatCents(sum) })})
                </span>
              )}
            </td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
