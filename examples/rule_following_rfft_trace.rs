//! The paper's RFFT example, 59 + 13: prints the rule-following prompt and
//! target, the compact rule trace, verifies it, and shows the verifier
//! naming the first wrong step of a trace that forgets the carry.
//!
//! Run: `cargo run --release --example rule_following_rfft_trace`.

use rule_following::format::Format;
use rule_following::rule::{interpret_compact, trace, verify_compact};
use rule_following::task::Task;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let task = Task::PAPER_ADDITION;
    let sample = task.sample(59, 13)?;
    let rfft = Format::Rfft.render(&task, &sample)?;
    println!("--- RFFT prompt ---\n{}", rfft.prompt);
    println!("--- RFFT target ---\n{}\n", rfft.target);
    let t = trace(&[5, 9], &[1, 3], 10)?;
    let text = t.compact_text();
    println!("--- compact rule trace ---\n{text}\n");
    let v = verify_compact(&[5, 9], &[1, 3], 10, &text)?;
    println!(
        "verified: {} (answer {:?}); interpreter: {}",
        v.is_valid(),
        v.stated_answer,
        interpret_compact(&text, 10)?
    );
    assert!(v.is_valid() && t.answer() == "72");
    let wrong = "9+3+0=12\n5+1+0=06\n=62";
    let v = verify_compact(&[5, 9], &[1, 3], 10, wrong)?;
    println!(
        "corrupted trace {wrong:?}: first bad step {:?}: {}",
        v.first_bad_step,
        v.reason.unwrap_or_default()
    );
    assert_eq!(v.first_bad_step, Some(1));
    Ok(())
}
