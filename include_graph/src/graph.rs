//! The include graph of a whole workspace, built once (files scanned in parallel) and queried
//! many times. Files inside the root are walked; headers resolved outside it are external leaves.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::lex::{self, IncludeKind};
use crate::search::{first_candidate, is_normal, normalize, SearchPath};

pub type NodeId = usize;

/// File name endings scanned by default (sources and headers, including `.inc`/`.def` fragments).
pub const DEFAULT_EXTENSIONS: &[&str] = &[
    "h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tcc", "inc", "def", "c", "cc", "cpp", "cxx",
    "c++", "m", "mm",
];

/// What to build the graph from.
#[derive(Debug, Clone)]
pub struct GraphOptions {
    /// The workspace root; node names are relative to it.
    pub root: PathBuf,
    /// Directories to walk for files (absolute or root-relative); empty means the root itself.
    pub scan: Vec<PathBuf>,
    /// Root-relative path prefixes not walked (they are still scanned when something includes them).
    pub exclude: Vec<String>,
    pub search: SearchPath,
    /// File name endings to walk; empty means [`DEFAULT_EXTENSIONS`].
    pub extensions: Vec<String>,
    /// Scan headers found outside the root too (normally they are leaves).
    pub walk_external: bool,
    /// Per translation unit (absolute, normalised source path): its own search path and forced
    /// includes, from a compile_commands.json. Other files use `search`.
    pub units: HashMap<PathBuf, SearchPath>,
}

impl GraphOptions {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        GraphOptions {
            root: root.into(),
            scan: Vec::new(),
            exclude: Vec::new(),
            search: SearchPath::default(),
            extensions: Vec::new(),
            walk_external: false,
            units: HashMap::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Node {
    #[serde(skip)]
    pub path: PathBuf,
    /// Root-relative with `/`, or the absolute path for an external header.
    pub rel: String,
    pub external: bool,
    /// The file was read and lexed (false for external leaves and unreadable files).
    pub scanned: bool,
    /// Where `rel` leads through symbolic links, when that is another path (root-relative, or
    /// absolute outside the root): the file the compiler reads, which layering rules judge.
    #[serde(skip)]
    pub resolved: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub to: NodeId,
    /// Line of the `#include` in the including file (0 for a `-include` forced include).
    pub line: u32,
    pub kind: IncludeKind,
    pub conditional: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unresolvable {
    /// No candidate exists in the includer's directory or the search path.
    NotFound,
    /// `#include MACRO`.
    Computed,
    /// `#include_next`.
    IncludeNext,
}

/// An include the static graph cannot follow; always reported, never dropped.
#[derive(Debug, Clone, Serialize)]
pub struct UnresolvedInclude {
    pub from: NodeId,
    pub line: u32,
    pub spelling: String,
    pub reason: Unresolvable,
    pub conditional: bool,
}

/// Input problems met while building; none of them stops the build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Issue {
    MissingSearchDir {
        path: String,
    },
    Unreadable {
        path: String,
        message: String,
    },
    InvalidUtf8 {
        path: String,
        line: u32,
        column: u32,
    },
    SymlinkLoop {
        path: String,
    },
    Directive {
        path: String,
        line: u32,
        message: String,
    },
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Issue::MissingSearchDir { path } => {
                write!(f, "{path}: include directory does not exist (ignored)")
            }
            Issue::Unreadable { path, message } => {
                write!(f, "{path}: unreadable, not scanned: {message}")
            }
            Issue::InvalidUtf8 { path, line, column } => {
                write!(
                    f,
                    "{path}:{line}:{column}: invalid UTF-8 (scanned as bytes)"
                )
            }
            Issue::SymlinkLoop { path } => write!(f, "{path}: symlink loop, not walked"),
            Issue::Directive {
                path,
                line,
                message,
            } => write!(f, "{path}:{line}: {message}"),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub root: PathBuf,
    pub search: SearchPath,
    pub nodes: Vec<Node>,
    /// Out-edges per node, in file order.
    pub out: Vec<Vec<Edge>>,
    /// Node by its path's bytes (every node's path is normalised, so equal bytes are equal paths;
    /// foldhash on bytes instead of `Path`'s component-wise SipHash): ask [`Graph::node`].
    index: HashMap<Box<[u8]>, NodeId, FxBuild>,
    pub unresolved: Vec<UnresolvedInclude>,
    /// Includes inside dead `#if 0` groups: (file, line, spelling).
    pub skipped: Vec<(NodeId, u32, String)>,
    pub issues: Vec<Issue>,
    /// Per node: its live directives and where each include resolved (for [`crate::pp`]).
    pub files: Vec<FilePp>,
    /// The root with its links resolved, against which [`Node::resolved`] is made relative.
    canon_root: PathBuf,
}

/// What the macro-aware walk replays for one file.
#[derive(Debug, Clone, Default)]
pub struct FilePp {
    pub directives: Vec<lex::Directive>,
    /// Per include (indexed by `Directive::Include`): kind, spelling, resolved node.
    pub includes: Vec<(IncludeKind, String, Option<NodeId>)>,
}

struct FileResult {
    scan: Option<lex::Scan>,
    read_error: Option<String>,
    /// The file's path with every link resolved (None for an overlay's bytes).
    real: Option<PathBuf>,
    /// Per include of the scan: the resolved path, or why not.
    targets: Vec<std::result::Result<PathBuf, Unresolvable>>,
}

fn rel_of(root: &Path, p: &Path) -> (String, bool) {
    if is_normal(root) && is_normal(p) {
        return match strip_root(path_bytes(root), path_bytes(p)) {
            Some(r) => (String::from_utf8_lossy(r).replace('\\', "/"), false),
            None => (p.to_string_lossy().into_owned(), true),
        };
    }
    match p.strip_prefix(root) {
        Ok(r) => (r.to_string_lossy().replace('\\', "/"), false),
        Err(_) => (p.to_string_lossy().into_owned(), true),
    }
}

/// `Path::strip_prefix` on the bytes of two normal paths ([`is_normal`]; every node's path is):
/// then components end exactly at the `/`s, and the component walk cost more than the rest of
/// interning a node.
fn strip_root<'p>(root: &[u8], p: &'p [u8]) -> Option<&'p [u8]> {
    let rest = p.strip_prefix(root)?;
    if rest.is_empty() || root.is_empty() || root.ends_with(b"/") {
        return Some(rest);
    }
    rest.strip_prefix(b"/")
}

