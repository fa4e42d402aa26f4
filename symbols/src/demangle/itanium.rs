//! A fast Itanium C++ demangler for the grammar real libraries use, printing exactly the text of
//! libiberty (GNU `c++filt`, verbose mode). It parses into a small arena and prints with
//! libiberty's rules (declarators, `> >`, literal suffixes, pack expansion, reference collapsing).
//!
//! Anything outside its subset (expressions, `decltype`, conversion operators, vendor qualifiers,
//! vectors, float literals, generic lambdas, …) answers `None`, and the caller falls back to the
//! complete but slower `cpp_demangle` path. The subset was measured against `c++filt` over every
//! name of libLLVM-14/15, libclang-cpp, libstdc++ and Boost (`examples/demangle_agreement.rs`):
//! wherever it answers, it answers what `c++filt` prints.

use std::cell::RefCell;

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
    Encoding {
        name: Id,
        ret: Id,
        params: Span,
        cv: u8,
        refq: u8,
    },
    Clone(Id, Str),
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
    /// While printing a pack expansion: which element of the pack is printed.
    pack_index: Option<u32>,
    /// Template parameters printed under a reference, with the scope they were printed in.
    saved_scopes: Vec<(Id, Vec<Span>)>,
    depth: u32,
    /// Output length right after an empty list item took its `, ` back. libiberty's notion of
    /// the last character printed is still that space then, so `A<B<C, >>` (an empty trailing
    /// pack) prints `>>`, not `> >`.
    retracted_at: Option<usize>,
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
pub fn demangle(name: &str) -> Option<String> {
    demangle_with(name, str::to_string)
}

