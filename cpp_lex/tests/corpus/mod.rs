//! The tricky-input corpus: each case checked against `g++ -E` (gxx_diff.rs) and the
//! directive skimmer against the full lexer (skim_diff.rs).
#![allow(dead_code)]

pub struct Case {
    pub name: &'static str,
    pub src: &'static str,
    /// The identifiers outside directives, in order.
    pub idents: &'static [&'static str],
}

pub const CORPUS: &[Case] = &[
    Case {
        name: "splice inside an identifier",
        src: "void f() { pGLContext->SetBlend\\\nFunc(a, a); }\n",
        idents: &["void", "f", "pGLContext", "SetBlendFunc", "a", "a"],
    },
    Case {
        name: "CRLF splice inside an identifier, CRLF lines",
        src: "int Set\\\r\nX = 1;\r\nint y;\r\n",
        idents: &["int", "SetX", "int", "y"],
    },
    Case {
        name: "splice inside a punctuator",
        src: "p -\\\n> q; a <\\\n<= 2;\n",
        idents: &["p", "q", "a"],
    },
    Case {
        name: "splice inside a directive keyword",
        src: "#def\\\nine T_SPLICED 1\nint after;\n",
        idents: &["int", "after"],
    },
    Case {
        name: "CRLF splice inside a directive keyword",
        src: "#un\\\r\ndef T_NONE\r\n#define T_CRLF 2\r\nint z;\r\n",
        idents: &["int", "z"],
    },
    Case {
        name: "#if split by a splice is #ifdef",
        src: "#if\\\ndef T_NEVER\nint hidden;\n#else\nint shown;\n#endif\n",
        idents: &["int", "shown"],
    },
    Case {
        name: "continued // comment",
        src: "int a; // comment \\\nint swallowed;\nint b;\n",
        idents: &["int", "a", "int", "b"],
    },
    Case {
        name: "continued // comment, CRLF",
        src: "int a; // comment \\\r\nint swallowed;\r\nint b;\r\n",
        idents: &["int", "a", "int", "b"],
    },
    Case {
        name: "block comment closed across a splice",
        src: "int a; /* x *\\\n/ int b;\n",
        idents: &["int", "a", "int", "b"],
    },
    Case {
        name: "digraphs",
        src: "int arr<:2:> = <%1, 2%>;\n%:define T_DIGRAPH 3\nint after;\n",
        idents: &["int", "arr", "int", "after"],
    },
    Case {
        name: "<:: is < then ::",
        src: "template <class T> struct V {}; V<::size_t> v;\n",
        idents: &["template", "class", "T", "struct", "V", "V", "size_t", "v"],
    },
    Case {
        name: "raw strings with delimiters",
        src: "auto r = R\"x(a)\" /* \" )\" // not a comment)x\"; int after; auto s = u8R\"(\\\n)\"; int t;\n",
        idents: &["auto", "r", "int", "after", "auto", "s", "int", "t"],
    },
    Case {
        name: "u8 character literal and prefixes",
        src: "auto c = u8'a'; auto w = L'b'; auto s = U\"x\" u\"y\"; int after;\n",
        idents: &["auto", "c", "auto", "w", "auto", "s", "int", "after"],
    },
    Case {
        name: "digit separators",
        src: "int n = 1'000'000 + 0x1'F + 0b1'0; int after = 'q';\n",
        idents: &["int", "n", "int", "after"],
    },
    Case {
        name: "pp-numbers with exponents",
        src: "double d = 1e+5 + 0x1p-3 + .5e-1; int after;\n",
        idents: &["double", "d", "int", "after"],
    },
    Case {
        name: "comments and literals hide directives",
        src: "/*\n#define T_IN_COMMENT 1\n*/ const char* s = \"#define T_IN_STRING\"; int after;\n",
        idents: &["const", "char", "s", "int", "after"],
    },
];
