//! The diff a stale check prints: a generated file against the checked-in one.

/// A unified-ish diff: the first differing region (common prefix and suffix removed), with context.
pub fn line_diff(name: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let ctx = 3;
    let start = pre.saturating_sub(ctx);
    let mut s = format!(
        "--- {name} (checked in)\n+++ {name} (regenerated)\n@@ -{},{} +{},{} @@\n",
        start + 1,
        a_mid.len() + (pre - start),
        start + 1,
        b_mid.len() + (pre - start)
    );
    for l in &a[start..pre] {
        s += &format!(" {l}\n");
    }
    let limit = 40;
    for l in a_mid.iter().take(limit) {
        s += &format!("-{l}\n");
    }
    if a_mid.len() > limit {
        s += &format!("-... ({} more lines)\n", a_mid.len() - limit);
    }
    for l in b_mid.iter().take(limit) {
        s += &format!("+{l}\n");
    }
    if b_mid.len() > limit {
        s += &format!("+... ({} more lines)\n", b_mid.len() - limit);
    }
    for l in a[a.len() - suf..].iter().take(ctx) {
        s += &format!(" {l}\n");
    }
    s
}
