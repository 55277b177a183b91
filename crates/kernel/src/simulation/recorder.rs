//! A trajectory recorder: rows of numbers (one per output time), compared column by column
//! with a reference the way Siconos' `ioMatrix::compareRefFile` does.

/// Rows of equal length, e.g. `t, q, v, p, λ` per step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectory {
    columns: usize,
    data: Vec<f64>,
}

impl Trajectory {
    /// An empty trajectory of `columns` columns.
    pub fn new(columns: usize) -> Self {
        Self { columns, data: Vec::new() }
    }

    /// A trajectory from rows (all of the same length; `None` otherwise).
    pub fn from_rows(rows: Vec<Vec<f64>>) -> Option<Self> {
        let columns = rows.first().map_or(0, Vec::len);
        if rows.iter().any(|r| r.len() != columns) {
            return None;
        }
        Some(Self { columns, data: rows.into_iter().flatten().collect() })
    }

    /// Appends a row.
    ///
    /// # Panics
    /// When the row's length is not the number of columns.
    #[track_caller]
    pub fn push(&mut self, row: &[f64]) {
        assert_eq!(row.len(), self.columns, "a trajectory row has {} columns", self.columns);
        self.data.extend_from_slice(row);
    }

    /// Number of columns.
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.data.len().checked_div(self.columns).unwrap_or(0)
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.columns..(i + 1) * self.columns]
    }

    /// Iterator over the rows.
    pub fn iter_rows(&self) -> impl Iterator<Item = &[f64]> {
        self.data.chunks(self.columns.max(1))
    }

    /// `max_{i,j} |self[i][j] − other[i][j]|` (Siconos' `compareRefFile`), or `None` when the
    /// shapes differ.
    pub fn max_abs_difference(&self, other: &Trajectory) -> Option<f64> {
        if self.columns != other.columns || self.data.len() != other.data.len() {
            return None;
        }
        Some(self.data.iter().zip(&other.data).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max))
    }

    /// Formats the rows as Siconos writes `.ref` files: `%.15e` numbers, each followed by one
    /// space, one row per line (no header).
    pub fn to_ref_string(&self) -> String {
        let mut out = String::with_capacity(self.data.len() * 23);
        for row in self.iter_rows() {
            for &x in row {
                push_c_scientific(&mut out, x);
                out.push(' ');
            }
            out.push('\n');
        }
        out
    }
}

/// Appends `x` as C's `printf("%.15e")` writes it (`-1.234000000000000e-05`): Rust's `{:.15e}`
/// omits the exponent's sign and padding.
fn push_c_scientific(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str(&format!("{x}"));
        return;
    }
    let s = format!("{x:.15e}");
    let (mantissa, exponent) = s.split_once('e').expect("`{:e}` output has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponent is an integer");
    let sign = if exponent < 0 { '-' } else { '+' };
    out.push_str(&format!("{mantissa}e{sign}{:02}", exponent.abs()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_scientific_format() {
        let t = Trajectory::from_rows(vec![vec![0.0, -1.5e-5, 8.4366, 1e100]]).expect("one row");
        assert_eq!(
            t.to_ref_string(),
            "0.000000000000000e+00 -1.500000000000000e-05 8.436600000000000e+00 1.000000000000000e+100 \n"
        );
    }
}
