//! A fast Itanium C++ demangler for the grammar real libraries use, printing exactly the text of
//! libiberty (GNU `c++filt`, verbose mode). It parses into a small arena and prints with
//! libiberty's rules (declarators, `> >`, literal suffixes, pack expansion, reference collapsing).
//!
//! Anything outside its subset (expressions, `decltype`, conversion operators, vendor qualifiers,
//! vectors, float literals, generic lambdas, …) answers `None`, and the caller falls back to the
//! complete but slower `cpp_demangle` path. The subset was measured against `c++filt` over every
//! name of libLLVM-14/15, libclang-cpp, libstdc++, Boost and ICU
//! (`examples/fast_path_agreement.rs`; `tests/demangle_parity.rs` keeps it so): wherever it
//! answers, it answers what `c++filt` prints.
//!
//! `parse` builds the arena (and the substitution table, as the ABI lists candidates); `print`
//! writes libiberty's text, looking template parameters up when printed, as libiberty does.

use std::cell::RefCell;

mod parse;
mod print;
#[cfg(test)]
mod tests;

use parse::Parser;

type Id = u32;
const NONE: Id = u32::MAX;
/// Deeper nesting than this is left to the fallback (it never occurs in real names).
const MAX_DEPTH: u32 = 192;

/// A range of ids in `Demangler::lists`.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

const CONST: u8 = 1;
const VOLATILE: u8 = 2;
const RESTRICT: u8 = 4;
const REF_L: u8 = 1;
const REF_R: u8 = 2;

#[derive(Clone, Copy, Debug)]
enum Node {
    /// An identifier from the mangled name.
    Source(Str),
    /// Fixed text (`std`, `(anonymous namespace)`, builtin types, …).
    Text(&'static str),
    /// A standard abbreviation: its full text, and the name its constructors use.
    Abbrev {
        full: &'static str,
        simple: &'static str,
    },
    Nested(Id, Id),
    Template(Id, Span),
    Cv(Id, u8),
    Ptr(Id),
    LRef(Id),
    RRef(Id),
    Func {
        ret: Id,
        params: Span,
        cv: u8,
        refq: u8,
    },
    Array(Str, Id),
    PtrMem(Id, Id),
    /// A template parameter (`T_` is 0), looked up when printed.
    Param(u32),
    /// `J … E`: an argument pack.
    Pack(Span),
    /// `Dp`: a pack expansion.
    Expand(Id),
    Literal {
        ty: Id,
        neg: bool,
        digits: Str,
    },
    Ctor(Id),
    Dtor(Id),
    Operator(&'static str),
    AbiTag(Id, Str),
    Local(Id, Id),
    Lambda(Span, u32),
    Unnamed(u32),
    Special(&'static str, Id),
    CtorVtable(Id, Id),
    Encoding(Function),
    Clone(Id, Str),
}

/// A function encoding: its name, return type (`NONE` unless the name is a template),
/// parameters, and the member function's cv- and ref-qualifiers.
#[derive(Clone, Copy, Debug)]
struct Function {
    name: Id,
    ret: Id,
    params: Span,
    cv: u8,
    refq: u8,
}

/// Parser and printer state, reused between names to avoid allocation.
#[derive(Default)]
struct Demangler {
    /// The name being demangled; nodes refer to it by byte range.
    text: String,
    /// The output buffer, reused between names.
    out: String,
    nodes: Vec<Node>,
    lists: Vec<Id>,
    scratch: Vec<Id>,
    subs: Vec<Id>,
    in_lambda_sig: bool,
    /// While printing: the template argument lists `T_` refers to, innermost last. As in
    /// libiberty, a template parameter is looked up when printed, in the function being printed.
    templates: Vec<Span>,
    /// Template argument lists taken out of scope while an outer scope prints, innermost last.
    hidden: Vec<Span>,
    /// While printing a pack expansion: which element of the pack is printed.
    pack_index: Option<u32>,
    /// Template parameters printed under a reference, with the scope they were printed in.
    saved_scopes: Vec<(Id, Vec<Span>)>,
    depth: u32,
    /// Output length right after an empty list item took its `, ` back. libiberty's notion of
    /// the last character printed is still that space then, so `A<B<C, >>` (an empty trailing
    /// pack) prints `>>`, not `> >`.
    retracted_at: Option<usize>,
    /// The longest text this name may print to ([`crate::demangle::demangled_limit`]).
    limit: usize,
}

/// A failed parse or print: the name is outside the subset (or not a valid name at all).
struct Unsupported;
type R<T> = Result<T, Unsupported>;
/// A byte range of the name.
type Str = (u32, u32);

thread_local! {
    static SCRATCH: RefCell<Demangler> = RefCell::new(Demangler::default());
}

/// Demangle `name` (which starts with `_Z`) to libiberty's text, or `None` when the name is
/// outside the fast path's grammar. Each thread reuses one arena.
pub(super) fn demangle(name: &str) -> Option<String> {
    demangle_with(name, str::to_string)
}

/// Demangle `name` and hand the text to `f` without allocating it (the text lives in the
/// thread's reused buffer).
pub(super) fn demangle_with<T>(name: &str, f: impl FnOnce(&str) -> T) -> Option<T> {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut d) => {
            let mut out = std::mem::take(&mut d.out);
            let result = d.run(name, &mut out).then(|| f(&out));
            d.out = out;
            result
        }
        Err(_) => {
            let mut out = String::new();
            Demangler::default().run(name, &mut out).then(|| f(&out))
        }
    })
}

impl Demangler {
    /// Demangle into `out` (cleared first); false when the name is outside the subset.
    fn run(&mut self, name: &str, out: &mut String) -> bool {
        out.clear();
        if !name.starts_with("_Z") || name.len() > u32::MAX as usize / 2 {
            return false;
        }
        self.text.clear();
        self.text.push_str(name);
        self.nodes.clear();
        self.lists.clear();
        self.scratch.clear();
        self.subs.clear();
        self.in_lambda_sig = false;
        self.templates.clear();
        self.hidden.clear();
        self.pack_index = None;
        self.saved_scopes.clear();
        self.depth = 0;
        self.retracted_at = None;
        self.limit = crate::demangle::demangled_limit(name.len());
        let mut p = Parser {
            s: name.as_bytes(),
            pos: 2,
        };
        let Ok(top) = self.encoding(&mut p, true) else {
            return false;
        };
        let Ok(top) = self.clone_suffixes(&mut p, top) else {
            return false;
        };
        p.pos == p.s.len() && self.print(top, out).is_ok()
    }

    #[inline]
    fn str(&self, (start, end): Str) -> &str {
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    fn add(&mut self, n: Node) -> Id {
        self.nodes.push(n);
        (self.nodes.len() - 1) as Id
    }

    #[inline]
    fn node(&self, id: Id) -> R<Node> {
        self.nodes.get(id as usize).copied().ok_or(Unsupported)
    }

    fn list(&self, span: Span) -> &[Id] {
        let (s, l) = (span.start as usize, span.len as usize);
        self.lists.get(s..s + l).unwrap_or(&[])
    }

    /// Move `scratch[mark..]` into `lists` as one span.
    fn finish_list(&mut self, mark: usize) -> Span {
        let start = self.lists.len() as u32;
        let len = (self.scratch.len() - mark) as u32;
        self.lists.extend_from_slice(&self.scratch[mark..]);
        self.scratch.truncate(mark);
        Span { start, len }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}
