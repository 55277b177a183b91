//! All real roots of a polynomial of degree at most 4, by recursive isolation between the
//! critical points (the real roots of the derivative), Newton-bisection on each monotone
//! piece, and an explicit zero test at the critical points for multiple roots.

use crate::NumericsError;

#[cfg(test)]
mod tests;

/// Largest degree handled.
const MAX_DEGREE: usize = 4;

/// A critical point c is a (multiple) root when |p(c)| ≤ `ZERO_TEST_FACTOR` · ε · Σ|aᵢ||c|ⁱ:
/// the rounding-error bound of Horner's rule is 2n·ε·Σ|aᵢ||c|ⁱ (Higham, *Accuracy and Stability
/// of Numerical Algorithms*, §5.1), i.e. 8ε for n = 4; the factor 2 above it absorbs the rounding
/// already present in the caller's coefficients.
const ZERO_TEST_FACTOR: f64 = 16.0;

/// Cap on Newton-bisection iterations on one bracket (bisection alone halves the bracket, and
/// 2200 halvings exhaust the whole f64 range; Newton ends in a handful of steps in practice).
const MAX_ITERATIONS: usize = 2200;

/// The real roots of a polynomial of degree at most 4: up to 4 values, sorted ascending, each
/// repeated according to its multiplicity (a double root appears twice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealRoots {
    values: [f64; MAX_DEGREE],
    len: usize,
}

impl RealRoots {
    fn empty() -> Self {
        RealRoots { values: [0.0; MAX_DEGREE], len: 0 }
    }

    /// Appends `x` if there is room. The isolation below never produces more roots than the
    /// degree (each monotone piece holds at most one simple root and a zero critical group of
    /// g points holds a root of multiplicity g + 1), so the capacity check is only a guard.
    fn push(&mut self, x: f64) {
        if self.len < MAX_DEGREE {
            self.values[self.len] = x;
            self.len += 1;
        }
    }

    /// The roots, ascending, with multiplicity.
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.len]
    }

    /// Number of real roots counted with multiplicity (at most 4).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the polynomial has no real root.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A polynomial Σ cᵢ xⁱ of degree `n` with cₙ ≠ 0, coefficients in increasing powers.
#[derive(Clone, Copy, Debug)]
struct Poly {
    c: [f64; MAX_DEGREE + 1],
    n: usize,
}

impl Poly {
    /// (p(x), p'(x), Σ|cᵢ||x|ⁱ) by Horner's rule; the last value scales the rounding error of p(x).
    fn eval(&self, x: f64) -> (f64, f64, f64) {
        let mut v = self.c[self.n];
        let mut d = 0.0;
        let mut s = v.abs();
        for i in (0..self.n).rev() {
            d = d * x + v;
            v = v * x + self.c[i];
            s = s * x.abs() + self.c[i].abs();
        }
        (v, d, s)
    }

    /// The derivative p' = Σ i cᵢ xⁱ⁻¹ (degree n − 1, leading coefficient n cₙ ≠ 0).
    fn derivative(&self) -> Poly {
        let mut c = [0.0; MAX_DEGREE + 1];
        for i in 1..=self.n {
            c[i - 1] = i as f64 * self.c[i];
        }
        Poly { c, n: self.n - 1 }
    }

    /// Fujiwara's bound: every complex root z satisfies
    /// |z| ≤ 2 max(|c_{n−1}/cₙ|, |c_{n−2}/cₙ|^{1/2}, …, |c₀/(2cₙ)|^{1/n}).
    /// Each term is computed as |c_k|^{1/j} / |cₙ|^{1/j} so that it overflows only when the
    /// bound itself does.
    fn fujiwara_bound(&self) -> f64 {
        let lead = self.c[self.n].abs();
        let mut bound = 0.0_f64;
        for k in 0..self.n {
            let j = (self.n - k) as i32;
            let ck = if k == 0 { 0.5 * self.c[0].abs() } else { self.c[k].abs() };
            let term = if j == 1 { ck / lead } else { ck.powf(1.0 / j as f64) / lead.powf(1.0 / j as f64) };
            bound = bound.max(term);
        }
        2.0 * bound
    }
}

