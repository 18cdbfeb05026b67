//! No crate's files import each other in a circle (issue 44 item 5).
//!
//! For every workspace member (the `members` of the root `Cargo.toml`), the module tree of
//! each of its crate roots (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`) is read by
//! following `mod name;` declarations (`name.rs`, `name/mod.rs`, or a `#[path]`), and a
//! graph of file -> file edges is built from the source text, comments and string
//! literals left out (doc links are no imports). The rule:
//!
//! * **An edge** `A -> B` is file `A` naming, in a `use` item or in a path anywhere in its
//!   code (tests and inline modules included), an item or a module that lives in file
//!   `B`. The paths read are those starting with `crate::`, `super::` or `self::`, with
//!   the name of a child module of the module they are written in (a 2018 relative path),
//!   or with a name a `use` bound to a module (`use crate::spawn;` then `spawn::kill`). A
//!   path is followed down the module tree as far as its segments name modules (an inline
//!   `mod x { .. }` belongs to the file it is written in); the file of the last module
//!   reached is `B`. Naming a module itself (`use crate::spawn;`, a glob) is an edge to
//!   that module's file.
//! * **Re-exports are followed, not counted.** A `pub use` (any visibility) in a *facade*
//!   — a crate root, a `mod.rs`, or any file declaring file child modules — only passes a
//!   name along: it is no edge, and a path through it leads to the file the item comes
//!   from (`crate::Config`, with `pub use shared::Config;` or `pub use shared::*;` in
//!   `lib.rs`, is an edge to `shared.rs`). A name the facade defines itself (`fn`,
//!   `struct`, `const`, ..) is an edge to the facade.
//! * **Not an edge:** a module naming its own descendants — a `mod name;` declaration, and
//!   likewise a parent using its children's items: the module tree already puts a parent
//!   above what it declares, so these edges only restate it (and a child naming its
//!   parent's items, `super::X` or `crate::Failure`, is the ordinary upward edge that
//!   counts). A file naming itself (`use super::*` in an inline `mod tests`) and a path
//!   into another crate are no edges either.
//!
//! What is left are the edges between files that do not contain each other: siblings,
//! cousins, and children naming their ancestors. The test fails listing every strongly
//! connected set of more than one file, with the edges among them and the names each edge
//! is made of. `IMPORT_EDGES=1 cargo test -p pmix-wire --test import_circles --
//! --nocapture` prints every edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The workspace members, as written in the root `Cargo.toml`'s `members = [..]`.
fn members() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let start = text.find("members").expect("members in Cargo.toml");
    let open = start + text[start..].find('[').unwrap();
    let close = open + text[open..].find(']').unwrap();
    text[open + 1..close]
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
    Str(String),
}

fn is_ident(t: &Tok, s: &str) -> bool {
    matches!(t, Tok::Ident(x) if x == s)
}