/// Demangle `name` and hand the text to `f` without allocating it (the text lives in the
/// thread's reused buffer).
pub fn demangle_with<T>(name: &str, f: impl FnOnce(&str) -> T) -> Option<T> {
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
        self.pack_index = None;
        self.saved_scopes.clear();
        self.depth = 0;
        self.retracted_at = None;
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

    fn str(&self, (start, end): Str) -> &str {
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    fn add(&mut self, n: Node) -> Id {
        self.nodes.push(n);
        (self.nodes.len() - 1) as Id
    }

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

    // ---- parsing -------------------------------------------------------------------------

    /// `<encoding> ::= <name> <bare-function-type> | <name> | <special-name>`
    fn encoding(&mut self, p: &mut Parser<'_>, top: bool) -> R<Id> {
        self.enter()?;
        let r = self.encoding_inner(p, top);
        self.leave();
        r
    }

    fn encoding_inner(&mut self, p: &mut Parser<'_>, top: bool) -> R<Id> {
        match (p.peek(), p.peek_at(1)) {
            (Some(b'T'), Some(c)) if c != b'_' && !c.is_ascii_digit() => {
                return self.special_name(p)
            }
            (Some(b'G'), _) => return self.special_name(p),
            _ => {}
        }
        let (name, cv, refq) = self.name(p)?;
        let at_end = match p.peek() {
            None => true,
            Some(b'E') => !top,
            Some(b'.') => top,
            _ => false,
        };
        if at_end {
            return Ok(name);
        }
        let ret = if self.has_return_type(name)? {
            self.ty(p)?
        } else {
            NONE
        };
        let params = self.params(p)?;
        Ok(self.add(Node::Encoding {
            name,
            ret,
            params,
            cv,
            refq,
        }))
    }

    /// Parameter types up to the end of the encoding; a lone `v` is an empty list.
    fn params(&mut self, p: &mut Parser<'_>) -> R<Span> {
        if p.peek() == Some(b'v') && {
            let mut q = Parser {
                s: p.s,
                pos: p.pos + 1,
            };
            q.at_params_end()
        } {
            p.pos += 1;
            let mark = self.scratch.len();
            return Ok(self.finish_list(mark));
        }
        let mark = self.scratch.len();
        while !p.at_params_end() {
            let t = self.ty(p)?;
            self.scratch.push(t);
        }
        if self.scratch.len() == mark {
            return Err(Unsupported);
        }
        Ok(self.finish_list(mark))
    }

    /// A function name has a return type when it is a template that is not a constructor,
    /// destructor or conversion operator.
    fn has_return_type(&self, name: Id) -> R<bool> {
        Ok(match self.node(name)? {
            Node::Template(inner, _) => !self.is_structor(inner)?,
            Node::Nested(_, last) => self.has_return_type(last)?,
            Node::Local(_, entity) => self.has_return_type(entity)?,
            _ => false,
        })
    }

    /// Whether a name (ignoring its scope and ABI tags) is a constructor or destructor.
    fn is_structor(&self, name: Id) -> R<bool> {
        Ok(match self.node(name)? {
            Node::Ctor(_) | Node::Dtor(_) => true,
            Node::Nested(_, last) => self.is_structor(last)?,
            Node::AbiTag(inner, _) => self.is_structor(inner)?,
            _ => false,
        })
    }

    fn special_name(&mut self, p: &mut Parser<'_>) -> R<Id> {
        let code = (p.next()?, p.next()?);
        let (label, inner) = match code {
            (b'T', b'V') => ("vtable for ", self.ty(p)?),
            (b'T', b'T') => ("VTT for ", self.ty(p)?),
            (b'T', b'I') => ("typeinfo for ", self.ty(p)?),
            (b'T', b'S') => ("typeinfo name for ", self.ty(p)?),
            (b'T', b'h') => {
                p.call_offset(b'h')?;
                ("non-virtual thunk to ", self.encoding(p, false)?)
            }
            (b'T', b'v') => {
                p.call_offset(b'v')?;
                ("virtual thunk to ", self.encoding(p, false)?)
            }
            (b'T', b'c') => {
                let first = p.next()?;
                p.call_offset(first)?;
                let second = p.next()?;
                p.call_offset(second)?;
                ("covariant return thunk to ", self.encoding(p, false)?)
            }
            (b'T', b'W') => ("TLS wrapper function for ", self.name(p)?.0),
            (b'T', b'H') => ("TLS init function for ", self.name(p)?.0),
            (b'T', b'C') => {
                let derived = self.ty(p)?;
                p.number()?;
                p.expect(b'_')?;
                let base = self.ty(p)?;
                return Ok(self.add(Node::CtorVtable(derived, base)));
            }
            (b'G', b'V') => ("guard variable for ", self.name(p)?.0),
            (b'G', b'T') if p.eat(b"t") => ("transaction clone for ", self.encoding(p, false)?),
            _ => return Err(Unsupported),
        };
        Ok(self.add(Node::Special(label, inner)))
    }

    /// `<name>`: nested, local, unscoped (with optional template arguments). Returns the name
    /// and the member function's cv- and ref-qualifiers.
    fn name(&mut self, p: &mut Parser<'_>) -> R<(Id, u8, u8)> {
        match p.peek() {
            Some(b'N') => self.nested(p),
            Some(b'Z') => self.local(p),
            Some(b'S') if p.peek_at(1) != Some(b't') => {
                let s = self.substitution(p)?;
                if p.peek() != Some(b'I') {
                    return Err(Unsupported);
                }
                let args = self.template_args(p)?;
                Ok((self.add(Node::Template(s, args)), 0, 0))
            }
            _ => {
                let n = self.unscoped(p)?;
                if p.peek() == Some(b'I') {
                    self.subs.push(n);
                    let args = self.template_args(p)?;
                    Ok((self.add(Node::Template(n, args)), 0, 0))
                } else {
                    Ok((n, 0, 0))
                }
            }
        }
    }

    /// `<unscoped-name> ::= <unqualified-name> | St <unqualified-name>`
    fn unscoped(&mut self, p: &mut Parser<'_>) -> R<Id> {
        if p.eat(b"St") {
            let std = self.add(Node::Text("std"));
            let n = self.unqualified(p, NONE)?;
            return Ok(self.add(Node::Nested(std, n)));
        }
        self.unqualified(p, NONE)
    }

    /// `N [CV] [ref] <prefix> <unqualified-name> E`; every prefix is a substitution candidate.
    fn nested(&mut self, p: &mut Parser<'_>) -> R<(Id, u8, u8)> {
        self.enter()?;
        let r = self.nested_inner(p);
        self.leave();
        r
    }

    fn nested_inner(&mut self, p: &mut Parser<'_>) -> R<(Id, u8, u8)> {
        p.expect(b'N')?;
        let cv = p.cv_qualifiers();
        let refq = if p.eat(b"R") {
            REF_L
        } else if p.eat(b"O") {
            REF_R
        } else {
            0
        };
        let mut so_far = NONE;
        let mut pushed = false;
        loop {
            match p.peek() {
                Some(b'E') => {
                    p.pos += 1;
                    break;
                }
                Some(b'I') => {
                    if so_far == NONE {
                        return Err(Unsupported);
                    }
                    let args = self.template_args(p)?;
                    so_far = self.add(Node::Template(so_far, args));
                }
                Some(b'S') if p.peek_at(1) == Some(b't') => {
                    if so_far != NONE {
                        return Err(Unsupported);
                    }
                    p.pos += 2;
                    let std = self.add(Node::Text("std"));
                    let n = self.unqualified(p, NONE)?;
                    so_far = self.add(Node::Nested(std, n));
                }
                Some(b'S') => {
                    if so_far != NONE {
                        return Err(Unsupported);
                    }
                    so_far = self.substitution(p)?;
                    continue; // a substitution is not a new candidate
                }
                Some(b'T') => {
                    if so_far != NONE {
                        return Err(Unsupported);
                    }
                    so_far = self.template_param(p)?;
                }
                Some(_) => {
                    let n = self.unqualified(p, so_far)?;
                    so_far = if so_far == NONE {
                        n
                    } else {
                        self.add(Node::Nested(so_far, n))
                    };
                }
                None => return Err(Unsupported),
            }
            self.subs.push(so_far);
            pushed = true;
        }
        if so_far == NONE || !pushed {
            return Err(Unsupported);
        }
        self.subs.pop();
        Ok((so_far, cv, refq))
    }

    /// `<unqualified-name>` with its ABI tags. `scope` is the prefix so far (for constructor
    /// and destructor names).
    fn unqualified(&mut self, p: &mut Parser<'_>, scope: Id) -> R<Id> {
        p.eat(b"L"); // GCC's internal-linkage marker
        let n = match p.peek() {
            Some(c) if c.is_ascii_digit() => self.source_name(p)?,
            Some(b'C') => {
                let kind = p.peek_at(1);
                if !matches!(kind, Some(b'1'..=b'5')) || scope == NONE {
                    return Err(Unsupported);
                }
                p.pos += 2;
                self.add(Node::Ctor(scope))
            }
            Some(b'D') if matches!(p.peek_at(1), Some(b'0'..=b'5')) => {
                if scope == NONE {
                    return Err(Unsupported);
                }
                p.pos += 2;
                self.add(Node::Dtor(scope))
            }
            Some(b'U') => match p.peek_at(1) {
                Some(b't') => {
                    p.pos += 2;
                    let num = p.discriminator_number()?;
                    self.add(Node::Unnamed(num))
                }
                Some(b'l') => {
                    p.pos += 2;
                    self.lambda(p)?
                }
                _ => return Err(Unsupported),
            },
            Some(c) if c.is_ascii_lowercase() => {
                let op = operator(p.next()?, p.next()?).ok_or(Unsupported)?;
                self.add(Node::Operator(op))
            }
            _ => return Err(Unsupported),
        };
        self.abi_tags(p, n)
    }

    fn abi_tags(&mut self, p: &mut Parser<'_>, mut n: Id) -> R<Id> {
        while p.eat(b"B") {
            let len = p.number()?;
            let tag = p.take(len)?;
            n = self.add(Node::AbiTag(n, tag));
        }
        Ok(n)
    }

    fn source_name(&mut self, p: &mut Parser<'_>) -> R<Id> {
        let len = p.number()?;
        let id = p.take(len)?;
        let b = &p.s[id.0 as usize..id.1 as usize];
        if b.len() >= 10
            && b.starts_with(b"_GLOBAL_")
            && matches!(b[8], b'.' | b'_' | b'$')
            && b[9] == b'N'
        {
            return Ok(self.add(Node::Text("(anonymous namespace)")));
        }
        Ok(self.add(Node::Source(id)))
    }

    /// `Ul <lambda-sig> E [<number>] _`
    fn lambda(&mut self, p: &mut Parser<'_>) -> R<Id> {
        let was = std::mem::replace(&mut self.in_lambda_sig, true);
        let params = self.params(p);
        self.in_lambda_sig = was;
        let params = params?;
        p.expect(b'E')?;
        let num = p.discriminator_number()?;
        Ok(self.add(Node::Lambda(params, num)))
    }

    /// `Z <encoding> E <entity> [<discriminator>]` or `Z <encoding> E s [<discriminator>]`
    /// Returns the local name and its entity's member-function qualifiers.
    fn local(&mut self, p: &mut Parser<'_>) -> R<(Id, u8, u8)> {
        p.expect(b'Z')?;
        let enc = self.encoding(p, false)?;
        p.expect(b'E')?;
        let (entity, cv, refq) = if p.eat(b"s") {
            (self.add(Node::Text("string literal")), 0, 0)
        } else if p.peek() == Some(b'd') {
            return Err(Unsupported);
        } else {
            self.name(p)?
        };
        // discriminator: `_ <digit>` or `__ <number> _`
        if p.peek() == Some(b'_')
            && p.peek_at(1)
                .is_some_and(|c| c.is_ascii_digit() || c == b'_')
        {
            p.pos += 1;
            if p.eat(b"_") {
                p.number()?;
                p.expect(b'_')?;
            } else {
                p.pos += 1;
            }
        }
        Ok((self.add(Node::Local(enc, entity)), cv, refq))
    }

    /// `S_`, `S <seq-id> _`, or a standard abbreviation.
    fn substitution(&mut self, p: &mut Parser<'_>) -> R<Id> {
        p.expect(b'S')?;
        let c = p.next()?;
        let abbrev = |full, simple| Node::Abbrev { full, simple };
        let n = match c {
            b'_' => return self.subs.first().copied().ok_or(Unsupported),
            b'a' => abbrev("std::allocator", "allocator"),
            b'b' => abbrev("std::basic_string", "basic_string"),
            b's' => abbrev(
                "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
                "basic_string",
            ),
            b'i' => abbrev(
                "std::basic_istream<char, std::char_traits<char> >",
                "basic_istream",
            ),
            b'o' => abbrev(
                "std::basic_ostream<char, std::char_traits<char> >",
                "basic_ostream",
            ),
            b'd' => abbrev(
                "std::basic_iostream<char, std::char_traits<char> >",
                "basic_iostream",
            ),
            c if c.is_ascii_digit() || c.is_ascii_uppercase() => {
                let mut v: usize = 0;
                let mut c = c;
                loop {
                    let digit = match c {
                        b'0'..=b'9' => c - b'0',
                        b'A'..=b'Z' => c - b'A' + 10,
                        _ => return Err(Unsupported),
                    };
                    v = v
                        .checked_mul(36)
                        .and_then(|v| v.checked_add(usize::from(digit)))
                        .ok_or(Unsupported)?;
                    c = p.next()?;
                    if c == b'_' {
                        break;
                    }
                }
                return self.subs.get(v + 1).copied().ok_or(Unsupported);
            }
            _ => return Err(Unsupported),
        };
        Ok(self.add(n))
    }

    /// `T_` or `T <n> _`
    fn template_param(&mut self, p: &mut Parser<'_>) -> R<Id> {
        p.expect(b'T')?;
        if self.in_lambda_sig {
            return Err(Unsupported);
        }
        let index = if p.eat(b"_") {
            0
        } else {
            let n = p.number()?;
            p.expect(b'_')?;
            n + 1
        };
        let index = u32::try_from(index).map_err(|_| Unsupported)?;
        Ok(self.add(Node::Param(index)))
    }

    /// `I <template-arg>+ E`
    fn template_args(&mut self, p: &mut Parser<'_>) -> R<Span> {
        self.enter()?;
        p.expect(b'I')?;
        let mark = self.scratch.len();
        while !p.eat(b"E") {
            let a = self.template_arg(p)?;
            self.scratch.push(a);
        }
        let span = self.finish_list(mark);
        self.leave();
        Ok(span)
    }

    fn template_arg(&mut self, p: &mut Parser<'_>) -> R<Id> {
        match p.peek() {
            Some(b'L') => self.literal(p),
            Some(b'J') => {
                p.pos += 1;
                let mark = self.scratch.len();
                while !p.eat(b"E") {
                    let a = self.template_arg(p)?;
                    self.scratch.push(a);
                }
                let span = self.finish_list(mark);
                Ok(self.add(Node::Pack(span)))
            }
            Some(b'X') => Err(Unsupported),
            _ => self.ty(p),
        }
    }

    /// `L <type> <value> E` for integer and enum literals.
    fn literal(&mut self, p: &mut Parser<'_>) -> R<Id> {
        p.expect(b'L')?;
        let ty = match p.peek() {
            Some(b'_') | Some(b'Z') => return Err(Unsupported),
            Some(c) if builtin(c).is_some() && c != b'u' => {
                p.pos += 1;
                match c {
                    b'f' | b'd' | b'e' | b'g' | b'v' | b'z' => return Err(Unsupported),
                    _ => self.add(Node::Text(builtin(c).ok_or(Unsupported)?)),
                }
            }
            Some(b'D') => return Err(Unsupported),
            _ => self.ty(p)?,
        };
        let neg = p.eat(b"n");
        let start = p.pos;
        while p.peek().is_some_and(|c| c.is_ascii_digit()) {
            p.pos += 1;
        }
        if p.pos == start {
            return Err(Unsupported);
        }
        let digits = p.since(start);
        p.expect(b'E')?;
        Ok(self.add(Node::Literal { ty, neg, digits }))
    }

    /// `<type>`; every non-builtin type is a substitution candidate.
    fn ty(&mut self, p: &mut Parser<'_>) -> R<Id> {
        self.enter()?;
        let r = self.ty_inner(p);
        self.leave();
        r
    }

    fn ty_inner(&mut self, p: &mut Parser<'_>) -> R<Id> {
        let c = p.peek().ok_or(Unsupported)?;
        if let Some(text) = builtin(c) {
            p.pos += 1;
            return Ok(self.add(Node::Text(text)));
        }
        let t = match c {
            b'r' | b'V' | b'K' => {
                let q = p.cv_qualifiers();
                if p.peek() == Some(b'F') {
                    // A cv-qualified function type is one type (one substitution candidate).
                    let f = self.function_type(p)?;
                    self.add(Node::Cv(f, q))
                } else {
                    let inner = self.ty(p)?;
                    self.add(Node::Cv(inner, q))
                }
            }
            b'P' => {
                p.pos += 1;
                let inner = self.ty(p)?;
                self.add(Node::Ptr(inner))
            }
            b'R' => {
                p.pos += 1;
                let inner = self.ty(p)?;
                self.add(Node::LRef(inner))
            }
            b'O' => {
                p.pos += 1;
                let inner = self.ty(p)?;
                self.add(Node::RRef(inner))
            }
            b'F' => self.function_type(p)?,
            b'A' => {
                p.pos += 1;
                let start = p.pos;
                while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                    p.pos += 1;
                }
                let dim = p.since(start);
                p.expect(b'_')?;
                let elem = self.ty(p)?;
                self.add(Node::Array(dim, elem))
            }
            b'M' => {
                p.pos += 1;
                let class = self.ty(p)?;
                let member = self.ty(p)?;
                self.add(Node::PtrMem(class, member))
            }
            b'T' => {
                let t = self.template_param(p)?;
                if p.peek() == Some(b'I') {
                    self.subs.push(t);
                    let args = self.template_args(p)?;
                    self.add(Node::Template(t, args))
                } else {
                    t
                }
            }
            b'S' => {
                if p.peek_at(1) == Some(b't') {
                    let n = self.unscoped(p)?;
                    if p.peek() == Some(b'I') {
                        self.subs.push(n);
                        let args = self.template_args(p)?;
                        self.add(Node::Template(n, args))
                    } else {
                        n
                    }
                } else {
                    let s = self.substitution(p)?;
                    if p.peek() != Some(b'I') {
                        return Ok(s);
                    }
                    let args = self.template_args(p)?;
                    self.add(Node::Template(s, args))
                }
            }
            b'N' => {
                let (n, cv, refq) = self.nested(p)?;
                if cv != 0 || refq != 0 {
                    return Err(Unsupported);
                }
                n
            }
            b'Z' => self.local(p)?.0,
            b'D' => match p.peek_at(1) {
                Some(b'p') => {
                    p.pos += 2;
                    let inner = self.ty(p)?;
                    self.add(Node::Expand(inner))
                }
                Some(c2) => {
                    let text = match c2 {
                        b'n' => "decltype(nullptr)",
                        b'a' => "auto",
                        b'c' => "decltype(auto)",
                        b'i' => "char32_t",
                        b's' => "char16_t",
                        b'u' => "char8_t",
                        _ => return Err(Unsupported),
                    };
                    p.pos += 2;
                    return Ok(self.add(Node::Text(text)));
                }
                None => return Err(Unsupported),
            },
            c if c.is_ascii_digit() => {
                let n = self.unqualified(p, NONE)?;
                if p.peek() == Some(b'I') {
                    self.subs.push(n);
                    let args = self.template_args(p)?;
                    self.add(Node::Template(n, args))
                } else {
                    n
                }
            }
            _ => return Err(Unsupported),
        };
        self.subs.push(t);
        Ok(t)
    }

    /// `F [Y] <return type> <parameter types> [<ref-qualifier>] E`
    fn function_type(&mut self, p: &mut Parser<'_>) -> R<Id> {
        p.expect(b'F')?;
        p.eat(b"Y");
        let ret = self.ty(p)?;
        let params = self.params(p)?;
        let refq = if p.eat(b"R") {
            REF_L
        } else if p.eat(b"O") {
            REF_R
        } else {
            0
        };
        p.expect(b'E')?;
        Ok(self.add(Node::Func {
            ret,
            params,
            cv: 0,
            refq,
        }))
    }

    /// `.cold`, `.isra.0`, `.constprop.1`, … : ` [clone .cold]` each.
    fn clone_suffixes(&mut self, p: &mut Parser<'_>, mut top: Id) -> R<Id> {
        while p.peek() == Some(b'.')
            && p.peek_at(1)
                .is_some_and(|c| c.is_ascii_lowercase() || c == b'_' || c.is_ascii_digit())
        {
            let start = p.pos;
            p.pos += 2;
            while p
                .peek()
                .is_some_and(|c| c.is_ascii_lowercase() || c == b'_' || c.is_ascii_digit())
            {
                p.pos += 1;
            }
            while p.peek() == Some(b'.') && p.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 2;
                while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                    p.pos += 1;
                }
            }
            top = self.add(Node::Clone(top, p.since(start)));
        }
        Ok(top)
    }

    // ---- printing ------------------------------------------------------------------------

    fn print(&mut self, id: Id, out: &mut String) -> R<()> {
        self.enter()?;
        let r = self.print_inner(id, out);
        self.leave();
        r
    }

    fn print_inner(&mut self, id: Id, out: &mut String) -> R<()> {
        match self.node(id)? {
            Node::Source(s) => out.push_str(self.str(s)),
            Node::Text(s) => out.push_str(s),
            Node::Abbrev { full, .. } => out.push_str(full),
            Node::Nested(a, b) => {
                self.print(a, out)?;
                out.push_str("::");
                self.print(b, out)?;
            }
            Node::Template(name, args) => {
                self.print(name, out)?;
                if self.last_char(out) == Some('<') {
                    out.push(' ');
                }
                out.push('<');
                self.print_list(args, out)?;
                if self.last_char(out) == Some('>') {
                    out.push(' ');
                }
                out.push('>');
            }
            Node::Ctor(scope) => self.print_ctor_name(scope, out)?,
            Node::Dtor(scope) => {
                out.push('~');
                self.print_ctor_name(scope, out)?;
            }
            Node::Operator(op) => {
                out.push_str("operator");
                if op.as_bytes().first().is_some_and(u8::is_ascii_lowercase) {
                    out.push(' ');
                }
                out.push_str(op);
            }
            Node::AbiTag(n, tag) => {
                self.print(n, out)?;
                out.push_str("[abi:");
                out.push_str(self.str(tag));
                out.push(']');
            }
            Node::Local(enc, entity) => {
                // libiberty prints a local name's function without its return type.
                match self.node(enc)? {
                    Node::Encoding {
                        name,
                        params,
                        cv,
                        refq,
                        ..
                    } => self.print_function(name, NONE, params, cv, refq, out)?,
                    _ => self.print(enc, out)?,
                }
                out.push_str("::");
                self.print(entity, out)?;
            }
            Node::Lambda(params, num) => {
                out.push_str("{lambda(");
                self.print_list(params, out)?;
                out.push_str(")#");
                push_num(out, num);
                out.push('}');
            }
            Node::Unnamed(num) => {
                out.push_str("{unnamed type#");
                push_num(out, num);
                out.push('}');
            }
            Node::Special(label, inner) => {
                out.push_str(label);
                self.print(inner, out)?;
            }
            Node::CtorVtable(derived, base) => {
                out.push_str("construction vtable for ");
                self.print(base, out)?;
                out.push_str("-in-");
                self.print(derived, out)?;
            }
            Node::Encoding {
                name,
                ret,
                params,
                cv,
                refq,
            } => self.print_function(name, ret, params, cv, refq, out)?,
            Node::Clone(inner, suffix) => {
                self.print(inner, out)?;
                out.push_str(" [clone ");
                out.push_str(self.str(suffix));
                out.push(']');
            }
            Node::Literal { ty, neg, digits } => self.print_literal(ty, neg, digits, out)?,
            Node::Param(_) => {
                let (arg, depth) = self.resolve(id, self.templates.len())?;
                self.print_at(arg, depth, out)?;
            }
            Node::Pack(span) => self.print_list(span, out)?,
            Node::Expand(pattern) => {
                let len = self.find_pack(pattern)?.ok_or(Unsupported)?;
                let saved = self.pack_index;
                let mut r = Ok(());
                for i in 0..len {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.pack_index = Some(i);
                    r = self.print(pattern, out);
                    if r.is_err() {
                        break;
                    }
                }
                self.pack_index = saved;
                r?;
            }
            Node::Cv(..)
            | Node::Ptr(_)
            | Node::LRef(_)
            | Node::RRef(_)
            | Node::Func { .. }
            | Node::Array(..)
            | Node::PtrMem(..) => self.print_type(id, out)?,
        }
        Ok(())
    }

    /// Print with only the outermost `depth` template argument lists in scope: what a
    /// template parameter stands for is printed in the scope outside the one it was found in.
    fn print_at(&mut self, id: Id, depth: usize, out: &mut String) -> R<()> {
        if depth >= self.templates.len() {
            return self.print(id, out);
        }
        let inner = self.templates.split_off(depth);
        let r = self.print(id, out);
        self.templates.extend(inner);
        r
    }

    /// A function: while its return type, name and parameters print, `T_` refers to the
    /// template arguments of its name (of the entity, for a local name), as in libiberty.
    fn print_function(
        &mut self,
        name: Id,
        ret: Id,
        params: Span,
        cv: u8,
        refq: u8,
        out: &mut String,
    ) -> R<()> {
        let args = self.template_args_of(name)?;
        if let Some(args) = args {
            self.templates.push(args);
        }
        let r = self.print_function_body(name, ret, params, cv, refq, out);
        if args.is_some() {
            self.templates.pop();
        }
        r
    }

    fn print_function_body(
        &mut self,
        name: Id,
        ret: Id,
        params: Span,
        cv: u8,
        refq: u8,
        out: &mut String,
    ) -> R<()> {
        if ret != NONE {
            if self.needs_declarator(ret, self.templates.len())? {
                return Err(Unsupported);
            }
            self.print(ret, out)?;
            out.push(' ');
        }
        self.print(name, out)?;
        out.push('(');
        self.print_list(params, out)?;
        out.push(')');
        push_cv(out, cv);
        push_ref(out, refq);
        Ok(())
    }

    /// The template arguments a function's `T_` refer to: those of its name when the name
    /// is a template (looking through a local name to its entity).
    fn template_args_of(&self, name: Id) -> R<Option<Span>> {
        Ok(match self.node(name)? {
            Node::Template(_, args) => Some(args),
            Node::Local(_, entity) => self.template_args_of(entity)?,
            _ => None,
        })
    }

    /// A comma-separated list. libiberty prints `first, <rest>` and takes the `, ` back when
    /// the rest printed nothing, so trailing empty packs vanish with their commas while a
    /// leading or inner one leaves its comma (`f<>(, int)`).
    fn print_list(&mut self, span: Span, out: &mut String) -> R<()> {
        let mut keep = out.len();
        for k in 0..span.len {
            let item = *self.list(span).get(k as usize).ok_or(Unsupported)?;
            if k > 0 {
                out.push_str(", ");
            }
            let before = out.len();
            self.print(item, out)?;
            if out.len() > before {
                keep = out.len();
            }
        }
        if out.len() != keep {
            out.truncate(keep);
            self.retracted_at = Some(keep);
        }
        Ok(())
    }

    /// The last character printed, as libiberty tracks it (see `retracted_at`).
    fn last_char(&self, out: &str) -> Option<char> {
        if self.retracted_at == Some(out.len()) {
            return Some(' ');
        }
        out.chars().next_back()
    }

    /// The length of the first argument pack a template parameter inside `id` stands for
    /// (libiberty's `d_find_pack`: left to right through everything but names).
    fn find_pack(&self, id: Id) -> R<Option<u32>> {
        let depth = self.templates.len();
        Ok(match self.node(id)? {
            Node::Param(i) => {
                let span = *self
                    .templates
                    .get(depth.wrapping_sub(1))
                    .ok_or(Unsupported)?;
                let arg = *self.list(span).get(i as usize).ok_or(Unsupported)?;
                match self.node(arg)? {
                    Node::Pack(p) => Some(p.len),
                    _ => None,
                }
            }
            Node::Cv(i, _) | Node::Ptr(i) | Node::LRef(i) | Node::RRef(i) | Node::Array(_, i) => {
                self.find_pack(i)?
            }
            Node::PtrMem(a, b) | Node::Nested(a, b) => match self.find_pack(a)? {
                Some(x) => Some(x),
                None => self.find_pack(b)?,
            },
            Node::Template(n, args) => match self.find_pack(n)? {
                Some(x) => Some(x),
                None => self.find_pack_in(args)?,
            },
            Node::Pack(items) => self.find_pack_in(items)?,
            Node::Func { ret, params, .. } => match self.find_pack(ret)? {
                Some(x) => Some(x),
                None => self.find_pack_in(params)?,
            },
            _ => None,
        })
    }

    fn find_pack_in(&self, span: Span) -> R<Option<u32>> {
        for &a in self.list(span) {
            if let Some(x) = self.find_pack(a)? {
                return Ok(Some(x));
            }
        }
        Ok(None)
    }

    /// The constructor/destructor name: the last component of the scope, without template
    /// arguments or ABI tags.
    fn print_ctor_name(&mut self, scope: Id, out: &mut String) -> R<()> {
        match self.node(scope)? {
            Node::Nested(_, last) => self.print_ctor_name(last, out),
            Node::Template(name, _) => self.print_ctor_name(name, out),
            Node::Abbrev { simple, .. } => {
                out.push_str(simple);
                Ok(())
            }
            Node::Source(_) | Node::Text(_) => self.print(scope, out),
            Node::AbiTag(inner, _) => self.print_ctor_name(inner, out),
            _ => Err(Unsupported),
        }
    }

    fn print_literal(&mut self, ty: Id, neg: bool, digits: Str, out: &mut String) -> R<()> {
        let suffix = match self.node(ty)? {
            Node::Text("int") => Some(""),
            Node::Text("unsigned int") => Some("u"),
            Node::Text("long") => Some("l"),
            Node::Text("unsigned long") => Some("ul"),
            Node::Text("long long") => Some("ll"),
            Node::Text("unsigned long long") => Some("ull"),
            Node::Text("bool") if !neg && matches!(self.str(digits), "0" | "1") => {
                out.push_str(if self.str(digits) == "0" {
                    "false"
                } else {
                    "true"
                });
                return Ok(());
            }
            _ => None,
        };
        match suffix {
            Some(s) => {
                if neg {
                    out.push('-');
                }
                out.push_str(self.str(digits));
                out.push_str(s);
            }
            None => {
                out.push('(');
                self.print(ty, out)?;
                out.push(')');
                if neg {
                    out.push('-');
                }
                out.push_str(self.str(digits));
            }
        }
        Ok(())
    }

    /// Follow template parameters to what they stand for. `depth` is how many template
    /// argument lists are in scope; each lookup leaves the innermost one behind.
    fn resolve(&self, mut id: Id, mut depth: usize) -> R<(Id, usize)> {
        for _ in 0..MAX_DEPTH {
            let Node::Param(i) = self.node(id)? else {
                return Ok((id, depth));
            };
            let span = *self
                .templates
                .get(depth.wrapping_sub(1))
                .ok_or(Unsupported)?;
            id = *self.list(span).get(i as usize).ok_or(Unsupported)?;
            depth -= 1;
            if let Node::Pack(p) = self.node(id)? {
                let k = self.pack_index.ok_or(Unsupported)?;
                id = *self.list(p).get(k as usize).ok_or(Unsupported)?;
            }
        }
        Err(Unsupported)
    }

    /// Whether a type prints with a C declarator (`void (*)(int)`, `int (&) [4]`).
    fn needs_declarator(&self, id: Id, depth: usize) -> R<bool> {
        let (mut id, mut depth) = self.resolve(id, depth)?;
        for _ in 0..MAX_DEPTH {
            match self.node(id)? {
                Node::Cv(i, _) | Node::Ptr(i) | Node::LRef(i) | Node::RRef(i) => {
                    (id, depth) = self.resolve(i, depth)?
                }
                Node::Func { .. } | Node::Array(..) => return Ok(true),
                Node::PtrMem(_, m) => {
                    let (m, _) = self.resolve(m, depth)?;
                    return Ok(matches!(self.node(m)?, Node::Func { .. } | Node::Cv(..)));
                }
                _ => return Ok(false),
            }
        }
        Err(Unsupported)
    }

    /// Types built from modifiers around a core: the modifiers are collected from the outside
    /// in (collapsing references), then printed in C's declarator syntax. Each part remembers
    /// the template scope it was reached in.
    fn print_type(&mut self, id: Id, out: &mut String) -> R<()> {
        // libiberty remembers the template scope in which a template parameter under a
        // reference is first printed, and prints it in that scope when a substitution brings
        // the same parameter back.
        if let Node::LRef(i) | Node::RRef(i) = self.node(id)? {
            if let Node::Param(_) = self.node(i)? {
                match self.saved_scopes.iter().position(|(p, _)| *p == i) {
                    Some(k) => {
                        let scope = self.saved_scopes[k].1.clone();
                        let current = std::mem::replace(&mut self.templates, scope);
                        let r = self.print_type_in_scope(id, out);
                        self.templates = current;
                        return r;
                    }
                    None => self.saved_scopes.push((i, self.templates.clone())),
                }
            }
        }
        self.print_type_in_scope(id, out)
    }

    fn print_type_in_scope(&mut self, id: Id, out: &mut String) -> R<()> {
        // Modifiers from outermost to innermost.
        let mut mods = ModStack::default();
        let (mut cur, mut depth) = self.resolve(id, self.templates.len())?;
        loop {
            match self.node(cur)? {
                Node::Ptr(i) => {
                    mods.push((Modifier::Ptr, depth))?;
                    (cur, depth) = self.resolve(i, depth)?;
                }
                Node::LRef(i) | Node::RRef(i) => {
                    let mut lvalue = matches!(self.node(cur)?, Node::LRef(_));
                    (cur, depth) = self.resolve(i, depth)?;
                    // reference collapsing: & + && = &
                    loop {
                        match self.node(cur)? {
                            Node::LRef(j) => {
                                lvalue = true;
                                (cur, depth) = self.resolve(j, depth)?;
                            }
                            Node::RRef(j) => (cur, depth) = self.resolve(j, depth)?,
                            _ => break,
                        }
                    }
                    let m = if lvalue {
                        Modifier::LRef
                    } else {
                        Modifier::RRef
                    };
                    mods.push((m, depth))?;
                }
                Node::Cv(i, q) => {
                    let (inner, d) = self.resolve(i, depth)?;
                    if let Node::Func { .. } = self.node(inner)? {
                        mods.push((Modifier::FuncCv(q), depth))?;
                    } else {
                        // A qualifier already applied by the run of cv-qualifiers just outside
                        // (`const T` with `T = int const`) is printed once, as libiberty does.
                        let outer: u8 = mods
                            .as_slice()
                            .iter()
                            .rev()
                            .map_while(|(m, _)| match m {
                                Modifier::Cv(q) => Some(*q),
                                _ => None,
                            })
                            .fold(0, |a, q| a | q);
                        mods.push((Modifier::Cv(q & !outer), depth))?;
                    }
                    (cur, depth) = (inner, d);
                }
                Node::PtrMem(class, member) => {
                    let (mut m, mut d) = self.resolve(member, depth)?;
                    let mut fcv = 0;
                    if let Node::Cv(i, q) = self.node(m)? {
                        let (fi, fd) = self.resolve(i, d)?;
                        if let Node::Func { .. } = self.node(fi)? {
                            fcv = q;
                            (m, d) = (fi, fd);
                        }
                    }
                    if let Node::Func { .. } = self.node(m)? {
                        mods.push((Modifier::Member(class), depth))?;
                        if fcv != 0 {
                            mods.push((Modifier::FuncCv(fcv), depth))?;
                        }
                    } else {
                        if self.needs_declarator(m, d)? {
                            return Err(Unsupported);
                        }
                        mods.push((Modifier::MemberData(class), depth))?;
                    }
                    (cur, depth) = (m, d);
                }
                _ => break,
            }
        }
        match self.node(cur)? {
            Node::Func {
                ret,
                params,
                cv,
                refq,
            } => {
                // Function cv-qualifiers directly above the core belong after the parameters.
                let mut fcv = cv;
                while let Some((Modifier::FuncCv(q), _)) = mods.last() {
                    fcv |= *q;
                    mods.pop();
                }
                if self.needs_declarator(ret, depth)? {
                    return Err(Unsupported);
                }
                self.print_at(ret, depth, out)?;
                if mods.is_empty() {
                    out.push(' ');
                } else {
                    out.push_str(" (");
                    self.print_mods(mods.as_slice(), out)?;
                    out.push(')');
                }
                out.push('(');
                let saved = self.templates.split_off(depth.min(self.templates.len()));
                let r = self.print_list(params, out);
                self.templates.extend(saved);
                r?;
                out.push(')');
                push_cv(out, fcv);
                push_ref(out, refq);
            }
            Node::Array(..) => {
                let mut dims: Vec<Str> = Vec::new();
                let mut elem = cur;
                while let Node::Array(dim, e) = self.node(elem)? {
                    dims.push(dim);
                    (elem, depth) = self.resolve(e, depth)?;
                    if dims.len() > MAX_DEPTH as usize {
                        return Err(Unsupported);
                    }
                }
                if self.needs_declarator(elem, depth)? {
                    return Err(Unsupported);
                }
                self.print_at(elem, depth, out)?;
                // Qualifiers of an array type belong to its elements.
                while let Some((Modifier::Cv(q), _)) = mods.last() {
                    push_cv(out, *q);
                    mods.pop();
                }
                if mods.is_empty() {
                    out.push(' ');
                } else {
                    out.push_str(" (");
                    self.print_mods(mods.as_slice(), out)?;
                    out.push_str(") ");
                }
                for d in dims {
                    out.push('[');
                    out.push_str(self.str(d));
                    out.push(']');
                }
            }
            _ => {
                self.print_at(cur, depth, out)?;
                self.print_mods(mods.as_slice(), out)?;
            }
        }
        Ok(())
    }

    /// Print modifiers innermost first (the order C reads them back).
    fn print_mods(&mut self, mods: &[(Modifier, usize)], out: &mut String) -> R<()> {
        for &(m, depth) in mods.iter().rev() {
            match m {
                Modifier::Ptr => out.push('*'),
                Modifier::LRef => out.push('&'),
                Modifier::RRef => out.push_str("&&"),
                Modifier::Cv(q) => push_cv(out, q),
                Modifier::FuncCv(_) => return Err(Unsupported),
                Modifier::Member(class) => {
                    self.print_at(class, depth, out)?;
                    out.push_str("::*");
                }
                Modifier::MemberData(class) => {
                    out.push(' ');
                    self.print_at(class, depth, out)?;
                    out.push_str("::*");
                }
            }
        }
        Ok(())
    }
}

