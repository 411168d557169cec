//! What every benchmark needs: medians and percentiles of measured samples, and the
//! machine they were measured on.
//! Included by each benchmark with `#[path = "support.rs"] mod support;`.

#![allow(dead_code)]

/// The binary under test, built by Cargo in the bench (release) profile.
pub const MOCK: &str = env!("CARGO_BIN_EXE_mock-agent");

/// The size of the reads that drain a child's stdout.
pub const DRAIN_BUFFER: usize = 256 << 10;

/// The size of the small recording of a memory check (events, updates): its peak
/// memory is measured beside the big one's, to tell a flat memory from a growing one.
pub const SMALL: usize = 10_000;

/// The length and FNV-1a hash of bytes seen in pieces: what a run is to print (its
/// recording's output, digested as it is written) and what it printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digest {
    /// The bytes seen.
    pub len: u64,
    /// Their FNV-1a hash (of none while they are only counted).
    pub hash: u64,
}

impl Default for Digest {
    fn default() -> Digest {
        Digest {
            len: 0,
            hash: harness::digest::FNV1A_OFFSET,
        }
    }
}

impl Digest {
    /// Counts `bytes`, and hashes them when `hash` (a timed run that is not checked
    /// only counts).
    pub fn add(&mut self, bytes: &[u8], hash: bool) {
        self.len += bytes.len() as u64;
        if hash {
            self.hash = harness::digest::fnv1a_from(self.hash, bytes);
        }
    }

    /// Counts and hashes a line and its newline.
    pub fn line(&mut self, line: &[u8]) {
        self.add(line, true);
        self.add(b"\n", true);
    }
}

/// The median of the samples (the mean of the middle two for an even count); NaN
/// for none.
pub fn median(values: impl AsRef<[f64]>) -> f64 {
    let mut sorted = values.as_ref().to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The `p`-th percentile (0-100) of samples sorted in increasing order, by nearest
/// rank; NaN for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Megabytes (10^6 bytes).
pub fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// The cores this process may use.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The CPU's model name, from `/proc/cpuinfo`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

/// Whether `BENCH_QUICK` asks for fewer rounds (set, not empty, not `0`).
pub fn quick() -> bool {
    std::env::var("BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The number in the variable `name`, else `default`.
pub fn env_count<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Prints the benchmark's title line (`TITLE benchmark`, `(quick)` with `quick`), the
/// binary under test and the machine.
pub fn print_header(title: &str, quick: bool) {
    println!("{title} benchmark{}", if quick { " (quick)" } else { "" });
    println!("  mock-agent: {MOCK}");
    println!("  machine:    {} CPUs, {}", cpu_count(), cpu_model());
    println!();
}

/// Where a benchmark writes what it generates: `BENCH_DIR` (made, and kept), else a
/// temporary directory, removed when the returned guard is dropped.
pub fn bench_dir() -> (std::path::PathBuf, Option<tempfile::TempDir>) {
    let (dir, temp) = match std::env::var_os("BENCH_DIR") {
        Some(kept) => (std::path::PathBuf::from(kept), None),
        None => {
            let temp = tempfile::tempdir().expect("a temporary directory");
            (temp.path().to_owned(), Some(temp))
        }
    };
    std::fs::create_dir_all(&dir).expect("the bench directory");
    (dir, temp)
}

/// Prints the summary: each target (`(name, met, detail)`) `ok` or `MISSED`, then the
/// bench's time since `started` and whether every target was met.
pub fn print_summary<'a>(
    started: std::time::Instant,
    targets: impl IntoIterator<Item = (&'a str, bool, String)>,
) {
    println!();
    println!("== summary ==");
    let mut all_met = true;
    for (name, met, detail) in targets {
        all_met &= met;
        println!("  [{}] {name}: {detail}", if met { "ok" } else { "MISSED" });
    }
    let all = if all_met {
        "all targets met"
    } else {
        "some targets missed"
    };
    println!(
        "  total bench time {:.0}s; {all}",
        started.elapsed().as_secs_f64()
    );
}

/// In the helper of [`rss_by_helper`] (the variable `helper` set), what it was given;
/// `None` elsewhere.
pub fn as_rss_helper(helper: &str) -> Option<String> {
    std::env::var(helper).ok()
}

/// The max RSS, in KiB, of what this bench, run again as a helper (`helper`, the
/// bench's variable that says so, set to `what`: [`as_rss_helper`]), measures and
/// prints ([`print_children_rss`]); `configure` adds to its command (its arguments).
pub fn rss_by_helper(helper: &str, what: &str, configure: impl FnOnce(&mut std::process::Command)) -> i64 {
    let mut cmd = std::process::Command::new(std::env::current_exe().expect("the bench binary"));
    cmd.env(helper, what);
    configure(&mut cmd);
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("the memory helper runs");
    assert!(out.status.success(), "the memory helper failed: {}", out.status);
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("the helper prints the max RSS in KiB")
}

/// In a helper of [`rss_by_helper`]: the command its arguments say (the program
/// first), without the mock's settings of its environment; and the program.
pub fn helper_command() -> (std::process::Command, std::ffi::OsString) {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let (program, rest) = args.split_first().expect("a command to run");
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest);
    harness::run::child::without_mock_env(&mut cmd);
    (cmd, program.clone())
}

/// In a helper of [`rss_by_helper`], once it has waited for what it measures: prints
/// the max RSS, in KiB, of the children it waited for. It has waited for no other, so
/// that is the max RSS of that one (or of this small helper, the floor: a child's RSS
/// counts the address space it was spawned from until it execs).
pub fn print_children_rss() {
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    println!("{}", usage.max_rss());
}
