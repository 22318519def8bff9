//! Sizes of the release bootstraps: as built (the release profile has `strip = true`), after
//! `strip --strip-all` of a copy (to show nothing is left to strip), and as a deflate zip holding
//! just `bootstrap`, the way SAM uploads it (Python's `zipfile` with `ZIP_DEFLATED`, which is what
//! SAM itself uses).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::coldstart::bootstrap;
use crate::fragment;
use crate::seed::Function;

/// The stripped-size target of issue 9.
/// (Decimal megabytes: 6,000,000 bytes, the stricter reading.)
pub const STRIPPED_LIMIT: u64 = 6_000_000;

const ZIP: &str = r#"
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as z:
    info = zipfile.ZipInfo("bootstrap", date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = 0o100755 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    with open(src, "rb") as f:
        z.writestr(info, f.read())
print(os.path.getsize(dst))
"#;

fn mb(n: u64) -> String {
    format!("{:.2} MB", n as f64 / 1e6)
}

/// `opt-level` of the workspace's `[profile.release]`, as written in its Cargo.toml.
fn release_opt_level() -> String {
    let manifest = std::fs::read_to_string(leaderboard_devkit::repo_root().join("Cargo.toml"))
        .unwrap_or_default();
    manifest
        .lines()
        .skip_while(|l| l.trim() != "[profile.release]")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .find_map(|l| l.trim().strip_prefix("opt-level"))
        .and_then(|rest| rest.trim().strip_prefix('='))
        .map(|v| format!("`{}`", v.trim()))
        .unwrap_or_else(|| "3 (the default)".to_owned())
}

/// Measures every bootstrap under `bin_dir` and returns the report fragment.
pub fn run(bin_dir: &Path, work: &Path) -> Result<String, String> {
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let mut md = String::from("## Binary sizes\n\n");
    md.push_str(&format!(
        "`leaderboard-bench sizes`: the release bootstraps (`[profile.release]`: LTO, one codegen unit, \
         `strip = true`, `panic = \"abort\"`, opt-level {}; x86_64; TLS by rustls on ring). \"stripped\" is a \
         copy after `strip --strip-all` (equal to the built size when the profile already stripped \
         everything); \"zipped\" is a deflate zip holding just `bootstrap` (mode 755), as SAM uploads \
         it.\n\n",
        release_opt_level()
    ));
    md.push_str("| function | built bytes | stripped bytes | stripped | zipped bytes | zipped | < 6 MB (6,000,000 bytes) stripped |\n");
    md.push_str("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for f in Function::ALL {
        let bin = bootstrap(bin_dir, f)
            .ok_or_else(|| format!("no bootstrap for {} under {}", f.name(), bin_dir.display()))?;
        let built = std::fs::metadata(&bin).map_err(|e| e.to_string())?.len();
        let copy = work.join(format!("{}.stripped", f.name()));
        std::fs::copy(&bin, &copy).map_err(|e| e.to_string())?;
        let stripped = match Command::new("strip").arg("--strip-all").arg(&copy).status() {
            Ok(s) if s.success() => std::fs::metadata(&copy).map_err(|e| e.to_string())?.len(),
            _ => return Err("`strip` failed or is not installed".into()),
        };
        let zip = work.join(format!("{}.zip", f.name()));
        let out = Command::new("python3")
            .args(["-c", ZIP])
            .arg(&copy)
            .arg(&zip)
            .output()
            .map_err(|e| format!("python3: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "zip: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let zipped: u64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .map_err(|e| format!("zip size: {e}"))?;
        let met = stripped < STRIPPED_LIMIT;
        let _ = writeln!(
            md,
            "| {} | {built} | {stripped} | {} | {zipped} | {} | {} |",
            f.name(),
            mb(stripped),
            mb(zipped),
            if met { "yes" } else { "**no**" }
        );
        fragment::target(
            &format!("stripped bootstrap < 6 MB: {}", f.name()),
            &format!("{} stripped, {} zipped", mb(stripped), mb(zipped)),
            met,
        );
    }
    Ok(md)
}
