//! `cargo xtask system-deps`: checks that building and testing the workspace needs nothing from
//! the system but the Rust toolchain.
//!
//! A crate that links a native library declares it with the `links` key of its manifest (Cargo
//! reference, "The links manifest key"): `hdf5-metno-sys` declares `links = "hdf5"`, and its
//! build script then looks for the library with pkg-config. This command reads the resolved
//! dependency graph of the workspace for the host platform (`cargo metadata`, all dependency
//! kinds: normal, build and dev) and fails when a package of it declares `links` for anything
//! but the names in [`ALLOWED_LINKS`], which name no native library.

use std::collections::{BTreeSet, HashMap};

use anyhow::{Context, bail};
use serde_json::Value;

/// `links` values that name no native library: `rayon-core` declares its own name only so
/// that two versions of it cannot be linked into one program.
const ALLOWED_LINKS: &[&str] = &["rayon-core"];

/// Runs the check and prints what it found.
///
/// # Errors
/// When `cargo metadata` fails, or a package of the graph links a native library.
pub(crate) fn run() -> anyhow::Result<()> {
    let host = host_triple()?;
    let output = crate::cargo()
        .args(["metadata", "--format-version", "1", "--locked", "--filter-platform", &host])
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout).context("reading cargo metadata's JSON")?;
    let (packages, linking) = native_links(&metadata)?;
    if !linking.is_empty() {
        bail!(
            "{} package(s) of the dependency graph link a native library, which a machine with only \
             the Rust toolchain lacks: {}",
            linking.len(),
            linking.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    println!("system-deps: {packages} packages for {host}, none links a native library");
    Ok(())
}

/// The host's target triple (`rustc -vV`).
fn host_triple() -> anyhow::Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc).arg("-vV").output().context("running rustc -vV")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).map(str::to_owned).context("rustc -vV printed no host line")
}

/// The number of packages of the resolved graph and the `name version (links = x)` of those that
/// declare a `links` key outside [`ALLOWED_LINKS`].
fn native_links(metadata: &Value) -> anyhow::Result<(usize, BTreeSet<String>)> {
    let nodes = metadata["resolve"]["nodes"].as_array().context("cargo metadata has no resolve graph")?;
    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .context("cargo metadata has no package list")?
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let mut linking = BTreeSet::new();
    for node in nodes {
        let id = node["id"].as_str().context("a resolve node without id")?;
        let package = packages.get(id).with_context(|| format!("package {id} missing from the list"))?;
        if let Some(links) = package["links"].as_str()
            && !ALLOWED_LINKS.contains(&links)
        {
            linking.insert(format!(
                "{} {} (links = \"{links}\")",
                package["name"].as_str().unwrap_or("?"),
                package["version"].as_str().unwrap_or("?")
            ));
        }
    }
    Ok((nodes.len(), linking))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(links: &[(&str, Option<&str>)]) -> Value {
        let packages: Vec<Value> = links
            .iter()
            .map(|(name, l)| serde_json::json!({ "id": name, "name": name, "version": "1.0.0", "links": l }))
            .collect();
        let nodes: Vec<Value> = links.iter().map(|(name, _)| serde_json::json!({ "id": name })).collect();
        serde_json::json!({ "packages": packages, "resolve": { "nodes": nodes } })
    }

    #[test]
    fn a_native_library_is_reported_and_rayon_core_is_not() {
        let m = metadata(&[("faer", None), ("rayon-core", Some("rayon-core")), ("hdf5-metno-sys", Some("hdf5"))]);
        let (n, linking) = native_links(&m).unwrap();
        assert_eq!(n, 3);
        assert_eq!(linking.into_iter().collect::<Vec<_>>(), vec!["hdf5-metno-sys 1.0.0 (links = \"hdf5\")"]);
        let clean = metadata(&[("faer", None), ("rayon-core", Some("rayon-core"))]);
        assert!(native_links(&clean).unwrap().1.is_empty());
    }

    #[test]
    fn a_graph_without_resolve_is_an_error() {
        assert!(native_links(&serde_json::json!({ "packages": [] })).is_err());
    }
}