/// The walk sorts the entries of a directory by name. They are its path joined with the names
/// `read_dir` gave, one prefix for all, so comparing the paths' bytes is comparing the names
/// (`sort_by_file_name` finds each name with a component walk, most of the walk's sorting).
fn sibling_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.as_os_str().cmp(b.as_os_str())
}

impl Graph {
    /// Walks, scans (in parallel) and resolves the whole workspace.
    pub fn build(opts: &GraphOptions) -> Result<Graph> {
        Self::build_overlay(opts, &HashMap::new())
    }

    /// [`Graph::build`] where `overlay` (absolute, normalised path -> bytes) replaces the bytes of
    /// files on disk: the live self-test controls mutate the workspace in memory, never on disk.
    /// The file list stays the disk's.
    pub fn build_overlay(
        opts: &GraphOptions,
        overlay: &HashMap<PathBuf, Vec<u8>>,
    ) -> Result<Graph> {
        let root = normalize(&absolute(&opts.root));
        if !root.is_dir() {
            return Err(Error::NotADir { path: root });
        }
        let mut search = opts.search.clone();
        search.absolutize(&root);
        let mut g = Graph {
            root: root.clone(),
            search: search.clone(),
            canon_root: root.canonicalize().unwrap_or_else(|_| root.clone()),
            ..Graph::default()
        };
        for d in search.all_dirs() {
            if !d.is_dir() {
                g.issues.push(Issue::MissingSearchDir {
                    path: rel_of(&root, d).0,
                });
            }
        }
        let exts: Vec<String> = if opts.extensions.is_empty() {
            DEFAULT_EXTENSIONS.iter().map(|s| s.to_string()).collect()
        } else {
            opts.extensions.clone()
        };
        let scan_dirs: Vec<PathBuf> = if opts.scan.is_empty() {
            vec![root.clone()]
        } else {
            opts.scan.iter().map(|d| normalize(&root.join(d))).collect()
        };
        let mut walked = Vec::new();
        for d in &scan_dirs {
            if !d.is_dir() {
                return Err(Error::NotADir { path: d.clone() });
            }
            g.walk(d, &exts, &opts.exclude, &mut walked);
        }
        walked.sort();
        walked.dedup();
        let exists = Exists::new(&walked);
        let units: HashMap<PathBuf, SearchPath> = opts
            .units
            .iter()
            .map(|(p, sp)| {
                let mut sp = sp.clone();
                sp.absolutize(&root);
                (normalize(&root.join(p)), sp)
            })
            .collect();
        let mut pending: Vec<NodeId> = walked.into_iter().map(|p| g.intern(p)).collect();
        let forced: Vec<NodeId> = search.forced.iter().map(|p| g.intern(p.clone())).collect();
        let mut queued: HashSet<NodeId> = pending.iter().copied().collect();
        pending.extend(forced.iter().filter(|f| queued.insert(**f)));
        while !pending.is_empty() {
            let jobs: Vec<(NodeId, PathBuf)> = pending
                .iter()
                .map(|&n| (n, g.nodes[n].path.clone()))
                .collect();
            let results: Vec<(NodeId, FileResult)> = jobs
                .into_par_iter()
                .map(|(n, p)| {
                    let sp = units.get(&p).unwrap_or(&search);
                    (n, scan_file(&p, sp, &exists, overlay.get(&p)))
                })
                .collect();
            pending.clear();
            for (n, res) in results {
                // A unit of the compile database gets its own `-include` headers.
                let unit_forced: Option<Vec<NodeId>> = units.get(&g.nodes[n].path).map(|sp| {
                    let ids: Vec<NodeId> = sp.forced.iter().map(|p| g.intern(p.clone())).collect();
                    for &f in &ids {
                        if queued.insert(f) {
                            pending.push(f);
                        }
                    }
                    ids
                });
                g.absorb(
                    n,
                    res,
                    unit_forced.as_deref().unwrap_or(&forced),
                    opts.walk_external,
                    &mut queued,
                    &mut pending,
                );
            }
        }
        Ok(g)
    }

