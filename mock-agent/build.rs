//! Links the `mock-agent` binary for a fast start on Linux.
//!
//! A consumer spawns the mock once per test case, so its start counts (see
//! benches/RESULTS.md):
//! - a position-dependent executable: a position-independent one spends a third of
//!   its start applying some 9,000 relocations (and faulting in the pages they
//!   touch) before `main`;
//! - the unwinder linked in (`libgcc_eh.a`, as `gcc -static-libgcc` does) rather than
//!   loaded: `libgcc_s.so` is a second library for the dynamic loader to find, map
//!   and relocate at every start, for code that only runs when a panic unwinds. Where
//!   the C compiler knows no `libgcc_eh.a` (clang without libgcc), nothing changes.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let cross = std::env::var("TARGET").ok() != std::env::var("HOST").ok();
    println!("cargo:rustc-link-arg-bins=-no-pie");
    // The host's C compiler answers for the host only.
    if let Some(dir) = static_unwinder_dir().filter(|_| !cross) {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static=gcc_eh");
    }
}

/// The directory of the C compiler's `libgcc_eh.a`, if it has one.
fn static_unwinder_dir() -> Option<std::path::PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let printed = String::from_utf8(output.stdout).ok()?;
    // Without the file, the compiler prints its name back, not a path.
    let path = Path::new(printed.trim());
    (output.status.success() && path.is_absolute() && path.is_file())
        .then(|| path.parent().map(Path::to_owned))
        .flatten()
}