/// The modifiers of one type, on the stack (real types have a handful; more is declined).
struct ModStack {
    items: [(Modifier, usize); 16],
    len: usize,
}

impl Default for ModStack {
    fn default() -> Self {
        ModStack {
            items: [(Modifier::Ptr, 0); 16],
            len: 0,
        }
    }
}

impl ModStack {
    fn push(&mut self, m: (Modifier, usize)) -> R<()> {
        let slot = self.items.get_mut(self.len).ok_or(Unsupported)?;
        *slot = m;
        self.len += 1;
        Ok(())
    }

    fn as_slice(&self) -> &[(Modifier, usize)] {
        &self.items[..self.len]
    }

    fn last(&self) -> Option<&(Modifier, usize)> {
        self.as_slice().last()
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[derive(Clone, Copy)]
enum Modifier {
    Ptr,
    LRef,
    RRef,
    Cv(u8),
    FuncCv(u8),
    Member(Id),
    MemberData(Id),
}

/// libiberty nests `rVK` outside in, so it prints them inside out: ` const volatile restrict`.
fn push_cv(out: &mut String, q: u8) {
    if q & CONST != 0 {
        out.push_str(" const");
    }
    if q & VOLATILE != 0 {
        out.push_str(" volatile");
    }
    if q & RESTRICT != 0 {
        out.push_str(" restrict");
    }
}

fn push_ref(out: &mut String, r: u8) {
    match r {
        REF_L => out.push_str(" &"),
        REF_R => out.push_str(" &&"),
        _ => {}
    }
}

fn push_num(out: &mut String, n: u32) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

struct Parser<'n> {
    s: &'n [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.pos + k).copied()
    }

