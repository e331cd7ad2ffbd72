//! Writes of OpenLineage events: each stored once, merged into its run; and of runs as
//! given (a restore).

use lore_core::model::{LineageEvent, LineageRun};

use crate::state::set_entry;

use super::{Tx, Undo};

impl Tx<'_> {
    /// Stores the event unless one of its digest is stored, and merges a run event into
    /// its run ([`LineageRun::merge`]).
    pub(super) fn put_lineage_event(&mut self, event: LineageEvent) {
        if self.state.lineage_events.contains_key(&event.digest) {
            return;
        }
        if let (Some(run_id), Some(_)) = (&event.run_id, event.event_type) {
            let old = self.state.lineage_runs.get(run_id).cloned();
            let run = match old.clone() {
                Some(mut run) => {
                    run.merge(&event);
                    Some(run)
                }
                None => LineageRun::of(&event),
            };
            if run != old {
                set_entry(&mut self.state.lineage_runs, run_id.clone(), run);
                self.undo.push(Undo::LineageRun(run_id.clone(), old));
            }
        }
        let digest = event.digest.clone();
        self.state.set_lineage_event(digest.clone(), Some(event));
        self.undo.push(Undo::LineageEvent(digest));
    }

    /// Writes the run as given, replacing the stored one of its id.
    pub(super) fn put_lineage_run(&mut self, run: LineageRun) {
        let run_id = run.run_id.clone();
        let old = set_entry(&mut self.state.lineage_runs, run_id.clone(), Some(run));
        self.undo.push(Undo::LineageRun(run_id, old));
    }
}
