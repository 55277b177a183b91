//! Reads criterion's results: `<criterion dir>/<group>/<function>/<value>/<baseline>/` holds
//! `benchmark.json` (the ids) and `estimates.json` (point estimates in nanoseconds).

use std::path::Path;
use std::time::SystemTime;

use anyhow::Context;
use serde_json::Value;

/// One benchmark's median time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Estimate {
    /// Group id, e.g. `lcp/lemke`.
    pub(crate) group: String,
    /// Function id, e.g. `random` or `lcp_exp_murty`.
    pub(crate) function: String,
    /// Parameter, e.g. `200`.
    pub(crate) value: Option<String>,
    /// Median point estimate, in seconds.
    pub(crate) median_seconds: f64,
}

/// Every benchmark saved under `baseline` below `dir` (searched recursively), sorted by ids.
/// With `newer_than`, results whose `estimates.json` was written before that time are left out
/// (stale results of benchmarks that did not run this time).
pub(crate) fn read_estimates(
    dir: &Path,
    baseline: &str,
    newer_than: Option<SystemTime>,
) -> anyhow::Result<Vec<Estimate>> {
    let mut out = Vec::new();
    if dir.is_dir() {
        walk(dir, baseline, newer_than, &mut out)?;
    }
    out.sort_by(|a, b| (&a.group, &a.function, &a.value).cmp(&(&b.group, &b.function, &b.value)));
    Ok(out)
}

fn walk(dir: &Path, baseline: &str, newer_than: Option<SystemTime>, out: &mut Vec<Estimate>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|n| n == baseline) {
            let estimates = path.join("estimates.json");
            let benchmark = path.join("benchmark.json");
            if estimates.is_file() && benchmark.is_file() {
                if let Some(t) = newer_than {
                    let written = std::fs::metadata(&estimates)?.modified()?;
                    if written < t {
                        continue;
                    }
                }
                out.push(read_one(&benchmark, &estimates)?);
            }
        } else {
            walk(&path, baseline, newer_than, out)?;
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> anyhow::Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Reads one benchmark's ids and median estimate.
fn read_one(benchmark: &Path, estimates: &Path) -> anyhow::Result<Estimate> {
    let ids = read_json(benchmark)?;
    let est = read_json(estimates)?;
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let group = text(&ids["group_id"]).with_context(|| format!("no group_id in {}", benchmark.display()))?;
    let function = text(&ids["function_id"]).unwrap_or_default();
    let value = text(&ids["value_str"]);
    let nanoseconds = est["median"]["point_estimate"]
        .as_f64()
        .with_context(|| format!("no median.point_estimate in {}", estimates.display()))?;
    Ok(Estimate { group, function, value, median_seconds: nanoseconds * 1e-9 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, group: &str, function: &str, value: &str, baseline: &str, median_ns: f64) {
        let d = dir.join(group.replace('/', "_")).join(function).join(value).join(baseline);
        std::fs::create_dir_all(&d).unwrap();
        let ids = serde_json::json!({
            "group_id": group, "function_id": function, "value_str": value, "throughput": null,
            "full_id": format!("{group}/{function}/{value}"), "directory_name": "", "title": "",
        });
        std::fs::write(d.join("benchmark.json"), ids.to_string()).unwrap();
        let ci = serde_json::json!({"confidence_level": 0.95, "lower_bound": 1.0, "upper_bound": 2.0});
        let est = serde_json::json!({
            "mean": {"confidence_interval": ci, "point_estimate": 2.0 * median_ns, "standard_error": 1.0},
            "median": {"confidence_interval": ci, "point_estimate": median_ns, "standard_error": 1.0},
        });
        std::fs::write(d.join("estimates.json"), est.to_string()).unwrap();
    }

    #[test]
    fn reads_the_median_of_the_chosen_baseline_in_seconds() {
        let dir = std::env::temp_dir().join(format!("xtask-criterion-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, "lcp/lemke", "random", "200", "base", 7.1e6);
        write(&dir, "lcp/pgs", "lcp_exp_murty", "6", "base", 1500.0);
        write(&dir, "lcp/pgs", "lcp_exp_murty", "6", "new", 9999.0);
        write(&dir, "lcp/pgs", "random", "50", "other", 42.0);

        let got = read_estimates(&dir, "base", None).unwrap();
        assert_eq!(got.len(), 2, "only the `base` baseline: {got:?}");
        assert_eq!(got[0].group, "lcp/lemke");
        assert_eq!(got[0].function, "random");
        assert_eq!(got[0].value.as_deref(), Some("200"));
        assert!((got[0].median_seconds - 7.1e-3).abs() < 1e-15, "{}", got[0].median_seconds);
        assert_eq!(got[1].group, "lcp/pgs");
        assert!((got[1].median_seconds - 1.5e-6).abs() < 1e-18, "{}", got[1].median_seconds);

        // Results older than the cut-off are stale and left out.
        let future = SystemTime::now() + std::time::Duration::from_secs(3600);
        assert!(read_estimates(&dir, "base", Some(future)).unwrap().is_empty());
        // A missing folder holds no result (criterion has not run yet).
        assert!(read_estimates(&dir.join("absent"), "base", None).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_malformed_estimates_file_is_an_error() {
        let dir = std::env::temp_dir().join(format!("xtask-criterion-bad-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, "lcp/lemke", "random", "50", "base", 1.0);
        let est = dir.join("lcp_lemke/random/50/base/estimates.json");
        std::fs::write(&est, r#"{"mean": {"point_estimate": 1.0}}"#).unwrap();
        let err = read_estimates(&dir, "base", None).unwrap_err();
        assert!(err.to_string().contains("median"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
