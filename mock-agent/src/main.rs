//! `mock-agent`: a stand-in for the `cursor-agent` CLI.
//!
//! Everything is in the `mock_agent` library; this only hands it the arguments and
//! ends the process the way it says (an exit code, or death by a signal).
//!
//! The entry point is C's `main`, not std's: a consumer spawns the mock once per test
//! case, and std's start-up (reading `/proc/self/maps` for the main thread's stack
//! guard, an alternate signal stack, naming the thread) is work a replay does not
//! need. [`mock_agent::process::start`] does the two parts of it the process relies
//! on; std's arguments and environment work as ever (glibc hands them to std before
//! `main`).
#![no_main]

/// The process's entry point, called by the C runtime.
#[allow(unsafe_code)] // `no_mangle`: the C runtime must find `main` by its name.
#[no_mangle]
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    mock_agent::process::start();
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    mock_agent::process::terminate(mock_agent::main(&argv))
}
