//! Benchmark inputs: a deterministic MobileGL-shaped tree of a given size, and the Python port
//! of upstream's scanner loop that `mgctl dirty-surface bench` times against (`bench/`).

/// A small Python 3 re-implementation of the upstream scanner loop (spec §1.5–§1.9), written
/// from the spec for the benchmark comparison only.
pub const UPSTREAM_PY: &str = include_str!("../bench/upstream_scan.py");

/// Files (relative path, text) totalling at least `lines` lines, under `MobileGL/MG_Impl/GLImpl`
/// and `MobileGL/MG_State/GLState`. Each function mixes what the scanners must cope with:
/// comments, strings, digit separators, lambdas, backend calls and notes.
pub fn generate(lines: usize) -> Vec<(String, String)> {
    const PER_FILE: usize = 2_000;
    let prefixes = [
        "Set", "Bind", "Use", "Bump", "Record", "Touch", "Mark", "Add",
    ];
    let mut files = Vec::new();
    let mut total = 0;
    let mut k = 0usize;
    while total < lines {
        let dir = if k % 4 == 3 {
            "MobileGL/MG_State/GLState/Gen"
        } else {
            "MobileGL/MG_Impl/GLImpl/Gen"
        };
        let mut text = String::with_capacity(PER_FILE * 40);
        text.push_str("// generated for mgctl dirty-surface bench\n#include \"GLEntry.h\"\n\nnamespace MG_Impl {\n\n");
        let mut n = 5;
        let mut f = 0;
        while n < PER_FILE {
            let p = prefixes[(k + f) % prefixes.len()];
            let imm = f % 5 == 0;
            text.push_str(&format!(
                "/* entry point {f} of file {k} */\nvoid glGenerated{k}_{f}(GLenum target, GLint value)\n{{\n    const char* tag = \"pGLContext->Fake({f})\"; // not a call\n    int limit = 1'000;\n    if (target == GL_TEXTURE_2D) {{\n        pGLContext->{p}State{f}(target, value);\n    }} else if (value > limit) {{\n        pGLContext->{p}Other{}(value);\n    }}\n    auto apply = [&](int v) {{ pGLContext->SetLambda{}(v); }};\n    apply(value);\n",
                f % 7,
                f % 3
            ));
            n += 12;
            if imm {
                text.push_str("    gBackendFunctionsTable.GL.Flush();\n");
                n += 1;
            }
            if f % 9 == 0 {
                text.push_str("    MGP_NOTE_MUTATION(m_units);\n");
                n += 1;
            }
            text.push_str("    Log(tag);\n}\n\n");
            n += 3;
            f += 1;
        }
        text.push_str("} // namespace MG_Impl\n");
        n += 1;
        total += n;
        files.push((format!("{dir}/Generated{k:03}.cpp"), text));
        k += 1;
    }
    files
}

#[cfg(test)]
mod tests {
    #[test]
    fn generates_at_least_the_lines_asked() {
        let f = super::generate(10_000);
        let n: usize = f.iter().map(|(_, t)| t.lines().count()).sum();
        assert!(n >= 10_000, "{n}");
    }
}
