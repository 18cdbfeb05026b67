//! Structs: PROC, TIMEVAL, COORD, PDATA, QUERY and APP.

use super::{fail, Enc};
use crate::component::Family;
use crate::error::Result;
use crate::status::Status;
use crate::value::*;

impl Enc {
    #[inline]
    pub(super) fn proc_rank(&mut self, r: u32) {
        if self.fam == Family::Legacy12 {
            self.int(r as i32);
        } else {
            self.u32(r);
        }
    }

    #[inline]
    pub(super) fn proc(&mut self, p: &Proc) -> Result<()> {
        self.text_required(&p.nspace)?;
        self.proc_rank(p.rank);
        Ok(())
    }

    pub(super) fn timeval(&mut self, t: &Timeval) {
        self.i64(t.sec);
        self.i64(t.usec);
    }

    pub(super) fn coord(&mut self, c: &Coord) {
        self.u8(c.view);
        self.size(c.coord.len() as u64);
        for v in &c.coord {
            self.u32(*v);
        }
    }

    #[inline(never)]
    pub(super) fn pdata(&mut self, p: &Pdata) -> Result<()> {
        self.proc(&p.proc)?;
        self.string(Some(&p.key[..]))?;
        self.value_type(p.value.data_type());
        self.value_payload(&p.value)
    }

    #[inline(never)]
    pub(super) fn query(&mut self, q: &Query) -> Result<()> {
        self.i32(q.keys.len() as i32);
        for k in &q.keys {
            self.text(k)?;
        }
        self.size(q.qualifiers.len() as u64);
        for i in &q.qualifiers {
            self.info(i)?;
        }
        Ok(())
    }

    pub(super) fn app(&mut self, a: &App) -> Result<()> {
        // A C argv/env is a NULL-terminated char**: a NULL element cannot be packed (the
        // list would end there), and the unpacker refuses one (quirk U17).
        for (what, list) in [("argv", &a.argv), ("env", &a.env)] {
            if let Some(i) = list.iter().position(|s| s.is_none()) {
                return Err(fail(
                    Status::ERR_BAD_PARAM,
                    format!("NULL APP {what}[{i}]: a C argv list ends at its first NULL"),
                ));
            }
        }
        self.text(&a.cmd)?;
        self.int(a.argv.len() as i32);
        for s in &a.argv {
            self.text(s)?;
        }
        self.i32(a.env.len() as i32);
        for s in &a.env {
            self.text(s)?;
        }
        if self.fam != Family::Legacy12 {
            self.text(&a.cwd)?;
        }
        self.int(a.maxprocs);
        self.size(a.info.len() as u64);
        for i in &a.info {
            self.info(i)?;
        }
        Ok(())
    }
}
