//! Hostile input at every public entry point: typed errors, never a panic.

use candle_core::DType;
use nncore::params::ParamSet;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wl_transformer::io::{parse_atlas, parse_graph6, parse_sdf, to_graph6};
use wl_transformer::model::{EdgeTransformer, EtConfig, GtConfig, PeKind, TupleGraphTransformer};
use wl_transformer::pe::{LpeConfig, RrwpPowers, laplacian_pe, rrwp};
use wl_transformer::tokens::{TokenSet, atomic_type};
use wl_transformer::wl::{Variant, refine_pair, stable_colouring};
use wl_transformer::{Error, Graph, named};

#[test]
fn graph_errors_are_typed() {
    assert_eq!(
        Graph::from_edges(3, &[(0, 3)]),
        Err(Error::NodeOutOfRange { node: 3, n: 3 })
    );
    assert_eq!(Graph::from_edges(3, &[(1, 1)]), Err(Error::SelfLoop(1)));
    assert_eq!(
        Graph::from_edges(3, &[(0, 1), (1, 0)]),
        Err(Error::DuplicateEdge(0, 1))
    );
    let g = named::cycle(4).unwrap();
    assert!(matches!(
        g.permute(&[0, 1, 2]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        g.permute(&[0, 0, 1, 2]),
        Err(Error::DuplicateEdge(0, 0))
    ));
    assert!(matches!(named::cycle(2), Err(Error::BadParameter { .. })));
    assert!(matches!(
        named::cfi(&Graph::from_edges(2, &[]).unwrap(), true),
        Err(Error::BadParameter { .. })
    ));
}

#[test]
fn wl_and_token_errors_are_typed() {
    let g = named::cycle(5).unwrap();
    assert_eq!(TokenSet::all(3, 0), Err(Error::OrderZero));
    assert_eq!(
        TokenSet::connected(&g, 2, 3),
        Err(Error::BadComponentBound { s: 3, k: 2 })
    );
    assert_eq!(
        TokenSet::connected(&g, 2, 0),
        Err(Error::BadComponentBound { s: 0, k: 2 })
    );
    assert!(matches!(
        TokenSet::all(1000, 4),
        Err(Error::TooManyTuples { n: 1000, k: 4, .. })
    ));
    assert_eq!(
        refine_pair(&g, &g, Variant::Folklore { k: 0 }, None),
        Err(Error::OrderZero)
    );
    assert!(matches!(
        refine_pair(&g, &g, Variant::Local { k: 2, s: 5 }, None),
        Err(Error::BadComponentBound { .. })
    ));
    let big = Graph::from_edges(5000, &[]).unwrap();
    assert!(matches!(
        stable_colouring(&big, Variant::Oblivious { k: 3 }),
        Err(Error::TooManyTuples { .. })
    ));
    assert!(matches!(
        atomic_type(&g, &[0, 7]),
        Err(Error::NodeOutOfRange { node: 7, n: 5 })
    ));
}

#[test]
fn pe_and_model_errors_are_typed() {
    let g = named::cycle(5).unwrap();
    let null = Graph::from_edges(0, &[]).unwrap();
    assert_eq!(
        laplacian_pe(
            &g,
            LpeConfig {
                num_vecs: 0,
                ..LpeConfig::default()
            }
        ),
        Err(Error::NumVecsZero)
    );
    assert!(matches!(
        laplacian_pe(&null, LpeConfig::default()),
        Err(Error::Empty(_))
    ));
    assert_eq!(
        rrwp(&g, 0, RrwpPowers::Consecutive),
        Err(Error::NumVecsZero)
    );
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let bad_heads = GtConfig {
        heads: 3,
        ..GtConfig::small()
    };
    assert!(matches!(
        TupleGraphTransformer::new(&bad_heads, &mut ParamSet::new(), DType::F32, &mut rng),
        Err(Error::HeadsDoNotDivide { dim: 64, heads: 3 })
    ));
    assert!(matches!(
        TupleGraphTransformer::new(
            &GtConfig {
                order: 7,
                ..GtConfig::small()
            },
            &mut ParamSet::new(),
            DType::F32,
            &mut rng
        ),
        Err(Error::UnsupportedOrder(7))
    ));
    let small = GtConfig {
        max_degree: 3,
        layers: 1,
        ..GtConfig::small()
    };
    let m = TupleGraphTransformer::new(&small, &mut ParamSet::new(), DType::F32, &mut rng).unwrap();
    let star = named::complete_bipartite(1, 5).unwrap();
    assert_eq!(
        m.forward(&star).unwrap_err(),
        Error::DegreeOverflow { deg: 5, max: 3 }
    );
    assert!(matches!(m.forward(&null), Err(Error::Empty(_))));
    let labelled = g.with_node_labels(&[0, 1, 2, 3, 999]).unwrap();
    assert!(matches!(
        m.forward(&labelled),
        Err(Error::ShapeMismatch { .. })
    ));
    let spe_trunc = GtConfig {
        pe: PeKind::Lpe,
        num_vecs: None,
        ..GtConfig::small()
    };
    assert!(matches!(spe_trunc.check(), Err(Error::BadParameter { .. })));
    let et = EdgeTransformer::new(
        &EtConfig {
            layers: 1,
            ..EtConfig::small()
        },
        &mut ParamSet::new(),
        DType::F32,
        &mut rng,
    )
    .unwrap();
    assert!(matches!(et.forward(&null), Err(Error::Empty(_))));
    assert!(matches!(
        et.attention(0)
            .unwrap()
            .forward_naive(&ndarray::Array3::zeros((2, 3, 32))),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn parse_errors_carry_line_numbers() {
    assert!(matches!(
        parse_atlas("GRAPH 0\nNODES 2\n0 5\n"),
        Err(Error::Parse { line: 3, .. })
    ));
    assert!(matches!(
        parse_atlas("GRAPH 0\nNODES x\n"),
        Err(Error::Parse { line: 2, .. })
    ));
    assert!(matches!(
        parse_atlas("0 1\n"),
        Err(Error::Parse { line: 1, .. })
    ));
    assert!(matches!(
        parse_graph6("C~~"),
        Err(Error::Parse { line: 1, .. })
    ));
    assert!(matches!(parse_graph6(""), Err(Error::Empty(_))));
    let sdf = "m\n  prog\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n    0.0 0.0 0.0 C   0\n    0.0 0.0 0.0 Xx  0\n  1  2  1\nM  END\n$$$$\n";
    assert!(matches!(parse_sdf(sdf), Err(Error::Parse { line: 6, .. })));
}

/// networkx: `nx.to_graph6_bytes(nx.cycle_graph(5), header=False)` is `b"Dhc\n"`;
/// the Petersen graph is `IheA@GUAo`.
#[test]
fn graph6_known_values() {
    let c5 = named::cycle(5).unwrap();
    assert_eq!(to_graph6(&c5).unwrap(), "Dhc");
    assert_eq!(parse_graph6("Dhc").unwrap(), c5);
    let p = parse_graph6(">>graph6<<IheA@GUAo").unwrap();
    assert_eq!((p.n(), p.m()), (10, 15));
    assert!((0..10).all(|v| p.degree(v) == 3));
}

#[test]
fn sdf_reads_atoms_bonds_and_properties() {
    let sdf = "ethanol\n  prog\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0 0.0 0.0 C   0\n    1.0 0.0 0.0 C   0\n    2.0 0.0 0.0 O   0\n  1  2  1  0\n  2  3  1  0\nM  END\n> <SOL>\n1.1\n\n$$$$\n";
    let mols = parse_sdf(sdf).unwrap();
    assert_eq!(mols.len(), 1);
    assert_eq!(mols[0].graph.node_labels(), &[6, 6, 8]);
    assert_eq!(mols[0].graph.edge_label(1, 2), Some(1));
    assert_eq!(mols[0].property("SOL"), Some("1.1"));
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(2027), ..ProptestConfig::with_cases(256) })]

    /// Arbitrary edge lists, permutations, token requests and text never panic.
    #[test]
    fn hostile_inputs_never_panic(
        n in 0usize..12,
        edges in proptest::collection::vec((0usize..14, 0usize..14), 0..20),
        perm in proptest::collection::vec(0usize..14, 0..14),
        k in 0usize..5, s in 0usize..6,
        text in "\\PC{0,80}",
    ) {
        let _ = Graph::from_edges(n, &edges);
        if let Ok(g) = Graph::from_edges(n, &edges) {
            let _ = g.permute(&perm);
            let _ = TokenSet::connected(&g, k, s);
            let _ = refine_pair(&g, &g, Variant::Local { k, s }, Some(3));
            let _ = refine_pair(&g, &g, Variant::Folklore { k }, Some(2));
            let _ = stable_colouring(&g, Variant::OneWl);
            let _ = laplacian_pe(&g, LpeConfig { num_vecs: k, ..LpeConfig::default() });
            let _ = rrwp(&g, k, RrwpPowers::RepeatedSquaring);
            let _ = named::cfi(&g, s % 2 == 0);
        }
        let _ = parse_graph6(&text);
        let _ = parse_atlas(&text);
        let _ = parse_sdf(&text);
    }
}
