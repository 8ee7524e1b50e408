//! What this machine has: its memory (`/proc/meminfo`) and the memory and CPU limits of this
//! process's cgroup (v2 or v1), read for the host-memory budget's default and the system
//! metrics.

use crate::js;
use std::path::{Path, PathBuf};

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The memory of this machine in bytes (`MemTotal`), or this process's cgroup limit when
/// that is lower.
pub fn machine_memory_bytes() -> Option<u64> {
    let total = read("/proc/meminfo")
        .and_then(|text| meminfo_mb(&text))
        .map(|(total, _)| total * 1048576.0);
    let cgroup = read("/proc/self/cgroup")
        .and_then(|text| cgroup_mem_limit_bytes(&cgroup_paths(&text), Path::new("/sys/fs/cgroup")));
    let bytes = match (total, cgroup) {
        (Some(total), Some(limit)) => total.min(limit),
        (total, limit) => total.or(limit)?,
    };
    Some(bytes as u64)
}

/// MemTotal and MemAvailable in MiB, rounded; `None` if either is missing.
pub fn meminfo_mb(text: &str) -> Option<(f64, f64)> {
    let field = |name: &str| -> Option<f64> {
        let line = text.lines().find(|line| line.starts_with(name))?;
        let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(js::math_round(kb / 1024.0))
    };
    Some((field("MemTotal:")?, field("MemAvailable:")?))
}

/// This process's cgroups: `(controllers, relative path)` per line of `/proc/self/cgroup`
/// (an empty controller list is the v2 hierarchy).
pub fn cgroup_paths(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _id = parts.next()?;
            let controllers = parts.next()?.to_owned();
            let path = parts.next()?.to_owned();
            Some((controllers, path))
        })
        .collect()
}

/// The directory of `rel` under `root` and all its ancestors up to `root`.
fn with_ancestors(root: &Path, rel: &str) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_owned()];
    let mut current = root.to_owned();
    for part in rel.split('/').filter(|part| !part.is_empty()) {
        current = current.join(part);
        dirs.push(current.clone());
    }
    dirs
}

/// The smallest value `read_limit` finds in a cgroup dir or its ancestors.
fn tightest(dirs: &[PathBuf], read_limit: impl Fn(&Path) -> Option<f64>) -> Option<f64> {
    dirs.iter()
        .filter_map(|dir| read_limit(dir))
        .fold(None, |best: Option<f64>, x| {
            Some(best.map_or(x, |b| b.min(x)))
        })
}

fn v2_path(cgroups: &[(String, String)]) -> Option<&str> {
    cgroups
        .iter()
        .find(|(controllers, _)| controllers.is_empty())
        .map(|(_, path)| path.as_str())
}

fn v1_path<'a>(cgroups: &'a [(String, String)], controller: &str) -> Option<&'a str> {
    cgroups
        .iter()
        .find(|(controllers, _)| controllers.split(',').any(|c| c == controller))
        .map(|(_, path)| path.as_str())
}

fn read_number(path: &Path) -> Option<f64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The tightest memory limit in bytes: v2 `memory.max`, else v1 `memory.limit_in_bytes`
/// (values above 1e15 mean "unlimited").
pub fn cgroup_mem_limit_bytes(cgroups: &[(String, String)], root: &Path) -> Option<f64> {
    let v2 = v2_path(cgroups).and_then(|rel| {
        tightest(&with_ancestors(root, rel), |dir| {
            read_number(&dir.join("memory.max"))
        })
    });
    v2.or_else(|| {
        let rel = v1_path(cgroups, "memory")?;
        tightest(&with_ancestors(&root.join("memory"), rel), |dir| {
            read_number(&dir.join("memory.limit_in_bytes")).filter(|x| *x <= 1e15)
        })
    })
}

/// The tightest CPU limit in cores: v2 `cpu.max` (`quota period`), else v1
/// `cpu.cfs_quota_us / cpu.cfs_period_us` (a quota <= 0 means "unlimited").
pub fn cgroup_cpu_limit_cores(cgroups: &[(String, String)], root: &Path) -> Option<f64> {
    let v2 = v2_path(cgroups).and_then(|rel| {
        tightest(&with_ancestors(root, rel), |dir| {
            let text = std::fs::read_to_string(dir.join("cpu.max")).ok()?;
            let mut words = text.split_whitespace();
            let quota: f64 = words.next()?.parse().ok()?;
            let period: f64 = words.next()?.parse().ok()?;
            (period > 0.0).then_some(quota / period)
        })
    });
    v2.or_else(|| {
        let rel = v1_path(cgroups, "cpu")?;
        tightest(&with_ancestors(&root.join("cpu"), rel), |dir| {
            let quota = read_number(&dir.join("cpu.cfs_quota_us")).filter(|q| *q > 0.0)?;
            let period = read_number(&dir.join("cpu.cfs_period_us")).filter(|p| *p > 0.0)?;
            Some(quota / period)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_needs_both_fields() {
        let text = "MemTotal:       16384000 kB\nMemFree: 1 kB\nMemAvailable:    8192000 kB\n";
        assert_eq!(meminfo_mb(text), Some((16000.0, 8000.0)));
        assert_eq!(meminfo_mb("MemTotal: 1024 kB\n"), None);
    }

    #[test]
    fn cgroup_limits_take_the_tightest_ancestor() {
        let root = tempfile::tempdir().unwrap();
        let leaf = root.path().join("a/b");
        std::fs::create_dir_all(&leaf).unwrap();
        std::fs::write(root.path().join("a/memory.max"), "1073741824\n").unwrap();
        std::fs::write(leaf.join("memory.max"), "max\n").unwrap();
        std::fs::write(root.path().join("a/cpu.max"), "max 100000\n").unwrap();
        std::fs::write(leaf.join("cpu.max"), "150000 100000\n").unwrap();
        let cgroups = cgroup_paths("0::/a/b\n");
        assert_eq!(
            cgroup_mem_limit_bytes(&cgroups, root.path()),
            Some(1073741824.0)
        );
        assert_eq!(cgroup_cpu_limit_cores(&cgroups, root.path()), Some(1.5));
        assert_eq!(
            cgroup_mem_limit_bytes(&cgroup_paths("0::/x\n"), root.path()),
            None
        );
    }

    #[test]
    fn cgroup_v1_skips_unlimited_values() {
        let root = tempfile::tempdir().unwrap();
        let memory = root.path().join("memory/job");
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(
            root.path().join("memory/memory.limit_in_bytes"),
            "9223372036854771712",
        )
        .unwrap();
        std::fs::write(memory.join("memory.limit_in_bytes"), "536870912").unwrap();
        let cgroups = cgroup_paths("5:memory:/job\n4:cpu,cpuacct:/job\n");
        assert_eq!(
            cgroup_mem_limit_bytes(&cgroups, root.path()),
            Some(536870912.0)
        );
        assert_eq!(cgroup_cpu_limit_cores(&cgroups, root.path()), None);
    }
}
