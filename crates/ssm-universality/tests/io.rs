//! `.ts` and CSV readers: the vendored files parse to the archive's documented
//! counts, and malformed text names its line.

use ssm_universality::Error;
use ssm_universality::io::{read_csv_series, read_ts};

fn vendored(dir: &str, file: &str) -> String {
    mlcore::data::Dataset::open(mlcore::data::workspace_data_dir().join(dir))
        .unwrap()
        .read_to_string(file)
        .unwrap()
}

/// ItalyPowerDemand 67/1029 × 24, GunPoint 50/150 × 150, 2 classes each;
/// JapaneseVowels 270/370 with 12 channels, lengths 7–29, 9 classes (archive documentation).
#[test]
fn vendored_ucr_counts() {
    for (name, train, test, len, classes) in [
        ("ItalyPowerDemand", 67, 1029, 24, 2),
        ("GunPoint", 50, 150, 150, 2),
    ] {
        let tr = read_ts(&vendored("ucr", &format!("{name}_TRAIN.ts.gz"))).unwrap();
        let te = read_ts(&vendored("ucr", &format!("{name}_TEST.ts.gz"))).unwrap();
        assert_eq!((tr.series.len(), te.series.len()), (train, test), "{name}");
        assert!(
            tr.series
                .iter()
                .chain(&te.series)
                .all(|s| s.dim() == (len, 1))
        );
        assert_eq!(tr.class_labels.len(), classes);
        assert_eq!(tr.problem_name, name);
    }
    let jv = read_ts(&vendored("ucr", "JapaneseVowels_TRAIN.ts.gz")).unwrap();
    assert_eq!(
        (jv.series.len(), jv.channels(), jv.class_labels.len()),
        (270, 12, 9)
    );
    let lens: Vec<usize> = jv.series.iter().map(|s| s.nrows()).collect();
    assert_eq!(
        (*lens.iter().min().unwrap(), *lens.iter().max().unwrap()),
        (7, 26)
    );
    let jt = read_ts(&vendored("ucr", "JapaneseVowels_TEST.ts.gz")).unwrap();
    assert_eq!(jt.series.len(), 370);
    // First GunPoint value, from the file's text.
    let gp = read_ts(&vendored("ucr", "GunPoint_TRAIN.ts.gz")).unwrap();
    assert_eq!(gp.series[0][[0, 0]], -0.6478854);
}

/// The sunspot series: 309 yearly values 1700–2008, first 5, 11, 16, 23.
#[test]
fn vendored_sunspots() {
    let text = vendored("sunspots", "sunspots.csv.gz");
    let s = read_csv_series(&text, "SUNACTIVITY").unwrap();
    assert_eq!(s.len(), 309);
    assert_eq!(&s.as_slice().unwrap()[..4], &[5.0, 11.0, 16.0, 23.0]);
    let years = read_csv_series(&text, "YEAR").unwrap();
    assert_eq!((years[0], years[308]), (1700.0, 2008.0));
}

fn line_of(e: Error) -> usize {
    match e {
        Error::Parse { line, .. } => line,
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn malformed_ts_names_the_line() {
    let head = "# c\n@problemName X\n@univariate true\n@classLabel true a b\n@data\n";
    assert_eq!(
        line_of(read_ts(&format!("{head}1,2,3:a\n1,x,3:b\n")).unwrap_err()),
        7
    );
    assert_eq!(
        line_of(read_ts(&format!("{head}1,?,3:a\n")).unwrap_err()),
        6
    );
    assert_eq!(
        line_of(read_ts(&format!("{head}1,2,3:c\n")).unwrap_err()),
        6
    );
    assert_eq!(
        line_of(read_ts(&format!("{head}1,2:3,4:a\n")).unwrap_err()),
        6
    );
    assert_eq!(
        line_of(read_ts("@problemName X\n@bogus 1\n").unwrap_err()),
        2
    );
    assert_eq!(line_of(read_ts("@classLabel true a\n").unwrap_err()), 1);
    assert_eq!(
        line_of(read_ts("@classLabel true a\n@data\n").unwrap_err()),
        2
    );
    assert_eq!(line_of(read_ts("@timeStamps true\n").unwrap_err()), 1);
    assert_eq!(line_of(read_ts("1,2,3\n").unwrap_err()), 1);
    let ok = read_ts(&format!("{head}1,2,3:a\n4,5,6:b\n")).unwrap();
    assert_eq!(ok.labels, vec![0, 1]);
    assert_eq!(ok.series[1][[2, 0]], 6.0);
}

#[test]
fn malformed_csv_names_the_line() {
    assert_eq!(
        line_of(read_csv_series("a,b\n1,2\n3,x\n", "b").unwrap_err()),
        3
    );
    assert_eq!(
        line_of(read_csv_series("a,b\n1,2\n3\n", "b").unwrap_err()),
        3
    );
    assert_eq!(line_of(read_csv_series("a,b\n1,2\n", "c").unwrap_err()), 1);
    assert_eq!(line_of(read_csv_series("", "c").unwrap_err()), 1);
    assert_eq!(line_of(read_csv_series("a\nNaN\n", "a").unwrap_err()), 2);
    assert!(matches!(
        read_csv_series("a,b\n", "a"),
        Err(Error::EmptySequence { .. })
    ));
}