    fn next(&mut self) -> R<u8> {
        let c = self.peek().ok_or(Unsupported)?;
        self.pos += 1;
        Ok(c)
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.s[self.pos.min(self.s.len())..].starts_with(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> R<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Unsupported)
        }
    }

    /// A non-negative decimal number (at most 9 digits; longer is not a real name).
    fn number(&mut self) -> R<usize> {
        let start = self.pos;
        let mut v: usize = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            v = v * 10 + usize::from(c - b'0');
            self.pos += 1;
            if self.pos - start > 9 {
                return Err(Unsupported);
            }
        }
        if self.pos == start {
            return Err(Unsupported);
        }
        Ok(v)
    }

    /// `len` bytes of identifier, as a range; it must end on a character boundary.
    fn take(&mut self, len: usize) -> R<Str> {
        let end = self.pos.checked_add(len).ok_or(Unsupported)?;
        if len == 0 || end > self.s.len() {
            return Err(Unsupported);
        }
        if self.s.get(end).is_some_and(|&b| (0x80..0xC0).contains(&b)) {
            return Err(Unsupported);
        }
        let range = (self.pos as u32, end as u32);
        self.pos = end;
        Ok(range)
    }

    /// The range from `start` to the current position.
    fn since(&self, start: usize) -> Str {
        (start as u32, self.pos as u32)
    }

    /// The end of a parameter list: the name's end, a clone suffix, `E`, or a function type's
    /// ref-qualifier before its `E`.
    fn at_params_end(&mut self) -> bool {
        match self.peek() {
            None | Some(b'E') | Some(b'.') => true,
            Some(b'R') | Some(b'O') => self.peek_at(1) == Some(b'E'),
            _ => false,
        }
    }

    /// `[r] [V] [K]`
    fn cv_qualifiers(&mut self) -> u8 {
        let mut q = 0;
        if self.eat(b"r") {
            q |= RESTRICT;
        }
        if self.eat(b"V") {
            q |= VOLATILE;
        }
        if self.eat(b"K") {
            q |= CONST;
        }
        q
    }

    /// `_` → 1, `<n> _` → n + 2 (lambda and unnamed-type numbering).
    fn discriminator_number(&mut self) -> R<u32> {
        if self.eat(b"_") {
            return Ok(1);
        }
        let n = self.number()?;
        self.expect(b'_')?;
        u32::try_from(n + 2).map_err(|_| Unsupported)
    }

    /// `h <offset> _` or `v <offset> _ <offset> _`, the kind already consumed.
    fn call_offset(&mut self, kind: u8) -> R<()> {
        let count = match kind {
            b'h' => 1,
            b'v' => 2,
            _ => return Err(Unsupported),
        };
        for _ in 0..count {
            self.eat(b"n");
            self.number()?;
            self.expect(b'_')?;
        }
        Ok(())
    }
}

