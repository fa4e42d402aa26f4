//! Differential test: the directive skimmer (`cpp_lex::skim`, `directives::skim`) against the
//! full lexer (`lex_with`, `directives::scan`). For every input, the skimmer must report exactly
//! the lexer's directive tokens (kind, span, line, column, flags), with a code stretch wherever
//! the lexer has a token outside directives between two of them, end on the lexer's last line,
//! and give an identical `Scan`. Inputs: the g++ corpus, hand-written edge cases, every file of
//! the driver/ tree, /usr/include/llvm-14 when installed, and generated inputs.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use cpp_lex::directives::{scan, skim};
use cpp_lex::skim::DirectiveSink;
use cpp_lex::{lex_with, Sink, Token};

mod corpus;

#[derive(Debug, PartialEq, Eq)]
enum Ev {
    Tok(Token),
    Code,
}

/// The event stream both sides must agree on: directive tokens, and one `Code` per run of
/// non-directive tokens between them.
#[derive(Default)]
struct Events(Vec<Ev>);

impl Events {
    fn push_code(&mut self) {
        if self.0.last() != Some(&Ev::Code) {
            self.0.push(Ev::Code);
        }
    }
}

impl Sink for Events {
    fn token(&mut self, _src: &[u8], tok: &Token) -> bool {
        if tok.directive {
            self.0.push(Ev::Tok(*tok));
        } else {
            self.push_code();
        }
        true
    }
}

impl DirectiveSink for Events {
    fn directive_token(&mut self, _src: &[u8], tok: &Token) {
        self.0.push(Ev::Tok(*tok));
    }
    fn code(&mut self, _src: &[u8]) {
        self.push_code();
    }
}

fn show(src: &[u8]) -> String {
    String::from_utf8_lossy(src).escape_debug().to_string()
}

/// Checks one input; the message names it and shows the first difference.
fn check(name: &str, src: &[u8]) {
    let mut full = Events::default();
    lex_with(src, &mut full);
    let mut fast = Events::default();
    let last_line = cpp_lex::skim::skim(src, &mut fast);
    if full.0 != fast.0 {
        let at = full
            .0
            .iter()
            .zip(&fast.0)
            .position(|(a, b)| a != b)
            .unwrap_or(full.0.len().min(fast.0.len()));
        panic!(
            "{name}: event {at} differs: lexer {:?}, skimmer {:?}\ninput: {}",
            full.0.get(at),
            fast.0.get(at),
            if src.len() < 400 {
                show(src)
            } else {
                format!("{} bytes", src.len())
            }
        );
    }
    let lines = src.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    assert_eq!(last_line, lines, "{name}: last line\ninput: {}", show(src));
    assert_eq!(scan(src), skim(src), "{name}: Scan\ninput: {}", show(src));
}

#[test]
fn corpus_agrees() {
    for case in corpus::CORPUS {
        check(case.name, case.src.as_bytes());
    }
}

