//! `lotto cluster cut <member|primary>` and `lotto cluster heal`: a network cut between one
//! member and everything else (etcd, the other members, HAProxy and every client on the
//! network), as a failed switch or a pulled cable makes it, made with the kernel's packet filter
//! (Debian's `iptables`; root only).
//!
//! The members share one machine's loopback, so the filter cannot tell them apart by address:
//! when the layout runs as root, each member's Patroni and Postgres run with a group of their
//! own ([`Layout::member_gid`]), and a cut drops every packet a process of that group sends, and
//! every packet sent to the member's ports. What the member's own machine reaches it by (its
//! unix socket, which Patroni also uses to manage its Postgres) is not cut: a client there is a
//! client on the wrong side of the cut, which is how the tests look for a second primary.

use std::process::Command;

use anyhow::{Context, bail};

use super::layout::{Layout, MEMBERS};
use super::process::RunAs;

/// Whether the members run in groups of their own (the layout runs as root).
fn members_apart() -> bool {
    RunAs::postgres_if_root().ok().flatten().is_some()
}

/// The filter rules that cut `member` off (each without its `-A`/`-D` and chain).
fn rules(layout: &Layout, member: usize) -> Vec<Vec<String>> {
    let tag = format!("lotto-cut-{}-{}", layout.base_port, MEMBERS[member]);
    let sent_by =
        vec!["-m".into(), "owner".into(), "--gid-owner".into(), layout.member_gid(member).to_string()];
    let sent_to = |port: u16| vec!["-p".into(), "tcp".into(), "--dport".into(), port.to_string()];
    [sent_by, sent_to(layout.postgres_port(member)), sent_to(layout.rest_port(member))]
        .into_iter()
        .map(|matched| {
            let mut rule: Vec<String> = vec!["-o".into(), "lo".into()];
            rule.extend(matched);
            rule.extend(["-m", "comment", "--comment", &tag, "-j", "DROP"].map(String::from));
            rule
        })
        .collect()
}

fn iptables(action: &str, rule: &[String]) -> anyhow::Result<bool> {
    let out = Command::new("iptables")
        .args(["-w", action, "OUTPUT"])
        .args(rule)
        .output()
        .context("cannot run iptables (Debian's iptables package; a cut needs root)")?;
    Ok(out.status.success())
}

/// Cuts `member` off the network.
pub fn cut(layout: &Layout, member: usize) -> anyhow::Result<()> {
    if !members_apart() {
        bail!("a cut needs the layout started as root (each member's processes in a group of their own)");
    }
    for rule in rules(layout, member) {
        if !iptables("-I", &rule)? {
            bail!("iptables refused {}: is this root, with the owner and comment matches?", rule.join(" "));
        }
    }
    Ok(())
}

/// Removes every cut of this layout's; returns the members that were cut.
pub fn heal(layout: &Layout) -> anyhow::Result<Vec<&'static str>> {
    let mut healed = Vec::new();
    if !members_apart() {
        return Ok(healed);
    }
    for (member, name) in MEMBERS.iter().enumerate() {
        let mut removed = false;
        for rule in rules(layout, member) {
            // Once for each time it was inserted (a member cut twice).
            // Without iptables, nothing was cut.
            while iptables("-D", &rule).unwrap_or(false) {
                removed = true;
            }
        }
        if removed {
            healed.push(*name);
        }
    }
    Ok(healed)
}
