//! The `#include` scan of one file is `cpp_lex`'s directive scan (the workspace's one C++
//! lexer): splices, comments, literals, digraphs (`%:include`), `#if 0` groups and include
//! guards are decided there, once.

pub use cpp_lex::directives::{scan, Directive, Include, IncludeKind, Scan};
