//! The finding codes of the include gates (`include-probes`, `include-layering`).

diag::codes! {
    pub enum Code: "INC" {
        Inc001 = "INC001": "a probed header's include closure reaches a forbidden path prefix",
        Inc002 = "INC002": "a probed header's own text exceeds a token budget",
        Inc003 = "INC003": "a probe's header does not exist (SKIP; an error under require_all)",
        Inc004 = "INC004": "the number of selected probes differs from expect_probes",
        Inc005 = "INC005": "a file includes or reaches a header a layering rule forbids",
        Inc006 = "INC006": "a new use of a temporary (`!`) layering allowance",
        Inc007 = "INC007": "a known use of a temporary (`!`) layering allowance",
        Inc008 = "INC008": "a stale or malformed layering rule, or a layer holding no file",
        Inc009 = "INC009": "a known_uses entry that no longer occurs",
        Inc010 = "INC010": "an input problem met while building the include graph",
        Inc011 = "INC011": "a forbidden path admitted by a probe's allow entry",
        Inc012 = "INC012": "a computed include or #include_next the static graph cannot follow",
        Inc013 = "INC013": "an include cycle",
        Inc014 = "INC014": "the include analysis could not run (workspace or compile database)",
        Inc015 = "INC015": "the preprocessor failed, is missing, or disagrees with the static walk",
        Inc016 = "INC016": "an explained difference between the preprocessor and the static walk",
    }
}
