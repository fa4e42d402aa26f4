//! Printing: the arena as libiberty prints it, declarators and quirks included.

use super::*;

impl Demangler {
    pub(super) fn print(&mut self, id: Id, out: &mut String) -> R<()> {
        // Substitutions can expand exponentially (a 900-byte name to gigabytes): every node
        // printed checks the length, so the text stops growing just past the cap.
        if out.len() > self.limit {
            return Err(Unsupported);
        }
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
                    Node::Encoding(f) => self.print_function(Function { ret: NONE, ..f }, out)?,
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
            Node::Encoding(f) => self.print_function(f, out)?,
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
        let mark = self.hide_templates(depth);
        let r = self.print(id, out);
        self.restore_templates(mark);
        r
    }

    /// Move the template argument lists from `depth` on to `hidden` (reused, so printing
    /// in an outer scope allocates nothing); [`Self::restore_templates`] puts them back.
    fn hide_templates(&mut self, depth: usize) -> usize {
        let mark = self.hidden.len();
        let depth = depth.min(self.templates.len());
        self.hidden.extend_from_slice(&self.templates[depth..]);
        self.templates.truncate(depth);
        mark
    }

    fn restore_templates(&mut self, mark: usize) {
        self.templates.extend_from_slice(&self.hidden[mark..]);
        self.hidden.truncate(mark);
    }

    /// A function: while its return type, name and parameters print, `T_` refers to the
    /// template arguments of its name (of the entity, for a local name), as in libiberty.
    fn print_function(&mut self, f: Function, out: &mut String) -> R<()> {
        let args = self.template_args_of(f.name)?;
        if let Some(args) = args {
            self.templates.push(args);
        }
        let r = self.print_function_body(f, out);
        if args.is_some() {
            self.templates.pop();
        }
        r
    }

    fn print_function_body(&mut self, f: Function, out: &mut String) -> R<()> {
        if f.ret != NONE {
            if self.needs_declarator(f.ret, self.templates.len())? {
                return Err(Unsupported);
            }
            self.print(f.ret, out)?;
            out.push(' ');
        }
        self.print(f.name, out)?;
        out.push('(');
        self.print_list(f.params, out)?;
        out.push(')');
        push_cv(out, f.cv);
        push_ref(out, f.refq);
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
                let mark = self.hide_templates(depth);
                let r = self.print_list(params, out);
                self.restore_templates(mark);
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
