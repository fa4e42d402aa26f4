//! Parsing: the mangled grammar into the arena, recording substitution candidates as the
//! Itanium ABI lists them.

use super::*;

impl Demangler {
    /// `<encoding> ::= <name> <bare-function-type> | <name> | <special-name>`
    pub(super) fn encoding(&mut self, p: &mut Parser<'_>, top: bool) -> R<Id> {
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
        Ok(self.add(Node::Encoding(Function {
            name,
            ret,
            params,
            cv,
            refq,
        })))
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
    pub(super) fn clone_suffixes(&mut self, p: &mut Parser<'_>, mut top: Id) -> R<Id> {
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
}

pub(super) struct Parser<'n> {
    pub(super) s: &'n [u8],
    pub(super) pos: usize,
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
