//! Pure queries over a built [`Graph`]: closures with depth, shortest witness chains, cycles.

use std::collections::VecDeque;

use serde::Serialize;

use crate::graph::{Edge, Graph, NodeId};

/// Breadth-first search from some start nodes: shortest include depth and the edge that first
/// reached each node (so a chain is always a shortest one).
#[derive(Debug, Clone)]
pub struct Reach {
    /// 0 for a start node, `u32::MAX` for unreached.
    pub depth: Vec<u32>,
    /// (parent, include line in the parent, edge was conditional).
    pub via: Vec<Option<(NodeId, u32, bool)>>,
    /// Reached nodes in BFS order (starts first).
    pub order: Vec<NodeId>,
}

impl Reach {
    pub fn reached(&self, n: NodeId) -> bool {
        self.depth.get(n).is_some_and(|&d| d != u32::MAX)
    }
}

/// BFS over edges accepted by `follow`.
pub fn reach(g: &Graph, starts: &[NodeId], follow: impl Fn(&Edge) -> bool) -> Reach {
    let n = g.nodes.len();
    let mut r = Reach {
        depth: vec![u32::MAX; n],
        via: vec![None; n],
        order: Vec::new(),
    };
    let mut q = VecDeque::new();
    for &s in starts {
        if r.depth[s] == u32::MAX {
            r.depth[s] = 0;
            r.order.push(s);
            q.push_back(s);
        }
    }
    while let Some(u) = q.pop_front() {
        for e in &g.out[u] {
            if follow(e) && r.depth[e.to] == u32::MAX {
                r.depth[e.to] = r.depth[u] + 1;
                r.via[e.to] = Some((u, e.line, e.conditional));
                r.order.push(e.to);
                q.push_back(e.to);
            }
        }
    }
    r
}

/// One hop of a witness chain: `file:line` includes the next hop's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hop {
    pub path: String,
    /// The line of the `#include` of the next hop; None on the last hop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The include on this line sits in a conditional group.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
}

impl Hop {
    /// The hop as a person reads it: the path shown from their directory, then `:line` of the
    /// include (and whether it is conditional).
    pub fn shown(&self, s: &diag::Shown) -> String {
        match self.line {
            Some(l) => format!(
                "{}{}",
                s.at(&self.path, l),
                if self.conditional {
                    " (conditional)"
                } else {
                    ""
                }
            ),
            None => s.path(&self.path),
        }
    }
}

impl std::fmt::Display for Hop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown(&diag::Shown::default()))
    }
}