/// All real roots of a4 x⁴ + a3 x³ + a2 x² + a1 x + a0, with
/// `coefficients = [a4, a3, a2, a1, a0]` (highest degree first).
///
/// Returns the roots ascending, repeated by multiplicity (at most 4).
///
/// **Degree rule (tiny leading coefficients).** The coefficients are first scaled by a power of
/// two (exact) so that the largest has magnitude in [1, 2). Then, from the top, the leading
/// coefficient aₙ is dropped when it is zero, or when it is negligible in this sense: Fujiwara's
/// root bound of p (see below) is at least 1/ε (ε = `f64::EPSILON`) times that of the polynomial
/// without aₙ. The roots that aₙ adds then lie at least ~1/ε times farther out than all others;
/// they are treated as roots *at infinity* and are not returned. The rule is never applied when
/// the remaining polynomial is a single term (aₙxⁿ + aₘxᵐ keeps its roots, however small aₙ).
/// Thus 10⁻¹⁴x⁴ + (x − 1)(x − 2)(x − 3) has 4 real roots (one near −10¹⁴), while
/// 10⁻¹⁷x⁴ + (x − 1)(x − 2)(x − 3) is solved as the cubic.
///
/// **Method.** Recursive isolation, chosen over Ferrari's formulas (which lose double roots
/// when rounding makes a discriminant slightly negative) and over companion-matrix eigenvalues
/// (which split a double root into a complex pair ~√ε off the axis): the real roots of p' (found
/// the same way, down to degree 1) cut the line into intervals on which p is monotone, so each
/// holds at most one simple root, found by safeguarded Newton-bisection on p to full precision.
/// At each critical point c, p(c) is tested against Horner's rounding bound
/// 16 ε Σ|aᵢ||c|ⁱ; if it passes, c is a multiple root, of multiplicity 1 + (number of critical
/// points there), adjacent zero critical points being merged into one root at their mean. So a
/// double root is found to ~√ε relative accuracy (the conditioning of a double root), a triple
/// to ~ε^{1/3}, a quadruple to ~ε^{1/4}, and is never lost to a sign error. As a consequence, a
/// complex pair within ~√ε (relative) of the real axis is reported as a double real root.
/// Outer intervals are closed by Fujiwara's bound. No allocation.
///
/// Errors: [`NumericsError::NonFinite`] if a coefficient is NaN or infinite,
/// [`NumericsError::InvalidInput`] if all coefficients are zero (every x is a root).
/// A nonzero constant gives an empty result.
///
/// ```
/// use nonsmooth_numerics::roots::real_roots_quartic;
/// // (x − 1)²(x + 2)(x − 3) = x⁴ − 3x³ − 3x² + 11x − 6
/// let roots = real_roots_quartic([1.0, -3.0, -3.0, 11.0, -6.0]).unwrap();
/// let expected = [-2.0, 1.0, 1.0, 3.0];
/// assert_eq!(roots.len(), 4);
/// for (x, r) in roots.as_slice().iter().zip(expected) {
///     assert!((x - r).abs() < 1e-7);
/// }
/// ```
pub fn real_roots_quartic(coefficients: [f64; 5]) -> Result<RealRoots, NumericsError> {
    if coefficients.iter().any(|a| !a.is_finite()) {
        return Err(NumericsError::NonFinite { what: "quartic coefficients" });
    }
    let max = coefficients.iter().fold(0.0_f64, |m, a| m.max(a.abs()));
    if max == 0.0 {
        return Err(NumericsError::InvalidInput {
            what: "quartic coefficients",
            reason: "all coefficients are zero, every x is a root".to_string(),
        });
    }
    // Exact scaling by a power of two: max |aᵢ| lands in [1, 2) up to one binade.
    let exponent = (max.log2().floor() as i32).clamp(-1022, 1023);
    let scale = 2.0_f64.powi(-exponent);
    let mut c = [0.0; MAX_DEGREE + 1];
    for (i, a) in coefficients.iter().rev().enumerate() {
        c[i] = a * scale;
    }
    let mut n = MAX_DEGREE;
    while n > 0 && leading_is_negligible(&c, n) {
        n -= 1;
    }
    let mut roots = RealRoots::empty();
    if n > 0 {
        isolate(&Poly { c, n }, &mut roots);
    }
    Ok(roots)
}