    fn walk(&mut self, dir: &Path, exts: &[String], exclude: &[String], out: &mut Vec<PathBuf>) {
        let root = self.root.clone();
        let it = walkdir::WalkDir::new(dir)
            .follow_links(true)
            .sort_by(|a, b| sibling_order(a.path(), b.path()))
            .into_iter();
        let it = it.filter_entry(|e| {
            if exclude.is_empty() {
                return true;
            }
            let (rel, _) = rel_of(&root, e.path());
            !exclude.iter().any(|x| {
                !x.is_empty()
                    && (rel == *x || rel.starts_with(&format!("{}/", x.trim_end_matches('/'))))
            })
        });
        for entry in it {
            match entry {
                Ok(e) => {
                    if !e.file_type().is_file() {
                        continue;
                    }
                    let name = e.file_name().to_string_lossy();
                    let ok = name
                        .rsplit_once('.')
                        .is_some_and(|(_, ext)| exts.iter().any(|x| ext == x));
                    if ok {
                        out.push(normalize(e.path()));
                    }
                }
                Err(err) => {
                    let path = err
                        .path()
                        .map(|p| rel_of(&root, p).0)
                        .unwrap_or_else(|| dir.display().to_string());
                    if err.loop_ancestor().is_some() {
                        self.issues.push(Issue::SymlinkLoop { path });
                    } else {
                        self.issues.push(Issue::Unreadable {
                            path,
                            message: err.to_string(),
                        });
                    }
                }
            }
        }
    }

    fn intern(&mut self, p: PathBuf) -> NodeId {
        if let Some(&n) = self.index.get(path_bytes(&p)) {
            return n;
        }
        let (rel, external) = rel_of(&self.root, &p);
        let n = self.nodes.len();
        self.nodes.push(Node {
            path: PathBuf::new(),
            rel,
            external,
            scanned: false,
            resolved: None,
        });
        self.out.push(Vec::new());
        self.files.push(FilePp::default());
        self.index.insert(path_bytes(&p).into(), n);
        self.nodes[n].path = p;
        n
    }