/// A chain as one line (`a.h:1 -> b.h:2 -> c.h`), paths shown from the user's directory.
pub fn chain_shown(hops: &[Hop], s: &diag::Shown) -> String {
    hops.iter()
        .map(|h| h.shown(s))
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// The shortest chain from a start of `r` to `target` (empty if unreached).
pub fn chain(g: &Graph, r: &Reach, target: NodeId) -> Vec<Hop> {
    if !r.reached(target) {
        return Vec::new();
    }
    let mut hops = vec![Hop {
        path: g.rel(target).to_string(),
        line: None,
        conditional: false,
    }];
    let mut cur = target;
    while let Some((p, line, cond)) = r.via[cur] {
        hops.push(Hop {
            path: g.rel(p).to_string(),
            line: Some(line),
            conditional: cond,
        });
        cur = p;
    }
    hops.reverse();
    hops
}

/// Renders a chain as `a.h:3 -> b.h:7 -> c.h`.
pub fn chain_text(hops: &[Hop]) -> String {
    hops.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// The shortest include chain from `from` to `to`, following every edge.
pub fn why(g: &Graph, from: NodeId, to: NodeId) -> Vec<Hop> {
    let r = reach(g, &[from], |_| true);
    chain(g, &r, to)
}

#[derive(Debug, Clone, Serialize)]
pub struct ClosureEntry {
    pub path: String,
    pub depth: u32,
    pub external: bool,
    /// Reached only through conditional includes.
    pub conditional: bool,
}

/// Everything `start` reaches (itself excluded), by depth then path.
pub fn closure(g: &Graph, start: NodeId) -> Vec<ClosureEntry> {
    let all = reach(g, &[start], |_| true);
    let firm = reach(g, &[start], |e| !e.conditional);
    let mut v: Vec<ClosureEntry> = all
        .order
        .iter()
        .filter(|&&n| n != start)
        .map(|&n| ClosureEntry {
            path: g.rel(n).to_string(),
            depth: all.depth[n],
            external: g.nodes[n].external,
            conditional: !firm.reached(n),
        })
        .collect();
    v.sort_by(|a, b| a.depth.cmp(&b.depth).then_with(|| a.path.cmp(&b.path)));
    v
}

/// A cycle: the strongly connected component and one concrete loop through it.
#[derive(Debug, Clone, Serialize)]
pub struct Cycle {
    pub files: Vec<String>,
    /// `a.h:3 -> b.h:5 -> a.h`.
    pub witness: Vec<Hop>,
}

/// Include cycles (components of more than one file, or a file including itself); iterative
/// Tarjan, so deep graphs cannot overflow the stack.
pub fn cycles(g: &Graph) -> Vec<Cycle> {
    let n = g.nodes.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<NodeId> = Vec::new();
    let mut next = 0u32;
    let mut comps: Vec<Vec<NodeId>> = Vec::new();
    for s in 0..n {
        if index[s] != u32::MAX {
            continue;
        }
        let mut work: Vec<(NodeId, usize)> = vec![(s, 0)];
        index[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on_stack[s] = true;
        while let Some(&mut (v, ref mut ei)) = work.last_mut() {
            if let Some(e) = g.out[v].get(*ei) {
                *ei += 1;
                let w = e.to;
                if index[w] == u32::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    let self_loop = comp.len() == 1 && g.out[v].iter().any(|e| e.to == v);
                    if comp.len() > 1 || self_loop {
                        comps.push(comp);
                    }
                }
            }
        }
    }
    let mut out: Vec<Cycle> = comps
        .into_iter()
        .map(|mut comp| {
            comp.sort_by(|a, b| g.rel(*a).cmp(g.rel(*b)));
            let first = comp[0];
            let in_comp: std::collections::HashSet<NodeId> = comp.iter().copied().collect();
            // Shortest loop back to `first` inside the component.
            let mut witness = Vec::new();
            for e in &g.out[first] {
                if e.to == first {
                    witness = vec![
                        Hop {
                            path: g.rel(first).to_string(),
                            line: Some(e.line),
                            conditional: e.conditional,
                        },
                        Hop {
                            path: g.rel(first).to_string(),
                            line: None,
                            conditional: false,
                        },
                    ];
                    break;
                }
            }
            if witness.is_empty() {
                let r = reach(g, &[first], |e| in_comp.contains(&e.to));
                let back = g.out.iter().enumerate().find_map(|(u, es)| {
                    es.iter()
                        .find(|e| e.to == first && r.reached(u) && in_comp.contains(&u))
                        .map(|e| (u, *e))
                });
                if let Some((u, e)) = back {
                    let mut c = chain(g, &r, u);
                    if let Some(last) = c.last_mut() {
                        last.line = Some(e.line);
                        last.conditional = e.conditional;
                    }
                    c.push(Hop {
                        path: g.rel(first).to_string(),
                        line: None,
                        conditional: false,
                    });
                    witness = c;
                }
            }
            Cycle {
                files: comp.iter().map(|&c| g.rel(c).to_string()).collect(),
                witness,
            }
        })
        .collect();
    out.sort_by(|a, b| a.files.cmp(&b.files));
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::graph::tests::tree;
    use crate::graph::GraphOptions;

    #[test]
    fn shortest_chain_and_closure_depths() {
        let d = tree(&[
            ("a.h", "#include \"b.h\"\n#include \"c.h\"\n"),
            ("b.h", "#include \"c.h\"\n#include \"d.h\"\n"),
            ("c.h", "\n\n#include \"d.h\"\n"),
            ("d.h", "#ifdef X\n#include \"e.h\"\n#endif\n"),
            ("e.h", ""),
        ]);
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let a = g.find("a.h").unwrap();
        let hops = why(&g, a, g.find("e.h").unwrap());
        assert_eq!(
            chain_text(&hops),
            "a.h:1 -> b.h:2 -> d.h:2 (conditional) -> e.h"
        );
        let cl = closure(&g, a);
        let got: Vec<_> = cl
            .iter()
            .map(|c| (c.path.as_str(), c.depth, c.conditional))
            .collect();
        assert_eq!(
            got,
            vec![
                ("b.h", 1, false),
                ("c.h", 1, false),
                ("d.h", 2, false),
                ("e.h", 3, true)
            ]
        );
    }

    #[test]
    fn cycles_terminate_and_list() {
        let d = tree(&[
            ("a.h", "#include \"b.h\"\n"),
            ("b.h", "#include \"c.h\"\n"),
            ("c.h", "#include \"a.h\"\n"),
            ("s.h", "#include \"s.h\"\n"),
            ("t.h", "#include \"a.h\"\n"),
        ]);
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let cs = cycles(&g);
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0].files, vec!["a.h", "b.h", "c.h"]);
        assert_eq!(chain_text(&cs[0].witness), "a.h:1 -> b.h:1 -> c.h:1 -> a.h");
        assert_eq!(chain_text(&cs[1].witness), "s.h:1 -> s.h");
        assert_eq!(closure(&g, g.find("t.h").unwrap()).len(), 3);
    }
}
