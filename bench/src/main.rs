//! `leaderboard-bench`: the parts of issue 9's benchmark that are not criterion benches. Each
//! prints its Markdown section and, when `BENCH_OUT` is set, writes it as a fragment there (see
//! `scripts/bench`).

use std::path::PathBuf;
use std::process::ExitCode;

use leaderboard_bench::{
    coldstart, coldstart_secrets, fragment, hot_board, league_play, live_rank, load, sizes,
    top_page,
};

const USAGE: &str = "\
usage: leaderboard-bench <part> [options]

parts:
  coldstart [--runs N (50)] [--probe-runs N (3)] [--bin-dir DIR] [--secrets values,arns]
                                                                   -> $BENCH_OUT/10-coldstart.md
  sizes     [--bin-dir DIR]                                        -> $BENCH_OUT/20-sizes.md
  load      [--players N (32)] [--submissions N (3000)]            -> $BENCH_OUT/30-load.md
  hot-board [--quick] [--plays N (4000; quick 1000)] [--players N (256)] [--connections N (32)]
            [--fillers N (10000; quick 2000)]
                                                                   -> $BENCH_OUT/45-hot-boards.md
  top-page  [--quick] [--entries N (40000; quick 10000)]            -> $BENCH_OUT/47-top-pages.md
  league-play [--quick] [--newcomers N (500; quick 100)]           -> $BENCH_OUT/48-league-play.md
  live-rank [--quick] [--sizes N,N (2000,20000,100000)] [--seconds S (60)] [--clients N (32)]
                                                                   -> $BENCH_OUT/57-live-rank.md

--bin-dir: where the release bootstraps are (default $CARGO_TARGET_DIR/release, else target/release).
DynamoDB Local: DYNAMODB_ENDPOINT if set, else one is started (devkit).";

fn default_bin_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| leaderboard_devkit::repo_root().join("target"))
        .join("release")
}

struct Args {
    rest: Vec<String>,
}

impl Args {
    fn value(&mut self, name: &str) -> Result<Option<String>, String> {
        if let Some(i) = self.rest.iter().position(|a| a == name) {
            if i + 1 >= self.rest.len() {
                return Err(format!("{name} needs a value"));
            }
            let v = self.rest.remove(i + 1);
            self.rest.remove(i);
            return Ok(Some(v));
        }
        Ok(None)
    }

    fn number(&mut self, name: &str, default: usize) -> Result<usize, String> {
        match self.value(name)? {
            None => Ok(default),
            Some(v) => v
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{name} must be a positive integer, not {v:?}")),
        }
    }

    fn flag(&mut self, name: &str) -> bool {
        let found = self.rest.iter().position(|a| a == name);
        if let Some(i) = found {
            self.rest.remove(i);
        }
        found.is_some()
    }

    fn done(self) -> Result<(), String> {
        match self.rest.first() {
            None => Ok(()),
            Some(a) => Err(format!("unknown argument {a:?}")),
        }
    }
}

async fn run(part: &str, mut args: Args) -> Result<(), String> {
    let bin_dir = args
        .value("--bin-dir")?
        .map(PathBuf::from)
        .unwrap_or_else(default_bin_dir);
    let work = std::env::temp_dir().join(format!("leaderboard-bench-{}", std::process::id()));
    let (file, md) = match part {
        "coldstart" => {
            let opts = coldstart::Options {
                runs: args.number("--runs", 50)?,
                probe_runs: args.number("--probe-runs", 3)?,
                secrets: coldstart_secrets::Given::parse_list(
                    &args
                        .value("--secrets")?
                        .unwrap_or_else(|| "values,arns".into()),
                )?,
                bin_dir,
                log_dir: fragment::out_dir()
                    .map(|d| d.join("logs"))
                    .unwrap_or_else(|| work.clone()),
            };
            args.done()?;
            ("10-coldstart.md", coldstart::run(&opts).await?)
        }
        "sizes" => {
            args.done()?;
            ("20-sizes.md", sizes::run(&bin_dir, &work)?)
        }
        "load" => {
            let opts = load::Options {
                players: args.number("--players", 32)?,
                submissions: args.number("--submissions", 3000)?,
            };
            args.done()?;
            ("30-load.md", load::run(&opts).await?)
        }
        "hot-board" => {
            let quick = args.flag("--quick") || std::env::var("QUICK").is_ok_and(|v| v == "1");
            let opts = hot_board::Options {
                plays: args.number("--plays", if quick { 1_000 } else { 4_000 })?,
                players: args.number("--players", 256)?,
                connections: args.number("--connections", 32)?,
                fillers: args.number("--fillers", if quick { 2_000 } else { 10_000 })?,
            };
            args.done()?;
            ("45-hot-boards.md", hot_board::run(&opts).await?)
        }
        "top-page" => {
            let quick = args.flag("--quick") || std::env::var("QUICK").is_ok_and(|v| v == "1");
            let opts = top_page::Options {
                entries: args.number("--entries", if quick { 10_000 } else { 40_000 })?,
            };
            args.done()?;
            ("47-top-pages.md", top_page::run(&opts).await?)
        }
        "league-play" => {
            let quick = args.flag("--quick") || std::env::var("QUICK").is_ok_and(|v| v == "1");
            let opts = league_play::Options {
                newcomers: args.number("--newcomers", if quick { 100 } else { 500 })?,
            };
            args.done()?;
            ("48-league-play.md", league_play::run(&opts).await?)
        }
        "live-rank" => {
            let quick = args.flag("--quick") || std::env::var("QUICK").is_ok_and(|v| v == "1");
            let sizes = match args.value("--sizes")? {
                Some(list) => list
                    .split(',')
                    .map(|n| n.trim().parse::<usize>().ok().filter(|n| *n > 0))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| format!("--sizes takes positive integers, not {list:?}"))?,
                None if quick => vec![2_000, 20_000],
                None => vec![2_000, 20_000, 100_000],
            };
            let opts = live_rank::Options {
                sizes,
                seconds: args.number("--seconds", if quick { 20 } else { 60 })? as u64,
                backlog_seconds: if quick { 5 } else { 10 },
                clients: args.number("--clients", 32)?,
                quiet_lookups: if quick { 50 } else { 200 },
                raw_seconds: if quick { 5 } else { 15 },
                quick,
            };
            args.done()?;
            ("57-live-rank.md", live_rank::run(&opts).await?)
        }
        other => return Err(format!("unknown part {other:?}\n\n{USAGE}")),
    };
    println!("{md}");
    fragment::write(file, &md);
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn main() -> ExitCode {
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return if argv.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let part = argv.remove(0);
    {
        use lambda_runtime::tracing::subscriber::{self as ts, EnvFilter};
        ts::fmt()
            .with_writer(std::io::stderr)
            .with_target(false)
            .with_env_filter(
                EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
            )
            .init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&part, Args { rest: argv })) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