/// The cases the skimmer decides itself (where a line starts), each with its directive-side twin.
const EDGES: &[&str] = &[
    "#include \"a.h\"\n",
    "%:include <d.h>\n%:%: x\n  %: define Q 1\nint %: y;\n",
    "#inc\\\nlude \"a.h\"\n#include \\\n  \"b.h\"\n\\\n#include <c.h>\n",
    "#inc\\\r\nlude \"a.h\"\r\n#include <b.h>\r\n\r\nint x;\r\n#endif\r\n",
    "auto r = R\"x(\n#include \"no.h\"\n)x\";\n#include \"yes.h\"\n",
    "auto r = R\"(\n# define IN_RAW\n)\" R\"d(#x)d\"; #define NOT\n#define YES\n",
    "auto r = u8R\"--(a)-\" )--\" ; LR\"(x)\" uR\"(\n#y\n)\" UR\"(\n)\"\n#define Z\n",
    "auto bad = R\"a b(\n#define AFTER_BAD\n",
    "auto long_d = R\"12345678901234567(x\n#define AFTER_LONG\n",
    "FOOR\"x\" \"#y\"\n#define A\nx = 1R\"(\n#define B\n)\";\n",
    "x = 0x1.R\"(\n#define C\n)\";\n",
    "// x \\\n#include \"no.h\"\n#include \"y.h\"\n",
    "// x \\\r\n#include \"no.h\"\r\n#include \"y.h\"\r\n",
    "int a; // x \\\n#include \"no.h\"\n#include \"y.h\"\n",
    "// x \\\\\n#include \"yes.h\"\n",
    "/\\\n/ comment\n#define A\nx /\\\n* c */ y\n#define B\n",
    "/*\n#include \"no.h\"\n*/ #include \"yes.h\"\n/* a */ /* b\n */ # define C\n",
    "int x; /*\n*/ #include \"no.h\"\n#define D\n",
    "/* a *\\\n/ #define E\n/* b *\\\r\n/ #define F\n/*/ still comment */ #define G\n/**/#define H\n",
    "/* unterminated\n#define NO\n",
    "int n = 1'000'000; char c = '\"'; #define NO\n#define A\n",
    "x = 0x1'F + 0b1'0 + 1e+5'0 + .5'5 + a1'b'; c = u8'a' + L'\\'' + '\\\\';\n#define A\n",
    "s = \"a\\\"b // c\" /* d */ '/'; t = \"/*\"; u = '\"';\n#define A\n",
    "s = \"unterminated\n#define A\nc = 'x\n#define B\n",
    "s = \"spliced \\\n#define NO\" ;\n#define A\n",
    "x = '\\\n#define NO';\n#define A\n",
    "  \t\x0b\x0c #  define SPACED 1 \\\n  2\n\t#\tinclude\t<t.h>\n",
    "#ifndef A_H\n#define A_H\n#include \"a.h\"\n#endif\n",
    "#ifndef A_H\n#define A_H\n#include \"a.h\"\n#endif\nint x;\n",
    "#ifndef A_H\n#define A_H\n#include \"a.h\"\n#endif\n// only a comment\n/* and */\n",
    "#ifndef A_H\n#define A_H\n#endif\n\"str\"\n",
    "#define M(a) /* spans\n lines */ a\n#define N\n",
    "#define R R\"(\n#define IN\n)\"\n#define OUT\n",
    "#if 0\n#include \"dead.h\"\n#else\n#include \"live.h\"\n#endif\n",
    "x\\",
    "#",
    "\\",
    "/",
    "/*",
    "R\"(",
    "'",
    "\"",
    "a\\\n",
    "\n\n\n",
    "x\r#define NOT_A_LINE_START\r\n#define A\n",
    "\u{feff}#define BOM\n#define A\n",
    "caf\u{e9}'x' \u{e9}R\"(\n#define NO\n)\";\n#define A\n",
    "a.b'c'; x...5'0; p->q'r'; i++'s';\n#define A\n",
    "x = 1'0 + '/'; /*\n#define NO\n*/\n#define A\n",
    "x = 1e+5'0 + 'a'; y = 1e+'/'; /*\n#define NO\n*/\n#define A\n",
];

#[test]
fn edge_cases_agree() {
    for (k, src) in EDGES.iter().enumerate() {
        check(&format!("edge case {k}"), src.as_bytes());
    }
    // One long number of separators, then a quote that is not one (the skimmer re-tokenises a
    // number once, not once per `'`).
    let long = format!(
        "x = 1{}; c = '/'; /*\n#define NO\n*/\n#define A\n",
        "'1".repeat(20_000)
    );
    check("a 40,000-byte number", long.as_bytes());
}

fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_symlink() {
            continue;
        }
        if p.is_dir() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

#[test]
fn driver_tree_agrees() {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("../driver");
    let mut files = Vec::new();
    files_under(&driver, &mut files);
    assert!(files.len() > 50, "driver/ tree not found at {driver:?}");
    for f in &files {
        check(&f.display().to_string(), &std::fs::read(f).unwrap());
    }
}

