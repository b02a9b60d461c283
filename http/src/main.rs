//! The `undertone` binary.

fn main() -> std::process::ExitCode {
    undertone_http::cli::main()
}
