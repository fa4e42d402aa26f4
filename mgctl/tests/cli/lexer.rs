//! Issue 14 item 2: every analysis reads C++ through the one lexer (`cpp_lex`), so a line splice
//! or a digraph means to mgctl what it means to g++. Each test plants one construct in a copy of
//! `driver/` that the old per-crate lexers misread.

use crate::util::{copy_driver, mgctl};

fn edit(path: &std::path::Path, from: &str, to: &str) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(s.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, s.replacen(from, to, 1)).unwrap();
}

/// The `SetBlendFunc` row of the summary table: its call count.
fn set_blend_func_calls(stdout: &str) -> usize {
    stdout
        .lines()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            let count = w.next()?.parse().ok()?;
            (w.next() == Some("SetBlendFunc")).then_some(count)
        })
        .unwrap_or(0)
}

fn json_calls_to(stdout: &str, mutator: &str) -> usize {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["mutator"] == mutator)
        .count()
}

#[test]
fn a_spliced_mutator_name_is_one_call() {
    let (_g, root) = copy_driver();
    let ws = root.to_str().unwrap();
    let before = mgctl(&["dirty-surface", "-C", ws, "--summary"], &root);
    let before_json = mgctl(&["dirty-surface", "-C", ws, "--format", "json"], &root);
    let n = set_blend_func_calls(&before.stdout);
    let nj = json_calls_to(&before_json.stdout, "SetBlendFunc");
    assert!(n > 0, "{}", before.dump());
    edit(
        &root.join("MobileGL/MG_Impl/GLImpl/Blend/GL_Blend.cpp"),
        "    MG_State::pGLContext->SetBlendFunc(sfactor, dfactor);\n",
        "    MG_State::pGLContext->SetBlendFunc(sfactor, dfactor);\n    MG_State::pGLContext->SetBlend\\\nFunc(sfactor, sfactor);\n",
    );
    let after = mgctl(&["dirty-surface", "-C", ws, "--summary"], &root);
    assert_eq!(
        set_blend_func_calls(&after.stdout),
        n + 1,
        "{}",
        after.dump()
    );
    let after_json = mgctl(&["dirty-surface", "-C", ws, "--format", "json"], &root);
    assert_eq!(
        json_calls_to(&after_json.stdout, "SetBlendFunc"),
        nj + 1,
        "{}",
        after_json.dump()
    );
}

#[test]
fn a_digraph_include_in_a_backend_file_breaks_layering() {
    let (_g, root) = copy_driver();
    mgctl(&["check", ".", "--only", "include-layering"], &root).expect(0);
    edit(
        &root.join("MobileGL/MG_Backend/DirectGLES/Managers.cpp"),
        "#include <algorithm>\n",
        "#include <algorithm>\n%:include \"MG_State/GLState/Core.h\"\n",
    );
    let r = mgctl(&["check", ".", "--only", "include-layering"], &root).expect(1);
    r.assert_stdout_has("MG_Backend/DirectGLES/Managers.cpp");
}

#[test]
fn a_directive_keyword_split_by_a_splice_is_still_ifdef() {
    let (_g, root) = copy_driver();
    mgctl(&["check", ".", "--only", "preproc"], &root).expect(0);
    edit(
        &root.join("MobileGL/MG_Backend/DirectGLES/Managers.cpp"),
        "#include <algorithm>\n",
        "#include <algorithm>\n#if\\\ndef MOBILEGL_PIPE_LEGACY_MEMOS\n#endif\n",
    );
    let r = mgctl(
        &["check", ".", "--only", "preproc", "--format", "github"],
        &root,
    )
    .expect(1);
    r.assert_stdout_has("MG_Backend/DirectGLES/Managers.cpp");
    // g++ joins the splice first: the directive is `#ifdef`, not `#if` followed by `def`.
    r.assert_stdout_has("#ifdef names retired MOBILEGL_PIPE_LEGACY_MEMOS");
}