/// The degree rule of [`real_roots_quartic`]: is cₙ zero, or are the roots it adds at least
/// 1/ε farther out than the roots of Σ_{i<n} cᵢ xⁱ?
fn leading_is_negligible(c: &[f64; MAX_DEGREE + 1], n: usize) -> bool {
    if c[n] == 0.0 {
        return true;
    }
    let Some(m) = (0..n).rev().find(|&i| c[i] != 0.0) else {
        return false; // cₙ xⁿ: a root of multiplicity n at 0.
    };
    let reduced = Poly { c: *c, n: m }.fujiwara_bound();
    if m == 0 || reduced == 0.0 {
        // cₙ xⁿ + c₀, or cₙ xⁿ + c_m x^m: nothing to compare the far roots with; keep.
        return false;
    }
    let full = Poly { c: *c, n }.fujiwara_bound();
    full >= reduced / f64::EPSILON
}

/// Appends the real roots of `p` (degree ≥ 1, leading coefficient nonzero) to `out`, ascending.
fn isolate(p: &Poly, out: &mut RealRoots) {
    if p.n == 1 {
        out.push(-p.c[0] / p.c[1]);
        return;
    }
    let mut critical = RealRoots::empty();
    isolate(&p.derivative(), &mut critical);

    // Distinct critical points with their count and the zero test; adjacent zero points merge
    // (p monotone between two zeros would vanish identically, so they are one multiple root).
    let mut points = [(0.0_f64, 0_usize, false, 0.0_f64); MAX_DEGREE];
    let mut len = 0;
    for &x in critical.as_slice() {
        // Repeated critical points are bit-identical copies (pushed by the zero-group loop).
        if len > 0 && points[len - 1].0.to_bits() == x.to_bits() {
            points[len - 1].1 += 1;
            continue;
        }
        let (v, _, s) = p.eval(x);
        let zero = v.abs() <= ZERO_TEST_FACTOR * f64::EPSILON * s;
        if len > 0 && zero && points[len - 1].2 {
            let (x0, g0, _, _) = points[len - 1];
            let g = g0 + 1;
            points[len - 1] = ((x0 * g0 as f64 + x) / g as f64, g, true, 0.0);
        } else {
            points[len] = (x, 1, zero, v);
            len += 1;
        }
    }

    // Outer ends: beyond Fujiwara's bound p has the sign of its leading term.
    let bound = p.fujiwara_bound() * 1.01 + f64::MIN_POSITIVE;
    let lead = p.c[p.n];
    let sign_right = lead.signum();
    let sign_left = if p.n.is_multiple_of(2) { sign_right } else { -sign_right };
    let mut left = (-bound, sign_left, false);
    for &(x, g, zero, v) in &points[..len] {
        let right = (x, v, zero);
        if !left.2 && !zero {
            bracket(p, left.0, left.1, x, v, out);
        }
        if zero {
            for _ in 0..=g {
                out.push(x);
            }
        }
        left = right;
    }
    if !left.2 {
        bracket(p, left.0, left.1, bound, sign_right, out);
    }
}

/// If p changes sign strictly between `l` (value `fl`) and `u` (value `fu`), finds the root
/// by Newton steps kept inside the shrinking bracket, bisecting when a step leaves it.
fn bracket(p: &Poly, l: f64, fl: f64, u: f64, fu: f64, out: &mut RealRoots) {
    // Signs, not the product fl·fu, which may underflow to zero.
    if fl == 0.0 || fu == 0.0 || (fl < 0.0) == (fu < 0.0) || l >= u {
        return;
    }
    let (mut lo, mut hi) = if fl < 0.0 { (l, u) } else { (u, l) }; // p(lo) < 0 < p(hi)
    let mut x = 0.5 * (l + u);
    for _ in 0..MAX_ITERATIONS {
        let (v, d, _) = p.eval(x);
        if v == 0.0 {
            break;
        }
        if v < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let (a, b) = if lo < hi { (lo, hi) } else { (hi, lo) };
        let newton = x - v / d;
        let next = if newton.is_finite() && newton > a && newton < b { newton } else { 0.5 * (a + b) };
        let tiny = 2.0 * f64::EPSILON * next.abs() + f64::MIN_POSITIVE;
        if (next - x).abs() <= tiny || b - a <= tiny {
            x = next;
            break;
        }
        x = next;
    }
    out.push(x);
}
