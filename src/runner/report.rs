//! The printed table, `report.md` and `report.json`.

use super::{Budget, CheckStatus, Record, Status, format_value, plot};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;

/// Markdown table cell: no pipes or newlines.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `pass`, `FAIL: why`, `incomplete: why`.
fn check_status_text(s: &CheckStatus) -> String {
    match s {
        CheckStatus::Pass => "pass".into(),
        CheckStatus::Fail(None) => "FAIL".into(),
        CheckStatus::Fail(Some(why)) => format!("FAIL: {why}"),
        CheckStatus::Incomplete(why) => format!("incomplete: {why}"),
    }
}

fn status_text(s: &Status) -> String {
    match s {
        Status::Held => "held".into(),
        Status::NotHeld => "NOT held".into(),
        Status::Incomplete => "incomplete".into(),
        Status::Error(_) => "ERROR".into(),
    }
}

/// `k/n checks pass` or the error.
fn summary(record: &Record) -> String {
    match &record.outcome {
        Err(e) => format!("error: {e}"),
        Ok(o) => {
            let pass = o
                .checks
                .iter()
                .filter(|c| c.evaluate() == CheckStatus::Pass)
                .count();
            let open = o
                .checks
                .iter()
                .filter(|c| matches!(c.evaluate(), CheckStatus::Incomplete(_)))
                .count();
            let mut s = format!("{pass}/{} checks pass", o.checks.len());
            if open > 0 {
                let _ = write!(s, ", {open} undecided");
            }
            if o.checks.is_empty() {
                s.push_str(" (no checks declared)");
            }
            s
        }
    }
}

/// The summary table: crate, claim, checks, status, time.
pub fn table(records: &[Record]) -> String {
    let mut s = String::from("| crate | claim | checks | status | time |\n|---|---|---|---|---|\n");
    for r in records {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.1} s |",
            r.id,
            cell(r.claim),
            cell(&summary(r)),
            status_text(&r.status()),
            r.elapsed.as_secs_f64()
        );
    }
    let count = |f: fn(&Status) -> bool| records.iter().filter(|r| f(&r.status())).count();
    let _ = writeln!(
        s,
        "\n{} of {} held, {} not held, {} incomplete, {} error.",
        count(|s| *s == Status::Held),
        records.len(),
        count(|s| *s == Status::NotHeld),
        count(|s| *s == Status::Incomplete),
        count(|s| matches!(s, Status::Error(_))),
    );
    s
}

/// Creates the report folder and makes sure it is writable (a usage error otherwise).
pub fn prepare(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(".write-test");
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(probe)
}

fn plot_file(id: &str, i: usize) -> String {
    if i == 0 {
        format!("{id}.svg")
    } else {
        format!("{id}-{}.svg", i + 1)
    }
}

/// The report as Markdown.
fn markdown(records: &[Record], budget: Budget) -> String {
    let mut md = format!(
        "# icml24 reproduction report\n\nBudget: `{budget}`. Statuses: **held** (every check passes), \
         **not held** (a check fails), **incomplete** (no check fails, but one cannot be decided at \
         this budget or with this data), **error** (the run failed or panicked).\n\n{}\n",
        table(records)
    );
    for r in records {
        let _ = write!(
            md,
            "\n## {}\n\n*{}*\n\n**Claim.** {}\n\n**Status.** {} ({:.1} s)\n\n",
            r.id,
            r.paper,
            r.claim,
            status_text(&r.status()),
            r.elapsed.as_secs_f64()
        );
        match &r.outcome {
            Err(e) => {
                let _ = writeln!(md, "The run failed: {e}");
            }
            Ok(o) => {
                if !o.checks.is_empty() {
                    md.push_str(
                        "| check | measured | relation | source | status |\n|---|---|---|---|---|\n",
                    );
                    for c in &o.checks {
                        let _ = writeln!(
                            md,
                            "| {} | {} | {} | {} | {} |",
                            cell(&c.name),
                            cell(&c.describe_value()),
                            cell(&c.relation.describe(c.threshold)),
                            cell(&c.source),
                            cell(&check_status_text(&c.evaluate()))
                        );
                    }
                    md.push('\n');
                }
                for f in &o.figures {
                    let _ = writeln!(md, "- {f}");
                }
                for n in &o.notes {
                    let _ = writeln!(md, "\n> {n}");
                }
                for (i, p) in o.plots.iter().enumerate() {
                    let _ = writeln!(md, "\n![{}]({})", cell(&p.title), plot_file(r.id, i));
                }
            }
        }
    }
    md
}

fn number(v: f64) -> Value {
    // Non-finite numbers have no JSON form: null, with the text beside it.
    if v.is_finite() { json!(v) } else { Value::Null }
}

/// The report as JSON: every reproduction with its status, and every check
/// with value, interval, seeds, relation, threshold, source and status.
pub fn to_json(records: &[Record], budget: Budget) -> Value {
    let reproductions: Vec<Value> = records
        .iter()
        .map(|r| {
            let status = r.status();
            let mut obj = json!({
                "id": r.id,
                "paper": r.paper,
                "claim": r.claim,
                "status": status.label(),
                "seconds": r.elapsed.as_secs_f64(),
            });
            match &r.outcome {
                Err(e) => {
                    obj["error"] = json!(e);
                }
                Ok(o) => {
                    obj["checks"] = o
                        .checks
                        .iter()
                        .map(|c| {
                            let st = c.evaluate();
                            let reason = match &st {
                                CheckStatus::Pass | CheckStatus::Fail(None) => Value::Null,
                                CheckStatus::Fail(Some(w)) | CheckStatus::Incomplete(w) => json!(w),
                            };
                            json!({
                                "name": c.name,
                                "value": number(c.value),
                                "value_text": format_value(c.value),
                                "interval": c.interval.map(|(lo, hi)| vec![number(lo), number(hi)]),
                                "seeds": c.seeds,
                                "relation": c.relation.key(),
                                "tolerance": match c.relation {
                                    super::Relation::Within(t) => number(t),
                                    _ => Value::Null,
                                },
                                "threshold": number(c.threshold),
                                "relation_text": c.relation.describe(c.threshold),
                                "source": c.source,
                                "status": st.key(),
                                "reason": reason,
                            })
                        })
                        .collect();
                    obj["figures"] = o
                        .figures
                        .iter()
                        .map(|f| json!({"name": f.name, "value": number(f.value), "target": f.target}))
                        .collect();
                    obj["notes"] = json!(o.notes);
                    obj["plots"] = (0..o.plots.len()).map(|i| json!(plot_file(r.id, i))).collect();
                }
            }
            obj
        })
        .collect();
    json!({
        "budget": budget.to_string(),
        "exit_code": super::exit_code(records),
        "reproductions": reproductions,
    })
}

/// Writes `report.md`, `report.json` and the SVG plots (`<id>.svg`, `<id>-2.svg`, …).
/// Each file is written to a temporary name and renamed, so a reader never
/// sees half a report.
pub fn write(records: &[Record], budget: Budget, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for r in records {
        if let Ok(o) = &r.outcome {
            for (i, p) in o.plots.iter().enumerate() {
                plot::draw(p, &dir.join(plot_file(r.id, i)))
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
        }
    }
    let json = serde_json::to_string_pretty(&to_json(records, budget))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    atomic_write(&dir.join("report.json"), json.as_bytes())?;
    atomic_write(&dir.join("report.md"), markdown(records, budget).as_bytes())
}

fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(tmp, path)
}