    fn absorb(
        &mut self,
        n: NodeId,
        res: FileResult,
        forced: &[NodeId],
        walk_external: bool,
        queued: &mut HashSet<NodeId>,
        pending: &mut Vec<NodeId>,
    ) {
        let rel = self.nodes[n].rel.clone();
        if let Some(msg) = res.read_error {
            self.issues.push(Issue::Unreadable {
                path: rel,
                message: msg,
            });
            return;
        }
        let Some(scan) = res.scan else { return };
        self.nodes[n].scanned = true;
        if let Some(real) = &res.real {
            let (to, _) = rel_of(&self.canon_root, real);
            if to != rel {
                self.nodes[n].resolved = Some(to);
            }
        }
        if let Some((line, column)) = scan.invalid_utf8 {
            self.issues.push(Issue::InvalidUtf8 {
                path: rel.clone(),
                line,
                column,
            });
        }
        for (line, message) in &scan.problems {
            self.issues.push(Issue::Directive {
                path: rel.clone(),
                line: *line,
                message: message.clone(),
            });
        }
        for (line, s) in scan.skipped {
            self.skipped.push((n, line, s));
        }
        // Forced includes (`-include`) precede the first line of every source file.
        let is_source = self.nodes[n]
            .rel
            .rsplit_once('.')
            .is_some_and(|(_, e)| matches!(e, "c" | "cc" | "cpp" | "cxx" | "c++" | "m" | "mm"));
        if is_source {
            for &f in forced {
                self.out[n].push(Edge {
                    to: f,
                    line: 0,
                    kind: IncludeKind::Quoted,
                    conditional: false,
                });
            }
        }
        let mut pp = FilePp {
            directives: scan.directives,
            includes: Vec::with_capacity(scan.includes.len()),
        };
        for (inc, target) in scan.includes.into_iter().zip(res.targets) {
            pp.includes.push((inc.kind, inc.spelling.clone(), None));
            match target {
                Ok(p) => {
                    let t = self.intern(p);
                    if let Some(last) = pp.includes.last_mut() {
                        last.2 = Some(t);
                    }
                    self.out[n].push(Edge {
                        to: t,
                        line: inc.line,
                        kind: inc.kind,
                        conditional: inc.conditional,
                    });
                    if (!self.nodes[t].external || walk_external) && queued.insert(t) {
                        pending.push(t);
                    }
                }
                Err(reason) => self.unresolved.push(UnresolvedInclude {
                    from: n,
                    line: inc.line,
                    spelling: inc.spelling,
                    reason,
                    conditional: inc.conditional,
                }),
            }
        }
        self.files[n] = pp;
    }

    pub fn id(&self, path: &Path) -> Option<NodeId> {
        self.node(&normalize(&self.root.join(path)))
    }

    /// The node of an absolute, normalised path ([`normalize`]).
    pub fn node(&self, path: &Path) -> Option<NodeId> {
        self.index.get(path_bytes(path)).copied()
    }

    /// Finds a node by a root-relative path, an absolute path, or a unique path suffix (a path
    /// relative to the current directory is the caller's to resolve).
    pub fn find(&self, name: &str) -> Result<NodeId> {
        if let Some(n) = self.id(Path::new(name)) {
            return Ok(n);
        }
        let suffix = format!("/{}", name.trim_start_matches("./"));
        let hits: Vec<NodeId> = (0..self.nodes.len())
            .filter(|&n| self.nodes[n].rel == name || self.nodes[n].rel.ends_with(&suffix))
            .collect();
        match hits.as_slice() {
            [one] => Ok(*one),
            _ => Err(Error::NotInGraph {
                path: PathBuf::from(name),
            }),
        }
    }

    /// Finds a file named on a command line: a path relative to `cwd` (the caller's current
    /// directory) or absolute, inside the workspace; else as [`Graph::find`] names it.
    pub fn find_named(&self, name: &str, cwd: Option<&Path>) -> Result<NodeId> {
        let p = Path::new(name);
        let on_disk = if p.is_absolute() {
            Some(p.to_path_buf())
        } else {
            cwd.map(|c| c.join(p))
        };
        if let Some(rel) = on_disk
            .and_then(|p| p.canonicalize().ok())
            .and_then(|p| p.strip_prefix(&self.root).ok().map(Path::to_path_buf))
        {
            if let Some(n) = self.id(&rel) {
                return Ok(n);
            }
        }
        self.find(name)
    }

    pub fn edge_count(&self) -> usize {
        self.out.iter().map(Vec::len).sum()
    }

    pub fn scanned_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.scanned).count()
    }

    pub fn rel(&self, n: NodeId) -> &str {
        &self.nodes[n].rel
    }
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|c| c.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// Whether a candidate header exists: the walked files without a syscall, any other path by one
/// `stat` per distinct path per build, and none at all when its directory does not exist. The same
/// spelling from a hundred includers in one directory, or a standard header tried in every search
/// directory, costs one `stat`, not one per include.
///
/// Keys are the paths' bytes: every path asked about is normalised ([`normalize`]), so equal
/// bytes are equal paths, and hashing and comparing bytes skips `Path`'s component walk.
struct Exists {
    walked: HashSet<Vec<u8>, FxBuild>,
    /// Paths already asked about: is it a file (`seen`), is it a directory (`dirs`).
    seen: std::sync::RwLock<HashMap<Vec<u8>, bool, FxBuild>>,
    dirs: std::sync::RwLock<HashMap<Vec<u8>, bool, FxBuild>>,
}

