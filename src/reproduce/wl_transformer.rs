//! `wl-transformer`: the WL hierarchy on the paper's graph pairs and on the
//! graph atlas, and the random-weight separations of the (2,1)-GT+SPE,
//! (3,1)-GT+SPE and the Edge Transformer.

use crate::runner::{BoxError, Budget, Check, Context, Figure, Outcome, Relation, Reproduction};
use candle_core::DType;
use nncore::params::ParamSet;
use wl_transformer::Graph;
use wl_transformer::model::{EdgeTransformer, EtConfig, GtConfig, PeKind, TupleGraphTransformer};
use wl_transformer::named::{PAPER_TABLE, TABLE_BARE_T, TABLE_VARIANTS, table_pairs};
use wl_transformer::wl::{Variant, refine_pair, undistinguished_pairs};

/// The reproduction registered as `wl-transformer`.
pub struct WlTransformer;

/// Weight seeds per model and pair (the issue: 20).
const SEEDS: u64 = 20;

/// (model name, constructor, pairs it must separate, pairs it must not, its WL variant).
type Audit = (&'static str, Build, Vec<usize>, Vec<usize>, &'static str);

/// A model's forward pass (graph → output).
type Forward = Box<dyn Fn(&Graph) -> wl_transformer::Result<candle_core::Tensor>>;

/// A model under audit: its constructor from a weight seed.
type Build = fn(u64) -> Result<Forward, BoxError>;

fn gt_spe(order: usize, seed: u64) -> Result<Forward, BoxError> {
    let cfg = GtConfig {
        order,
        pe: PeKind::Spe,
        num_vecs: None,
        layers: 2,
        dim: 16,
        heads: 2,
        pe_dim: 16,
        ..GtConfig::small()
    };
    let mut rng = mlcore::sampling::seeded(seed);
    let m = TupleGraphTransformer::new(&cfg, &mut ParamSet::new(), DType::F64, &mut rng)?;
    Ok(Box::new(move |g| m.forward(g)))
}

fn gt21(seed: u64) -> Result<Forward, BoxError> {
    gt_spe(2, seed)
}

fn gt31(seed: u64) -> Result<Forward, BoxError> {
    gt_spe(3, seed)
}

fn et(seed: u64) -> Result<Forward, BoxError> {
    let cfg = EtConfig {
        layers: 4,
        dim: 16,
        heads: 2,
        ..EtConfig::small()
    };
    let mut rng = mlcore::sampling::seeded(seed);
    let m = EdgeTransformer::new(&cfg, &mut ParamSet::new(), DType::F64, &mut rng)?;
    Ok(Box::new(move |g| m.forward(g)))
}

/// Per seed: `|f(G₁) − f(G₂)|_∞` and `1 + |f(G₁)|_∞`.
fn separations(
    build: Build,
    g1: &Graph,
    g2: &Graph,
    base: u64,
) -> Result<Vec<(f64, f64)>, BoxError> {
    (0..SEEDS)
        .map(|s| {
            let f = build(base + s)?;
            let (y1, y2) = (f(g1)?, f(g2)?);
            let d = wl_transformer::model::max_abs_diff(&y1, &y2)?;
            let scale = 1.0 + y1.abs()?.flatten_all()?.max(0)?.to_scalar::<f64>()?;
            Ok((d, scale))
        })
        .collect()
}

