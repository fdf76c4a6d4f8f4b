//! The labor draft of an isolated finding: shown, adjusted, confirmed or skipped
//! (D5, D6); never a condition for the report.

use super::*;

impl<'a> Turn<'a> {
    pub(super) fn labor_draft(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let Some(f) = self.isolated(p) else {
            return self.boundary("CONFIRMATION", phrases(&self.lang()).no_labor_yet);
        };
        if self.st.labor.status == LaborStatus::None {
            self.st.labor.status = LaborStatus::Draft;
        }
        self.st.labor.estimated_hours = Some(fmt_tenths(f.labor_tenths()));
        let lang = self.lang();
        let l = phrases(&lang);
        let total = self.labor_tenths(&f);
        let mut text = format!("{}:\n", l.labor_draft);
        for (task, t) in report::labor_lines(&f, total, &lang) {
            text.push_str(&format!("- {task}: {} {}\n", fmt_tenths(t), l.hr));
        }
        text.push_str(&format!("= {} {}\n{}", fmt_tenths(total), l.hr, l.offer));
        (
            "LABOR_REQUEST",
            TransitionId::D5LaborDraft,
            Reply {
                kind: ReplyKind::LaborDraft,
                text,
                step_id: None,
                citations: vec![format!("procedure:{}#{}", p.system, f.id)],
            },
        )
    }

    pub(super) fn labor_tenths(&self, f: &crate::catalog::Finding) -> u32 {
        self.st
            .labor
            .confirmed_hours
            .as_deref()
            .and_then(crate::catalog::parse_tenths)
            .unwrap_or_else(|| f.labor_tenths())
    }

    pub(super) fn labor_update(
        &mut self,
        p: &'a Procedure,
        status: LaborStatus,
        tenths: Option<u32>,
    ) -> (&'static str, TransitionId, Reply) {
        let Some(f) = self.isolated(p) else {
            return self.boundary("CONFIRMATION", phrases(&self.lang()).no_labor_yet);
        };
        let l = phrases(&self.lang());
        let text = match status {
            LaborStatus::Skipped => {
                self.st.labor.status = LaborStatus::Skipped;
                self.st.labor.confirmed_hours = None;
                format!(
                    "{} ({} {}).",
                    l.labor_skipped,
                    fmt_tenths(f.labor_tenths()),
                    l.hr
                )
            }
            _ => {
                let t = tenths.unwrap_or_else(|| f.labor_tenths());
                self.st.labor.status = LaborStatus::Confirmed;
                self.st.labor.confirmed_hours = Some(fmt_tenths(t));
                format!("{}: {} {}.", l.labor_confirmed, fmt_tenths(t), l.hr)
            }
        };
        self.trace.push(format!(
            "labor {:?} {:?}",
            self.st.labor.status, self.st.labor.confirmed_hours
        ));
        (
            "CONFIRMATION",
            TransitionId::D6LaborUpdate,
            Reply {
                kind: ReplyKind::Answer,
                text,
                step_id: None,
                citations: vec![],
            },
        )
    }
}
