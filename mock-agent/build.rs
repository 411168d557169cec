//! Links the `mock-agent` binary as a position-dependent executable on Linux.
//!
//! A consumer spawns the mock once per test case, so its start counts: a
//! position-independent executable spends a third of its start applying some 9,000
//! relocations (and faulting in the pages they touch) before `main`. Without them the
//! default replay starts about as fast as `cat` (see benches/RESULTS.md).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
