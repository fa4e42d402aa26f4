//! `Fatal{Kind, "detail", extras} tail` markers (spec §6) and the verify lines (spec §5).

/// The family words whose Fatal fails a retrace case under `MOBILEGL_PIPE_VERIFY` (the runner's regex).
pub const VERIFY_KINDS: &[&str] = &[
    "PipeVerifyDiffer",
    "UnmigratedPipeInput",
    "PipeVerifyBadKnob",
];

/// One `Fatal{…}` marker.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fatal {
    /// The family word (`[A-Za-z][A-Za-z0-9]*`).
    pub kind: String,
    /// The quoted detail (`"<Field>@<Verb>"`), absent in the bare-tag form.
    pub detail: Option<String>,
    /// `k=v` extras inside the braces after the detail (`verb=6, where=read`).
    pub extras: Option<String>,
    /// Free text after the closing brace (`[BARRIER-PULLED, …]`, `carried=1 assembled=0`).
    pub tail: Option<String>,
    /// No closing `}` on the line (a cut record).
    pub unterminated: bool,
}

impl Fatal {
    /// Finds the first `Fatal{Word` in a message. `Admitted{…}`, `Refuse{…}` and libc's
    /// `Fatal signal` do not match.
    pub fn find(msg: &str) -> Option<Fatal> {
        let mut from = 0;
        while let Some(off) = msg[from..].find("Fatal{") {
            let start = from + off + "Fatal{".len();
            let rest = &msg[start..];
            let kind_len = rest
                .bytes()
                .enumerate()
                .take_while(|(i, b)| {
                    if *i == 0 {
                        b.is_ascii_alphabetic()
                    } else {
                        b.is_ascii_alphanumeric()
                    }
                })
                .count();
            if kind_len > 0 {
                return Some(Self::parse_after(&rest[..kind_len], &rest[kind_len..]));
            }
            from = start;
        }
        None
    }

    fn parse_after(kind: &str, rest: &str) -> Fatal {
        let mut detail = None;
        let mut body = rest;
        if let Some(after) = body.strip_prefix(", \"") {
            if let Some(q) = after.find('"') {
                detail = Some(after[..q].to_string());
                body = &after[q + 1..];
            }
        }
        let (inside, tail, unterminated) = match body.find('}') {
            Some(close) => (&body[..close], Some(&body[close + 1..]), false),
            None => (body, None, true),
        };
        let extras = inside.trim_start_matches([',', ' ']).trim_end();
        let tail = tail.map(str::trim).filter(|t| !t.is_empty());
        Fatal {
            kind: kind.to_string(),
            detail,
            extras: (!extras.is_empty()).then(|| extras.to_string()),
            tail: tail.map(str::to_string),
            unterminated,
        }
    }

    /// The marker as MobileGL prints it: `Fatal{Kind, "detail", extras} tail`.
    pub fn marker_text(&self) -> String {
        let mut s = format!("Fatal{{{}", self.kind);
        if let Some(d) = &self.detail {
            s.push_str(&format!(", \"{d}\""));
        }
        if let Some(e) = &self.extras {
            s.push_str(&format!(", {e}"));
        }
        s.push('}');
        if let Some(t) = &self.tail {
            s.push_str(&format!(" {t}"));
        }
        s
    }

    /// Whether the retrace runner's verify regex matches this kind.
    pub fn is_verify_kind(&self) -> bool {
        VERIFY_KINDS.contains(&self.kind.as_str())
    }
}

/// The library's arming line: `MGPipe: verify armed - <fields> fields, <verbs> verbs, fatal=<0|1>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyArmed {
    pub fields: u64,
    pub verbs: u64,
    pub fatal: bool,
}

impl VerifyArmed {
    pub fn parse(msg: &str) -> Option<VerifyArmed> {
        let rest = msg.strip_prefix("MGPipe: verify armed - ")?;
        let (fields, rest) = rest.split_once(" fields, ")?;
        let (verbs, rest) = rest.split_once(" verbs, fatal=")?;
        let fatal = rest.trim_end();
        Some(VerifyArmed {
            fields: fields.parse().ok()?,
            verbs: verbs.parse().ok()?,
            fatal: match fatal {
                "1" => true,
                "0" => false,
                _ => return None,
            },
        })
    }
}