/// The LLVM 14 headers the include benchmark graphs (skipped when not installed).
#[test]
fn llvm_headers_agree() {
    let root = Path::new("/usr/include/llvm-14");
    if !root.is_dir() {
        println!("skipped: /usr/include/llvm-14 is not installed");
        return;
    }
    let mut files = Vec::new();
    files_under(root, &mut files);
    for f in &files {
        check(&f.display().to_string(), &std::fs::read(f).unwrap());
    }
    println!("{} LLVM files agree", files.len());
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Inputs built from the fragments that decide line starts, in random order.
#[test]
fn generated_inputs_agree() {
    const PIECES: &[&str] = &[
        "#",
        "%:",
        "%",
        ":",
        "#include",
        "#define X",
        "#if 0",
        "#endif",
        "#else",
        "include",
        "\\\n",
        "\\\r\n",
        "\\",
        "\n",
        "\r\n",
        "\r",
        " ",
        "\t",
        "/*",
        "*/",
        "*",
        "/",
        "//",
        "\"",
        "'",
        "R\"",
        "R\"x(",
        ")x\"",
        "R\"(",
        ")\"",
        "u8R\"(",
        "LR",
        "u8",
        "L",
        "1'000",
        "0x1p-3",
        "1e+",
        "'a'",
        ".",
        "..",
        "+",
        "-",
        "<a.h>",
        "\"a.h\"",
        "x",
        "ident",
        "0",
        "9'",
        "é",
        "\u{feff}",
        "(",
        ")",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..20_000 {
        let len = 1 + (round % 40);
        let mut src = Vec::new();
        for _ in 0..len {
            let r = rng.next();
            if r % 16 == 0 {
                src.push((r >> 8) as u8);
            } else {
                src.extend_from_slice(PIECES[(r >> 16) as usize % PIECES.len()].as_bytes());
            }
        }
        check(&format!("generated input {round}"), &src);
    }
}

/// Raw random bytes over the characters that matter.
#[test]
fn random_bytes_agree() {
    let alphabet = b"\\\n\r\"'/*#%:<>R8uLx0(). \t\xc3\xa9e+-";
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..20_000 {
        let len = (round % 97) + 1;
        let src: Vec<u8> = (0..len)
            .map(|_| {
                let r = rng.next();
                if r % 4 == 0 {
                    (r >> 8) as u8
                } else {
                    alphabet[(r >> 16) as usize % alphabet.len()]
                }
            })
            .collect();
        check(&format!("random input {round}"), &src);
    }
}

/// Runs of plain lines (code with `'` but no `/`, `"`, `\`, `#`, `%`; blank lines; a last line
/// without a newline), which the skimmer passes over in one step, between lines that hold a mark.
#[test]
fn plain_stretches_agree() {
    const PLAIN: &[&str] = &[
        "int a = 1;\n",
        "  char c = 'x';\n",
        "x = 1'000'000 + 'a\n",
        "c = '\n",
        "\n",
        " \t\x0b\x0c\r\n",
        "\r\n",
        "   \n",
        "u8'a' L'b' R'c'\n",
        "caf\u{e9} = 'é';\n",
        "}\n",
        "x",
        "'",
    ];
    const MARKED: &[&str] = &[
        "#define A\n",
        "  # include <a.h>\n",
        "%:define B\n",
        "x % y;\n",
        "a # b\n",
        "// c\n",
        "/* c\n",
        "*/\n",
        "s = \"#define NO\";\n",
        "s = \"open\n",
        "r = R\"(\n",
        ")\";\n",
        "x \\\n",
        "\\\n",
        "y / z\n",
        "c = '/'; d = '\"';\n",
        "x = 1'0\"\n",
    ];
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    for round in 0..10_000 {
        let src = joined(&mut rng, 1 + round % 24, |r| {
            if r % 3 == 0 {
                MARKED[(r >> 8) as usize % MARKED.len()]
            } else {
                PLAIN[(r >> 8) as usize % PLAIN.len()]
            }
        });
        check(&format!("plain stretch {round}"), &src);
    }
}

/// `n` pieces end to end, each chosen by `pick` from one draw of `rng`.
fn joined(rng: &mut Rng, n: usize, pick: impl Fn(u64) -> &'static str) -> Vec<u8> {
    let mut src = Vec::new();
    for _ in 0..n {
        src.extend_from_slice(pick(rng.next()).as_bytes());
    }
    src
}

/// Runs of `//` lines (indented, spliced, CRLF, at the end of the text without a newline) next
/// to the lines that end a run: code, directives, blank lines, block comments, a `/` alone, a
/// `//` split by a splice. The skimmer passes a run of `//` lines in one loop.
#[test]
fn comment_runs_agree() {
    const LINES: &[&str] = &[
        "/// doc\n",
        "  // x\n",
        "\t//\n",
        "//\n",
        "// spliced \\\n",
        "// crlf\r\n",
        "// spliced crlf \\\r\n",
        " \x0c\x0b// ff vt\n",
        "\r//\n",
        "// \"q '\n",
        "// R\"(\n",
        "// #include <no.h>\n",
        "// end",
        "//",
        "  /* b */ // y\n",
        "/* a\n",
        "*/ // c\n",
        "/\\\n/ split\n",
        "/\n",
        "/ x\n",
        "\n",
        "  \n",
        "\\\n",
        "#include <a.h>\n",
        "  # define X 1 // c\n",
        "  %:include <b.h>\n",
        "int x; // tail\n",
        "x = \"//\";\n",
        "x\n",
    ];
    let mut rng = Rng(0x0bad_cafe_dead_beef);
    for round in 0..10_000 {
        // Mostly comment lines, so runs of them are long.
        let src = joined(&mut rng, 1 + round % 30, |r| {
            if r % 2 == 0 {
                LINES[(r >> 8) as usize % 13]
            } else {
                LINES[(r >> 8) as usize % LINES.len()]
            }
        });
        check(&format!("comment run {round}"), &src);
    }
}
