//! The `undertone` binary.

/// mimalloc: scoring allocates many small, short-lived values (texts, evidence), and
/// glibc's allocator spent about a quarter of the scoring time on them
/// (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    undertone_http::cli::main()
}
