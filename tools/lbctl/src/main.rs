//! The `lbctl` binary: parses the command line, runs the command, and leaves the exit code
//! [`lbctl::error`] documents.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = lbctl::Cli::parse();
    let ctl = lbctl::Ctl::new(cli.connection, cli.json);
    let mut out = std::io::stdout().lock();
    let result = lbctl::run(&ctl, cli.command, &mut out).await;
    let flushed = out.flush();
    match result.and(flushed.map_err(lbctl::CtlError::from)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(lbctl::CtlError::OutputClosed) => ExitCode::from(141),
        Err(e) => {
            eprintln!("lbctl: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
