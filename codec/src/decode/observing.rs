//! The observer's view of a decode: the path of names and indexes around each read, and
//! the fields reported to the observer. All of it compiles away for [`Quiet`].

use super::Dec;
use crate::error::{Error, Result};
use crate::observe::{Field, Meaning, Observer, Path, Quiet, Seg, TagRole};

impl<'a, O: Observer> Dec<'a, O> {
    /// The same decoder at the same place, reporting to `obs` from here on (with an empty
    /// path: call it between calls).
    pub fn observed<P: Observer>(&self, obs: P) -> Dec<'a, P> {
        Dec {
            r: self.r.clone(),
            src: self.src,
            fam: self.fam,
            comp: self.comp,
            rel: self.rel,
            desc: self.desc,
            depth: self.depth,
            opts: self.opts,
            array_int: self.array_int,
            int_tail: self.int_tail,
            info_depth: self.info_depth,
            query_depth: self.query_depth,
            pointer_budget: self.pointer_budget,
            reserve_budget: self.reserve_budget,
            quick_values: self.quick_values,
            string_forces_nul: self.string_forces_nul,
            negative_string_is_null: self.negative_string_is_null,
            keep_values: self.keep_values,
            obs,
            path: Vec::new(),
            frames: Vec::new(),
            pending: None,
        }
    }

    /// A silent copy of this decoder at the same place: to look ahead, or to run a call
    /// again from here.
    pub fn snapshot(&self) -> Dec<'a, Quiet> {
        self.observed(Quiet)
    }

    /// Where a field starts, for [`Dec::emit`].
    #[inline(always)]
    pub(super) fn mark(&self) -> usize {
        if O::ACTIVE && O::FIELDS {
            self.r.offset()
        } else {
            0
        }
    }

    /// Report the bytes from `at` to the cursor as one field.
    #[inline(always)]
    pub(super) fn emit(&mut self, at: usize, meaning: Meaning<'_>) {
        if O::ACTIVE && O::FIELDS {
            self.emit_field(at, meaning);
        } else if O::ACTIVE {
            self.forget_name(meaning);
        }
    }

    /// What [`Dec::emit_field`] does to the pending name, without the report.
    #[inline(never)]
    fn forget_name(&mut self, meaning: Meaning<'_>) {
        if !keeps_name(&meaning) {
            self.pending = None;
        }
    }

    #[inline(never)]
    fn emit_field(&mut self, at: usize, meaning: Meaning<'_>) {
        let keep = keeps_name(&meaning);
        let named = if keep {
            self.pending
        } else {
            self.pending.take()
        };
        if let Some(seg) = named {
            self.path.push(seg);
        }
        let field = Field {
            offset: at,
            len: self.r.offset() - at,
            path: Path(&self.path),
            meaning,
        };
        self.obs.field(&field);
        if named.is_some() {
            self.path.pop();
        }
    }

    /// Name the next field (or structure).
    #[inline(always)]
    pub(super) fn name(&mut self, seg: Seg) {
        if O::ACTIVE {
            self.pending = Some(seg);
        }
    }

    /// Name the next field.
    #[inline(always)]
    pub(super) fn named(&mut self, name: &'static str) -> &mut Self {
        self.name(Seg::Name(name));
        self
    }

    /// Read a structure-valued field `name` with `read`.
    #[inline(always)]
    pub(super) fn within<T>(
        &mut self,
        name: &'static str,
        read: fn(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.enter(Seg::Name(name));
        let v = read(self)?;
        self.leave();
        Ok(v)
    }

    /// `r`, closing the innermost structure if it is a success (the identity for `Quiet`).
    #[inline(always)]
    pub(super) fn left<T>(&mut self, r: Result<T>) -> Result<T> {
        if r.is_ok() {
            self.leave();
        }
        r
    }

    /// Report a note (a field of no bytes) at the current place.
    #[inline(always)]
    pub(super) fn note(&mut self, text: &'static str) {
        self.emit(self.mark(), Meaning::Note(text));
    }

    /// Forget the pending name (its field has no bytes).
    #[inline(always)]
    pub(super) fn unname(&mut self) {
        if O::ACTIVE {
            self.pending = None;
        }
    }

    /// Open a structure (after the pending name, which opens first around it).
    #[inline(always)]
    pub(super) fn enter(&mut self, seg: Seg) {
        if O::ACTIVE {
            self.enter_path(seg);
        }
    }

    #[inline(never)]
    fn enter_path(&mut self, seg: Seg) {
        let at = self.r.offset();
        let mut segs = 1;
        if let Some(name) = self.pending.take() {
            self.path.push(name);
            self.obs.open(at, Path(&self.path));
            segs = 2;
        }
        self.path.push(seg);
        self.obs.open(at, Path(&self.path));
        self.frames.push(segs);
    }

    /// Close the innermost structure: only after success (on failure the path stays
    /// where decoding stopped, for the error).
    #[inline(always)]
    pub(super) fn leave(&mut self) {
        if O::ACTIVE {
            self.leave_path();
        }
    }

    #[inline(never)]
    fn leave_path(&mut self) {
        self.pending = None;
        let at = self.r.offset();
        for _ in 0..self.frames.pop().unwrap_or(0) {
            self.obs.close(at, Path(&self.path));
            self.path.pop();
        }
    }

    /// Where decoding is now: the open structures and the field being read.
    pub fn where_now(&self) -> Vec<Seg> {
        let mut p = self.path.clone();
        p.extend(self.pending);
        p
    }

    /// Report a failure at the current place.
    pub fn report_failure(&mut self, e: &Error) {
        if O::ACTIVE {
            let p = self.where_now();
            self.obs.fail(e, Path(&p));
        }
    }
}

/// Whether a field of this meaning leaves the pending name to the field after it: a tag in
/// front of a value, or a string's length, belongs to the named field that follows.
fn keeps_name(meaning: &Meaning<'_>) -> bool {
    matches!(
        meaning,
        Meaning::Tag {
            role: TagRole::IntTag | TagRole::Described,
            ..
        } | Meaning::StringLength { .. }
    )
}
