//! The `#include` scan of one file is `cpp_lex`'s directive scan (the workspace's one C++
//! lexer): splices, comments, literals, digraphs (`%:include`), `#if 0` groups and include
//! guards are decided there, once. The graph reads files with [`skim`]: the same [`Scan`] as
//! [`scan`], without lexing the lines between directives.

pub use cpp_lex::directives::{scan, skim, Directive, Include, IncludeKind, Scan};