/// The tokens of a Rust source, comments left out and literals reduced to [`Tok::Str`]
/// (strings) or nothing (chars, numbers).
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if (ch == 'r' || (ch == 'b' && at(i + 1) == 'r'))
            && matches!(at(i + 1 + usize::from(ch == 'b')), '"' | '#')
            && {
                let mut j = i + 1 + usize::from(ch == 'b');
                while at(j) == '#' {
                    j += 1;
                }
                at(j) == '"'
            }
        {
            // raw string: r"..", r#".."#, br".."
            let mut j = i + 1 + usize::from(ch == 'b');
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            let body = j;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                    break;
                }
                j += 1;
            }
            out.push(Tok::Str(c[body..j.min(c.len())].iter().collect()));
            i = j + 1 + hashes;
        } else if ch == '"' || (ch == 'b' && at(i + 1) == '"') {
            let mut j = i + 1 + usize::from(ch == 'b');
            let body = j;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            out.push(Tok::Str(c[body..j.min(c.len())].iter().collect()));
            i = j + 1;
        } else if ch == '\'' || (ch == 'b' && at(i + 1) == '\'') {
            let q = i + usize::from(ch == 'b');
            if at(q + 1) == '\\' {
                // escaped char literal
                let mut j = q + 2;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(q + 2) == '\'' {
                i = q + 3;
            } else {
                // a lifetime or label: its name follows as an identifier
                i = q + 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let mut j = i;
            while j < c.len() && (c[j].is_alphanumeric() || c[j] == '_') {
                j += 1;
            }
            out.push(Tok::Ident(c[i..j].iter().collect()));
            i = j;
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// One file of a crate's module tree.
struct File {
    path: PathBuf,
    /// The module the file is, from the crate root.
    module: Vec<String>,
    toks: Vec<Tok>,
    /// A crate root, a `mod.rs`, or a file declaring file child modules.
    facade: bool,
}

/// A crate's module tree: every module (inline ones included) and the file it lives in.
struct Tree {
    files: Vec<File>,
    /// module path -> index in `files`
    modules: BTreeMap<Vec<String>, usize>,
}

/// Walks `toks` keeping track of the inline modules (`mod x { .. }`) around each token:
/// calls `f(index, inline path)` for each token.
fn walk_inline(toks: &[Tok], mut f: impl FnMut(usize, &[String])) {
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut inline: Vec<String> = Vec::new();
    for i in 0..toks.len() {
        f(i, &inline);
        match &toks[i] {
            Tok::Punct('{') => {
                let name = match (i.checked_sub(2).map(|k| &toks[k]), toks.get(i - 1)) {
                    (Some(Tok::Ident(m)), Some(Tok::Ident(n))) if m == "mod" => Some(n.clone()),
                    _ => None,
                };
                if let Some(n) = &name {
                    inline.push(n.clone());
                }
                stack.push(name);
            }
            Tok::Punct('}') => {
                if let Some(Some(_)) = stack.pop() {
                    inline.pop();
                }
            }
            _ => {}
        }
    }
}

fn tree(crate_root: &Path) -> Tree {
    let mut t = Tree {
        files: Vec::new(),
        modules: BTreeMap::new(),
    };
    let mut todo = vec![(crate_root.to_path_buf(), Vec::<String>::new(), true)];
    while let Some((path, module, owns_dir)) = todo.pop() {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let toks = tokens(&src);
        let idx = t.files.len();
        t.modules.insert(module.clone(), idx);
        let dir = if owns_dir {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        let mut children = Vec::new();
        let mut inline_mods = Vec::new();
        let mut path_attr: Option<String> = None;
        walk_inline(&toks, |i, inline| {
            match (&toks[i], toks.get(i + 1), toks.get(i + 2)) {
                (Tok::Punct('#'), Some(Tok::Punct('[')), Some(t2)) if is_ident(t2, "path") => {
                    if let Some(Tok::Str(p)) = toks.get(i + 4) {
                        path_attr = Some(p.clone());
                    }
                }
                (Tok::Ident(m), Some(Tok::Ident(name)), Some(next)) if m == "mod" => {
                    let mut sub = module.clone();
                    sub.extend(inline.iter().cloned());
                    sub.push(name.clone());
                    if *next == Tok::Punct(';') {
                        let mut base = dir.clone();
                        for n in inline {
                            base.push(n);
                        }
                        let (file, owns) = match path_attr.take() {
                            Some(p) => (path.parent().unwrap().join(p), true),
                            None if base.join(format!("{name}.rs")).exists() => {
                                (base.join(format!("{name}.rs")), false)
                            }
                            None => (base.join(name).join("mod.rs"), true),
                        };
                        children.push((file, sub, owns));
                    } else if *next == Tok::Punct('{') {
                        inline_mods.push(sub);
                    }
                }
                (Tok::Punct(';' | '{' | '}'), _, _) => path_attr = None,
                _ => {}
            }
        });
        let facade = owns_dir || !children.is_empty();
        for m in inline_mods {
            t.modules.insert(m, idx);
        }
        t.files.push(File {
            path,
            module,
            toks,
            facade,
        });
        todo.extend(children);
    }
    t
}

/// A `use` tree's leaf: its path, and the name it binds (`None` for a glob).
struct Leaf {
    segs: Vec<String>,
    binds: Option<String>,
}

/// Reads the `use` tree starting at `toks[*i]`, adding its leaves to `out`.
fn use_tree(toks: &[Tok], i: &mut usize, mut segs: Vec<String>, out: &mut Vec<Leaf>) {
    while *i < toks.len() {
        match &toks[*i] {
            Tok::Sep => *i += 1,
            Tok::Ident(s) => {
                segs.push(s.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::Sep) {
                    continue;
                }
                if segs.last().map(String::as_str) == Some("self") {
                    segs.pop();
                }
                let mut binds = segs.last().cloned();
                if toks.get(*i).is_some_and(|t| is_ident(t, "as")) {
                    if let Some(Tok::Ident(n)) = toks.get(*i + 1) {
                        binds = Some(n.clone());
                    }
                    *i += 2;
                }
                out.push(Leaf { segs, binds });
                return;
            }
            Tok::Punct('*') => {
                *i += 1;
                out.push(Leaf { segs, binds: None });
                return;
            }
            Tok::Punct('{') => {
                *i += 1;
                while *i < toks.len() && toks[*i] != Tok::Punct('}') {
                    use_tree(toks, i, segs.clone(), out);
                    if toks.get(*i) == Some(&Tok::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => {
                *i += 1;
                return;
            }
        }
    }
}

/// Whether the `use` at `toks[i]` has a visibility (`pub`, `pub(crate)`, ..).
fn is_pub_use(toks: &[Tok], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|k| &toks[k]) else {
        return false;
    };
    if is_ident(prev, "pub") {
        return true;
    }
    if *prev == Tok::Punct(')') {
        let mut k = i - 1;
        while k > 0 && toks[k] != Tok::Punct('(') {
            k -= 1;
        }
        return k > 0 && is_ident(&toks[k - 1], "pub");
    }
    false
}

/// What a path names: the module reached, and the item named in it (if any).
struct Target {
    module: Vec<String>,
    item: Option<String>,
}

/// A facade's re-exports: name -> (module it was written in, path), and its globs.
#[derive(Default)]
struct Reexports {
    names: BTreeMap<String, (Vec<String>, Vec<String>)>,
    globs: Vec<(Vec<String>, Vec<String>)>,
}

struct Resolver<'a> {
    tree: &'a Tree,
    reexports: BTreeMap<Vec<String>, Reexports>,
    /// module -> the names of the items defined in it (`fn`, `struct`, ..)
    defined: BTreeMap<Vec<String>, BTreeSet<String>>,
}

/// The names of the items each module of `f` (its own, and its inline modules) defines.
fn defined(f: &File, out: &mut BTreeMap<Vec<String>, BTreeSet<String>>) {
    const KINDS: [&str; 9] = [
        "fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod",
    ];
    // Open braces: `true` for an inline module's.
    let mut braces: Vec<bool> = Vec::new();
    let mut inline: Vec<String> = Vec::new();
    let toks = &f.toks;
    for i in 0..toks.len() {
        match &toks[i] {
            Tok::Punct('{') => {
                let is_mod = i >= 2 && is_ident(&toks[i - 2], "mod");
                if is_mod {
                    if let Tok::Ident(n) = &toks[i - 1] {
                        inline.push(n.clone());
                    }
                }
                braces.push(is_mod);
            }
            Tok::Punct('}') => {
                let closes_mod = braces.pop() == Some(true);
                if closes_mod {
                    inline.pop();
                }
            }
            Tok::Ident(k) if braces.iter().all(|&m| m) => {
                let kind = KINDS.contains(&k.as_str())
                    || (k == "macro_rules" && toks.get(i + 1) == Some(&Tok::Punct('!')));
                let name = toks.get(i + 1 + usize::from(k == "macro_rules"));
                if let (true, Some(Tok::Ident(n))) = (kind, name) {
                    let mut m = f.module.clone();
                    m.extend(inline.iter().cloned());
                    out.entry(m).or_default().insert(n.clone());
                }
            }
            _ => {}
        }
    }
}

impl Resolver<'_> {
    /// Resolves `segs`, written in module `at` (with `aliases` bound there), to the module
    /// file it names; `None` for paths into other crates.
    fn resolve(
        &self,
        at: &[String],
        aliases: &BTreeMap<String, Vec<String>>,
        segs: &[String],
        depth: usize,
    ) -> Option<Target> {
        let first = segs.first()?;
        let (mut module, mut rest): (Vec<String>, &[String]) = match first.as_str() {
            "crate" => (Vec::new(), &segs[1..]),
            "self" => (at.to_vec(), &segs[1..]),
            "super" => {
                let mut m = at.to_vec();
                let mut k = 0;
                while segs.get(k).map(String::as_str) == Some("super") {
                    m.pop()?;
                    k += 1;
                }
                (m, &segs[k..])
            }
            name => {
                let mut child = at.to_vec();
                child.push(name.to_string());
                if self.tree.modules.contains_key(&child) {
                    (at.to_vec(), segs)
                } else {
                    (aliases.get(name)?.clone(), &segs[1..])
                }
            }
        };
        while let Some(s) = rest.first() {
            let mut child = module.clone();
            child.push(s.clone());
            if !self.tree.modules.contains_key(&child) {
                break;
            }
            module = child;
            rest = &rest[1..];
        }
        let item = rest.first().cloned();
        if let (Some(name), Some(r), true) = (&item, self.reexports.get(&module), depth < 8) {
            let own = self.defined.get(&module).is_some_and(|d| d.contains(name));
            let mut via = Vec::new();
            if let Some((written_in, path)) = r.names.get(name) {
                let mut full = path.clone();
                full.extend(rest[1..].iter().cloned());
                via.push((written_in, full));
            } else if !own {
                for (written_in, glob) in &r.globs {
                    let mut full = glob.clone();
                    full.extend(rest.iter().cloned());
                    via.push((written_in, full));
                }
            }
            for (written_in, full) in via {
                let Some(t) = self.resolve(written_in, &BTreeMap::new(), &full, depth + 1) else {
                    continue;
                };
                let found = t.item.as_ref().is_none_or(|n| {
                    self.defined.get(&t.module).is_some_and(|d| d.contains(n))
                        || self.reexports.contains_key(&t.module)
                });
                if found {
                    return Some(t);
                }
            }
        }
        Some(Target { module, item })
    }
}

/// `from file -> to file -> names`
type Edges = BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>>;

fn edges(tree: &Tree) -> Edges {
    // Facades' re-exports first: they are followed, not counted.
    let mut reexports: BTreeMap<Vec<String>, Reexports> = BTreeMap::new();
    let mut defs = BTreeMap::new();
    for f in &tree.files {
        defined(f, &mut defs);
    }
    for f in tree.files.iter().filter(|f| f.facade) {
        walk_inline(&f.toks, |i, inline| {
            if inline.is_empty() && is_ident(&f.toks[i], "use") && is_pub_use(&f.toks, i) {
                let mut leaves = Vec::new();
                use_tree(&f.toks, &mut (i + 1), Vec::new(), &mut leaves);
                let r = reexports.entry(f.module.clone()).or_default();
                for l in leaves {
                    match l.binds {
                        Some(name) => {
                            r.names.insert(name, (f.module.clone(), l.segs));
                        }
                        None => r.globs.push((f.module.clone(), l.segs)),
                    }
                }
            }
        });
    }
    let r = Resolver {
        tree,
        reexports,
        defined: defs,
    };
    let mut out = Edges::new();
    for (from, f) in tree.files.iter().enumerate() {
        let toks = &f.toks;
        let mut add = |t: Target| {
            let to = tree.modules[&t.module];
            let below = tree.files[to].module.starts_with(&f.module);
            if to != from && !below {
                let name = t
                    .item
                    .unwrap_or_else(|| t.module.last().cloned().unwrap_or("crate".into()));
                out.entry(from)
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(name);
            }
        };
        let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
        // Two passes: the first learns which names `use` binds to modules.
        for pass in 0..2 {
            let mut skip_to = 0;
            walk_inline(toks, |i, inline| {
                if i < skip_to {
                    return;
                }
                let mut at = f.module.clone();
                at.extend(inline.iter().cloned());
                if is_ident(&toks[i], "use") {
                    let mut j = i + 1;
                    let mut leaves = Vec::new();
                    use_tree(toks, &mut j, Vec::new(), &mut leaves);
                    skip_to = j;
                    let reexport = f.facade && inline.is_empty() && is_pub_use(toks, i);
                    for l in leaves {
                        let Some(t) = r.resolve(&at, &aliases, &l.segs, 0) else {
                            continue;
                        };
                        if pass == 0 {
                            if let (None, Some(b)) = (&t.item, &l.binds) {
                                aliases.insert(b.clone(), t.module.clone());
                            }
                        } else if !reexport {
                            add(t);
                        }
                    }
                    return;
                }
                let Tok::Ident(first) = &toks[i] else {
                    return;
                };
                let starts_path = toks.get(i + 1) == Some(&Tok::Sep)
                    && !matches!(
                        i.checked_sub(1).map(|k| &toks[k]),
                        Some(Tok::Sep | Tok::Punct('$'))
                    );
                if pass == 0 || !starts_path || first == "Self" {
                    return;
                }
                let mut segs = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::Sep) {
                    match toks.get(j + 1) {
                        Some(Tok::Ident(s)) => segs.push(s.clone()),
                        _ => break,
                    }
                    j += 2;
                }
                skip_to = j;
                if let Some(t) = r.resolve(&at, &aliases, &segs, 0) {
                    add(t);
                }
            });
        }
    }
    out
}

/// Strongly connected sets of more than one file (Tarjan).
fn circles(n: usize, edges: &Edges) -> Vec<Vec<usize>> {
    struct St<'a> {
        edges: &'a Edges,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut St, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        let succ: Vec<usize> = s
            .edges
            .get(&v)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        for w in succ {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut set = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on[w] = false;
                set.push(w);
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.out.push(set);
            }
        }
    }
    let mut s = St {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The crate roots of a member: `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
/// `src/bin/*/main.rs`.
fn crate_roots(member: &Path) -> Vec<PathBuf> {
    let src = member.join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.exists())
        .collect();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        for e in bins.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "rs") {
                roots.push(p);
            } else if p.join("main.rs").exists() {
                roots.push(p.join("main.rs"));
            }
        }
    }
    roots.sort();
    roots
}

/// `p` relative to the repository root.
fn rel(p: &Path) -> String {
    let p = p.canonicalize().unwrap();
    let base = root().canonicalize().unwrap();
    p.strip_prefix(&base).unwrap_or(&p).display().to_string()
}

#[test]
fn no_crate_imports_itself_in_a_circle() {
    let mut found = Vec::new();
    let (mut files, mut edge_count, mut all) = (0, 0, Vec::new());
    for member in members() {
        for crate_root in crate_roots(&root().join(&member)) {
            let tree = tree(&crate_root);
            let edges = edges(&tree);
            files += tree.files.len();
            edge_count += edges.values().map(BTreeMap::len).sum::<usize>();
            for (&a, to) in &edges {
                for (&b, names) in to {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    all.push(format!(
                        "{} -> {} ({})",
                        rel(&tree.files[a].path),
                        rel(&tree.files[b].path),
                        names.join(", ")
                    ));
                }
            }
            for set in circles(tree.files.len(), &edges) {
                let src = rel(crate_root.parent().unwrap());
                let name = |k: usize| {
                    let p = rel(&tree.files[k].path);
                    p.strip_prefix(&format!("{src}/")).unwrap_or(&p).to_string()
                };
                let mut set = set;
                set.sort_by_key(|&k| name(k));
                let mut text = format!(
                    "{src}: {} files import each other in a circle: {}",
                    set.len(),
                    set.iter().map(|&k| name(k)).collect::<Vec<_>>().join(", ")
                );
                for &a in &set {
                    for (&b, names) in &edges[&a] {
                        if set.contains(&b) {
                            let names: Vec<&str> = names.iter().map(String::as_str).collect();
                            text +=
                                &format!("\n    {} -> {} ({})", name(a), name(b), names.join(", "));
                        }
                    }
                }
                found.push(text);
            }
        }
    }
    println!("{files} files, {edge_count} file -> file edges");
    if std::env::var_os("IMPORT_EDGES").is_some() {
        println!("{}", all.join("\n"));
    }
    assert!(files > 100, "only {files} files read");
    assert!(
        found.is_empty(),
        "files import each other in a circle:\n{}",
        found.join("\n")
    );
}

/// The reading above, on a made-up crate: the rule's cases one by one.
#[test]
fn the_rule_on_a_small_crate() {
    let dir = std::env::temp_dir().join(format!("import-circles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("host")).unwrap();
    let write = |p: &str, s: &str| std::fs::write(dir.join(p), s).unwrap();
    write(
        "lib.rs",
        "pub mod a;\npub mod b;\npub mod host;\npub use a::Thing;\npub use host::*;\n\
         pub const V: u8 = 1;\nfn main() { a::Thing; }\n",
    );
    // a names b's item through the crate root's re-export of... nothing: b directly.
    write(
        "a.rs",
        "//! uses crate::b in a comment only\nuse crate::b;\npub struct Thing;\n\
         fn f() { let _ = b::g(); let _ = crate::V; let _ = \"crate::host::x\"; }\n\
         #[cfg(test)] mod tests { use super::*; }\n",
    );
    // b names Thing through lib.rs's re-export: an edge to a.rs, so a <-> b; H through
    // lib.rs's glob re-export of host.
    write(
        "b.rs",
        "pub fn g() -> crate::Thing { crate::Thing }\nfn h(_: crate::H) {}\n",
    );
    // host/mod.rs declares model, re-exports and names its items; model names its parent:
    // no circle (a module naming its descendants is no edge).
    write(
        "host/mod.rs",
        "pub mod model;\npub use model::M;\npub struct H;\nfn m() -> model::M { model::M(H) }\n",
    );
    write("host/model.rs", "use super::H;\npub struct M(H);\n");
    let tree = tree(&dir.join("lib.rs"));
    let edges = edges(&tree);
    let name = |k: usize| {
        tree.files[k]
            .path
            .strip_prefix(&dir)
            .unwrap()
            .display()
            .to_string()
    };
    let mut seen = Vec::new();
    for (&a, to) in &edges {
        for (&b, names) in to {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            seen.push(format!("{} -> {} ({})", name(a), name(b), names.join(", ")));
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "a.rs -> b.rs (b, g)",
            "a.rs -> lib.rs (V)",
            "b.rs -> a.rs (Thing)",
            "b.rs -> host/mod.rs (H)",
            "host/model.rs -> host/mod.rs (H)",
        ]
    );
    let sets: Vec<Vec<String>> = circles(tree.files.len(), &edges)
        .into_iter()
        .map(|s| {
            let mut names: Vec<String> = s.into_iter().map(name).collect();
            names.sort();
            names
        })
        .collect();
    assert_eq!(sets, [["a.rs", "b.rs"]]);
    std::fs::remove_dir_all(&dir).unwrap();
}
