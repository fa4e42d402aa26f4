//! The `tokens` gate's canned controls, run through [`super::check::diags`] like a real run.

use super::cfg::mobilegl_profile;
use super::check::{compile, diags, Code};
use crate::diag::Control;

/// Runs every control; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let mut cfg = mobilegl_profile();
    if let Some(r) = cfg.rules.get_mut(1) {
        r.allow = vec!["MobileGL/MG_State/Debug.cpp:1".into()];
    }
    let rules = match compile(&cfg) {
        Ok(r) => r,
        Err(d) => {
            return vec![Control {
                name: "compile".into(),
                expect_trip: false,
                tripped: true,
                detail: format!("profile rules do not compile: {}", d.message),
            }]
        }
    };
    let backend_bad = "void Flush() { MG_State::pGLContext->Flush(); }\n";
    let backend_clean = "void Flush() { gBackend.Flush(); }\n";
    let state_bad = "void Dump() { printf(\"%d\\n\", n); }\n";
    let state_clean = "void Dump() { MG_LOG(\"%d\", n); }\n";
    // (name, must trip, files, clean twin); negative controls must trip with their own code
    // (TOK001 hit, TOK002 stale allow), positive controls must raise no error at all.
    type Case<'a> = (
        &'a str,
        bool,
        Vec<(&'a str, &'a str)>,
        Vec<(&'a str, &'a str)>,
    );
    let cases: Vec<Case<'_>> = vec![
        (
            "pglcontext-in-backend",
            true,
            vec![("MobileGL/MG_Backend/DirectGLES/Flush.cpp", backend_bad)],
            vec![("MobileGL/MG_Backend/DirectGLES/Flush.cpp", backend_clean)],
        ),
        (
            "pglcontext-in-backend-comment",
            true,
            vec![("MobileGL/MG_Backend/Vk.h", "// reads pGLContext here\n")],
            vec![("MobileGL/MG_Backend/Vk.h", "// reads the context here\n")],
        ),
        (
            "printf-in-state",
            true,
            vec![("MobileGL/MG_State/Dump.cpp", state_bad)],
            vec![("MobileGL/MG_State/Dump.cpp", state_clean)],
        ),
        (
            "cout-in-backend",
            true,
            vec![(
                "MobileGL/MG_Backend/A.cpp",
                "void f() { std::cout << x; }\n",
            )],
            vec![("MobileGL/MG_Backend/A.cpp", "void f() { log(x); }\n")],
        ),
        (
            "stale-allow-entry",
            true,
            vec![("MobileGL/MG_State/Other.cpp", "int x;\n")],
            vec![("MobileGL/MG_State/Debug.cpp", "printf(\"x\");\n")],
        ),
        (
            "pglcontext-in-frontend",
            false,
            vec![
                ("MobileGL/MG_Impl/GLImpl/GL_Blend.cpp", backend_bad),
                ("MobileGL/MG_State/Debug.cpp", "printf(\"ok\");\n"),
            ],
            vec![],
        ),
        (
            "printf-in-string-or-comment",
            false,
            vec![
                (
                    "MobileGL/MG_State/S.cpp",
                    "// printf(x)\nconst char* s = \"printf(y)\";\n",
                ),
                ("MobileGL/MG_State/Debug.cpp", "printf(\"ok\");\n"),
            ],
            vec![],
        ),
        (
            "pglcontextual-is-not-pglcontext",
            false,
            vec![
                ("MobileGL/MG_Backend/B.cpp", "int pGLContextual;\n"),
                ("MobileGL/MG_State/Debug.cpp", "printf(\"ok\");\n"),
            ],
            vec![],
        ),
    ];
    cases
        .into_iter()
        .map(|(name, expect_trip, bad, clean)| {
            let files = if expect_trip && neutered(name) {
                clean
            } else {
                bad
            };
            let report = super::analyse(&rules, files.iter().copied());
            let want = if name == "stale-allow-entry" {
                Code::Tok002
            } else {
                Code::Tok001
            };
            Control::from_diags(name, expect_trip, want, &diags(&report, &rules, &cfg))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_control_behaves_and_neutering_breaks_one() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.expect_trip == c.tripped), "{all:?}");
        let n = super::run_controls(&|c| c == "printf-in-state");
        assert!(n.iter().any(|c| c.name == "printf-in-state" && !c.tripped));
    }
}
