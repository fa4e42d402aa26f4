//! The accurate mutator scan of one file: tokens, function bodies, mutator calls (mechanism A:
//! `pGLContext->Prefix…(`, mechanism B: `MGP_NOTE_MUTATION(field)`), backend reaches and callees.

use std::collections::BTreeSet;

use crate::compat::Lines;
use crate::lex::{parse, Kind, Lexed, Parsed};
use crate::scope::{Function, NestedKind};

/// What the scan looks for; the prefix set comes from `mgctl.toml`.
#[derive(Debug, Clone)]
pub struct ScanConfig {
    pub prefixes: Vec<String>,
}

/// The prefix sets of each upstream version (spec §1.7).
pub fn upstream_prefixes(version: &str) -> Option<Vec<String>> {
    let base = "Add Set Mark Bump Allocate Truncate Record Notify Begin End";
    let words = match version {
        "P0" | "P1" | "P2" | "P3a" => base.to_string(),
        "P4a" => format!("{base} Use Bind"),
        "P5e" => format!("{base} Use Bind Touch"),
        _ => return None,
    };
    Some(words.split(' ').map(String::from).collect())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// `pGLContext->Prefix…(`
    Call,
    /// `MGP_NOTE_MUTATION(field)`, attributed to the enclosing function.
    Note,
}

#[derive(Debug, Clone)]
pub struct Call {
    pub offset: u32,
    pub line: u32,
    pub column: u32,
    pub mutator: String,
    pub mechanism: Mechanism,
    /// Index into [`FileScan::functions`].
    pub function: Option<usize>,
    /// The nested scope (lambda, local class) it sits in, if any.
    pub nested: Option<NestedKind>,
}

#[derive(Debug, Clone)]
pub struct FnInfo {
    pub name: String,
    pub line: u32,
    pub backend: BTreeSet<String>,
    pub callees: BTreeSet<String>,
}

impl FnInfo {
    pub fn short(&self) -> &str {
        self.name.rsplit("::").next().unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone)]
