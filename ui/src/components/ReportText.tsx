import { reportSections } from '../chat';

/** A report as preformatted text, one block per section (Complaint, Cause, …). */
export function ReportText({ text, testId }: { text: string; testId?: string }) {
  const sections = reportSections(text);
  return (
    <div className="report-text" data-testid={testId}>
      {sections.map((s, i) =>
        s.divider ? (
          <h5 key={i} className="report-divider" data-testid="report-divider">
            {s.title}
          </h5>
        ) : (
          <section key={i} className="report-section" data-testid="report-section" data-title={s.title ?? ''}>
            {s.title && <h5>{s.title}</h5>}
            <pre>{s.body}</pre>
          </section>
        ),
      )}
    </div>
  );
}
