//! Top-N cuts of a diff for reports whose size must stay bounded (the HTML page): the N scopes
//! and the N symbols that moved the most bytes, with exact counts and byte totals of the rest, so
//! a 45k-symbol libLLVM diff and a 3-symbol driver diff make pages of the same shape.

use crate::diff::{Buckets, Change};
use crate::group::GroupRow;

/// How a listed symbol changed. Renamed-only symbols keep their size and are left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Removed,
    Grown,
    Shrunk,
}

impl ChangeKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Grown => "grown",
            ChangeKind::Shrunk => "shrunk",
        }
    }
}

/// What a cut left out: how many entries, and the bytes they grew and shrank (shrinkage <= 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rest {
    pub count: usize,
    pub growth: i64,
    pub shrinkage: i64,
}

impl Rest {
    fn add(&mut self, delta: i64) {
        self.count += 1;
        if delta >= 0 {
            self.growth = self.growth.saturating_add(delta);
        } else {
            self.shrinkage = self.shrinkage.saturating_add(delta);
        }
    }
}

/// At most `n` scopes for a growth-and-shrinkage chart: the largest growths and the largest
/// shrinkages, half each (a side with fewer leaves its share to the other), so a shrinking scope
/// shows even next to a dominant growth. In signed order: largest growth first, largest
/// shrinkage last. Scopes that moved no bytes are never shown; everything not shown is the rest.
pub fn top_scopes(rows: &[GroupRow], n: usize) -> (Vec<&GroupRow>, Rest) {
    let mut growth: Vec<&GroupRow> = rows.iter().filter(|r| r.delta > 0).collect();
    let mut shrink: Vec<&GroupRow> = rows.iter().filter(|r| r.delta < 0).collect();
    // Largest first on each side, ties by name (the order `group` already returns, made sure).
    growth.sort_by(|x, y| {
        y.delta
            .cmp(&x.delta)
            .then_with(|| x.namespace.cmp(&y.namespace))
    });
    shrink.sort_by(|x, y| {
        x.delta
            .cmp(&y.delta)
            .then_with(|| x.namespace.cmp(&y.namespace))
    });
    let ng = growth
        .len()
        .min((n / 2).max(n.saturating_sub(shrink.len())));
    let ns = shrink.len().min(n - ng);
    let mut rest = Rest::default();
    for r in growth[ng..].iter().chain(&shrink[ns..]) {
        rest.add(r.delta);
    }
    rest.count += rows.len() - growth.len() - shrink.len();
    growth.truncate(ng);
    shrink.truncate(ns);
    growth.extend(shrink.into_iter().rev());
    (growth, rest)
}

