//! What is settled once a case's clean case is known: a case whose faults never acted
//! and that broke only what the clean case broke, and `ignores-unknown` blamed for a
//! crash the clean case shares. The runner settles each result as it comes
//! ([`Settling`]), so each is told once, as it stands in the end.

use std::collections::BTreeSet;

use super::{broke_the_client, never_acted, Property, Verdict};
use crate::run::{Case, CaseResult, CaseSource};

/// A clean case's result: the baseline of the cases of its source and format that
/// have faults.
#[derive(Clone)]
pub(crate) struct Baseline {
    source: CaseSource,
    format: crate::format::OutputFormat,
    name: String,
    verdicts: Vec<Verdict>,
}

impl Baseline {
    /// The baseline a result gives: a clean case's that ran.
    fn of(result: &CaseResult) -> Option<Baseline> {
        (result.case.faults.is_empty() && result.not_run.is_none()).then(|| Baseline {
            source: result.case.source.clone(),
            format: result.case.format,
            name: result.case.name.clone(),
            verdicts: result.verdicts.clone(),
        })
    }

    fn of_case(&self, case: &Case) -> bool {
        self.source == case.source && self.format == case.format
    }
}

/// What is settled once a case's clean case is known ([`unknown_not_blamed`],
/// [`unfired_as_clean`]), settled as the results come: a failed result whose clean
/// case is in the run and has not ended yet is held until it has, so each result is
/// told once, as it stands in the end.
pub(crate) struct Settling {
    /// The source and format of each clean case of the run that has not ended.
    awaited: Vec<(CaseSource, crate::format::OutputFormat)>,
    baselines: Vec<Baseline>,
    held: Vec<(usize, CaseResult)>,
}

impl Settling {
    /// For a run of `cases`.
    pub(crate) fn new(cases: &[Case]) -> Settling {
        Settling {
            awaited: cases
                .iter()
                .filter(|c| c.faults.is_empty())
                .map(|c| (c.source.clone(), c.format))
                .collect(),
            baselines: Vec::new(),
            held: Vec::new(),
        }
    }

    /// The result of case `index` has come: the results that can be told now, each
    /// with its index, settled.
    pub(crate) fn arrive(&mut self, index: usize, result: CaseResult) -> Vec<(usize, CaseResult)> {
        if !result.case.faults.is_empty() && result.failed() && self.awaits(&result.case) {
            self.held.push((index, result));
            return Vec::new();
        }
        let mut ready = Vec::new();
        if result.case.faults.is_empty() {
            let key = (result.case.source.clone(), result.case.format);
            if let Some(at) = self.awaited.iter().position(|k| *k == key) {
                self.awaited.remove(at);
            }
            self.baselines.extend(Baseline::of(&result));
            let held = std::mem::take(&mut self.held);
            let (now, still): (Vec<_>, Vec<_>) = held.into_iter().partition(|(_, r)| !self.awaits(&r.case));
            self.held = still;
            ready.extend(now);
        }
        ready.insert(0, (index, result));
        for (_, result) in &mut ready {
            settle(result, &self.baselines);
        }
        ready
    }

    /// The results still held once every case has run (a clean case whose result
    /// never came), settled by what there is.
    pub(crate) fn rest(mut self) -> Vec<(usize, CaseResult)> {
        for (_, result) in &mut self.held {
            settle(result, &self.baselines);
        }
        self.held
    }

    fn awaits(&self, case: &Case) -> bool {
        self.awaited
            .iter()
            .any(|(source, format)| *source == case.source && *format == case.format)
    }
}

/// Both settlements of one result by the baselines known.
fn settle(result: &mut CaseResult, baselines: &[Baseline]) {
    unknown_not_blamed(result, baselines);
    unfired_as_clean(result, baselines);
}

/// Takes back the broken verdicts of a case whose faults never acted (so it played as
/// the clean case) where the clean case of the same source and format, in the same
/// run, broke each of those properties too: the failure is the clean case's, reported
/// there, and not one of the faults'. The case is then not applicable, and says why. A
/// run without the clean case (`--filter`) keeps the verdicts.
fn unfired_as_clean(result: &mut CaseResult, baselines: &[Baseline]) {
    if !result.failed() {
        return;
    }
    let Some(why) = never_acted(&result.case, &result.outcome) else {
        return;
    };
    let broken = |verdicts: &[Verdict]| -> BTreeSet<String> {
        verdicts
            .iter()
            .filter(|v| !v.held)
            .map(|v| v.name.clone())
            .collect()
    };
    let own = broken(&result.verdicts);
    let baseline = baselines
        .iter()
        .find(|b| b.of_case(&result.case) && own.is_subset(&broken(&b.verdicts)));
    if let Some(baseline) = baseline {
        result.verdicts.retain(|v| v.held);
        result.not_applicable = Some(format!(
            "{why}; it broke only what {} broke (told there)",
            baseline.name
        ));
    }
}

/// Takes back `ignores-unknown` where its only evidence was a crash or a run that did
/// not end (not the unknown thing named in the output), and the clean case of the
/// same source, in the same run, broke each of those properties too: the consumer
/// fails that way without anything unknown, so the unknown line is not shown to be the
/// cause. The broken property stays the other verdict's to tell. A run without the
/// clean case (`--filter`) keeps the verdict: there is nothing to compare with.
fn unknown_not_blamed(result: &mut CaseResult, baselines: &[Baseline]) {
    let broke = |verdicts: &[Verdict], p: Property| verdicts.iter().any(|v| !v.held && v.name == p.name());
    let blamed = result.verdicts.iter().position(|v| {
        !v.held
            && v.name == Property::IgnoresUnknown.name()
            && v.detail == broke_the_client(result.case.dialect)
    });
    let Some(at) = blamed else { return };
    let Some(baseline) = baselines.iter().find(|b| b.of_case(&result.case)) else {
        return;
    };
    let as_without = [Property::NoCrash, Property::Ends]
        .into_iter()
        .filter(|p| broke(&result.verdicts, *p))
        .all(|p| broke(&baseline.verdicts, p));
    if as_without {
        result.verdicts.remove(at);
    }
}
