//! The modules of `undertone-core` and of this crate import each other one way only:
//! no two top-level modules reach each other through `crate::` paths (tests and
//! comments aside). A new circle fails here with the path that closes it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its code names through `crate::`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let first = rel.components().next().expect("a component");
            let top = first
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned();
            if top == "lib" || top == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable source");
            // The product code: test modules and comments do not count.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
                let mut rest = line;
                while let Some(at) = rest.find("crate::") {
                    rest = &rest[at + "crate::".len()..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != top {
                        out.entry(top.clone()).or_default().insert(name);
                    }
                }
            }
        }
    }
    out
}

/// A path of modules from `from` back to `to`, if there is one.
fn path_back(
    g: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    to: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    for next in g.get(from).into_iter().flatten() {
        if next == to {
            return Some(vec![from.to_owned(), next.clone()]);
        }
        if seen.insert(next.clone())
            && let Some(mut rest) = path_back(g, next, to, seen)
        {
            rest.insert(0, from.to_owned());
            return Some(rest);
        }
    }
    None
}

fn circles(crate_dir: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(crate_dir)
        .join("src");
    let g = graph(&src);
    let mut found = Vec::new();
    for (module, uses) in &g {
        for used in uses {
            if let Some(back) = path_back(&g, used, module, &mut BTreeSet::new()) {
                found.push(format!("{module} -> {}", back.join(" -> ")));
            }
        }
    }
    found
}

#[test]
fn core_modules_have_no_circles() {
    assert_eq!(circles("../core"), Vec::<String>::new());
}

#[test]
fn http_modules_have_no_circles() {
    assert_eq!(circles("."), Vec::<String>::new());
}
