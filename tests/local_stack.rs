//! The run command's binary (`leaderboard-local`) under the name the end-to-end test starts:
//! the same `main`, [`leaderboard_local::cli::main`].

fn main() -> std::process::ExitCode {
    leaderboard_local::cli::main()
}
