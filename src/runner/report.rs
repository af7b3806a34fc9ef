//! The printed table and the Markdown report.

use super::{Budget, Record, plot};
use std::fmt::Write as _;
use std::path::Path;

fn figures(record: &Record) -> String {
    match &record.outcome {
        Ok(o) => o
            .figures
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        Err(e) => format!("run failed: {e}"),
    }
}

fn verdict(record: &Record) -> &'static str {
    if record.held() { "held" } else { "NOT held" }
}

/// Markdown table cell: no pipes or newlines.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The summary table: crate, paper, claim, measured figures, held or not.
pub fn table(records: &[Record]) -> String {
    let mut s = String::from(
        "| crate | paper | claim | measured | held | time |\n|---|---|---|---|---|---|\n",
    );
    for r in records {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.1} s |",
            r.id,
            cell(r.paper),
            cell(r.claim),
            cell(&figures(r)),
            verdict(r),
            r.elapsed.as_secs_f64()
        );
    }
    let held = records.iter().filter(|r| r.held()).count();
    let _ = writeln!(s, "\n{held} of {} claims held.", records.len());
    s
}

/// Writes `index.md` and the SVG plots (`<id>.svg`, `<id>-2.svg`, …).
pub fn write(records: &[Record], budget: Budget, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut md = format!(
        "# icml24 reproduction report\n\nBudget: `{budget}`.\n\n{}\n",
        table(records)
    );
    for r in records {
        let _ = write!(
            md,
            "\n## {}\n\n*{}*\n\n**Claim.** {}\n\n**Verdict.** {} ({:.1} s)\n\n",
            r.id,
            r.paper,
            r.claim,
            verdict(r),
            r.elapsed.as_secs_f64()
        );
        match &r.outcome {
            Err(e) => {
                let _ = writeln!(md, "The run failed: {e}");
            }
            Ok(o) => {
                for f in &o.figures {
                    let _ = writeln!(md, "- {f}");
                }
                for n in &o.notes {
                    let _ = writeln!(md, "\n> {n}");
                }
                for (i, p) in o.plots.iter().enumerate() {
                    let file = if i == 0 {
                        format!("{}.svg", r.id)
                    } else {
                        format!("{}-{}.svg", r.id, i + 1)
                    };
                    plot::draw(p, &dir.join(&file))
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                    let _ = writeln!(md, "\n![{}]({file})", cell(&p.title));
                }
            }
        }
    }
    std::fs::write(dir.join("index.md"), md)
}
