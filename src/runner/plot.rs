//! SVG plots with plotters.

use super::{Plot, SeriesStyle};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use std::ops::Range;
use std::path::Path;

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// The data range of the drawable points, padded by 5 % (or ±1 when flat).
fn range(values: impl Iterator<Item = f64>, log: bool) -> Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return if log { 0.1..10.0 } else { 0.0..1.0 };
    }
    if log {
        let (l, h) = (lo.log10(), hi.log10());
        let pad = ((h - l) * 0.05).max(0.1);
        10f64.powf(l - pad)..10f64.powf(h + pad)
    } else {
        let pad = if hi > lo {
            (hi - lo) * 0.05
        } else {
            lo.abs().max(1.0)
        };
        (lo - pad)..(hi + pad)
    }
}

fn drawable(p: &Plot) -> Vec<Vec<(f64, f64)>> {
    p.series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .copied()
                .filter(|&(x, y)| {
                    x.is_finite() && y.is_finite() && (!p.log_x || x > 0.0) && (!p.log_y || y > 0.0)
                })
                .collect()
        })
        .collect()
}

/// Draws `p` to an SVG file at `path`.
pub fn draw(p: &Plot, path: &Path) -> DrawResult {
    let pts = drawable(p);
    let xr = range(pts.iter().flatten().map(|q| q.0), p.log_x);
    let yr = range(pts.iter().flatten().map(|q| q.1), p.log_y);
    let root = SVGBackend::new(path, (800, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(&p.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64);
    // The four axis-scale combinations have different coordinate types.
    match (p.log_x, p.log_y) {
        (false, false) => series(p, &pts, builder.build_cartesian_2d(xr, yr)?),
        (true, false) => series(p, &pts, builder.build_cartesian_2d(xr.log_scale(), yr)?),
        (false, true) => series(p, &pts, builder.build_cartesian_2d(xr, yr.log_scale())?),
        (true, true) => series(
            p,
            &pts,
            builder.build_cartesian_2d(xr.log_scale(), yr.log_scale())?,
        ),
    }?;
    root.present()?;
    Ok(())
}

fn series<'a, X, Y>(
    p: &Plot,
    pts: &[Vec<(f64, f64)>],
    mut chart: ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 13))
        .draw()?;
    for (i, (s, points)) in p.series.iter().zip(pts).enumerate() {
        let color = Palette99::pick(i).to_rgba();
        match s.style {
            SeriesStyle::Line => chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(s.label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                }),
            SeriesStyle::Points => chart
                .draw_series(points.iter().map(|&q| Circle::new(q, 3, color.filled())))?
                .label(s.label.as_str())
                .legend(move |(x, y)| Circle::new((x + 9, y), 3, color.filled())),
        };
    }
    if !p.series.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    Ok(())
}