impl Reproduction for WlTransformer {
    fn id(&self) -> &'static str {
        "wl-transformer"
    }

    fn paper(&self) -> &'static str {
        "Aligning Transformers with Weisfeiler–Leman (Müller & Morris, ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "The WL variants separate exactly the pairs of the paper's table, 1-WL leaves 26 graph-atlas pairs, and random-weight (2,1)/(3,1)-GT+SPE and the Edge Transformer separate what their WL variants separate and nothing beyond 2-FWL."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let mut checks = Vec::new();
        let mut figures = Vec::new();
        let mut notes = Vec::new();
        let pairs = table_pairs();
        ctx.set_steps(4);
        let clock = std::time::Instant::now();
        let lap = |what: &str, figures: &mut Vec<Figure>| {
            figures.push(Figure::new(
                format!("seconds: {what}"),
                clock.elapsed().as_secs_f64(),
            ));
        };

        // (i) The pair table.
        ctx.set_message("pair table");
        let mut wrong = 0usize;
        let mut cells = 0usize;
        for (r, row) in PAPER_TABLE.iter().enumerate() {
            let (name, g1, g2) = &pairs[r];
            for (c, cell) in row.iter().enumerate() {
                let bare = TABLE_BARE_T.contains(&(r, c));
                if cell.is_none() && !bare {
                    continue;
                }
                let o = refine_pair(g1, g2, TABLE_VARIANTS[c], None)?;
                cells += 1;
                let ok = match cell {
                    Some(expected) => o.iteration == *expected,
                    None => o.distinguished,
                };
                if !ok {
                    wrong += 1;
                    notes.push(format!(
                        "{name} under {}: got {:?}",
                        TABLE_VARIANTS[c].name(),
                        o.iteration
                    ));
                }
            }
        }
        figures.push(Figure::new("pair-table cells checked", cells as f64));
        checks.push(Check::new(
            format!("(i) pair-table cells differing from the spec ({cells} cells: every T@i, F and bare T)"),
            wrong as f64,
            Relation::AtMost,
            0.0,
            "paper/spec table of pairs (the WL hierarchy)",
        ));
        lap("pair table", &mut figures);
        ctx.step();

        // (ii) Graph atlas.
        ctx.set_message("graph atlas");
        let atlas = wl_transformer::io::vendored_atlas()?;
        figures.push(Figure::new("atlas graphs", atlas.len() as f64).with_target("1253"));
        let one_wl = undistinguished_pairs(&atlas, Variant::OneWl)?.len();
        checks.push(Check::new(
            "(ii) non-isomorphic atlas pairs 1-WL leaves undistinguished",
            one_wl as f64,
            Relation::Within(0.0),
            26.0,
            "networkx 3.6.1 weisfeiler_lehman_graph_hash on the same file (scripts/compare/wl_transformer.py)",
        ));
        let mut others = vec![
            Variant::Delta { k: 2 },
            Variant::DeltaLocal { k: 2 },
            Variant::Local { k: 2, s: 1 },
            Variant::Folklore { k: 2 },
        ];
        if ctx.budget() == Budget::Full {
            // (3,1)-LWL needs ~25 slow local rounds on the atlas (≈ 15 s).
            others.extend([
                Variant::Local { k: 3, s: 1 },
                Variant::Oblivious { k: 3 },
                Variant::Delta { k: 3 },
                Variant::Folklore { k: 3 },
            ]);
        }
        for v in others {
            let c = undistinguished_pairs(&atlas, v)?.len();
            figures.push(Figure::new(
                format!("atlas pairs left by {}", v.name()),
                c as f64,
            ));
        }
        lap("pair table + atlas", &mut figures);
        ctx.step();

        // (iii) Random-weight separations, f64. Separated: |Δ| > 1e-9·(1+|y|)
        // (spec P7's invariance tolerance); equal: |Δ| ≤ 1e-6 (spec).
        ctx.set_message("random-weight separations");
        let idx = |name: &str| pairs.iter().position(|p| p.0 == name).expect("pair");
        let (c6, k33, dec, shr, cfi3, cfi4) = (
            idx("C6 vs 2xC3"),
            idx("K3,3 vs prism"),
            idx("decalin vs bicyclopentyl"),
            idx("Shrikhande vs 4x4 rook"),
            idx("CFI(K3) vs twisted"),
            idx("CFI(K4) vs twisted"),
        );
        let models: [Audit; 3] = [
            (
                "(2,1)-GT+SPE",
                gt21,
                vec![c6, k33],
                vec![shr, cfi4],
                "(2,1)-LWL",
            ),
            (
                "(3,1)-GT+SPE",
                gt31,
                vec![c6, k33, shr],
                vec![],
                "(3,1)-LWL",
            ),
            ("ET", et, vec![c6, k33, dec, cfi3], vec![shr, cfi4], "2-FWL"),
        ];
        for (mi, (name, build, sep, eq, wl)) in models.into_iter().enumerate() {
            let base = ctx.seed().wrapping_add(1000 * mi as u64);
            let mut worst_sep = usize::MAX;
            for &p in &sep {
                let s = separations(build, &pairs[p].1, &pairs[p].2, base)?;
                let hits = s.iter().filter(|(d, sc)| *d > 1e-9 * sc).count();
                let min = s.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
                figures.push(
                    Figure::new(
                        format!("{name}: seeds separating {}", pairs[p].0),
                        hits as f64,
                    )
                    .with_target("≥ 19 of 20"),
                );
                figures.push(Figure::new(
                    format!("{name}: min |Δ| on {}", pairs[p].0),
                    min,
                ));
                worst_sep = worst_sep.min(hits);
            }
            checks.push(
                Check::new(
                    format!("(iii) {name}: fewest seeds (of 20) separating a pair {wl} separates"),
                    worst_sep as f64,
                    Relation::AtLeast,
                    19.0,
                    "paper (expressivity theorems; spec: ≥ 19/20 seeds)",
                )
                .with_seeds(SEEDS as usize),
            );
            if !eq.is_empty() {
                let mut worst = 0usize;
                let mut max_d = 0.0f64;
                for &p in &eq {
                    let s = separations(build, &pairs[p].1, &pairs[p].2, base)?;
                    worst = worst.max(s.iter().filter(|(d, _)| *d > 1e-6).count());
                    max_d = s.iter().fold(max_d, |m, x| m.max(x.0));
                }
                figures.push(
                    Figure::new(format!("{name}: max |Δ| on 2-FWL-equivalent pairs"), max_d)
                        .with_target("≤ 1e-6"),
                );
                checks.push(
                    Check::new(
                        format!("(iii) {name}: seeds with |Δ| > 1e-6 on the 2-FWL-equivalent pairs (Shrikhande/rook, CFI(K4))"),
                        worst as f64,
                        Relation::AtMost,
                        0.0,
                        "paper (SPE ≤ 2-FWL, ET ≡ 2-FWL; spec: equal ≤ 1e-6)",
                    )
                    .with_seeds(SEEDS as usize),
                );
            }
            lap(&format!("through {name}"), &mut figures);
        }
        ctx.step();

        // (iv) Solubility regression: not in this branch.
        checks.push(
            Check::new(
                "(iv) test MAE with LPE and with SPE < without PE (paired, ≥ 10 seeds)",
                f64::NAN,
                Relation::PValueBelow,
                0.05,
                "paper (PEs help on ZINC-like regression)",
            )
            .undecided(
                "the solubility SDF is not vendored and the regression is not implemented yet",
            ),
        );
        notes.push(
            "Finding: random-weight Edge Transformers (4 layers, d = 16, f64) separate CFI(K3) from its twisted copy only by |Δ| ≈ 1e-12..1e-9, below the 1e-9·(1+|y|) decision threshold (spec P7's invariance tolerance) though above the rounding floor of the 2-FWL-equivalent pairs (≈ 5e-13): 2-FWL needs 3 rounds there and the signal is damped by softmax averaging over n = 18 intermediate nodes.".into(),
        );
        notes.push(
            "Finding: random-weight (3,1)-GT+SPE gives equal outputs (|Δ| ≈ 1e-16) on Shrikhande vs 4×4 rook although (3,1)-LWL separates them at round 1: on these strongly regular graphs SPE's pooled node encodings are identical on every node, so random global attention sees no neighbourhoods.".into(),
        );
        ctx.step();
        Ok(Outcome {
            checks,
            figures,
            plots: Vec::new(),
            notes,
        })
    }
}
