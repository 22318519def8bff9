//! `leaderboard-local`, the run command's binary: see [`leaderboard_local::cli`].

fn main() -> std::process::ExitCode {
    leaderboard_local::cli::main()
}