/// What the test runner (`run_trace_case.cmake`) said about one case, in a ctest transcript.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum TranscriptVerify {
    /// `MGPipe verify: <case> <backend> armed, zero divergences, zero unmigrated reads`
    ArmedClean { case: String, backend: String },
    /// `MGPipe verify: MOBILEGL_PIPE_VERIFY=<v>, no verify assertions for <case> <backend>`
    NotRequested {
        case: String,
        backend: String,
        value: String,
    },
    /// `<case> <backend>: <n> MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY.` (CMake error text)
    Failed {
        case: String,
        backend: String,
        fatals: u64,
    },
}

impl TranscriptVerify {
    /// Parses a transcript message (ctest prefix already removed).
    pub fn parse(msg: &str) -> Option<TranscriptVerify> {
        let msg = msg.trim();
        if let Some(rest) = msg.strip_prefix("MGPipe verify: ") {
            if let Some(r) = rest.strip_suffix(" armed, zero divergences, zero unmigrated reads") {
                let (case, backend) = r.rsplit_once(' ')?;
                return Some(TranscriptVerify::ArmedClean {
                    case: case.into(),
                    backend: backend.into(),
                });
            }
            if let Some(r) = rest.strip_prefix("MOBILEGL_PIPE_VERIFY=") {
                let (value, r) = r.split_once(", no verify assertions for ")?;
                let (case, backend) = r.rsplit_once(' ')?;
                return Some(TranscriptVerify::NotRequested {
                    case: case.into(),
                    backend: backend.into(),
                    value: value.into(),
                });
            }
            return None;
        }
        let (head, rest) = msg.split_once(": ")?;
        let (n, _) = rest.split_once(" MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY")?;
        let (case, backend) = head.rsplit_once(' ')?;
        Some(TranscriptVerify::Failed {
            case: case.into(),
            backend: backend.into(),
            fatals: n.parse().ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn shapes() {
        let f = Fatal::find(r#"MGPipe: Fatal{PipeVerifyDiffer, "GetPixelStoreParameters@ReadPixels", verb=6, where=read}"#).unwrap();
        assert_eq!(f.kind, "PipeVerifyDiffer");
        assert_eq!(
            f.detail.as_deref(),
            Some("GetPixelStoreParameters@ReadPixels")
        );
        assert_eq!(f.extras.as_deref(), Some("verb=6, where=read"));
        assert_eq!(f.tail, None);
        let f = Fatal::find(
            "MGPipe: Fatal{ProtocolCorruption} record op 46 declares 24 payload bytes, carries 16",
        )
        .unwrap();
        assert_eq!((f.detail, f.extras), (None, None));
        assert_eq!(
            f.tail.as_deref(),
            Some("record op 46 declares 24 payload bytes, carries 16")
        );
        let f =
            Fatal::find(r#"MGPipe: Fatal{PipeResidualDiverged, "Dither"} carried=1 assembled=0"#)
                .unwrap();
        assert_eq!(f.tail.as_deref(), Some("carried=1 assembled=0"));
        assert!(
            Fatal::find(r#"MGPipe: Admitted{UnmigratedPipeInput, "X@Y"} [BARRIER-PULLED]"#)
                .is_none()
        );
        assert!(Fatal::find("Fatal signal 6 (SIGABRT)").is_none());
        assert!(Fatal::find("Fatal{ 1}").is_none());
        let f = Fatal::find(r#"Fatal{X, "d", verb="#).unwrap();
        assert!(f.unterminated);
    }

    #[test]
    fn verify_lines() {
        let a = VerifyArmed::parse("MGPipe: verify armed - 63 fields, 69 verbs, fatal=1").unwrap();
        assert_eq!(
            a,
            VerifyArmed {
                fields: 63,
                verbs: 69,
                fatal: true
            }
        );
        assert!(VerifyArmed::parse("MGPipe verify: x").is_none());
        assert_eq!(
            TranscriptVerify::parse("MGPipe verify: MOBILEGL_PIPE_VERIFY=0, no verify assertions for vanilla-title-screen DirectGLES"),
            Some(TranscriptVerify::NotRequested { case: "vanilla-title-screen".into(), backend: "DirectGLES".into(), value: "0".into() })
        );
        assert_eq!(
            TranscriptVerify::parse(
                "openra-ra-skirmish DirectGLES: 1 MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY."
            ),
            Some(TranscriptVerify::Failed {
                case: "openra-ra-skirmish".into(),
                backend: "DirectGLES".into(),
                fatals: 1
            })
        );
    }
}
