//! Vision-only ICP against vision + touch ICP on synthetic in-hand frames:
//! the vendored pybullet meshes held by the MuJoCo Shadow Hand (92 touch
//! sensors) at random joint angles, seen by a 128×128 depth camera from a
//! random direction, both methods started from the same start perturbed by
//! ≤ 15° / 2 cm. Prints, per method, the ADD-S AUC (continuous rule,
//! τ_max = 0.1 m), ADD-S < 2 cm and ADD < 0.1·d, pooled and by occlusion.
//!
//! `cargo run --release --example vint_pose_synthetic_inhand [frames per object]`
//! (default 8, i.e. 192 frames over the 24 objects).

use mlcore::data::{Dataset, workspace_data_dir};
use ndarray::Array1;
use vint_pose::inhand::{
    FrameResult, InHandConfig, ObjectModel, ShadowHand, load_meshes, run_frame,
};
use vint_pose::metrics::{
    ADD_S_THRESHOLD, AUC_MAX_THRESHOLD, AucRule, DIAMETER_FRACTION, accuracy_below, auc,
};

fn summary(label: &str, rows: &[(FrameResult, f64)]) -> Result<(), vint_pose::Error> {
    if rows.is_empty() {
        println!("{label:<22} (no frames)");
        return Ok(());
    }
    let col = |f: &dyn Fn(&FrameResult) -> f64| Array1::from_iter(rows.iter().map(|(r, _)| f(r)));
    let (sv, sf) = (col(&|r| r.add_s_vision), col(&|r| r.add_s_fused));
    // ADD relative to each frame's object diameter: ADD/d < 0.1.
    let rel =
        |f: &dyn Fn(&FrameResult) -> f64| Array1::from_iter(rows.iter().map(|(r, d)| f(r) / d));
    let (av, af) = (rel(&|r| r.add_vision), rel(&|r| r.add_fused));
    println!(
        "{label:<22} n={:<4} start {:.3} AUC vision {:.3}  touch {:.3} | ADD-S<2cm {:.3} / {:.3} | ADD<0.1d {:.3} / {:.3}",
        rows.len(),
        auc(
            col(&|r| r.add_s_start).view(),
            AUC_MAX_THRESHOLD,
            AucRule::Continuous
        )?,
        auc(sv.view(), AUC_MAX_THRESHOLD, AucRule::Continuous)?,
        auc(sf.view(), AUC_MAX_THRESHOLD, AucRule::Continuous)?,
        accuracy_below(sv.view(), ADD_S_THRESHOLD)?,
        accuracy_below(sf.view(), ADD_S_THRESHOLD)?,
        accuracy_below(av.view(), DIAMETER_FRACTION)?,
        accuracy_below(af.view(), DIAMETER_FRACTION)?,
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let frames: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(8);
    let data = workspace_data_dir();
    let hand = ShadowHand::from_dataset(&Dataset::open(data.join("shadow-hand"))?)?;
    let meshes = load_meshes(&Dataset::open(data.join("meshes"))?)?;
    let mut cfg = InHandConfig::default();
    if std::env::args().nth(2).as_deref() == Some("zone-centre") {
        cfg.sensor.contact_model = vint_pose::synth::ContactModel::ZoneCentre;
    }
    let mut rng = mlcore::sampling::seeded(7);
    let mut all = Vec::new();
    println!(
        "{} hand DOF, {} touch sensors, {} objects, {frames} frames each",
        hand.model.dof(),
        hand.n_touch(),
        meshes.len()
    );
    for (name, mesh) in meshes {
        let obj = ObjectModel::new(&name, mesh, cfg.model_points, cfg.surface_samples, &mut rng)?;
        let rows: Vec<(FrameResult, f64)> = (0..frames)
            .map(|_| run_frame(&hand, &obj, &cfg, &mut rng).map(|r| (r, obj.diameter)))
            .collect::<Result<_, _>>()?;
        summary(&name, &rows)?;
        all.extend(rows);
    }
    println!();
    summary("pooled", &all)?;
    for (lo, hi, label) in [
        (0.0, 1.0 / 3.0, "occlusion < 1/3"),
        (1.0 / 3.0, 2.0 / 3.0, "occlusion 1/3–2/3"),
        (2.0 / 3.0, 1.01, "occlusion ≥ 2/3"),
    ] {
        let sub: Vec<_> = all
            .iter()
            .copied()
            .filter(|(r, _)| r.occlusion >= lo && r.occlusion < hi)
            .collect();
        summary(label, &sub)?;
    }
    let mean_contacts =
        all.iter().map(|(r, _)| r.n_contacts as f64).sum::<f64>() / all.len() as f64;
    let mean_visual = all.iter().map(|(r, _)| r.n_visual as f64).sum::<f64>() / all.len() as f64;
    println!("mean visible points {mean_visual:.0}, mean contacts {mean_contacts:.1}");
    Ok(())
}