/// The `n` listed symbols with the largest |delta| over added, removed and resized (ties by
/// name, then kind, so the cut is deterministic), and the rest. Renamed-only symbols are not
/// counted here: they moved no bytes.
pub fn top_changes(b: &Buckets, n: usize) -> (Vec<(ChangeKind, &Change)>, Rest) {
    let mut all: Vec<(ChangeKind, &Change)> =
        Vec::with_capacity(b.added.len() + b.removed.len() + b.resized.len());
    all.extend(b.added.iter().map(|c| (ChangeKind::Added, c)));
    all.extend(b.removed.iter().map(|c| (ChangeKind::Removed, c)));
    all.extend(b.resized.iter().map(|c| {
        let k = if c.delta >= 0 {
            ChangeKind::Grown
        } else {
            ChangeKind::Shrunk
        };
        (k, c)
    }));
    let order = |x: &(ChangeKind, &Change), y: &(ChangeKind, &Change)| {
        y.1.delta
            .unsigned_abs()
            .cmp(&x.1.delta.unsigned_abs())
            .then_with(|| x.1.name.cmp(&y.1.name))
            .then_with(|| x.0.as_str().cmp(y.0.as_str()))
    };
    let cut = n.min(all.len());
    // Only the head needs sorting: a full sort of a release diff's changes would be wasted.
    if cut > 0 && cut < all.len() {
        all.select_nth_unstable_by(cut - 1, order);
    }
    let mut rest = Rest::default();
    for (_, c) in &all[cut..] {
        rest.add(c.delta);
    }
    all.truncate(cut);
    all.sort_unstable_by(order);
    (all, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(name: &str, before: u64, after: u64) -> Change {
        Change {
            name: name.into(),
            delta: after as i64 - before as i64,
            before,
            after,
            before_mangled: "".into(),
            after_mangled: "".into(),
            kind_before: None,
            kind_after: None,
        }
    }

    fn row(ns: &str, delta: i64) -> GroupRow {
        GroupRow {
            namespace: ns.into(),
            added: 0,
            removed: 0,
            resized: 1,
            renamed: 0,
            delta,
        }
    }

    #[test]
    fn top_changes_cut_by_abs_delta_and_count_the_rest_exactly() {
        let b = Buckets {
            added: vec![change("a", 0, 50), change("tiny", 0, 1)],
            removed: vec![change("r", 70, 0)],
            resized: vec![change("g", 10, 40), change("s", 40, 35)],
            renamed: vec![change("n", 8, 8)],
            unchanged: 3,
        };
        let (top, rest) = top_changes(&b, 3);
        let got: Vec<(&str, &str, i64)> = top
            .iter()
            .map(|(k, c)| (k.as_str(), &*c.name, c.delta))
            .collect();
        assert_eq!(
            got,
            vec![
                ("removed", "r", -70),
                ("added", "a", 50),
                ("grown", "g", 30)
            ]
        );
        assert_eq!(
            rest,
            Rest {
                count: 2,
                growth: 1,
                shrinkage: -5
            }
        );
        let (all, none) = top_changes(&b, 100);
        assert_eq!(all.len(), 5, "renamed-only symbols moved no bytes");
        assert_eq!(all[4].0, ChangeKind::Added);
        assert_eq!(all[3].0, ChangeKind::Shrunk);
        assert_eq!(none, Rest::default());
        assert!(top_changes(&b, 0).0.is_empty());
        assert_eq!(top_changes(&b, 0).1.count, 5);
    }

    #[test]
    fn ties_are_cut_deterministically_by_name() {
        let b = Buckets {
            added: (0..50).map(|i| change(&format!("f{i:02}"), 0, 8)).collect(),
            ..Buckets::default()
        };
        let (top, rest) = top_changes(&b, 3);
        let names: Vec<&str> = top.iter().map(|(_, c)| &*c.name).collect();
        assert_eq!(names, vec!["f00", "f01", "f02"]);
        assert_eq!(rest.count, 47);
        assert_eq!(rest.growth, 47 * 8);
    }

    #[test]
    fn top_scopes_show_both_sides_in_signed_order_and_total_the_rest() {
        let rows = [
            row("llvm", 900),
            row("std", -300),
            row("clang", 20),
            row("polly", 10),
            row("(global)", -4),
            row("renamed", 0),
        ];
        let names = |v: &[&GroupRow]| v.iter().map(|r| r.namespace.clone()).collect::<Vec<_>>();
        let (top, rest) = top_scopes(&rows, 2);
        assert_eq!(names(&top), ["llvm", "std"], "one growth and one shrinkage");
        assert_eq!(
            rest,
            Rest {
                count: 4,
                growth: 30,
                shrinkage: -4
            }
        );
        let (top, rest) = top_scopes(&rows, 4);
        assert_eq!(names(&top), ["llvm", "clang", "(global)", "std"]);
        assert_eq!(rest.count, 2);
        // Only two shrinkages: their unused share goes to growth.
        let (top, rest) = top_scopes(&rows, 10);
        assert_eq!(names(&top), ["llvm", "clang", "polly", "(global)", "std"]);
        assert_eq!(
            rest,
            Rest {
                count: 1,
                growth: 0,
                shrinkage: 0
            },
            "the scope that moved no bytes"
        );
        let (top, _) = top_scopes(&rows[..1], 3);
        assert_eq!(names(&top), ["llvm"]);
        assert!(top_scopes(&rows, 0).0.is_empty());
    }
}