pub struct Issue {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Everything the accurate scan learns from one file.
#[derive(Debug, Default)]
pub struct FileScan {
    pub functions: Vec<FnInfo>,
    pub calls: Vec<Call>,
    pub issues: Vec<Issue>,
}

/// Scan one file's text. Also returns the lexed form for callers that explain differences.
pub fn scan_file(src: &str, cfg: &ScanConfig) -> (FileScan, Lexed) {
    let p = parse(src);
    (scan_parsed(src, &p, cfg), p.lx)
}

/// [`scan_file`] over a file already lexed and scoped (shared with the run's other passes).
pub(crate) fn scan_parsed(src: &str, p: &Parsed, cfg: &ScanConfig) -> FileScan {
    let (lx, funcs, scope_issues) = (&p.lx, &p.funcs, &p.scope_issues);
    let toks = &lx.tokens;
    // Spellings, not slices: `SetBlend\⏎Func` is the identifier `SetBlendFunc`, as to g++.
    let t = |i: usize| lx.text(src, &toks[i]);
    let mut out = FileScan::default();
    let lines = Lines::new(src);
    let position = |_: &str, off: usize| (lines.line(off), lines.column(off));
    for li in &lx.diagnostics {
        let (line, column) = position(src, li.offset as usize);
        out.issues.push(Issue {
            line,
            column,
            message: li.message.to_string(),
        });
    }
    for si in scope_issues {
        let off = toks
            .get(si.token)
            .map(|k| k.start as usize)
            .unwrap_or(src.len());
        let (line, column) = position(src, off);
        out.issues.push(Issue {
            line,
            column,
            message: format!("{} (the rest of the file is still scanned)", si.message),
        });
    }

    // Which function (and nested scope) owns token i: functions are disjoint and sorted by
    // `open`, and i only grows, so `opened` (how many functions open at or before i, what a
    // binary search would count) only moves forward.
    let mut opened = 0usize;
    let mut owner = |i: usize| -> Option<usize> {
        while funcs.get(opened).is_some_and(|f| f.open <= i) {
            opened += 1;
        }
        let k = opened.checked_sub(1)?;
        (i <= funcs[k].close).then_some(k)
    };
    let nested_of = |f: &Function, i: usize| -> Option<NestedKind> {
        f.nested
            .iter()
            .rfind(|n| n.open <= i && i <= n.close)
            .map(|n| n.kind)
    };
    out.functions = funcs
        .iter()
        .map(|f| FnInfo {
            name: f.name.clone(),
            line: f.line,
            backend: BTreeSet::new(),
            callees: BTreeSet::new(),
        })
        .collect();

    let n = toks.len();
    let mut i = 0;
    while i < n {
        let tok = toks[i];
        if tok.kind != Kind::Ident {
            i += 1;
            continue;
        }
        let word = t(i);
        let next = |k: usize| if i + k < n { t(i + k) } else { "" };
        let fi = owner(i);
        if word == "pGLContext"
            && next(1) == "->"
            && i + 3 < n
            && toks[i + 2].kind == Kind::Ident
            && next(3) == "("
            && cfg.prefixes.iter().any(|p| next(2).starts_with(p.as_str()))
        {
            let (line, column) = position(src, tok.start as usize);
            out.calls.push(Call {
                offset: tok.start,
                line,
                column,
                mutator: next(2).to_string(),
                mechanism: Mechanism::Call,
                function: fi,
                nested: fi.and_then(|k| nested_of(&funcs[k], i)),
            });
        } else if word == "MGP_NOTE_MUTATION" && next(1) == "(" && !tok.directive {
            let (line, column) = position(src, tok.start as usize);
            match fi {
                Some(k) => out.calls.push(Call {
                    offset: tok.start,
                    line,
                    column,
                    mutator: funcs[k].short().to_string(),
                    mechanism: Mechanism::Note,
                    function: Some(k),
                    nested: nested_of(&funcs[k], i),
                }),
                None => out.issues.push(Issue {
                    line,
                    column,
                    message: "MGP_NOTE_MUTATION outside any function body: not counted (it names no mutator)".to_string(),
                }),
            }
        }
        if let Some(k) = fi {
            if word.ends_with("pActiveBackendObject")
                && next(1) == "->"
                && i + 2 < n
                && toks[i + 2].kind == Kind::Ident
            {
                insert_new(&mut out.functions[k].backend, next(2));
            } else if word == "gBackendFunctionsTable"
                && next(1) == "."
                && next(2) == "GL"
                && next(3) == "."
                && i + 4 < n
                && toks[i + 4].kind == Kind::Ident
            {
                insert_new(&mut out.functions[k].backend, next(4));
            } else if next(1) == "(" && !cpp_lex::keywords::is_not_call(word) && !tok.directive {
                insert_new(&mut out.functions[k].callees, word);
            }
        }
        i += 1;
    }
    out.issues.sort_by_key(|x| (x.line, x.column));
    out
}

/// Insert `name` unless it is there: a name called many times is copied once.
fn insert_new(set: &mut BTreeSet<String>, name: &str) {
    if !set.contains(name) {
        set.insert(name.to_string());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cfg() -> ScanConfig {
        ScanConfig {
            prefixes: upstream_prefixes("P5e").unwrap(),
        }
    }

    #[test]
    fn finds_calls_and_notes_with_functions() {
        let src = "void GLImpl::glEnable(GLenum c)\n{\n    pGLContext->SetCapability(c, true);\n    auto l = [&]{ pGLContext ->TouchBufferBindingPoint(1); };\n    gBackendFunctionsTable.GL.Enable(c);\n}\nvoid NoteUnitTouched(int u) { MGP_NOTE_MUTATION(m_units); helper(u); }\n";
        let (s, _) = scan_file(src, &cfg());
        let got: Vec<(&str, u32, Option<usize>)> = s
            .calls
            .iter()
            .map(|c| (c.mutator.as_str(), c.line, c.function))
            .collect();
        assert_eq!(
            got,
            vec![
                ("SetCapability", 3, Some(0)),
                ("TouchBufferBindingPoint", 4, Some(0)),
                ("NoteUnitTouched", 7, Some(1))
            ]
        );
        assert_eq!(s.calls[1].nested, Some(NestedKind::Lambda));
        assert!(s.functions[0].backend.contains("Enable"));
        assert!(s.functions[1].callees.contains("helper"));
        assert_eq!(s.functions[0].name, "GLImpl::glEnable");
    }

    #[test]
    fn literals_separators_and_boundaries() {
        let src = "void F() {\n  auto s = R\"x(pGLContext->SetFake(1);)x\"; int a = 1'000; pGLContext->SetA(1); int b = 2'0;\n  m_pGLContext->SetNo(1);\n}\n";
        let (s, _) = scan_file(src, &cfg());
        let names: Vec<&str> = s.calls.iter().map(|c| c.mutator.as_str()).collect();
        assert_eq!(names, vec!["SetA"]);
        assert!(s.issues.is_empty());
    }

    /// The forward-moving owner cursor answers what a binary search over the sorted functions
    /// does, for every call on the driver's files and on calls between, before and after bodies.
    #[test]
    fn call_owners_equal_the_binary_search() {
        let mut texts = vec![
            "pGLContext->SetA(1);\nvoid F() { pGLContext->SetB(1); }\npGLContext->SetC(1);\nvoid G() {}\nvoid H() { pGLContext->SetD(1); }\npGLContext->SetE(1);\n".to_string(),
        ];
        texts.extend(crate::rx::driver_texts());
        let mut calls = 0;
        for src in &texts {
            let p = parse(src);
            let s = scan_parsed(src, &p, &cfg());
            for c in &s.calls {
                let i =
                    p.lx.tokens
                        .iter()
                        .position(|t| t.start == c.offset)
                        .unwrap();
                let k = p.funcs.partition_point(|f| f.open <= i);
                let want = k.checked_sub(1).filter(|&k| i <= p.funcs[k].close);
                assert_eq!(c.function, want, "{}", &src[..src.len().min(60)]);
                calls += 1;
            }
        }
        assert!(calls > 100, "{calls}");
        let p = parse(&texts[0]);
        let s = scan_parsed(&texts[0], &p, &cfg());
        let owners: Vec<Option<usize>> = s.calls.iter().map(|c| c.function).collect();
        assert_eq!(owners, vec![None, Some(0), None, Some(2), None]);
    }

    #[test]
    fn a_spliced_mutator_name_is_one_call() {
        let src = "void F() {\n  pGLContext->SetBlend\\\nFunc(a, a);\n}\n";
        let (s, _) = scan_file(src, &cfg());
        let names: Vec<(&str, u32)> = s
            .calls
            .iter()
            .map(|c| (c.mutator.as_str(), c.line))
            .collect();
        assert_eq!(names, vec![("SetBlendFunc", 2)]);
    }
}
