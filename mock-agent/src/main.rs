//! `mock-agent`: a stand-in for the `cursor-agent` CLI.
//!
//! Everything is in the `mock_agent` library; this only hands it the arguments and
//! ends the process the way it says (an exit code, or death by a signal).
//!
//! The entry point is C's `main`, not std's: a consumer spawns the mock once per test
//! case, and std's start-up (reading `/proc/self/maps` for the main thread's stack
//! guard, an alternate signal stack, naming the thread) is work a replay does not
//! need. [`mock_agent::process::start`] does the two parts of it the process relies
//! on. The arguments are read from `argv` itself (std's `args` would rely on the C
//! library handing them over before `main`, which glibc does and musl does not).
//! The binary has no test target (`test = false` in Cargo.toml), and when one is
//! asked for all the same (`cargo test --bins`) the test harness brings its own
//! `main`.
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
use std::ffi::{c_char, c_int, CStr};

/// The process's entry point, called by the C runtime.
#[allow(unsafe_code)] // `no_mangle`: the C runtime must find `main` by its name.
#[cfg(not(test))]
#[no_mangle]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    mock_agent::process::start();
    let count = usize::try_from(argc).unwrap_or(0);
    let argv: Vec<String> = (0..count)
        .filter_map(|i| {
            // SAFETY: the C runtime passes `argc` valid pointers in `argv`, each to a
            // NUL-terminated string that lives as long as the process.
            let arg = unsafe { *argv.add(i) };
            (!arg.is_null()).then(|| unsafe { CStr::from_ptr(arg) }.to_string_lossy().into_owned())
        })
        .collect();
    // A panic must not unwind out of an `extern "C"` function (that aborts): it ends
    // the process with 101, as std's `main` would. (Release builds abort on a panic,
    // as std's would too.)
    match std::panic::catch_unwind(|| mock_agent::main(&argv)) {
        Ok(exit) => mock_agent::process::terminate(exit),
        Err(_) => mock_agent::process::terminate(harness::frames::Exit::Code(101)),
    }
}