fn builtin(c: u8) -> Option<&'static str> {
    Some(match c {
        b'v' => "void",
        b'w' => "wchar_t",
        b'b' => "bool",
        b'c' => "char",
        b'a' => "signed char",
        b'h' => "unsigned char",
        b's' => "short",
        b't' => "unsigned short",
        b'i' => "int",
        b'j' => "unsigned int",
        b'l' => "long",
        b'm' => "unsigned long",
        b'x' => "long long",
        b'y' => "unsigned long long",
        b'n' => "__int128",
        b'o' => "unsigned __int128",
        b'f' => "float",
        b'd' => "double",
        b'e' => "long double",
        b'g' => "__float128",
        b'z' => "...",
        _ => return None,
    })
}

fn operator(a: u8, b: u8) -> Option<&'static str> {
    Some(match (a, b) {
        (b'n', b'w') => "new",
        (b'n', b'a') => "new[]",
        (b'd', b'l') => "delete",
        (b'd', b'a') => "delete[]",
        (b'p', b's') => "+",
        (b'n', b'g') => "-",
        (b'a', b'd') => "&",
        (b'd', b'e') => "*",
        (b'c', b'o') => "~",
        (b'p', b'l') => "+",
        (b'm', b'i') => "-",
        (b'm', b'l') => "*",
        (b'd', b'v') => "/",
        (b'r', b'm') => "%",
        (b'a', b'n') => "&",
        (b'o', b'r') => "|",
        (b'e', b'o') => "^",
        (b'a', b'S') => "=",
        (b'p', b'L') => "+=",
        (b'm', b'I') => "-=",
        (b'm', b'L') => "*=",
        (b'd', b'V') => "/=",
        (b'r', b'M') => "%=",
        (b'a', b'N') => "&=",
        (b'o', b'R') => "|=",
        (b'e', b'O') => "^=",
        (b'l', b's') => "<<",
        (b'r', b's') => ">>",
        (b'l', b'S') => "<<=",
        (b'r', b'S') => ">>=",
        (b'e', b'q') => "==",
        (b'n', b'e') => "!=",
        (b'l', b't') => "<",
        (b'g', b't') => ">",
        (b'l', b'e') => "<=",
        (b'g', b'e') => ">=",
        (b's', b's') => "<=>",
        (b'n', b't') => "!",
        (b'a', b'a') => "&&",
        (b'o', b'o') => "||",
        (b'p', b'p') => "++",
        (b'm', b'm') => "--",
        (b'c', b'm') => ",",
        (b'p', b'm') => "->*",
        (b'p', b't') => "->",
        (b'c', b'l') => "()",
        (b'i', b'x') => "[]",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::demangle;

    /// Expected texts are GNU c++filt 2.40's output for each name.
    const CASES: &[(&str, &str)] = &[
        ("_ZN1AE", "A"),
        ("_Z1fIJEEviDpRKT_", "void f<>(int)"),
        ("_Z1fIJEEvDpRKT_i", "void f<>(, int)"),
        ("_Z1fIJEiEvDpRKT_T0_", "void f<, int>(, int)"),
        ("_Z1gIJEiEvv", "void g<, int>()"),
        ("_ZN4llvm11PassManagerINS_6ModuleENS_15AnalysisManagerIS1_JEEEJEE10isRequiredEv", "llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>>::isRequired()"),
        ("_Z1fIKiEvRKT_", "void f<int const>(int const&)"),
        ("_Z1fIVKiEvRKT_", "void f<int const volatile>(int volatile const&)"),
        ("_Z1fIA3_iEvRKT_", "void f<int [3]>(int const (&) [3])"),
        ("_Z1fPFviEPA4_iM1AFvvEM1AKFivEM1AiRA2_A3_KcKPFvvE", "f(void (*)(int), int (*) [4], void (A::*)(), int (A::*)() const, int A::*, char const (&) [2][3], void (* const)())"),
        ("_ZZN4llvm3fooIiEEjvE1x", "llvm::foo<int>()::x"),
        ("_ZZN4llvm3fooIiEEjvENKUlvE0_clEv", "llvm::foo<int>()::{lambda()#2}::operator()() const"),
        ("_ZNSt8ios_base7failureB5cxx11C1EPKc", "std::ios_base::failure[abi:cxx11]::failure(char const*)"),
        ("_ZN12_GLOBAL__N_13fooEv.cold", "(anonymous namespace)::foo() [clone .cold]"),
        ("_ZN1A1fEv.isra.0.constprop.1", "A::f() [clone .isra.0] [clone .constprop.1]"),
        ("_Z1fILi8ELj8ELl8ELm8ELx8ELy8ELb1ELb0ELin3ELc65ELs2EEvv", "void f<8, 8u, 8l, 8ul, 8ll, 8ull, true, false, -3, (char)65, (short)2>()"),
        ("_Z1fIN1A1BELS1_3EEvv", "void f<A::B, (A::B)3>()"),
        ("_ZNSsC1ERKSs", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string(std::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)"),
        ("_ZNKSt5ctypeIcE8do_widenEc", "std::ctype<char>::do_widen(char) const"),
        ("_ZTv0_n24_N4llvm1A1fEv", "virtual thunk to llvm::A::f()"),
        ("_ZTCN4llvm1AE0_NS_1BE", "construction vtable for llvm::B-in-llvm::A"),
        ("_ZGVZN1A1fEvE1x_0", "guard variable for A::f()::x"),
        ("_ZNK1A1fEv", "A::f() const"),
        ("_ZNVKR1A1fEv", "A::f() const volatile &"),
        ("_ZNO1A1fEv", "A::f() &&"),
        ("_ZGTtNKSt9exception4whatEv", "transaction clone for std::exception::what() const"),
        ("_ZN1AplERKS_", "A::operator+(A const&)"),
        ("_ZN1AnwEm", "A::operator new(unsigned long)"),
        ("_ZN1AltIiEEbv", "bool A::operator< <int>()"),
        ("_Z1fPVKrPi", "f(int* restrict const volatile*)"),
        ("_Z1fDnDaDiDs", "f(decltype(nullptr), auto, char32_t, char16_t)"),
        ("_ZNSt6vectorIiSaIiEE9push_backEOi", "std::vector<int, std::allocator<int> >::push_back(int&&)"),
        ("_Z1fIiEvPFT_vE", "void f<int>(int (*)())"),
        ("_ZTSPFvvE", "typeinfo name for void (*)()"),
        ("_ZN1AC2IJiEEEDpOT_", "A::A<int>(int&&)"),
        ("_ZZNSt9once_flag18_Prepare_executionC4IZSt9call_onceIRFvvEJEEvRS_OT_DpOT0_EUlvE_EERS6_ENUlvE_4_FUNEv", "std::once_flag::_Prepare_execution::_Prepare_execution<std::call_once<void (&)()>(std::once_flag&, void (&)())::{lambda()#1}>(void (&)())::{lambda()#1}::_FUN()"),
        ("_ZN4llvm2cl5applyINS0_3optIbLb0ENS0_6parserIbEEEEA14_cJNS0_4descEEEEvPT_RKT0_DpRKT1_", "void llvm::cl::apply<llvm::cl::opt<bool, false, llvm::cl::parser<bool> >, char [14], llvm::cl::desc>(llvm::cl::opt<bool, false, llvm::cl::parser<bool> >*, char const (&) [14], llvm::cl::desc const&)"),
        ("_ZN5clang6interp15ByteCodeEmitter6emitOpIJEEEbNS0_6OpcodeEDpRKT_RKNS0_10SourceInfoE", "bool clang::interp::ByteCodeEmitter::emitOp<>(clang::interp::Opcode, , clang::interp::SourceInfo const&)"),
    ];

    #[test]
    fn prints_what_cxxfilt_prints() {
        for (mangled, text) in CASES {
            assert_eq!(demangle(mangled).as_deref(), Some(*text), "{mangled}");
        }
    }

    #[test]
    fn declines_what_it_does_not_cover() {
        // expressions, conversion operators, decltype, vendor qualifiers, and junk
        for name in [
            "_Z1fIiEDTplfp_fp_ET_",
            "_ZN1AcviEv",
            "_Z1fIiEvRAstT__i",
            "_Z1fPU3AS1i",
            "_Z",
            "_Z1",
            "_Z3foo",
            "_Z3fooS_",
            "_Z1fT_",
            "_Z1fv.Lfoo",
        ] {
            if name == "_Z3foo" {
                assert_eq!(demangle(name).as_deref(), Some("foo"));
                continue;
            }
            assert_eq!(demangle(name), None, "{name}");
        }
    }

    /// Every prefix of every case, and every case with one byte replaced, must come back
    /// (with text or `None`) without a panic.
    #[test]
    fn never_panics_on_cut_or_corrupted_names() {
        for (mangled, _) in CASES {
            for cut in 0..=mangled.len() {
                let _ = demangle(&mangled[..cut]);
            }
            for at in 2..mangled.len() {
                for b in ["_", "E", "S", "T", "0", "9", "I", "J", "N", "Z", "\u{e9}"] {
                    let mut s = mangled[..at].to_string();
                    s.push_str(b);
                    s.push_str(&mangled[at + 1..]);
                    let _ = demangle(&s);
                }
            }
        }
    }
}