/// foldhash, the workspace's one fast hasher: a resolution hashes a few candidate paths per
/// include, and SipHash's flooding resistance buys nothing for the file names of the tree read.
type FxBuild = foldhash::fast::RandomState;

fn path_bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// `Path::parent` of a normalised path, on its bytes.
fn parent_bytes(b: &[u8]) -> Option<&[u8]> {
    match b.iter().rposition(|&c| c == b'/') {
        Some(0) if b.len() > 1 => Some(&b[..1]),
        Some(0) => None,
        Some(i) => Some(&b[..i]),
        None if b.is_empty() => None,
        None => Some(&b[..0]),
    }
}

/// `map[key]`, else `probe()` remembered. A poisoned lock only means another scan panicked; the
/// entries are still right.
fn memo(
    map: &std::sync::RwLock<HashMap<Vec<u8>, bool, FxBuild>>,
    key: &[u8],
    probe: impl FnOnce() -> bool,
) -> bool {
    use std::sync::PoisonError;
    let hit = map
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(key)
        .copied();
    hit.unwrap_or_else(|| {
        let is = probe();
        map.write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_vec(), is);
        is
    })
}

impl Exists {
    fn new(walked: &[PathBuf]) -> Exists {
        Exists {
            walked: walked.iter().map(|p| path_bytes(p).to_vec()).collect(),
            seen: Default::default(),
            dirs: Default::default(),
        }
    }

    fn is_file(&self, p: &Path) -> bool {
        let key = path_bytes(p);
        if self.walked.contains(key) {
            return true;
        }
        let dir_exists = parent_bytes(key)
            .is_none_or(|d| memo(&self.dirs, d, || p.parent().is_some_and(Path::is_dir)));
        dir_exists && memo(&self.seen, key, || p.is_file())
    }
}

/// Reads the whole file into `buf`, which is kept initialised and reused: a file costs open, reads
/// to EOF and close, no allocation and no page faults. Only a file larger than the buffer's spare
/// room asks its size (one `statx`), so the buffer grows once, to fit.
fn read_into<'b>(path: &Path, buf: &'b mut Vec<u8>) -> std::io::Result<&'b [u8]> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut len = 0;
    // A file over the size limit is an error naming the limit, never a read (issue 29: a 2 GiB
    // sparse source aborted the run allocating its buffer).
    let limit = diag::walk::max_file_size();
    let too_large = |size: u64| {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            diag::walk::too_large_reason(size, limit),
        )
    };
    loop {
        if len as u64 > limit {
            return Err(too_large(len as u64));
        }
        if buf.len() - len < READ_SPARE {
            let size = f.metadata().map_or(0, |m| m.len());
            if size > limit {
                return Err(too_large(size));
            }
            let size = size as usize;
            let want = (buf.len() * 2).max(size.max(len) + READ_SPARE);
            buf.resize(want, 0);
        }
        match f.read(&mut buf[len..]) {
            Ok(0) => return Ok(&buf[..len]),
            Ok(k) => len += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Room kept past the bytes read (the first buffer's size, and the read that sees EOF).
const READ_SPARE: usize = 64 * 1024;
/// A buffer grown past this for one large file is dropped after it: the next file is small.
const READ_KEEP: usize = 1024 * 1024;

thread_local! {
    /// Each scanning thread reads every file into one buffer, kept for the thread's life.
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn scan_file(
    path: &Path,
    search: &SearchPath,
    exists: &Exists,
    overlay: Option<&Vec<u8>>,
) -> FileResult {
    READ_BUF.with(|buf| match buf.try_borrow_mut() {
        Ok(mut buf) => {
            let res = scan_file_with(path, search, exists, overlay, &mut buf);
            if buf.len() > READ_KEEP {
                *buf = Vec::new();
            }
            res
        }
        // Only a re-entrant scan on this thread holds it: read into a buffer of its own.
        Err(_) => scan_file_with(path, search, exists, overlay, &mut Vec::new()),
    })
}

fn scan_file_with(
    path: &Path,
    search: &SearchPath,
    exists: &Exists,
    overlay: Option<&Vec<u8>>,
    buf: &mut Vec<u8>,
) -> FileResult {
    let read = match overlay {
        Some(b) => Ok(b.as_slice()),
        None => read_into(path, buf),
    };
    let bytes = match read {
        Ok(b) => b,
        Err(e) => {
            return FileResult {
                scan: None,
                read_error: Some(e.to_string()),
                real: None,
                targets: Vec::new(),
            }
        }
    };
    let scan = lex::skim(bytes);
    let dir = path.parent().unwrap_or(Path::new("/"));
    let targets = scan
        .includes
        .iter()
        .map(|inc| match inc.kind {
            IncludeKind::Computed => Err(Unresolvable::Computed),
            IncludeKind::Next => Err(Unresolvable::IncludeNext),
            kind => first_candidate(dir, kind, &inc.spelling, search, |c| exists.is_file(c))
                .ok_or(Unresolvable::NotFound),
        })
        .collect();
    FileResult {
        scan: Some(scan),
        read_error: None,
        real: overlay
            .is_none()
            .then(|| path.canonicalize().ok())
            .flatten(),
        targets,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;

    /// Writes `files` (path, text) under a fresh temp dir.
    pub(crate) fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (p, t) in files {
            let full = d.path().join(p);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, t).unwrap();
        }
        d
    }

    #[test]
    fn resolves_quoted_relative_then_search_path() {
        let d = tree(&[
            (
                "src/a.cpp",
                "#include \"b.h\"\n#include <lib/c.h>\n#include <vector>\n#include MACRO\n",
            ),
            ("src/b.h", "#include \"lib/c.h\"\n"),
            ("inc/lib/c.h", "// leaf\n"),
            (
                "src/lib/c.h",
                "// shadowing copy found first for quoted includes from src/\n",
            ),
        ]);
        let mut o = GraphOptions::new(d.path());
        o.search.user.push("inc".into());
        let g = Graph::build(&o).unwrap();
        let a = g.find("src/a.cpp").unwrap();
        let b = g.find("src/b.h").unwrap();
        let tos: Vec<&str> = g.out[a].iter().map(|e| g.rel(e.to)).collect();
        assert_eq!(tos, vec!["src/b.h", "inc/lib/c.h"]);
        assert_eq!(g.rel(g.out[b][0].to), "src/lib/c.h");
        let reasons: Vec<_> = g.unresolved.iter().map(|u| u.reason).collect();
        assert_eq!(
            reasons,
            vec![Unresolvable::NotFound, Unresolvable::Computed]
        );
    }

    #[test]
    fn each_unit_resolves_with_its_own_flags() {
        let d = tree(&[
            ("a.cpp", "#include <cfg.h>\n"),
            ("b.cpp", "#include <cfg.h>\n"),
            ("one/cfg.h", ""),
            ("two/cfg.h", ""),
            ("pre.h", ""),
        ]);
        let mut o = GraphOptions::new(d.path());
        o.search.user = vec!["one".into(), "two".into()];
        let unit = |dir: &str| SearchPath {
            user: vec![dir.into()],
            forced: vec!["pre.h".into()],
            ..Default::default()
        };
        o.units.insert("b.cpp".into(), unit("two"));
        let g = Graph::build(&o).unwrap();
        let tos = |f: &str| {
            g.out[g.find(f).unwrap()]
                .iter()
                .map(|e| g.rel(e.to).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(tos("a.cpp"), vec!["one/cfg.h"]);
        assert_eq!(tos("b.cpp"), vec!["pre.h", "two/cfg.h"]);
    }

    #[test]
    fn external_headers_are_leaves_and_missing_dir_warns() {
        let ext = tree(&[("x/e.h", "#include \"f.h\"\n"), ("x/f.h", "")]);
        let d = tree(&[("a.cpp", "#include <e.h>\n")]);
        let mut o = GraphOptions::new(d.path());
        o.search.user.push(ext.path().join("x"));
        o.search.user.push("nope".into());
        let g = Graph::build(&o).unwrap();
        let e = g.out[g.find("a.cpp").unwrap()][0].to;
        assert!(g.nodes[e].external);
        assert!(!g.nodes[e].scanned);
        assert!(g.out[e].is_empty());
        assert_eq!(
            g.issues,
            vec![Issue::MissingSearchDir {
                path: "nope".into()
            }]
        );
    }

    #[test]
    fn parent_bytes_is_path_parent() {
        for p in ["/", "/a", "/a/b", "/a/b/c.h", "a", "a/b", ""] {
            let want = Path::new(p).parent().map(path_bytes);
            assert_eq!(parent_bytes(p.as_bytes()), want, "{p:?}");
        }
    }

    /// Paths from the pieces that matter to components: `/`, `//`, `.`, `..`, names that share
    /// prefixes, a backslash, a trailing `/`.
    fn generated_paths(n: usize) -> Vec<String> {
        const PIECES: &[&str] = &[
            "/", "/", "a", "ab", "b", ".", "..", "\\", "a.h", "//", "x-y",
        ];
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        (0..n)
            .map(|_| {
                let len = next() % 7;
                (0..len)
                    .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn rel_of_on_bytes_is_strip_prefix() {
        let paths = generated_paths(3_000);
        let roots = paths.iter().take(300).chain(paths.iter().step_by(97));
        for root in roots {
            for p in &paths {
                let (root, p) = (Path::new(root), Path::new(p));
                let want = match p.strip_prefix(root) {
                    Ok(r) => (r.to_string_lossy().replace('\\', "/"), false),
                    Err(_) => (p.to_string_lossy().into_owned(), true),
                };
                assert_eq!(rel_of(root, p), want, "root {root:?}, path {p:?}");
            }
            // Every path under a root, as interning meets them.
            let under = Path::new(root).join("a/b.h");
            let want = under
                .strip_prefix(root)
                .map(|r| r.to_string_lossy().into_owned());
            assert_eq!(Ok(rel_of(Path::new(root), &under).0), want, "{under:?}");
        }
    }

    #[test]
    fn sibling_order_is_file_name_order() {
        const NAMES: &[&str] = &[
            "a", "a.h", ".h", "...", "x\\y", "\u{e9}.h", "a b", "a-b", "ab", "A", "a.", "~",
            "\u{7f}",
        ];
        for dir in generated_paths(300) {
            let dir = Path::new(&dir);
            for a in NAMES {
                for b in NAMES {
                    let (pa, pb) = (dir.join(a), dir.join(b));
                    let want = pa.file_name().cmp(&pb.file_name());
                    assert_eq!(sibling_order(&pa, &pb), want, "{pa:?} {pb:?}");
                }
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn walk_order_and_issues_are_the_sorted_walk() {
        let d = tree(&[
            ("a-b/x.h", ""),
            ("a/b/c.h", "#include \"../../a-b/x.h\"\n"),
            ("a/z.h", ""),
            ("a.h", ""),
            ("B.h", ""),
            ("b/y.h", ""),
        ]);
        std::os::unix::fs::symlink(d.path(), d.path().join("a/loop")).unwrap();
        std::os::unix::fs::symlink(d.path().join("a"), d.path().join("b/loop2")).unwrap();
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let rels: Vec<&str> = (0..g.nodes.len()).map(|n| g.rel(n)).collect();
        let mut sorted: Vec<PathBuf> = rels.iter().map(|r| d.path().join(r)).collect();
        sorted.sort();
        let want: Vec<String> = sorted
            .iter()
            .map(|p| {
                p.strip_prefix(d.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(rels, want);
        let loops: Vec<&Issue> = g.issues.iter().collect();
        assert_eq!(
            loops,
            vec![
                &Issue::SymlinkLoop {
                    path: "a/loop".into()
                },
                &Issue::SymlinkLoop {
                    path: "b/loop2/loop".into()
                },
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loop_and_invalid_utf8_are_reported() {
        let d = tree(&[
            ("a.h", "#include \"b.h\"\n"),
            ("b.h", "\u{0}"),
            ("sub/c.h", ""),
        ]);
        std::fs::write(d.path().join("bad.h"), b"\xff\n#include \"a.h\"\n").unwrap();
        std::os::unix::fs::symlink(d.path(), d.path().join("sub/loop")).unwrap();
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        assert!(
            g.issues
                .iter()
                .any(|i| matches!(i, Issue::SymlinkLoop { .. })),
            "{:?}",
            g.issues
        );
        assert!(g.issues.contains(&Issue::InvalidUtf8 {
            path: "bad.h".into(),
            line: 1,
            column: 1
        }));
        assert_eq!(g.out[g.find("bad.h").unwrap()].len(), 1);
    }
}
